//! Bench fixtures: the 64 MiB record streams, the comparator decoders and the measured kernels.
//!
//! Everything the criterion benches (`benches/`) and the `bench-report` binary time lives
//! here, so both time the same code. Each kernel takes a stream and returns a checksum
//! that the caller passes through `black_box`, so no kernel can be optimised away.
//!
//! The comparators decode the same arms as the generated crate, by other means:
//! hand-written `from_le_bytes` at the offsets ([`hand`]), zerocopy views ([`zc`]), deku
//! ([`dk`]) and binrw ([`bw`]). [`check_agreement`] proves each agrees with the generated
//! decoder byte for byte on the stream before anything is timed.
#![deny(unsafe_code)]

use std::hint::black_box;
use std::io::Cursor;

use tpb_isa::arms::{
    ArmKind, PseudoFunctionBeginRef, PseudoFunctionCallRef, PseudoLibraryReloadIndexRef,
};
use tpb_isa::inst::{dispatch, Inst, RECORD_SIZE};
use tpb_isa::stream;
use tpb_isa::validate::{opcode_valid, validate};
use tpb_isa::Arch;

pub mod neff;

/// Records in a bench stream: 64 MiB.
pub const RECORDS: usize = 1 << 20;

/// The seed every stream is drawn from.
pub const SEED: u64 = 0x7062_6973_6100_0007;

/// How the record layouts follow one another in a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Each record's layout drawn at random.
    Random,
    /// Runs of 1..=64 records of one layout, as real streams are.
    Runs,
}

impl Order {
    /// Both orders.
    pub const ALL: [Order; 2] = [Order::Random, Order::Runs];

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Order::Random => "random",
            Order::Runs => "runs",
        }
    }
}

/// splitmix64: a tiny, fixed, dependency-free generator, so streams are the same everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// The layouts a stream is drawn from: the bound arms (EXIT only as the last record, so
/// the EXIT scan walks the whole stream, as it does on a real program), an unbound
/// opcode, and PSEUDO_INST with an unbound sub-opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// 0xD1.
    FunctionBegin,
    /// 0xD3.
    FunctionCall,
    /// 0xDF, byte 12 == 2.
    LibraryReloadIndex,
    /// 0xDF, byte 12 == 1 (the stream's last record only).
    Exit,
    /// An opcode no binding selects.
    UnknownOpcode,
    /// 0xDF with byte 12 neither 1 nor 2.
    UnknownPseudo,
}

/// The layouts drawn at random (all but EXIT).
pub const DRAWN: [Layout; 5] = [
    Layout::FunctionBegin,
    Layout::FunctionCall,
    Layout::LibraryReloadIndex,
    Layout::UnknownOpcode,
    Layout::UnknownPseudo,
];

/// One random record of `layout`: random payload bytes, then the selecting bytes.
pub fn record(rng: &mut Rng, layout: Layout) -> [u8; RECORD_SIZE] {
    let mut r = [0u8; RECORD_SIZE];
    for chunk in r.chunks_exact_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    match layout {
        Layout::FunctionBegin => r[0] = 0xD1,
        Layout::FunctionCall => r[0] = 0xD3,
        Layout::LibraryReloadIndex => (r[0], r[12]) = (0xDF, 2),
        Layout::Exit => (r[0], r[12]) = (0xDF, 1),
        Layout::UnknownOpcode => {
            while matches!(r[0], 0xD1 | 0xD3 | 0xDF) {
                r[0] = rng.next_u64() as u8;
            }
        }
        Layout::UnknownPseudo => {
            r[0] = 0xDF;
            while matches!(r[12], 1 | 2) {
                r[12] = rng.next_u64() as u8;
            }
        }
    }
    r
}

/// A stream of `records` records in `order`, from [`SEED`]; the last record is EXIT.
pub fn make_stream(order: Order, records: usize) -> Vec<u8> {
    let mut rng = Rng::new(SEED ^ order as u64);
    let mut out = Vec::with_capacity(records * RECORD_SIZE);
    let mut layout = DRAWN[0];
    let mut run_left = 0u64;
    for _ in 0..records.saturating_sub(1) {
        match order {
            Order::Random => layout = DRAWN[rng.below(DRAWN.len() as u64) as usize],
            Order::Runs => {
                if run_left == 0 {
                    layout = DRAWN[rng.below(DRAWN.len() as u64) as usize];
                    run_left = 1 + rng.below(64);
                }
                run_left -= 1;
            }
        }
        out.extend_from_slice(&record(&mut rng, layout));
    }
    if records > 0 {
        out.extend_from_slice(&record(&mut rng, Layout::Exit));
    }
    out
}

/// The whole records of a stream as arrays.
#[inline]
pub fn recs(bytes: &[u8]) -> impl Iterator<Item = &[u8; RECORD_SIZE]> {
    bytes.chunks_exact(RECORD_SIZE).map(|c| c.try_into().unwrap())
}

/// Field of a PSEUDO record read by the one-field kernels; for the other arms
/// FUNCTION_CALL reads `args_table_var_id`, FUNCTION_BEGIN `return_addr_reg_lo`, and an
/// unknown record its opcode.
fn fold(acc: u64, v: u64) -> u64 {
    acc.rotate_left(5) ^ v
}

