//! Typed errors of the runtime and of the generated code: small `Copy` enums with payloads.
//!
//! An unknown opcode is not an error (it decodes to `Inst::Unknown`); these are for
//! bytes that cannot be what the caller asked for. The assembler's error
//! ([`AsmError`], from [`disasm`](crate::disasm)) and a name that is no generation's
//! ([`UnknownArch`], from `Arch`'s `FromStr`) are here too, so that this module names
//! every error the crate returns:
//!
//! ```
//! use tpb_isa::error::{AsmError, AsmErrorKind, UnknownArch};
//! use tpb_isa::{Arch, Inst};
//!
//! let e: AsmError = Inst::parse(Arch::Cayman, "matmul num_active_rows=300").unwrap_err();
//! assert_eq!((e.line, e.col), (1, 24));
//! assert!(matches!(e.kind, AsmErrorKind::OutOfRange { field: "num_active_rows", .. }));
//! let e: UnknownArch = "trn9".parse::<Arch>().unwrap_err();
//! assert_eq!(e.given(), "trn9");
//! assert!(e.to_string().starts_with("unknown generation 'trn9': expected a name, label or alias"));
//! ```

use core::fmt;

pub use crate::disasm::{AsmError, AsmErrorKind};
pub use crate::generated::geometry::UnknownArch;

use crate::address::SegmentId;
use crate::generated::geometry::Arch;

/// Bytes given as a record could not be decoded.
///
/// Only the length can be wrong: a record of any content decodes (an enum-typed field
/// keeps a value the spec does not name; [`ValidateError::BadEnum`] reports it).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecodeError {
    /// The input is not exactly one record long.
    Length {
        /// Bytes given.
        len: usize,
    },
}

/// A byte stream is not a whole number of records, or a record in it is unusable.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamError {
    /// The stream ends inside a record.
    TrailingPartial {
        /// Byte offset where the partial record starts.
        offset: usize,
        /// Its length (1..64).
        len: usize,
    },
    /// The stream holds no record.
    Empty,
}

/// A record fails validation for an arch.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValidateError {
    /// The opcode's bit is clear in the validator's opcode bitmask.
    OpcodeNotValid {
        /// The opcode byte.
        opcode: u8,
    },
    /// The opcode (or its arm) does not exist on this generation; or the spec names no
    /// such opcode value and no binding reads it (it knows it on no generation).
    ///
    /// ```
    /// use tpb_isa::validate::validate;
    /// use tpb_isa::{Arch, Inst, ValidateError};
    ///
    /// // A zeroed record: opcode 0x00, which the spec neither names nor binds.
    /// let zero = [0u8; 64];
    /// assert!(Inst::decode(Arch::Cayman, &zero).is_unknown());
    /// assert_eq!(
    ///     validate(Arch::Cayman, &zero),
    ///     Err(ValidateError::NotOnArch { opcode: 0x00, arch: Arch::Cayman })
    /// );
    /// ```
    NotOnArch {
        /// The opcode byte.
        opcode: u8,
        /// The generation.
        arch: Arch,
    },
    /// An enum-typed field holds a value the spec does not name on the generation
    /// validated for (it may name it on another).
    BadEnum {
        /// Field name.
        field: &'static str,
        /// Byte offset in the record.
        offset: usize,
        /// The value found.
        value: u64,
        /// The generation validated for.
        arch: Arch,
    },
}

