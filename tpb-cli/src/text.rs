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
