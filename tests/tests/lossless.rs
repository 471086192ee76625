//! Property tests: decoding never loses a byte, on any generation, through `Inst` and
//! through every arm read explicitly (nor does a trip through serde), and the stream
//! walkers agree with plain reference definitions on arbitrary input.
//!
//! Generic over `ArmKind::ALL`, `BINDINGS` and `Arch::ALL`: an arm added to the spec is
//! covered with no change here.

use proptest::prelude::*;
use tpb_isa::inst::{binding_on, dispatch_on, BINDINGS};
use tpb_isa::stream;
use tpb_isa::{Arch, ArmKind, Inst, Opcode, StreamError, RECORD_SIZE};

/// The reference scan of `ib_has_pseudo_exit`: every +64 offset below the length, with
/// byte 0 == 0xDF and byte 12 == 1, bounds-checked.
fn naive_has_pseudo_exit(b: &[u8]) -> bool {
    (0..b.len()).step_by(RECORD_SIZE).any(|i| b[i] == 0xDF && b.get(i + 12) == Some(&1))
}

fn record() -> impl Strategy<Value = [u8; RECORD_SIZE]> {
    proptest::collection::vec(any::<u8>(), RECORD_SIZE)
        .prop_map(|v| <[u8; RECORD_SIZE]>::try_from(v).expect("64 bytes"))
}

/// A record that selects a bound arm: opcode and sub-opcode drawn from the bindings.
fn bound_record() -> impl Strategy<Value = [u8; RECORD_SIZE]> {
    (record(), 0..BINDINGS.len()).prop_map(|(mut r, i)| {
        let b = &BINDINGS[i];
        r[0] = b.opcode;
        if let Some(s) = b.sub {
            r[s.offset] = s.value;
        }
        r
    })
}

