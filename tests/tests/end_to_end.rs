//! Edit the spec → gen → build: a new arm and binding become decodable through
//! `Inst::decode` with no hand-written change. Runs in a temporary copy of the
//! workspace and builds a small crate that uses the new type.

use std::fs;
use std::process::Command;

use tpb_isa_tests::{copy_dir, load_spec as load, root};

const NEW_ARM: &str = r#"
/// An arm added by the end-to-end test.
@source("tests/tests/end_to_end.rs")
arm E2E_PROBE : TPB_INST {
    12 value      u32
    16 flags      u8
    17 reserved0  reserved[47]
}

bind 0x42 => E2E_PROBE
"#;

const USER_MAIN: &str = r#"
fn main() {
    let mut b = [0u8; 64];
    b[0] = 0x42;
    b[12..16].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    b[16] = 5;
    b[40] = 0xAA; // a reserved byte: kept, not zeroed
    match tpb_isa::Inst::decode(&b) {
        tpb_isa::Inst::E2eProbe(x) => {
            assert_eq!(x.value, 0xDEAD_BEEF);
            assert_eq!(x.flags, 5);
            assert_eq!(x.encode(), b);
        }
        other => panic!("0x42 decoded as {other:?}"),
    }
    assert_eq!(tpb_isa::Inst::decode(&b).encode(), b);
    println!("e2e ok");
}
"#;

#[test]
fn a_new_arm_and_binding_are_decodable_after_gen() {
    let root = root();
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path();
    copy_dir(&root.join("isa"), &w.join("isa"));
    copy_dir(&root.join("tpb-isa"), &w.join("tpb-isa"));
    let arms = w.join("isa/arms.isa");
    let mut text = fs::read_to_string(&arms).unwrap();
    text.push_str(NEW_ARM);
    fs::write(&arms, text).unwrap();

    // gen: the same pipeline `cargo xtask gen` runs.
    let model = codegen::load(load(&w.join("isa"), w)).unwrap_or_else(|f| panic!("{}", f.render()));
    for f in codegen::generate(&model) {
        if f.path.starts_with("tpb-isa/") {
            fs::write(w.join(&f.path), f.contents).unwrap();
        }
    }

    // A workspace like ours, with a user crate that depends on the regenerated crate.
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members_line = manifest.lines().find(|l| l.starts_with("members")).unwrap();
    let manifest = manifest.replace(members_line, "members = [\"tpb-isa\", \"user\"]");
    fs::write(w.join("Cargo.toml"), manifest).unwrap();
    fs::create_dir_all(w.join("user/src")).unwrap();
    fs::write(
        w.join("user/Cargo.toml"),
        "[package]\nname = \"user\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\ntpb-isa = { path = \"../tpb-isa\" }\n",
    )
    .unwrap();
    fs::write(w.join("user/src/main.rs"), USER_MAIN).unwrap();
    fs::copy(root.join("Cargo.lock"), w.join("Cargo.lock")).unwrap();

    let out = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--offline", "-p", "user"])
        .current_dir(w)
        .env("CARGO_TARGET_DIR", root.join("target/e2e"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the user crate failed:\n{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "e2e ok");
}
