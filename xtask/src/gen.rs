//! `gen` and `check`: load the spec, generate in memory, then write or compare.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::files::{load_spec, normalize, write_all_atomic};

/// Folders whose every file is generated: a file there that gen does not produce is an orphan.
const GENERATED_DIRS: &[&str] = &["tpb-isa/src/generated", "tests/generated"];

/// Load and check the spec; on errors print them and return `None`.
fn model(root: &Path, spec: Option<&Path>, writing: bool) -> Result<Option<codegen::Model>> {
    let spec = spec.map_or_else(|| root.join("isa"), Path::to_path_buf);
    let sources = load_spec(&spec, root)?;
    // The committed spec also keeps the provenance and placement rules, which
    // `codegen::load` leaves to its callers (a scratch spec need not cite anything, an
    // older spec on a side of a diff may hold a group nothing places).
    let rendered = match codegen::load(sources) {
        Ok(m) => {
            let mut broken = codegen::provenance::unsourced(&m);
            broken.0.extend(codegen::placement::unplaced_groups(&m).0);
            if broken.is_empty() {
                return Ok(Some(m));
            }
            broken.sort();
            broken.render(&m.sources)
        }
        // The provenance and placement rules need the checked model: say that they are
        // still to come.
        Err(f) => format!(
            "{}note: the provenance and placement rules (every item cites a @source, every \
             group is placed) run once these are fixed\n",
            f.render()
        ),
    };
    eprint!("{rendered}");
    if writing {
        eprintln!("nothing was written");
    }
    Ok(None)
}

/// What differs between the generated files and the tree.
#[derive(Default)]
pub struct Staleness {
    /// Files whose contents differ.
    pub stale: Vec<String>,
    /// Files gen would write that do not exist.
    pub missing: Vec<String>,
    /// Files in generated folders that gen no longer writes.
    pub orphaned: Vec<String>,
}

impl Staleness {
    fn is_clean(&self) -> bool {
        self.stale.is_empty() && self.missing.is_empty() && self.orphaned.is_empty()
    }
}

/// Compare generated output with the files under `root`, never writing.
pub fn compare(root: &Path, files: &[codegen::OutputFile]) -> Staleness {
    let mut s = Staleness::default();
    let wanted: BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    for f in files {
        match fs::read_to_string(root.join(&f.path)) {
            Ok(text) if normalize(&text) == f.contents => {}
            Ok(_) => s.stale.push(f.path.clone()),
            Err(_) => s.missing.push(f.path.clone()),
        }
    }
    for dir in GENERATED_DIRS {
        for path in list(&root.join(dir)) {
            let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            if !wanted.contains(rel.as_str()) {
                s.orphaned.push(rel);
            }
        }
    }
    s
}

fn list(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(list(&p));
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

pub fn gen(root: &Path, spec: Option<&Path>) -> Result<ExitCode> {
    let Some(model) = model(root, spec, true)? else { return Ok(ExitCode::FAILURE) };
    let files = codegen::generate(&model);
    let before = compare(root, &files);
    let changed: Vec<_> = files
        .iter()
        .map(|f| (root.join(&f.path), f.contents.as_str()))
        .filter(|(path, contents)| {
            !fs::read_to_string(path).is_ok_and(|t| normalize(&t) == *contents)
        })
        .collect();
    write_all_atomic(&changed)?;
    let written = changed.len();
    for orphan in &before.orphaned {
        fs::remove_file(root.join(orphan))?;
        eprintln!("removed orphaned {orphan}");
    }
    eprintln!("generated {} files ({written} changed)", files.len());
    Ok(ExitCode::SUCCESS)
}

pub fn check(root: &Path, spec: Option<&Path>) -> Result<ExitCode> {
    let Some(model) = model(root, spec, false)? else { return Ok(ExitCode::FAILURE) };
    let files = codegen::generate(&model);
    let s = compare(root, &files);
    if s.is_clean() {
        eprintln!("spec ok; {} generated files are up to date", files.len());
        return Ok(ExitCode::SUCCESS);
    }
    for (what, list) in [("stale", &s.stale), ("missing", &s.missing), ("orphaned", &s.orphaned)] {
        for p in list {
            eprintln!("{what}: {p}");
        }
    }
    eprintln!("error: generated files are out of date; run `cargo xtask gen` and commit");
    Ok(ExitCode::FAILURE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo test` fails when the committed generated files are stale, like `xtask check`.
    #[test]
    fn generated_files_are_fresh() {
        let root = crate::files::project_root().expect("cargo test runs in the checkout");
        let sources = load_spec(&root.join("isa"), &root).expect("the spec is readable");
        let model = codegen::load(sources)
            .unwrap_or_else(|f| panic!("the spec has errors:\n{}", f.render()));
        let s = compare(&root, &codegen::generate(&model));
        let report: Vec<String> =
            [("stale", &s.stale), ("missing", &s.missing), ("orphaned", &s.orphaned)]
                .iter()
                .flat_map(|(what, list)| list.iter().map(move |p| format!("{what}: {p}")))
                .collect();
        assert!(report.is_empty(), "run `cargo xtask gen` and commit:\n{}", report.join("\n"));
    }

    #[test]
    fn gen_writes_nothing_when_the_spec_has_errors() {
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().join("isa");
        fs::create_dir_all(&spec).unwrap();
        fs::write(spec.join("bad.isa"), "struct A : 2 { 0 a u8 }\n").unwrap();
        let code = gen(dir.path(), Some(&spec)).unwrap();
        assert_eq!(code, ExitCode::FAILURE);
        assert!(!dir.path().join("tpb-isa").exists(), "nothing may be written");
    }

    /// A spec that loads but has an item citing no source is refused as an error.
    #[test]
    fn gen_writes_nothing_when_an_item_cites_no_source() {
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().join("isa");
        fs::create_dir_all(&spec).unwrap();
        let text = "@source(\"seed\")\nenum OPCODE : u8 {\n    A = 1\n}\n\
                    @source(\"seed\")\nrecord R : 2 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
                    arm X : R {\n    1 a u8\n}\n@source(\"seed\")\nbind A => X\n";
        fs::write(spec.join("x.isa"), text).unwrap();
        let sources = load_spec(&spec, dir.path()).unwrap();
        let m = codegen::load(sources).unwrap_or_else(|f| panic!("{}", f.render()));
        assert_eq!(codegen::provenance::unsourced(&m).len(), 1);
        let code = gen(dir.path(), Some(&spec)).unwrap();
        assert_eq!(code, ExitCode::FAILURE);
        assert!(!dir.path().join("tpb-isa").exists(), "nothing may be written");
    }
}
