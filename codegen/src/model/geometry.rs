//! Per-generation geometry: the schema (constants, derived values, rules) and each arch's values.

use super::{ArchId, EnumId, GeomId, Meta, Prim};

/// The type of a geometry value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GeomType {
    /// An integer.
    Int(Prim),
    /// `bool`.
    Bool,
    /// `[T; N]`, `[T; ENUM]` (indexed by an enum whose values are `0..n`), or `[T]`.
    Array(Box<GeomType>, ArrayLen),
    /// `T?`: the value (or table entry) may be unknown (`"?"`) on some generation.
    Optional(Box<GeomType>),
}

impl GeomType {
    /// The type without an outer `?`.
    pub fn strip_optional(&self) -> &GeomType {
        match self {
            GeomType::Optional(t) => t,
            t => t,
        }
    }

    /// Whether the outer type is `T?`.
    pub fn is_optional(&self) -> bool {
        matches!(self, GeomType::Optional(_))
    }
}

/// The length of a geometry table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayLen {
    /// A number.
    Fixed(u32),
    /// One entry per variant of the enum, indexed by its value.
    Enum(EnumId, u32),
    /// `[T]`: a list whose length each arch chooses (2 HBM bases on sunda, 4 on cayman).
    Unsized,
}

impl ArrayLen {
    /// Number of entries; `None` for an unsized list.
    pub fn count(self) -> Option<u32> {
        match self {
            ArrayLen::Fixed(n) | ArrayLen::Enum(_, n) => Some(n),
            ArrayLen::Unsized => None,
        }
    }
}

/// A binary operator of the expression language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `*`
    Mul,
    /// `/` (truncating, like Rust)
    Div,
    /// `%`
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `&`
    And,
    /// `^`
    Xor,
    /// `|`
    Or,
}

impl BinOp {
    /// The operator's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&",
            BinOp::Xor => "^",
            BinOp::Or => "|",
        }
    }

    /// `l op r` with Rust's integer semantics, or `None` where Rust's would panic or
    /// the result leaves `i128` (division by zero, a shift of 128 or more or a negative
    /// one, overflow). The one definition the checker, the diff and the tests evaluate
    /// expressions with.
    pub fn apply(self, l: i128, r: i128) -> Option<i128> {
        match self {
            BinOp::Mul => l.checked_mul(r),
            BinOp::Div => l.checked_div(r),
            BinOp::Rem => l.checked_rem(r),
            BinOp::Add => l.checked_add(r),
            BinOp::Sub => l.checked_sub(r),
            BinOp::Shl => u32::try_from(r).ok().filter(|&s| s < 128).and_then(|s| {
                let v = l.checked_shl(s)?;
                (v >> s == l).then_some(v)
            }),
            BinOp::Shr => u32::try_from(r).ok().filter(|&s| s < 128).map(|s| l >> s),
            BinOp::And => Some(l & r),
            BinOp::Xor => Some(l ^ r),
            BinOp::Or => Some(l | r),
        }
    }

    /// Binding strength, Rust's: higher binds tighter (`*` 5 … `|` 0). The parser and
    /// every printer that drops redundant parentheses share it.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Mul | BinOp::Div | BinOp::Rem => 5,
            BinOp::Add | BinOp::Sub => 4,
            BinOp::Shl | BinOp::Shr => 3,
            BinOp::And => 2,
            BinOp::Xor => 1,
            BinOp::Or => 0,
        }
    }
}

/// A comparison in a `requires` clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl CmpOp {
    /// The operator's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }

    /// Whether `l op r` holds.
    pub fn holds(self, l: i128, r: i128) -> bool {
        match self {
            CmpOp::Lt => l < r,
            CmpOp::Le => l <= r,
            CmpOp::Gt => l > r,
            CmpOp::Ge => l >= r,
            CmpOp::Eq => l == r,
            CmpOp::Ne => l != r,
        }
    }
}

