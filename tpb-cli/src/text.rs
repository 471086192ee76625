//! Text that comes from the input file (header strings, member paths, function names),
//! made safe to print, and counts with their nouns.
//!
//! A string from the file is shown escaped as the disassembler prints a name field
//! (`function_name="…"`, [`tpb_isa::disasm::Escaped`]): printable ASCII as is, `"` and
//! `\` escaped, any other byte as `\xNN`. The listing and the tables then agree with the
//! record text, and no file can move the cursor, colour the terminal or forge a line.

use serde_json::Value;
use tpb_isa::disasm::Escaped;

/// `bytes` as the record text shows a name (a name that is not UTF-8 reads
/// unambiguously).
pub fn escape(bytes: &[u8]) -> String {
    Escaped(bytes).to_string()
}

/// A stream's label (already [`escape`]d) as a listing's heading prints it: a leading
/// blank, and a `#` or `;` at the start or after a blank, also as `\xNN`, which `tpb asm`
/// would otherwise take for a row or a comment; [`unescape`] reads them back.
pub fn heading_label(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    let mut after_blank = true;
    for c in label.chars() {
        let hide = match c {
            ' ' => out.is_empty(),
            '#' | ';' => after_blank,
            _ => false,
        };
        if hide {
            out.push_str(&format!("\\x{:02x}", u32::from(c)));
        } else {
            out.push(c);
        }
        after_blank = c == ' ';
    }
    out
}

/// The bytes [`escape`] shows as `text`: `\\`, `\"` and `\xNN` read back, any other
/// character as itself (a name typed by hand); `None` for another `\` sequence.
pub fn unescape(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&c, tail)) = rest.split_first() {
        rest = tail;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        match *rest {
            [q @ (b'\\' | b'"'), ref tail @ ..] => {
                out.push(q);
                rest = tail;
            }
            [b'x', hi, lo, ref tail @ ..] => {
                let digit = |d: u8| char::from(d).to_digit(16);
                out.push((digit(hi)? * 16 + digit(lo)?) as u8);
                rest = tail;
            }
            _ => return None,
        }
    }
    Some(out)
}

/// A C string of a fixed-size header field: the bytes up to the first NUL.
pub fn c_bytes(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|&c| c == 0).unwrap_or(field.len());
    &field[..end]
}

/// A string from the file as JSON: the string itself when it is UTF-8 (JSON escapes
/// control characters on its own), else the text form's escaping ([`escape`]), so that
/// no byte is lost as U+FFFD.
pub fn json(bytes: &[u8]) -> Value {
    match std::str::from_utf8(bytes) {
        Ok(s) => Value::from(s),
        Err(_) => Value::from(escape(bytes)),
    }
}

/// `n` and the noun, plural unless `n` is 1 (`1 record`, `2 records`).
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use tpb_isa::disasm::Printer;
    use tpb_isa::Arch;

    use super::*;

    proptest::proptest! {
        /// Every name reads back from its escaped text.
        #[test]
        fn unescape_reads_back_what_escape_shows(name in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
            proptest::prop_assert_eq!(unescape(&escape(&name)), Some(name));
        }
    }

    #[test]
    fn a_heading_label_hides_what_reads_as_a_row_or_a_comment() {
        for (label, want) in [
            ("sg00/PE", "sg00/PE"),
            (" sg/PE", "\\x20sg/PE"),
            ("  sg/PE", "\\x20 sg/PE"),
            ("#a/PE", "\\x23a/PE"),
            ("a #1 ;x;y/PE", "a \\x231 \\x3bx;y/PE"),
            ("a#b/PE", "a#b/PE"),
        ] {
            assert_eq!(heading_label(label), want, "{label}");
            assert_eq!(unescape(&heading_label(label)).as_deref(), unescape(label).as_deref());
        }
    }

    #[test]
    fn unescape_takes_typed_text_as_it_is_and_refuses_a_broken_escape() {
        assert_eq!(unescape("my graph/é").as_deref(), Some("my graph/é".as_bytes()));
        assert_eq!(unescape(r"s\x1Bg\\"), Some(b"s\x1bg\\".to_vec()));
        for broken in [r"a\", r"a\n", r"a\x1", r"a\xg0", r"\xé0"] {
            assert_eq!(unescape(broken), None, "{broken}");
        }
    }

    /// The escaping is the printer's: every byte value, as the function name of a
    /// PSEUDO_FUNCTION_BEGIN record, prints as `escape` shows it.
    #[test]
    fn escape_is_what_the_disassembler_prints_for_a_name() {
        let template = tpb_isa::BINDINGS
            .iter()
            .find(|b| b.mnemonic == "pseudo_function_begin")
            .expect("the spec binds pseudo_function_begin")
            .record();
        let mut printer = Printer::new();
        for b in 1..=u8::MAX {
            let name = [b'a', b, b'z'];
            let mut r = template;
            r[12..15].copy_from_slice(&name);
            let text = printer.record(Arch::Cayman, &r).to_owned();
            let want = format!("function_name=\"{}\"", escape(&name));
            assert!(text.contains(&want), "byte {b:#04x}: {text} lacks {want}");
        }
    }

    #[test]
    fn json_keeps_utf8_and_escapes_the_rest() {
        assert_eq!(json("é\u{1b}".as_bytes()), Value::from("é\u{1b}"));
        assert_eq!(json(b"\xffile.neff"), Value::from("\\xffile.neff"));
    }

    #[test]
    fn counts_take_the_plural_unless_one() {
        assert_eq!(count(0, "record"), "0 records");
        assert_eq!(count(1, "byte"), "1 byte");
        assert_eq!(count(2, "stream"), "2 streams");
    }
}
