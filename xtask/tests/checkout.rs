//! `cargo xtask` works on the checkout it runs in, found from the current directory, not
//! on the one the binary was built from (checkouts may share a target folder).

mod common;

use std::fs;

use common::{copy_dir, edit, root, spec_dir, stderr, xtask_in};

/// A temp checkout: the workspace `Cargo.toml` and a copy of the spec, nothing generated.
fn temp_checkout() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("a temp folder");
    fs::copy(root().join("Cargo.toml"), tmp.path().join("Cargo.toml")).expect("copy Cargo.toml");
    copy_dir(&spec_dir(), &tmp.path().join("isa"));
    tmp
}

#[test]
fn check_and_gen_work_on_the_checkout_they_run_in() {
    let tmp = temp_checkout();
    let o = xtask_in(tmp.path(), &[&"check"]);
    assert_eq!(o.status.code(), Some(1), "the copy has no generated files: {}", stderr(&o));
    assert!(stderr(&o).contains("missing: tpb-isa/src/generated/"), "{}", stderr(&o));

    // From a subfolder, gen finds the copy's root and writes there.
    let o = xtask_in(&tmp.path().join("isa/arch"), &[&"gen"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(tmp.path().join("tpb-isa/src/generated").is_dir(), "gen wrote into the copy");
    let o = xtask_in(tmp.path(), &[&"check"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("spec ok"), "{}", stderr(&o));
}

#[test]
fn check_fails_on_a_broken_spec_in_the_checkout_it_runs_in() {
    let tmp = temp_checkout();
    edit(
        &tmp.path().join("isa/arms/ctrl.isa"),
        "24 immediate    ALU_IMMEDIATE",
        "25 immediate    ALU_IMMEDIATE",
    );
    let o = xtask_in(tmp.path(), &[&"check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("isa/arms/ctrl.isa:41:"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("spec ok"), "{}", stderr(&o));
}

#[test]
fn outside_a_checkout_is_a_clear_error() {
    let tmp = tempfile::tempdir().expect("a temp folder");
    // A workspace without isa/ is not a tpb-isa checkout either.
    fs::write(tmp.path().join("Cargo.toml"), "[workspace]\n").expect("write Cargo.toml");
    let o = xtask_in(tmp.path(), &[&"check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("error: not inside a tpb-isa checkout"), "{}", stderr(&o));
}
