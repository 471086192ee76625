//! The text form of records: bytes → text → bytes is the identity on any 64 bytes on
//! every generation, text → bytes → text is the identity on every line the
//! disassembler prints, and the assembler's errors name the line, the column and the
//! field.

use proptest::prelude::*;
use tpb_isa::disasm::{assemble, assemble_line, write_arm, AsmErrorKind};
use tpb_isa::{Arch, ArmKind, Inst, RECORD_SIZE};

fn text(arch: Arch, r: &[u8; RECORD_SIZE]) -> String {
    Inst::decode(arch, r).text(arch).to_string()
}

fn round_trip(bytes: [u8; RECORD_SIZE]) {
    for &arch in Arch::ALL {
        let t = text(arch, &bytes);
        let back = assemble_line(arch, &t, 1).unwrap_or_else(|e| panic!("{arch:?} {t}: {e}"));
        assert_eq!(back, Some(bytes), "{arch:?}: {t}");
        assert_eq!(text(arch, &back.unwrap()), t);
    }
}

/// Records that hit the bound arms: byte 0 (and a sub-opcode) from the bindings, the rest
/// random with a share of zero bytes, so that "zero fields are not printed" is exercised.
fn record() -> impl Strategy<Value = [u8; RECORD_SIZE]> {
    let ops = tpb_isa::inst::BINDINGS.iter().map(|b| (b.opcode, b.sub)).collect::<Vec<_>>();
    (
        prop::array::uniform32(any::<u8>()),
        prop::array::uniform32(any::<u8>()),
        0..ops.len() + 1,
        any::<u8>(),
    )
        .prop_map(move |(a, b, pick, mask)| {
            let mut r = [0u8; RECORD_SIZE];
            r[..32].copy_from_slice(&a);
            r[32..].copy_from_slice(&b);
            for (i, x) in r.iter_mut().enumerate() {
                if (mask >> (i % 8)) & 1 == 1 {
                    *x = 0;
                }
            }
            if let Some((op, sub)) = ops.get(pick) {
                r[0] = *op;
                if let Some(s) = sub {
                    r[s.offset] = s.value;
                }
            }
            r
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_bytes_round_trip(a in prop::array::uniform32(any::<u8>()), b in prop::array::uniform32(any::<u8>())) {
        let mut r = [0u8; RECORD_SIZE];
        r[..32].copy_from_slice(&a);
        r[32..].copy_from_slice(&b);
        round_trip(r);
    }

    #[test]
    fn bound_records_round_trip(r in record()) {
        round_trip(r);
    }

    /// Any record read as any arm (`Inst::decode_as`) prints and assembles back.
    #[test]
    fn every_arm_round_trips_explicitly(r in record(), arm in 0..ArmKind::ALL.len()) {
        let kind = ArmKind::ALL[arm];
        for &arch in Arch::ALL {
            let mut s = String::new();
            write_arm(&mut s, kind, arch, &r).unwrap();
            prop_assert_eq!(assemble_line(arch, &s, 1).unwrap(), Some(r), "{}", s);
        }
    }
}

#[test]
fn all_zero_and_all_ones_round_trip() {
    for fill in [0x00, 0xFF, 0x20, 0x80] {
        for op in 0..=255u8 {
            let mut r = [fill; RECORD_SIZE];
            r[0] = op;
            round_trip(r);
        }
    }
}

#[test]
fn texts_people_write_assemble() {
    let text = "\
# a function that exits
pseudo_function_begin function_name=\"main\" return_reset_semaphores=1 return_addr_reg_lo=4
pseudo_function_call function_name=\"kernel\\x01\" args_table_var_id=0x1234 events.wait_mode=SEM_GE_IMM

pseudo_exit_execution   ; the end
";
    let recs: Vec<_> = assemble(Arch::Cayman, text).collect::<Result<_, _>>().unwrap();
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0][0], 0xD1);
    assert_eq!(&recs[0][12..16], b"main");
    assert_eq!(recs[0][48], 1);
    assert_eq!(recs[1][..5], [0xD3, 0, 0, 0, tpb_isa::WaitMode::SEM_GE_IMM.0]);
    assert_eq!(&recs[1][12..19], b"kernel\x01");
    assert_eq!(recs[1][48..52], 0x1234u32.to_le_bytes());
    assert_eq!((recs[2][0], recs[2][12]), (0xDF, 1));
    let printed: Vec<String> = recs.iter().map(text_of).collect();
    assert_eq!(
        printed,
        [
            "pseudo_function_begin function_name=\"main\" return_reset_semaphores=1 return_addr_reg_lo=4",
            "pseudo_function_call events.wait_mode=SEM_GE_IMM function_name=\"kernel\\x01\" args_table_var_id=0x1234",
            "pseudo_exit_execution",
        ]
    );
}

