//! The one place codegen touches the file system: reading a spec folder into
//! [`Sources`]. Everything else in codegen takes text and returns text.

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
    /// The first file or folder that cannot be read, its path in the message.
    pub fn read_spec(dir: &Path, shown_as: &str) -> io::Result<Sources> {
        let mut paths = Vec::new();
        collect_spec(dir, &mut paths)?;
        paths.sort();
        let mut sources = Sources::new();
        for p in paths {
            let text = fs::read_to_string(&p).map_err(|e| with_path(&p, e))?;
            let rel = p.strip_prefix(dir).unwrap_or(&p).to_string_lossy().replace('\\', "/");
            sources.add(format!("{shown_as}/{rel}"), text.replace("\r\n", "\n"));
        }
        Ok(sources)
    }
}

fn collect_spec(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(dir).map_err(|e| with_path(dir, e))? {
        let path = entry.map_err(|e| with_path(dir, e))?.path();
        if path.is_dir() {
            collect_spec(&path, out)?;
        } else {
            let is_isa = path.extension().is_some_and(|e| e == "isa");
            let is_arch = path.extension().is_some_and(|e| e == "toml")
                && path.parent().and_then(Path::file_name).is_some_and(|n| n == "arch");
            if is_isa || is_arch {
                out.push(path);
            }
        }
    }
    Ok(())
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
}