fn any_record() -> impl Strategy<Value = [u8; RECORD_SIZE]> {
    prop_oneof![record(), bound_record()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_record_decodes_and_reencodes_on_every_generation(b in any_record()) {
        for &arch in Arch::ALL {
            let inst = Inst::decode(arch, &b);
            prop_assert_eq!(inst.encode(), b, "{}", arch);
            prop_assert_eq!(inst.opcode(), Opcode(b[0]));
            prop_assert_eq!(inst.kind(), dispatch_on(arch, &b));
            // Unknown exactly when no binding selects an arm and the table names no
            // opcode (a binding may read a value the table does not name).
            prop_assert_eq!(inst.is_unknown(), dispatch_on(arch, &b).is_none() && !Opcode(b[0]).is_known());
            prop_assert_eq!(Inst::decode_slice(arch, &b), Ok(inst));
        }
    }

    #[test]
    fn every_arm_read_explicitly_is_lossless(b in record()) {
        for &kind in ArmKind::ALL {
            for &arch in Arch::ALL {
                let inst = Inst::decode_as(kind, arch, &b);
                prop_assert_eq!(inst.kind(), Some(kind));
                prop_assert_eq!(inst.encode(), b, "{} on {}", kind.name(), arch);
            }
        }
    }

    #[test]
    fn any_record_round_trips_through_serde_json(b in any_record()) {
        for &arch in Arch::ALL {
            let inst = Inst::decode(arch, &b);
            let json = serde_json::to_string(&inst).unwrap();
            prop_assert_eq!(serde_json::from_str::<Inst>(&json).unwrap(), inst, "{}", json);
        }
    }

    #[test]
    fn every_arm_round_trips_through_serde_json(b in record()) {
        for &kind in ArmKind::ALL {
            let inst = Inst::decode_as(kind, Arch::ALL[b[1] as usize % Arch::ALL.len()], &b);
            let json = serde_json::to_string(&inst).unwrap();
            prop_assert_eq!(serde_json::from_str::<Inst>(&json).unwrap(), inst, "{}", json);
        }
    }

    #[test]
    fn any_stream_decodes_to_whole_records_then_the_partial(
        bytes in proptest::collection::vec(any::<u8>(), 0..700),
    ) {
        let whole = bytes.len() / RECORD_SIZE;
        let tail = bytes.len() % RECORD_SIZE;
        for &arch in Arch::ALL {
            let items: Vec<_> = stream::decode_all(arch, &bytes).collect();
            prop_assert_eq!(items.len(), whole + usize::from(tail != 0));
            for (i, item) in items.iter().enumerate().take(whole) {
                let (off, inst) = item.as_ref().expect("a whole record");
                prop_assert_eq!(*off, i * RECORD_SIZE);
                prop_assert_eq!(&inst.encode()[..], &bytes[*off..*off + RECORD_SIZE]);
            }
            if tail != 0 {
                let want = StreamError::TrailingPartial { offset: whole * RECORD_SIZE, len: tail };
                prop_assert_eq!(items[whole].as_ref().err(), Some(&want));
            }
        }
        let mut it = stream::records(&bytes);
        it.by_ref().for_each(drop);
        prop_assert!(it.next().is_none());
    }

    #[test]
    fn has_pseudo_exit_agrees_with_the_naive_scan(
        mut bytes in proptest::collection::vec(any::<u8>(), 0..700),
        plant in proptest::collection::vec((0usize..11, 0u8..3), 0..3),
    ) {
        // Plant 0xDF records (EXIT, LIBRARY_RELOAD_INDEX, other) so both answers occur often.
        for (k, sub) in plant {
            let i = k * RECORD_SIZE;
            if i < bytes.len() {
                bytes[i] = 0xDF;
                if let Some(b) = bytes.get_mut(i + 12) {
                    *b = sub;
                }
            }
        }
        prop_assert_eq!(stream::has_pseudo_exit(&bytes), naive_has_pseudo_exit(&bytes));
    }
}

/// A binding selects its arm on the generations of its `@archs`; on a generation where
/// its opcode exists and it does not (CUSTOM_OP_HEADER's struct is sunda's; cayman keeps
/// the value), the record is a named opcode without a layout: `Inst::Opaque`, printed
/// and assembled in the opaque form under the binding's mnemonic.
#[test]
fn every_binding_dispatches_to_its_arm_on_the_generations_of_its_opcode() {
    let mut errors = Vec::new();
    let mut opaque = 0;
    for b in BINDINGS {
        let mut r = [0x5Au8; RECORD_SIZE];
        r[0] = b.opcode;
        if let Some(s) = b.sub {
            r[s.offset] = s.value;
        }
        for arch in Arch::ALL.iter().copied().filter(|&a| Opcode(b.opcode).available_on(a)) {
            let inst = Inst::decode(arch, &r);
            let want = if binding_on(arch, &r) { Some(b.arm) } else { None };
            if inst.kind() != want || inst.encode() != r {
                errors.push(format!("{} on {arch}: {:?}", b.mnemonic, inst.kind()));
            }
            if want.is_none() {
                opaque += 1;
                let text = inst.text(arch).to_string();
                if !matches!(inst, Inst::Opaque(_)) || !text.starts_with(b.mnemonic) {
                    errors.push(format!("{} on {arch}: {text}", b.mnemonic));
                }
                if Inst::parse(arch, &text) != Ok(inst) {
                    errors.push(format!("{} on {arch}: '{text}' does not read back", b.mnemonic));
                }
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // CUSTOM_OP_HEADER and CUSTOM_OP_PAYLOAD on cayman, mariana and maverick at least.
    assert!(opaque >= 6, "{opaque} bindings narrower than their opcode");
}

#[test]
fn dispatch_names_the_arm_decode_builds_for_every_opcode_and_sub_byte() {
    // `dispatch` reads a table built from the bindings; `Inst::decode` matches on the
    // bytes itself. Every opcode value, and every value of each sub-opcode byte.
    let mut bytes: Vec<usize> = BINDINGS.iter().filter_map(|b| b.sub.map(|s| s.offset)).collect();
    bytes.push(0);
    bytes.sort_unstable();
    bytes.dedup();
    for op in 0..=u8::MAX {
        for &at in &bytes {
            for v in 0..=u8::MAX {
                let mut r = [0xA5u8; RECORD_SIZE];
                r[at] = v;
                r[0] = op;
                for &arch in Arch::ALL {
                    assert_eq!(
                        dispatch_on(arch, &r),
                        Inst::decode(arch, &r).kind(),
                        "{op:#x}, +{at} = {v}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_opcode_value_is_named_opaque_or_unknown() {
    for v in 0..=u8::MAX {
        let mut r = [0u8; RECORD_SIZE];
        r[0] = v;
        for &arch in Arch::ALL {
            let inst = Inst::decode(arch, &r);
            match inst {
                Inst::Unknown(raw) => assert!(!Opcode(v).is_known() && raw.0 == r, "{v:#x}"),
                Inst::Opaque(raw) => assert!(Opcode(v).is_known() && raw.0 == r, "{v:#x}"),
                _ => assert!(inst.kind().is_some_and(|k| k.opcodes().contains(&v)), "{v:#x}"),
            }
        }
    }
}

#[test]
fn a_decoded_record_serializes_by_arm_and_field() {
    // PSEUDO_FUNCTION_CALL is the seed's worked example: 0xD3, function_name at +12,
    // args_table_var_id at +48.
    let mut b = [0u8; RECORD_SIZE];
    b[0] = 0xD3;
    b[12..16].copy_from_slice(b"main");
    b[48] = 7;
    let v = serde_json::to_value(Inst::decode(Arch::Cayman, &b)).unwrap();
    let call = &v["PseudoFunctionCall"];
    assert_eq!(call["header"]["opcode"], "PSEUDO_FUNCTION_CALL", "{v}");
    assert_eq!(call["header"]["debug_cmd"], "NONE");
    assert_eq!(call["args_table_var_id"], 7);
    assert_eq!(call["function_name"].as_array().unwrap().len(), 36);
    assert_eq!(call["function_name"][0], i64::from(b'm'));
}

/// An enum value serializes by its spec name in a human-readable format and as its
/// integer where the spec names none or the format is binary; either reads back, and a
/// name the spec does not give, or an integer wider than the enum, does not.
#[test]
fn enums_serialize_by_value_name() {
    use serde_test::{assert_de_tokens, assert_tokens, Configure, Token};
    use tpb_isa::generated::opcode::Dtype;
    use tpb_isa::Opcode;
    assert_tokens(&Dtype::FP16.readable(), &[Token::Str("FP16")]);
    assert_tokens(&Dtype::FP16.compact(), &[Token::U8(7)]);
    assert_tokens(&Dtype(0xEE).readable(), &[Token::U8(0xEE)]);
    assert_tokens(&Opcode::MATMUL.readable(), &[Token::Str("MATMUL")]);
    assert_de_tokens(&Dtype::FP16.readable(), &[Token::U64(7)]);
    assert_eq!(serde_json::to_string(&Dtype::BFLOAT16).unwrap(), "\"BFLOAT16\"");
    assert_eq!(serde_json::from_str::<Dtype>("6").unwrap(), Dtype::BFLOAT16);
    let err = serde_json::from_str::<Dtype>("\"FP17\"").unwrap_err().to_string();
    assert!(err.contains("FP17") && err.contains("DTYPE"), "{err}");
    let err = serde_json::from_str::<Dtype>("256").unwrap_err().to_string();
    assert!(err.contains("256") && err.contains("DTYPE"), "{err}");
    assert!(serde_json::from_str::<Dtype>("-1").is_err());
}

/// A name that is no generation's says what was given and what is taken: names, labels
/// and aliases, the same for `Arch` and `Geometry`; the name given is kept (cut at 32
/// bytes, on a character's boundary) and shown with control characters escaped.
#[test]
fn an_unknown_generation_lists_names_labels_and_aliases() {
    use tpb_isa::{Arch, Geometry, GeometryError};
    let err = "x".parse::<Arch>().unwrap_err();
    assert_eq!(err.given(), "x");
    let e = err.to_string();
    assert!(e.starts_with("unknown generation 'x': expected a name, label or alias ("), "{e}");
    for want in ["(sunda, V2, trn1", "; cayman, V3, trn2", "; mariana, V4, trn3", "; maverick, V5"]
    {
        assert!(e.contains(want), "{want}: {e}");
    }
    assert_eq!("x".parse::<Geometry>().unwrap_err().to_string(), e);
    assert!(matches!("x".parse::<Geometry>(), Err(GeometryError::UnknownName(u)) if u == err));
    let long = format!("{}é", "a".repeat(31));
    assert_eq!(long.parse::<Arch>().unwrap_err().given(), "a".repeat(31));
    let shown = long.parse::<Arch>().unwrap_err().to_string();
    assert!(shown.starts_with(&format!("unknown generation '{}…':", "a".repeat(31))), "{shown}");
    let shown = "tr\u{1b}[2Jn2".parse::<Arch>().unwrap_err().to_string();
    assert!(shown.starts_with("unknown generation 'tr\\x1b[2Jn2':"), "{shown}");
}

/// `aliases()` are the other names a generation is known by (cloud instance families),
/// never its name or label, for every generation alike (maverick has none).
#[test]
fn aliases_are_other_names_than_the_name_and_label() {
    use tpb_isa::Arch;
    for &a in Arch::ALL {
        for alias in a.aliases() {
            assert!(
                !alias.eq_ignore_ascii_case(a.name()) && !alias.eq_ignore_ascii_case(a.label()),
                "{a}: {alias}"
            );
            assert_eq!(alias.parse::<Arch>(), Ok(a));
        }
        assert_eq!(a.label().parse::<Arch>(), Ok(a));
    }
    assert_eq!(Arch::Cayman.aliases(), ["trn2"]);
}

/// A generation serializes by its name, as the spec, `Display` and `tpb` spell it, and
/// reads back from any name, label or alias; a geometry no source gives does not read.
#[test]
fn arch_and_geometry_serialize_by_name() {
    use tpb_isa::{Arch, Geometry};
    assert_eq!(serde_json::to_string(&Arch::Cayman).unwrap(), "\"cayman\"");
    for name in ["cayman", "V3", "trn2", "TRN2"] {
        let a: Arch = serde_json::from_str(&format!("\"{name}\"")).unwrap();
        assert_eq!(a, Arch::Cayman, "{name}");
    }
    assert!(serde_json::from_str::<Arch>("\"Cayman3\"").is_err());
    let g = Geometry::try_from(Arch::Mariana).unwrap();
    assert_eq!(serde_json::to_string(&g).unwrap(), "\"mariana\"");
    assert_eq!(serde_json::from_str::<Geometry>("\"V4\"").unwrap(), g);
    let e = serde_json::from_str::<Geometry>("\"maverick\"").unwrap_err().to_string();
    assert!(e.contains("no source gives the geometry of maverick"), "{e}");
}

#[test]
fn a_single_layout_view_is_made_as_a_per_generation_one() {
    use tpb_isa::{S3d3MmRef, S3s3d3TtRef};
    let mut b = [0u8; tpb_isa::RECORD_SIZE];
    b.iter_mut().enumerate().for_each(|(i, x)| *x = i as u8);
    for &arch in Arch::ALL {
        // Both read alike: `Ref::new(arch, bytes)`, whether the layout differs or not.
        assert_eq!(S3s3d3TtRef::new(arch, &b), S3s3d3TtRef(&b));
        assert_eq!(S3s3d3TtRef::new(arch, &b).bytes(), &b);
        let _ = S3d3MmRef::new(arch, &b);
    }
}

/// A bit-field setter keeps the low bits of a value wider than its field, as its docs
/// say, and leaves every other bit of the operand as it was.
#[test]
fn a_bit_field_setter_drops_the_bits_past_its_field() {
    use tpb_isa::{Addr4, DmaGatherTransposeFlags, IndirectDim};

    let a = Addr4::new(0xFFFF_FFFF).with_quadrant(0x1F);
    assert_eq!(a.quadrant(), 0xF);
    assert_eq!(a.bits(), 0xFFFF_FFFF);
    let a = Addr4::new(0).with_quadrant(0x12);
    assert_eq!((a.quadrant(), a.bits()), (0x2, 0x2 << 25));
    let a = Addr4::new(0xE000_0000).with_immediate(u32::MAX);
    assert_eq!((a.immediate(), a.bits()), (0x1FFF_FFFF, u32::MAX));
    let f = DmaGatherTransposeFlags::new(0).with_gather_dim(IndirectDim(0xFE));
    assert_eq!((f.gather_dim(), f.bits()), (IndirectDim(0x2), 0x2));
}

/// A view reads any record as its arm, as its docs say: the opcode is not checked, and
/// `dispatch_on` is what tells the arm.
#[test]
fn a_view_reads_any_record_and_dispatch_tells_the_arm() {
    use tpb_isa::{S3d3Mm, S3d3MmRef};

    let matmul = BINDINGS.iter().find(|b| b.mnemonic == "matmul").expect("a matmul binding");
    let mut inst = Inst::decode(Arch::Cayman, &matmul.record());
    let Inst::S3d3Mm(S3d3Mm::Cayman(m)) = &mut inst else { panic!("{inst:?}") };
    m.num_active_rows = 77;
    let mut b = inst.encode();
    b[0] = Opcode::LDWEIGHTS.0;
    assert_eq!(dispatch_on(Arch::Cayman, &b), Some(ArmKind::S3Lw));
    let S3d3MmRef::Cayman(v) = S3d3MmRef::new(Arch::Cayman, &b) else { panic!("{b:?}") };
    assert_eq!(v.num_active_rows(), 77);
}
