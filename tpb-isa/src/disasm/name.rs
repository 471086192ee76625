//! How the text form writes the bytes of a name (an `i8` array): printable ASCII as is,
//! `\"` and `\\`, and `\xNN` for every other byte. One rule for the printer and for
//! tools that show other strings from a file beside the record text (paths, labels),
//! so that no byte can move a terminal's cursor or forge a line.

use core::fmt;

/// One byte of a name as the text form writes it.
pub(crate) enum NameByte {
    /// Printable ASCII other than `"` and `\`.
    Plain(u8),
    /// `\"` or `\\`.
    Escaped(&'static str),
    /// Any other byte: `\x` and two lower-case hex digits.
    Hex(u8),
}

/// The form of `x` in a name.
#[inline]
pub(crate) const fn name_byte(x: u8) -> NameByte {
    match x {
        b'"' => NameByte::Escaped("\\\""),
        b'\\' => NameByte::Escaped("\\\\"),
        0x20..=0x7E => NameByte::Plain(x),
        _ => NameByte::Hex(x),
    }
}

/// Bytes shown as the text form shows a name (without the quotes):
/// `Escaped(b"a\n\"").to_string() == r#"a\x0a\""#`. The assembler reads the same
/// escapes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Escaped<'a>(pub &'a [u8]);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &x in self.0 {
            match name_byte(x) {
                NameByte::Plain(c) => fmt::Write::write_char(f, char::from(c))?,
                NameByte::Escaped(s) => f.write_str(s)?,
                NameByte::Hex(v) => write!(f, "\\x{v:02x}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::ToString;

    use super::Escaped;

    #[test]
    fn control_quote_backslash_and_high_bytes_are_escaped() {
        assert_eq!(Escaped(b"a\n\"\\\x1b\xffz ~").to_string(), r#"a\x0a\"\\\x1b\xffz ~"#);
        assert_eq!(Escaped(b"").to_string(), "");
    }
}