/// A geometry rule was asked something it has no answer for.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GeometryError {
    /// An argument fails the rule's `requires` guard (`tpb_idx < num_tpb`).
    OutOfRange {
        /// The rule.
        rule: &'static str,
        /// The guard that failed, as written in the spec.
        guard: &'static str,
        /// The rule's parameter names, in order.
        params: &'static [&'static str],
        /// The argument values, in parameter order (the slots past `params` are zero).
        args: [u64; 4],
        /// The generation asked (the guard's bound is its value: `num_tpb` differs).
        arch: Arch,
        /// The failed guard's two sides as the rule computed them (`9 < 8` for
        /// `tpb_idx < num_tpb` on a generation of 8 TPBs); `None` for the checks every
        /// rule adds (its arithmetic stays in range, its result fits `u32`).
        computed: Option<Comparison>,
    },
    /// The rule does not exist on this generation (its `@archs`: `die_flip` on sunda
    /// names `die_flip`), or needs a value the sources do not give for it (the first such
    /// value the rule reads).
    Unknown {
        /// The rule or value.
        item: &'static str,
        /// The generation.
        arch: Arch,
    },
    /// No source gives this generation's geometry.
    UnknownGeometry {
        /// The generation.
        arch: Arch,
    },
    /// A name that is not a generation's name, label or alias.
    UnknownName(UnknownArch),
}

/// A guard's comparison as a rule computed it, which does not hold: what
/// [`GeometryError::OutOfRange`] shows beside the guard, so that the bound a generation
/// gives (its `num_tpb`) reads without a second call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Comparison {
    /// The left side's value.
    pub lhs: i64,
    /// The operator, as the spec writes it (`<`, `<=`, `>`, `>=`, `==`, `!=`).
    pub op: &'static str,
    /// The right side's value.
    pub rhs: i64,
}

impl Comparison {
    /// The comparison of two sides a rule computed (in `i128`, every step checked), each
    /// saturated to `i64`: a guard compares `u32` arguments with geometry values, far
    /// inside it, and an error stays small.
    #[must_use]
    pub const fn new(lhs: i128, op: &'static str, rhs: i128) -> Comparison {
        const fn sat(v: i128) -> i64 {
            if v > i64::MAX as i128 {
                i64::MAX
            } else if v < i64::MIN as i128 {
                i64::MIN
            } else {
                v as i64
            }
        }
        Comparison { lhs: sat(lhs), op, rhs: sat(rhs) }
    }
}

/// An address-map operation failed.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressError {
    /// No segment maps this linear offset.
    Unmapped {
        /// The linear offset.
        offset: u64,
    },
    /// The host buffer is shorter than the transfer.
    BufferTooShort {
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        len: usize,
    },
    /// The transfer runs past the last linear offset, `u64::MAX`.
    RangeOverflow {
        /// Linear offset of the first byte.
        offset: u64,
        /// Bytes of the transfer.
        size: usize,
    },
    /// A device's memory for a segment does not hold bytes the map says it has.
    OutOfSegment {
        /// The segment.
        segment: SegmentId,
        /// In-segment offset of the first byte.
        offset: u64,
        /// Bytes asked for.
        len: usize,
    },
}

/// The final record of a stream cannot be checked, or fails the check.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FinalCheckError {
    /// The stream has no final record: it is empty or ends inside a record.
    Stream(StreamError),
    /// The per-arch validator rejects the final record.
    Invalid {
        /// Byte offset of the final record in the stream.
        offset: usize,
        /// Why.
        error: ValidateError,
    },
}

impl From<StreamError> for FinalCheckError {
    fn from(e: StreamError) -> FinalCheckError {
        FinalCheckError::Stream(e)
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecodeError::Length { len } => {
                write!(f, "a record is {} bytes, got {len}", crate::generated::inst::RECORD_SIZE)
            }
        }
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            StreamError::TrailingPartial { offset, len } => {
                let noun = if len == 1 { "byte" } else { "bytes" };
                write!(f, "trailing partial record of {len} {noun} at offset {offset:#x}")
            }
            StreamError::Empty => f.write_str("the stream holds no record"),
        }
    }
}

