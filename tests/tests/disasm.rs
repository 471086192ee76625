//! The text form of records: bytes → text → bytes is the identity on any 64 bytes, text
//! → bytes → text is the identity on every line the disassembler prints, and the
//! assembler's errors name the line, the column and the field.

use proptest::prelude::*;
use tpb_isa::disasm::{assemble, assemble_line, ArmDesc};
use tpb_isa::generated::disasm::ARMS;
use tpb_isa::{AsmErrorKind, Inst, RECORD_SIZE};

fn round_trip(bytes: [u8; RECORD_SIZE]) {
    let text = Inst::decode(&bytes).to_string();
    let back = assemble_line(&text, 1).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(back, Some(bytes), "{text}");
    assert_eq!(Inst::decode(&bytes).to_string(), text);
    let again = Inst::decode(&back.unwrap()).to_string();
    assert_eq!(again, text);
}

/// Records that hit the bound arms: byte 0 (and 12) from the bindings, the rest random.
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
            // Zero a share of the bytes so that "shown only when non-zero" is exercised.
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
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn any_bytes_round_trip(bytes in prop::array::uniform32(any::<u8>()), tail in prop::array::uniform32(any::<u8>())) {
        let mut r = [0u8; RECORD_SIZE];
        r[..32].copy_from_slice(&bytes);
        r[32..].copy_from_slice(&tail);
        round_trip(r);
    }

    #[test]
    fn bound_records_round_trip(r in record()) {
        round_trip(r);
    }

    #[test]
    fn every_arm_round_trips_explicitly(r in record(), arm in 0..ARMS.len()) {
        let desc: &ArmDesc = ARMS[arm];
        let mut s = String::new();
        tpb_isa::disasm::write_record(&mut s, desc, &r).unwrap();
        prop_assert_eq!(assemble_line(&s, 1).unwrap(), Some(r), "{}", s);
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
pseudo_function_call function_name=\"kernel\\x01\" args_table_var_id=0x1234 events.wait_mode=2

pseudo_exit_execution   ; the end
";
    let recs: Vec<_> = assemble(text).collect::<Result<_, _>>().unwrap();
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0][0], 0xD1);
    assert_eq!(&recs[0][12..16], b"main");
    assert_eq!(recs[0][48], 1);
    assert_eq!(recs[1][..8], [0xD3, 0, 0, 0, 2, 0, 0, 0]);
    assert_eq!(&recs[1][12..19], b"kernel\x01");
    assert_eq!(recs[1][48..52], 0x1234u32.to_le_bytes());
    assert_eq!((recs[2][0], recs[2][12]), (0xDF, 1));
    let printed: Vec<String> = recs.iter().map(|r| Inst::decode(r).to_string()).collect();
    assert_eq!(
        printed,
        [
            "pseudo_function_begin function_name=\"main\" return_reset_semaphores=1 return_addr_reg_lo=4 return_addr_reg_hi=0",
            "pseudo_function_call events.wait_mode=2 function_name=\"kernel\\x01\" args_table_var_id=0x1234",
            "pseudo_exit_execution",
        ]
    );
}

#[test]
fn operands_with_forms_print_their_form() {
    // DMA_DIRECT2D is not bound: assemble it by mnemonic, print it as the arm.
    let line =
        "dma_direct2d header.opcode=0xb0 src_start_addr=immediate{immediate=0x2000040,quadrant=1} \
                dst_start_addr=register{regnum=7} src_step_elem=[-1,2] in_dtype=3";
    let r = assemble_line(line, 1).unwrap().unwrap();
    let arm = tpb_isa::arms::DmaDirect2d::decode(&r);
    assert_eq!(arm.src_start_addr.0, 0x200_0040);
    assert_eq!(arm.dst_start_addr.0, 0x8000_0000_0000_0007);
    assert_eq!(arm.src_step_elem, [-1, 2]);
    let text = arm.to_string();
    assert!(text.contains("src_start_addr=immediate{immediate=0x2000040,quadrant=1}"), "{text}");
    assert!(text.contains("dst_start_addr=register{regnum=7}"), "{text}");
    assert_eq!(assemble_line(&text, 1).unwrap(), Some(r));
}

fn error(line: &str) -> String {
    match assemble(line).find_map(Result::err) {
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
        "1:47: value of field 'return_reset_semaphores' is out of range"
    );
    assert_eq!(
        error("pseudo_function_begin function_name=main"),
        "1:37: field 'function_name' takes a quoted string"
    );
    assert_eq!(
        error("pseudo_function_begin function_name=\"0123456789012345678901234567890123456\""),
        "1:37: value of field 'function_name' is out of range"
    );
    assert_eq!(
        error("pseudo_exit_execution reserved0=00"),
        "1:33: field 'reserved0' takes hex digits, two per byte"
    );
    assert_eq!(error("pseudo_exit_execution 12"), "1:23: expected field=value");
    assert_eq!(error("unknown opcode=0x01"), "1:1: field 'bytes' is missing");
    assert_eq!(
        error("pseudo_exit_execution pseudo_opcode=BOGUS"),
        "1:37: field 'pseudo_opcode' takes a value name or an integer"
    );
    let e = assemble_line("x", 7).unwrap_err();
    assert_eq!((e.line, e.col), (7, 1));
    assert!(matches!(e.kind, AsmErrorKind::UnknownMnemonic { .. }));
}

#[test]
fn unknown_records_show_opcode_and_bytes() {
    let mut r = [0u8; RECORD_SIZE];
    r[0] = 0x42;
    r[63] = 0xAB;
    let text = Inst::decode(&r).to_string();
    assert_eq!(text, format!("unknown opcode=0x42 bytes=42{}ab", "00".repeat(62)));
    assert_eq!(assemble_line(&text, 1).unwrap(), Some(r));
    assert_eq!(
        error(&format!("unknown opcode=0x43 bytes=42{}ab", "00".repeat(62))),
        "1:16: field 'opcode' takes the first of the bytes"
    );
}

#[test]
fn overlapping_bit_fields_must_agree() {
    let e = error("dma_direct2d src_start_addr=immediate{immediate=0x2000040,quadrant=8}");
    assert_eq!(e, "1:68: value of field 'src_start_addr' is out of range");
}
