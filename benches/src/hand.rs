//! Hand-written comparators for the opcodes of the real corpus (`testdata/nkipy`), in
//! their cayman layouts, written as an engineer would for speed without the generator:
//! an owned decoder (a hand enum with plain fields, read with `from_le_bytes`), a
//! one-field view (one `match` on byte 0), an encoder, and a `write!`-based formatter
//! that gives the generated text form character for character. The layout structs also
//! derive binrw's `BinRead` and deku's `DekuRead`, for a binrw and a deku decoder of the
//! same records ([`binrw_decode`], [`deku_decode`]).
//!
//! Covered: 0x01 LDWEIGHTS (S3_LW), 0x02 MATMUL (S3D3_MM), 0x23 ACTIVATION_TABLE_LOAD and
//! 0xA4 NOP (CTRL_NO), 0x41 TENSOR_TENSOR_ARITH_OP (S3S3D3_TT), 0x46 COPY and 0x47 CAST
//! (S4D4_TR), 0x49 MEMSET (D4_MR), 0xA0 EVENT_SEMAPHORE (CTRL_ES), 0xD4
//! PSEUDO_DMA_DIRECT2D. Anything else decodes to [`HandInst::Other`]; the formatter
//! prints the two opaque opcodes of the corpus (0xB1, 0xCC) by name and any other as
//! `unknown`, which is exact on the corpus only. The enum names are copied by hand from
//! the spec's enums. Nothing here calls the generated crate's decoder or printer; the
//! generated crate is used only by [`check`], which proves the hand code agrees with it.
//! The hand code reads every record in the cayman layout, whatever the stream's generation.

use std::collections::HashSet;
use std::fmt::Write;
use std::io::Cursor;

use binrw::BinRead;
use deku::{DekuContainerRead, DekuRead};

use tpb_isa::disasm::write_record;
use tpb_isa::inst::{dispatch, Inst, RECORD_SIZE};
use tpb_isa::{
    Arch, ArmKind, D4MrRef, Opcode, PseudoDmaDirect2dRef, S3Lw, S3LwRef, S3d3Mm, S3d3MmRef,
    S3s3d3TtRef, S4d4Tr, S4d4TrRef,
};

/// One record.
pub type Rec = [u8; RECORD_SIZE];

/// The opcodes the hand code decodes (everything else is [`HandInst::Other`]).
pub const OPCODES: [u8; 10] = [0x01, 0x02, 0x23, 0x41, 0x46, 0x47, 0x49, 0xA0, 0xA4, 0xD4];

