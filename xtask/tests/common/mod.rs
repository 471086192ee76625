//! Helpers for the end-to-end tests: the checkout, temp copies of the spec, running xtask.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub use tpb_isa_tests::{copy_dir, root};

/// The committed spec folder (`TPB_SPEC_DIR` overrides, for scratch builds).
pub fn spec_dir() -> PathBuf {
    std::env::var_os("TPB_SPEC_DIR").map_or_else(|| root().join("isa"), PathBuf::from)
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
