//! `--records`: which records of a stream to list, by their index (the listing's first
//! column; record `i` is at byte `64 × i`) or by a byte offset (`@0x1c0`, the offset
//! column, which a raw stream's listing shows alone), as objdump's `--start-address` and
//! `--stop-address` pick a window of a large image.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// A window of record indices, as Rust writes ranges: `7` (one record), `100..200` (200
/// left out), `100..=199`, `100..` and `..50`; a bound may be a byte offset instead,
/// `@` and a number (`@0x1c0..@0x400`): the record holding that byte (an exclusive end,
/// the records that start before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordRange {
    /// The first index listed.
    pub start: usize,
    /// The first index past the window; `None` for the stream's end.
    pub end: Option<usize>,
    /// Whether a bound was given as a byte offset: the window is then shown in bytes
    /// too, the bytes of its whole records (`@0x41..@0x42` shows as `1 (bytes
    /// @0x40..@0x80)`), the unit the user wrote it in.
    pub by_offset: bool,
}

impl RecordRange {
    /// The indices of a stream of `n` records the window keeps.
    pub fn within(&self, n: usize) -> Range<usize> {
        let end = self.end.map_or(n, |e| e.min(n));
        self.start.min(end)..end
    }
}

/// The window as indices (`7`, `100..200`, `100..`), then, when a bound was a byte
/// offset, the bytes of its records (`@0x1c0..@0x400`).
impl fmt::Display for RecordRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.end {
            Some(e) if e == self.start + 1 => write!(f, "{}", self.start),
            Some(e) => write!(f, "{}..{e}", self.start),
            None => write!(f, "{}..", self.start),
        }?;
        if self.by_offset {
            let at = |i: usize| i.saturating_mul(RECORD_SIZE);
            write!(f, " (bytes @{:#x}..", at(self.start))?;
            match self.end {
                Some(e) => write!(f, "@{:#x})", at(e)),
                None => f.write_str(")"),
            }?;
        }
        Ok(())
    }
}

impl FromStr for RecordRange {
    type Err = String;

    fn from_str(s: &str) -> Result<RecordRange, String> {
        let empty = || format!("'{s}': an empty range of records (its end is not past its start)");
        let bound = |t: &str| -> Result<Bound, String> {
            let t = t.trim();
            let bad = || {
                format!(
                    "'{s}': expected record indices as 7, 100..200, 100..=199, 100.. or ..50, \
                     or byte offsets as @0x1c0..@0x400 ('{t}' is not an index or @offset)"
                )
            };
            match t.strip_prefix('@') {
                Some(o) => {
                    let o = o.trim();
                    let n = match o.strip_prefix("0x").or_else(|| o.strip_prefix("0X")) {
                        Some(hex) => usize::from_str_radix(hex, 16),
                        None => o.parse(),
                    };
                    // Both parsers take a sign (`+4`), which no offset column shows.
                    n.ok().filter(|_| !o.contains('+')).map(Bound::Offset).ok_or_else(bad)
                }
                None => t.parse().map(Bound::Index).map_err(|_| bad()),
            }
        };
        let (start, end) = match s.split_once("..") {
            // An inclusive end at the largest index is the stream's end.
            None => {
                let i = bound(s)?.first();
                (i, i.checked_add(1))
            }
            Some((a, b)) => {
                let first = if a.trim().is_empty() { None } else { Some(bound(a)?) };
                let start = first.map_or(0, Bound::first);
                let (last, inclusive) = match b.strip_prefix('=') {
                    Some(b) => (Some(bound(b)?), true),
                    None if b.trim().is_empty() => (None, false),
                    None => (Some(bound(b)?), false),
                };
                // Two offsets: the records of the bytes between them, none when the end
                // is not past the start, even within one record (`@0x41..@0x41`).
                if let (Some(Bound::Offset(x)), Some(Bound::Offset(y))) = (first, last) {
                    if y < x || (y == x && !inclusive) {
                        return Err(empty());
                    }
                }
                let end = match last {
                    Some(l) if inclusive => l.first().checked_add(1),
                    Some(l) => Some(l.past()),
                    None => None,
                };
                (start, end)
            }
        };
        if end.is_some_and(|e| e <= start) {
            return Err(empty());
        }
        let by_offset = s.contains('@');
        Ok(RecordRange { start, end, by_offset })
    }
}

/// One end of a `--records` window as given.
#[derive(Clone, Copy)]
enum Bound {
    /// A record's index.
    Index(usize),
    /// A byte offset in the stream (`@0x1c0`).
    Offset(usize),
}