#[inline(always)]
fn u16_at(b: &Rec, o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
#[inline(always)]
fn i16_at(b: &Rec, o: usize) -> i16 {
    i16::from_le_bytes([b[o], b[o + 1]])
}
#[inline(always)]
fn u32_at(b: &Rec, o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
#[inline(always)]
fn i32_at(b: &Rec, o: usize) -> i32 {
    i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
#[inline(always)]
fn u64_at(b: &Rec, o: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[o..o + 8]);
    u64::from_le_bytes(x)
}
#[inline(always)]
fn bytes_at<const N: usize>(b: &Rec, o: usize) -> [u8; N] {
    let mut x = [0u8; N];
    x.copy_from_slice(&b[o..o + N]);
    x
}
#[inline(always)]
fn put(b: &mut Rec, o: usize, x: &[u8]) {
    b[o..o + x.len()].copy_from_slice(x);
}

/// The 12-byte preamble: header (+0..4) and events (+4..12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, BinRead, DekuRead)]
#[br(little)]
#[deku(endian = "endian", ctx = "endian: deku::ctx::Endian")]
pub struct Preamble {
    pub opcode: u8,
    pub inst_word_len: u8,
    pub debug_cmd: u8,
    pub debug_hint: u8,
    pub wait_mode: u8,
    pub wait_idx: u8,
    pub update_mode: u8,
    pub update_idx: u8,
    pub semaphore_value: u32,
}

impl Preamble {
    #[inline(always)]
    fn read(b: &Rec) -> Preamble {
        Preamble {
            opcode: b[0],
            inst_word_len: b[1],
            debug_cmd: b[2],
            debug_hint: b[3],
            wait_mode: b[4],
            wait_idx: b[5],
            update_mode: b[6],
            update_idx: b[7],
            semaphore_value: u32_at(b, 8),
        }
    }

    #[inline(always)]
    fn write(&self, b: &mut Rec) {
        put(b, 0, &[self.opcode, self.inst_word_len, self.debug_cmd, self.debug_hint]);
        put(b, 4, &[self.wait_mode, self.wait_idx, self.update_mode, self.update_idx]);
        put(b, 8, &self.semaphore_value.to_le_bytes());
    }
}

/// A tensor access pattern of `N` dimensions: start address (ADDR4), steps, counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, BinRead, DekuRead)]
#[br(little)]
#[deku(endian = "endian", ctx = "endian: deku::ctx::Endian")]
pub struct Tensor<const N: usize> {
    pub start_addr: u32,
    pub step_elem: [i16; N],
    pub num_elem: [u16; N],
}

impl<const N: usize> Tensor<N> {
    #[inline(always)]
    fn read(b: &Rec, o: usize) -> Self {
        let mut step_elem = [0i16; N];
        let mut num_elem = [0u16; N];
        for i in 0..N {
            step_elem[i] = i16_at(b, o + 4 + 2 * i);
            num_elem[i] = u16_at(b, o + 4 + 2 * N + 2 * i);
        }
        Tensor { start_addr: u32_at(b, o), step_elem, num_elem }
    }

    #[inline(always)]
    fn write(&self, b: &mut Rec, o: usize) {
        put(b, o, &self.start_addr.to_le_bytes());
        for i in 0..N {
            put(b, o + 4 + 2 * i, &self.step_elem[i].to_le_bytes());
            put(b, o + 4 + 2 * N + 2 * i, &self.num_elem[i].to_le_bytes());
        }
    }
}

/// 0x01 LDWEIGHTS, S3_LW on cayman.
#[derive(Clone, Copy, Debug, PartialEq, Eq, BinRead, DekuRead)]
#[br(little)]
#[deku(endian = "little")]
pub struct Ldweights {
    pub pre: Preamble,
    pub reserved0: [u8; 4],
    pub src: Tensor<3>,
    pub in_dtype: u8,
    pub unknown0: u8,
    pub transpose_mode: u8,
    pub perf_opt: u8,
    pub unknown1: [u8; 2],
    pub num_active_rows: u8,
    pub num_active_cols: u8,
    pub unknown2: [u8; 4],
    pub row_grp: u8,
    pub col_grp: u8,
    pub unknown3: [u8; 18],
}

/// 0x02 MATMUL, S3D3_MM on cayman.
#[derive(Clone, Copy, Debug, PartialEq, Eq, BinRead, DekuRead)]
#[br(little)]
#[deku(endian = "little")]
pub struct Matmul {
    pub pre: Preamble,
    pub reserved0: [u8; 4],
    pub src: Tensor<3>,
    pub in_dtype: u8,
    pub fp32_mode: u8,
    pub transpose_mode: u8,
    pub perf_opt: u8,
    pub reserved_quant: [u8; 2],
    pub num_active_rows: u8,
    pub num_active_cols: u8,
    pub out_dtype: u8,
    pub unknown0: [u8; 2],
    pub psum_accumulate_flags: u8,
    pub row_grp: u8,
    pub col_grp: u8,
    pub reserved_xbs: u8,
    pub psum_zero_region: u8,
    pub dst: Tensor<3>,
}

/// 0x23 ACTIVATION_TABLE_LOAD and 0xA4 NOP, CTRL_NO: the preamble and 52 opaque bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, BinRead, DekuRead)]
#[br(little)]
#[deku(endian = "little")]
pub struct CtrlNo {
    pub pre: Preamble,
    pub payload: [u8; 52],
}

/// 0x41 TENSOR_TENSOR_ARITH_OP, S3S3D3_TT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, BinRead, DekuRead)]
#[br(little)]
#[deku(endian = "little")]
pub struct TensorTensor {
    pub pre: Preamble,
    pub in0_in1_dtype: u8,
    pub out_dtype: u8,
    pub op: u8,
    pub num_active_channels: u8,
    pub src0: Tensor<3>,
    pub src1: Tensor<3>,
    pub dst: Tensor<3>,
}

/// 0x46 COPY and 0x47 CAST, S4D4_TR on cayman.
#[derive(Clone, Copy, Debug, PartialEq, Eq, BinRead, DekuRead)]
#[br(little)]
#[deku(endian = "little")]
pub struct Transform {
    pub pre: Preamble,
    pub src: Tensor<4>,
    pub in_dtype: u8,
    pub out_dtype: u8,
    pub num_active_channels: u8,
    pub negated: u8,
    pub op: u8,
    pub op_dim: u8,
    pub mask_enable: u8,
    pub reserved1: [u8; 5],
    pub dst: Tensor<4>,
}

/// 0x49 MEMSET, D4_MR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, BinRead, DekuRead)]
#[br(little)]
#[deku(endian = "little")]
pub struct Memset {
    pub pre: Preamble,
    pub reserved0: [u8; 16],
    pub dst_element_count: u32,
    pub dtype: u8,
    pub reserved1: u8,
    pub num_active_channels: u8,
    pub reserved2: u8,
    pub serialization_mode: u8,
    pub reserved3: [u8; 3],
    pub set_value: u32,
    pub dst: Tensor<4>,
}

/// 0xA0 EVENT_SEMAPHORE, CTRL_ES.
#[derive(Clone, Copy, Debug, PartialEq, Eq, BinRead, DekuRead)]
#[br(little)]
#[deku(endian = "little")]
pub struct EventSemaphore {
    pub pre: Preamble,
    pub setter_signature: u8,
    pub unknown0: [u8; 19],
    pub ext_wait_mode: u8,
    pub ext_wait_idx: u8,
    pub ext_update_mode: u8,
    pub ext_update_idx: u8,
    pub sem_wait_value: u32,
    pub sem_update_value: u32,
    pub unknown1: [u8; 20],
}

/// 0xD4 PSEUDO_DMA_DIRECT2D.
#[derive(Clone, Copy, Debug, PartialEq, Eq, BinRead, DekuRead)]
#[br(little)]
#[deku(endian = "little")]
pub struct PseudoDma {
    pub pre: Preamble,
    pub dma_configs: u8,
    pub semaphore: u8,
    pub sem_increment: u8,
    pub dge_op: u8,
    pub src_start_addr: u64,
    pub src_step_elem: [i32; 2],
    pub src_num_elem: [u16; 2],
    pub src_elem_size: u16,
    pub src_bound_reg: u8,
    pub dst_bound_reg: u8,
    pub dst_start_addr: u64,
    pub dst_step_elem: [i32; 2],
    pub dst_num_elem: [u16; 2],
    pub dst_elem_size: u16,
    pub in_dtype: u8,
    pub out_dtype: u8,
}

/// A record decoded by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandInst {
    Ldweights(Ldweights),
    Matmul(Matmul),
    CtrlNo(CtrlNo),
    TensorTensor(TensorTensor),
    Transform(Transform),
    Memset(Memset),
    EventSemaphore(EventSemaphore),
    PseudoDma(PseudoDma),
    /// Any other opcode, kept whole.
    Other(Rec),
}

/// Decode a record (cayman layouts).
#[inline]
pub fn decode(b: &Rec) -> HandInst {
    match b[0] {
        0x01 => HandInst::Ldweights(Ldweights {
            pre: Preamble::read(b),
            reserved0: bytes_at(b, 12),
            src: Tensor::read(b, 16),
            in_dtype: b[32],
            unknown0: b[33],
            transpose_mode: b[34],
            perf_opt: b[35],
            unknown1: bytes_at(b, 36),
            num_active_rows: b[38],
            num_active_cols: b[39],
            unknown2: bytes_at(b, 40),
            row_grp: b[44],
            col_grp: b[45],
            unknown3: bytes_at(b, 46),
        }),
        0x02 => HandInst::Matmul(Matmul {
            pre: Preamble::read(b),
            reserved0: bytes_at(b, 12),
            src: Tensor::read(b, 16),
            in_dtype: b[32],
            fp32_mode: b[33],
            transpose_mode: b[34],
            perf_opt: b[35],
            reserved_quant: bytes_at(b, 36),
            num_active_rows: b[38],
            num_active_cols: b[39],
            out_dtype: b[40],
            unknown0: bytes_at(b, 41),
            psum_accumulate_flags: b[43],
            row_grp: b[44],
            col_grp: b[45],
            reserved_xbs: b[46],
            psum_zero_region: b[47],
            dst: Tensor::read(b, 48),
        }),
        0x23 | 0xA4 => {
            HandInst::CtrlNo(CtrlNo { pre: Preamble::read(b), payload: bytes_at(b, 12) })
        }
        0x41 => HandInst::TensorTensor(TensorTensor {
            pre: Preamble::read(b),
            in0_in1_dtype: b[12],
            out_dtype: b[13],
            op: b[14],
            num_active_channels: b[15],
            src0: Tensor::read(b, 16),
            src1: Tensor::read(b, 32),
            dst: Tensor::read(b, 48),
        }),
        0x46 | 0x47 => HandInst::Transform(Transform {
            pre: Preamble::read(b),
            src: Tensor::read(b, 12),
            in_dtype: b[32],
            out_dtype: b[33],
            num_active_channels: b[34],
            negated: b[35],
            op: b[36],
            op_dim: b[37],
            mask_enable: b[38],
            reserved1: bytes_at(b, 39),
            dst: Tensor::read(b, 44),
        }),
        0x49 => HandInst::Memset(Memset {
            pre: Preamble::read(b),
            reserved0: bytes_at(b, 12),
            dst_element_count: u32_at(b, 28),
            dtype: b[32],
            reserved1: b[33],
            num_active_channels: b[34],
            reserved2: b[35],
            serialization_mode: b[36],
            reserved3: bytes_at(b, 37),
            set_value: u32_at(b, 40),
            dst: Tensor::read(b, 44),
        }),
        0xA0 => HandInst::EventSemaphore(EventSemaphore {
            pre: Preamble::read(b),
            setter_signature: b[12],
            unknown0: bytes_at(b, 13),
            ext_wait_mode: b[32],
            ext_wait_idx: b[33],
            ext_update_mode: b[34],
            ext_update_idx: b[35],
            sem_wait_value: u32_at(b, 36),
            sem_update_value: u32_at(b, 40),
            unknown1: bytes_at(b, 44),
        }),
        0xD4 => HandInst::PseudoDma(PseudoDma {
            pre: Preamble::read(b),
            dma_configs: b[12],
            semaphore: b[13],
            sem_increment: b[14],
            dge_op: b[15],
            src_start_addr: u64_at(b, 16),
            src_step_elem: [i32_at(b, 24), i32_at(b, 28)],
            src_num_elem: [u16_at(b, 32), u16_at(b, 34)],
            src_elem_size: u16_at(b, 36),
            src_bound_reg: b[38],
            dst_bound_reg: b[39],
            dst_start_addr: u64_at(b, 40),
            dst_step_elem: [i32_at(b, 48), i32_at(b, 52)],
            dst_num_elem: [u16_at(b, 56), u16_at(b, 58)],
            dst_elem_size: u16_at(b, 60),
            in_dtype: b[62],
            out_dtype: b[63],
        }),
        _ => HandInst::Other(*b),
    }
}

impl HandInst {
    /// Encode back to the 64 bytes.
    #[inline]
    pub fn encode(&self) -> Rec {
        match self {
            HandInst::Ldweights(x) => x.encode(),
            HandInst::Matmul(x) => x.encode(),
            HandInst::CtrlNo(x) => x.encode(),
            HandInst::TensorTensor(x) => x.encode(),
            HandInst::Transform(x) => x.encode(),
            HandInst::Memset(x) => x.encode(),
            HandInst::EventSemaphore(x) => x.encode(),
            HandInst::PseudoDma(x) => x.encode(),
            HandInst::Other(r) => *r,
        }
    }
}

impl Ldweights {
    /// Encode back to the 64 bytes.
    #[inline]
    pub fn encode(&self) -> Rec {
        let x = self;
        let mut b = [0u8; RECORD_SIZE];
        x.pre.write(&mut b);
        put(&mut b, 12, &x.reserved0);
        x.src.write(&mut b, 16);
        put(&mut b, 32, &[x.in_dtype, x.unknown0, x.transpose_mode, x.perf_opt]);
        put(&mut b, 36, &x.unknown1);
        put(&mut b, 38, &[x.num_active_rows, x.num_active_cols]);
        put(&mut b, 40, &x.unknown2);
        put(&mut b, 44, &[x.row_grp, x.col_grp]);
        put(&mut b, 46, &x.unknown3);
        b
    }
}

impl Matmul {
    /// Encode back to the 64 bytes.
    #[inline]
    pub fn encode(&self) -> Rec {
        let x = self;
        let mut b = [0u8; RECORD_SIZE];
        x.pre.write(&mut b);
        put(&mut b, 12, &x.reserved0);
        x.src.write(&mut b, 16);
        put(&mut b, 32, &[x.in_dtype, x.fp32_mode, x.transpose_mode, x.perf_opt]);
        put(&mut b, 36, &x.reserved_quant);
        b[38] = x.num_active_rows;
        b[39] = x.num_active_cols;
        b[40] = x.out_dtype;
        put(&mut b, 41, &x.unknown0);
        b[43] = x.psum_accumulate_flags;
        b[44] = x.row_grp;
        b[45] = x.col_grp;
        b[46] = x.reserved_xbs;
        b[47] = x.psum_zero_region;
        x.dst.write(&mut b, 48);
        b
    }
}

impl CtrlNo {
    /// Encode back to the 64 bytes.
    #[inline]
    pub fn encode(&self) -> Rec {
        let x = self;
        let mut b = [0u8; RECORD_SIZE];
        x.pre.write(&mut b);
        put(&mut b, 12, &x.payload);
        b
    }
}

impl TensorTensor {
    /// Encode back to the 64 bytes.
    #[inline]
    pub fn encode(&self) -> Rec {
        let x = self;
        let mut b = [0u8; RECORD_SIZE];
        x.pre.write(&mut b);
        put(&mut b, 12, &[x.in0_in1_dtype, x.out_dtype, x.op, x.num_active_channels]);
        x.src0.write(&mut b, 16);
        x.src1.write(&mut b, 32);
        x.dst.write(&mut b, 48);
        b
    }
}

impl Transform {
    /// Encode back to the 64 bytes.
    #[inline]
    pub fn encode(&self) -> Rec {
        let x = self;
        let mut b = [0u8; RECORD_SIZE];
        x.pre.write(&mut b);
        x.src.write(&mut b, 12);
        put(
            &mut b,
            32,
            &[
                x.in_dtype,
                x.out_dtype,
                x.num_active_channels,
                x.negated,
                x.op,
                x.op_dim,
                x.mask_enable,
            ],
        );
        put(&mut b, 39, &x.reserved1);
        x.dst.write(&mut b, 44);
        b
    }
}

impl Memset {
    /// Encode back to the 64 bytes.
    #[inline]
    pub fn encode(&self) -> Rec {
        let x = self;
        let mut b = [0u8; RECORD_SIZE];
        x.pre.write(&mut b);
        put(&mut b, 12, &x.reserved0);
        put(&mut b, 28, &x.dst_element_count.to_le_bytes());
        put(
            &mut b,
            32,
            &[x.dtype, x.reserved1, x.num_active_channels, x.reserved2, x.serialization_mode],
        );
        put(&mut b, 37, &x.reserved3);
        put(&mut b, 40, &x.set_value.to_le_bytes());
        x.dst.write(&mut b, 44);
        b
    }
}

impl EventSemaphore {
    /// Encode back to the 64 bytes.
    #[inline]
    pub fn encode(&self) -> Rec {
        let x = self;
        let mut b = [0u8; RECORD_SIZE];
        x.pre.write(&mut b);
        b[12] = x.setter_signature;
        put(&mut b, 13, &x.unknown0);
        put(&mut b, 32, &[x.ext_wait_mode, x.ext_wait_idx, x.ext_update_mode, x.ext_update_idx]);
        put(&mut b, 36, &x.sem_wait_value.to_le_bytes());
        put(&mut b, 40, &x.sem_update_value.to_le_bytes());
        put(&mut b, 44, &x.unknown1);
        b
    }
}

impl PseudoDma {
    /// Encode back to the 64 bytes.
    #[inline]
    pub fn encode(&self) -> Rec {
        let x = self;
        let mut b = [0u8; RECORD_SIZE];
        x.pre.write(&mut b);
        put(&mut b, 12, &[x.dma_configs, x.semaphore, x.sem_increment, x.dge_op]);
        put(&mut b, 16, &x.src_start_addr.to_le_bytes());
        put(&mut b, 24, &x.src_step_elem[0].to_le_bytes());
        put(&mut b, 28, &x.src_step_elem[1].to_le_bytes());
        put(&mut b, 32, &x.src_num_elem[0].to_le_bytes());
        put(&mut b, 34, &x.src_num_elem[1].to_le_bytes());
        put(&mut b, 36, &x.src_elem_size.to_le_bytes());
        put(&mut b, 38, &[x.src_bound_reg, x.dst_bound_reg]);
        put(&mut b, 40, &x.dst_start_addr.to_le_bytes());
        put(&mut b, 48, &x.dst_step_elem[0].to_le_bytes());
        put(&mut b, 52, &x.dst_step_elem[1].to_le_bytes());
        put(&mut b, 56, &x.dst_num_elem[0].to_le_bytes());
        put(&mut b, 58, &x.dst_num_elem[1].to_le_bytes());
        put(&mut b, 60, &x.dst_elem_size.to_le_bytes());
        put(&mut b, 62, &[x.in_dtype, x.out_dtype]);
        b
    }
}

/// The hand decoder's match on byte 0, each covered layout read by `$read` (a generic
/// function of the layout struct), so that the crate decoders share it.
macro_rules! by_layout {
    ($b:expr, $read:ident) => {
        match $b[0] {
            0x01 => HandInst::Ldweights($read($b)),
            0x02 => HandInst::Matmul($read($b)),
            0x23 | 0xA4 => HandInst::CtrlNo($read($b)),
            0x41 => HandInst::TensorTensor($read($b)),
            0x46 | 0x47 => HandInst::Transform($read($b)),
            0x49 => HandInst::Memset($read($b)),
            0xA0 => HandInst::EventSemaphore($read($b)),
            0xD4 => HandInst::PseudoDma($read($b)),
            _ => HandInst::Other(*$b),
        }
    };
}

/// The same decode through binrw: the layout structs above derive `BinRead` (their
/// fields in byte order, little-endian), behind the same match on byte 0. A record is
/// 64 bytes and every struct reads exactly 64, so no read fails.
#[inline]
pub fn binrw_decode(b: &Rec) -> HandInst {
    fn read<T: for<'a> BinRead<Args<'a> = ()>>(b: &Rec) -> T {
        T::read_le(&mut Cursor::new(&b[..])).expect("a 64-byte layout reads a 64-byte record")
    }
    by_layout!(b, read)
}

/// The same decode through deku: the layout structs derive `DekuRead` too (the
/// preamble and tensors take the endianness from the layout that holds them), behind
/// the same match on byte 0.
#[inline]
pub fn deku_decode(b: &Rec) -> HandInst {
    fn read<'a, T: DekuContainerRead<'a>>(b: &'a Rec) -> T {
        T::from_bytes((&b[..], 0)).expect("a 64-byte layout reads a 64-byte record").1
    }
    by_layout!(b, read)
}

/// The one-field view: the record's first address operand (an ADDR4 as u32, a
/// PSEUDO_ADDR8 as u64), read in place with one `match` on byte 0; 0 for records
/// without one.
#[inline]
pub fn first_addr(b: &Rec) -> u64 {
    match b[0] {
        0x01 | 0x02 | 0x41 => u64::from(u32_at(b, 16)),
        0x46 | 0x47 => u64::from(u32_at(b, 12)),
        0x49 => u64::from(u32_at(b, 44)),
        0xD4 => u64_at(b, 16),
        _ => 0,
    }
}

/// [`first_addr`] with an arm per layout, as a caller of a typed API writes it: each of
/// LDWEIGHTS, MATMUL and TENSOR_TENSOR_ARITH_OP is a type of its own, so they share no
/// arm even where the field sits at one offset. Merged as in [`first_addr`], LLVM tests
/// 0x01 and 0x02 as one range and unrolls the loop; here it does neither, as for the
/// generated views.
#[inline]
pub fn first_addr_per_layout(b: &Rec) -> u64 {
    match b[0] {
        0x01 => u64::from(u32_at(b, 16)),
        0x02 => u64::from(u32_at(b, 16)),
        0x41 => u64::from(u32_at(b, 16)),
        0x46 | 0x47 => u64::from(u32_at(b, 12)),
        0x49 => u64::from(u32_at(b, 44)),
        0xD4 => u64_at(b, 16),
        _ => 0,
    }
}

/// zerocopy views of the first address operand: the record's bytes as a `#[repr(C)]`
/// struct of unaligned little-endian fields, one instance per offset, chosen by the same
/// match on byte 0 as [`first_addr`].
pub mod zc {
    use zerocopy::little_endian::{U32, U64};
    use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

    use super::Rec;

    /// A record whose field at byte `HEAD` is an `A`, with `TAIL` bytes after it.
    #[derive(FromBytes, KnownLayout, Immutable, Unaligned)]
    #[repr(C)]
    struct AddrAt<const HEAD: usize, A, const TAIL: usize> {
        head: [u8; HEAD],
        addr: A,
        tail: [u8; TAIL],
    }

    /// An ADDR4 at byte 12, 16 or 44; a PSEUDO_ADDR8 at byte 16.
    type Addr4At12 = AddrAt<12, U32, 48>;
    type Addr4At16 = AddrAt<16, U32, 44>;
    type Addr4At44 = AddrAt<44, U32, 16>;
    type Addr8At16 = AddrAt<16, U64, 40>;

    /// [`super::first_addr`] through the views.
    #[inline]
    pub fn first_addr(b: &Rec) -> u64 {
        match b[0] {
            0x01 | 0x02 | 0x41 => {
                u64::from(Addr4At16::ref_from_bytes(b).map_or(0, |v| v.addr.get()))
            }
            0x46 | 0x47 => u64::from(Addr4At12::ref_from_bytes(b).map_or(0, |v| v.addr.get())),
            0x49 => u64::from(Addr4At44::ref_from_bytes(b).map_or(0, |v| v.addr.get())),
            0xD4 => Addr8At16::ref_from_bytes(b).map_or(0, |v| v.addr.get()),
            _ => 0,
        }
    }
}

/// The same field through the generated crate: `dispatch`, then the arm's view in the
/// layout of `arch` and its accessor. Only the arms the hand code covers have one here
/// (0 for every other arm, as the hand view gives). `dispatch` answers for any
/// generation; `dispatch_on(arch, b)` also leaves out a binding `arch` lacks (0x8A..0x8F
/// read as these arms on sunda only), which no corpus record is, as the hand view
/// ignores them too.
#[inline]
pub fn gen_first_addr(arch: Arch, b: &Rec) -> u64 {
    match dispatch(b) {
        Some(ArmKind::S3Lw) => match S3LwRef::new(arch, b) {
            S3LwRef::Sunda(v) => u64::from(v.src_mem_pattern().start_addr.0),
            S3LwRef::Cayman(v) => u64::from(v.src_mem_pattern().start_addr.0),
            _ => 0,
        },
        Some(ArmKind::S3d3Mm) => match S3d3MmRef::new(arch, b) {
            S3d3MmRef::Sunda(v) => u64::from(v.src_mem_pattern().start_addr.0),
            S3d3MmRef::Cayman(v) => u64::from(v.src_mem_pattern().start_addr.0),
            _ => 0,
        },
        Some(ArmKind::S3s3d3Tt) => u64::from(S3s3d3TtRef(b).src0_mem_pattern().start_addr.0),
        Some(ArmKind::S4d4Tr) => match S4d4TrRef::new(arch, b) {
            S4d4TrRef::Sunda(v) => u64::from(v.src_mem_pattern().start_addr.0),
            _ => 0,
        },
        Some(ArmKind::D4Mr) => u64::from(D4MrRef(b).dst_mem_pattern().start_addr.0),
        Some(ArmKind::PseudoDmaDirect2d) => PseudoDmaDirect2dRef(b).src_start_addr().0,
        _ => 0,
    }
}

/// The same field through the generated crate as a caller who knows which opcodes
/// carry it writes it: a `match` on the opcode table's names (the hand view's opcodes),
/// then the arm's view in the layout of `arch` and its accessor. Where
/// [`gen_first_addr`] asks `dispatch` which of every arm a record is, this selects as
/// the hand view does, so the two differ only in how the field is read.
#[inline]
pub fn gen_first_addr_by_opcode(arch: Arch, b: &Rec) -> u64 {
    match Opcode(b[0]) {
        Opcode::LDWEIGHTS => match S3LwRef::new(arch, b) {
            S3LwRef::Sunda(v) => u64::from(v.src_mem_pattern().start_addr.0),
            S3LwRef::Cayman(v) => u64::from(v.src_mem_pattern().start_addr.0),
            _ => 0,
        },
        Opcode::MATMUL => match S3d3MmRef::new(arch, b) {
            S3d3MmRef::Sunda(v) => u64::from(v.src_mem_pattern().start_addr.0),
            S3d3MmRef::Cayman(v) => u64::from(v.src_mem_pattern().start_addr.0),
            _ => 0,
        },
        Opcode::TENSOR_TENSOR_ARITH_OP => u64::from(S3s3d3TtRef(b).src0_mem_pattern().start_addr.0),
        Opcode::COPY | Opcode::CAST => match S4d4TrRef::new(arch, b) {
            S4d4TrRef::Sunda(v) => u64::from(v.src_mem_pattern().start_addr.0),
            _ => 0,
        },
        Opcode::MEMSET => u64::from(D4MrRef(b).dst_mem_pattern().start_addr.0),
        Opcode::PSEUDO_DMA_DIRECT2D => PseudoDmaDirect2dRef(b).src_start_addr().0,
        _ => 0,
    }
}

// ---------------------------------------------------------------------------------
// The formatter.

fn dtype_name(v: u8) -> Option<&'static str> {
    Some(match v {
        0x0 => "INVALID",
        0x1 => "UINT64",
        0x2 => "INT8",
        0x3 => "UINT8",
        0x4 => "INT16",
        0x5 => "UINT16",
        0x6 => "BFLOAT16",
        0x7 => "FP16",
        0x8 => "INT32",
        0x9 => "UINT32",
        0xA => "FP32",
        0xB => "FP32R",
        0xC => "INT64",
        0xD => "FP8_EXP3",
        0xE => "FP8_EXP4",
        0xF => "FP8_EXP5",
        0x10 => "FP4_EXP2",
        0x11 => "FP8_EXP2",
        0x12 => "INT4",
        0x13 => "SFP8_E8",
        0x14 => "SFP8_E7",
        0x15 => "SFP8_E6",
        0x16 => "SFP8_E5",
        0x19 => "CPTC1",
        0x1A => "CPTC2",
        0x1B => "CPTC3",
        0x1C => "CPTC4",
        0x1D => "CPTC5",
        0x1E => "CPTC6",
        0x1F => "CPTC7",
        _ => return None,
    })
}

