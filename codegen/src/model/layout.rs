//! Byte layouts: records, structs, groups, arms, and their fields.

use super::{ArmId, BitsId, EnumId, Meta, RecordId, StructId};

/// A primitive little-endian integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Prim {
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
}

impl Prim {
    /// Every primitive, for parsing.
    pub const ALL: [Prim; 8] =
        [Prim::U8, Prim::U16, Prim::U32, Prim::U64, Prim::I8, Prim::I16, Prim::I32, Prim::I64];

    /// Size in bytes.
    pub fn size(self) -> u32 {
        match self {
            Prim::U8 | Prim::I8 => 1,
            Prim::U16 | Prim::I16 => 2,
            Prim::U32 | Prim::I32 => 4,
            Prim::U64 | Prim::I64 => 8,
        }
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        self.size() * 8
    }

    /// Whether the type is signed.
    pub fn signed(self) -> bool {
        matches!(self, Prim::I8 | Prim::I16 | Prim::I32 | Prim::I64)
    }

    /// The spec (and Rust) spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Prim::U8 => "u8",
            Prim::U16 => "u16",
            Prim::U32 => "u32",
            Prim::U64 => "u64",
            Prim::I8 => "i8",
            Prim::I16 => "i16",
            Prim::I32 => "i32",
            Prim::I64 => "i64",
        }
    }

    /// Parse the spec spelling.
    pub fn parse(s: &str) -> Option<Prim> {
        Prim::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// Whether `v` fits in this type.
    pub fn fits(self, v: i128) -> bool {
        let bits = self.bits();
        if self.signed() {
            let lim = 1i128 << (bits - 1);
            (-lim..lim).contains(&v)
        } else {
            (0..(1i128 << bits)).contains(&v)
        }
    }
}

/// The type of a layout field.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// A primitive integer.
    Prim(Prim),
    /// `[T; N]`.
    Array(Box<FieldType>, u32),
    /// A struct (never a group: groups are flattened by `lower`).
    Struct(StructId),
    /// An operand type with bit-fields.
    Bits(BitsId),
    /// An enum, stored as its underlying integer.
    Enum(EnumId),
    /// `reserved[N]`: bytes kept verbatim.
    Reserved(u32),
}

/// Where a flattened field came from when it was placed by `use GROUP`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupUse {
    /// The group.
    pub group: StructId,
    /// Offset the group was placed at, in the enclosing layout.
    pub base: u32,
    /// `as PREFIX`, if any.
    pub prefix: Option<String>,
    /// The `use` line's metadata (its own confidence and docs).
    pub meta: Meta,
    /// Index of the field inside the group.
    pub member: u32,
}

/// One field of a layout, with its absolute offset in that layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Name (prefix applied for group members).
    pub name: String,
    /// Byte offset from the start of the enclosing layout.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Type.
    pub ty: FieldType,
    /// Field metadata; for a group member, the group field's own metadata with the
    /// use's confidence folded in (the weaker of the two).
    pub meta: Meta,
    /// Set when the field was placed by `use GROUP`.
    pub group: Option<GroupUse>,
}

impl Field {
    /// `offset..offset+size`.
    pub fn range(&self) -> std::ops::Range<u32> {
        self.offset..self.offset.saturating_add(self.size)
    }

    /// Whether the field is `reserved[N]`.
    pub fn is_reserved(&self) -> bool {
        matches!(self.ty, FieldType::Reserved(_))
    }
}

/// A struct or a group: a fixed-size run of fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Struct {
    /// Spec name (`EVENTS`, `DTYPE_PAIR`).
    pub name: String,
    /// Declared size.
    pub size: u32,
    /// Fields sorted by offset, covering `0..size` exactly once.
    pub fields: Vec<Field>,
    /// `group` rather than `struct`: placed flat, not as one field.
    pub is_group: bool,
    /// Metadata.
    pub meta: Meta,
}

/// The byte that selects an arm, and the enum it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Discriminant {
    /// Byte offset (0).
    pub offset: u32,
    /// The opcode enum.
    pub ty: EnumId,
}

/// A tagged union of fixed size whose arms share a preamble.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Spec name (`TPB_INST`).
    pub name: String,
    /// Size of every record (64); also the stream stride.
    pub size: u32,
    /// The opcode byte.
    pub discriminant: Discriminant,
    /// Preamble fields sorted by offset, covering `0..preamble_size`.
    pub preamble: Vec<Field>,
    /// Where the per-arm payload starts (12).
    pub preamble_size: u32,
    /// Metadata.
    pub meta: Meta,
}

/// One layout of a record: its payload fields after the shared preamble.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arm {
    /// Spec name (`CTRL_AL`).
    pub name: String,
    /// The record it is an arm of.
    pub record: RecordId,
    /// Payload fields (groups flattened) sorted by offset, covering
    /// `preamble_size..size` exactly once.
    pub fields: Vec<Field>,
    /// Metadata.
    pub meta: Meta,
}

impl Arm {
    /// Whether any binding selects this arm (else it decodes only explicitly).
    pub fn is_bound(&self, model: &super::Model, id: ArmId) -> bool {
        model.bindings.iter().any(|b| b.arm == id)
    }
}