fn text_of(r: &[u8; RECORD_SIZE]) -> String {
    text(Arch::Cayman, r)
}

/// An address operand prints its form (the selector implied by the form's name) and its
/// non-zero bit-fields; the text assembles back to the bytes.
#[test]
fn operands_with_forms_print_their_form() {
    let line = "ldweights src_mem_pattern.start_addr=immediate{immediate=0x37cfe} src_mem_pattern.step_elem=[-1,0,-32]";
    let r = assemble_line(Arch::Cayman, line, 1).unwrap().unwrap();
    assert_eq!(Inst::decode(Arch::Cayman, &r).kind(), Some(ArmKind::S3Lw));
    let t = text_of(&r);
    assert!(
        t.contains(
            "src_mem_pattern.start_addr=immediate{immediate=0x37cfe,partition_offset=0x37cfe}"
        ),
        "{t}"
    );
    assert!(t.contains("src_mem_pattern.step_elem=[-1,0,-32]"), "{t}");
    assert_eq!(assemble_line(Arch::Cayman, &t, 1).unwrap(), Some(r));
}

fn error(line: &str) -> String {
    match assemble(Arch::Cayman, line).find_map(Result::err) {
        Some(e) => e.to_string(),
        None => panic!("{line:?} assembled"),
    }
}

#[test]
fn errors_name_line_column_and_field() {
    assert_eq!(error("\n  frobnicate x=1"), "2:3: unknown mnemonic 'frobnicate'");
    assert_eq!(
        error("pseudo_exit_execution colour=1"),
        "1:23: pseudo_exit_execution has no field 'colour'"
    );
    assert_eq!(
        error("pseudo_function_call args_table_var_id=1 args_table_var_id=2"),
        "1:42: field 'args_table_var_id' is given twice"
    );
    assert_eq!(
        error("pseudo_function_begin return_reset_semaphores=256"),
        "1:47: value of field 'return_reset_semaphores' is out of range (0..=255)"
    );
    assert_eq!(
        error("pseudo_function_begin function_name=main"),
        "1:37: field 'function_name' takes a quoted string"
    );
    assert_eq!(
        error("pseudo_function_begin function_name=\"0123456789012345678901234567890123456\""),
        "1:37: field 'function_name' holds at most 36 bytes; the string given has 37"
    );
    assert_eq!(error("pseudo_exit_execution 12"), "1:23: expected field=value");
    assert_eq!(error("unknown opcode=0x01"), "1:1: field 'bytes' is missing");
    assert!(error("pseudo_function_call events.wait_mode=BOGUS").starts_with(
        "1:39: field 'events.wait_mode' has no value 'BOGUS' (its values: EVT_CLEAR, "
    ));
    assert_eq!(
        error("pseudo_function_call events.wait_mode=0x1g"),
        "1:39: field 'events.wait_mode' takes a value name or an integer"
    );
    let e = assemble_line(Arch::Cayman, "x", 7).unwrap_err();
    assert_eq!((e.line, e.col), (7, 1));
    assert!(matches!(e.kind, AsmErrorKind::UnknownMnemonic { .. }));
    // Opcode names print upper case; mnemonics are their lower case.
    assert_eq!(
        error("MATMUL in_dtype=FP32"),
        "1:1: unknown mnemonic 'MATMUL'; mnemonics are lower case: 'matmul'"
    );
    assert_eq!(
        error("  Unknown opcode=0x01"),
        "1:3: unknown mnemonic 'Unknown'; mnemonics are lower case: 'unknown'"
    );
    let e = assemble_line(Arch::Cayman, "Pseudo_Exit_Execution", 2).unwrap_err();
    assert!(
        matches!(e.kind, AsmErrorKind::MnemonicCase { given, mnemonic: "pseudo_exit_execution" }
            if given.as_str() == "Pseudo_Exit_Execution"),
        "{e:?}"
    );
}

