//! Kinds of fact the spec language states, shared by every generated table: how sure a
//! fact is, and the maintained/dormant flag of an opcode.

use core::fmt;

/// How sure the spec is of a fact (the spec's `@confidence`).
///
/// `#[non_exhaustive]`, as [`Status`] is: the spec language may gain a level, and a
/// dependent's `match` keeps a `_` arm.
///
/// ```compile_fail,E0004
/// fn word(c: tpb_isa::Confidence) -> &'static str {
///     match c {
///         tpb_isa::Confidence::Certain => "certain",
///         tpb_isa::Confidence::Medium => "medium",
///         tpb_isa::Confidence::Inferred => "inferred",
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Confidence {
    /// Read directly from a binary, DWARF, driver source or header.
    Certain,
    /// Derived from given facts (a width from neighbouring offsets).
    Medium,
    /// A reasoned guess.
    Inferred,
}

/// The maintained/dormant flag of an opcode (the headers' `// Y` and `// n`).
///
/// ```compile_fail,E0004
/// fn flagged(s: tpb_isa::Status) -> bool {
///     use tpb_isa::Status::*;
///     match s {
///         Maintained | Dormant => true,
///         Unflagged | Unstated => false,
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Status {
    /// `// Y`: tested and maintained.
    Maintained,
    /// `// n`: present but not maintained.
    Dormant,
    /// Present without a flag.
    Unflagged,
    /// Present; no source states its flag.
    Unstated,
}

impl Status {
    /// The spec keyword (`dormant`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Maintained => "maintained",
            Status::Dormant => "dormant",
            Status::Unflagged => "unflagged",
            Status::Unstated => "unstated",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
