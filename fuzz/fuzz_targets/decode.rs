//! Fuzz the record decoder: `Inst::decode` and every arm's explicit decode/encode are lossless.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tpb_isa::arms::*;
use tpb_isa::{ArmKind, Inst, RECORD_SIZE};

/// Every arm's explicit decode → encode, and the borrowed view's decode.
macro_rules! arms {
    ($b:expr; $($t:ident),* $(,)?) => {{
        let mut seen = 0;
        $(
            let x = $t::decode($b);
            assert_eq!(x.encode(), *$b, "{}", $t::NAME);
            assert_eq!($t::view($b).decode(), x, "{}", $t::NAME);
            seen += 1;
        )*
        seen
    }};
}

fuzz_target!(|data: &[u8]| {
    let _ = Inst::decode_slice(data);
    let Some(b) = data.first_chunk::<RECORD_SIZE>() else { return };
    let inst = Inst::decode(b);
    assert_eq!(inst.encode(), *b);
    assert_eq!(inst.opcode(), b[0]);
    let n = arms!(b; CtrlAl, DmaDirect2d, PseudoExitExecution, PseudoFunctionBegin, PseudoFunctionCall, PseudoLibraryReloadIndex, S3d3Ts);
    assert_eq!(n, ArmKind::ALL.len(), "an arm was added: list it in fuzz/fuzz_targets/decode.rs");
});