// ---------------------------------------------------------------------------------
// Limits.

/// The stride-scan limit: bytes 0 and 12 of each record, as a plain loop.
#[inline(never)]
pub fn stride_scan(bytes: &[u8]) -> u64 {
    bytes.chunks_exact(RECORD_SIZE).any(|r| r[0] == 0xDF && r[12] == 1) as u64
}

/// The full-read limit: every u64 of the stream, xor-folded.
#[inline(never)]
pub fn full_read(bytes: &[u8]) -> u64 {
    bytes.chunks_exact(8).fold(0u64, |a, c| a ^ u64::from_le_bytes(c.try_into().unwrap()))
}

// ---------------------------------------------------------------------------------
// The generated crate.

/// `stream::has_pseudo_exit`.
#[inline(never)]
pub fn gen_has_pseudo_exit(bytes: &[u8]) -> u64 {
    stream::has_pseudo_exit(bytes) as u64
}

/// Generated views: dispatch, then one field through the arm's `…Ref`.
#[inline(never)]
pub fn gen_view_one_field(bytes: &[u8]) -> u64 {
    recs(bytes).fold(0, |acc, r| fold(acc, gen_one_field(r)))
}

/// The one field of a record, through the generated views.
#[inline]
pub fn gen_one_field(r: &[u8; RECORD_SIZE]) -> u64 {
    match dispatch(r) {
        Some(ArmKind::PseudoFunctionCall) => {
            PseudoFunctionCallRef::new(r).args_table_var_id() as u64
        }
        Some(ArmKind::PseudoFunctionBegin) => {
            PseudoFunctionBeginRef::new(r).return_addr_reg_lo().0 as u64
        }
        Some(ArmKind::PseudoExitExecution | ArmKind::PseudoLibraryReloadIndex) => {
            PseudoLibraryReloadIndexRef::new(r).pseudo_opcode_raw() as u64
        }
        _ => r[0] as u64,
    }
}

/// Owned `Inst::decode` of every record (every field materialised).
#[inline(never)]
pub fn gen_decode(bytes: &[u8]) -> u64 {
    let mut n = 0u64;
    for r in recs(bytes) {
        black_box(&Inst::decode(r));
        n += 1;
    }
    n
}

/// Decode every record, kept for the encode kernels.
pub fn gen_decoded(bytes: &[u8]) -> Vec<Inst> {
    recs(bytes).map(Inst::decode).collect()
}

/// `Inst::encode` of every decoded record.
#[inline(never)]
pub fn gen_encode(insts: &[Inst]) -> u64 {
    let mut n = 0u64;
    for i in insts {
        black_box(&i.encode());
        n += 1;
    }
    n
}

/// The validator bitmask alone: `opcode_valid(byte 0)`.
#[inline(never)]
pub fn gen_validate_bitmask(bytes: &[u8]) -> u64 {
    recs(bytes).filter(|r| opcode_valid(r[0])).count() as u64
}

/// The full per-arch `validate` (cayman).
#[inline(never)]
pub fn gen_validate_full(bytes: &[u8]) -> u64 {
    recs(bytes).filter(|r| validate(Arch::Cayman, r).is_ok()).count() as u64
}

/// `stream::records`: walk the stream, reading each record's opcode.
#[inline(never)]
pub fn gen_walk(bytes: &[u8]) -> u64 {
    stream::records(bytes).fold(0, |acc, item| match item {
        Ok((_, r)) => acc.wrapping_add(r[0] as u64),
        Err(_) => acc ^ 1,
    })
}

/// `stream::decode_all`: walk and decode every record.
#[inline(never)]
pub fn gen_walk_decode(bytes: &[u8]) -> u64 {
    let mut n = 0u64;
    for item in stream::decode_all(bytes) {
        black_box(&item);
        n += 1;
    }
    n
}

/// `Display` of every decoded record into one reused line buffer: the text form's cost
/// without the memory traffic of keeping every line. Returns the bytes written.
#[inline(never)]
pub fn gen_disasm(insts: &[Inst]) -> u64 {
    use std::fmt::Write as _;
    let mut line = String::with_capacity(1024);
    let mut n = 0u64;
    for i in insts {
        line.clear();
        write!(line, "{i}").expect("writing to a String");
        n += black_box(line.len()) as u64;
    }
    n
}

/// The text of every record, one line each: the assembler kernel's input.
pub fn gen_text(insts: &[Inst]) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    for i in insts {
        writeln!(text, "{i}").expect("writing to a String");
    }
    text
}

/// `disasm::assemble` of every line back to its record.
#[inline(never)]
pub fn gen_asm(text: &str) -> u64 {
    let mut n = 0u64;
    for r in tpb_isa::disasm::assemble(text) {
        black_box(&r.expect("the disassembly assembles"));
        n += 1;
    }
    n
}

/// Whether the text of `gen_text` assembles back to `bytes`, record for record.
pub fn text_round_trips(bytes: &[u8], text: &str) -> bool {
    let mut lines = tpb_isa::disasm::assemble(text);
    recs(bytes).all(|r| lines.next() == Some(Ok(*r))) && lines.next().is_none()
}

