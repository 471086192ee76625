//! A disassembler that keeps its line buffer between records.

use core::fmt;

use super::line::{Buf, CAP};
use super::print::record_line;
use crate::generated::geometry::Arch;
use crate::inst::RECORD_SIZE;

/// Prints records into a buffer it keeps, and lends each line: a listing of many
/// records neither clears a buffer nor copies a line per record, as the writers
/// ([`write_record_bytes`](super::write_record_bytes)) do, which own a buffer only
/// for the call. The text is theirs, character for character.
///
/// ```
/// use tpb_isa::{disasm::Printer, Arch};
///
/// let mut record = [0u8; 64];
/// record[0] = 0xDF; // PSEUDO_EXIT_EXECUTION, by its sub-opcode
/// record[12] = 1;
/// let mut printer = Printer::new();
/// assert_eq!(printer.record(Arch::Cayman, &record), "pseudo_exit_execution");
/// ```
pub struct Printer {
    buf: Buf,
}

impl Printer {
    /// A printer with an empty buffer (2 KiB, which holds the longest line of any
    /// record: a constant assertion checks the tables' bound against it).
    #[must_use]
    pub const fn new() -> Printer {
        Printer { buf: [0; CAP] }
    }

    /// The line of `record` as [`write_record_bytes`](super::write_record_bytes)
    /// prints it (ASCII, without a newline), borrowed until the next call.
    pub fn record_bytes(&mut self, arch: Arch, record: &[u8; RECORD_SIZE]) -> &[u8] {
        // Every line fits (`line::CAP` is checked against the tables' bound).
        let n = record_line(&mut self.buf, 0, arch, record);
        &self.buf[..n]
    }

    /// [`Printer::record_bytes`] as a `str` (after the check that makes one: the
    /// bytes form spares it).
    pub fn record(&mut self, arch: Arch, record: &[u8; RECORD_SIZE]) -> &str {
        core::str::from_utf8(self.record_bytes(arch, record)).unwrap_or_default()
    }
}

impl Default for Printer {
    fn default() -> Printer {
        Printer::new()
    }
}

impl fmt::Debug for Printer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Printer").finish_non_exhaustive()
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::disasm::write_record;
    use std::string::String;

    /// Records of every opcode, eight rounds of each (all bytes 0xff, then random),
    /// half of them with the bytes before 16 zero but the sub-opcode byte, 12, one that
    /// a binding reads (1, 2, 8, 9: PSEUDO_INST's and EXTENDED_INST's), so that every
    /// bound sub-opcode comes up.
    fn records() -> impl Iterator<Item = [u8; RECORD_SIZE]> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        (0..8usize).flat_map(|round| (0..=255u8).map(move |opcode| (round, opcode))).map(
            move |(round, opcode)| {
                let mut r = [0u8; RECORD_SIZE];
                for b in r.iter_mut() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    *b = if round == 0 { 0xff } else { x as u8 };
                }
                r[0] = opcode;
                if round % 2 == 1 {
                    r[1..16].fill(0);
                    r[12] = [1, 2, 8, 9][round / 2];
                }
                r
            },
        )
    }

    /// The printer's lines are the writer's, on records of every opcode and
    /// generation, one printer reused for all of them.
    #[test]
    fn a_printers_lines_are_the_writers() {
        let mut p = Printer::new();
        for r in records() {
            for &arch in Arch::ALL {
                let mut want = String::new();
                write_record(&mut want, arch, &r).unwrap();
                assert_eq!(p.record(arch, &r), want);
                assert_eq!(p.record_bytes(arch, &r), want.as_bytes());
            }
        }
    }

    /// `mnemonic` is the first word of the line, whatever prints it (a binding, an arm,
    /// an opcode no arm reads, an unknown opcode).
    #[test]
    fn the_mnemonic_is_the_lines_first_word() {
        let mut p = Printer::new();
        let mut seen = std::collections::BTreeSet::new();
        for r in records() {
            for &arch in Arch::ALL {
                let line = p.record(arch, &r);
                let word = line.split(' ').next().unwrap();
                assert_eq!(crate::disasm::mnemonic(arch, &r), word, "{line}");
                seen.insert(std::string::String::from(word));
            }
        }
        // Opaque and unknown opcodes among them, and every binding of a sub-opcode.
        let subs = crate::inst::BINDINGS.iter().filter(|b| b.sub.is_some()).map(|b| b.mnemonic);
        for m in ["pseudo_inst", "unknown", "matmul"].into_iter().chain(subs) {
            assert!(seen.contains(m), "{m} never printed");
        }
    }
}
