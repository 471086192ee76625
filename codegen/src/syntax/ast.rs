//! The spanned syntax tree of `.isa` files, mirroring the grammar; no names resolved yet.

use crate::source::Span;

/// A name with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The text.
    pub name: String,
    /// Where it is.
    pub span: Span,
}

/// An integer literal, already parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Int {
    /// The value (literals are non-negative).
    pub value: u128,
    /// Where it is.
    pub span: Span,
}

/// One attribute argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrArg {
    /// `"text"`, unescaped.
    Str(String, Span),
    /// A bare word.
    Word(Ident),
    /// `lo..hi` with either side optional.
    Range(Option<Ident>, Option<Ident>, Span),
}

impl AttrArg {
    /// The argument's span.
    pub fn span(&self) -> Span {
        match self {
            AttrArg::Str(_, s) | AttrArg::Range(_, _, s) => *s,
            AttrArg::Word(i) => i.span,
        }
    }
}

/// `@name(args)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attr {
    /// The attribute's name.
    pub name: Ident,
    /// Its arguments.
    pub args: Vec<AttrArg>,
    /// The whole attribute.
    pub span: Span,
}

/// Docs and attributes attached to an item or member.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `///` lines, text after the slashes with one leading space removed.
    pub docs: Vec<String>,
    /// Attributes in source order.
    pub attrs: Vec<Attr>,
}

/// A field type as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeRef {
    /// A primitive or a named type.
    Named(Ident),
    /// `[T; N]`.
    Array(Box<TypeRef>, Int, Span),
    /// `reserved[N]`.
    Reserved(Int, Span),
    /// `unknown[N]`.
    Unknown(Int, Span),
}

impl TypeRef {
    /// The whole type's span.
    pub fn span(&self) -> Span {
        match self {
            TypeRef::Named(i) => i.span,
            TypeRef::Array(_, _, s) | TypeRef::Reserved(_, s) | TypeRef::Unknown(_, s) => *s,
        }
    }
}

/// A layout member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Member {
    /// `OFFSET NAME TYPE`.
    Field {
        /// Offset.
        offset: Int,
        /// Name.
        name: Ident,
        /// Type.
        ty: TypeRef,
        /// Docs and attributes.
        ann: Annotations,
        /// The whole member.
        span: Span,
    },
    /// `OFFSET use GROUP [as PREFIX]`.
    Use {
        /// Offset.
        offset: Int,
        /// The group.
        group: Ident,
        /// The prefix.
        prefix: Option<Ident>,
        /// Docs and attributes.
        ann: Annotations,
        /// The whole member.
        span: Span,
    },
}

/// `LO..HI NAME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitFieldDef {
    /// First bit.
    pub lo: Int,
    /// One past the last bit.
    pub hi: Int,
    /// Name.
    pub name: Ident,
    /// `bool` or an enum name, when typed.
    pub ty: Option<Ident>,
    /// Docs and attributes.
    pub ann: Annotations,
    /// The whole member.
    pub span: Span,
}

/// `when FIELD & MASK == VALUE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhenDef {
    /// The tested bit-field.
    pub field: Ident,
    /// Mask.
    pub mask: Int,
    /// Value.
    pub value: Int,
    /// The whole clause.
    pub span: Span,
}

/// `alt NAME (when ... | otherwise) { ... }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AltDef {
    /// Name.
    pub name: Ident,
    /// `None` for `otherwise`.
    pub when: Option<WhenDef>,
    /// Bit-fields of the view.
    pub fields: Vec<BitFieldDef>,
    /// Docs and attributes.
    pub ann: Annotations,
    /// The whole alt.
    pub span: Span,
}

/// `VARIANT = VALUE [=> ARM]`, or a bare vocabulary word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantDef {
    /// Name.
    pub name: Ident,
    /// Value; `None` for a word of a vocabulary.
    pub value: Option<Int>,
    /// `=> ARM`.
    pub arm: Option<Ident>,
    /// Docs and attributes.
    pub ann: Annotations,
}

impl VariantDef {
    /// Whether `self` is the first of `all` (its enum's variants) named as it is: a later
    /// one of the name is a duplicate, reported where it is declared and read no further
    /// (its value, arm and attributes would otherwise be taken as the first's).
    pub fn is_first_of_name(&self, all: &[VariantDef]) -> bool {
        all.iter().find(|w| w.name.name == self.name.name).map(|w| w.name.span)
            == Some(self.name.span)
    }
}

/// `when byte N & MASK == VALUE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteTestDef {
    /// The byte of the union tested.
    pub offset: Int,
    /// Mask.
    pub mask: Int,
    /// Value.
    pub value: Int,
    /// The whole clause.
    pub span: Span,
}

/// `NAME TYPE [when ... | otherwise]`: one view of a union.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewDef {
    /// Name.
    pub name: Ident,
    /// Type.
    pub ty: TypeRef,
    /// The test, if any.
    pub when: Option<ByteTestDef>,
    /// `otherwise`.
    pub otherwise: bool,
    /// Docs and attributes.
    pub ann: Annotations,
    /// The whole view.
    pub span: Span,
}

/// One element of a band's set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BandElem {
    /// A single value.
    Value(Int),
    /// `LO..=HI`.
    Range(Int, Int, Span),
    /// Another band of the same enum.
    Band(Ident),
}