fn alu_op_name(v: u8) -> Option<&'static str> {
    Some(match v {
        0x0 => "BYPASS",
        0x1 => "BITWISE_NOT",
        0x2 => "ARITH_SHIFT_LEFT",
        0x3 => "ARITH_SHIFT_RIGHT",
        0x4 => "ADD",
        0x5 => "SUBTRACT",
        0x6 => "MULT",
        0x7 => "DIVIDE",
        0x8 => "MAX",
        0x9 => "MIN",
        0xA => "BITWISE_AND",
        0xB => "BITWISE_OR",
        0xC => "BITWISE_XOR",
        0xD => "LOGICAL_AND",
        0xE => "LOGICAL_OR",
        0xF => "LOGICAL_XOR",
        0x10 => "LOGICAL_SHIFT_LEFT",
        0x11 => "LOGICAL_SHIFT_RIGHT",
        0x12 => "IS_EQ",
        0x13 => "IS_GT",
        0x14 => "IS_GE",
        0x15 => "IS_LE",
        0x16 => "IS_LT",
        0x17 => "ABSOLUTE_DIFF",
        0x18 => "IS_NE",
        0x19 => "ABSOLUTE_VALUE",
        0x1A => "POW",
        0x1B => "MOD",
        0x1C => "CRC32",
        0x1D => "RSQRT",
        0x20 => "ABS_MAX",
        0x21 => "ABS_MIN",
        0x22 => "RE_LU",
        0x23 => "SQUARE",
        0x24 => "SYMMETRIC_CLAMP",
        0xC4 => "ADD_INT",
        0xC5 => "MULT_INT",
        0xC6 => "SUBTRACT_INT",
        0xC7 => "DIVIDE_INT",
        0xC8 => "MOD_INT",
        0xC9 => "IS_EQUAL_INT",
        0xCA => "IS_NE_INT",
        0xCB => "ABS_MAX_INT",
        0xCC => "ABS_MIN_INT",
        0xCD => "ABS_DIFF_INT",
        0xCE => "ABS_VALUE_INT",
        0xCF => "MAX_INT",
        0xD0 => "MIN_INT",
        0xD1 => "IS_GT_INT",
        0xD2 => "IS_GE_INT",
        0xD3 => "IS_LE_INT",
        0xD4 => "IS_LT_INT",
        0xD5 => "MAX_UINT",
        0xD6 => "MIN_UINT",
        0xD7 => "IS_GT_UINT",
        0xD8 => "IS_GE_UINT",
        0xD9 => "IS_LE_UINT",
        0xDA => "IS_LT_UINT",
        0xDB => "MULT_UINT",
        0xDC => "DIVIDE_UINT",
        0xDD => "MOD_UINT",
        0xDE => "AMAX_INT",
        0xDF => "AMIN_INT",
        0xE0 => "AMAX_UINT",
        0xE1 => "AMIN_UINT",
        _ => return None,
    })
}

