//! The naming policy: the only place Rust identifiers are made from spec names.
//!
//! Types and variants are UpperCamelCase (`CTRL_AL` → `CtrlAl`, `DMA_DIRECT2D` →
//! `DmaDirect2d`), fields, functions and modules snake_case, constants SHOUTY_SNAKE_CASE,
//! all through heck. Keywords become raw identifiers (`type` → `r#type`); the few words
//! that cannot be raw (`self`, `Self`, `super`, `crate`, `_`) get a trailing `_`. The
//! string forms are public so that `lower` can reject two spec names with one Rust name.

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span};

/// Every strict and reserved keyword of Rust 2021, plus the 2024 `gen`.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "union", "unsafe", "unsized",
    "use", "virtual", "where", "while", "yield",
];

/// Type names the generated crate defines itself, imports from the runtime, or adds to
/// the arms' variants, beside those of spec items (`codegen/tests/reserved_names.rs`
/// checks the generated files for names missing here).
pub const RESERVED_TYPES: &[&str] = &[
    // The record, its arms and generations.
    "Inst",
    "ArmKind",
    "Arm",
    "Raw",
    "Opaque",
    "Preamble",
    "Unknown",
    "Arch",
    "Geometry",
    "UnknownArch",
    "Sentinel",
    "SubByte",
    "Binding",
    "F32",
    "Layout",
    // Errors.
    "DecodeError",
    "ValidateError",
    "GeometryError",
    "Comparison",
    // Provenance (`Confidence`'s variants are imported by name).
    "Status",
    "Certain",
    "Medium",
    "Inferred",
    // The text form's tables (`Kind`'s and `Role`'s variants are imported by glob).
    "AltDesc",
    "ArmText",
    "BitKind",
    "BitsDesc",
    "EnumDesc",
    "FieldDesc",
    "LayoutText",
    "UnionDesc",
    "ViewDesc",
    "ViewSelect",
    "Select",
    "Target",
    "Line",
    "Buf",
    "Printer",
    "Printed",
    "Reader",
    "Uint",
    "Int",
    "Enum",
    "Bits",
    "Union",
    "Array",
    "Str",
    "Bytes",
    "Normal",
    "Preamble",
    "Reserved",
    // The validator's and geometry's tables.
    "Plan",
    "SubPlan",
    "Gate",
    "Refusal",
    "Unrolled",
    "ByteTests",
    "EnumCheck",
    "EnumLeaf",
    "GeomRow",
    "Region",
];

/// Methods every arm's view has, which a field accessor may not shadow.
pub const RESERVED_ARM_METHODS: &[&str] = &["bytes", "to_owned", "decode", "encode", "new"];

/// Methods every operand (bits) type has beside its bit-fields' getters `x` and setters
/// `with_x`, which a bit-field's may not shadow.
pub const RESERVED_BITS_METHODS: &[&str] = &["new", "bits", "form"];

/// Keywords that cannot be written as raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// UpperCamelCase name of a type or variant (`PSEUDO_OPCODE` → `PseudoOpcode`).
pub fn type_str(spec: &str) -> String {
    fix_leading_digit(spec.to_upper_camel_case(), "N")
}

/// snake_case name of a field, function, parameter or module (`wait_mode`, `num_tpb`).
pub fn snake_str(spec: &str) -> String {
    fix_leading_digit(spec.to_snake_case(), "n")
}

/// SHOUTY_SNAKE_CASE name of a constant (`num_tpb` → `NUM_TPB`).
pub fn const_str(spec: &str) -> String {
    fix_leading_digit(spec.to_shouty_snake_case(), "N")
}

/// The identifier of a type named in the spec (struct, arm, enum, bits type).
pub fn ty(spec: &str) -> Ident {
    ident(&type_str(spec))
}

/// The identifier of an enum variant or a form of an operand.
pub fn variant(spec: &str) -> Ident {
    ident(&type_str(spec))
}

/// The identifier of a field, function, parameter or module.
pub fn snake(spec: &str) -> Ident {
    ident(&snake_str(spec))
}

/// A snake_case identifier joined from parts (`["is", "host_only"]` → `is_host_only`).
pub fn snake_join(parts: &[&str]) -> Ident {
    snake(&parts.join("_"))
}

/// A constant identifier joined from parts (`["marker", "mask"]` → `MARKER_MASK`).
pub fn const_join(parts: &[&str]) -> Ident {
    ident(&const_str(&parts.join("_")))
}

/// A type identifier joined from parts (`["ADDR4", "form"]` → `Addr4Form`).
pub fn type_join(parts: &[&str]) -> Ident {
    ty(&parts.join("_"))
}

/// The identifier of a constant named in the spec.
pub fn constant(spec: &str) -> Ident {
    ident(&const_str(spec))
}

/// The identifier of a Rust name the naming pass stored in the model; raw when it is
/// a keyword.
pub fn ident(s: &str) -> Ident {
    if NOT_RAW.contains(&s) {
        Ident::new(&format!("{s}_"), Span::call_site())
    } else if KEYWORDS.contains(&s) {
        Ident::new_raw(s, Span::call_site())
    } else {
        Ident::new(s, Span::call_site())
    }
}

/// Prefix a name that starts with a digit (or is empty) so that it is an identifier.
fn fix_leading_digit(s: String, prefix: &str) -> String {
    if s.chars().next().is_none_or(|c| c.is_ascii_digit()) {
        format!("{prefix}{s}")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_upper_camel() {
        for (spec, rust) in [
            ("CTRL_AL", "CtrlAl"),
            ("DMA_DIRECT2D", "DmaDirect2d"),
            ("S3D3_TS", "S3d3Ts"),
            ("ADDR4", "Addr4"),
            ("TENSOR3D", "Tensor3d"),
            ("REG_NUM", "RegNum"),
            ("OPCODE", "Opcode"),
            ("PSEUDO_OPCODE", "PseudoOpcode"),
        ] {
            assert_eq!(ty(spec).to_string(), rust);
        }
    }

    #[test]
    fn keywords_are_escaped() {
        assert_eq!(snake("type").to_string(), "r#type");
        assert_eq!(snake("self").to_string(), "self_");
        assert_eq!(ty("SELF").to_string(), "Self_");
        assert_eq!(snake("wait_mode").to_string(), "wait_mode");
        assert_eq!(constant("num_tpb").to_string(), "NUM_TPB");
        assert_eq!(snake_join(&["is", "host_only"]).to_string(), "is_host_only");
        assert_eq!(type_join(&["ADDR4", "form"]).to_string(), "Addr4Form");
        assert_eq!(ty("2D").to_string(), "N2d");
    }
}
