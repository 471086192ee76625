//! The line being printed: its bytes gathered in a fixed buffer and handed to the
//! sink in one call, so that a field costs a few stores instead of several calls into
//! the writer.

use core::fmt;

use crate::generated::disasm::LINE_MAX;

/// Bytes held before they are handed on; a longer line is handed on in pieces. Every
/// record's line fits (the corpus averages 420 bytes a line, random records 630; the
/// tables bound any line at [`LINE_MAX`]), so that a [`Printer`](super::Printer) can
/// lend it.
pub(crate) const CAP: usize = 2048;

// A line is handed on early when less room is left than its next piece might take
// (64 bytes at most), so the longest line needs that much more.
const _: () = assert!(
    LINE_MAX <= CAP - 64,
    "a record's line may outgrow the printer's buffer: raise `line::CAP`"
);

/// Lowercase hex digits.
const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// The bytes of a [`Line`].
pub(crate) type Buf = [u8; CAP];

/// A line being printed into `sink`. Only whole `str`s and ASCII bytes go in, so every
/// piece handed on is UTF-8; a sink that needs a `str` checks it (`print::with_line`),
/// a sink of bytes takes it as it is.
///
/// The buffer is borrowed, not held: a store into it then cannot alias `len` (the
/// printers take `&mut Line`, which LLVM knows aliases nothing else), so a printer
/// keeps `len` in a register. Held in the same struct, every appended byte was
/// followed by a reload of `len` from memory, a chain of store-to-load latencies.
pub(crate) struct Line<'a> {
    len: usize,
    buf: &'a mut Buf,
    sink: &'a mut dyn FnMut(&[u8]) -> fmt::Result,
    failed: bool,
}

