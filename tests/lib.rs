//! Shared helpers of the workspace tests: the workspace root, copying a tree, and
//! loading a spec folder the way `cargo xtask` does.

use std::fs;
use std::path::{Path, PathBuf};

pub mod readme;

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is in the workspace")
        .to_path_buf()
}

/// Copy a folder tree (tests make temporary copies of `isa/` and `tpb-isa/`).
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// Every `*.isa` and `arch/*.toml` file under `spec`, sorted, shown relative to `base`:
/// the loading of `cargo xtask`.
pub fn load_spec(spec: &Path, base: &Path) -> codegen::Sources {
    let shown = spec.strip_prefix(base).unwrap_or(spec).to_string_lossy().replace('\\', "/");
    codegen::Sources::read_spec(spec, &shown).unwrap_or_else(|e| panic!("{e}"))
}