// ---------------------------------------------------------------------------------
// Hand-written decoder.

pub mod hand {
    //! A hand-written decoder: `from_le_bytes` at the spec's offsets into an owned enum.
    use super::RECORD_SIZE;

    /// Bytes 0..12, shared by every arm.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Pre {
        /// +0..+4.
        pub opcode: u8,
        /// +1.
        pub inst_word_len: u8,
        /// +2.
        pub debug_cmd: u8,
        /// +3.
        pub debug_hint: u8,
        /// +4.
        pub wait_mode: u8,
        /// +5.
        pub wait_idx: u8,
        /// +6.
        pub update_mode: u8,
        /// +7.
        pub update_idx: u8,
        /// +8..+12.
        pub semaphore_value: u32,
    }

    /// The owned record.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum HwInst {
        /// 0xD1.
        FunctionBegin {
            pre: Pre,
            function_name: [i8; 36],
            return_reset_semaphores: u8,
            lo: u8,
            hi: u8,
            reserved0: [u8; 13],
        },
        /// 0xD3.
        FunctionCall {
            pre: Pre,
            function_name: [i8; 36],
            args_table_var_id: u32,
            reserved0: [u8; 12],
        },
        /// 0xDF/1.
        Exit { pre: Pre, pseudo_opcode: u8, reserved0: [u8; 51] },
        /// 0xDF/2.
        LibraryReloadIndex { pre: Pre, pseudo_opcode: u8, reserved0: [u8; 51] },
        /// Anything else, verbatim.
        Unknown([u8; RECORD_SIZE]),
    }

    #[inline(always)]
    fn arr<const N: usize>(r: &[u8; RECORD_SIZE], at: usize) -> [u8; N] {
        r[at..at + N].try_into().unwrap()
    }

    #[inline(always)]
    fn pre(r: &[u8; RECORD_SIZE]) -> Pre {
        Pre {
            opcode: r[0],
            inst_word_len: r[1],
            debug_cmd: r[2],
            debug_hint: r[3],
            wait_mode: r[4],
            wait_idx: r[5],
            update_mode: r[6],
            update_idx: r[7],
            semaphore_value: u32::from_le_bytes(arr(r, 8)),
        }
    }

    #[inline(always)]
    fn name(r: &[u8; RECORD_SIZE]) -> [i8; 36] {
        arr::<36>(r, 12).map(|b| b as i8)
    }

    /// Decode one record.
    #[inline]
    pub fn decode(r: &[u8; RECORD_SIZE]) -> HwInst {
        match r[0] {
            0xD1 => HwInst::FunctionBegin {
                pre: pre(r),
                function_name: name(r),
                return_reset_semaphores: r[48],
                lo: r[49],
                hi: r[50],
                reserved0: arr(r, 51),
            },
            0xD3 => HwInst::FunctionCall {
                pre: pre(r),
                function_name: name(r),
                args_table_var_id: u32::from_le_bytes(arr(r, 48)),
                reserved0: arr(r, 52),
            },
            0xDF if r[12] == 1 => {
                HwInst::Exit { pre: pre(r), pseudo_opcode: 1, reserved0: arr(r, 13) }
            }
            0xDF if r[12] == 2 => {
                HwInst::LibraryReloadIndex { pre: pre(r), pseudo_opcode: 2, reserved0: arr(r, 13) }
            }
            _ => HwInst::Unknown(*r),
        }
    }

    impl Pre {
        /// Bytes 0..8, in record order.
        #[inline(always)]
        pub fn bytes(&self) -> [u8; 8] {
            [
                self.opcode,
                self.inst_word_len,
                self.debug_cmd,
                self.debug_hint,
                self.wait_mode,
                self.wait_idx,
                self.update_mode,
                self.update_idx,
            ]
        }
    }

    #[inline(always)]
    fn put_pre(o: &mut [u8; RECORD_SIZE], p: &Pre) {
        o[..8].copy_from_slice(&p.bytes());
        o[8..12].copy_from_slice(&p.semaphore_value.to_le_bytes());
    }

    /// Encode one record.
    #[inline]
    pub fn encode(i: &HwInst) -> [u8; RECORD_SIZE] {
        let mut o = [0u8; RECORD_SIZE];
        match i {
            HwInst::FunctionBegin {
                pre,
                function_name,
                return_reset_semaphores,
                lo,
                hi,
                reserved0,
            } => {
                put_pre(&mut o, pre);
                o[12..48].copy_from_slice(&function_name.map(|b| b as u8));
                o[48] = *return_reset_semaphores;
                o[49] = *lo;
                o[50] = *hi;
                o[51..].copy_from_slice(reserved0);
            }
            HwInst::FunctionCall { pre, function_name, args_table_var_id, reserved0 } => {
                put_pre(&mut o, pre);
                o[12..48].copy_from_slice(&function_name.map(|b| b as u8));
                o[48..52].copy_from_slice(&args_table_var_id.to_le_bytes());
                o[52..].copy_from_slice(reserved0);
            }
            HwInst::Exit { pre, pseudo_opcode, reserved0 }
            | HwInst::LibraryReloadIndex { pre, pseudo_opcode, reserved0 } => {
                put_pre(&mut o, pre);
                o[12] = *pseudo_opcode;
                o[13..].copy_from_slice(reserved0);
            }
            HwInst::Unknown(r) => o = *r,
        }
        o
    }

    /// The hand-written single `match` reading one field.
    #[inline]
    pub fn one_field(r: &[u8; RECORD_SIZE]) -> u64 {
        match r[0] {
            0xD3 => u32::from_le_bytes(arr(r, 48)) as u64,
            0xD1 => r[49] as u64,
            0xDF if matches!(r[12], 1 | 2) => r[12] as u64,
            op => op as u64,
        }
    }
}

