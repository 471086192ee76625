//! `gen` and `check`: load the spec, generate in memory, then write or compare.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::files::{load_spec, normalize, write_atomic};

/// Folders whose every file is generated: a file there that gen does not produce is an orphan.
const GENERATED_DIRS: &[&str] = &["tpb-isa/src/generated", "tests/generated"];

/// Load and check the spec; on errors print them and return `None`.
fn model(root: &Path, spec: Option<&Path>) -> Result<Option<codegen::Model>> {
    let spec = spec.map_or_else(|| root.join("isa"), Path::to_path_buf);
    let sources = load_spec(&spec, root)?;
    match codegen::load(sources) {
        Ok(m) => Ok(Some(m)),
        Err(f) => {
            eprint!("{}", f.render());
            Ok(None)
        }
    }
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
    let Some(model) = model(root, spec)? else { return Ok(ExitCode::FAILURE) };
    let files = codegen::generate(&model);
    let before = compare(root, &files);
    let mut written = 0;
    for f in &files {
        let path = root.join(&f.path);
        if fs::read_to_string(&path).is_ok_and(|t| normalize(&t) == f.contents) {
            continue;
        }
        write_atomic(&path, &f.contents)?;
        written += 1;
    }
    for orphan in &before.orphaned {
        fs::remove_file(root.join(orphan))?;
        eprintln!("removed orphaned {orphan}");
    }
    eprintln!("generated {} files ({written} changed)", files.len());
    Ok(ExitCode::SUCCESS)
}

pub fn check(root: &Path, spec: Option<&Path>) -> Result<ExitCode> {
    let Some(model) = model(root, spec)? else { return Ok(ExitCode::FAILURE) };
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
