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

/// Parse one file. A file with syntax errors yields all of them (see [`syntax_errors`])
/// and no AST; the attachment of docs and attributes can add more diagnostics.
pub fn parse(file: FileId, text: &str) -> Result<ast::File, Vec<Diagnostic>> {
    if let Some(at) = too_deep(text) {
        let d = Diagnostic::error(
            Span::new(file, at, at + 1),
            format!("brackets nested deeper than {MAX_NESTING}"),
        )
        .label("this one opens too deep")
        .note("an expression or a type this deep is no spec's; the parser stops here rather than run out of stack");
        return Err(vec![d]);
    }
    match IsaParser::parse(Rule::file, text) {
        Ok(mut pairs) => {
            let root = pairs.next().expect("the file rule always yields one pair");
            build::file(file, root)
        }
        // Parsed again with pest's attempts recorded, which find the token that was
        // missing (a `:` or a `(`), not only the last rule that failed.
        Err(first) => Err(with_error_detail(|| match IsaParser::parse(Rule::file, text) {
            Err(detailed) => syntax_errors(file, text, &detailed),
            Ok(_) => syntax_errors(file, text, &first),
        })),
    }
}

/// Run `f` with pest's error detail on. The switch is process-wide, so it is on only
/// while a file with errors is parsed again for them, one such file at a time; a parse
/// elsewhere meanwhile only records attempts it does not use.
fn with_error_detail<T>(f: impl FnOnce() -> T) -> T {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    struct Off;
    impl Drop for Off {
        fn drop(&mut self) {
            pest::set_error_detail(false);
        }
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    pest::set_error_detail(true);
    let _off = Off;
    f()
}

/// How deep `(`, `[` and `{` may nest. The parser and the lowering recurse once a level,
/// so a bound on the depth bounds the stack they take, in any build profile.
pub const MAX_NESTING: usize = 64;

/// The offset of the first bracket that opens deeper than [`MAX_NESTING`], outside
/// comments and strings.
fn too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in brackets(text) {
        if matches!(c, b'(' | b'[' | b'{') {
            depth += 1;
            if depth > MAX_NESTING {
                return Some(at);
            }
        } else {
            depth = depth.saturating_sub(1);
        }
    }
    None
}

/// Each bracket of `text` (`( ) [ ] { }`) outside `//` comments and strings, with its
/// offset: the nesting the grammar reads.
fn brackets(text: &str) -> impl Iterator<Item = (usize, u8)> + '_ {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let at = i;
            i += 1;
            match b[at] {
                b'/' if b.get(at + 1) == Some(&b'/') => i = line_end(b, at),
                // A string ends at its closing quote or the line's end; `\\` escapes
                // the byte after it.
                b'"' => {
                    while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                c @ (b'(' | b')' | b'[' | b']' | b'{' | b'}') => return Some((at, c)),
                _ => {}
            }
        }
        None
    })
}

/// The offset of the next newline at or after `from`, or the end of `b`.
fn line_end(b: &[u8], from: usize) -> usize {
    b[from..].iter().position(|&c| c == b'\n').map_or(b.len(), |n| from + n)
}

/// The words that begin a top-level declaration; at column 0 they are where parsing
/// resumes after a syntax error.
const ITEM_KEYWORDS: &[&str] = &[
    "record", "struct", "group", "arm", "bits", "enum", "union", "band", "bind", "sentinel",
    "bitmask", "aperture", "geometry", "derived", "rule",
];

/// Enough to fix a file in one pass without burying the first error.
const MAX_SYNTAX_ERRORS: usize = 20;

