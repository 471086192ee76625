//! `Debug` of byte payloads by length and a short hex prefix: a member or stream of a
//! real NEFF is megabytes, which a derived `Debug` prints a decimal number at a time.

use std::fmt;

/// The bytes shown in full up to this many, else this many and an ellipsis.
const SHOWN: usize = 16;

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
    use super::Short;

    #[test]
    fn bytes_show_their_length_and_a_prefix() {
        assert_eq!(format!("{:?}", Short(&[])), "0 bytes");
        assert_eq!(format!("{:?}", Short(&[0xab])), "1 byte ab");
        assert_eq!(format!("{:?}", Short(&[7; 16])), format!("16 bytes {}", "07".repeat(16)));
        let big = vec![0u8; 1 << 20];
        assert_eq!(format!("{:?}", Short(&big)), format!("1048576 bytes {}…", "00".repeat(16)));
    }
}