fn wait_mode_name(v: u8) -> Option<&'static str> {
    Some(match v {
        0x0 => "NONE",
        0x1 => "SEM_EQ_IMM",
        0x2 => "SEM_LT_IMM",
        0x3 => "SEM_LE_IMM",
        0x4 => "SEM_GT_IMM",
        0x5 => "SEM_GE_IMM",
        0x6 => "EVT_SET",
        0x7 => "EVT_SET_THEN_CLEAR",
        0xE => "EVT_CLEAR",
        0xF => "EVT_CLEAR_THEN_SET",
        0x81 => "SEM_EQ_REG",
        0x82 => "SEM_LT_REG",
        0x83 => "SEM_LE_REG",
        0x84 => "SEM_GT_REG",
        0x85 => "SEM_GE_REG",
        0x91 => "SEM_EQ_REG_OFFSET",
        0x92 => "SEM_LT_REG_OFFSET",
        0x93 => "SEM_LE_REG_OFFSET",
        0x94 => "SEM_GT_REG_OFFSET",
        0x95 => "SEM_GE_REG_OFFSET",
        0xFE => "UNORDERED",
        _ => return None,
    })
}

fn update_mode_name(v: u8) -> Option<&'static str> {
    Some(match v {
        0x0 => "NONE",
        0x1 => "EVT_SET_READ",
        0x2 => "EVT_CLR_READ",
        0x3 => "SEM_INC_READ",
        0x4 => "SEM_DEC_READ",
        0x5 => "SEM_ADD_IMM_READ",
        0x7 => "SEM_SUB_IMM_READ",
        0x9 => "SEM_WR_IMM_READ",
        0x13 => "SEM_INC_COMPLETE",
        0x14 => "SEM_DEC_COMPLETE",
        0x15 => "SEM_ADD_IMM_COMPLETE",
        0x87 => "SEM_SUB_REG_READ",
        0x97 => "SEM_SUB_REG_COMPLETE",
        _ => return None,
    })
}

