//! The one place codegen touches the file system: reading a spec folder into
//! [`Sources`]. Everything else in codegen takes text and returns text.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::source::Sources;

impl Sources {
    /// Every `*.isa` and `arch/*.toml` file under the spec folder `dir`, sorted by path,
    /// each shown as `shown_as/<path under dir>` with `/` separators (so diagnostics read
    /// `isa/arms.isa:41:9`) and with `\r\n` read as `\n`. The one reader of a spec
    /// folder: `cargo xtask`, the tests and the benches all load the spec through it.
    ///
    /// # Errors
    ///
    /// The first file or folder that cannot be read, its path in the message; a folder
    /// without any spec file (not a spec folder). A file that is not UTF-8 is read
    /// ([`Sources::add_bytes`]), and the loader reports it at its first bad byte.
    pub fn read_spec(dir: &Path, shown_as: &str) -> io::Result<Sources> {
        let mut paths = Vec::new();
        collect_spec(dir, dir, &mut paths, &mut BTreeSet::new())?;
        paths.sort();
        if paths.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{}: no spec file here; a spec folder holds *.isa files and arch/*.toml",
                    dir.display()
                ),
            ));
        }
        let mut sources = Sources::new();
        for p in paths {
            let bytes = fs::read(&p).map_err(|e| with_path(&p, e))?;
            let rel = p.strip_prefix(dir).unwrap_or(&p).to_string_lossy().replace('\\', "/");
            sources.add_bytes(format!("{shown_as}/{rel}"), &bytes);
        }
        Ok(sources)
    }
}

/// The spec files under `dir`, each folder read once: a link back to a folder already
/// read (`isa/types/up -> ..`) would read the spec again, every name a duplicate, once
/// per level until the path grows too long. Links are followed after the folder's own
/// entries, so that a file reached both ways is shown at its own path.
fn collect_spec(
    root: &Path,
    dir: &Path,
    out: &mut Vec<PathBuf>,
    seen: &mut BTreeSet<PathBuf>,
) -> io::Result<()> {
    if !seen.insert(fs::canonicalize(dir).map_err(|e| with_path(dir, e))?) {
        return Ok(());
    }
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| with_path(dir, e))? {
        let path = entry.map_err(|e| with_path(dir, e))?.path();
        entries.push((path.is_symlink(), path));
    }
    // Folders themselves before links to them, so a file is shown at its own path.
    entries.sort();
    for (_, path) in entries {
        let rel = path.strip_prefix(root).unwrap_or(&path);
        if is_hidden(rel) {
            continue;
        }
        if path.is_dir() {
            collect_spec(root, &path, out, seen)?;
        } else if Sources::is_spec_file(rel) {
            out.push(path);
        }
    }
    Ok(())
}

impl Sources {
    /// Whether `rel`, a path under a spec folder, is a spec file: a `*.isa` anywhere, or
    /// an `arch/*.toml`; not a hidden file or one in a hidden folder (a name that begins
    /// with `.`), as editors' lock and backup files are (Emacs's `.#opcodes.isa`, a link
    /// to nothing while the file is being edited). The folder reader and `git:` sides
    /// both choose by it.
    pub fn is_spec_file(rel: &Path) -> bool {
        let is_isa = rel.extension().is_some_and(|e| e == "isa");
        let is_arch = rel.extension().is_some_and(|e| e == "toml")
            && rel.parent().and_then(Path::file_name).is_some_and(|n| n == "arch");
        (is_isa || is_arch) && !is_hidden(rel)
    }
}

fn is_hidden(rel: &Path) -> bool {
    rel.components().any(|c| {
        c.as_os_str().to_str().is_some_and(|n| n.starts_with('.') && n != "." && n != "..")
    })
}

fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_spec_takes_isa_files_and_arch_tomls_sorted_with_unix_newlines() {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir_all(d.path().join("arch")).unwrap();
        fs::write(d.path().join("b.isa"), "x\r\ny\n").unwrap();
        fs::write(d.path().join("a.isa"), "").unwrap();
        fs::write(d.path().join("arch/v2.toml"), "").unwrap();
        fs::write(d.path().join("notes.toml"), "").unwrap();
        fs::write(d.path().join("README.md"), "").unwrap();
        let s = Sources::read_spec(d.path(), "isa").unwrap();
        let paths: Vec<&str> = s.iter().map(|(_, f)| f.path.as_str()).collect();
        assert_eq!(paths, ["isa/a.isa", "isa/arch/v2.toml", "isa/b.isa"]);
        assert_eq!(s.iter().nth(2).unwrap().1.text, "x\ny\n");
        let e = Sources::read_spec(&d.path().join("missing"), "isa").unwrap_err();
        assert!(e.to_string().contains("missing"), "{e}");
    }

    /// A file that is not UTF-8 is an error of the spec at its first bad byte, with its
    /// line, as any other; every such file is reported, with the other files' syntax.
    #[test]
    fn a_file_that_is_not_utf8_is_an_error_at_its_first_bad_byte() {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir_all(d.path().join("arch")).unwrap();
        fs::write(d.path().join("a.isa"), b"record R : 64 {\r\n  \xc3\xa9x\xff\xfe\n".as_slice())
            .unwrap();
        fs::write(d.path().join("arch/v1.toml"), b"name = \"v\xe91\"\n".as_slice()).unwrap();
        fs::write(d.path().join("b.isa"), "struct S : 1 {\n".as_bytes()).unwrap();
        let s = Sources::read_spec(d.path(), "isa").unwrap();
        let Err(f) = crate::load(s) else { panic!("the spec loaded") };
        assert_eq!(
            f.diagnostics.short(&f.sources),
            "isa/a.isa:2:5: the file is not UTF-8 (byte 0xff)\n\
             isa/arch/v1.toml:1:10: the file is not UTF-8 (byte 0xe9)\n\
             isa/b.isa:2:1: expected a doc comment, an attribute, an integer or '}', found end of file\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_back_to_a_folder_already_read_is_not_read_again() {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir_all(d.path().join("types")).unwrap();
        fs::write(d.path().join("a.isa"), "").unwrap();
        fs::write(d.path().join("types/b.isa"), "").unwrap();
        std::os::unix::fs::symlink("..", d.path().join("types/up")).unwrap();
        std::os::unix::fs::symlink("types", d.path().join("again")).unwrap();
        let s = Sources::read_spec(d.path(), "isa").unwrap();
        let paths: Vec<&str> = s.iter().map(|(_, f)| f.path.as_str()).collect();
        assert_eq!(paths, ["isa/a.isa", "isa/types/b.isa"]);
    }

    /// Editors' lock and backup files are hidden, and not read: Emacs's lock file is a
    /// link to nothing while the file is being edited.
    #[cfg(unix)]
    #[test]
    fn hidden_files_and_folders_are_not_read() {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir_all(d.path().join("arms")).unwrap();
        fs::create_dir_all(d.path().join(".old/arch")).unwrap();
        fs::write(d.path().join("arms/pe.isa"), "").unwrap();
        std::os::unix::fs::symlink("user@host.1:1", d.path().join("arms/.#pe.isa")).unwrap();
        fs::write(d.path().join("._pe.isa"), b"\x00\x05\x16\x07\xff".as_slice()).unwrap();
        fs::write(d.path().join(".old/a.isa"), "").unwrap();
        fs::write(d.path().join(".old/arch/a.toml"), "").unwrap();
        let s = Sources::read_spec(d.path(), "isa").unwrap();
        let paths: Vec<&str> = s.iter().map(|(_, f)| f.path.as_str()).collect();
        assert_eq!(paths, ["isa/arms/pe.isa"]);
        assert!(Sources::is_spec_file(Path::new("arch/cayman.toml")));
        assert!(!Sources::is_spec_file(Path::new("arms/.#pe.isa")));
        assert!(!Sources::is_spec_file(Path::new("notes.toml")));
    }

    #[test]
    fn a_folder_without_spec_files_is_not_a_spec() {
        let d = tempfile::tempdir().unwrap();
        fs::write(d.path().join("notes.toml"), "").unwrap();
        let e = Sources::read_spec(d.path(), "isa").unwrap_err().to_string();
        assert!(e.contains("no spec file here"), "{e}");
    }
}