#[test]
fn unknown_records_show_opcode_and_bytes() {
    let op = (0..=255u8)
        .find(|&v| !tpb_isa::Opcode(v).is_known())
        .expect("the spec leaves some values unnamed");
    let mut r = [0u8; RECORD_SIZE];
    r[0] = op;
    r[63] = 0xAB;
    assert!(matches!(Inst::decode(Arch::Cayman, &r), Inst::Unknown(_)));
    let t = text_of(&r);
    assert_eq!(t, format!("unknown opcode={op:#04x} bytes={op:02x}{}ab", "00".repeat(62)));
    assert_eq!(assemble_line(Arch::Cayman, &t, 1).unwrap(), Some(r));
    let other =
        format!("unknown opcode={:#04x} bytes={op:02x}{}ab", op.wrapping_add(1), "00".repeat(62));
    assert_eq!(error(&other), "1:16: field 'opcode' takes the first of the bytes");
}

/// An opcode the spec names but gives no layout for prints by its name, with its
/// preamble and payload, and assembles back.
#[test]
fn opaque_records_print_their_opcode_name() {
    let mut r = [0u8; RECORD_SIZE];
    r[0] = 0xB1;
    r[1] = 16;
    r[40] = 7;
    assert!(matches!(Inst::decode(Arch::Cayman, &r), Inst::Opaque(_)));
    let t = text_of(&r);
    assert!(t.starts_with("set_ordering_mode header.inst_word_len=16 payload="), "{t}");
    assert_eq!(assemble_line(Arch::Cayman, &t, 1).unwrap(), Some(r));
}

#[test]
fn overlapping_bit_fields_must_agree() {
    let line =
        "ldweights src_mem_pattern.start_addr=immediate{immediate=0x37cfe,partition_offset=0x1}";
    let e = error(line);
    let col = line.find("0x1}").unwrap() + 1;
    assert_eq!(
        e,
        format!(
            "1:{col}: member 'partition_offset' of field 'src_mem_pattern.start_addr' gives bits \
             another member set differently"
        )
    );
    // A selector bit given inside a form that picks another form.
    let line = "ldweights src_mem_pattern.start_addr=immediate{marker=0x80}";
    let col = line.find("immediate{").unwrap() + 1;
    assert_eq!(
        error(line),
        format!(
            "1:{col}: the bits given to field 'src_mem_pattern.start_addr' do not read as the \
             form 'immediate' (a selector bit picks another)"
        )
    );
}

/// A layout that differs by generation is printed and read in the generation's layout.
#[test]
fn per_generation_layouts_round_trip_on_their_generation() {
    for kind in ArmKind::ALL.iter().copied().filter(|k| k.is_per_generation()) {
        let mut r = [0u8; RECORD_SIZE];
        for (i, x) in r.iter_mut().enumerate() {
            *x = (i as u8).wrapping_mul(37) | 1;
        }
        for &arch in Arch::ALL {
            let mut s = String::new();
            write_arm(&mut s, kind, arch, &r).unwrap();
            assert_eq!(assemble_line(arch, &s, 1).unwrap(), Some(r), "{kind:?} {arch:?}: {s}");
        }
    }
}

#[test]
fn an_arm_kind_displays_as_its_spec_name() {
    for &k in ArmKind::ALL {
        assert_eq!(k.to_string(), tpb_isa::disasm::desc::ArmText::of(k).name);
        assert_eq!(k.to_string(), k.name());
    }
    assert_eq!(ArmKind::S3d3Mm.to_string(), "S3D3_MM");
}