impl<'a> Line<'a> {
    pub(crate) fn new(buf: &'a mut Buf, sink: &'a mut dyn FnMut(&[u8]) -> fmt::Result) -> Line<'a> {
        Line { len: 0, buf, sink, failed: false }
    }

    /// Append `s`. Pieces up to 32 bytes (names, numbers) are copied as two overlapping
    /// fixed-size moves, not through a call to `memcpy`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn str(&mut self, s: &str) {
        if s.len() > 32 || self.len > CAP - 32 {
            return self.spill(s);
        }
        self.copy_short(s.as_bytes());
    }

    /// Append `b` (at most 32 bytes, with room for 32 left).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn copy_short(&mut self, b: &[u8]) {
        let n = b.len();
        let dst = &mut self.buf[self.len..self.len + 32];
        if n >= 16 {
            dst[..16].copy_from_slice(&b[..16]);
            dst[n - 16..n].copy_from_slice(&b[n - 16..]);
        } else if n >= 8 {
            dst[..8].copy_from_slice(&b[..8]);
            dst[n - 8..n].copy_from_slice(&b[n - 8..]);
        } else if n >= 4 {
            dst[..4].copy_from_slice(&b[..4]);
            dst[n - 4..n].copy_from_slice(&b[n - 4..]);
        } else if n > 0 {
            dst[0] = b[0];
            dst[n / 2] = b[n / 2];
            dst[n - 1] = b[n - 1];
        }
        self.len += n;
    }

    /// Append `sep` (when `Some`), `name` and `=`: a field's label, with one test of
    /// the room left for names up to 32 bytes.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn label(&mut self, sep: Option<u8>, name: &str) {
        if name.len() > 32 || self.len > CAP - 34 {
            return self.label_spill(sep, name);
        }
        if let Some(c) = sep {
            self.buf[self.len] = c;
            self.len += 1;
        }
        self.copy_short(name.as_bytes());
        self.buf[self.len] = b'=';
        self.len += 1;
    }

    #[cold]
    fn label_spill(&mut self, sep: Option<u8>, name: &str) {
        if let Some(c) = sep {
            self.byte(c);
        }
        self.str(name);
        self.byte(b'=');
    }

    /// Append one ASCII byte.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn byte(&mut self, c: u8) {
        debug_assert!(c.is_ascii());
        if self.len >= CAP {
            self.flush();
        }
        self.buf[self.len] = c;
        self.len += 1;
    }

    /// Append `c` when `keep`, without a branch on `keep`: `c` is stored either way and
    /// kept by the length.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn byte_if(&mut self, c: u8, keep: bool) {
        debug_assert!(c.is_ascii());
        if self.len >= CAP {
            self.flush();
        }
        self.buf[self.len] = c;
        self.len += usize::from(keep);
    }

    /// Append `n` ASCII bytes made by `fill` (at most 64).
    #[inline]
    pub(crate) fn bytes_with(&mut self, n: usize, fill: impl FnOnce(&mut [u8])) {
        debug_assert!(n <= 64);
        if self.len > CAP.saturating_sub(n) {
            self.flush();
        }
        fill(&mut self.buf[self.len..self.len + n]);
        self.len += n;
    }

    /// A decimal number.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn dec(&mut self, v: u64) {
        if v < 256 {
            // Most numbers: up to three digits and their count from one table row,
            // stored as one four-byte move.
            let row = DEC[v as usize];
            if self.len > CAP - 4 {
                self.flush();
            }
            self.buf[self.len..self.len + 4].copy_from_slice(&row);
            self.len += usize::from(row[3]);
            return;
        }
        let n = decimal_len(v);
        self.bytes_with(n, |out| {
            let mut v = v;
            for d in out.iter_mut().rev() {
                *d = b'0' + (v % 10) as u8;
                v /= 10;
            }
        });
    }

    /// Lowercase hex digits of `v`, at least `min` of them (`min` ≤ 16): all sixteen
    /// digits are made at once, without a branch per digit, and stored as one 16-byte
    /// move; the line then keeps the last `n` (random values have digit counts a loop's
    /// exit test cannot predict).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn hex(&mut self, v: u64, min: usize) {
        if self.len > CAP - 16 {
            self.flush();
        }
        self.hex_at(v, min);
    }

    /// `0x` and [`Line::hex`] of `v`, with one test of the room left.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn hex_prefixed(&mut self, v: u64, min: usize) {
        if self.len > CAP - 18 {
            self.flush();
        }
        self.buf[self.len..self.len + 2].copy_from_slice(b"0x");
        self.len += 2;
        self.hex_at(v, min);
    }

    /// [`Line::hex`] with room for sixteen bytes.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn hex_at(&mut self, v: u64, min: usize) {
        let n = ((64 - (v | 1).leading_zeros() as usize).div_ceil(4)).max(min);
        if n <= 8 {
            // Most values: eight digits from the low half, half the work.
            let digits = hex8(v as u32) >> (8 * (8 - n));
            self.buf[self.len..self.len + 8].copy_from_slice(&digits.to_le_bytes());
        } else {
            let digits = hex16(v) >> (8 * (16 - n));
            self.buf[self.len..self.len + 16].copy_from_slice(&digits.to_le_bytes());
        }
        self.len += n;
    }

    /// `0x` and the two lowercase hex digits of `v`, as one four-byte move.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn hex_byte(&mut self, v: u8) {
        if self.len > CAP - 4 {
            self.flush();
        }
        self.buf[self.len..self.len + 4].copy_from_slice(&HEX_BYTE[usize::from(v)]);
        self.len += 4;
    }

    /// Two lowercase hex digits a byte, in order, each pair from the table of
    /// [`Line::hex_byte`] (past its `0x`): one load and one store a byte, and one room
    /// test for sixteen.
    pub(crate) fn hex_bytes(&mut self, b: &[u8]) {
        for w in b.chunks(16) {
            if self.len > CAP - 32 {
                self.flush();
            }
            let dst = &mut self.buf[self.len..self.len + 32];
            for (pair, &x) in dst.chunks_exact_mut(2).zip(w) {
                pair.copy_from_slice(&HEX_BYTE[usize::from(x)][2..]);
            }
            self.len += 2 * w.len();
        }
    }

    /// Hand the bytes held to the writer. Out of line: it runs once a line, and the
    /// printers' many inlined appends each keep only the test that calls it.
    #[cold]
    #[inline(never)]
    fn flush(&mut self) {
        if self.len > 0 && !self.failed {
            self.failed |= (self.sink)(&self.buf[..self.len]).is_err();
        }
        self.len = 0;
    }

    /// Append `s` when it is long or the buffer nearly full.
    #[cold]
    fn spill(&mut self, s: &str) {
        if self.len + s.len() > CAP {
            self.flush();
        }
        if s.len() > CAP {
            if !self.failed {
                self.failed |= (self.sink)(s.as_bytes()).is_err();
            }
        } else {
            self.buf[self.len..self.len + s.len()].copy_from_slice(s.as_bytes());
            self.len += s.len();
        }
    }

    /// The length of the line, when all of it is still held (nothing handed on).
    pub(crate) fn held(self) -> Option<usize> {
        (!self.failed).then_some(self.len)
    }

    /// Hand on the rest; the writer's first error, if any.
    pub(crate) fn finish(mut self) -> fmt::Result {
        self.flush();
        if self.failed {
            Err(fmt::Error)
        } else {
            Ok(())
        }
    }
}

impl fmt::Write for Line<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.str(s);
        Ok(())
    }
}

/// The sixteen hex digits of `v` as ASCII, the most significant in the lowest byte.
#[cfg_attr(not(debug_assertions), inline(always))]
fn hex16(v: u64) -> u128 {
    let hi = ascii_nibbles(spread_nibbles(v >> 32));
    let lo = ascii_nibbles(spread_nibbles(v & 0xffff_ffff));
    u128::from(hi.swap_bytes()) | (u128::from(lo.swap_bytes()) << 64)
}

