//! Decode, encode, validate and walk AWS Neuron TPB instruction records, and query the
//! hardware geometry of each NeuronCore generation.
//!
//! Everything about the record format and the geometry is generated from the spec in
//! `isa/` by `cargo xtask gen` (the [`generated`] modules); this crate adds a small
//! hand-written runtime on top: record streams ([`stream`]), the three-segment
//! instruction-block address map ([`address`]), typed errors ([`error`]), and the
//! one-line text form of records with its assembler ([`disasm`]).
//!
//! # Quick start
//!
//! ```
//! use tpb_isa::validate::validate;
//! use tpb_isa::{disasm, stream, Arch, Inst, S3d3MmRef};
//!
//! // A MATMUL record, from its text (`tpb disasm` prints this form; `tpb asm` reads it).
//! let line = "matmul src_mem_pattern.start_addr=immediate{immediate=0x2000,partition_offset=0x2000} \
//!             num_active_rows=128";
//! let rec: [u8; 64] = disasm::assemble_line(Arch::Cayman, line, 1).unwrap().unwrap();
//!
//! // Records sit at a fixed +64 stride; a trailing partial record is a typed error.
//! for r in stream::records(&rec) {
//!     let (offset, bytes) = r.unwrap();
//!     // Owned: the arm's typed fields, in the layout of the generation asked.
//!     let inst = Inst::decode(Arch::Cayman, bytes);
//!     assert_eq!(inst.encode(), *bytes); // lossless, reserved and unknown bytes too
//!     assert_eq!(inst.text(Arch::Cayman).to_string(), line);
//!     // Borrowed: one field read where the spec puts it, nothing else decoded.
//!     if let S3d3MmRef::Cayman(v) = S3d3MmRef::new(Arch::Cayman, bytes) {
//!         assert_eq!(v.num_active_rows(), 128);
//!     }
//!     // The validator: the opcode and its arm exist on the generation, every enum
//!     // field holds a value the spec names there.
//!     assert_eq!(validate(Arch::Cayman, bytes), Ok(()), "record at {offset:#x}");
//! }
//!
//! // Geometry: every constant per generation; a value no source gives is unknown.
//! let trn2: Arch = "trn2".parse().unwrap();
//! assert_eq!(trn2.geometry().unwrap().num_dma_engines(), 132);
//! assert!(Arch::Maverick.geometry().is_none());
//! ```
//!
//! # Where things are
//!
//! - At the root: [`Inst`] (a record decoded, every arm) and [`ArmKind`]; a type per arm
//!   (`S3d3Mm`) with its borrowed view (`S3d3MmRef`), each in the layouts of the
//!   generations; [`Opcode`] and the spec's other enums; [`Arch`] and [`Geometry`].
//! - [`generated::inst`]: the dispatch ([`dispatch`], [`dispatch_on`], [`binding_on`]) and
//!   [`BINDINGS`], opcode to arm to mnemonic ([`Opcode::arm`] for an opcode,
//!   [`disasm::desc::target`] for a mnemonic).
//! - [`generated::validate`]: the runtime's checks of one record; [`stream`]: records at a
//!   fixed +64 stride, EXIT, and the final-record check of a whole stream.
//! - [`disasm`]: the text form ([`disasm::Printer`], [`disasm::write_record`],
//!   [`disasm::assemble`], [`Inst::parse`]; [`disasm::split_line`] for a line's fields).
//! - [`generated::geometry`]: [`Arch::geometry`] with every constant and derived rule, and
//!   every value with its provenance ([`generated::geometry::GEOMETRY`]).
//! - [`facts`]: provenance and confidence as data.
//!
//! # Features
//!
//! The crate is `#![no_std]` and allocates nothing; every error implements
//! `core::error::Error`.
//!
//! - `std` (default): adds no API of its own; it turns on `serde/std` when `serde` is on.
//!   `default-features = false` gives the same API without `std`.
//! - `serde`: `Serialize` and `Deserialize` for [`Inst`], every arm, struct, operand and
//!   enum, [`Arch`] and [`Geometry`] (by name; reading takes any alias). In a
//!   human-readable format an enum value the spec names is its name (`"FP16"`), any
//!   other value its integer, and reading takes either; an operand with bit-fields and
//!   an `f32` field are their integer bits. Reading keeps the arm the data names, as
//!   [`Inst::decode_as`] does.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "std")]
extern crate std;

pub mod address;
#[cfg(feature = "serde")]
mod arch_serde;
pub mod arm;
pub mod disasm;
#[cfg(feature = "serde")]
mod enum_serde;
mod enum_table;
pub mod error;
pub mod facts;
mod float;
pub mod generated;
mod leaf_test;
pub mod raw;
pub mod stream;
mod validate_plan;

pub use arm::Arm;
pub use error::{
    AddressError, Comparison, DecodeError, FinalCheckError, GeometryError, StreamError,
    ValidateError,
};
pub use facts::{Confidence, Status};
pub use float::F32;
pub use generated::*;
pub use raw::Raw;

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// An arm whose layout differs by generation, and its view, are `#[non_exhaustive]`: a
/// generation or a layout split the spec gains adds a variant, so a dependent's `match`
/// keeps a `_` arm.
///
/// ```
/// use tpb_isa::{Arch, S3d3MmRef};
///
/// let b = [0u8; 64];
/// let rows = match S3d3MmRef::new(Arch::Cayman, &b) {
///     S3d3MmRef::Cayman(v) => v.num_active_rows(),
///     _ => 0,
/// };
/// assert_eq!(rows, 0);
/// ```
///
/// ```compile_fail,E0004
/// use tpb_isa::S3d3MmRef;
///
/// fn every(v: S3d3MmRef<'_>) {
///     match v {
///         S3d3MmRef::Sunda(_) | S3d3MmRef::Cayman(_) | S3d3MmRef::Mariana(_) => {}
///         S3d3MmRef::Maverick(_) => {}
///     }
/// }
/// ```
///
/// ```compile_fail,E0004
/// use tpb_isa::S3d3Mm;
///
/// fn every(v: S3d3Mm) {
///     match v {
///         S3d3Mm::Sunda(_) | S3d3Mm::Cayman(_) | S3d3Mm::Mariana(_) | S3d3Mm::Maverick(_) => {}
///     }
/// }
/// ```
#[cfg(doctest)]
pub struct NonExhaustiveDoctests;
