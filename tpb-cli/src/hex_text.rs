//! Records as hex text: given (`--hex`: bytes copied from a listing's hex column, a
//! profiler's instruction table or a note, read as the raw stream they spell) and
//! written (a listing's hex column, `tpb asm --hex`).
//!
//! Two hex digits a byte, in memory order. Bytes come in runs of any length (a listing's
//! 128-digit column, `0a 00 0c`, `0x0a,0x00`), each run optionally prefixed `0x`, the
//! runs separated by white space or commas; `#` and `;` begin a comment that runs to the
//! line's end. A run of an odd number of digits is an error, not a guess at which byte
//! the lone digit belongs to.

use std::fmt;

use crate::records::{Record, RECORD_SIZE};

/// Lowercase hex digits, as every listing writes them.
pub const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// A record as its listing's hex column shows it and `--hex` reads it back: two
/// lowercase digits a byte, in memory order.
pub fn record_digits(r: &Record) -> [u8; 2 * RECORD_SIZE] {
    let mut digits = [0u8; 2 * RECORD_SIZE];
    for (pair, b) in digits.chunks_exact_mut(2).zip(r) {
        pair[0] = DIGITS[usize::from(b >> 4)];
        pair[1] = DIGITS[usize::from(b & 15)];
    }
    digits
}

/// Why hex text does not spell bytes, and where (1-based line and column, in characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HexError {
    /// The line.
    pub line: usize,
    /// The column of the offending character, or of the run that is wrong.
    pub col: usize,
    /// What is wrong there.
    pub kind: HexErrorKind,
}

/// What is wrong with hex text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HexErrorKind {
    /// A run of hex digits of odd length.
    OddDigits {
        /// The digits in the run.
        digits: usize,
    },
    /// A character that is neither a hex digit, a separator nor a comment's start.
    NotHex {
        /// The character.
        found: char,
    },
    /// `0x` followed by no digit.
    EmptyPrefix,
    /// Bytes that are not UTF-8 text (a binary stream given with `--hex`).
    NotText,
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.line, self.col)?;
        match &self.kind {
            HexErrorKind::OddDigits { digits } => write!(
                f,
                "a run of {digits} hex digit{}: bytes are two digits each, so a run has an \
                 even number",
                if *digits == 1 { "" } else { "s" }
            ),
            HexErrorKind::NotHex { found } => {
                write!(
                    f,
                    "{} is not a hex digit (bytes are pairs of 0-9, a-f; runs are separated \
                     by spaces or commas; `#` and `;` begin a comment)",
                    shown(*found)
                )?;
                // An offset column's colon: a hex dump with addresses and text.
                if *found == ':' {
                    f.write_str(
                        "; an xxd dump with its offset column reads as `xxd -p` writes it",
                    )?;
                }
                Ok(())
            }
            HexErrorKind::EmptyPrefix => f.write_str("`0x` with no hex digits after it"),
            HexErrorKind::NotText => f.write_str(
                "not text (a byte that is not UTF-8): --hex reads hex digits, and a binary \
                 stream is read without it",
            ),
        }
    }
}

impl std::error::Error for HexError {}

/// A character as an error shows it: quoted, or by its code point when it would not
/// show (a control character, a space of another kind).
fn shown(c: char) -> String {
    if c.is_control() || (c.is_whitespace() && c != ' ') {
        format!("U+{:04X}", u32::from(c))
    } else {
        format!("'{c}'")
    }
}

/// The bytes `text` spells, or where it does not.
pub fn parse(text: &[u8]) -> Result<Vec<u8>, HexError> {
    let text = std::str::from_utf8(text).map_err(|e| {
        let (line, col) = position(&text[..e.valid_up_to()]);
        HexError { line, col, kind: HexErrorKind::NotText }
    })?;
    // A byte-order mark is no text, as editors and `tpb asm` take it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::with_capacity(text.len() / 2);
    for (i, line) in text.lines().enumerate() {
        parse_line(line, i + 1, &mut out)?;
    }
    Ok(out)
}

