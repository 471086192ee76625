//! Parsing `.isa` text into the spanned AST, with syntax errors as diagnostics.

pub mod ast;
mod build;

use pest::error::{ErrorVariant, InputLocation};
use pest::Parser as _;
use pest_derive::Parser;

use crate::diagnostic::Diagnostic;
use crate::source::{FileId, Span};

#[derive(Parser)]
#[grammar = "syntax/isa.pest"]
struct IsaParser;

/// Parse one file. Syntax errors stop the file (pest does not recover); the
/// attachment of docs and attributes can add more diagnostics.
pub fn parse(file: FileId, text: &str) -> Result<ast::File, Vec<Diagnostic>> {
    match IsaParser::parse(Rule::file, text) {
        Ok(mut pairs) => {
            let root = pairs.next().expect("the file rule always yields one pair");
            build::file(file, root)
        }
        Err(e) => Err(vec![syntax_error(file, text, &e)]),
    }
}

fn syntax_error(file: FileId, text: &str, e: &pest::error::Error<Rule>) -> Diagnostic {
    let pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let end = text[pos..].chars().next().map_or(pos, |c| pos + c.len_utf8());
    let found = match text[pos..].chars().next() {
        None => "end of file".to_string(),
        Some(_) => {
            let word: String =
                text[pos..].chars().take_while(|c| !c.is_whitespace()).take(20).collect();
            format!("'{word}'")
        }
    };
    let message = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut names: Vec<&str> = positives.iter().filter_map(|r| rule_phrase(*r)).collect();
            names.sort_unstable();
            names.dedup();
            match names.as_slice() {
                [] => format!("unexpected {found}"),
                [one] => format!("expected {one}, found {found}"),
                many => {
                    let (last, rest) = many.split_last().expect("many has two or more");
                    format!("expected {} or {last}, found {found}", rest.join(", "))
                }
            }
        }
        ErrorVariant::CustomError { message } => message.clone(),
    };
    Diagnostic::error(Span::new(file, pos, end), message).label("here")
}

/// What a user calls each grammar rule in an error message.
fn rule_phrase(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::EOI | Rule::file => "a declaration",
        Rule::ident => "a name",
        Rule::int => "an integer",
        Rule::string => "a string",
        Rule::doc => "a doc comment",
        Rule::attr => "an attribute",
        Rule::attr_name => "an attribute name",
        Rule::attr_word | Rule::arch_range => "an attribute argument",
        Rule::record
        | Rule::struct_def
        | Rule::group_def
        | Rule::arm_def
        | Rule::bits_def
        | Rule::enum_def
        | Rule::band_def
        | Rule::bind_def
        | Rule::sentinel_def
        | Rule::bitmask_def
        | Rule::aperture_def
        | Rule::geometry_def
        | Rule::derived_def
        | Rule::rule_def
        | Rule::kw_record
        | Rule::kw_struct
        | Rule::kw_group
        | Rule::kw_arm
        | Rule::kw_bits
        | Rule::kw_enum
        | Rule::kw_band
        | Rule::kw_bind
        | Rule::kw_sentinel
        | Rule::kw_bitmask
        | Rule::kw_aperture
        | Rule::kw_geometry
        | Rule::kw_derived
        | Rule::kw_rule => "a declaration",
        Rule::discriminant | Rule::kw_discriminant => "'discriminant'",
        Rule::field | Rule::use_member => "a field ('OFFSET NAME TYPE')",
        Rule::kw_use => "'use'",
        Rule::kw_as => "'as'",
        Rule::type_ref | Rule::reserved_ty | Rule::array_ty | Rule::kw_reserved => "a field type",
        Rule::bit_field => "a bit-field ('LO..HI NAME')",
        Rule::alt | Rule::kw_alt => "'alt'",
        Rule::alt_when | Rule::kw_when => "'when'",
        Rule::kw_otherwise => "'otherwise'",
        Rule::variant => "a variant ('NAME = VALUE')",
        Rule::value_range => "a range ('LO..=HI')",
        Rule::sub_opcode | Rule::kw_sub => "', sub @OFFSET = VALUE'",
        Rule::value_ref => "a value or a name",
        Rule::region | Rule::region_sized => "a region ('NAME = BASE + SIZE' or 'NAME = LO..=HI')",
        Rule::geom_type | Rule::geom_array => "a geometry type",
        Rule::optional => "'?'",
        Rule::expr | Rule::paren => "an expression",
        Rule::shl
        | Rule::shr
        | Rule::mul
        | Rule::div
        | Rule::rem
        | Rule::add
        | Rule::sub
        | Rule::and
        | Rule::xor
        | Rule::or => "an operator",
        Rule::cond | Rule::cmp_op => "a comparison",
        Rule::requires | Rule::kw_requires => "'requires'",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(FileId(0), text).unwrap_err()[0].message.clone()
    }

    #[test]
    fn parses_a_struct_with_docs_and_attrs() {
        let f = parse(
            FileId(0),
            "/// Doc.\n@source(\"x\")\nstruct A : 2 {\n  0 a u8 /// trailing\n  @confidence(medium)\n  1 b u8\n}\n",
        )
        .unwrap();
        let item = &f.items[0];
        assert_eq!(item.ann.docs, ["Doc."]);
        let ast::ItemKind::Struct { members, .. } = &item.kind else { panic!("not a struct") };
        let ast::Member::Field { ann: a, .. } = &members[0] else { panic!() };
        assert_eq!(a.docs, ["trailing"]);
        let ast::Member::Field { ann: b, .. } = &members[1] else { panic!() };
        assert_eq!(b.attrs[0].name.name, "confidence");
    }

    #[test]
    fn syntax_errors_name_what_was_expected() {
        assert_eq!(err("struct A : 2 { 0 a }"), "expected a field type, found '}'");
        assert_eq!(err("strukt A"), "expected a declaration, found 'strukt'");
        assert_eq!(
            err("struct A : 1 { 0 a u8 }\n}"),
            "expected a declaration, a doc comment or an attribute, found '}'"
        );
    }
}
