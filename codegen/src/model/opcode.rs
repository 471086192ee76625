//! Enums, bands, bindings, sentinels, operand bit-fields and validator tables.

use super::{ArmId, BindingId, EnumId, Meta, Prim};
use crate::source::Span;

/// An enum with an underlying unsigned width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enum {
    /// Spec name (`OPCODE`).
    pub name: String,
    /// The Rust type name (`Opcode`).
    pub rust: String,
    /// Underlying type.
    pub width: Prim,
    /// Variants sorted by value; values and names are unique.
    pub variants: Vec<Variant>,
    /// The opcode table's own `@status`: the default of its values (opcodes only).
    pub status: Option<Status>,
    /// The opcode table's own `@engine` words, indexes into the record's `engines`
    /// vocabulary: the default of its values (opcodes only).
    pub engines: Vec<u32>,
    /// Metadata.
    pub meta: Meta,
}

impl Enum {
    /// The variant with value `v`.
    pub fn variant_of(&self, v: u64) -> Option<&Variant> {
        self.variants.iter().find(|x| x.value == v)
    }

    /// The variant named `name`.
    pub fn variant_named(&self, name: &str) -> Option<&Variant> {
        self.variants.iter().find(|x| x.name == name)
    }
}

/// One named value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Spec name (`JPEG_DECODE`).
    pub name: String,
    /// The Rust constant name (`JPEG_DECODE`).
    pub rust: String,
    /// Value; fits the enum's width.
    pub value: u64,
    /// The value as the spec writes it (`0x0A`, `3`): the diff quotes it so.
    pub literal: String,
    /// Maintained/dormant flag (opcodes only).
    pub status: Option<Status>,
    /// Engines that execute it, indexes into the record's `engines` vocabulary
    /// (opcodes only).
    pub engines: Vec<u32>,
    /// Metadata (`@archs`: the generations it exists on).
    pub meta: Meta,
}

/// The maintained/dormant flag of an opcode (the headers' `// Y` / `// n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
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
    /// The spec keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Maintained => "maintained",
            Status::Dormant => "dormant",
            Status::Unflagged => "unflagged",
            Status::Unstated => "unstated",
        }
    }

    /// Parse the spec keyword.
    pub fn parse(s: &str) -> Option<Status> {
        [Status::Maintained, Status::Dormant, Status::Unflagged, Status::Unstated]
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

/// A vocabulary: an enum of names without encodings (the engines of the opcode table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vocab {
    /// Spec name (`ENGINE`).
    pub name: String,
    /// The Rust type name (`Engine`).
    pub rust: String,
    /// The words in spec order, with their Rust variant names.
    pub words: Vec<Word>,
    /// Metadata.
    pub meta: Meta,
}

/// One word of a vocabulary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// Spec name (`PE`).
    pub name: String,
    /// The Rust variant name (`Pe`).
    pub rust: String,
    /// Metadata.
    pub meta: Meta,
}

/// A named set of values of an enum's underlying type (`OPCODE.pseudo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Band {
    /// The enum.
    pub enum_id: EnumId,
    /// Band name (`pseudo`).
    pub name: String,
    /// Disjoint, sorted, merged inclusive ranges (other bands already expanded).
    pub ranges: Vec<(u64, u64)>,
    /// Metadata.
    pub meta: Meta,
}

impl Band {
    /// Whether `v` is in the band.
    pub fn contains(&self, v: u64) -> bool {
        self.ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&v))
    }
}

/// The sub-opcode part of a binding: a byte of the arm that sub-dispatches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubOpcode {
    /// Byte offset in the record (12).
    pub offset: u32,
    /// The value at that offset.
    pub value: u64,
    /// The enum of the arm's field at that offset, when it has one.
    pub enum_id: Option<EnumId>,
}