/// The 1-based line and column just past `valid`, a prefix of the text that is UTF-8.
fn position(valid: &[u8]) -> (usize, usize) {
    let valid = std::str::from_utf8(valid).unwrap_or_default();
    let line = valid.matches('\n').count() + 1;
    let col = valid.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Append the bytes of one line (number `line`) to `out`, a byte at a time: no run,
/// however long, is held apart from `out`.
fn parse_line(text: &str, line: usize, out: &mut Vec<u8>) -> Result<(), HexError> {
    // The column of byte `i`, in characters; only an error needs it.
    let err = |i: usize, kind| HexError { line, col: text[..i].chars().count() + 1, kind };
    let not_hex = |i: usize| {
        let found = text[i..].chars().next().unwrap_or_default();
        err(i, HexErrorKind::NotHex { found })
    };
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' | b';' => return Ok(()),
            b',' => i += 1,
            c if separator(c) => i += 1,
            c if c.is_ascii_hexdigit() => {
                let start = i;
                // `0x`: the prefix, then the run's digits.
                if c == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
                    i += 2;
                }
                let first = i;
                while b.get(i).is_some_and(u8::is_ascii_hexdigit) {
                    i += 1;
                }
                if b.get(i).is_some_and(|&d| !matches!(d, b',' | b'#' | b';') && !separator(d)) {
                    return Err(not_hex(i));
                }
                let digits = i - first;
                if digits == 0 {
                    return Err(err(start, HexErrorKind::EmptyPrefix));
                }
                if digits % 2 != 0 {
                    return Err(err(start, HexErrorKind::OddDigits { digits }));
                }
                out.extend(b[first..i].chunks_exact(2).map(|p| (digit(p[0]) << 4) | digit(p[1])));
            }
            _ => return Err(not_hex(i)),
        }
    }
    Ok(())
}

/// Whether `c` separates runs as white space does (ASCII white space; other spaces are
/// not taken for it).
fn separator(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

/// The value of an ASCII hex digit.
fn digit(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c.wrapping_sub(b'A').wrapping_add(10),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(s: &str) -> Vec<u8> {
        parse(s.as_bytes()).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }

    fn error(s: &str) -> String {
        parse(s.as_bytes()).expect_err(s).to_string()
    }

    #[test]
    fn every_way_of_writing_bytes_reads_the_same() {
        let want = vec![0x0a, 0x00, 0xff, 0x10];
        for s in [
            "0a00ff10",
            "0a 00 ff 10",
            "0x0a 0x00 0xFF 0x10",
            "0x0a,0x00,0xff,0x10",
            "0a00\nff10\n",
            "0a00 # the opcode\n; a note\n0XFF10   ; the rest",
            "\t0a00ff10\r\n",
            "\u{feff}0a00ff10",
        ] {
            assert_eq!(bytes(s), want, "{s:?}");
        }
        assert_eq!(bytes(""), Vec::<u8>::new());
        assert_eq!(bytes("# only a comment\n\n"), Vec::<u8>::new());
    }

    #[test]
    fn a_record_written_as_hex_reads_back() {
        let record: Record = std::array::from_fn(|i| (i as u8).wrapping_mul(37));
        let column: String = record.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(record_digits(&record), column.as_bytes());
        assert_eq!(bytes(&column), record);
    }

    #[test]
    fn what_is_not_hex_is_said_where() {
        assert_eq!(
            error("0a 00\n0a 0"),
            "2:4: a run of 1 hex digit: bytes are two digits each, so a run has an even number"
        );
        assert!(error("0x0a0").starts_with("1:1: a run of 3 hex digits"), "{}", error("0x0a0"));
        assert!(error("0a 0g").starts_with("1:5: 'g' is not a hex digit"), "{}", error("0a 0g"));
        assert!(error("0a\u{7}").starts_with("1:3: U+0007 is not a hex digit"));
        assert!(error("zz").starts_with("1:1: 'z' is not a hex digit"));
        assert!(error("00000000: 0a00 0c00").ends_with("reads as `xxd -p` writes it"));
        assert_eq!(error("00 0x"), "1:4: `0x` with no hex digits after it");
        assert_eq!(error("00 0x,"), "1:4: `0x` with no hex digits after it");
        assert!(error("00 0xq").starts_with("1:6: 'q' is not a hex digit"));
        assert!(error("ab\né\u{0}x").starts_with("2:1: 'é' is not a hex digit"));
        let mut binary = b"0a00\n0b".to_vec();
        binary.push(0xff);
        assert!(parse(&binary).expect_err("binary").to_string().starts_with("2:3: not text"));
    }

    proptest::proptest! {
        /// Bytes written as hex in any of the accepted ways read back whole.
        #[test]
        fn bytes_written_as_hex_read_back(
            data in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
            runs in proptest::collection::vec(1usize..9, 1..10),
            upper: bool,
            prefixed: bool,
        ) {
            let mut text = String::new();
            let mut rest = &data[..];
            for (k, n) in runs.iter().cycle().enumerate() {
                if rest.is_empty() {
                    break;
                }
                let (run, tail) = rest.split_at((*n).min(rest.len()));
                rest = tail;
                text.push_str([" ", ",", "\n", " # note\n", "\t"][k % 5]);
                if prefixed {
                    text.push_str("0x");
                }
                for b in run {
                    text.push_str(&if upper { format!("{b:02X}") } else { format!("{b:02x}") });
                }
            }
            proptest::prop_assert_eq!(bytes(&text), data);
        }

        /// Any bytes at all: an answer, never a panic.
        #[test]
        fn any_input_is_read_or_refused(data in proptest::collection::vec(proptest::num::u8::ANY, 0..100)) {
            let _ = parse(&data);
        }
    }
}