fn debug_cmd_name(v: u8) -> Option<&'static str> {
    Some(match v {
        0x0 => "NONE",
        0x1 => "NOTIFY",
        0x3 => "START",
        0x5 => "END",
        0x7 => "START_END",
        0x9 => "INS_FIELD",
        _ => return None,
    })
}

fn fp32_mode_name(v: u8) -> Option<&'static str> {
    Some(match v {
        0x0 => "NONE",
        0x1 => "LOW",
        0x2 => "HIGH",
        0x3 => "LOW_HIGH",
        _ => return None,
    })
}

fn zero_region_name(v: u8) -> Option<&'static str> {
    Some(match v {
        0x0 => "SIZE2048",
        0x1 => "SIZE4096",
        0x2 => "SIZE8192",
        0x3 => "SIZE16384",
        _ => return None,
    })
}

fn dge_op_name(v: u8) -> Option<&'static str> {
    Some(match v {
        0x0 => "DMA_DIRECT2D",
        0x1 => "DMA_INDIRECT1D",
        0x2 => "DMA_TRANSPOSE",
        0x3 => "DMA_GATHER_TRANSPOSE",
        _ => return None,
    })
}

fn subdim_name(v: u8) -> Option<&'static str> {
    Some(match v {
        0x0 => "UNUSED",
        0x2 => "X",
        0x3 => "XY",
        0x4 => "XYZ",
        0x5 => "XYZW",
        _ => return None,
    })
}

fn addr4_marker_name(v: u8) -> Option<&'static str> {
    Some(match v {
        0x0 => "IMM",
        0x1 => "MXTENSOR_V2",
        0x20 => "INDIRECT_IMM",
        0x40 => "SHAPE_REG",
        0x80 => "ADDR_REG",
        0xC0 => "ADDR_SHAPE_REG",
        _ => return None,
    })
}

