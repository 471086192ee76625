//! The validator's per-field tables agree with the spec's value tests.

use tpb_isa::validate::enum_leaves;
use tpb_isa::{Arch, ArmKind};

/// For every enum-typed field of every arm on every generation, `EnumLeaf::holds` (a
/// bit table for byte-wide enums) answers as `EnumCheck::named` (the enum's own test)
/// for every value the field can hold up to 0x1FF.
#[test]
fn the_enum_tables_agree_with_the_named_tests() {
    let mut checked = 0usize;
    for &kind in ArmKind::ALL {
        for &arch in Arch::ALL {
            for l in enum_leaves(kind, arch) {
                let top = if l.bits >= 9 { 0x200 } else { 1u64 << l.bits };
                for v in 0..top {
                    assert_eq!(
                        l.holds(arch, v),
                        (l.check.named)(arch, v),
                        "{} of {} on {arch}: {v:#x}",
                        l.name,
                        kind.name()
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} values checked");
}

/// A field of an enum whose values no source gives (`PERF_OPT_MODE {}`) is not
/// checked: the spec does not know its values, so it rejects none. A MATMUL record
/// with every byte zero but its opcode passes, whatever its `perf_opt` byte holds.
#[test]
fn a_field_of_an_enum_with_no_known_value_is_not_checked() {
    let leaves = enum_leaves(ArmKind::S3d3Mm, Arch::Cayman);
    assert!(!leaves.is_empty());
    assert!(leaves.iter().all(|l| l.name != "perf_opt"), "perf_opt is checked");
    // Every other leaf's enum names a value on some generation.
    for &kind in ArmKind::ALL {
        for l in enum_leaves(kind, Arch::Cayman) {
            let named = Arch::ALL.iter().any(|&a| (0..0x100).any(|v| (l.check.named)(a, v)));
            assert!(named, "{} of {} names no value below 0x100", l.name, kind.name());
        }
    }
    let op = tpb_isa::inst::BINDINGS.iter().find(|b| b.arm == ArmKind::S3d3Mm).unwrap().opcode;
    let mut r = [0u8; 64];
    r[0] = op;
    for v in 0..=255u8 {
        r[35] = v;
        assert_eq!(tpb_isa::validate::validate(Arch::Cayman, &r), Ok(()), "perf_opt {v:#04x}");
    }
}

/// An ADDR4 marker byte is not checked against `ADDR4MARKER`: in the immediate reading
/// its low bits are bits 24..29 of the address, so a PSUM address (bit 25) has 0x02
/// there, which AWS's compiler writes in every MATMUL's destination.
#[test]
fn an_addr4_marker_byte_is_not_checked_as_an_enum() {
    for &kind in ArmKind::ALL {
        for &arch in Arch::ALL {
            for l in enum_leaves(kind, arch) {
                assert!(!l.name.ends_with("marker"), "{} of {} is checked", l.name, kind.name());
            }
        }
    }
    let op = tpb_isa::inst::BINDINGS.iter().find(|b| b.arm == ArmKind::S3d3Mm).unwrap().opcode;
    let mut r = [0u8; 64];
    r[0] = op;
    // dst_mem_pattern.start_addr at +48: PSUM address 0x2002800.
    r[48..52].copy_from_slice(&0x0200_2800u32.to_le_bytes());
    assert_eq!(tpb_isa::validate::validate(Arch::Cayman, &r), Ok(()));
}

#[test]
fn the_error_types_hash_so_that_a_tool_can_count_them() {
    use std::collections::HashSet;
    let mut seen = HashSet::new();
    for op in 0..=255u8 {
        let mut r = [0u8; tpb_isa::RECORD_SIZE];
        r[0] = op;
        for &arch in Arch::ALL {
            if let Err(e) = tpb_isa::validate::validate(arch, &r) {
                seen.insert(e);
            }
        }
    }
    assert!(seen.len() > 1);
    let asm: HashSet<_> = ["MATMUL", "nope", "MATMUL"]
        .iter()
        .map(|l| tpb_isa::disasm::assemble_line(Arch::Cayman, l, 1).unwrap_err())
        .collect();
    assert_eq!(asm.len(), 2);
    let _: HashSet<tpb_isa::UnknownArch> = ["x".parse::<Arch>().unwrap_err()].into();
}

/// An opcode the generation has, bound to a layout on other generations only, is a
/// named opcode without a layout there: checked as far as the preamble, never said not
/// to exist. CUSTOM_OP_HEADER (0x85) is in every generation's opcode enum; its struct
/// is sunda's.
#[test]
fn an_opcode_whose_binding_is_another_generations_is_checked_as_unbound() {
    use tpb_isa::{Opcode, ValidateError};
    let mut checked = 0;
    for b in tpb_isa::inst::BINDINGS {
        for &arch in Arch::ALL {
            if !Opcode(b.opcode).available_on(arch) {
                continue;
            }
            let r = b.record();
            assert!(
                !matches!(
                    tpb_isa::validate::validate(arch, &r),
                    Err(ValidateError::NotOnArch { .. })
                ),
                "{:#04x} ({}) exists on {arch}",
                b.opcode,
                b.arm.name()
            );
            checked += 1;
        }
    }
    assert!(checked > 100);
    let mut r = [0u8; 64];
    r[0] = 0x85;
    assert_eq!(tpb_isa::validate::validate(Arch::Cayman, &r), Ok(()));
    r[4] = 0xEE; // events.wait_mode: the preamble is still checked.
    assert!(matches!(
        tpb_isa::validate::validate(Arch::Cayman, &r),
        Err(ValidateError::BadEnum { offset: 4, .. })
    ));
}

/// A PSEUDO_INST record's byte +12 is its `pseudo_opcode` (DWARF
/// NEURON_ISA_TPB_PSEUDO_OPCODE: 0, 1 EXIT, 2 LIBRARY_RELOAD_INDEX) whether or not a
/// binding selects it: a value the enum does not name is a finding.
#[test]
fn a_pseudo_inst_with_an_unnamed_pseudo_opcode_is_a_finding() {
    use tpb_isa::ValidateError;
    let mut r = [0u8; 64];
    r[0] = 0xDF;
    for &arch in Arch::ALL {
        for v in 0..=255u8 {
            r[12] = v;
            let got = tpb_isa::validate::validate(arch, &r);
            if v <= 2 {
                assert_eq!(got, Ok(()), "{arch} pseudo_opcode {v}");
            } else {
                assert_eq!(
                    got,
                    Err(ValidateError::BadEnum {
                        field: "pseudo_opcode",
                        offset: 12,
                        value: v.into(),
                        arch,
                    }),
                    "{arch}"
                );
            }
        }
    }
}

/// A record whose opcode value the spec's table names on no generation, and which no
/// binding reads, is refused on every generation (its message says the spec does not
/// name it); one named on other generations only keeps its own message.
#[test]
fn an_opcode_the_spec_names_nowhere_is_a_finding_on_every_generation() {
    use tpb_isa::{Opcode, ValidateError};
    // Unnamed and unbound: a spec may bind a value its table does not name (the README's
    // `bind 0x0b => MY_OP`), and such a value's records are the binding's, not unknown.
    let unnamed: Vec<u8> = (0..=255u8)
        .filter(|&v| {
            !Opcode(v).is_known() && !tpb_isa::inst::BINDINGS.iter().any(|b| b.opcode == v)
        })
        .collect();
    assert!(unnamed.contains(&0x00) && unnamed.len() > 40, "{unnamed:02x?}");
    let mut r = [0u8; 64];
    for &arch in Arch::ALL {
        for &v in &unnamed {
            r[0] = v;
            let got = tpb_isa::validate::validate(arch, &r);
            assert_eq!(got, Err(ValidateError::NotOnArch { opcode: v, arch }), "{v:#04x} {arch}");
            let text = got.unwrap_err().to_string();
            let want =
                format!("opcode {v:#04x} is not one the spec names (on {arch} or any generation)");
            assert_eq!(text, want);
        }
    }
    r[0] = 0x0A; // MATMUL_MX: named, on mariana and maverick only.
    assert_eq!(
        tpb_isa::validate::validate(Arch::Cayman, &r).unwrap_err().to_string(),
        "opcode 0x0a does not exist on cayman"
    );
}