/// Hand-written single match, one field per record.
#[inline(never)]
pub fn hand_one_field(bytes: &[u8]) -> u64 {
    recs(bytes).fold(0, |acc, r| fold(acc, hand::one_field(r)))
}

/// Hand-written owned decode of every record.
#[inline(never)]
pub fn hand_decode(bytes: &[u8]) -> u64 {
    let mut n = 0u64;
    for r in recs(bytes) {
        black_box(&hand::decode(r));
        n += 1;
    }
    n
}

/// Hand-written decode of every record, kept for the encode kernels.
pub fn hand_decoded(bytes: &[u8]) -> Vec<hand::HwInst> {
    recs(bytes).map(hand::decode).collect()
}

/// Hand-written encode of every decoded record.
#[inline(never)]
pub fn hand_encode(insts: &[hand::HwInst]) -> u64 {
    let mut n = 0u64;
    for i in insts {
        black_box(&hand::encode(i));
        n += 1;
    }
    n
}

// ---------------------------------------------------------------------------------
// zerocopy.

pub mod zc {
    //! zerocopy views: `#[repr(C)]` structs of unaligned little-endian fields over the record.
    use zerocopy::little_endian::U32;
    use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

    use super::RECORD_SIZE;

    /// PSEUDO_FUNCTION_BEGIN.
    #[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
    #[repr(C)]
    pub struct FunctionBegin {
        /// +0.
        pub pre: [u8; 8],
        /// +8.
        pub semaphore_value: U32,
        /// +12.
        pub function_name: [i8; 36],
        /// +48.
        pub return_reset_semaphores: u8,
        /// +49.
        pub return_addr_reg_lo: u8,
        /// +50.
        pub return_addr_reg_hi: u8,
        /// +51.
        pub reserved0: [u8; 13],
    }

    /// PSEUDO_FUNCTION_CALL.
    #[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
    #[repr(C)]
    pub struct FunctionCall {
        /// +0.
        pub pre: [u8; 8],
        /// +8.
        pub semaphore_value: U32,
        /// +12.
        pub function_name: [i8; 36],
        /// +48.
        pub args_table_var_id: U32,
        /// +52.
        pub reserved0: [u8; 12],
    }

    /// PSEUDO_INST with a sub-opcode (EXIT, LIBRARY_RELOAD_INDEX).
    #[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
    #[repr(C)]
    pub struct Pseudo {
        /// +0.
        pub pre: [u8; 8],
        /// +8.
        pub semaphore_value: U32,
        /// +12.
        pub pseudo_opcode: u8,
        /// +13.
        pub reserved0: [u8; 51],
    }

    const _: () = assert!(size_of::<FunctionBegin>() == RECORD_SIZE);
    const _: () = assert!(size_of::<FunctionCall>() == RECORD_SIZE);
    const _: () = assert!(size_of::<Pseudo>() == RECORD_SIZE);

    /// One field through zerocopy views, after the same single match on the opcode.
    #[inline]
    pub fn one_field(r: &[u8; RECORD_SIZE]) -> u64 {
        match r[0] {
            0xD3 => {
                let v: &FunctionCall = zerocopy::transmute_ref!(r);
                v.args_table_var_id.get() as u64
            }
            0xD1 => {
                let v: &FunctionBegin = zerocopy::transmute_ref!(r);
                v.return_addr_reg_lo as u64
            }
            0xDF => {
                let v: &Pseudo = zerocopy::transmute_ref!(r);
                match v.pseudo_opcode {
                    s @ (1 | 2) => s as u64,
                    _ => 0xDF,
                }
            }
            op => op as u64,
        }
    }
}

/// zerocopy views, one field per record.
#[inline(never)]
pub fn zc_one_field(bytes: &[u8]) -> u64 {
    recs(bytes).fold(0, |acc, r| fold(acc, zc::one_field(r)))
}

// ---------------------------------------------------------------------------------
// deku.

pub mod dk {
    //! deku: one derive enum keyed on byte 0, with a nested enum keyed on byte 12.
    use deku::prelude::*;