/// Enums the spec names no value of (PERF_OPT_MODE, REG_SERIAL_MODE).
fn no_names(_: u8) -> Option<&'static str> {
    None
}

type Names = fn(u8) -> Option<&'static str>;

/// Decimal below 256, `0x` hex above.
fn num(out: &mut String, v: u64) {
    if v < 256 {
        let _ = write!(out, "{v}");
    } else {
        let _ = write!(out, "{v:#x}");
    }
}

/// `0x` and at least two hex digits.
fn hex_num(out: &mut String, v: u64) {
    let _ = write!(out, "{v:#04x}");
}

fn int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    num(out, v.unsigned_abs());
}

fn enum_value(out: &mut String, v: u8, names: Names) {
    match names(v) {
        Some(n) => out.push_str(n),
        None => hex_num(out, u64::from(v)),
    }
}

/// ` name=`.
fn key(out: &mut String, name: &str) {
    out.push(' ');
    out.push_str(name);
    out.push('=');
}

/// ` prefix.name=`.
fn key2(out: &mut String, prefix: &str, name: &str) {
    out.push(' ');
    out.push_str(prefix);
    out.push('.');
    out.push_str(name);
    out.push('=');
}

fn f_uint(out: &mut String, name: &str, v: u64) {
    if v != 0 {
        key(out, name);
        num(out, v);
    }
}

fn f_enum(out: &mut String, name: &str, v: u8, names: Names) {
    if v != 0 {
        key(out, name);
        enum_value(out, v, names);
    }
}

fn f_bytes(out: &mut String, name: &str, b: &[u8]) {
    if b.iter().any(|&x| x != 0) {
        key(out, name);
        for x in b {
            let _ = write!(out, "{x:02x}");
        }
    }
}

/// A bit-field inside `{...}`: a comma before all but the first.
fn bit(out: &mut String, first: &mut bool, name: &str) {
    if !*first {
        out.push(',');
    }
    *first = false;
    out.push_str(name);
    out.push('=');
}

fn bit_uint(out: &mut String, first: &mut bool, name: &str, v: u64) {
    if v != 0 {
        bit(out, first, name);
        num(out, v);
    }
}

/// A one-bit flag: printed as `true` when set.
fn bit_flag(out: &mut String, first: &mut bool, name: &str, v: u64) {
    if v != 0 {
        bit(out, first, name);
        out.push_str("true");
    }
}

fn bit_rest(out: &mut String, first: &mut bool, rest: u64) {
    if rest != 0 {
        bit(out, first, "rest");
        hex_num(out, rest);
    }
}

/// An ADDR4 operand: `register{..}`, `indirect{..}` or `immediate{..}` by its marker
/// byte, with `rest=` for the bits the form leaves unexplained.
fn addr4(out: &mut String, v: u32) {
    let marker = (v >> 24) as u8;
    let v64 = u64::from(v);
    let mut first = true;
    if marker & 0xA0 == 0x80 {
        out.push_str("register{");
        bit_uint(out, &mut first, "regnum", v64 & 0xFF);
        bit_uint(out, &mut first, "reserved0", (v64 >> 8) & 0xFFFF);
        bit_rest(out, &mut first, (v64 & 0xFF00_0000) ^ 0x8000_0000);
    } else if marker & 0x60 == 0x20 {
        out.push_str("indirect{");
        bit_rest(out, &mut first, v64 ^ 0x2000_0000);
    } else {
        out.push_str("immediate{");
        if marker != 0 {
            bit(out, &mut first, "marker");
            enum_value(out, marker, addr4_marker_name);
        }
        bit_uint(out, &mut first, "immediate", v64 & 0x1FFF_FFFF);
        bit_uint(out, &mut first, "partition_offset", v64 & 0x3_FFFF);
        bit_uint(out, &mut first, "reserved1", (v64 >> 18) & 0x1F);
        bit_uint(out, &mut first, "sbuf_quadrant", (v64 >> 23) & 0x3);
        bit_uint(out, &mut first, "quadrant", (v64 >> 25) & 0xF);
        bit_flag(out, &mut first, "psum", (v64 >> 25) & 1);
    }
    out.push('}');
}

/// A PSEUDO_ADDR8 operand: `addr_var{..}`, `table{..}` or `{marker=..}` by its top byte.
fn pseudo_addr8(out: &mut String, v: u64) {
    let marker = (v >> 56) as u8;
    let mut first = true;
    let rest = if marker & 0xFC == 0x10 {
        out.push_str("addr_var{");
        v ^ (0x10 << 56)
    } else if marker & 0xA0 == 0x20 {
        out.push_str("table{");
        v ^ (0x20 << 56)
    } else {
        out.push('{');
        bit_uint(out, &mut first, "marker", u64::from(marker));
        v & ((1 << 56) - 1)
    };
    bit_rest(out, &mut first, rest);
    out.push('}');
}

fn f_addr4(out: &mut String, prefix: &str, v: u32) {
    if v != 0 {
        key2(out, prefix, "start_addr");
        addr4(out, v);
    }
}

fn f_tensor<const N: usize>(out: &mut String, prefix: &str, t: &Tensor<N>) {
    f_addr4(out, prefix, t.start_addr);
    if t.step_elem.iter().any(|&x| x != 0) {
        key2(out, prefix, "step_elem");
        out.push('[');
        for (i, &x) in t.step_elem.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            int(out, i64::from(x));
        }
        out.push(']');
    }
    if t.num_elem.iter().any(|&x| x != 0) {
        key2(out, prefix, "num_elem");
        out.push('[');
        for (i, &x) in t.num_elem.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            num(out, u64::from(x));
        }
        out.push(']');
    }
}

fn f_i32x2(out: &mut String, name: &str, a: [i32; 2]) {
    if a != [0, 0] {
        key(out, name);
        out.push('[');
        int(out, i64::from(a[0]));
        out.push(',');
        int(out, i64::from(a[1]));
        out.push(']');
    }
}

fn f_u16x2(out: &mut String, name: &str, a: [u16; 2]) {
    if a != [0, 0] {
        key(out, name);
        out.push('[');
        num(out, u64::from(a[0]));
        out.push(',');
        num(out, u64::from(a[1]));
        out.push(']');
    }
}

fn f_bound_reg(out: &mut String, name: &str, v: u8) {
    if v != 0 {
        key(out, name);
        let v = u64::from(v);
        let mut first = true;
        out.push('{');
        bit_uint(out, &mut first, "bc_reg", v & 0x3F);
        bit_flag(out, &mut first, "bc_disable_oob_error_notif", (v >> 6) & 1);
        bit_flag(out, &mut first, "bc_enabled", v >> 7);
        out.push('}');
    }
}

fn preamble(out: &mut String, p: &Preamble) {
    f_uint(out, "header.inst_word_len", u64::from(p.inst_word_len));
    f_enum(out, "header.debug_cmd", p.debug_cmd, debug_cmd_name);
    f_uint(out, "header.debug_hint", u64::from(p.debug_hint));
    f_enum(out, "events.wait_mode", p.wait_mode, wait_mode_name);
    f_uint(out, "events.wait_idx", u64::from(p.wait_idx));
    f_enum(out, "events.update_mode", p.update_mode, update_mode_name);
    f_uint(out, "events.update_idx", u64::from(p.update_idx));
    f_uint(out, "events.semaphore_value", u64::from(p.semaphore_value));
}

/// Append one record's text (the generated text form, for the corpus records).
pub fn write_text(out: &mut String, b: &Rec) {
    write_inst(out, &decode(b));
}

