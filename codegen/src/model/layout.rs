//! Byte layouts: records, structs, groups, arms, and their fields.

use super::{ArchId, BitsId, EnumId, Meta, StructId, UnionId, VocabId};

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
    /// `f32`, kept as its bits.
    F32,
}

impl Prim {
    /// Every primitive, for parsing.
    pub const ALL: [Prim; 9] = [
        Prim::U8,
        Prim::U16,
        Prim::U32,
        Prim::U64,
        Prim::I8,
        Prim::I16,
        Prim::I32,
        Prim::I64,
        Prim::F32,
    ];

    /// Size in bytes.
    pub fn size(self) -> u32 {
        match self {
            Prim::U8 | Prim::I8 => 1,
            Prim::U16 | Prim::I16 => 2,
            Prim::U32 | Prim::I32 | Prim::F32 => 4,
            Prim::U64 | Prim::I64 => 8,
        }
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        self.size() * 8
    }

    /// Whether the type is a signed integer.
    pub fn signed(self) -> bool {
        matches!(self, Prim::I8 | Prim::I16 | Prim::I32 | Prim::I64)
    }

    /// Whether the type is a float (kept as bits; never an enum or bits width).
    pub fn is_float(self) -> bool {
        self == Prim::F32
    }

    /// The unsigned integer of the same size (the bits of a float).
    pub fn bits_type(self) -> Prim {
        match self {
            Prim::I8 => Prim::U8,
            Prim::I16 => Prim::U16,
            Prim::I32 | Prim::F32 => Prim::U32,
            Prim::I64 => Prim::U64,
            p => p,
        }
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
            Prim::F32 => "f32",
        }
    }

    /// Parse the spec spelling.
    pub fn parse(s: &str) -> Option<Prim> {
        Prim::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// Whether `v` fits in this type (a float holds its bit patterns).
    pub fn fits(self, v: i128) -> bool {
        let this = if self.is_float() { self.bits_type() } else { self };
        let bits = this.bits();
        if this.signed() {
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
    /// An enum, stored as its underlying integer (any value, named or not).
    Enum(EnumId),
    /// A union of views of the same bytes.
    Union(UnionId),
    /// `reserved[N]`: bytes the sources name reserved, kept verbatim.
    Reserved(u32),
    /// `unknown[N]`: bytes whose meaning the sources do not give, kept verbatim.
    Unknown(u32),
}

impl FieldType {
    /// The element type under any arrays.
    pub fn leaf(&self) -> &FieldType {
        match self {
            FieldType::Array(t, _) => t.leaf(),
            t => t,
        }
    }

    /// Whether the type is `reserved[N]` or `unknown[N]`: bytes without a reading.
    pub fn is_opaque(&self) -> bool {
        matches!(self, FieldType::Reserved(_) | FieldType::Unknown(_))
    }
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
    /// The Rust field name (snake_case, unique in its layout).
    pub rust: String,
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
    /// Inherited from the record's preamble, not declared by the arm.
    pub inherited: bool,
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

    /// Whether the field is `reserved[N]` or `unknown[N]`.
    pub fn is_opaque(&self) -> bool {
        self.ty.is_opaque()
    }
}

/// A struct or a group: a fixed-size run of fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Struct {
    /// Spec name (`EVENTS`, `DTYPE_PAIR`).
    pub name: String,
    /// The Rust type name (`Events`).
    pub rust: String,
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

/// The tagged union: the one record of the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Spec name (`TPB_INST`).
    pub name: String,
    /// Size of every record (64); also the stream stride.
    pub size: u32,
    /// The opcode byte.
    pub discriminant: Discriminant,
    /// The vocabulary that the opcodes' `@engine` words come from.
    pub engines: Option<VocabId>,
    /// Preamble fields sorted by offset, covering `0..preamble_size`.
    pub preamble: Vec<Field>,
    /// Where the per-arm payload starts (12).
    pub preamble_size: u32,
    /// Metadata.
    pub meta: Meta,
}

/// One complete reading of a record's bytes, valid on some generations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The generations this layout holds on, oldest first (all of them for most arms;
    /// empty only in a spec without arch files).
    pub archs: Vec<ArchId>,
    /// The Rust type of this layout: the arm's own type when it is the only layout,
    /// else the arm's name and the oldest generation's (`S3d3MmCayman`).
    pub rust: String,
    /// Every field, the inherited preamble first, sorted by offset, covering the record
    /// exactly once.
    pub fields: Vec<Field>,
}

/// One arm of the record: its layout on each generation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arm {
    /// Spec name (`CTRL_AL`).
    pub name: String,
    /// The Rust type name (`CtrlAl`); also its `ArmKind` variant.
    pub rust: String,
    /// The Rust name of its borrowed view (`CtrlAlRef`).
    pub rust_ref: String,
    /// The mnemonic of an arm no binding selects (its name in lower case).
    pub mnemonic: String,
    /// One layout per distinct reading, ordered by their oldest generation; one for an
    /// arm that is the same on every generation.
    pub layouts: Vec<Layout>,
    /// Whether the arm inherits the whole preamble (most do).
    pub full_preamble: bool,
    /// Metadata; `meta.archs` is the arm's availability.
    pub meta: Meta,
}

impl Arm {
    /// Whether the arm's layout differs between generations.
    pub fn is_per_generation(&self) -> bool {
        self.layouts.len() > 1
    }

    /// The layout that holds on `arch` (the first one when none names it).
    pub fn layout_on(&self, arch: ArchId) -> &Layout {
        self.layouts.iter().find(|l| l.archs.contains(&arch)).unwrap_or(&self.layouts[0])
    }
}

/// A union: several readings (views) of the same bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Union {
    /// Spec name (`MEM_PATTERN3D`).
    pub name: String,
    /// The Rust type name.
    pub rust: String,
    /// Size in bytes; every view has exactly this size.
    pub size: u32,
    /// Views in spec order.
    pub views: Vec<View>,
    /// Metadata.
    pub meta: Meta,
}

/// `byte N & MASK == VALUE` over a union's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteTest {
    /// The byte tested, from the union's start.
    pub offset: u32,
    /// Mask.
    pub mask: u8,
    /// Expected value after masking.
    pub value: u8,
}

/// How a view is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Select {
    /// When the test holds.
    When(ByteTest),
    /// When no other view's test holds.
    Otherwise,
    /// Never chosen by a test (the first such view is the default when no view has a
    /// test).
    Never,
}

/// One view of a union.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Name (`t`, `fp32`).
    pub name: String,
    /// The Rust accessor name.
    pub rust: String,
    /// The type read; its size is the union's.
    pub ty: FieldType,
    /// How it is chosen.
    pub select: Select,
    /// Metadata (`@archs`: the generations it exists on).
    pub meta: Meta,
}
