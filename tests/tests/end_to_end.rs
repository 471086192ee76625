//! Edit the spec → gen → build: a new arm and its binding become decodable through
//! `Inst::decode` with no hand-written change anywhere.
//!
//! In a temporary copy of the spec and the runtime crate, an existing arm's text is
//! copied under a new name and bound to an opcode value no binding uses (a test
//! fixture only, never committed); the codegen library regenerates the copy's
//! `tpb-isa/src/generated/`, and `cargo test` of a tiny downstream crate that depends on
//! the copied crate by path decodes a record with that opcode to the new arm.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use codegen::model::Model;
use tpb_isa::{Arch, Inst};
use tpb_isa_tests::{copy_dir, load_spec as load, root};

/// The text of `arm NAME : ... { ... }` in one of `isa/arms/*.isa`, up to its closing
/// brace at the start of a line, and the file it is in.
fn arm_text(isa: &Path, name: &str) -> Option<(std::path::PathBuf, String)> {
    let head = format!("arm {name} :");
    let mut files: Vec<_> =
        fs::read_dir(isa.join("arms")).ok()?.map(|e| e.unwrap().path()).collect();
    files.sort();
    files.into_iter().find_map(|path| {
        let text = fs::read_to_string(&path).ok()?;
        let start = text.lines().position(|l| l.starts_with(&head))?;
        let lines: Vec<&str> = text.lines().skip(start).collect();
        let end = lines.iter().position(|l| *l == "}")?;
        Some((path, lines[..=end].join("\n")))
    })
}

/// An arm to copy: the first complete, bound arm with one layout and the whole
/// preamble, available on every generation, whose text is found.
fn arm_to_copy(model: &Model, isa: &Path) -> (String, String) {
    model
        .arm_ids()
        .filter(|&id| {
            let arm = &model[id];
            !arm.is_per_generation()
                && arm.full_preamble
                && model.is_complete(id)
                && model.is_bound(id)
                && model.arch_ids().all(|a| arm.meta.available_on(a))
        })
        .find_map(|id| {
            let name = model[id].name.clone();
            arm_text(isa, &name).map(|(_, text)| (name, text))
        })
        .expect("an arm to copy")
}

/// An opcode value that the table does not name and no binding uses.
fn free_opcode(model: &Model) -> u8 {
    let table = &model[model.opcode_enum()];
    (1..=u8::MAX)
        .find(|&v| {
            table.variant_of(u64::from(v)).is_none()
                && !model.bindings.iter().any(|b| b.opcode == u64::from(v))
        })
        .expect("a free opcode value")
}

const DOWNSTREAM_TEST: &str = r#"
use tpb_isa::{Arch, ArmKind, Inst, Opcode};

#[test]
fn the_new_opcode_decodes_to_the_new_arm() {
    let mut b = [0u8; 64];
    for (i, x) in b.iter_mut().enumerate() {
        *x = (i as u8).wrapping_mul(37) ^ 0x5A;
    }
    b[0] = OPCODE;
    assert_eq!(ArmKind::NEW.opcodes(), &[OPCODE]);
    assert!(ArmKind::ALL.contains(&ArmKind::NEW));
    assert_eq!(Opcode(OPCODE).arm(), Some(ArmKind::NEW));
    let mut seen = 0;
    for &arch in Arch::ALL {
        match Inst::decode(arch, &b) {
            Inst::NEW(x) => {
                assert_eq!(x.encode(), b, "{arch}");
                assert_eq!(<tpb_isa::NEW as tpb_isa::Arm>::decode(arch, &b), x);
                seen += 1;
            }
            other => panic!("{:#x} on {arch} decoded as {other:?}", OPCODE),
        }
        assert_eq!(Inst::decode(arch, &b).encode(), b);
    }
    assert_eq!(seen, Arch::ALL.len());
    println!("decoded to the new arm on {seen} generations");
}
"#;

#[test]
fn a_copied_arm_bound_to_a_free_opcode_is_decodable_after_gen() {
    let started = Instant::now();
    let root = root();
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path();
    copy_dir(&root.join("isa"), &w.join("isa"));
    copy_dir(&root.join("tpb-isa/src"), &w.join("tpb-isa/src"));
    fs::copy(root.join("tpb-isa/Cargo.toml"), w.join("tpb-isa/Cargo.toml")).unwrap();
    // The crate's doctest includes the workspace README.
    fs::copy(root.join("README.md"), w.join("README.md")).unwrap();

    // Copy an arm under a new name and bind it to a free opcode value.
    let model = codegen::load(load(&w.join("isa"), w)).unwrap_or_else(|f| panic!("{}", f.render()));
    let (name, text) = arm_to_copy(&model, &w.join("isa"));
    let opcode = free_opcode(&model);
    let new = format!("{name}_E2E_COPY");
    let copy = text.replacen(&format!("arm {name} :"), &format!("arm {new} :"), 1);
    let fixture = w.join("isa/arms/e2e_copy.isa");
    fs::write(&fixture, format!("{copy}\n\nbind {opcode:#04x} => {new}\n")).unwrap();

    // Before gen, the committed crate does not know the value.
    let mut b = [0u8; 64];
    b[0] = opcode;
    assert!(Arch::ALL.iter().copied().all(|a| matches!(Inst::decode(a, &b), Inst::Unknown(_))));

    // gen: the pipeline `cargo xtask gen` runs, written into the copy.
    let model = codegen::load(load(&w.join("isa"), w)).unwrap_or_else(|f| panic!("{}", f.render()));
    let rust = model[model.arm_named(&new).expect("the new arm is in the model")].rust.clone();
    let generated = codegen::generate(&model);
    for f in generated.iter().filter(|f| f.path.starts_with("tpb-isa/")) {
        fs::write(w.join(&f.path), &f.contents).unwrap();
    }
    let arms = fs::read_to_string(w.join("tpb-isa/src/generated/arms.rs")).unwrap();
    assert!(arms.contains(&format!("pub struct {rust} ")), "the new arm's type is generated");

    // A tiny downstream crate beside the copied one, in a workspace like ours (the
    // crate's manifest inherits the workspace's package keys and lints).
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members = manifest.lines().find(|l| l.starts_with("members")).unwrap();
    let manifest = manifest.replace(members, "members = [\"tpb-isa\", \"user\"]");
    fs::write(w.join("Cargo.toml"), manifest).unwrap();
    fs::copy(root.join("Cargo.lock"), w.join("Cargo.lock")).unwrap();
    let user = w.join("user");
    fs::create_dir_all(user.join("tests")).unwrap();
    fs::create_dir_all(user.join("src")).unwrap();
    fs::write(
        user.join("Cargo.toml"),
        "[package]\nname = \"user\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
         [dependencies]\ntpb-isa = { path = \"../tpb-isa\" }\n",
    )
    .unwrap();
    fs::write(user.join("src/lib.rs"), "//! Depends on the regenerated crate.\n").unwrap();
    let test = DOWNSTREAM_TEST.replace("OPCODE", &format!("{opcode:#04x}u8")).replace("NEW", &rust);
    fs::write(user.join("tests/decode.rs"), test).unwrap();

    let out = Command::new(env!("CARGO"))
        .args(["test", "--offline", "-p", "user", "--test", "decode", "--", "--nocapture"])
        .current_dir(w)
        .env("CARGO_TARGET_DIR", root.join("target/scratch"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the downstream crate failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("test the_new_opcode_decodes_to_the_new_arm ... ok"), "{stdout}");
    eprintln!(
        "add-an-arm: {name} copied as {new} ({rust}), bound to {opcode:#04x}; {:.1?} in all",
        started.elapsed()
    );
}