/// Opcode value (and optional sub-opcode) → arm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// Opcode value.
    pub opcode: u64,
    /// The text form's mnemonic: the opcode's name (for a sub-opcode binding, the
    /// sub-opcode's name), lower case, or the binding's own (`as NAME`).
    pub mnemonic: String,
    /// Whether the mnemonic is the binding's own (`bind … => ARM as NAME`), not taken
    /// from a name.
    pub own_mnemonic: bool,
    /// Where the mnemonic comes from as written: the `as` name, the sub-opcode's name,
    /// the opcode's, or the arm's (a clash is reported there, at what to change).
    pub mnemonic_span: Span,
    /// Sub-dispatch, for extension prefixes such as `PSEUDO_INST`.
    pub sub: Option<SubOpcode>,
    /// The arm selected.
    pub arm: ArmId,
    /// Metadata (`@archs` gives per-generation availability).
    pub meta: Meta,
}

/// A binding whose records mean something to a stream walker (EXIT, FUNCTION_BEGIN).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sentinel {
    /// Spec name (`EXIT`).
    pub name: String,
    /// The binding whose bytes identify it.
    pub binding: BindingId,
    /// Metadata.
    pub meta: Meta,
}

/// An operand type: an unsigned integer with named bit ranges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bits {
    /// Spec name (`ADDR4`).
    pub name: String,
    /// The Rust type name (`Addr4`).
    pub rust: String,
    /// The integer (unsigned).
    pub width: Prim,
    /// Bit-fields outside any alternative, sorted by `lo`.
    pub fields: Vec<BitField>,
    /// Alternative readings of the same bits, in spec order.
    pub alts: Vec<Alt>,
    /// Metadata.
    pub meta: Meta,
}

/// Bits `lo..hi` of an operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitField {
    /// Name.
    pub name: String,
    /// The Rust accessor name.
    pub rust: String,
    /// What the bits hold.
    pub ty: BitType,
    /// First bit (0 = least significant).
    pub lo: u32,
    /// One past the last bit.
    pub hi: u32,
    /// Metadata.
    pub meta: Meta,
}

impl BitField {
    /// The mask of the field in place (`0x1E00_0000` for bits 25..29).
    pub fn mask(&self) -> u64 {
        let w = self.hi - self.lo;
        let ones = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        ones << self.lo
    }
}

/// What a bit-field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitType {
    /// An unsigned integer of the field's width.
    Uint,
    /// One bit read as a flag.
    Bool,
    /// A value of an enum (any value of the width, named or not).
    Enum(EnumId),
}

/// `FIELD & MASK == VALUE` on a top-level bit-field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Predicate {
    /// Index into [`Bits::fields`].
    pub field: u32,
    /// Mask applied to the field's value (not shifted in place).
    pub mask: u64,
    /// Expected value after masking.
    pub value: u64,
}

/// One alternative view of an operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alt {
    /// Name (`register`, `immediate`).
    pub name: String,
    /// The Rust variant name (`Register`).
    pub rust: String,
    /// When the view applies; `None` is `otherwise` (no other alt's predicate holds).
    pub when: Option<Predicate>,
    /// The view's bit-fields, sorted by `lo`.
    pub fields: Vec<BitField>,
    /// Metadata.
    pub meta: Meta,
}

/// A validator bitmask: bit `v & 63` of word `v >> 6` says value `v` is legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bitmask {
    /// Spec name (`OPCODE_VALID`).
    pub name: String,
    /// The enum whose values it tests.
    pub enum_id: EnumId,
    /// The words, verbatim.
    pub words: Vec<u64>,
    /// Metadata.
    pub meta: Meta,
}

impl Bitmask {
    /// Whether `v`'s bit is set.
    pub fn test(&self, v: u64) -> bool {
        let word = (v >> 6) as usize;
        self.words.get(word).is_some_and(|w| w >> (v & 63) & 1 == 1)
    }
}

/// A named set of address windows (the SBUF quadrants, PSUM).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aperture {
    /// Spec name (`SBUF_QUADRANT`).
    pub name: String,
    /// Windows in spec order; disjoint.
    pub regions: Vec<Region>,
    /// Metadata.
    pub meta: Meta,
}

/// One address window `base..base+size`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Name (`q0`).
    pub name: String,
    /// First address.
    pub base: u64,
    /// Size in bytes (inclusive ranges are stored as base + size).
    pub size: u64,
    /// Metadata.
    pub meta: Meta,
}
