//! `cargo xtask check --spec DIR` end to end on a spec with an error.

mod common;

use common::{copy_dir, edit, root, spec_dir, stderr, xtask_in};

/// An error of the checks says that the provenance and placement rules, which need the
/// checked model, are still to run: a `@source` missing as well is reported only once
/// they pass.
#[test]
fn a_failed_check_says_the_model_rules_are_still_to_come() {
    let tmp = tempfile::tempdir().expect("a temp folder");
    let spec = tmp.path().join("isa");
    copy_dir(&spec_dir(), &spec);
    // The README's example: CTRL_AL's reserved1 widened over its immediate.
    edit(&spec.join("arms/ctrl.isa"), "22 reserved1    reserved[2]", "22 reserved1    reserved[4]");
    let o = xtask_in(&root(), &[&"check", &"--spec", &spec]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("error: field 'immediate' (24..32) overlaps 'reserved1' (22..26)"),
        "{err}"
    );
    assert!(
        err.ends_with(
            "error: the spec has 1 error\nnote: the provenance and placement rules (every item \
             cites a @source, every group is placed) run once these are fixed\n"
        ),
        "{err}"
    );
}

/// The committed spec's placement rule: a group nothing places fails `check`, at the
/// group, while `diff` still reads such a spec (an older one may hold one).
#[test]
fn a_group_placed_nowhere_fails_the_check() {
    let tmp = tempfile::tempdir().expect("a temp folder");
    let spec = tmp.path().join("isa");
    copy_dir(&spec_dir(), &spec);
    let file = spec.join("types/lonely.isa");
    std::fs::write(&file, "@source(\"a test\")\ngroup LONELY : 1 {\n    0 a u8\n}\n").unwrap();
    let o = xtask_in(&root(), &[&"check", &"--spec", &spec]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("error: group 'LONELY' is placed nowhere"), "{err}");
    assert!(err.contains("types/lonely.isa:2:7"), "{err}");
    let o = xtask_in(&root(), &[&"diff", &spec_dir(), &spec]);
    assert!(o.status.success(), "{}", stderr(&o));
}