impl fmt::Display for ValidateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ValidateError::OpcodeNotValid { opcode } => {
                write!(f, "opcode {opcode:#04x} is not set in the validator's opcode bitmask")
            }
            // Named, or bound (a value a binding reads though the table names it not).
            ValidateError::NotOnArch { opcode, arch }
                if crate::Opcode(opcode).is_known()
                    || crate::inst::BINDINGS.iter().any(|b| b.opcode == opcode) =>
            {
                write!(f, "opcode {opcode:#04x} does not exist on {}", arch.name())
            }
            ValidateError::NotOnArch { opcode, arch } => write!(
                f,
                "opcode {opcode:#04x} is not one the spec names (on {} or any generation)",
                arch.name()
            ),
            ValidateError::BadEnum { field, offset, value, arch } => {
                write!(
                    f,
                    "field '{field}' at +{offset} holds {value:#04x}, which the spec does not name \
                     on {}",
                    arch.name()
                )
            }
        }
    }
}

impl fmt::Display for GeometryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GeometryError::OutOfRange { rule, guard, params, args, arch, computed } => {
                write!(f, "{rule} on {}: requires {guard}", arch.name())?;
                if let Some(Comparison { lhs, op, rhs }) = computed {
                    write!(f, "; {lhs} {op} {rhs} fails")?;
                }
                for (i, (p, v)) in params.iter().zip(args).enumerate() {
                    write!(f, "{}{p} = {v}", if i == 0 { " (" } else { ", " })?;
                }
                if params.is_empty() {
                    Ok(())
                } else {
                    f.write_str(")")
                }
            }
            GeometryError::UnknownGeometry { arch } => {
                write!(f, "the geometry of {} is unknown: no source gives it", arch.name())
            }
            GeometryError::UnknownName(e) => fmt::Display::fmt(&e, f),
            GeometryError::Unknown { item, arch } => {
                write!(f, "{item} has no value on {}", arch.name())
            }
        }
    }
}

impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AddressError::Unmapped { offset } => {
                write!(f, "offset {offset:#x} is not in any instruction-block segment")
            }
            AddressError::BufferTooShort { needed, len } => {
                write!(f, "the buffer holds {len} bytes, the transfer needs {needed}")
            }
            AddressError::RangeOverflow { offset, size } => {
                write!(f, "{size} bytes at offset {offset:#x} run past the end of the linear range")
            }
            AddressError::OutOfSegment { segment, offset, len } => {
                write!(
                    f,
                    "the device's {} segment has no {len} bytes at offset {offset:#x}",
                    segment.name()
                )
            }
        }
    }
}

impl fmt::Display for FinalCheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FinalCheckError::Stream(e) => e.fmt(f),
            FinalCheckError::Invalid { offset, error } => {
                write!(f, "final record at offset {offset:#x}: {error}")
            }
        }
    }
}

impl core::error::Error for DecodeError {}
impl core::error::Error for StreamError {}
impl core::error::Error for ValidateError {}
impl core::error::Error for GeometryError {}
impl core::error::Error for AddressError {}
impl core::error::Error for FinalCheckError {}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::ToString;

    use super::*;

    #[test]
    fn a_one_byte_partial_record_is_said_in_the_singular() {
        let one = StreamError::TrailingPartial { offset: 64, len: 1 };
        assert_eq!(one.to_string(), "trailing partial record of 1 byte at offset 0x40");
        let two = StreamError::TrailingPartial { offset: 0, len: 63 };
        assert_eq!(two.to_string(), "trailing partial record of 63 bytes at offset 0x0");
        // perf_mode 0x80 is named on cayman, not on maverick: the message says which.
        let bad = ValidateError::BadEnum {
            field: "perf_mode",
            offset: 39,
            value: 0x80,
            arch: Arch::Maverick,
        };
        assert_eq!(
            bad.to_string(),
            "field 'perf_mode' at +39 holds 0x80, which the spec does not name on maverick"
        );
        let final_check = FinalCheckError::Stream(one);
        assert_eq!(final_check.to_string(), "trailing partial record of 1 byte at offset 0x40");
    }
}