impl Bound {
    /// The index of the record the bound names: an offset's is the record holding it.
    fn first(self) -> usize {
        match self {
            Bound::Index(i) => i,
            Bound::Offset(o) => o / RECORD_SIZE,
        }
    }

    /// As an exclusive end: the index past the last record it leaves in (an offset
    /// keeps the records that start before it).
    fn past(self) -> usize {
        match self {
            Bound::Index(i) => i,
            Bound::Offset(o) => o.div_ceil(RECORD_SIZE),
        }
    }
}

/// The bytes of a record.
const RECORD_SIZE: usize = tpb_isa::RECORD_SIZE;

#[cfg(test)]
mod tests {
    use super::*;

    /// A window given by indices.
    fn at(start: usize, end: Option<usize>) -> RecordRange {
        RecordRange { start, end, by_offset: false }
    }

    /// A window given with a byte offset.
    fn bytes(start: usize, end: Option<usize>) -> RecordRange {
        RecordRange { start, end, by_offset: true }
    }

    fn r(s: &str) -> RecordRange {
        s.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_form_reads_as_rust_reads_it() {
        assert_eq!(r("7"), at(7, Some(8)));
        assert_eq!(r("100..200"), at(100, Some(200)));
        assert_eq!(r("100..=199"), at(100, Some(200)));
        assert_eq!(r("100.."), at(100, None));
        assert_eq!(r("..50"), at(0, Some(50)));
        assert_eq!(r("..=49"), at(0, Some(50)));
        assert_eq!(r(".."), at(0, None));
        for s in ["7", "100..200", "100..", "0..50"] {
            assert_eq!(r(s).to_string(), s);
        }
    }

    /// A byte offset picks the record holding it; an exclusive end at an offset keeps
    /// the records that start before it.
    #[test]
    fn an_offset_names_the_record_holding_it() {
        assert_eq!(r("@0x1c0"), bytes(7, Some(8)));
        assert_eq!(r("@0x1c1"), bytes(7, Some(8)));
        assert_eq!(r("@0x1c0..@0x400"), bytes(7, Some(16)));
        assert_eq!(r("@0x1c0..@0x401"), bytes(7, Some(17)));
        assert_eq!(r("@448..=@1023"), bytes(7, Some(16)));
        assert_eq!(r("..@0X80"), bytes(0, Some(2)));
        assert_eq!(r("@0x40.."), bytes(1, None));
        assert_eq!(r("3..@0x100"), bytes(3, Some(4)));
        // Bytes between two offsets, none when the end is not past the start, even
        // within one record.
        assert_eq!(r("@0x41..@0x42"), bytes(1, Some(2)));
        assert_eq!(r("@0x41..=@0x41"), bytes(1, Some(2)));
        for bad in [
            "@",
            "@x",
            "@0x",
            "@-1",
            "@+4",
            "@0x+4",
            "@0x40..@0x40",
            "@0x41..@0x41",
            "@0x7f..@0x41",
            "@0x42..=@0x41",
        ] {
            assert!(bad.parse::<RecordRange>().is_err(), "{bad}");
        }
    }

    /// A window given in bytes is shown in records and in the bytes they hold.
    #[test]
    fn a_window_given_in_bytes_shows_its_bytes() {
        assert_eq!(r("@0x1c1..@0x401").to_string(), "7..17 (bytes @0x1c0..@0x440)");
        assert_eq!(r("@0x40..").to_string(), "1.. (bytes @0x40..)");
        assert_eq!(r("@0x7f").to_string(), "1 (bytes @0x40..@0x80)");
    }

    #[test]
    fn a_window_is_cut_to_the_stream() {
        assert_eq!(r("100..200").within(150), 100..150);
        assert_eq!(r("100..200").within(50), 50..50);
        assert_eq!(r("10..").within(12), 10..12);
        assert_eq!(r("..=3").within(12), 0..4);
    }

    #[test]
    fn what_is_no_range_is_said() {
        for s in ["", "x", "1..x", "-1", "5..5", "5..3", "5..=4", "1...3", "0x10"] {
            let e = s.parse::<RecordRange>().expect_err(s);
            assert!(e.starts_with(&format!("'{s}': ")), "{e}");
        }
        let max = usize::MAX;
        assert_eq!(r(&format!("{max}")).within(5), 5..5);
        assert_eq!(r(&format!("{max}..")).within(5), 5..5);
        assert_eq!(r(&format!("..={max}")).within(5), 0..5);
        assert_eq!(r(&format!("3..={max}")).within(5), 3..5);
    }
}
