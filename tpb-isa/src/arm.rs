//! The sealed [`Arm`] trait: what every arm of the record can do, so that tests,
//! benches and fuzz targets handle every arm generically instead of listing them.
//!
//! Code generic over the arms:
//!
//! ```
//! use tpb_isa::arm::Arm;
//! use tpb_isa::{Arch, ArmKind, S3d3Mm};
//!
//! fn kind_of<A: Arm>(arch: Arch, b: &[u8; 64]) -> Option<ArmKind> {
//!     A::decode(arch, b).into_inst().kind()
//! }
//! let mut b = [0u8; 64];
//! b[0] = 0x02; // MATMUL
//! assert_eq!(kind_of::<S3d3Mm>(Arch::Cayman, &b), Some(ArmKind::S3d3Mm));
//! ```
//!
//! Only the generated arms implement it: its supertrait cannot be named outside the crate,
//! so a new method on [`Arm`] breaks no dependent.
//!
//! ```compile_fail,E0603
//! struct Mine;
//! impl tpb_isa::arm::sealed::Sealed for Mine {}
//! ```

use crate::generated::arms::ArmKind;
use crate::generated::geometry::Arch;
use crate::generated::inst::{Inst, RECORD_SIZE};

/// Keeps [`Arm`] implemented by the generated arms only: the module is private, so no
/// other crate can name the trait to implement it.
pub(crate) mod sealed {
    /// Implemented by every generated arm type.
    pub trait Sealed {}
}

/// One arm of the record, generated from the spec.
pub trait Arm: sealed::Sealed + Copy + core::fmt::Debug + Eq {
    /// Which arm.
    const KIND: ArmKind;

    /// Read any record as this arm in the layout of `arch`; never fails, every byte is
    /// kept.
    fn decode(arch: Arch, b: &[u8; RECORD_SIZE]) -> Self;

    /// The record's bytes; `decode` of them gives `self` back.
    fn encode(&self) -> [u8; RECORD_SIZE];

    /// The record as an [`Inst`].
    fn into_inst(self) -> Inst;
}

/// The [`Arm`] impl of the generated arm type `$t`: one line per arm in the generated
/// code instead of the same twenty. `$t` names its `ArmKind` and `Inst` variants too,
/// and has `decode_on` and `encode`.
macro_rules! impl_arm {
    ($t:ident) => {
        impl $crate::arm::sealed::Sealed for $t {}

        impl $crate::arm::Arm for $t {
            const KIND: $crate::generated::arms::ArmKind = $crate::generated::arms::ArmKind::$t;

            #[inline]
            fn decode(
                arch: $crate::generated::geometry::Arch,
                b: &[u8; $crate::generated::inst::RECORD_SIZE],
            ) -> $t {
                $t::decode_on(arch, b)
            }

            #[inline]
            fn encode(&self) -> [u8; $crate::generated::inst::RECORD_SIZE] {
                $t::encode(self)
            }

            #[inline]
            fn into_inst(self) -> $crate::generated::inst::Inst {
                $crate::generated::inst::Inst::$t(self)
            }
        }
    };
}
pub(crate) use impl_arm;
