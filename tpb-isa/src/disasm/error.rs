//! Why a line of text does not assemble.

use core::fmt;

/// A short copy of a name from the input, for error messages (no allocation).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Name {
    buf: [u8; 32],
    len: u8,
}

impl Name {
    pub(crate) fn new(s: &str) -> Name {
        let mut end = s.len().min(32);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let mut buf = [0u8; 32];
        buf[..end].copy_from_slice(&s.as_bytes()[..end]);
        Name { buf, len: end as u8 }
    }

    /// The name (cut at 32 bytes).
    #[must_use]
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len as usize]).unwrap_or("")
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// What is wrong with a line of assembly.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsmErrorKind {
    /// The first word is not a mnemonic of the spec.
    UnknownMnemonic {
        /// The word.
        mnemonic: Name,
    },
    /// The arm has no field of that name.
    UnknownField {
        /// The arm's mnemonic.
        arm: &'static str,
        /// The name given.
        field: Name,
    },
    /// A field is given twice.
    Duplicate {
        /// The field.
        field: &'static str,
    },
    /// A number does not fit the field.
    OutOfRange {
        /// The field.
        field: &'static str,
    },
    /// A value is not of the field's kind.
    BadValue {
        /// The field.
        field: &'static str,
        /// What the field takes.
        expected: &'static str,
    },
    /// A field the line must give is missing.
    Missing {
        /// The field.
        field: &'static str,
    },
    /// The text is not `mnemonic name=value ...`.
    Syntax {
        /// What was expected.
        expected: &'static str,
    },
}

/// A line of assembly that cannot be assembled, with its 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// Line, from 1.
    pub line: usize,
    /// Column of the offending text, from 1, in characters.
    pub col: usize,
    /// What is wrong.
    pub kind: AsmErrorKind,
}

impl fmt::Display for AsmErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AsmErrorKind::UnknownMnemonic { mnemonic } => {
                write!(f, "unknown mnemonic '{}'", mnemonic.as_str())
            }
            AsmErrorKind::UnknownField { arm, field } => {
                write!(f, "{arm} has no field '{}'", field.as_str())
            }
            AsmErrorKind::Duplicate { field } => write!(f, "field '{field}' is given twice"),
            AsmErrorKind::OutOfRange { field } => {
                write!(f, "value of field '{field}' is out of range")
            }
            AsmErrorKind::BadValue { field, expected } => {
                write!(f, "field '{field}' takes {expected}")
            }
            AsmErrorKind::Missing { field } => write!(f, "field '{field}' is missing"),
            AsmErrorKind::Syntax { expected } => write!(f, "expected {expected}"),
        }
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.kind)
    }
}

impl core::error::Error for AsmError {}
