//! Helpers for the end-to-end tests: the checkout, temp copies of the spec, running xtask.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The checkout these tests were built from.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf()
}

/// The committed spec folder (`TPB_SPEC_DIR` overrides, for scratch builds).
pub fn spec_dir() -> PathBuf {
    std::env::var_os("TPB_SPEC_DIR").map_or_else(|| root().join("isa"), PathBuf::from)
}

pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("create a folder");
    for e in fs::read_dir(from).expect("read the spec") {
        let p = e.expect("an entry").path();
        let dest = to.join(p.file_name().expect("a name"));
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            fs::copy(&p, &dest).expect("copy a file");
        }
    }
}

pub fn edit(file: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(file).expect("read");
    assert_eq!(text.matches(from).count(), 1, "{from:?} occurs once in {}", file.display());
    fs::write(file, text.replacen(from, to, 1)).expect("write");
}

/// Run the xtask binary with `dir` as the current directory.
pub fn xtask_in(dir: &Path, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args.iter().map(|a| a.as_ref()))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("xtask runs")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
