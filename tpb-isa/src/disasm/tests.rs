//! Round trips of the text form over every opcode value and generation.

use core::fmt;

use super::*;
use crate::generated::geometry::Arch;
use crate::generated::inst::{Inst, RECORD_SIZE};

/// A fixed buffer that a line is written into (the crate is `no_std`).
pub(super) struct Buf {
    b: [u8; 4096],
    n: usize,
}

impl fmt::Write for Buf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.n + s.len();
        self.b.get_mut(self.n..end).ok_or(fmt::Error)?.copy_from_slice(s.as_bytes());
        self.n = end;
        Ok(())
    }
}

impl Buf {
    pub(super) fn new() -> Buf {
        Buf { b: [0; 4096], n: 0 }
    }

    fn of(arch: Arch, r: &[u8; RECORD_SIZE]) -> Buf {
        let mut b = Buf { b: [0; 4096], n: 0 };
        write_record(&mut b, arch, r).unwrap();
        b
    }

    pub(super) fn as_str(&self) -> &str {
        core::str::from_utf8(&self.b[..self.n]).unwrap()
    }
}

/// A record of pseudo-random bytes (a third of them zero) with opcode `op`.
fn record(seed: u32, op: u8) -> [u8; RECORD_SIZE] {
    let mut r = [0u8; RECORD_SIZE];
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    for b in r.iter_mut() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = if x % 3 == 0 { 0 } else { x as u8 };
    }
    r[0] = op;
    r
}

#[test]
fn every_opcode_round_trips_on_every_generation() {
    for &arch in Arch::ALL {
        for op in 0..=255u8 {
            for seed in 0..24u32 {
                let mut r = record(seed * 256 + u32::from(op), op);
                // Half the records get a sub-opcode byte some binding names.
                if seed % 2 == 0 {
                    r[12] = (seed % 10) as u8;
                }
                let t = Buf::of(arch, &r);
                assert_eq!(
                    assemble_line(arch, t.as_str(), 1),
                    Ok(Some(r)),
                    "{arch:?}: {}",
                    t.as_str()
                );
                // Parsing then printing gives the same text.
                let again = Buf::of(arch, &r);
                assert_eq!(again.as_str(), t.as_str());
            }
        }
    }
}

#[test]
fn a_record_of_a_bound_opcode_prints_the_binding_mnemonic_and_no_opcode() {
    for b in crate::generated::inst::BINDINGS.iter().filter(|b| b.sub.is_none()) {
        let mut r = [0u8; RECORD_SIZE];
        r[0] = b.opcode;
        let t = Buf::of(Arch::Cayman, &r);
        assert!(t.as_str().starts_with(b.mnemonic), "{}", t.as_str());
        assert!(!t.as_str().contains("opcode="), "{}", t.as_str());
    }
}

#[test]
fn a_listing_line_assembles_as_its_text_column() {
    let r = record(7, crate::generated::inst::BINDINGS[0].opcode);
    let t = Buf::of(Arch::Cayman, &r);
    let mut line = Buf { b: [0; 4096], n: 0 };
    fmt::write(&mut line, format_args!("00000040  ")).unwrap();
    for x in r {
        fmt::write(&mut line, format_args!("{x:02x}")).unwrap();
    }
    fmt::write(&mut line, format_args!("  {}", t.as_str())).unwrap();
    assert_eq!(assemble_line(Arch::Cayman, line.as_str(), 1), Ok(Some(r)));
}