/// Append a hand-decoded record's text.
pub fn write_inst(out: &mut String, inst: &HandInst) {
    match inst {
        HandInst::Ldweights(x) => {
            out.push_str("ldweights");
            preamble(out, &x.pre);
            f_bytes(out, "reserved0", &x.reserved0);
            f_tensor(out, "src_mem_pattern", &x.src);
            f_enum(out, "in_dtype", x.in_dtype, dtype_name);
            f_bytes(out, "unknown0", &[x.unknown0]);
            f_uint(out, "transpose_mode", u64::from(x.transpose_mode));
            f_enum(out, "perf_opt", x.perf_opt, no_names);
            f_bytes(out, "unknown1", &x.unknown1);
            f_uint(out, "num_active_rows", u64::from(x.num_active_rows));
            f_uint(out, "num_active_cols", u64::from(x.num_active_cols));
            f_bytes(out, "unknown2", &x.unknown2);
            f_uint(out, "row_grp", u64::from(x.row_grp));
            f_uint(out, "col_grp", u64::from(x.col_grp));
            f_bytes(out, "unknown3", &x.unknown3);
        }
        HandInst::Matmul(x) => {
            out.push_str("matmul");
            preamble(out, &x.pre);
            f_bytes(out, "reserved0", &x.reserved0);
            f_tensor(out, "src_mem_pattern", &x.src);
            f_enum(out, "in_dtype", x.in_dtype, dtype_name);
            f_enum(out, "fp32_mode", x.fp32_mode, fp32_mode_name);
            f_uint(out, "transpose_mode", u64::from(x.transpose_mode));
            f_enum(out, "perf_opt", x.perf_opt, no_names);
            f_bytes(out, "reserved_quant", &x.reserved_quant);
            f_uint(out, "num_active_rows", u64::from(x.num_active_rows));
            f_uint(out, "num_active_cols", u64::from(x.num_active_cols));
            f_enum(out, "out_dtype", x.out_dtype, dtype_name);
            f_bytes(out, "unknown0", &x.unknown0);
            let flags = x.psum_accumulate_flags;
            if flags != 0 {
                key(out, "psum_accumulate_flags");
                let v = u64::from(flags);
                let mut first = true;
                out.push('{');
                bit_flag(out, &mut first, "begin_matmul_group", v & 1);
                bit_flag(out, &mut first, "end_matmul_group", (v >> 1) & 1);
                bit_flag(out, &mut first, "begin_accum_matmul_group", (v >> 2) & 1);
                bit_rest(out, &mut first, v & 0xF8);
                out.push('}');
            }
            f_uint(out, "row_grp", u64::from(x.row_grp));
            f_uint(out, "col_grp", u64::from(x.col_grp));
            f_bytes(out, "reserved_xbs", &[x.reserved_xbs]);
            f_enum(out, "psum_zero_region", x.psum_zero_region, zero_region_name);
            f_tensor(out, "dst_mem_pattern", &x.dst);
        }
        HandInst::CtrlNo(x) => {
            out.push_str(if x.pre.opcode == 0x23 { "activation_table_load" } else { "nop" });
            preamble(out, &x.pre);
            f_bytes(out, "payload", &x.payload);
        }
        HandInst::TensorTensor(x) => {
            out.push_str("tensor_tensor_arith_op");
            preamble(out, &x.pre);
            if x.in0_in1_dtype != 0 {
                key(out, "in0_in1_dtype");
                let mut first = true;
                out.push('{');
                let (lo, hi) = (x.in0_in1_dtype & 15, x.in0_in1_dtype >> 4);
                if lo != 0 {
                    bit(out, &mut first, "dtype_lo");
                    enum_value(out, lo, dtype_name);
                }
                if hi != 0 {
                    bit(out, &mut first, "dtype_hi");
                    enum_value(out, hi, dtype_name);
                }
                out.push('}');
            }
            f_enum(out, "out_dtype", x.out_dtype, dtype_name);
            f_enum(out, "op", x.op, alu_op_name);
            f_uint(out, "num_active_channels", u64::from(x.num_active_channels));
            f_tensor(out, "src0_mem_pattern", &x.src0);
            f_tensor(out, "src1_mem_pattern", &x.src1);
            f_tensor(out, "dst_mem_pattern", &x.dst);
        }
        HandInst::Transform(x) => {
            out.push_str(if x.pre.opcode == 0x46 { "copy" } else { "cast" });
            preamble(out, &x.pre);
            f_tensor(out, "src_mem_pattern", &x.src);
            f_enum(out, "in_dtype", x.in_dtype, dtype_name);
            f_enum(out, "out_dtype", x.out_dtype, dtype_name);
            f_uint(out, "num_active_channels", u64::from(x.num_active_channels));
            f_uint(out, "negated", u64::from(x.negated));
            f_enum(out, "op", x.op, alu_op_name);
            f_enum(out, "op_dim", x.op_dim, subdim_name);
            f_uint(out, "mask_enable", u64::from(x.mask_enable));
            f_bytes(out, "reserved1", &x.reserved1);
            f_tensor(out, "dst_mem_pattern", &x.dst);
        }
        HandInst::Memset(x) => {
            out.push_str("memset");
            preamble(out, &x.pre);
            f_bytes(out, "reserved0", &x.reserved0);
            f_uint(out, "dst_element_count", u64::from(x.dst_element_count));
            f_enum(out, "dtype", x.dtype, dtype_name);
            f_bytes(out, "reserved1", &[x.reserved1]);
            f_uint(out, "num_active_channels", u64::from(x.num_active_channels));
            f_bytes(out, "reserved2", &[x.reserved2]);
            f_enum(out, "serialization_mode", x.serialization_mode, no_names);
            f_bytes(out, "reserved3", &x.reserved3);
            f_uint(out, "set_value", u64::from(x.set_value));
            f_tensor(out, "dst_mem_pattern", &x.dst);
        }
        HandInst::EventSemaphore(x) => {
            out.push_str("event_semaphore");
            preamble(out, &x.pre);
            f_uint(out, "setter_signature", u64::from(x.setter_signature));
            f_bytes(out, "unknown0", &x.unknown0);
            f_enum(out, "events_extended.wait_mode", x.ext_wait_mode, wait_mode_name);
            f_uint(out, "events_extended.wait_idx", u64::from(x.ext_wait_idx));
            f_enum(out, "events_extended.update_mode", x.ext_update_mode, update_mode_name);
            f_uint(out, "events_extended.update_idx", u64::from(x.ext_update_idx));
            f_uint(out, "events_extended.sem_wait_value", u64::from(x.sem_wait_value));
            f_uint(out, "events_extended.sem_update_value", u64::from(x.sem_update_value));
            f_bytes(out, "unknown1", &x.unknown1);
        }
        HandInst::PseudoDma(x) => {
            out.push_str("pseudo_dma_direct2d");
            preamble(out, &x.pre);
            if x.dma_configs != 0 {
                key(out, "dma_configs");
                let v = u64::from(x.dma_configs);
                let mut first = true;
                out.push('{');
                bit_uint(out, &mut first, "priority_class", v & 7);
                bit_uint(out, &mut first, "reserved0", v >> 3);
                out.push('}');
            }
            f_uint(out, "semaphore", u64::from(x.semaphore));
            f_uint(out, "sem_increment", u64::from(x.sem_increment));
            f_enum(out, "dge_op", x.dge_op, dge_op_name);
            if x.src_start_addr != 0 {
                key(out, "src_start_addr");
                pseudo_addr8(out, x.src_start_addr);
            }
            f_i32x2(out, "src_step_elem", x.src_step_elem);
            f_u16x2(out, "src_num_elem", x.src_num_elem);
            f_uint(out, "src_elem_size", u64::from(x.src_elem_size));
            f_bound_reg(out, "src_bound_reg", x.src_bound_reg);
            f_bound_reg(out, "dst_bound_reg", x.dst_bound_reg);
            if x.dst_start_addr != 0 {
                key(out, "dst_start_addr");
                pseudo_addr8(out, x.dst_start_addr);
            }
            f_i32x2(out, "dst_step_elem", x.dst_step_elem);
            f_u16x2(out, "dst_num_elem", x.dst_num_elem);
            f_uint(out, "dst_elem_size", u64::from(x.dst_elem_size));
            f_enum(out, "in_dtype", x.in_dtype, dtype_name);
            f_enum(out, "out_dtype", x.out_dtype, dtype_name);
        }
        HandInst::Other(r) => {
            // The corpus's opaque opcodes: the preamble, then the payload as bytes.
            let name = match r[0] {
                0xB1 => "set_ordering_mode",
                0xCC => "pseudo_branch_label",
                _ => {
                    let _ = write!(out, "unknown opcode={:#04x} bytes=", r[0]);
                    for x in r {
                        let _ = write!(out, "{x:02x}");
                    }
                    return;
                }
            };
            out.push_str(name);
            preamble(out, &Preamble::read(r));
            f_bytes(out, "payload", &r[12..]);
        }
    }
}

