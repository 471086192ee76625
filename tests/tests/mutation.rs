//! Mutation sanity: the generated pin tests can fail. Swap two adjacent one-byte fields of
//! `CTRL_AL` in a temporary copy of the spec, regenerate, and show that the regenerated
//! pins name the new offsets, that the committed crate disagrees with them, and that the
//! regenerated pin tests, built against the committed crate, fail exactly there.

use std::fs;
use std::process::Command;

use tpb_isa::arms::CtrlAl;
use tpb_isa_tests::{copy_dir, load_spec as load, root};

/// The text of the test `fn name` inside `mod module` of a generated pins file.
fn pin_test<'a>(pins: &'a str, module: &str, name: &str) -> &'a str {
    let m = pins.find(&format!("mod {module} {{")).unwrap_or_else(|| panic!("no mod {module}"));
    let rest = &pins[m..];
    let f = rest.find(&format!("fn {name}()")).unwrap_or_else(|| panic!("no fn {name}"));
    let body = &rest[f..];
    &body[..body.find("\n    }\n").unwrap_or(body.len())]
}

/// The one byte of a zeroed record that setting only `src_datasrc` changes, in the committed crate.
fn committed_src_datasrc_offset() -> Vec<usize> {
    let mut x = CtrlAl::decode(&[0u8; 64]);
    x.src_datasrc = 0x5A;
    x.encode().iter().enumerate().filter(|(_, b)| **b != 0).map(|(i, _)| i).collect()
}

#[test]
fn moving_a_field_makes_the_generated_pins_fail_against_the_committed_crate() {
    let root = root();
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path();
    copy_dir(&root.join("isa"), &w.join("isa"));
    let arms = w.join("isa/arms.isa");
    let text = fs::read_to_string(&arms).unwrap();
    let (a, b) = ("    14 src_datasrc  u8\n", "    15 dst_dtype    u8\n");
    assert!(text.contains(a) && text.contains(b), "the CTRL_AL lines this test edits moved");
    let text = text.replace(a, "    15 src_datasrc  u8\n").replace(b, "    14 dst_dtype    u8\n");
    fs::write(&arms, text).unwrap();

    let model = codegen::load(load(&w.join("isa"), w)).unwrap_or_else(|f| panic!("{}", f.render()));
    let files = codegen::generate(&model);
    let pins = &files
        .iter()
        .find(|f| f.path == "tests/generated/pins.rs")
        .expect("pins.rs is generated")
        .contents;
    let committed = fs::read_to_string(root.join("tests/generated/pins.rs")).unwrap();

    // The regenerated pins name the new offsets; the committed ones the old.
    assert!(pin_test(pins, "ctrl_al", "src_datasrc").contains("want[15..16]"), "{pins}");
    assert!(pin_test(pins, "ctrl_al", "dst_dtype").contains("want[14..15]"));
    assert!(pin_test(&committed, "ctrl_al", "src_datasrc").contains("want[14..15]"));
    assert_ne!(pins, &committed);
    // The committed crate still puts src_datasrc at byte 14, where the new pin says 15.
    assert_eq!(committed_src_datasrc_offset(), [14]);

    // Build the regenerated pins against the committed crate: exactly the two moved
    // fields fail.
    let proj = w.join("mutant");
    fs::create_dir_all(&proj).unwrap();
    fs::write(proj.join("pins.rs"), pins).unwrap();
    let tpb = root.join("tpb-isa").to_string_lossy().replace('\\', "/");
    fs::write(
        proj.join("Cargo.toml"),
        format!(
            "[package]\nname = \"mutant\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
             [dependencies]\ntpb-isa = {{ path = \"{tpb}\" }}\n\n[[test]]\nname = \"pins\"\npath = \"pins.rs\"\n"
        ),
    )
    .unwrap();
    fs::copy(root.join("Cargo.lock"), proj.join("Cargo.lock")).unwrap();
    let out = Command::new(env!("CARGO"))
        .args(["test", "--quiet", "--offline", "--test", "pins"])
        .current_dir(&proj)
        .env("CARGO_TARGET_DIR", root.join("target/mutation"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "the regenerated pins passed against the old crate:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("ctrl_al::src_datasrc"), "{stdout}\n{stderr}");
    assert!(stdout.contains("ctrl_al::dst_dtype"), "{stdout}");
    assert!(stdout.contains(" 2 failed"), "only the two moved fields may fail:\n{stdout}");
}