/// `disasm --no-hex` writes the offset column alone: its lines assemble too, an offset
/// of 8 to 16 digits before the text; an offset followed by no mnemonic is reported as
/// the line's mnemonic, as a mnemonic of hex letters followed by other words is.
#[test]
fn a_listing_line_without_hex_assembles_as_its_text_column() {
    let r = record(7, crate::generated::inst::BINDINGS[0].opcode);
    let t = Buf::of(Arch::Cayman, &r);
    for offset in ["00000040", "0000000000000040", "ffffffffffffffc0"] {
        let mut line = Buf { b: [0; 4096], n: 0 };
        fmt::write(&mut line, format_args!("{offset}  {}", t.as_str())).unwrap();
        assert_eq!(assemble_line(Arch::Cayman, line.as_str(), 1), Ok(Some(r)), "{offset}");
    }
    let mut unknown = Buf { b: [0; 4096], n: 0 };
    fmt::write(&mut unknown, format_args!("00000080  unknown opcode=0x00 bytes=")).unwrap();
    for _ in 0..RECORD_SIZE {
        fmt::write(&mut unknown, format_args!("00")).unwrap();
    }
    assert_eq!(assemble_line(Arch::Cayman, unknown.as_str(), 1), Ok(Some([0; RECORD_SIZE])));
    let m = crate::generated::inst::BINDINGS[0].mnemonic;
    for (prefix, word) in [
        ("00000040", "00000040"),
        ("00000040  x=1", "00000040"),
        ("0000040 ", "0000040"),
        ("00000000000000040 ", "00000000000000040"),
    ] {
        let mut line = Buf { b: [0; 4096], n: 0 };
        // The last two: a mnemonic follows, but the first word is no offset column.
        let then = if prefix.ends_with(' ') { m } else { "" };
        fmt::write(&mut line, format_args!("{prefix}{then}")).unwrap();
        let line = line.as_str();
        let e = assemble_line(Arch::Cayman, line, 1).unwrap_err();
        assert!(
            matches!(&e.kind, AsmErrorKind::UnknownMnemonic { mnemonic } if mnemonic.as_str() == word),
            "{line}: {e:?}"
        );
        assert_eq!(e.col, 1, "{line}");
    }
}

#[test]
fn errors_name_the_line_and_column() {
    let e = assemble_line(Arch::Cayman, "  deadbeef x=1", 3).unwrap_err();
    assert_eq!((e.line, e.col), (3, 3));
    assert!(
        matches!(e.kind, AsmErrorKind::UnknownMnemonic { mnemonic } if mnemonic.as_str() == "deadbeef")
    );
    let m = crate::generated::inst::BINDINGS[0].mnemonic;
    let mut line = Buf { b: [0; 4096], n: 0 };
    fmt::write(&mut line, format_args!("{m} no_such_field=1")).unwrap();
    let e = assemble_line(Arch::Cayman, line.as_str(), 1).unwrap_err();
    assert_eq!(e.col, m.len() + 2);
    assert!(matches!(e.kind, AsmErrorKind::UnknownField { .. }));
}

#[test]
fn inst_text_is_the_record_text() {
    let r = record(3, crate::generated::inst::BINDINGS[5].opcode);
    let inst = Inst::decode(Arch::Mariana, &r);
    let mut a = Buf { b: [0; 4096], n: 0 };
    fmt::write(&mut a, format_args!("{}", inst.text(Arch::Mariana))).unwrap();
    assert_eq!(a.as_str(), Buf::of(Arch::Mariana, &r).as_str());
    assert_eq!(Inst::parse(Arch::Mariana, a.as_str()), Ok(inst));
}

/// `text(arch)` is generation `arch`'s line for the value's bytes, which `parse(arch)`
/// reads back to the same bytes, whatever generation the value was decoded on; printed
/// for one of its own `layout_archs()`, a value reads back to itself. The test meets
/// values whose two lines differ.
#[test]
fn inst_text_is_the_generations_line_and_layout_archs_keeps_the_value() {
    let mut differ = 0;
    for (i, b) in crate::generated::inst::BINDINGS.iter().enumerate() {
        let mut r = record(i as u32, b.opcode);
        if let Some(s) = b.sub {
            r[s.offset] = s.value;
        }
        for &from in Arch::ALL {
            let inst = Inst::decode(from, &r);
            let own = inst.layout_archs().map_or(from, |g| g[0]);
            assert!(inst.layout_archs().is_none_or(|g| !g.is_empty()));
            let mut mine = Buf::new();
            fmt::write(&mut mine, format_args!("{}", inst.text(own))).unwrap();
            assert_eq!(Inst::parse(own, mine.as_str()), Ok(inst), "{}", mine.as_str());
            for &to in Arch::ALL {
                let mut t = Buf::new();
                fmt::write(&mut t, format_args!("{}", inst.text(to))).unwrap();
                assert_eq!(t.as_str(), Buf::of(to, &r).as_str(), "{}", b.mnemonic);
                let back = Inst::parse(to, t.as_str()).map(|x| x.encode());
                assert_eq!(back, Ok(r), "{} decoded on {from:?}, printed for {to:?}", b.mnemonic);
                differ += usize::from(t.as_str() != mine.as_str());
            }
        }
    }
    assert!(differ > 100, "only {differ} values print otherwise for another generation");
}