/// Every syntax error of a file, not only pest's first: blank the declaration that
/// holds an error (spaces, newlines kept, so every offset stays put) and parse again,
/// until the rest parses. An error at the start of a declaration means the one before
/// it is unterminated, so that one is blanked too, and a missing `}` is one error, not
/// one per following declaration. Recovery stops if a parse makes no progress.
fn syntax_errors(file: FileId, text: &str, first: &pest::error::Error<Rule>) -> Vec<Diagnostic> {
    let mut out = vec![];
    let mut masked = text.as_bytes().to_vec();
    let mut pos = error_pos(text, first);
    let mut error = syntax_error(file, text, first);
    loop {
        let (from, to, unfinished) = declaration_around(text, pos);
        // At the next declaration or at the end of the file, a block still open is the
        // likely mistake: name the item it belongs to.
        let at_end = text[pos..].trim().is_empty();
        if unfinished || at_end {
            if let Some(open) = unclosed_block(&text[from..pos]) {
                error = error.with(
                    Span::new(file, from + open, from + open + 1),
                    format!("the block of {} opened here is not closed", item_title(&text[from..])),
                );
            } else if unfinished {
                let end = text[from..].find(char::is_whitespace).map_or(text.len(), |n| from + n);
                error = error.with(Span::new(file, from, end), "this declaration is not finished");
            }
        }
        out.push(error);
        if out.len() == MAX_SYNTAX_ERRORS {
            break;
        }
        for b in &mut masked[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        // Whole UTF-8 sequences were blanked (only whole lines are), so this is text.
        let Ok(m) = std::str::from_utf8(&masked) else { break };
        match IsaParser::parse(Rule::file, m) {
            Ok(_) => break,
            Err(e) if error_pos(text, &e) >= to && error_pos(text, &e) > pos => {
                pos = error_pos(text, &e);
                error = syntax_error(file, text, &e);
            }
            Err(_) => break,
        }
    }
    out
}

/// The byte range of the declaration that holds the error at `pos`: from the start of
/// its keyword line to the next keyword line (or the end of the file), and whether the
/// error sits at the start of a declaration, so the range is the unfinished one before.
fn declaration_around(text: &str, pos: usize) -> (usize, usize, bool) {
    let line_start = |p: usize| text[..p].rfind('\n').map_or(0, |i| i + 1);
    let starts_item = |at: usize| {
        let rest = &text[at..];
        ITEM_KEYWORDS.iter().any(|k| {
            rest.starts_with(k)
                && !rest[k.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let here = line_start(pos);
    let at_item_start = pos == here && starts_item(here);
    let from;
    let mut search = if at_item_start { here.saturating_sub(1) } else { here };
    loop {
        let l = line_start(search);
        if starts_item(l) && !(at_item_start && l == here) {
            from = l;
            break;
        }
        if l == 0 {
            from = if at_item_start { 0 } else { here };
            break;
        }
        search = l - 1;
    }
    let mut to = text.len();
    let mut next = text[pos..].find('\n').map(|i| pos + i + 1);
    while let Some(l) = next {
        if l >= text.len() {
            break;
        }
        if starts_item(l) || begins_like_declaration(&text[l..]) {
            to = l;
            break;
        }
        next = text[l..].find('\n').map(|i| l + i + 1);
    }
    (from, to, at_item_start && from < here)
}

/// Whether a line (at column 0) begins what is probably the next declaration though not
/// a well-formed one: its doc comment or attribute, or a word a typo away from a keyword
/// (`arn`, `bnid`), so that two broken declarations in a row are two errors.
fn begins_like_declaration(line: &str) -> bool {
    if line.starts_with("///") || line.starts_with('@') {
        return true;
    }
    let word: &str =
        line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or("");
    !word.is_empty()
        && word.starts_with(|c: char| c.is_ascii_lowercase())
        && line[word.len()..].starts_with(' ')
        && ITEM_KEYWORDS.iter().any(|k| crate::lower::distance(word, k) <= 2.min(k.len() / 2))
}

/// The offset of the outermost `{` of `decl` that no `}` closes, skipping comments and
/// strings.
fn unclosed_block(decl: &str) -> Option<usize> {
    let mut open = Vec::new();
    for (i, c) in brackets(decl) {
        match c {
            b'{' => open.push(i),
            b'}' => {
                open.pop();
            }
            _ => {}
        }
    }
    open.first().copied()
}

/// `struct 'A'`: the keyword and name a declaration begins with.
fn item_title(decl: &str) -> String {
    let mut words =
        decl.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty());
    match (words.next(), words.next()) {
        (Some(kw), Some(name)) => format!("{kw} '{name}'"),
        (Some(kw), None) => kw.to_string(),
        _ => "this declaration".to_string(),
    }
}

/// Where the parse went wrong. pest's own position is that of the last rule that failed,
/// which for a missing `:` after an arm's name (a token, not a rule) is the start of the
/// declaration; when the parse reached further and wanted punctuation there, that is the
/// place, or the end of the line before it when the token should have ended that line
/// (`@source` and a newline).
fn error_pos(text: &str, e: &pest::error::Error<Rule>) -> usize {
    let Some((at, _)) = missing_token(e) else { return rule_error_pos(e) };
    let before = text[..at].trim_end();
    if text[before.len()..at].contains('\n') {
        before.len()
    } else {
        at
    }
}

/// The furthest position the parse reached past pest's own and the punctuation it
/// wanted there, if any.
fn missing_token(e: &pest::error::Error<Rule>) -> Option<(usize, Vec<String>)> {
    let at = e.parse_attempts()?.max_position;
    let tokens = expected_tokens(e);
    (at > rule_error_pos(e) && !tokens.is_empty()).then_some((at, tokens))
}

/// pest's position: where the last rule that failed began.
fn rule_error_pos(e: &pest::error::Error<Rule>) -> usize {
    match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    }
}

/// The punctuation the parse wanted at its furthest position (`':'`, `'('`), without
/// the blanks and comments that may come anywhere, keywords, and the pieces of names
/// and numbers.
fn expected_tokens(e: &pest::error::Error<Rule>) -> Vec<String> {
    let Some(attempts) = e.parse_attempts() else { return vec![] };
    // pest does not export its token type; its text is the literal, or `a..z` for a
    // character range, which here is only ever a piece of a name or a number.
    let piece_of_a_word = |t: &str| {
        let c: Vec<char> = t.chars().collect();
        matches!(c.as_slice(), [_, '.', '.', _]) || t == "BUILTIN_RULE"
    };
    let mut out: Vec<String> = attempts
        .expected_tokens()
        .into_iter()
        .map(|t| t.to_string())
        .filter(|t| {
            // A keyword is its rule's, which the message names ("a declaration"); a
            // digit is a piece of a number.
            !piece_of_a_word(t)
                && !t.starts_with(|c: char| c.is_ascii_alphanumeric())
                && !matches!(
                    t.as_str(),
                    " " | "\t" | "\r" | "\n" | "//" | "///" | "_" | "0x" | "0b"
                )
        })
        .map(|t| format!("'{t}'"))
        .collect();
    out.dedup();
    out
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(names: &[String]) -> String {
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn syntax_error(file: FileId, text: &str, e: &pest::error::Error<Rule>) -> Diagnostic {
    let pos = error_pos(text, e);
    // A caret at a line's end stays on that line.
    let end = text[pos..].chars().next().filter(|&c| c != '\n').map_or(pos, |c| pos + c.len_utf8());
    let found = match text[pos..].chars().next() {
        None => "end of file".to_string(),
        Some('\n') => "the end of the line".to_string(),
        // A blank that is not the grammar's (a no-break space) is shown itself.
        Some(c) if c.is_whitespace() => format!("'{}'", shown(c)),
        Some(_) => {
            let word: String = text[pos..]
                .chars()
                .take_while(|c| !c.is_whitespace())
                .take(20)
                .map(shown)
                .collect();
            format!("'{word}'")
        }
    };
    let message = match (&e.variant, missing_token(e)) {
        // Past the last rule that failed: a token was missing there.
        (_, Some((_, tokens))) => format!("expected {}, found {found}", one_of(&tokens)),
        (ErrorVariant::ParsingError { positives, .. }, None) => {
            let mut names: Vec<String> =
                positives.iter().filter_map(|r| rule_phrase(*r)).map(str::to_string).collect();
            names.sort_unstable();
            names.dedup();
            // The punctuation wanted at the same place (`=>` after a binding's opcode),
            // unless it only begins something named already (`@` an attribute, which
            // is never required, `[` an array type).
            if e.parse_attempts().is_some_and(|a| a.max_position == rule_error_pos(e)) {
                let named = |n: &str| names.iter().any(|x| x == n);
                let covered = |t: &str| match t {
                    "'@'" => true,
                    "'['" => names.iter().any(|n| n.ends_with(" type")),
                    "'('" => named("an expression"),
                    "'\"'" => named("a string"),
                    _ => names.iter().any(|n| n.starts_with(&t[..t.len() - 1])),
                };
                let extra: Vec<String> =
                    expected_tokens(e).into_iter().filter(|t| !covered(t)).collect();
                names.extend(extra);
            }
            match names.as_slice() {
                [] => format!("unexpected {found}"),
                _ => format!("expected {}, found {found}", one_of(&names)),
            }
        }
        (ErrorVariant::CustomError { message }, None) => message.clone(),
    };
    // The string's rule failed where it opens; the parse reached its line's end.
    if let Some(open) =
        [pos, rule_error_pos(e)].into_iter().find(|&p| unterminated_string(&text[p..]))
    {
        let message =
            "unterminated string: no closing '\"' on this line (a string cannot span lines)";
        return Diagnostic::error(Span::new(file, open, open + 1), message)
            .label("the string opens here");
    }
    let d = Diagnostic::error(Span::new(file, pos, end), message).label("here");
    // An attribute without its parentheses (`@archs`, `@bogus`): what it lacks, and
    // what the attributes are when the name is none of them.
    if let Some(name) = attribute_before(text, pos) {
        return if crate::lower::is_attribute(name) {
            d.note(format!("an attribute's arguments go in parentheses: @{name}(...)"))
        } else {
            d.note(format!(
                "'@{name}' is not an attribute: {}",
                crate::lower::unknown_attribute_note(name)
            ))
        };
    }
    match text[pos..].chars().next() {
        Some(c) if !c.is_ascii() => d.note(format!(
            "'{}' (U+{:04X}) is not ASCII: names, numbers and punctuation are; only strings and comments may hold other characters",
            shown(c),
            u32::from(c)
        )),
        _ => d,
    }
}

/// The name of an attribute that ends just before `pos` on its line (`@bogus`, then
/// blanks), where its `(` was expected.
fn attribute_before(text: &str, pos: usize) -> Option<&str> {
    let before = text[..pos].trim_end_matches([' ', '\t']);
    let start = before.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_').len();
    let name = &before[start..];
    let at = before[..start].strip_suffix('@')?;
    (!name.is_empty() && !at.ends_with(|c: char| c.is_ascii_alphanumeric())).then_some(name)
}

/// Whether `c` takes no column or prints nothing where an editor shows it: a control
/// character, a zero-width space or joiner, a direction mark, a byte-order mark pasted
/// inside a file.
fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{ad}'
                | '\u{34f}'
                | '\u{61c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{e0000}'..='\u{e007f}'
        )
}

/// `c` as a message shows it: itself, or its escape (`\u{200b}`) when it is invisible.
fn shown(c: char) -> String {
    if invisible(c) {
        c.escape_unicode().to_string()
    } else {
        c.to_string()
    }
}

/// Whether `rest` opens a string that its line does not close (strings are one line;
/// `\\` escapes the next character).
fn unterminated_string(rest: &str) -> bool {
    let Some(body) = rest.strip_prefix('"') else { return false };
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return false,
            '\n' => return true,
            '\\' if chars.next().is_none_or(|c| c == '\n') => return true,
            _ => {}
        }
    }
    true
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
        | Rule::union_def
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
        | Rule::kw_union
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
        Rule::type_ref
        | Rule::reserved_ty
        | Rule::unknown_ty
        | Rule::array_ty
        | Rule::kw_reserved
        | Rule::kw_unknown => "a field type",
        Rule::bit_field => "a bit-field ('LO..HI NAME')",
        Rule::bit_type => "a bit-field type",
        Rule::engines_decl | Rule::kw_engines => "'engines'",
        Rule::preamble_sel => "'(PREAMBLE MEMBERS)'",
        Rule::enum_width => "':' and a width",
        Rule::variant_arm => "'=> ARM'",
        Rule::view => "a view ('NAME TYPE')",
        Rule::view_when | Rule::kw_byte => "'when byte N & MASK == VALUE'",
        Rule::alt | Rule::kw_alt => "'alt'",
        Rule::alt_when | Rule::kw_when => "'when'",
        Rule::kw_otherwise => "'otherwise'",
        Rule::variant => "a value ('NAME = VALUE')",
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

    /// Every spec example of the language guide (`isa/README.md`'s plain fenced blocks,
    /// but those that elide with `...`) parses: the guide shows the syntax the parser
    /// takes.
    #[test]
    fn the_language_guides_examples_parse() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../isa/README.md");
        let guide = std::fs::read_to_string(path).expect("isa/README.md");
        // The line of the open block's fence, and whether it is a spec's (no language).
        let (mut block, mut open, mut checked) = (String::new(), None, 0);
        for (i, line) in guide.lines().enumerate() {
            match (open, line.trim_end()) {
                (None, fence) if fence.starts_with("```") => open = Some((i + 1, fence == "```")),
                (None, _) => {}
                (Some((_, false)), "```") => (block, open) = (String::new(), None),
                (Some((at, true)), "```") => {
                    // Attributes shown alone describe an item the guide leaves out.
                    let alone = block.lines().all(|l| l.trim().is_empty() || l.starts_with('@'));
                    if alone {
                        block.push_str("struct SHOWN : 1 {}\n");
                    }
                    if !block.contains("...") {
                        let parsed = parse(FileId(0), &block);
                        let errors = parsed.err().unwrap_or_default();
                        let said: Vec<&str> = errors.iter().map(|d| d.message.as_str()).collect();
                        assert!(said.is_empty(), "isa/README.md:{at}: {said:?}\n{block}");
                        checked += 1;
                    }
                    (block, open) = (String::new(), None);
                }
                (Some(_), text) => {
                    block.push_str(text);
                    block.push('\n');
                }
            }
        }
        assert!(checked >= 10, "{checked} examples checked");
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
    fn an_unknown_string_escape_is_an_error_at_the_escape() {
        let text = "@source(\"a\\qb \\\" \\\\ \\n \\t\")\nderived d : u32 = 1\n";
        let e = parse(FileId(0), text).unwrap_err();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].message, "unknown escape '\\q' in a string");
        assert_eq!(&text[e[0].span.start as usize..e[0].span.end as usize], "\\q");
        assert!(parse(FileId(0), &text.replace("\\q", "q")).is_ok());
    }

    #[test]
    fn an_expression_past_the_operator_limit_is_one_error_not_a_deep_tree() {
        use super::build::MAX_OPERATORS;
        let flat = |n: usize| format!("derived d : u32 = 1{}\n", " + 1".repeat(n));
        assert!(parse(FileId(0), &flat(MAX_OPERATORS)).is_ok());
        // 5,000 terms overflowed the stack of the lowering that walks the tree.
        for text in [flat(MAX_OPERATORS + 1), flat(5_000), flat(200_000)] {
            let e = parse(FileId(0), &text).unwrap_err();
            assert_eq!(e.len(), 1);
            assert!(e[0].message.contains("more than 256 operators"), "{}", e[0].message);
        }
        // Operators inside parentheses count too.
        let nested = format!("derived d : u32 = {}1{}\n", "(1 + ".repeat(60), ")".repeat(60));
        let text = nested.replace("(1 + ", &format!("(1{} + ", " * 1".repeat(4)));
        assert!(parse(FileId(0), &text).is_err());
        assert!(parse(FileId(0), &nested).is_ok());
    }

    #[test]
    fn brackets_nested_past_the_limit_are_one_error_at_the_first_too_deep() {
        let nest = |n: usize| format!("derived d : u32 = {}1{}\n", "(".repeat(n), ")".repeat(n));
        assert!(parse(FileId(0), &nest(MAX_NESTING)).is_ok());
        let text = nest(MAX_NESTING + 1);
        let e = parse(FileId(0), &text).unwrap_err();
        assert_eq!(e.len(), 1);
        assert!(e[0].message.contains("nested deeper than 64"), "{}", e[0].message);
        assert_eq!(e[0].span.start as usize, text.find('(').unwrap() + MAX_NESTING);
        // Brackets in comments and strings do not count.
        let quiet = format!(
            "// {}\n/// {}\n@source(\"{}\")\nstruct A : 1 {{\n  0 a u8\n}}\n",
            "(".repeat(99),
            "[".repeat(99),
            "{".repeat(99)
        );
        assert!(parse(FileId(0), &quiet).is_ok(), "{:?}", parse(FileId(0), &quiet).err());
    }

    fn items(text: &str) -> Vec<ast::Item> {
        match parse(FileId(0), text) {
            Ok(f) => f.items,
            Err(e) => panic!("{text:?} does not parse: {:?}", e[0].message),
        }
    }

    #[test]
    fn parses_a_union_with_tests_and_attributes() {
        let i = items("union U : 4 {\n  i I when byte 3 & 0x60 == 0x20\n  t T otherwise @archs(new)\n  f f32\n}\n");
        let ast::ItemKind::Union { size, views } = &i[0].kind else { panic!("not a union") };
        assert_eq!(size.value, 4);
        let w = views[0].when.as_ref().expect("a byte test");
        assert_eq!((w.offset.value, w.mask.value, w.value.value), (3, 0x60, 0x20));
        assert!(!views[0].otherwise && views[1].otherwise && views[1].when.is_none());
        assert_eq!(views[1].ann.attrs[0].name.name, "archs");
        assert!(views[2].when.is_none() && !views[2].otherwise);
    }

    #[test]
    fn parses_the_opcode_table_and_a_vocabulary() {
        let i = items("enum ENGINE { PE ACT }\n@status(maintained)\nenum OPCODE : u8 {\n  A = 1 => X @engine(PE, ACT) @status(dormant)\n  B = 2\n}\n");
        let ast::ItemKind::Enum { width: None, variants } = &i[0].kind else {
            panic!("a vocabulary")
        };
        let words: Vec<&str> = variants.iter().map(|v| v.name.name.as_str()).collect();
        assert_eq!(words, ["PE", "ACT"]);
        assert!(variants.iter().all(|v| v.value.is_none() && v.arm.is_none()));
        let ast::ItemKind::Enum { width: Some(w), variants } = &i[1].kind else {
            panic!("an enum")
        };
        assert_eq!(w.name, "u8");
        assert_eq!(i[1].ann.attrs[0].name.name, "status");
        assert_eq!(variants[0].arm.as_ref().map(|a| a.name.as_str()), Some("X"));
        let attrs: Vec<&str> = variants[0].ann.attrs.iter().map(|a| a.name.name.as_str()).collect();
        assert_eq!(attrs, ["engine", "status"]);
        assert_eq!(variants[0].ann.attrs[0].args.len(), 2);
        assert!(variants[1].arm.is_none() && variants[1].ann.attrs.is_empty());
    }

    #[test]
    fn parses_preamble_subsets_engines_and_unknown_bytes() {
        let i = items("record R : 8 {\n  discriminant 0 OPCODE\n  engines ENGINE\n  0 h H\n}\narm A : R() {\n  0 op OPCODE\n  1 u unknown[7]\n}\narm B : R(h, e) {\n}\narm C : R {\n}\n");
        let ast::ItemKind::Record { engines, .. } = &i[0].kind else { panic!("a record") };
        assert_eq!(engines[0].name, "ENGINE");
        let preamble = |k: &ast::ItemKind| match k {
            ast::ItemKind::Arm { preamble, .. } => {
                preamble.as_ref().map(|(v, _)| v.iter().map(|x| x.name.clone()).collect::<Vec<_>>())
            }
            _ => panic!("an arm"),
        };
        assert_eq!(preamble(&i[1].kind), Some(vec![]));
        assert_eq!(preamble(&i[2].kind), Some(vec!["h".to_string(), "e".to_string()]));
        assert_eq!(preamble(&i[3].kind), None);
        let ast::ItemKind::Arm { members, .. } = &i[1].kind else { panic!() };
        let ast::Member::Field { ty: ast::TypeRef::Unknown(n, _), .. } = &members[1] else {
            panic!("unknown[7]")
        };
        assert_eq!(n.value, 7);
    }

    #[test]
    fn parses_typed_bit_fields() {
        let i = items("bits P : u8 {\n  0..4 lo DTYPE\n  4..7 hi\n  7..8 f bool\n}\n");
        let ast::ItemKind::Bits { fields, .. } = &i[0].kind else { panic!("bits") };
        let types: Vec<Option<&str>> =
            fields.iter().map(|f| f.ty.as_ref().map(|t| t.name.as_str())).collect();
        assert_eq!(types, [Some("DTYPE"), None, Some("bool")]);
    }

    #[test]
    fn an_unclosed_block_is_found_past_comments_and_strings() {
        assert_eq!(unclosed_block("struct A : 1 { // }\n  @source(\"}\") 0 a u8\n"), Some(13));
        assert_eq!(
            unclosed_block("bits B : u8 {\n  alt a otherwise {\n    0..1 x\n  }\n"),
            Some(12)
        );
        // The outermost open block is the item's, whichever inner brace is missing.
        assert_eq!(unclosed_block("bits B : u8 {\n  alt a otherwise {\n    0..1 x\n}\n"), Some(12));
        assert_eq!(unclosed_block("struct A : 1 {\n  0 a u8\n}\n"), None);
        assert_eq!(unclosed_block("@source(\"\\\"{\")\nrule r(x) = x\n"), None);
        assert_eq!(item_title("arm X : R() {"), "arm 'X'");
        assert_eq!(item_title("enum ENGINE { PE }"), "enum 'ENGINE'");
        assert_eq!(item_title("{"), "this declaration");
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

    /// Punctuation the grammar wants is named with the rules it wants, and a missing
    /// token is reported where it is missing, not at its declaration's start.
    #[test]
    fn syntax_errors_name_the_punctuation_wanted() {
        assert_eq!(err("bind 0x04 K\n"), "expected ', sub @OFFSET = VALUE' or '=>', found 'K'");
        assert_eq!(
            err("enum E : u8 {\n    A 1\n}\n"),
            "expected a doc comment, a name, an attribute, '=' or '}', found '1'"
        );
        let text = "struct A : 1 {\n    0 a u8\n}\narm B R {\n}\n";
        let e = parse(FileId(0), text).unwrap_err();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].message, "expected ':', found 'R'");
        assert_eq!(&text[e[0].span.range()], "R");
        assert!(e[0].secondary.is_empty(), "struct A is not unfinished: {:?}", e[0].secondary);
        assert_eq!(err("@source(\"a\" 3)\nstruct A : 1 {}\n"), "expected ')' or ',', found '3)'");
    }

    /// A character the grammar does not take is named, a blank one too (a no-break
    /// space pasted from a web page).
    #[test]
    fn a_character_that_is_not_ascii_is_named() {
        let e = parse(FileId(0), "struct A : 1 {\n    0 a u8\u{a0}\n}\n").unwrap_err();
        assert!(e[0].message.ends_with("found '\u{a0}'"), "{}", e[0].message);
        assert!(e[0].notes[0].starts_with("'\u{a0}' (U+00A0) is not ASCII"), "{:?}", e[0].notes);
    }

    /// An attribute written without its parentheses says so, and names the attributes
    /// when the name is none of them (it read only "expected '('").
    #[test]
    fn an_attribute_without_parentheses_is_named() {
        let e = parse(FileId(0), "@bogus\nstruct A : 1 {\n    0 a u8\n}\n").unwrap_err();
        assert_eq!(e[0].notes, ["'@bogus' is not an attribute: known attributes: @source, @confidence, @archs, @waive, @status, @engine"]);
        let e = parse(FileId(0), "struct A : 1 {\n    0 a u8 @acrhs\n}\n").unwrap_err();
        assert_eq!(e[0].notes, ["'@acrhs' is not an attribute: did you mean 'archs'?"]);
        let e = parse(FileId(0), "struct A : 1 {\n    0 a u8 @archs\n}\n").unwrap_err();
        assert_eq!(e[0].notes, ["an attribute's arguments go in parentheses: @archs(...)"]);
    }

    /// A character that takes no column (a zero-width space, a byte-order mark inside a
    /// file) is named by its escape: shown itself, the message read `found ''` and the
    /// renderer draws no caret under it.
    #[test]
    fn an_invisible_character_is_named_by_its_escape() {
        // U+2066..U+2069: the bidi isolates of "Trojan Source", which reorder the text
        // a terminal shows around them.
        for (c, esc) in [
            ('\u{200b}', "\\u{200b}"),
            ('\u{feff}', "\\u{feff}"),
            ('\u{2066}', "\\u{2066}"),
            ('\u{2069}', "\\u{2069}"),
        ] {
            let text = format!("struct A : 1 {{\n    0 a{c} u8\n}}\n");
            let e = parse(FileId(0), &text).unwrap_err();
            assert!(e[0].message.ends_with(&format!("found '{esc}'")), "{}", e[0].message);
            assert!(e[0].notes[0].starts_with(&format!("'{esc}' (U+")), "{:?}", e[0].notes);
            assert_eq!(e[0].span.start as usize, text.find(c).unwrap());
        }
    }

    /// A number runs to the end of its word: a bad digit is an error at the number,
    /// not a `0` followed by a name (`0xZZ` read as `0 xZZ`).
    #[test]
    fn a_bad_digit_is_an_error_at_its_number() {
        for (text, at) in [
            ("struct A : 1 {\n    0xZZ a u8\n}\n", "0xZZ"),
            ("struct A : 1 {\n    0b102 a u8\n}\n", "0b102"),
            ("struct A : 1 {\n    12a u8\n}\n", "12a"),
        ] {
            let e = parse(FileId(0), text).unwrap_err();
            assert_eq!(e.len(), 1, "{text}: {e:?}");
            assert!(e[0].message.ends_with(&format!("found '{at}'")), "{text}: {}", e[0].message);
        }
        assert!(parse(FileId(0), "struct A : 0x1_0 {\n    0b0_0 a [u8; 1_6]\n}\n").is_ok());
    }

    /// Two broken declarations in a row are two errors: recovery resumes at a line that
    /// begins like a declaration (a keyword's near miss, a doc comment, an attribute).
    #[test]
    fn consecutive_broken_declarations_are_each_reported() {
        let msgs = |text: &str| -> Vec<String> {
            parse(FileId(0), text).unwrap_err().into_iter().map(|d| d.message).collect()
        };
        assert_eq!(
            msgs("arn K : R {\n    12 a u8\n}\n@source(\"t\")\nbnid 0x0b => K\n"),
            [
                "expected a declaration, found 'arn'",
                "expected a declaration, a doc comment or an attribute, found 'bnid'",
            ]
        );
        assert_eq!(
            msgs("arn A : R {\n}\narn B : R {\n}\nstruct C : 1 {\n    0 c u8\n}\n").len(),
            2
        );
        // A member line at column 0 is not taken for a declaration.
        assert_eq!(msgs("struct A : 1 {\n0 a u8\nbogus\n}\n").len(), 1);
    }

    #[test]
    fn an_unterminated_string_is_named() {
        let e = err("@source(\"notes: open\nstruct A : 1 { 0 a u8 }\n");
        assert!(e.starts_with("unterminated string"), "{e}");
        assert!(unterminated_string("\"a\\\"b\n\""));
        assert!(!unterminated_string("\"a\\\"b\" x"));
        assert!(!unterminated_string("'x'"));
    }
}
