//! Shared helpers of the workspace tests: the workspace root, copying a tree, and
//! loading a spec folder the way `cargo xtask` does.

use std::fs;
use std::path::{Path, PathBuf};

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

/// Every `.isa` and `.toml` file under `spec`, sorted, shown relative to `base`.
pub fn load_spec(spec: &Path, base: &Path) -> codegen::Sources {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "isa" || x == "toml") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(spec, &mut paths);
    paths.sort();
    let mut s = codegen::Sources::new();
    for p in paths {
        let shown = p.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
        s.add(shown, fs::read_to_string(&p).unwrap());
    }
    s
}