#[test]
fn a_quoted_value_that_ends_in_a_backslash_is_an_error() {
    // Found by the text fuzz target: the value's end was one past the line.
    for line in ["activate\r\nt=\"\x0c\n{\\", r#"nop x="\"#, r#"nop x=["a\"] y=1"#] {
        for &arch in Arch::ALL {
            let e = assemble_line(arch, line, 1).unwrap_err();
            assert!(e.col >= 1 && e.col <= line.chars().count() + 1, "{e} on {line:?}");
        }
    }
}

/// A fixed buffer of bytes, and how many pieces reached it.
struct Bytes {
    b: [u8; 1 << 16],
    n: usize,
    pieces: usize,
}

impl Bytes {
    fn new() -> Bytes {
        Bytes { b: [0; 1 << 16], n: 0, pieces: 0 }
    }

    fn take(&mut self, b: &[u8]) -> Result<(), ()> {
        let end = self.n + b.len();
        self.b.get_mut(self.n..end).ok_or(())?.copy_from_slice(b);
        self.n = end;
        self.pieces += 1;
        Ok(())
    }
}

#[test]
fn the_byte_sinks_get_the_text_the_str_writers_write() {
    for &arch in Arch::ALL {
        let mut stream = [0u8; 40 * RECORD_SIZE];
        for op in 0..=255u8 {
            let r = record(u32::from(op) * 7 + arch as u32, op);
            let mut out = Bytes::new();
            write_record_bytes(|b| out.take(b), arch, &r).unwrap();
            assert_eq!(&out.b[..out.n], Buf::of(arch, &r).as_str().as_bytes());
            stream[usize::from(op % 40) * RECORD_SIZE..][..RECORD_SIZE].copy_from_slice(&r);
        }
        let mut out = Bytes::new();
        write_stream_bytes(|b| out.take(b), arch, &stream).unwrap();
        // A line at a time: handed on in pieces, whole.
        assert!(out.pieces > 1);
        let mut want = Bytes::new();
        for r in stream.chunks_exact(RECORD_SIZE) {
            want.take(Buf::of(arch, r.try_into().unwrap()).as_str().as_bytes()).unwrap();
            want.take(b"\n").unwrap();
        }
        assert_eq!(&out.b[..out.n], &want.b[..want.n]);
    }
}

#[test]
fn a_byte_sink_error_is_returned_and_ends_the_text() {
    let mut stream = [0u8; 40 * RECORD_SIZE];
    for (i, r) in stream.chunks_exact_mut(RECORD_SIZE).enumerate() {
        r.copy_from_slice(&record(i as u32, crate::generated::inst::BINDINGS[i].opcode));
    }
    let mut calls = 0;
    let r = write_stream_bytes(
        |_| {
            calls += 1;
            Err(calls)
        },
        Arch::Cayman,
        &stream,
    );
    assert_eq!((r, calls), (Err(1), 1));
}

/// The message of the first error `assemble` gives of `text` on Cayman, and its column;
/// `assemble_line` of the one line gives the same.
fn first_error(text: &str) -> (std::string::String, usize) {
    let e = assemble(Arch::Cayman, text).find_map(Result::err).expect("an error");
    assert_eq!(assemble_line(Arch::Cayman, text, 1), Err(e), "{text}");
    (std::format!("{}", e.kind), e.col)
}

