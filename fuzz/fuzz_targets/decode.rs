//! Fuzz the record decoder on every generation: `Inst::decode` and every arm's explicit
//! decode (`Inst::decode_as` over `ArmKind::ALL`) are lossless, and dispatch agrees.
//! Validation never panics, and a bad field it names lies inside the record. A decoded
//! value's text for any generation is its record's; for one of its own generations it
//! parses back to the value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tpb_isa::inst::dispatch_on;
use tpb_isa::validate::validate;
use tpb_isa::{Arch, ArmKind, Inst, Opcode, ValidateError, RECORD_SIZE};

fuzz_target!(|data: &[u8]| {
    for &arch in Arch::ALL {
        // A slice decodes only when it is exactly one record.
        let whole = Inst::decode_slice(arch, data);
        assert_eq!(whole.is_ok(), data.len() == RECORD_SIZE);
        if let Ok(inst) = whole {
            assert_eq!(inst.encode()[..], *data);
        }
    }
    let Some(b) = data.first_chunk::<RECORD_SIZE>() else { return };
    for &arch in Arch::ALL {
        let inst = Inst::decode(arch, b);
        assert_eq!(inst.encode(), *b);
        assert_eq!(inst.opcode(), Opcode(b[0]));
        assert_eq!(inst.kind(), dispatch_on(arch, b));
        for &to in Arch::ALL {
            let mut want = String::new();
            tpb_isa::disasm::write_record(&mut want, to, b).unwrap();
            assert_eq!(inst.text(to).to_string(), want, "decoded on {arch}, printed for {to}");
        }
        let own = inst.layout_archs().map_or(arch, |g| g[0]);
        assert_eq!(Inst::parse(own, &inst.text(own).to_string()), Ok(inst));
        if let Err(ValidateError::BadEnum { offset, .. }) = validate(arch, b) {
            assert!(offset < RECORD_SIZE);
        }
        for &kind in ArmKind::ALL {
            let x = Inst::decode_as(kind, arch, b);
            assert_eq!(x.kind(), Some(kind));
            assert_eq!(x.encode(), *b, "{} on {arch}", kind.name());
        }
    }
});
