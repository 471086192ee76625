//! The README's `cargo xtask diff` examples print what the README shows.

// The shared helpers; this test uses two of them.
#[allow(dead_code, unused_imports)]
mod common;

use std::process::Command;

use common::{root, xtask_in};
use tpb_isa_tests::readme::examples;

/// Whether the checkout's history holds `rev` (a shallow clone may not).
fn has_revision(rev: &str) -> bool {
    Command::new("git")
        .args(["cat-file", "-e", &format!("{rev}^{{commit}}")])
        .current_dir(root())
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn diff_examples_print_what_the_readme_shows() {
    let mut ran = 0;
    let all = examples();
    for e in &all {
        let Some(args) = e.args_after("cargo xtask diff") else { continue };
        // A block that sets its scene with git first (a commit with a mistake) shows
        // what happens in that checkout, not this one: `diff.rs` runs that scene.
        if all
            .iter()
            .any(|s| s.block == e.block && s.line < e.line && s.program().starts_with("git "))
        {
            eprintln!("README.md:{}: skipped, its block commits a change first", e.line);
            continue;
        }
        if let Some(rev) = args.iter().find_map(|a| a.strip_prefix("git:")) {
            if !has_revision(rev) {
                eprintln!("README.md:{}: skipped, the history has no {rev}", e.line);
                continue;
            }
        }
        let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"diff"];
        all.extend(args.iter().map(|a| a as &dyn AsRef<std::ffi::OsStr>));
        let o = xtask_in(&root(), &all);
        let out = String::from_utf8_lossy(&o.stdout);
        e.check(&e.piped(&out)).unwrap_or_else(|m| panic!("{m}"));
        ran += 1;
    }
    assert!(ran >= 3, "the README has {ran} `cargo xtask diff` examples run here");
}