/// `Inst::parse` reads one line: a closing line ending is fine, a second line is an
/// error at the first line's end that names the reader of several.
#[test]
fn inst_parse_reads_one_line() {
    let one = Inst::parse(Arch::Cayman, "matmul in_dtype=FP16");
    assert!(one.is_ok());
    assert_eq!(Inst::parse(Arch::Cayman, "matmul in_dtype=FP16\n"), one);
    assert_eq!(Inst::parse(Arch::Cayman, "matmul in_dtype=FP16\r\n"), one);
    let e = Inst::parse(Arch::Cayman, "matmul\nldweights").unwrap_err();
    assert_eq!((e.line, e.col), (1, 7));
    assert_eq!(
        std::format!("{}", e.kind),
        "expected the end of the line: Inst::parse reads one line (disasm::assemble reads several)"
    );
}

/// A value name in another case names the right one (it said the field takes a value
/// name or an integer), for an enum field and an enum bit-field alike.
#[test]
fn a_value_name_in_another_case_names_the_right_one() {
    assert_eq!(
        first_error("matmul in_dtype=fp16").0,
        "field 'in_dtype' has no value 'fp16'; value names keep their case: 'FP16'"
    );
    let e = first_error("tensor_tensor_arith_op in0_in1_dtype={dtype_lo=fp32}").0;
    assert_eq!(e, "field 'in0_in1_dtype' has no value 'fp32'; value names keep their case: 'FP32'");
    // A name near one, in any case: that one; near none: the enum's names, when few.
    assert_eq!(
        first_error("matmul in_dtype=FP17").0,
        "field 'in_dtype' has no value 'FP17'; did you mean 'FP16'?"
    );
    let e = first_error("tensor_tensor_arith_op in0_in1_dtype={dtype_lo=FP17}").0;
    assert_eq!(e, "field 'in0_in1_dtype' has no value 'FP17'; did you mean 'FP16'?");
    let e = first_error("matmul events.wait_mode=BOGUS").0;
    assert!(
        e.starts_with("field 'events.wait_mode' has no value 'BOGUS' (its values: EVT_CLEAR, ")
            && e.ends_with(", UNORDERED)"),
        "{e}"
    );
    // A number in error is a number's error.
    assert_eq!(
        first_error("matmul in_dtype=0x1g").0,
        "field 'in_dtype' takes a value name or an integer"
    );
}

/// A field name with a byte no field name has is a field the arm lacks (with the one
/// it is near), not a syntax error: it has its `=`.
#[test]
fn a_field_name_with_a_stray_byte_names_the_field_meant() {
    assert_eq!(
        first_error("matmul ñum_active_rows=1"),
        ("matmul has no field 'ñum_active_rows'; did you mean 'num_active_rows'?".into(), 8)
    );
    assert_eq!(first_error("matmul =1"), ("expected field=value".into(), 8));
}

/// Hex digits for more bytes than a byte field holds name both counts (they said the
/// field takes hex digits); fewer are the leading bytes, the rest zero.
#[test]
fn a_byte_field_given_too_many_bytes_says_how_many() {
    assert_eq!(
        first_error("matmul reserved0=0011223344"),
        ("field 'reserved0' holds 4 bytes; the digits give 5".into(), 18)
    );
    assert_eq!(
        first_error("matmul reserved0=001").0,
        "field 'reserved0' takes hex digits, two per byte"
    );
    let short = assemble_line(Arch::Cayman, "matmul unknown0=ab", 1).unwrap().unwrap();
    assert_eq!(&short[41..43], &[0xAB, 0]);
}

