//! Each gotcha the seeds call out, checked through the public API of the generated
//! crate, with the numbers taken from the seeds (not from the spec).

use tpb_isa::address::{read, write, IbAddrMap, SegmentId, SliceDmem};
use tpb_isa::stream::{has_pseudo_exit, records};
use tpb_isa::{Arch, ArmKind, Geometry, GeometryError, Inst, Opcode, PseudoOpcode, StreamError};

fn record(opcode: u8, byte12: u8) -> [u8; 64] {
    let mut r = [0u8; 64];
    r[0] = opcode;
    r[12] = byte12;
    r
}

/// Seed 000 §1 GOTCHA: inst_word_len (byte +1) is not the stream stride.
#[test]
fn the_stride_is_64_whatever_inst_word_len_says() {
    let mut stream = Vec::new();
    for len in [1u8, 8, 0xFF] {
        let mut r = record(0xD3, 0);
        r[1] = len;
        stream.extend_from_slice(&r);
    }
    let offsets: Vec<usize> = records(&stream).map(|r| r.unwrap().0).collect();
    assert_eq!(offsets, [0, 64, 128]);
}

/// Seed 000 §5 GOTCHA: the EXIT sentinel is byte[0] == 0xDF AND byte[12] == 1.
#[test]
fn pseudo_inst_with_sub_opcode_2_is_not_exit() {
    let reload = record(0xDF, 2);
    let exit = record(0xDF, 1);
    assert!(!has_pseudo_exit(&reload));
    assert!(has_pseudo_exit(&[reload, exit].concat()));
    assert_eq!(PseudoOpcode(1), PseudoOpcode::PSEUDO_EXIT_EXECUTION);
    assert_eq!(PseudoOpcode(2), PseudoOpcode::PSEUDO_LIBRARY_RELOAD_INDEX);
    for &arch in Arch::ALL {
        assert_eq!(Inst::decode(arch, &reload).kind(), Some(ArmKind::PseudoLibraryReloadIndex));
        assert_eq!(Inst::decode(arch, &exit).kind(), Some(ArmKind::PseudoExitExecution));
        // An unbound sub-opcode of a named opcode is data, not an error: kept verbatim.
        let other = record(0xDF, 7);
        assert!(matches!(Inst::decode(arch, &other), Inst::Opaque(_)), "{arch}");
        assert_eq!(Inst::decode(arch, &other).encode(), other);
    }
}

/// Seed 000 §2 CORRECTION (ISA-IR-2): JPEG_DECODE is 0x81, 0xFF is INVALID.
#[test]
fn jpeg_decode_is_0x81_and_0xff_is_invalid() {
    assert_eq!(Opcode(0x81), Opcode::JPEG_DECODE);
    assert_eq!(Opcode(0xD7), Opcode::PSEUDO_JPEG_DECODE);
    assert_eq!(Opcode(0xFF), Opcode::INVALID);
    assert_eq!(Opcode::INVALID.name(), Some("INVALID"));
    assert_eq!(Opcode::from_name("JPEG_DECODE"), Some(Opcode(0x81)));
    assert!(Opcode::PSEUDO_JPEG_DECODE.is_pseudo());
    assert!(!Opcode::JPEG_DECODE.is_pseudo());
}

#[test]
fn a_trailing_partial_record_is_a_typed_error_with_its_offset() {
    let stream = [0u8; 64 * 2 + 5];
    let last = records(&stream).last().unwrap();
    assert_eq!(last, Err(StreamError::TrailingPartial { offset: 128, len: 5 }));
}

/// Seed 000 §4: a record straddling a segment boundary is copied in two chunks.
#[test]
fn a_record_straddling_a_segment_boundary_is_copied_in_two_chunks() {
    // Segments of 96, 64 and 64 bytes: record 1 (bytes 64..128) straddles 96.
    let map = IbAddrMap::contiguous(96, 64, 64);
    let chunks: Vec<_> = map.chunks(64, 64).map(Result::unwrap).collect();
    assert_eq!(chunks.len(), 2);
    assert_eq!((chunks[0].segment, chunks[0].offset), (SegmentId::One, 64));
    assert_eq!((chunks[1].segment, chunks[1].offset), (SegmentId::ModelSwitch, 0));

    let (mut a, mut b, mut c) = ([0u8; 96], [0u8; 64], [0u8; 64]);
    let mut dmem = SliceDmem::new(&mut a, &mut b, &mut c);
    let rec: Vec<u8> = (0..64).collect();
    write(&map, &mut dmem, 64, &rec).unwrap();
    let mut back = [0u8; 64];
    read(&map, &mut dmem, 64, &mut back).unwrap();
    assert_eq!(back.as_slice(), rec.as_slice());
    assert_eq!(&dmem.segment(SegmentId::One)[64..96], &rec[..32]);
    assert_eq!(&dmem.segment(SegmentId::ModelSwitch)[..32], &rec[32..]);
}

