//! Decode, encode, validate and walk AWS Neuron TPB instruction records, and query the
//! hardware geometry of each NeuronCore generation.
//!
//! Everything about the record format and the geometry is generated from the spec in
//! `isa/` by `cargo xtask gen` (the [`generated`] modules); this crate adds a small
//! hand-written runtime on top: record streams ([`stream`]), the three-segment
//! instruction-block address map ([`address`]), typed errors ([`error`]), and the
//! one-line text form of records with its assembler ([`disasm`]).
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