/// A bit-field's value too wide for it names the bit-field and its width (it said the
/// field's value was out of range); both readers of `form{...}` give the same error.
#[test]
fn a_bit_field_too_narrow_for_its_value_is_named() {
    assert_eq!(
        first_error("matmul psum_accumulate_flags={begin_matmul_group=2}"),
        (
            "value of bit-field 'begin_matmul_group' of field 'psum_accumulate_flags' does not fit its 1 bit"
                .into(),
            50
        )
    );
    assert_eq!(
        first_error("matmul src_mem_pattern.start_addr=register{regnum=300}").0,
        "value of bit-field 'regnum' of field 'src_mem_pattern.start_addr' does not fit its 8 bits"
    );
}

/// A string longer than its field names the field's size, a list of another length
/// the number of elements it holds and was given (a long one counted, not read), and
/// an unknown member of `form{...}` the members there are.
#[test]
fn length_and_member_errors_name_the_limit() {
    let name = "x".repeat(100);
    let line = std::format!("pseudo_function_begin function_name=\"{name}\"");
    let got = first_error(&line);
    assert_eq!(
        got,
        ("field 'function_name' holds at most 36 bytes; the string given has 100".into(), 37)
    );
    let escaped = std::format!("pseudo_function_begin function_name=\"{}\\x41\"", "y".repeat(36));
    assert!(first_error(&escaped).0.ends_with("the string given has 37"), "{escaped}");
    let items = std::vec!["1"; 200_000].join(",");
    let line = std::format!("matmul src_mem_pattern.step_elem=[{items}]");
    let want = "field 'src_mem_pattern.step_elem' holds 3 elements; 200000 are given";
    assert_eq!(first_error(&line), (want.into(), 34));
    let want = "field 'src_mem_pattern.step_elem' holds 3 elements; 2 are given";
    assert_eq!(first_error("matmul src_mem_pattern.step_elem=[1,2]"), (want.into(), 34));
    let (msg, col) = first_error("matmul psum_accumulate_flags={bogus=true}");
    assert_eq!(col, 31);
    assert!(
        msg.starts_with("field 'psum_accumulate_flags' has no member 'bogus' (its members: ")
            && msg.contains("begin_matmul_group")
            && msg.ends_with(", rest)"),
        "{msg}"
    );
    // A form's own members are listed too.
    let (msg, _) = first_error("ldweights src_mem_pattern.start_addr=immediate{bogus=1}");
    assert!(msg.contains("immediate") && msg.contains("partition_offset"), "{msg}");
}

/// A name in a message shows its control characters as escapes.
#[test]
fn a_name_with_control_characters_is_shown_escaped() {
    assert_eq!(first_error("nop\u{1} x=1").0, "unknown mnemonic 'nop\\x01'; did you mean 'nop'?");
    assert_eq!(first_error("\0nop").0, "unknown mnemonic '\\0nop'; did you mean 'nop'?");
}

/// A name in a message shows an invisible formatting character as its escape: a
/// right-to-left override would reverse the rest of the message on a terminal that
/// honours it, and a zero-width space would hide why a name is unknown.
#[test]
fn a_name_with_invisible_formatting_characters_is_shown_escaped() {
    let (msg, _) = first_error("m\u{202e}atmul");
    assert!(msg.contains("'m\\u{202e}atmul'"), "{msg}");
    let (msg, _) = first_error("mat\u{200b}mul num_active_rows=1");
    assert!(msg.contains("'mat\\u{200b}mul'"), "{msg}");
    let (msg, _) = first_error("nop\u{2028}x");
    assert!(msg.contains("'nop\\u{2028}x'"), "{msg}");
    // Other characters beyond ASCII are shown as they are.
    let (msg, _) = first_error("mat\u{e9}mul");
    assert!(msg.contains("'mat\u{e9}mul'"), "{msg}");
}

/// A binding's record is the template of its instruction: it selects the binding and
/// its arm, and reads as the mnemonic alone.
#[test]
fn a_bindings_record_is_the_template_of_its_instruction() {
    for b in crate::BINDINGS {
        let r = b.record();
        assert!(b.matches(&r), "{}", b.mnemonic);
        assert_eq!(crate::dispatch(&r), Some(b.arm), "{}", b.mnemonic);
        let i = Inst::parse(Arch::Cayman, b.mnemonic);
        if let Ok(i) = i {
            assert_eq!(i.encode(), r, "{}", b.mnemonic);
        }
    }
    // A sentinel's record is the sentinel: EXIT's ends a stream.
    let exit = crate::EXIT.record();
    assert!(crate::EXIT.matches(&exit));
    assert!(crate::stream::has_pseudo_exit(&exit));
}

