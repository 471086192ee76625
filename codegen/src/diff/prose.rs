//! Doc comments compared as prose: the same words in the same paragraphs are the same
//! docs however their lines are wrapped, so that a re-flowed comment is no change.

/// One piece of a doc comment as it reads: a word, a break between paragraphs or
/// before a list item or heading, or a line of a fenced code block or a table (kept
/// whole, with its spacing, where wrapping is meaning). An indented code block reads as
/// prose: the spec's docs have none.
#[derive(PartialEq, Eq, Debug)]
enum Piece<'a> {
    Word(&'a str),
    Break,
    Code(&'a str),
}

/// Whether a line opens a block of its own when it starts a line: a list item (`-`,
/// `*`, `+`, `1.`, `1)`) or a heading.
fn opens_block(line: &str) -> bool {
    let t = line.trim_start();
    let numbered = |sep: &str| {
        t.split_once(sep)
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
    };
    ["- ", "* ", "+ ", "#"].iter().any(|m| t.starts_with(m)) || numbered(". ") || numbered(") ")
}

/// Whether a line is kept whole, its spacing meant: a table's row.
fn kept_whole(line: &str) -> bool {
    line.trim_start().starts_with('|')
}

/// The pieces of `docs` (one string a line) in order.
fn pieces(docs: &[String]) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in docs {
        let fence = line.trim_start().starts_with("```");
        if fenced || fence || kept_whole(line) {
            out.push(Piece::Code(line.trim_end()));
            fenced ^= fence;
            continue;
        }
        if line.trim().is_empty() || opens_block(line) {
            out.push(Piece::Break);
        }
        out.extend(line.split_whitespace().map(Piece::Word));
    }
    // Blank lines in a row, or at either end, read as one break or none.
    out.dedup_by(|a, b| *a == Piece::Break && *b == Piece::Break);
    let start = usize::from(out.first() == Some(&Piece::Break));
    let end = out.len() - usize::from(out.len() > start && out.last() == Some(&Piece::Break));
    out.drain(end..);
    out.drain(..start);
    out
}

/// Whether two doc comments say the same: the same words, paragraphs, list items and
/// code lines, wrapped anyhow.
pub(super) fn same_prose(a: &[String], b: &[String]) -> bool {
    a == b || pieces(a) == pieces(b)
}

#[cfg(test)]
mod tests {
    use super::same_prose;

    fn docs(text: &str) -> Vec<String> {
        text.lines().map(String::from).collect()
    }

    fn same(a: &str, b: &str) -> bool {
        same_prose(&docs(a), &docs(b))
    }

    #[test]
    fn rewrapped_lines_and_spacing_are_the_same_docs() {
        assert!(same("The operand's address,\nin bytes.", "The operand's\naddress, in bytes."));
        assert!(same("One  two", "One two"));
        assert!(same("A.\n\n\nB.", "A.\n\nB."));
        assert!(same("\nA.\n", "A."));
        assert!(same("- one\n  two\n- three", "- one two\n- three"));
    }

    #[test]
    fn changed_words_paragraphs_items_or_code_are_different_docs() {
        assert!(!same("Does nothing.", "Does nothing at all."));
        assert!(!same("A.\n\nB.", "A.\nB."));
        assert!(!same("- one\n- two", "- one - two"));
        assert!(!same("1. one\n2. two", "1. one 2. two"));
        assert!(!same("1) one\n2) two", "1) one 2) two"));
        assert!(!same("+ one\n+ two", "+ one + two"));
        assert!(!same("| a | b |\n| 1 | 2 |", "| a | b | | 1 | 2 |"));
        assert!(!same("| a |  b |", "| a | b |"));
        assert!(!same("```\nx  = 1\n```", "```\nx = 1\n```"));
        assert!(!same("```\na\nb\n```", "```\na b\n```"));
        assert!(!same("A.", ""));
    }
}