    /// The record.
    #[derive(Clone, Debug, PartialEq, Eq, DekuRead, DekuWrite)]
    #[deku(id_type = "u8", endian = "little")]
    pub enum DkInst {
        /// 0xD1.
        #[deku(id = 0xD1)]
        FunctionBegin {
            /// +1..+8.
            pre: [u8; 7],
            /// +8.
            semaphore_value: u32,
            /// +12.
            function_name: [i8; 36],
            /// +48.
            return_reset_semaphores: u8,
            /// +49.
            lo: u8,
            /// +50.
            hi: u8,
            /// +51.
            reserved0: [u8; 13],
        },
        /// 0xD3.
        #[deku(id = 0xD3)]
        FunctionCall {
            /// +1..+8.
            pre: [u8; 7],
            /// +8.
            semaphore_value: u32,
            /// +12.
            function_name: [i8; 36],
            /// +48.
            args_table_var_id: u32,
            /// +52.
            reserved0: [u8; 12],
        },
        /// 0xDF.
        #[deku(id = 0xDF)]
        Pseudo {
            /// +1..+8.
            pre: [u8; 7],
            /// +8.
            semaphore_value: u32,
            /// +12..
            body: DkPseudo,
        },
        /// Any other opcode.
        #[deku(id_pat = "_")]
        Unknown {
            /// +0.
            opcode: u8,
            /// +1..
            rest: [u8; 63],
        },
    }

    /// The PSEUDO_INST sub-forms, keyed on byte 12.
    #[derive(Clone, Debug, PartialEq, Eq, DekuRead, DekuWrite)]
    #[deku(id_type = "u8", ctx = "_endian: deku::ctx::Endian")]
    pub enum DkPseudo {
        /// 1.
        #[deku(id = 1)]
        Exit {
            /// +13.
            reserved0: [u8; 51],
        },
        /// 2.
        #[deku(id = 2)]
        LibraryReloadIndex {
            /// +13.
            reserved0: [u8; 51],
        },
        /// Unbound sub-opcode.
        #[deku(id_pat = "_")]
        Other {
            /// +12.
            sub: u8,
            /// +13.
            rest: [u8; 51],
        },
    }

    /// Decode one record.
    #[inline]
    pub fn decode(r: &[u8]) -> DkInst {
        DkInst::from_bytes((r, 0)).expect("64 bytes always decode").1
    }

    /// Encode one record.
    #[inline]
    pub fn encode(i: &DkInst) -> Vec<u8> {
        i.to_bytes().expect("every record encodes")
    }

    /// The kind, in the generated crate's terms.
    pub fn kind(i: &DkInst) -> Option<tpb_isa::arms::ArmKind> {
        use tpb_isa::arms::ArmKind as K;
        match i {
            DkInst::FunctionBegin { .. } => Some(K::PseudoFunctionBegin),
            DkInst::FunctionCall { .. } => Some(K::PseudoFunctionCall),
            DkInst::Pseudo { body: DkPseudo::Exit { .. }, .. } => Some(K::PseudoExitExecution),
            DkInst::Pseudo { body: DkPseudo::LibraryReloadIndex { .. }, .. } => {
                Some(K::PseudoLibraryReloadIndex)
            }
            _ => None,
        }
    }
}

/// deku decode of every record.
#[inline(never)]
pub fn dk_decode(bytes: &[u8]) -> u64 {
    let mut n = 0u64;
    for r in recs(bytes) {
        black_box(&dk::decode(r));
        n += 1;
    }
    n
}

/// deku decode of every record, kept for the encode kernel.
pub fn dk_decoded(bytes: &[u8]) -> Vec<dk::DkInst> {
    recs(bytes).map(|r| dk::decode(r)).collect()
}

/// deku encode of every decoded record.
#[inline(never)]
pub fn dk_encode(insts: &[dk::DkInst]) -> u64 {
    let mut n = 0u64;
    for i in insts {
        black_box(&dk::encode(i));
        n += 1;
    }
    n
}

// ---------------------------------------------------------------------------------
// binrw.

pub mod bw {
    //! binrw: per-arm structs behind a hand-written opcode match, and a derive enum of magics.
    use std::io::Cursor;

    use binrw::{binrw, BinRead, BinWrite};

    use super::RECORD_SIZE;

    /// PSEUDO_FUNCTION_BEGIN.
    #[binrw]
    #[brw(little)]
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct FunctionBegin {
        /// +0..+8.
        pub pre: [u8; 8],
        /// +8.
        pub semaphore_value: u32,
        /// +12.
        pub function_name: [i8; 36],
        /// +48.
        pub return_reset_semaphores: u8,
        /// +49.
        pub lo: u8,
        /// +50.
        pub hi: u8,
        /// +51.
        pub reserved0: [u8; 13],
    }

    /// PSEUDO_FUNCTION_CALL.
    #[binrw]
    #[brw(little)]
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct FunctionCall {
        /// +0..+8.
        pub pre: [u8; 8],
        /// +8.
        pub semaphore_value: u32,
        /// +12.
        pub function_name: [i8; 36],
        /// +48.
        pub args_table_var_id: u32,
        /// +52.
        pub reserved0: [u8; 12],
    }