/// A member of `form{...}` given twice is an error at its second key, as a field given
/// twice is (it was or'ed into the first: the same value was taken, another said to
/// disagree with a member that shares its bits, and a second `rest=` replaced the first).
#[test]
fn a_member_given_twice_is_an_error() {
    let want = "member 'immediate' of field 'src_mem_pattern.start_addr' is given twice";
    for v in ["5", "6"] {
        let line = std::format!(
            "matmul src_mem_pattern.start_addr=immediate{{immediate=5,immediate={v}}}"
        );
        assert_eq!(first_error(&line), (want.into(), 57), "{line}");
    }
    assert_eq!(
        first_error("matmul psum_accumulate_flags={rest=0x80,rest=0x40}"),
        ("member 'rest' of field 'psum_accumulate_flags' is given twice".into(), 41)
    );
}

/// A misspelt field of a binding the generation lacks is reported where it is, in the
/// form the line is written in: the opaque form's `payload=` is no error of the arm's.
#[test]
fn a_misspelt_field_of_an_opaque_line_is_the_one_reported() {
    let line = "custom_op_header header.inst_word_len=16 payload=07 bogus=1";
    assert_eq!(first_error(line), ("custom_op_header has no field 'bogus'".into(), 53));
    let line = "custom_op_header num_payloads=7 bogus=1";
    assert_eq!(first_error(line), ("custom_op_header has no field 'bogus'".into(), 33));
    let line = "custom_op_header bogus=1 payload=07";
    assert_eq!(first_error(line), ("custom_op_header has no field 'bogus'".into(), 18));
}

/// A misspelt mnemonic or field names the one it is near; a dotted field of another
/// generation's flat layout names the union view it is given in on this one, and a
/// field only another generation's layout has names those generations.
#[test]
fn a_misspelt_name_names_the_one_meant() {
    assert_eq!(
        first_error("matmull"),
        ("unknown mnemonic 'matmull'; did you mean 'matmul'?".into(), 1)
    );
    assert_eq!(first_error("ldweight").0, "unknown mnemonic 'ldweight'; did you mean 'ldweights'?");
    // Too far from any, or as near to two: no guess.
    assert_eq!(first_error("frobnicate").0, "unknown mnemonic 'frobnicate'");
    assert_eq!(
        first_error("matmul num_active_row=3"),
        ("matmul has no field 'num_active_row'; did you mean 'num_active_rows'?".into(), 8)
    );
    assert_eq!(first_error("matmul bogus=3").0, "matmul has no field 'bogus'");
    assert_eq!(
        first_error("matmul xbus_sel=1").0,
        "matmul has no field 'xbus_sel' in this generation's layout; the layout of sunda has it \
         (--arch picks the layout)"
    );
    let e =
        assemble_line(Arch::Mariana, "matmul src_mem_pattern.start_addr=immediate{immediate=5}", 1)
            .unwrap_err();
    assert_eq!(
        (std::format!("{}", e.kind), e.col),
        (
            "matmul has no field 'src_mem_pattern.start_addr': 'src_mem_pattern' is a union in \
             this generation's layout; give it as src_mem_pattern=t{start_addr=...}"
                .into(),
            8
        )
    );
    assert_eq!(
        assemble_line(
            Arch::Mariana,
            "matmul src_mem_pattern=t{start_addr=immediate{immediate=5}}",
            1
        ),
        assemble_line(Arch::Mariana, "matmul src_mem_pattern=t{start_addr=5}", 1)
    );
}

