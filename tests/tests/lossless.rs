//! Property tests: decoding never loses a byte (nor does a trip through serde), and the
//! stream walkers agree with plain reference definitions on arbitrary input.

use proptest::prelude::*;
use tpb_isa::arms::*;
use tpb_isa::stream;
use tpb_isa::{ArmKind, Inst, StreamError, RECORD_SIZE};

/// The reference scan of `ib_has_pseudo_exit`: every +64 offset below the length, with
/// byte 0 == 0xDF and byte 12 == 1, bounds-checked.
fn naive_has_pseudo_exit(b: &[u8]) -> bool {
    (0..b.len()).step_by(RECORD_SIZE).any(|i| b[i] == 0xDF && b.get(i + 12) == Some(&1))
}

fn record() -> impl Strategy<Value = [u8; RECORD_SIZE]> {
    proptest::array::uniform32(any::<u8>()).prop_flat_map(|a| {
        proptest::array::uniform32(any::<u8>()).prop_map(move |b| {
            let mut r = [0u8; RECORD_SIZE];
            r[..32].copy_from_slice(&a);
            r[32..].copy_from_slice(&b);
            r
        })
    })
}

/// A record that often selects a bound arm: opcode and sub-opcode drawn from the bindings.
fn bound_record() -> impl Strategy<Value = [u8; RECORD_SIZE]> {
    (record(), 0..tpb_isa::inst::BINDINGS.len()).prop_map(|(mut r, i)| {
        let b = &tpb_isa::inst::BINDINGS[i];
        r[0] = b.opcode;
        if let Some(s) = b.sub {
            r[s.offset] = s.value;
        }
        r
    })
}

macro_rules! every_arm {
    ($b:expr; $($t:ident),* $(,)?) => {{
        let mut n = 0;
        $(
            let x = $t::decode($b);
            prop_assert_eq!(x.encode(), *$b, "{}", $t::NAME);
            prop_assert_eq!($t::view($b).decode(), x);
            n += 1;
        )*
        n
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn any_record_round_trips_through_serde_json(b in prop_oneof![record(), bound_record()]) {
        let inst = Inst::decode(&b);
        let json = serde_json::to_string(&inst).unwrap();
        prop_assert_eq!(serde_json::from_str::<Inst>(&json).unwrap(), inst, "{}", json);
        macro_rules! arms_json {
            ($($t:ident),*) => {{
                let mut n = 0;
                $(
                    let x = $t::decode(&b);
                    let back: $t = serde_json::from_str(&serde_json::to_string(&x).unwrap()).unwrap();
                    prop_assert_eq!(back, x, "{}", $t::NAME);
                    n += 1;
                )*
                n
            }};
        }
        let n = arms_json!(CtrlAl, DmaDirect2d, PseudoExitExecution, PseudoFunctionBegin, PseudoFunctionCall, PseudoLibraryReloadIndex, S3d3Ts);
        prop_assert_eq!(n, ArmKind::ALL.len(), "an arm was added: list it here");
    }

    #[test]
    fn any_record_decodes_and_reencodes(b in prop_oneof![record(), bound_record()]) {
        let inst = Inst::decode(&b);
        prop_assert_eq!(inst.encode(), b);
        prop_assert_eq!(inst.opcode(), b[0]);
        prop_assert_eq!(inst.arm(), tpb_isa::inst::dispatch(&b));
    }

    #[test]
    fn every_arm_decode_encode_is_the_identity(b in record()) {
        let n = every_arm!(&b; CtrlAl, DmaDirect2d, PseudoExitExecution, PseudoFunctionBegin,
            PseudoFunctionCall, PseudoLibraryReloadIndex, S3d3Ts);
        prop_assert_eq!(n, ArmKind::ALL.len(), "an arm was added: list it here");
    }

    #[test]
    fn any_stream_yields_whole_records_then_the_partial(bytes in proptest::collection::vec(any::<u8>(), 0..700)) {
        let items: Vec<_> = stream::records(&bytes).collect();
        let whole = bytes.len() / RECORD_SIZE;
        let tail = bytes.len() % RECORD_SIZE;
        prop_assert_eq!(items.len(), whole + usize::from(tail != 0));
        for (i, item) in items.iter().enumerate().take(whole) {
            let (off, r) = item.expect("a whole record");
            prop_assert_eq!(off, i * RECORD_SIZE);
            prop_assert_eq!(&r[..], &bytes[off..off + RECORD_SIZE]);
        }
        if tail != 0 {
            prop_assert_eq!(items[whole], Err(StreamError::TrailingPartial { offset: whole * RECORD_SIZE, len: tail }));
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

#[test]
fn a_decoded_record_serializes_by_arm_and_field() {
    let mut b = [0u8; RECORD_SIZE];
    b[0] = 0xD3;
    b[12..16].copy_from_slice(b"main");
    b[48] = 7;
    let v = serde_json::to_value(Inst::decode(&b)).unwrap();
    let call = &v["PseudoFunctionCall"];
    assert_eq!(call["header"]["opcode"], 0xD3);
    assert_eq!(call["args_table_var_id"], 7);
    assert_eq!(call["function_name"].as_array().unwrap().len(), 36);
    assert_eq!(call["function_name"][0], i64::from(b'm'));
}