// ---------------------------------------------------------------------------------
// Agreement with the generated crate.

fn same<T: PartialEq + std::fmt::Debug>(what: &str, hand: T, gen: T) -> Result<(), String> {
    if hand == gen {
        Ok(())
    } else {
        Err(format!("{what}: hand {hand:?}, generated {gen:?}"))
    }
}

/// Check one record against the generated crate: the hand decoder encodes back to the
/// record and picked fields equal the generated arm's; the one-field views agree; the
/// hand text equals the generated text.
pub fn check_record(arch: Arch, r: &Rec, text: &mut String) -> Result<(), String> {
    let h = decode(r);
    same("encode", h.encode(), *r)?;
    if binrw_decode(r) != h {
        return Err(format!("binrw decodes {:?}, the hand decoder {h:?}", binrw_decode(r)));
    }
    same("first address operand (zerocopy)", first_addr(r), zc::first_addr(r))?;
    if deku_decode(r) != h {
        return Err(format!("deku decodes {:?}, the hand decoder {h:?}", deku_decode(r)));
    }
    let g = Inst::decode(arch, r);
    match (&h, &g) {
        (HandInst::Ldweights(x), Inst::S3Lw(S3Lw::Cayman(y))) => {
            same("num_active_rows", x.num_active_rows, y.num_active_rows)?;
            same("num_active_cols", x.num_active_cols, y.num_active_cols)?;
            same("src.start_addr", x.src.start_addr, y.src_mem_pattern.start_addr.0)?;
            same("src.step_elem", x.src.step_elem, y.src_mem_pattern.step_elem)?;
            same("src.num_elem", x.src.num_elem, y.src_mem_pattern.num_elem)?;
            same("in_dtype", x.in_dtype, y.in_dtype.0)?;
            same("semaphore_value", x.pre.semaphore_value, y.events.semaphore_value)?;
        }
        (HandInst::Matmul(x), Inst::S3d3Mm(S3d3Mm::Cayman(y))) => {
            same("num_active_rows", x.num_active_rows, y.num_active_rows)?;
            same("psum_accumulate_flags", x.psum_accumulate_flags, y.psum_accumulate_flags.0)?;
            same("src.start_addr", x.src.start_addr, y.src_mem_pattern.start_addr.0)?;
            same("dst.start_addr", x.dst.start_addr, y.dst_mem_pattern.start_addr.0)?;
            same("dst.num_elem", x.dst.num_elem, y.dst_mem_pattern.num_elem)?;
            same("out_dtype", x.out_dtype, y.out_dtype.0)?;
        }
        (HandInst::CtrlNo(x), Inst::CtrlNo(y)) => {
            same("opcode", x.pre.opcode, y.header.opcode.0)?;
            same("payload", x.payload, y.payload)?;
        }
        (HandInst::TensorTensor(x), Inst::S3s3d3Tt(y)) => {
            same("op", x.op, y.op.0)?;
            same("in0_in1_dtype", x.in0_in1_dtype, y.in0_in1_dtype.0)?;
            same("src1.start_addr", x.src1.start_addr, y.src1_mem_pattern.start_addr.0)?;
            same("dst.step_elem", x.dst.step_elem, y.dst_mem_pattern.step_elem)?;
        }
        (HandInst::Transform(x), Inst::S4d4Tr(S4d4Tr::Sunda(y))) => {
            same("num_active_channels", x.num_active_channels, y.num_active_channels)?;
            same("src.num_elem", x.src.num_elem, y.src_mem_pattern.num_elem)?;
            same("dst.start_addr", x.dst.start_addr, y.dst_mem_pattern.start_addr.0)?;
            same("out_dtype", x.out_dtype, y.out_dtype.0)?;
        }
        (HandInst::Memset(x), Inst::D4Mr(y)) => {
            same("dst_element_count", x.dst_element_count, y.dst_element_count)?;
            same("set_value", x.set_value, y.set_value)?;
            same("dst.start_addr", x.dst.start_addr, y.dst_mem_pattern.start_addr.0)?;
        }
        (HandInst::EventSemaphore(x), Inst::CtrlEs(y)) => {
            same("wait_idx", x.pre.wait_idx, y.events.wait_idx)?;
            same("sem_wait_value", x.sem_wait_value, y.events_extended.sem_wait_value)?;
            same("ext_wait_mode", x.ext_wait_mode, y.events_extended.wait_mode.0)?;
        }
        (HandInst::PseudoDma(x), Inst::PseudoDmaDirect2d(y)) => {
            same("src_start_addr", x.src_start_addr, y.src_start_addr.0)?;
            same("dst_start_addr", x.dst_start_addr, y.dst_start_addr.0)?;
            same("src_step_elem", x.src_step_elem, y.src_step_elem)?;
            same("dst_num_elem", x.dst_num_elem, y.dst_num_elem)?;
            same("dst_elem_size", x.dst_elem_size, y.dst_elem_size)?;
        }
        (HandInst::Other(_), _) if !OPCODES.contains(&r[0]) => {}
        _ => return Err(format!("hand {h:?} but generated {:?}", g.kind())),
    }
    same("first address operand", first_addr(r), gen_first_addr(arch, r))?;
    same("first address operand (by opcode)", first_addr(r), gen_first_addr_by_opcode(arch, r))?;
    same("first address operand (an arm per layout)", first_addr(r), first_addr_per_layout(r))?;
    text.clear();
    write_record(text, arch, r).map_err(|e| e.to_string())?;
    let mut hand = String::new();
    write_text(&mut hand, r);
    if hand != *text {
        return Err(format!("text differs:\n  hand:      {hand}\n  generated: {text}"));
    }
    Ok(())
}

/// [`check_record`] on every distinct record of a stream (which must be cayman); the
/// first disagreement, with the record's index.
pub fn check(arch: Arch, bytes: &[u8]) -> Result<usize, String> {
    if arch != Arch::Cayman {
        return Err(format!("the hand code reads cayman layouts, not {arch}"));
    }
    let mut seen = HashSet::new();
    let mut text = String::new();
    for (i, r) in crate::recs(bytes).enumerate() {
        if !seen.insert(*r) {
            continue;
        }
        check_record(arch, r, &mut text).map_err(|e| format!("record {i} ({:#04x}): {e}", r[0]))?;
    }
    Ok(seen.len())
}

/// Whether every record of a stream is one the hand code decodes (not `Other`).
pub fn covers(bytes: &[u8]) -> bool {
    crate::recs(bytes).all(|r| OPCODES.contains(&r[0]))
}
