//! The header's MD5 of the payload window, in either of the two byte orders seen.
//!
//! Older files store the digest in canonical order; neuronx-cc output stores it with each
//! 32-bit word byte-reversed. The runtime checks it only when asked, so a mismatch is
//! reported, never fatal.

use md5::{Digest, Md5};

/// How the stored hash compares with the MD5 of the payload window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashStatus {
    /// Stored in canonical byte order, and equal.
    Match,
    /// Stored with each 32-bit word byte-reversed (neuronx-cc), and equal.
    MatchWordSwapped,
    /// Equal in neither order.
    Mismatch {
        /// Header bytes 0..16 of `hash`, as stored.
        expected: [u8; 16],
        /// The MD5 of the payload window, canonical order.
        actual: [u8; 16],
    },
}

impl HashStatus {
    /// Compare the stored hash (`hash[0..16]`) with the MD5 of `window`.
    #[must_use]
    pub fn check(stored: &[u8; 32], window: &[u8]) -> HashStatus {
        let actual: [u8; 16] = Md5::digest(window).into();
        let mut expected = [0; 16];
        expected.copy_from_slice(&stored[..16]);
        if expected == actual {
            return HashStatus::Match;
        }
        let mut swapped = actual;
        for word in swapped.chunks_exact_mut(4) {
            word.reverse();
        }
        if expected == swapped {
            HashStatus::MatchWordSwapped
        } else {
            HashStatus::Mismatch { expected, actual }
        }
    }

    /// Whether the hash matched in either order.
    #[must_use]
    pub fn is_match(&self) -> bool {
        !matches!(self, HashStatus::Mismatch { .. })
    }
}

impl std::fmt::Display for HashStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hex = |b: &[u8; 16]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        match self {
            HashStatus::Match => f.write_str("MD5 match"),
            HashStatus::MatchWordSwapped => f.write_str("MD5 match (stored word-swapped)"),
            HashStatus::Mismatch { expected, actual } => {
                write!(f, "MD5 mismatch: stored {}, payload {}", hex(expected), hex(actual))
            }
        }
    }
}
