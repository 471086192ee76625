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
        &new.join("arms/ctrl.isa"),
        "16 src0_lo      REG_NUM\n    17 src0_hi      REG_NUM",
        "16 src0_hi      REG_NUM\n    17 src0_lo      REG_NUM",
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
        &new.join("arms/ctrl.isa"),
        "/// ALU_OP (0xA8): an ALU operation on registers",
        "/// ALU_OP (0xA8): an ALU operation on two registers",
    );
    edit(
        &new.join("opcodes.isa"),
        "    INVALID                              = 0xFF                               @status(unstated)\n",
        "    INVALID                              = 0xFF                               @status(unstated)\n    ADDED_FOR_TEST = 0x10 @engine(PE) @archs(mariana..)\n",
    );
    let o = xtask(&[&"diff", &old, &new, &"--fail-on", &"breaking"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("(0 breaking, 1 additive, 1 metadata)"), "{text}");
    assert!(
        text.contains("variant ADDED_FOR_TEST: added: 0x10 @engine(PE) (@archs(mariana..))"),
        "{text}"
    );
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
    assert!(text.starts_with("cayman → mariana: "), "{text}");
    assert!(
        text.contains("  geometry hbm_active_size\n    value 0x600000000 → 0x900000000\n"),
        "{text}"
    );
    assert!(text.contains("  geometry npe_neighbor_eng_ids\n    value [[36, 68], [4, 100]] → [[40, 72], [8, 104]]\n"), "{text}");
    // An arm whose layout differs on mariana, field by field.
    assert!(
        text.contains("  arm S3D3_TS\n    field dst_mem_pattern: type TENSOR3D → MEM_PATTERN3D\n"),
        "{text}"
    );
    let o = xtask(&[&"diff", &"--arch", &"cayman", &"nosuch", &spec_dir()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("unknown arch 'nosuch'; the archs are: sunda, cayman, mariana, maverick"),
        "{}",
        stderr(&o)
    );
}

/// `(added, removed)` opcode values per generation step of the project's copy of the
/// public-ISA opcode table: a value exists on a generation unless its column says `-`.
fn public_isa_step(a: &str, b: &str) -> (usize, usize) {
    let text = fs::read_to_string(root().join("testdata/public-isa/opcodes.tsv")).expect("read");
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    let col = |g: &str| head.iter().position(|h| *h == g).expect("a generation column");
    let (ca, cb) = (col(a), col(b));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    let added = rows.iter().filter(|r| r[ca] == "-" && r[cb] != "-").count();
    let removed = rows.iter().filter(|r| r[ca] != "-" && r[cb] == "-").count();
    (added, removed)
}

#[test]
fn arch_diff_lists_the_opcode_steps_between_generations() {
    let steps = [("sunda", "cayman"), ("cayman", "mariana"), ("mariana", "maverick")];
    let mut counts = Vec::new();
    for (a, b) in steps {
        let o = xtask(&[&"diff", &"--arch", &a, &b, &"--json", &spec_dir()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
        let opcodes = |kind: &str| {
            v["changes"]
                .as_array()
                .expect("changes")
                .iter()
                .filter(|c| {
                    c["kind"] == kind
                        && c["path"][0] == serde_json::json!({ "kind": "enum", "name": "OPCODE" })
                        && c["path"][1]["kind"] == "variant"
                })
                .count()
        };
        let got = (opcodes("added"), opcodes("removed"));
        assert_eq!(got, public_isa_step(a, b), "{a} → {b}");
        counts.push(got);
        // The text names each step's opcodes too.
        let text = stdout(&xtask(&[&"diff", &"--arch", &a, &b, &spec_dir()]));
        assert!(text.contains("  enum OPCODE"), "{text}");
    }
    // The public notes' own counts.
    assert_eq!(counts, [(12, 7), (9, 0), (6, 0)]);
    // Maverick's geometry is unknown: said once, no value invented or compared.
    let text = stdout(&xtask(&[&"diff", &"--arch", &"mariana", &"maverick", &spec_dir()]));
    assert!(
        text.contains("  arch maverick\n    geometry known → unknown (no source gives maverick's geometry; no value is compared)\n"),
        "{text}"
    );
    assert!(!text.contains("value 0x"), "{text}");
}

#[test]
fn a_side_that_does_not_check_is_an_error_with_its_diagnostics() {
    let (_tmp, old, new) = two_copies();
    edit(
        &new.join("arms/ctrl.isa"),
        "24 immediate    ALU_IMMEDIATE",
        "25 immediate    ALU_IMMEDIATE",
    );
    let o = xtask(&[&"diff", &old, &new, &"--fail-on", &"breaking"]);
    assert_eq!(o.status.code(), Some(2), "no diff is not a tripped --fail-on (1)");
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!("error: the new spec {} does not check\n", new.display())),
        "{err}"
    );
    // Every problem at file:line:col.
    assert!(err.contains("arms/ctrl.isa:41:"), "{err}");
    // Both sides are read: a broken old side is reported with the new one.
    let o = xtask(&[&"diff", &new, &new]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("error: the old spec {} does not check\n", new.display())),
        "{err}"
    );
    assert!(
        err.contains(&format!("error: the new spec {} does not check\n", new.display())),
        "{err}"
    );
}