/// Seed 004: the geometry dimension table and its derivations.
#[test]
fn geometry_matches_the_seed() {
    use Geometry::*;
    for (arch, tpb, seng, per_seng, per_hbm, top_sp, dma, hbm) in [
        (Sunda, 2, 2, 1, 1, 6, 34, 2),
        (Cayman, 8, 4, 2, 2, 16, 132, 4),
        (Mariana, 8, 4, 2, 2, 16, 132, 4),
    ] {
        assert_eq!(arch.num_tpb(), tpb, "{arch}");
        assert_eq!(arch.num_seng(), seng, "{arch}");
        assert_eq!(arch.num_tpb_per_seng(), per_seng, "{arch}");
        assert_eq!(arch.num_tpb_per_hbm(), per_hbm, "{arch}");
        assert_eq!(arch.num_top_sp(), top_sp, "{arch}");
        assert_eq!(arch.num_dma_per_tpb(), 16, "{arch}");
        assert_eq!(arch.num_dma_engines(), dma, "{arch}");
        assert_eq!(arch.num_hbms(), hbm, "{arch}");
    }
    // Off-TPB host engines: 32/33 on V2, 128..131 on V3/V4.
    assert_eq!((Sunda.top_dma_first(), Sunda.top_dma_last()), (32, 33));
    assert_eq!((Cayman.top_dma_first(), Cayman.top_dma_last()), (128, 131));
    // The V4 HBM bump, the only hardware value change cayman → mariana.
    assert_eq!(Cayman.hbm_active_size(), 0x6_0000_0000);
    assert_eq!(Mariana.hbm_active_size(), 0x9_0000_0000);
    assert_eq!(Cayman.hbm_stack_window(), Some(0x10_0000_0000));
    assert_eq!(Mariana.hbm_stack_window(), Some(0x10_0000_0000));
    assert_eq!(Sunda.sbuf_window(), 0x200_0000);
    // hbm_index: identity on sunda, idx/2 on the big chips; the guard is an error.
    assert_eq!(Sunda.hbm_index(1), Ok(1));
    assert_eq!(Cayman.hbm_index(7), Ok(3));
    assert!(matches!(
        Cayman.hbm_index(8),
        Err(GeometryError::OutOfRange { rule: "hbm_index", .. })
    ));
    assert!(matches!(Sunda.hbm_index(2), Err(GeometryError::OutOfRange { .. })));
    // The message names the generation (whose num_tpb the guard reads) and the
    // parameters given, no unused slot, and the guard as computed (the bound it read).
    assert_eq!(
        Cayman.hbm_index(8).unwrap_err().to_string(),
        "hbm_index on cayman: requires tpb_idx < num_tpb; 8 < 8 fails (tpb_idx = 8)"
    );
    assert_eq!(
        Cayman.dma_engine_id(700, 15).unwrap_err().to_string().split(" (").nth(1),
        Some("tpb_idx = 700, local = 15)")
    );
    assert_eq!(Cayman.seng_pair(5), Ok(2));
    assert_eq!(Cayman.pcie_half(5), Ok(1));
    assert_eq!(Cayman.tpb_parity(5), Ok(1));
    assert_eq!(Cayman.dma_engine_id(7, 15), Ok(127));
    // Die flip: XOR 0x6, 0->6, 1->7, 2->4, 3->5; no mask on sunda.
    let flipped: Vec<u32> = (0..8).map(|i| Cayman.die_flip(i).unwrap()).collect();
    assert_eq!(flipped, [6, 7, 4, 5, 2, 3, 0, 1]);
    assert_eq!(
        Sunda.die_flip(0),
        Err(GeometryError::Unknown { item: "die_flip", arch: Arch::Sunda })
    );
    // nx-core-type LUT: cayman {10,7,9,8,11}; the others are not decoded.
    assert_eq!(Cayman.nx_core_type(), [Some(10), Some(7), Some(9), Some(8), Some(11)]);
    assert_eq!(Sunda.nx_core_type(), [None; 5]);
    assert_eq!(Cayman.npe_neighbor_eng_ids(), Some([[36, 68], [4, 100]]));
    assert_eq!(Mariana.npe_neighbor_eng_ids(), Some([[40, 72], [8, 104]]));
    // Aliases.
    for (s, a) in [
        ("V2", Sunda),
        ("trn1", Sunda),
        ("inf2", Sunda),
        ("trn2", Cayman),
        ("V4", Mariana),
        ("TRN3", Mariana),
    ] {
        assert_eq!(s.parse::<Arch>(), Ok(a.arch()), "{s}");
        assert_eq!(s.parse::<Geometry>(), Ok(a), "{s}");
    }
    assert_eq!(Arch::Mariana.inherits(), Some(Arch::Cayman));
    // The fourth generation's ISA is known, its geometry is not: the API says so.
    assert_eq!(Arch::Maverick.geometry(), None);
    assert_eq!(
        "maverick".parse::<Geometry>(),
        Err(GeometryError::UnknownGeometry { arch: Arch::Maverick })
    );
}
