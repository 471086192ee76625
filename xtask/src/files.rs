//! File discovery, newline normalisation and atomic writes.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use codegen::Sources;

/// The workspace root (the parent of this crate's folder).
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// Every `*.isa` and `arch/*.toml` file under `spec`, sorted by path, with display
/// paths relative to `display_base` (so errors read `isa/arms.isa:41:9`).
pub fn load_spec(spec: &Path, display_base: &Path) -> Result<Sources> {
    let shown =
        spec.strip_prefix(display_base).unwrap_or(spec).to_string_lossy().replace('\\', "/");
    Sources::read_spec(spec, &shown).with_context(|| format!("reading {}", spec.display()))
}

/// `\r\n` → `\n`, so a checkout with other line endings compares equal.
pub fn normalize(text: &str) -> String {
    text.replace("\r\n", "\n")
}

/// Write every `(path, contents)` through temporary files in the target folders, and
/// rename them into place only once all were written, so a failure part-way leaves the
/// tree as it was and a reader never sees half a file.
pub fn write_all_atomic(files: &[(PathBuf, &str)]) -> Result<()> {
    let mut staged = Vec::new();
    for (path, contents) in files {
        let dir = path.parent().context("a generated file has a parent folder")?;
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)
            .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
        tmp.write_all(contents.as_bytes())?;
        tmp.as_file().sync_all()?;
        staged.push((tmp, path));
    }
    for (tmp, path) in staged {
        tmp.persist(path).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