/// A side that cannot be read at all names its role and what is wrong with it.
#[test]
fn a_side_that_is_not_a_spec_is_named() {
    let (tmp, old, _new) = two_copies();
    let missing = tmp.path().join("missing");
    let o = xtask(&[&"diff", &old, &missing]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "error: the new spec {}: not a folder (a spec side is a folder or git:REV)\n",
            missing.display()
        )
    );
    // The root of a checkout is not read as a spec (its test fixtures hold errors on
    // purpose): the message names the spec folder in it.
    let o = xtask(&[&"diff", &root(), &old]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "error: the old spec .: a checkout, not a spec folder; its spec is {}\n",
            root().join("isa").display()
        )
    );
    // Both sides are read: two that cannot be read are both named, in order.
    let elsewhere = tmp.path().join("elsewhere");
    let o = xtask(&[&"diff", &missing, &elsewhere]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "error: the old spec {}: not a folder (a spec side is a folder or git:REV)\n\
             error: the new spec {}: not a folder (a spec side is a folder or git:REV)\n",
            missing.display(),
            elsewhere.display()
        )
    );
}

#[test]
fn export_writes_the_model_as_json() {
    let o = xtask(&[&"export", &"--spec", &spec_dir()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json = stdout(&o);
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!((v["format"].clone(), v["version"].clone()), ("tpb-isa-model".into(), 2.into()));
    let archs: Vec<&str> = v["archs"]
        .as_array()
        .expect("archs")
        .iter()
        .map(|a| a["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(archs, ["sunda", "cayman", "mariana", "maverick"]);
    assert_eq!(
        v["enums"]
            .as_array()
            .expect("enums")
            .iter()
            .find(|e| e["name"] == "OPCODE")
            .expect("OPCODE")["variants"]
            .as_array()
            .expect("variants")
            .len(),
        172
    );
    let tmp = tempfile::tempdir().expect("a temp folder");
    let out = tmp.path().join("model.json");
    let o = xtask(&[&"export", &"-o", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&out).expect("written"), json);
    // `--json` names the format explicitly; the output is the same.
    let o = xtask(&[&"export", &"--json", &"--spec", &spec_dir()]);
    assert_eq!(stdout(&o), json);
    if let Err(e) = keys_sorted(&json) {
        panic!("{e}");
    }
}

/// Whether every object of pretty-printed JSON has its keys in sorted order, as the
/// export documents: read from the text, since a parsed `Value` may sort its keys (or,
/// with serde_json's `preserve_order`, which a dependency could turn on, may not).
fn keys_sorted(text: &str) -> Result<(), String> {
    // The last key seen at each indentation depth, cleared when a container at the
    // depth above opens or closes.
    let mut last: Vec<Option<String>> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let body = line.trim_start();
        let depth = (line.len() - body.len()) / 2;
        if last.len() < depth + 2 {
            last.resize(depth + 2, None);
        }
        if body.starts_with(['}', ']']) || body.ends_with(['{', '[']) {
            last[depth + 1] = None;
        }
        let mut stream = serde_json::Deserializer::from_str(body).into_iter::<String>();
        let Some(Ok(key)) = stream.next() else { continue };
        if !body[stream.byte_offset()..].starts_with(": ") {
            continue; // a string in an array
        }
        if let Some(prev) = &last[depth] {
            if prev.as_str() >= key.as_str() {
                return Err(format!("line {}: key \"{key}\" after \"{prev}\"", n + 1));
            }
        }
        last[depth] = Some(key);
    }
    Ok(())
}

#[test]
fn keys_sorted_reads_the_text() {
    assert_eq!(keys_sorted("{\n  \"a\": [\n    \"z: \",\n    \"b\"\n  ],\n  \"b\": {\n    \"y\": 1\n  },\n  \"c\": {\n    \"x\": 1\n  }\n}"), Ok(()));
    assert!(keys_sorted("{\n  \"b\": 1,\n  \"a\": 2\n}").is_err());
    assert!(keys_sorted("[\n  {\n    \"b\": 1\n  },\n  {\n    \"a\": 1\n  }\n]").is_ok());
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
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(
            "error: the old spec git:no-such-revision-xyz: no revision 'no-such-revision-xyz' in the git repository at "
        ),
        "{}",
        stderr(&o)
    );
    let o = xtask(&[&"diff", &"git:HEAD", &"git:HEAD:no-such-dir"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: the new spec git:HEAD:no-such-dir: no spec files under no-such-dir/ at HEAD\n"
    );
}

fn git_in(dir: &std::path::Path, args: &[&str]) {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=test", "-c", "user.email=test@example.invalid"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// A revision whose spec the current language rejects is an error naming the side,
/// with every problem at `REV:path:line:col`; two revisions the language reads diff
/// with readable output.
#[test]
fn a_git_side_that_does_not_check_names_rev_path_line_col() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("skipped: no git");
        return;
    }
    let tmp = tempfile::tempdir().expect("a temp folder");
    let repo = tmp.path();
    git_in(repo, &["init", "-q"]);
    // xtask runs inside a checkout: a workspace manifest beside isa/.
    fs::write(repo.join("Cargo.toml"), "[workspace]\n").expect("write");
    copy_dir(&spec_dir(), &repo.join("isa"));
    git_in(repo, &["add", "-A"]);
    git_in(repo, &["commit", "-q", "-m", "spec"]);
    // A construct of no language version: a field line without a type; and a file that
    // is not UTF-8.
    edit(&repo.join("isa/arms/ctrl.isa"), "24 immediate    ALU_IMMEDIATE", "24 immediate");
    let sunda = repo.join("isa/arch/sunda.toml");
    let good_sunda = fs::read(&sunda).expect("read");
    let mut bad_sunda = good_sunda.clone();
    let at = bad_sunda.windows(7).position(|w| w == b"\"sunda\"").expect("sunda's name") + 2;
    bad_sunda[at] = 0xff;
    fs::write(&sunda, &bad_sunda).expect("write");
    git_in(repo, &["commit", "-q", "-a", "-m", "broken"]);
    let o = xtask_in(repo, &[&"diff", &"git:HEAD", &"isa"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("error: the old spec git:HEAD does not check"), "{err}");
    assert!(err.contains("error: expected a field type, found '32'"), "{err}");
    assert!(err.contains("--> HEAD:isa/arms/ctrl.isa:42:5"), "{err}");
    assert!(err.contains("error: the file is not UTF-8 (byte 0xff)"), "{err}");
    assert!(err.contains("--> HEAD:isa/arch/sunda.toml:7:10"), "{err}");
    // The last good revision against the folder: a readable diff.
    fs::write(&sunda, &good_sunda).expect("write");
    edit(&repo.join("isa/arms/ctrl.isa"), "24 immediate", "24 immediate    ALU_IMMEDIATE");
    edit(&repo.join("isa/arms/ctrl.isa"), "16 src0_lo      REG_NUM", "16 src0_lo      u8");
    let o = xtask_in(repo, &[&"diff", &"git:HEAD~1", &"isa"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "git:HEAD~1 → isa: 1 change (1 breaking, 0 additive, 0 metadata)\n\nbreaking (1)\n  arm CTRL_AL\n    field src0_lo: type REG_NUM → u8\n      at HEAD~1:isa/arms/ctrl.isa:33:8 → isa/arms/ctrl.isa:33:8\n"
    );
}