    /// PSEUDO_INST with a bound sub-opcode.
    #[binrw]
    #[brw(little)]
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Pseudo {
        /// +0..+8.
        pub pre: [u8; 8],
        /// +8.
        pub semaphore_value: u32,
        /// +12.
        pub pseudo_opcode: u8,
        /// +13.
        pub reserved0: [u8; 51],
    }

    /// The record, as binrw structs chosen by a hand-written match.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum BwInst {
        /// 0xD1.
        FunctionBegin(FunctionBegin),
        /// 0xD3.
        FunctionCall(FunctionCall),
        /// 0xDF/1.
        Exit(Pseudo),
        /// 0xDF/2.
        LibraryReloadIndex(Pseudo),
        /// Anything else.
        Unknown([u8; RECORD_SIZE]),
    }

    /// Decode one record: hand-written match, then the arm's binrw struct.
    #[inline]
    pub fn decode(r: &[u8; RECORD_SIZE]) -> BwInst {
        let mut c = Cursor::new(&r[..]);
        match r[0] {
            0xD1 => BwInst::FunctionBegin(FunctionBegin::read(&mut c).unwrap()),
            0xD3 => BwInst::FunctionCall(FunctionCall::read(&mut c).unwrap()),
            0xDF if r[12] == 1 => BwInst::Exit(Pseudo::read(&mut c).unwrap()),
            0xDF if r[12] == 2 => BwInst::LibraryReloadIndex(Pseudo::read(&mut c).unwrap()),
            _ => BwInst::Unknown(*r),
        }
    }

    /// Encode one record with binrw.
    #[inline]
    pub fn encode(i: &BwInst) -> [u8; RECORD_SIZE] {
        let mut o = [0u8; RECORD_SIZE];
        let mut c = Cursor::new(&mut o[..]);
        match i {
            BwInst::FunctionBegin(x) => x.write(&mut c).unwrap(),
            BwInst::FunctionCall(x) => x.write(&mut c).unwrap(),
            BwInst::Exit(x) | BwInst::LibraryReloadIndex(x) => x.write(&mut c).unwrap(),
            BwInst::Unknown(r) => return *r,
        }
        o
    }

    /// The record as one binrw derive enum: variants tried in order by magic, with rewind.
    #[binrw]
    #[brw(little)]
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum BwEnum {
        /// 0xD1.
        #[brw(magic = 0xD1u8)]
        FunctionBegin {
            /// +1..+8.
            pre: [u8; 7],
            /// +8.
            semaphore_value: u32,
            /// +12.
            function_name: [i8; 36],
            /// +48.
            return_reset_semaphores: u8,
            /// +49.
            lo: u8,
            /// +50.
            hi: u8,
            /// +51.
            reserved0: [u8; 13],
        },
        /// 0xD3.
        #[brw(magic = 0xD3u8)]
        FunctionCall {
            /// +1..+8.
            pre: [u8; 7],
            /// +8.
            semaphore_value: u32,
            /// +12.
            function_name: [i8; 36],
            /// +48.
            args_table_var_id: u32,
            /// +52.
            reserved0: [u8; 12],
        },
        /// 0xDF with a bound sub-opcode.
        #[brw(magic = 0xDFu8)]
        Pseudo {
            /// +1..+8.
            pre: [u8; 7],
            /// +8.
            semaphore_value: u32,
            /// +12..
            body: BwPseudo,
        },
        /// Anything else.
        Unknown {
            /// +0..
            bytes: [u8; RECORD_SIZE],
        },
    }

    /// The bound PSEUDO_INST sub-forms.
    #[binrw]
    #[brw(little)]
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum BwPseudo {
        /// 1.
        #[brw(magic = 1u8)]
        Exit {
            /// +13.
            reserved0: [u8; 51],
        },
        /// 2.
        #[brw(magic = 2u8)]
        LibraryReloadIndex {
            /// +13.
            reserved0: [u8; 51],
        },
    }

    /// Decode one record with the derive enum.
    #[inline]
    pub fn decode_enum(r: &[u8; RECORD_SIZE]) -> BwEnum {
        BwEnum::read(&mut Cursor::new(&r[..])).unwrap()
    }

    /// Encode one record with the derive enum.
    pub fn encode_enum(i: &BwEnum) -> [u8; RECORD_SIZE] {
        let mut o = [0u8; RECORD_SIZE];
        i.write(&mut Cursor::new(&mut o[..])).unwrap();
        o
    }

    /// The kind of a struct-decoded record, in the generated crate's terms.
    pub fn kind(i: &BwInst) -> Option<tpb_isa::arms::ArmKind> {
        use tpb_isa::arms::ArmKind as K;
        match i {
            BwInst::FunctionBegin(_) => Some(K::PseudoFunctionBegin),
            BwInst::FunctionCall(_) => Some(K::PseudoFunctionCall),
            BwInst::Exit(_) => Some(K::PseudoExitExecution),
            BwInst::LibraryReloadIndex(_) => Some(K::PseudoLibraryReloadIndex),
            BwInst::Unknown(_) => None,
        }
    }

    /// The kind of an enum-decoded record.
    pub fn enum_kind(i: &BwEnum) -> Option<tpb_isa::arms::ArmKind> {
        use tpb_isa::arms::ArmKind as K;
        match i {
            BwEnum::FunctionBegin { .. } => Some(K::PseudoFunctionBegin),
            BwEnum::FunctionCall { .. } => Some(K::PseudoFunctionCall),
            BwEnum::Pseudo { body: BwPseudo::Exit { .. }, .. } => Some(K::PseudoExitExecution),
            BwEnum::Pseudo { body: BwPseudo::LibraryReloadIndex { .. }, .. } => {
                Some(K::PseudoLibraryReloadIndex)
            }
            BwEnum::Unknown { .. } => None,
        }
    }
}

