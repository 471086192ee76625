//! Fuzz the record decoder on every generation: `Inst::decode` and every arm's explicit
//! decode (`Inst::decode_as` over `ArmKind::ALL`) are lossless, and dispatch agrees.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tpb_isa::inst::dispatch;
use tpb_isa::{Arch, ArmKind, Inst, Opcode, RECORD_SIZE};

fuzz_target!(|data: &[u8]| {
    let Some(b) = data.first_chunk::<RECORD_SIZE>() else {
        for arch in Arch::ALL {
            assert!(Inst::decode_slice(arch, data).is_err());
        }
        return;
    };
    for arch in Arch::ALL {
        let inst = Inst::decode(arch, b);
        assert_eq!(Inst::decode_slice(arch, data), Ok(inst));
        assert_eq!(inst.encode(), *b);
        assert_eq!(inst.opcode(), Opcode(b[0]));
        assert_eq!(inst.kind(), dispatch(b));
        for &kind in ArmKind::ALL {
            let x = Inst::decode_as(kind, arch, b);
            assert_eq!(x.kind(), Some(kind));
            assert_eq!(x.encode(), *b, "{} on {arch}", kind.name());
        }
    }
});