/// An integer expression over geometry values and rule parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A literal.
    Int(i128),
    /// A scalar geometry value (constant or derived).
    Value(GeomId),
    /// The n-th parameter of the enclosing rule.
    Param(u32),
    /// `lhs op rhs`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// Spec-like text: `leaf` spells literals, values and parameters; inner operations
    /// are parenthesised. One renderer for docs and messages.
    pub fn render(&self, leaf: &dyn Fn(&Expr) -> String) -> String {
        fn go(e: &Expr, leaf: &dyn Fn(&Expr) -> String, top: bool) -> String {
            match e {
                Expr::Binary(op, l, r) => {
                    let s =
                        format!("{} {} {}", go(l, leaf, false), op.as_str(), go(r, leaf, false));
                    if top {
                        s
                    } else {
                        format!("({s})")
                    }
                }
                other => leaf(other),
            }
        }
        go(self, leaf, true)
    }
}

/// `lhs op rhs`, a guard of a rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cond {
    /// Left side.
    pub lhs: Expr,
    /// Comparison.
    pub op: CmpOp,
    /// Right side.
    pub rhs: Expr,
    /// The guard's source text, for error messages (`tpb_idx < num_tpb`).
    pub text: String,
}

/// What a geometry item is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GeomKind {
    /// A constant each arch gives.
    Value(GeomType),
    /// A value computed from others; arch files may state it, and must agree.
    Derived(GeomType, Expr),
    /// A function of parameters, emitted as a fallible const fn.
    Rule {
        /// Parameter names.
        params: Vec<String>,
        /// The result.
        expr: Expr,
        /// Guards, checked in order before computing.
        requires: Vec<Cond>,
    },
}

/// One item of the geometry schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeomItem {
    /// snake_case name (`num_tpb`).
    pub name: String,
    /// The Rust getter name.
    pub rust: String,
    /// Constant, derived value or rule.
    pub kind: GeomKind,
    /// Metadata.
    pub meta: Meta,
}

/// A geometry value of one arch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// An integer (fits its declared type).
    Int(i128),
    /// A boolean.
    Bool(bool),
    /// `"?"`: not given by the sources.
    Unknown,
    /// A table.
    Array(Vec<Value>),
}

impl Value {
    /// The integer, if the value is one.
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }
}

/// The value of one geometry item on one arch, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchValue {
    /// The value (for a derived item: the computed one).
    pub value: Value,
    /// `source`, `confidence` and `doc` of the arch file entry (for a derived item
    /// nobody stated: the item's own metadata).
    pub meta: Meta,
    /// The arch whose file holds the entry (differs from the owner when inherited).
    pub defined_in: ArchId,
    /// For a derived item: whether an arch file stated the value (and it agreed).
    pub stated: bool,
    /// The value as the arch file writes it (`0x6`), which the diff quotes; `None` where no
    /// file states it (a derived value computed).
    pub literal: Option<String>,
}

/// One NeuronCore generation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arch {
    /// Codename (`cayman`).
    pub name: String,
    /// Generation number (3), orders archs.
    pub generation: u32,
    /// Marketing generation (`V3`).
    pub label: String,
    /// Other names accepted when parsing (`trn2`).
    pub aliases: Vec<String>,
    /// The arch this one is written as a delta of.
    pub inherits: Option<ArchId>,
    /// Whether any source gives this generation's geometry (`geometry = "unknown"`
    /// in its arch file says none does: it then has no values at all).
    pub geometry_known: bool,
    /// Metadata of the arch file itself.
    pub meta: Meta,
    /// One entry per geometry item (`None` for rules, and for optional values the
    /// arch does not give).
    pub values: Vec<Option<ArchValue>>,
}

impl Arch {
    /// The value of item `g`, if any.
    pub fn value(&self, g: GeomId) -> Option<&ArchValue> {
        self.values.get(g.0 as usize).and_then(Option::as_ref)
    }
}
