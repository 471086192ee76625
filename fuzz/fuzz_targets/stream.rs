//! Fuzz the stream walker: `records`, `decode_all`, `has_pseudo_exit` and
//! `final_inst_validity_check` never panic, and agree with plain reference definitions.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tpb_isa::stream;
use tpb_isa::{Arch, StreamError, TpbEngType, RECORD_SIZE};

fuzz_target!(|data: &[u8]| {
    let mut next = 0;
    let mut partial = false;
    for item in stream::records(data) {
        assert!(!partial, "nothing after the trailing partial record");
        match item {
            Ok((off, r)) => {
                assert_eq!(off, next);
                assert_eq!(&data[off..off + RECORD_SIZE], r);
                next += RECORD_SIZE;
            }
            Err(StreamError::TrailingPartial { offset, len }) => {
                assert_eq!((offset, len), (next, data.len() - next));
                assert!((1..RECORD_SIZE).contains(&len));
                partial = true;
            }
            Err(e) => panic!("unexpected {e:?}"),
        }
    }
    assert_eq!(partial, data.len() % RECORD_SIZE != 0);
    let naive = (0..data.len())
        .step_by(RECORD_SIZE)
        .any(|i| data[i] == 0xDF && data.get(i + 12) == Some(&1));
    assert_eq!(stream::has_pseudo_exit(data), naive);
    for &arch in Arch::ALL {
        let decoded: Vec<_> = stream::decode_all(arch, data).collect();
        assert_eq!(decoded.len(), stream::records(data).len());
        for item in decoded.iter().filter_map(|i| i.as_ref().ok()) {
            let (off, inst) = item;
            assert_eq!(&data[*off..*off + RECORD_SIZE], &inst.encode());
        }
        for &engine in TpbEngType::known() {
            let _ = stream::final_inst_validity_check(arch, engine, data);
        }
    }
});
