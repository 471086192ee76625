//! Mutation sanity: the generated test tables can fail. Swap two adjacent one-byte
//! fields of `CTRL_AL` in a temporary copy of the spec, regenerate, and show that the
//! regenerated rows name the new offsets, and that the generic checker, run on the
//! regenerated tables against the committed crate, fails exactly at those two fields.

use std::fs;
use std::process::Command;

use tpb_isa::arms::CtrlAl;
use tpb_isa::DataSrc;
use tpb_isa_tests::{copy_dir, load_spec as load, root};

/// The bytes of a zeroed record that setting only `src_datasrc` changes, in the committed crate.
fn committed_src_datasrc_offset() -> Vec<usize> {
    let mut x = CtrlAl::decode(&[0u8; 64]);
    x.src_datasrc = DataSrc(0x5A);
    x.encode().iter().enumerate().filter(|(_, b)| **b != 0).map(|(i, _)| i).collect()
}

#[test]
fn moving_a_field_makes_the_generated_tables_fail_against_the_committed_crate() {
    let root = root();
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path();
    copy_dir(&root.join("isa"), &w.join("isa"));
    let ctrl = w.join("isa/arms/ctrl.isa");
    let text = fs::read_to_string(&ctrl).unwrap();
    let (a, b) = ("    14 src_datasrc  DATA_SRC", "    15 dst_dtype    DTYPE");
    assert!(text.contains(a) && text.contains(b), "the CTRL_AL lines this test edits moved");
    let text =
        text.replace(a, "    15 src_datasrc  DATA_SRC").replace(b, "    14 dst_dtype    DTYPE");
    fs::write(&ctrl, text).unwrap();

    let model = codegen::load(load(&w.join("isa"), w)).unwrap_or_else(|f| panic!("{}", f.render()));
    let files = codegen::generate(&model);
    let table = |path: &str| -> String {
        files
            .iter()
            .find(|f| f.path == path)
            .unwrap_or_else(|| panic!("{path} is generated"))
            .contents
            .clone()
    };
    let arms = table("tests/generated/arms.rs");
    let committed = fs::read_to_string(root.join("tests/generated/arms.rs")).unwrap();

    // The regenerated rows name the new offsets; the committed ones the old.
    assert!(arms.contains("field!(CtrlAl, CtrlAlRef, src_datasrc, 15, 1)"), "{arms}");
    assert!(arms.contains("field!(CtrlAl, CtrlAlRef, dst_dtype, 14, 1)"));
    assert!(committed.contains("field!(CtrlAl, CtrlAlRef, src_datasrc, 14, 1)"));
    // The committed crate still puts src_datasrc at byte 14, where the new row says 15.
    assert_eq!(committed_src_datasrc_offset(), [14]);

    // Run the checker on the regenerated tables against the committed crate: exactly
    // the field test fails, at exactly the two moved fields.
    let proj = w.join("mutant");
    fs::create_dir_all(proj.join("generated")).unwrap();
    fs::copy(root.join("tests/generated.rs"), proj.join("generated.rs")).unwrap();
    for f in files.iter().filter(|f| f.path.starts_with("tests/generated/")) {
        fs::write(proj.join(&f.path["tests/".len()..]), &f.contents).unwrap();
    }
    let tpb = root.join("tpb-isa").to_string_lossy().replace('\\', "/");
    fs::write(
        proj.join("Cargo.toml"),
        format!(
            "[package]\nname = \"mutant\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
             [dev-dependencies]\ntpb-isa = {{ path = \"{tpb}\" }}\n\n\
             [[test]]\nname = \"generated\"\npath = \"generated.rs\"\n"
        ),
    )
    .unwrap();
    fs::copy(root.join("Cargo.lock"), proj.join("Cargo.lock")).unwrap();
    let out = Command::new(env!("CARGO"))
        .args(["test", "--offline", "--test", "generated"])
        .current_dir(&proj)
        .env("CARGO_TARGET_DIR", root.join("target/scratch"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "the regenerated tables passed against the old crate:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("test every_field_is_at_its_byte_range ... FAILED"),
        "{stdout}\n{stderr}"
    );
    assert!(stdout.contains(" 1 failed"), "only the field test may fail:\n{stdout}");
    let failures: Vec<&str> = stdout.lines().filter(|l| l.contains(": setting it moved")).collect();
    assert_eq!(
        failures,
        [
            "CtrlAl.dst_dtype: setting it moved other bytes than 14..15",
            "CtrlAl.src_datasrc: setting it moved other bytes than 15..16",
        ],
        "{stdout}"
    );
}
