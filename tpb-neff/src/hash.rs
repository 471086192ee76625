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
        use crate::short::hex;
        match self {
            HashStatus::Match => f.write_str("MD5 match"),
            HashStatus::MatchWordSwapped => f.write_str("MD5 match (stored word-swapped)"),
            HashStatus::Mismatch { expected, actual } => {
                write!(f, "MD5 mismatch: stored {}, payload {}", hex(expected), hex(actual))
            }
        }
    }
}

/// Below this many bytes the payload's hash is checked before `work`, not beside it:
/// starting a thread costs more than hashing a small payload.
const CHECK_BESIDE_AT: usize = 256 << 10;

/// [`HashStatus::check`] of `window`, on a thread of its own while `work` runs (the
/// payload is inflated from the same bytes, and the two took a third and two thirds of
/// `tpb-neff`'s open of the corpus's larger NEFF, one after the other), and `work`'s
/// result. A small window, or one whose thread cannot be started, is checked first on
/// this thread.
pub(crate) fn check_while<T>(
    stored: &[u8; 32],
    window: &[u8],
    work: impl FnOnce() -> T,
) -> (HashStatus, T) {
    if window.len() < CHECK_BESIDE_AT {
        return (HashStatus::check(stored, window), work());
    }
    std::thread::scope(|s| {
        let beside = std::thread::Builder::new()
            .name("tpb-neff-md5".into())
            .spawn_scoped(s, || HashStatus::check(stored, window));
        match beside {
            Ok(handle) => {
                let out = work();
                // The check does not panic; were it to, its panic goes on here.
                let hash = handle.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                (hash, out)
            }
            Err(_) => (HashStatus::check(stored, window), work()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Beside `work` or before it, the status is the check's, and `work` runs once.
    #[test]
    fn the_check_beside_the_work_is_the_check() {
        for len in [0, 1000, CHECK_BESIDE_AT - 1, CHECK_BESIDE_AT, 3 * CHECK_BESIDE_AT + 7] {
            let window: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let digest: [u8; 16] = Md5::digest(&window).into();
            let mut stored = [0u8; 32];
            stored[..16].copy_from_slice(&digest);
            let mut runs = 0;
            let (hash, out) = check_while(&stored, &window, || {
                runs += 1;
                len * 2
            });
            assert_eq!((hash, out, runs), (HashStatus::Match, len * 2, 1), "{len} bytes");
            stored[0] ^= 1;
            let (hash, _) = check_while(&stored, &window, || ());
            assert_eq!(hash, HashStatus::check(&stored, &window), "{len} bytes");
            assert!(!hash.is_match());
        }
    }
}
