//! `cargo xtask diff` and `export` end to end: temp copies of the spec, one edited.

mod common;

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

use common::{copy_dir, edit, root, spec_dir, stderr, xtask_in};

/// A temp folder holding `old/` and `new/`, both copies of the committed spec.
fn two_copies() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().expect("a temp folder");
    let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
    copy_dir(&spec_dir(), &old);
    copy_dir(&spec_dir(), &new);
    (tmp, old, new)
}

fn xtask(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    xtask_in(&root(), args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn diff_of_two_folders_and_fail_on() {
    let (_tmp, old, new) = two_copies();
    // Swap two one-byte register fields of CTRL_AL: both move (breaking).
    edit(
        &new.join("arms.isa"),
        "16 src0_lo      REG_NUM  @confidence(medium)\n    17 src0_hi      REG_NUM  @confidence(medium)",
        "17 src0_lo      REG_NUM  @confidence(medium)\n    16 src0_hi      REG_NUM  @confidence(medium)",
    );
    let o = xtask(&[&"diff", &old, &new]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("2 changes (2 breaking, 0 additive, 0 metadata)"), "{text}");
    assert!(text.contains("  arm CTRL_AL\n    field src0_hi: offset 17 → 16\n"), "{text}");
    assert!(text.contains("    field src0_lo: offset 16 → 17\n"), "{text}");
    assert!(!text.contains('\x1b'), "no colour when stdout is not a terminal");

    let o = xtask(&[&"diff", &old, &new, &"--fail-on", &"breaking"]);
    assert_eq!(o.status.code(), Some(1), "--fail-on breaking exits non-zero on a breaking change");
    assert!(
        stderr(&o).contains("error: 2 breaking changes (--fail-on breaking)"),
        "{}",
        stderr(&o)
    );
    let o = xtask(&[&"diff", &old, &new, &"--fail-on", &"additive"]);
    assert_eq!(o.status.code(), Some(1), "breaking is worse than additive");

    let o = xtask(&[&"diff", &old, &new, &"--json"]);
    assert!(o.status.success());
    let json = stdout(&o);
    assert!(json.contains("\"format\": \"tpb-isa-diff\""), "{json}");
    assert!(json.contains("\"path_text\": \"arm CTRL_AL / field src0_hi\""), "{json}");
    assert!(json.contains("\"aspect\": \"offset\""), "{json}");
}

#[test]
fn metadata_and_additive_changes_pass_fail_on_breaking() {
    let (_tmp, old, new) = two_copies();
    edit(
        &new.join("arms.isa"),
        "/// An ALU operation on registers",
        "/// An ALU operation on two registers",
    );
    edit(
        &new.join("opcodes.isa"),
        "    INVALID = 0xFF\n",
        "    INVALID = 0xFF\n    ADDED_FOR_TEST = 0x42\n",
    );
    let o = xtask(&[&"diff", &old, &new, &"--fail-on", &"breaking"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("(0 breaking, 1 additive, 1 metadata)"), "{text}");
    assert!(text.contains("variant ADDED_FOR_TEST: added: 0x42"), "{text}");
    let o = xtask(&[&"diff", &old, &new, &"--fail-on", &"additive"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn diff_of_the_same_spec_is_empty() {
    let (_tmp, old, new) = two_copies();
    let o = xtask(&[&"diff", &old, &new, &"--fail-on", &"metadata"]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).ends_with(": no changes\n"), "{}", stdout(&o));
}

#[test]
fn arch_diff_names_the_hbm_size_and_neighbour_ids() {
    let o = xtask(&[&"diff", &"--arch", &"cayman", &"trn3", &spec_dir()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("cayman → mariana: 10 changes (6 breaking, 4 additive, 0 metadata)"),
        "{text}"
    );
    assert!(
        text.contains("  geometry hbm_active_size\n    value 0x600000000 → 0x900000000\n"),
        "{text}"
    );
    assert!(text.contains("  geometry npe_neighbor_eng_ids\n    value [[36, 68], [4, 100]] → [[40, 72], [8, 104]]\n"), "{text}");
    let o = xtask(&[&"diff", &"--arch", &"cayman", &"nosuch", &spec_dir()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown arch 'nosuch'; the archs are: sunda, cayman, mariana"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_side_that_does_not_check_is_an_error_with_its_diagnostics() {
    let (_tmp, old, new) = two_copies();
    edit(&new.join("arms.isa"), "24 immediate    ALU_IMMEDIATE", "25 immediate    ALU_IMMEDIATE");
    let o = xtask(&[&"diff", &old, &new]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("does not check"), "{}", stderr(&o));
    assert!(stderr(&o).contains("arms.isa"), "{}", stderr(&o));
}

#[test]
fn export_writes_the_model_as_json() {
    let o = xtask(&[&"export", &"--json", &"--spec", &spec_dir()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json = stdout(&o);
    assert!(json.contains("\"format\": \"tpb-isa-model\""));
    assert!(json.contains("\"name\": \"mariana\""));
    let tmp = tempfile::tempdir().expect("a temp folder");
    let out = tmp.path().join("model.json");
    let o = xtask(&[&"export", &"--json", &"--spec", &spec_dir(), &"-o", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&out).expect("written"), json);
    let o = xtask(&[&"export"]);
    assert!(!o.status.success(), "a format must be chosen");
}

/// `git:REV` reads the spec at a revision without a checkout; the same revision on
/// both sides diffs empty. Needs the workspace to be a git checkout.
#[test]
fn git_revisions_are_read_without_checkout() {
    let is_repo = Command::new("git")
        .arg("-C")
        .arg(root())
        .args(["rev-parse", "HEAD"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !is_repo {
        eprintln!("skipped: {} is not a git checkout", root().display());
        return;
    }
    let o = xtask(&[&"diff", &"git:HEAD", &"git:HEAD", &"--fail-on", &"metadata"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o), "git:HEAD → git:HEAD: no changes\n");
    let o = xtask(&[&"diff", &"git:no-such-revision-xyz", &"git:HEAD"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("git ls-tree"), "{}", stderr(&o));
}