/// A number or a variant name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueRef {
    /// A literal.
    Int(Int),
    /// A variant name.
    Name(Ident),
}

impl ValueRef {
    /// Where it is.
    pub fn span(&self) -> Span {
        match self {
            ValueRef::Int(i) => i.span,
            ValueRef::Name(n) => n.span,
        }
    }
}

/// One window of an aperture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionDef {
    /// Name.
    pub name: Ident,
    /// First address.
    pub base: Int,
    /// Size, or `None` with `last` set for an inclusive range.
    pub size: Option<Int>,
    /// Last address of an inclusive range.
    pub last: Option<Int>,
    /// Docs and attributes.
    pub ann: Annotations,
    /// The whole region.
    pub span: Span,
}

/// A geometry type as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GeomTypeRef {
    /// `u32`, `bool`.
    Named(Ident, bool),
    /// `[T; N]`, `[T; ENUM]` or `[T]`, optionally `?`.
    Array(Box<GeomTypeRef>, Option<ValueRef>, bool, Span),
}

/// An expression as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprAst {
    /// A literal.
    Int(Int),
    /// A name.
    Name(Ident),
    /// `lhs op rhs`, precedence already applied.
    Binary(crate::model::BinOp, Box<ExprAst>, Box<ExprAst>, Span),
}

impl ExprAst {
    /// Where it is.
    pub fn span(&self) -> Span {
        match self {
            ExprAst::Int(i) => i.span,
            ExprAst::Name(i) => i.span,
            ExprAst::Binary(_, _, _, s) => *s,
        }
    }
}

/// `EXPR CMP EXPR`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CondAst {
    /// Left.
    pub lhs: ExprAst,
    /// Operator.
    pub op: crate::model::CmpOp,
    /// Right.
    pub rhs: ExprAst,
    /// The whole condition.
    pub span: Span,
}

/// What a top-level item declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// `record`.
    Record {
        /// Size.
        size: Int,
        /// `discriminant OFFSET ENUM` (the first if several; duplicates are errors).
        discriminants: Vec<(Int, Ident, Span)>,
        /// `engines VOCABULARY` lines (one allowed).
        engines: Vec<Ident>,
        /// Preamble members.
        members: Vec<Member>,
    },
    /// `struct` or `group`.
    Struct {
        /// Size.
        size: Int,
        /// Members.
        members: Vec<Member>,
        /// `group` rather than `struct`.
        is_group: bool,
    },
    /// `arm`.
    Arm {
        /// The record.
        record: Ident,
        /// `RECORD(a, b)`: the preamble members inherited; `None` for all.
        preamble: Option<(Vec<Ident>, Span)>,
        /// Payload members.
        members: Vec<Member>,
    },
    /// `bits`.
    Bits {
        /// Underlying integer.
        width: Ident,
        /// Top-level bit-fields.
        fields: Vec<BitFieldDef>,
        /// Alternatives.
        alts: Vec<AltDef>,
    },
    /// `enum`.
    Enum {
        /// Underlying integer; `None` for a vocabulary.
        width: Option<Ident>,
        /// Variants.
        variants: Vec<VariantDef>,
    },
    /// `union`.
    Union {
        /// Size.
        size: Int,
        /// Views.
        views: Vec<ViewDef>,
    },
    /// `band ENUM.NAME = ...` (the item name is the band name).
    Band {
        /// The enum.
        enum_name: Ident,
        /// The set.
        elems: Vec<BandElem>,
    },
    /// `bind` (the item name is a synthetic span holder).
    Bind {
        /// Opcode.
        opcode: ValueRef,
        /// `sub @OFFSET = VALUE`.
        sub: Option<(Int, ValueRef)>,
        /// The arm.
        arm: Ident,
        /// `as MNEMONIC`: the binding's own mnemonic, for one whose names would clash.
        mnemonic: Option<Ident>,
    },
    /// `sentinel NAME = ARM`.
    Sentinel {
        /// The arm whose binding it is.
        arm: Ident,
    },
    /// `bitmask NAME : ENUM = [...]`.
    Bitmask {
        /// The enum.
        enum_name: Ident,
        /// Words.
        words: Vec<Int>,
    },
    /// `aperture NAME { ... }`.
    Aperture {
        /// Windows.
        regions: Vec<RegionDef>,
    },
    /// `geometry NAME : TYPE`.
    Geometry {
        /// Type.
        ty: GeomTypeRef,
    },
    /// `derived NAME : TYPE = EXPR`.
    Derived {
        /// Type.
        ty: GeomTypeRef,
        /// Expression.
        expr: ExprAst,
    },
    /// `rule NAME(PARAMS) = EXPR requires ...`.
    Rule {
        /// Parameters.
        params: Vec<Ident>,
        /// Expression.
        expr: ExprAst,
        /// Guards.
        requires: Vec<CondAst>,
    },
}

/// A top-level declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// The declared name (for `bind`, the keyword).
    pub name: Ident,
    /// What it is.
    pub kind: ItemKind,
    /// Docs and attributes.
    pub ann: Annotations,
    /// The whole item.
    pub span: Span,
}

/// One parsed file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct File {
    /// Items in source order.
    pub items: Vec<Item>,
}