/// A union's value names a view it lacks: the error lists its views; a field its view
/// lacks: the error names the view and field (it named the union type) and a near field.
#[test]
fn a_union_value_names_its_views_and_the_field_meant() {
    let error = |line: &str| {
        let e = assemble_line(Arch::Mariana, line, 1).unwrap_err();
        (std::format!("{}", e.kind), e.col)
    };
    assert_eq!(
        error("matmul src_mem_pattern=q{start_addr=1}"),
        ("field 'src_mem_pattern' has no view 'q' (its views: i, mx, t)".into(), 24)
    );
    assert_eq!(
        error("matmul src_mem_pattern=t{strt_addr=1}"),
        (
            "view 't' of field 'src_mem_pattern' has no field 'strt_addr'; did you mean \
             'start_addr'?"
                .into(),
            26
        )
    );
    assert_eq!(
        error("matmul src_mem_pattern=t{bogus=1}").0,
        "view 't' of field 'src_mem_pattern' has no field 'bogus'"
    );
}

/// A value out of range says the range: unsigned and two's-complement fields their
/// bounds (decimal to 16 bits, hex past), a union's `rest` the bits its members give.
#[test]
fn an_out_of_range_value_names_the_range() {
    let cases = [
        (
            "matmul header.inst_word_len=300",
            "field 'header.inst_word_len' is out of range (0..=255)",
        ),
        (
            "copy src_mem_pattern.step_elem=[40000,0,0,0]",
            "field 'src_mem_pattern.step_elem' is out of range (-32768..=32767)",
        ),
        (
            "copy src_mem_pattern.step_elem=[-32769,0,0,0]",
            "field 'src_mem_pattern.step_elem' is out of range (-32768..=32767)",
        ),
        (
            "matmul psum_accumulate_flags={rest=0x01}",
            "field 'psum_accumulate_flags' is out of range (rest may not set bits 0x7: its \
             members give them)",
        ),
    ];
    for (line, want) in cases {
        assert_eq!(first_error(line).0, std::format!("value of {want}"), "{line}");
    }
    assert!(
        assemble_line(Arch::Cayman, "copy src_mem_pattern.step_elem=[-32768,32767,0,0]", 1).is_ok()
    );
    let wide = Fits::unsigned(32);
    assert_eq!(std::format!("{wide}"), "0..=0xffffffff");
    assert_eq!(std::format!("{}", Fits::signed(32)), "-0x80000000..=0x7fffffff");
    assert_eq!(std::format!("{}", Fits::unsigned(64)), "0..=0xffffffffffffffff");
}

/// `Fits::signed` answers for any width, as `Fits::unsigned` does: 0 bits hold only 0,
/// and a width past 64 is 64 (it panicked at 0 and from 128, and gave `0..=u64::MAX`
/// from 65).
#[test]
fn fits_signed_answers_for_any_width() {
    assert_eq!(Fits::signed(0), Fits::unsigned(0));
    assert_eq!(Fits::signed(1), Fits::Range { min: -1, max: 0 });
    assert_eq!(Fits::signed(8), Fits::Range { min: -128, max: 127 });
    let widest = Fits::Range { min: i64::MIN, max: i64::MAX as u64 };
    for bits in [64, 65, 100, 127, 128, 129, u32::MAX] {
        assert_eq!(Fits::signed(bits), widest, "{bits}");
    }
    for bits in 1..=64 {
        let Fits::Range { min, max } = Fits::signed(bits) else { unreachable!() };
        assert_eq!(
            (i128::from(min), i128::from(max)),
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        );
    }
}