/// binrw structs behind a hand-written match, every record.
#[inline(never)]
pub fn bw_decode(bytes: &[u8]) -> u64 {
    let mut n = 0u64;
    for r in recs(bytes) {
        black_box(&bw::decode(r));
        n += 1;
    }
    n
}

/// binrw derive enum, every record.
#[inline(never)]
pub fn bw_enum_decode(bytes: &[u8]) -> u64 {
    let mut n = 0u64;
    for r in recs(bytes) {
        black_box(&bw::decode_enum(r));
        n += 1;
    }
    n
}

/// binrw struct decode of every record, kept for the encode kernel.
pub fn bw_decoded(bytes: &[u8]) -> Vec<bw::BwInst> {
    recs(bytes).map(bw::decode).collect()
}

/// binrw encode of every decoded record.
#[inline(never)]
pub fn bw_encode(insts: &[bw::BwInst]) -> u64 {
    let mut n = 0u64;
    for i in insts {
        black_box(&bw::encode(i));
        n += 1;
    }
    n
}

// ---------------------------------------------------------------------------------
// Agreement.

/// Every field of a generated record, flattened in byte order, for comparison.
pub fn gen_fields(i: &Inst) -> Vec<u64> {
    let mut v = Vec::new();
    let pre = |h: &tpb_isa::layout::Header, e: &tpb_isa::layout::Events, v: &mut Vec<u64>| {
        v.extend([h.opcode, h.inst_word_len, h.debug_cmd, h.debug_hint].map(u64::from));
        v.extend([e.wait_mode, e.wait_idx, e.update_mode, e.update_idx].map(u64::from));
        v.push(e.semaphore_value.into());
    };
    match i {
        Inst::PseudoFunctionBegin(x) => {
            pre(&x.header, &x.events, &mut v);
            v.extend(x.function_name.map(|b| b as u8 as u64));
            v.extend(
                [x.return_reset_semaphores, x.return_addr_reg_lo.0, x.return_addr_reg_hi.0]
                    .map(u64::from),
            );
            v.extend(x.reserved0.map(u64::from));
        }
        Inst::PseudoFunctionCall(x) => {
            pre(&x.header, &x.events, &mut v);
            v.extend(x.function_name.map(|b| b as u8 as u64));
            v.push(x.args_table_var_id.into());
            v.extend(x.reserved0.map(u64::from));
        }
        Inst::PseudoExitExecution(x) => {
            pre(&x.header, &x.events, &mut v);
            v.push(x.pseudo_opcode.into());
            v.extend(x.reserved0.map(u64::from));
        }
        Inst::PseudoLibraryReloadIndex(x) => {
            pre(&x.header, &x.events, &mut v);
            v.push(x.pseudo_opcode.into());
            v.extend(x.reserved0.map(u64::from));
        }
        Inst::Unknown(r) => v.extend(r.0.map(u64::from)),
    }
    v
}

/// Every field of a hand-decoded record, in the same order as [`gen_fields`].
pub fn hand_fields(i: &hand::HwInst) -> Vec<u64> {
    use hand::HwInst as H;
    let mut v = Vec::new();
    let pre = |p: &hand::Pre, v: &mut Vec<u64>| {
        v.extend(p.bytes().map(u64::from));
        v.push(p.semaphore_value.into());
    };
    match i {
        H::FunctionBegin { pre: p, function_name, return_reset_semaphores, lo, hi, reserved0 } => {
            pre(p, &mut v);
            v.extend(function_name.map(|b| b as u8 as u64));
            v.extend([*return_reset_semaphores, *lo, *hi].map(u64::from));
            v.extend(reserved0.map(u64::from));
        }
        H::FunctionCall { pre: p, function_name, args_table_var_id, reserved0 } => {
            pre(p, &mut v);
            v.extend(function_name.map(|b| b as u8 as u64));
            v.push((*args_table_var_id).into());
            v.extend(reserved0.map(u64::from));
        }
        H::Exit { pre: p, pseudo_opcode, reserved0 }
        | H::LibraryReloadIndex { pre: p, pseudo_opcode, reserved0 } => {
            pre(p, &mut v);
            v.push((*pseudo_opcode).into());
            v.extend(reserved0.map(u64::from));
        }
        H::Unknown(r) => v.extend(r.map(u64::from)),
    }
    v
}

