//! Bytes as text: [`hex`] for short fixed fields, and `Debug` of byte payloads by
//! length and a short hex prefix (a member or stream of a real NEFF is megabytes, which a
//! derived `Debug` prints a decimal number at a time).

use std::fmt;

/// The bytes shown in full up to this many, else this many and an ellipsis.
const SHOWN: usize = 16;

/// The bytes as lowercase hex, two digits each (a hash, a UUID).
pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// `b` for `Debug`: `16 bytes 0a1b…` (hex, the first [`SHOWN`] bytes).
pub(crate) struct Short<'a>(pub(crate) &'a [u8]);

impl fmt::Debug for Short<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        let noun = if b.len() == 1 { "byte" } else { "bytes" };
        write!(f, "{} {noun}", b.len())?;
        if !b.is_empty() {
            f.write_str(" ")?;
            for x in b.iter().take(SHOWN) {
                write!(f, "{x:02x}")?;
            }
            if b.len() > SHOWN {
                f.write_str("…")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{hex, Short};

    #[test]
    fn hex_is_two_lowercase_digits_a_byte() {
        assert_eq!(hex(&[]), "");
        assert_eq!(hex(&[0x0a, 0xbc, 0xff]), "0abcff");
    }

    #[test]
    fn bytes_show_their_length_and_a_prefix() {
        assert_eq!(format!("{:?}", Short(&[])), "0 bytes");
        assert_eq!(format!("{:?}", Short(&[0xab])), "1 byte ab");
        assert_eq!(format!("{:?}", Short(&[7; 16])), format!("16 bytes {}", "07".repeat(16)));
        let big = vec![0u8; 1 << 20];
        assert_eq!(format!("{:?}", Short(&big)), format!("1048576 bytes {}…", "00".repeat(16)));
    }
}