/// The eight hex digits of `v` as ASCII, the most significant in the lowest byte.
#[cfg_attr(not(debug_assertions), inline(always))]
fn hex8(v: u32) -> u64 {
    ascii_nibbles(spread_nibbles(u64::from(v))).swap_bytes()
}

/// `0x` and the two hex digits of every byte value.
static HEX_BYTE: [[u8; 4]; 256] = {
    let mut t = [[0u8; 4]; 256];
    let mut v = 0;
    while v < 256 {
        t[v] = [b'0', b'x', DIGITS[v >> 4], DIGITS[v & 15]];
        v += 1;
    }
    t
};

/// The eight nibbles of a 32-bit `x`, one a byte, the lowest in the lowest byte.
#[cfg_attr(not(debug_assertions), inline(always))]
fn spread_nibbles(x: u64) -> u64 {
    let x = (x | (x << 16)) & 0x0000_ffff_0000_ffff;
    let x = (x | (x << 8)) & 0x00ff_00ff_00ff_00ff;
    (x | (x << 4)) & 0x0f0f_0f0f_0f0f_0f0f
}

/// Each byte's nibble (`0..16`) as its lowercase hex digit.
#[cfg_attr(not(debug_assertions), inline(always))]
fn ascii_nibbles(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // 1 in each byte above 9; `a` is 39 past `0` + 10.
    let letters = ((x + 6 * ONES) >> 4) & ONES;
    x + u64::from(b'0') * ONES + letters * 39
}

/// The decimal digits of every byte value, then their count.
static DEC: [[u8; 4]; 256] = {
    let mut t = [[0u8; 4]; 256];
    let mut v = 0;
    while v < 256 {
        let d = [b'0' + (v / 100) as u8, b'0' + (v / 10 % 10) as u8, b'0' + (v % 10) as u8];
        t[v] = match v {
            0..=9 => [d[2], 0, 0, 1],
            10..=99 => [d[1], d[2], 0, 2],
            _ => [d[0], d[1], d[2], 3],
        };
        v += 1;
    }
    t
};

/// The number of decimal digits of `v`.
#[inline]
fn decimal_len(v: u64) -> usize {
    let mut n = 1;
    let mut p = 10u64;
    while n < 20 && v >= p {
        n += 1;
        p = p.saturating_mul(10);
    }
    n
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::format;
    use std::string::String;

    /// What `fill` prints, and in how many pieces it reached the writer.
    fn collect(fill: impl FnOnce(&mut Line<'_>)) -> (String, usize) {
        let mut out = String::new();
        let mut pieces = 0;
        let mut sink = |b: &[u8]| {
            out.push_str(core::str::from_utf8(b).expect("a line is ASCII"));
            pieces += 1;
            Ok(())
        };
        let mut buf = [0; CAP];
        let mut line = Line::new(&mut buf, &mut sink);
        fill(&mut line);
        line.finish().unwrap();
        (out, pieces)
    }

    #[test]
    fn numbers_print_as_fmt_prints_them() {
        for v in (0u64..300).chain([4095, 0xffff_ffff, 1 << 32, 0x1_2345_6789, u64::MAX]) {
            let (out, _) = collect(|l| {
                l.dec(v);
                l.byte(b' ');
                l.hex(v, 2);
                l.byte(b' ');
                l.hex(v, 9);
                l.byte(b' ');
                l.hex_prefixed(v, 1);
                l.byte(b' ');
                l.hex_byte(v as u8);
                l.byte(b' ');
                l.hex_bytes(&v.to_be_bytes());
            });
            assert_eq!(out, format!("{v} {v:02x} {v:09x} {v:#x} {:#04x} {v:016x}", v as u8));
        }
    }

    #[test]
    fn bytes_of_every_length_print_as_two_digits_each() {
        let bytes: std::vec::Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37) ^ 0xa5).collect();
        for n in 0..bytes.len() {
            let (out, _) = collect(|l| l.hex_bytes(&bytes[..n]));
            let want: String = bytes[..n].iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(out, want, "{n} bytes");
        }
    }

    #[test]
    fn a_line_longer_than_the_buffer_is_handed_on_whole_in_pieces() {
        let (out, pieces) = collect(|l| {
            for _ in 0..300 {
                l.str("abcdefghij");
                l.byte(b',');
            }
            l.hex_bytes(&[0xab; 600]);
        });
        assert_eq!(out, format!("{}{}", "abcdefghij,".repeat(300), "ab".repeat(600)));
        assert!(pieces > 1);
    }

    #[test]
    fn the_first_writer_error_is_returned() {
        let mut sink = |_: &[u8]| Err(fmt::Error);
        let mut buf = [0; CAP];
        let mut line = Line::new(&mut buf, &mut sink);
        line.str("x");
        assert!(line.finish().is_err());
    }
}