fn hand_kind(i: &hand::HwInst) -> Option<ArmKind> {
    use hand::HwInst as H;
    match i {
        H::FunctionBegin { .. } => Some(ArmKind::PseudoFunctionBegin),
        H::FunctionCall { .. } => Some(ArmKind::PseudoFunctionCall),
        H::Exit { .. } => Some(ArmKind::PseudoExitExecution),
        H::LibraryReloadIndex { .. } => Some(ArmKind::PseudoLibraryReloadIndex),
        H::Unknown(_) => None,
    }
}

/// Check every comparator against the generated decoder on every record of `bytes`:
/// the same arm, the same fields (hand-written), the same one field (views), and the
/// same 64 bytes back from each encoder. Returns the first disagreement.
pub fn check_agreement(bytes: &[u8]) -> Result<(), String> {
    for (n, r) in recs(bytes).enumerate() {
        let at =
            |what: &str| format!("record {n} (opcode {:#04x}, byte 12 {}): {what}", r[0], r[12]);
        let g = Inst::decode(r);
        let kind = g.arm();
        if g.encode() != *r {
            return Err(at("generated encode(decode) is not the record"));
        }
        let h = hand::decode(r);
        if hand_kind(&h) != kind || hand_fields(&h) != gen_fields(&g) {
            return Err(at("hand-written decode differs from Inst::decode"));
        }
        if hand::encode(&h) != *r {
            return Err(at("hand-written encode differs"));
        }
        let one = gen_one_field(r);
        if hand::one_field(r) != one || zc::one_field(r) != one {
            return Err(at("one-field read differs (hand-written or zerocopy)"));
        }
        let d = dk::decode(r);
        if dk::kind(&d) != kind || dk::encode(&d) != r[..] {
            return Err(at("deku differs"));
        }
        let b = bw::decode(r);
        if bw::kind(&b) != kind || bw::encode(&b) != *r {
            return Err(at("binrw structs differ"));
        }
        let e = bw::decode_enum(r);
        if bw::enum_kind(&e) != kind || bw::encode_enum(&e) != *r {
            return Err(at("binrw enum differs"));
        }
    }
    if stride_scan(bytes) != gen_has_pseudo_exit(bytes) {
        return Err("has_pseudo_exit differs from the stride scan".into());
    }
    let _ = Cursor::new(0u8);
    Ok(())
}

// ---------------------------------------------------------------------------------
// Codegen.

/// The committed spec: every `*.isa` and `arch/*.toml` under `dir`, sorted by path,
/// shown under the folder's name (`isa/arms.isa`) as `cargo xtask` reads it.
pub fn spec_files(dir: &std::path::Path) -> Vec<(String, String)> {
    let name = dir.file_name().map_or("isa".into(), |n| n.to_string_lossy());
    let sources = codegen::Sources::read_spec(dir, &name).expect("reading the spec folder");
    sources.iter().map(|(_, f)| (f.path.clone(), f.text.clone())).collect()
}

/// The folder of the committed spec (`isa/` beside this crate).
pub fn spec_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../isa")
}

/// The spec with `factor` times its arms: every `arm NAME : …` block of `arms.isa` is
/// copied `factor - 1` more times as `NAME_Sk` (unbound, as the spec allows).
pub fn scaled_spec(files: &[(String, String)], factor: usize) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(path, text)| {
            if !path.ends_with("arms.isa") || factor <= 1 {
                return (path.clone(), text.clone());
            }
            let mut blocks = Vec::new();
            let mut cur: Option<String> = None;
            for line in text.lines() {
                if line.starts_with("arm ") {
                    cur = Some(String::new());
                }
                if let Some(b) = cur.as_mut() {
                    b.push_str(line);
                    b.push('\n');
                    if line == "}" {
                        blocks.push(cur.take().unwrap());
                    }
                }
            }
            let mut out = text.clone();
            for k in 1..factor {
                for b in &blocks {
                    let (head, rest) = b.split_once(" :").expect("an arm header");
                    out.push('\n');
                    out.push_str(&format!("{head}_S{k} :{rest}"));
                }
            }
            (path.clone(), out)
        })
        .collect()
}

/// The number of arms in a spec's `arms.isa`.
pub fn arm_count(files: &[(String, String)]) -> usize {
    files
        .iter()
        .filter(|(p, _)| p.ends_with("arms.isa"))
        .map(|(_, t)| t.lines().filter(|l| l.starts_with("arm ")).count())
        .sum()
}

/// `codegen::load` then `codegen::generate`; returns the bytes generated.
pub fn run_codegen(files: &[(String, String)]) -> usize {
    run_codegen_timed(files).2
}

/// [`run_codegen`], timing its halves: (load, generate, bytes generated).
pub fn run_codegen_timed(
    files: &[(String, String)],
) -> (std::time::Duration, std::time::Duration, usize) {
    let mut sources = codegen::Sources::new();
    for (p, t) in files {
        sources.add(p.clone(), t.clone());
    }
    let t0 = std::time::Instant::now();
    let model = match codegen::load(sources) {
        Ok(m) => m,
        Err(f) => panic!("the bench spec does not check:\n{}", f.short()),
    };
    let t1 = std::time::Instant::now();
    let bytes = codegen::generate(&model).iter().map(|f| f.contents.len()).sum();
    (t1 - t0, t1.elapsed(), bytes)
}