/// A well-formed number is out of range however many digits it has (one past `i128`
/// read as "takes an unsigned integer"); a sign may be `+`; an `f32`'s bits take `0X`
/// as an integer field does.
#[test]
fn numbers_of_any_length_and_either_sign_read_as_numbers() {
    for v in [
        "170141183460469231731687303715884105727",
        "170141183460469231731687303715884105728",
        "0x80000000000000000000000000000000",
        "99999999999999999999999999999999999999999999999999999999999999999",
    ] {
        let (msg, col) = first_error(&std::format!("matmul num_active_rows={v}"));
        assert!(msg.starts_with("value of field 'num_active_rows' is out of range"), "{v}: {msg}");
        assert_eq!(col, 24, "{v}");
        let (msg, _) = first_error(&std::format!("matmul src_mem_pattern.step_elem=[-{v},0,0]"));
        assert!(msg.contains("is out of range"), "-{v}: {msg}");
    }
    let r = assemble_line(Arch::Cayman, "matmul num_active_rows=+5", 1).unwrap().unwrap();
    let s = assemble_line(Arch::Cayman, "matmul num_active_rows=5", 1).unwrap().unwrap();
    assert_eq!(r, s);
    assert!(first_error("matmul num_active_rows=+-5").0.contains("takes an unsigned integer"));
    let r = assemble_line(Arch::Cayman, "activate scale_value=fp32{0X3f800000}", 1).unwrap();
    let s = assemble_line(Arch::Cayman, "activate scale_value=fp32{1.0}", 1).unwrap();
    assert_eq!(r, s);
}

/// A decimal too large for an `f32` is out of range (it was taken as an infinity);
/// `inf`, `-inf` and the largest `f32` are not.
#[test]
fn an_f32_too_large_is_out_of_range() {
    let want = "value of field 'scale_value' is out of range \
                (an f32: a decimal up to ±3.4028235e38, inf, -inf or 0x bits)";
    assert_eq!(first_error("activate scale_value=fp32{1e40}"), (want.into(), 27));
    assert_eq!(first_error("activate scale_value=fp32{-3.5e38}"), (want.into(), 27));
    for ok in ["inf", "-inf", "3.4028235e38", "-0", "1e-50"] {
        let line = std::format!("activate scale_value=fp32{{{ok}}}");
        assert!(assemble_line(Arch::Cayman, &line, 1).is_ok(), "{line}");
    }
    let r = assemble_line(Arch::Cayman, "activate scale_value=fp32{-inf}", 1).unwrap().unwrap();
    assert_eq!(r[36..40], f32::NEG_INFINITY.to_bits().to_le_bytes());
}

/// An error inside a view of a plain type (`fp32{...}`) names the union field; it named
/// the view's unnamed leaf (`field ''`).
#[test]
fn an_error_in_a_plain_view_names_the_field() {
    assert_eq!(
        first_error("activate scale_value=fp32{abc}"),
        ("field 'scale_value' takes a number or 0x bits".into(), 27)
    );
    assert_eq!(
        first_error("activate scale_value=fp32{0x1_0000_0000}").0,
        "value of field 'scale_value' is out of range (0..=0xffffffff)"
    );
}

/// A record of a named opcode whose sub-opcode no binding reads (PSEUDO_INST 0xDF with
/// sub-opcode 7, EXTENDED_INST 0xF0 with 3) prints as that opcode, never as unknown,
/// and reads back to its bytes; a sub-opcode a binding reads keeps its own mnemonic.
#[test]
fn a_sub_opcode_no_binding_reads_prints_as_its_opcode() {
    for (op, sub, mnemonic) in [(0xDF, 7, "pseudo_inst"), (0xF0, 3, "extended_inst")] {
        let mut r = [0u8; RECORD_SIZE];
        (r[0], r[1], r[12]) = (op, 16, sub);
        assert!(matches!(Inst::decode(Arch::Cayman, &r), Inst::Opaque(_)));
        let mut line = std::string::String::new();
        write_record(&mut line, Arch::Cayman, &r).unwrap();
        let want = std::format!("{mnemonic} header.inst_word_len=16 payload={sub:02x}");
        assert!(line.starts_with(&want), "{line}");
        assert_eq!(assemble_line(Arch::Cayman, &line, 1), Ok(Some(r)), "{line}");
    }
    let mut r = [0u8; RECORD_SIZE];
    (r[0], r[12]) = (0xDF, 1);
    let mut line = std::string::String::new();
    write_record(&mut line, Arch::Cayman, &r).unwrap();
    assert_eq!(line, "pseudo_exit_execution");
}
