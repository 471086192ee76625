//! The line being printed: its bytes written into a fixed buffer with room for any
//! record's line, the length kept in a register.

use crate::generated::disasm::LINE_MAX;

/// The bytes of a buffer a record's line is printed into. Every record's line fits
/// (the corpus averages 420 bytes a line, random records 630; the tables bound any
/// line at [`LINE_MAX`]), so that a line is printed without a test of the room left.
pub(crate) const CAP: usize = 2048;

/// The most a piece stores past the end of what it keeps (a short copy stores a
/// 32-byte window; hex digits a 16-byte one), then a newline.
const SLACK: usize = 64;

// A line starts at the head of its buffer, so the longest must leave the slack.
const _: () = assert!(
    LINE_MAX <= CAP - SLACK,
    "a record's line may outgrow the printer's buffer: raise `line::CAP`"
);

/// Lowercase hex digits.
const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// The bytes of a [`Line`].
pub(crate) type Buf = [u8; CAP];

/// A line being printed into a buffer, from its head: only whole `str`s and ASCII
/// bytes go in, so the text is UTF-8.
///
/// No piece tests the room left: a line starts at the head of a [`Buf`] and the
/// tables bound it ([`LINE_MAX`], checked against the buffer when the crate compiles),
/// so the indexing's own bounds test is the only one, and never fails. The length is
/// a value the printers pass and return ([`Line::run`], [`Line::call`]), never a
/// field behind a pointer: held behind one, every store into the buffer (which might
/// alias it, for all the optimizer knows) was followed by a reload of the length, a
/// chain of store-to-load latencies through every piece of the line.
pub(crate) struct Line<'a> {
    buf: &'a mut Buf,
    len: usize,
}

impl<'a> Line<'a> {
    /// Print with `print` into `buf` from `at` (the head of a line, or a point inside
    /// one a caller reached); the length after it. The out-of-line printers are this
    /// call on their arguments, so that the line inside them lives in registers.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn run(buf: &mut Buf, at: usize, print: impl FnOnce(&mut Line<'_>)) -> usize {
        let mut line = Line { buf, len: at };
        print(&mut line);
        line.len
    }

    /// Run an out-of-line printer `f` (one that takes the buffer and the length and
    /// returns the new length) on this line: the line's fields go as values, so that
    /// the caller's line stays in registers too.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn call(&mut self, f: impl FnOnce(&mut Buf, usize) -> usize) {
        self.len = f(self.buf, self.len);
    }

    /// Append `s`. Pieces up to 32 bytes (names, numbers) are copied as two overlapping
    /// fixed-size moves, not through a call to `memcpy`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn str(&mut self, s: &str) {
        if s.len() > 32 {
            self.len = copy_long(self.buf, self.len, s.as_bytes());
            return;
        }
        self.copy_short(s.as_bytes());
    }

    /// Append `b` (at most 32 bytes).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn copy_short(&mut self, b: &[u8]) {
        let n = b.len();
        copy_into(&mut self.buf[self.len..self.len + 32], b);
        self.len += n;
    }

    /// Append `sep` (when `Some`), `name` and `=`: a field's label.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn label(&mut self, sep: Option<u8>, name: &str) {
        self.enclosed(sep, name, b'=');
    }

    /// Append `name` and `{`: an operand's form or a union's view opening.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn open(&mut self, name: &str) {
        self.enclosed(None, name, b'{');
    }

    /// Append `lead` (when `Some`), `name` and `tail`. A name of up to 30 bytes (every
    /// name but a few) goes into one window of [`SLACK`] bytes of the buffer: one test of
    /// its room for the three pieces, which also covers what follows them (a label's
    /// scalar value: a number, or a name of up to 32 bytes).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn enclosed(&mut self, lead: Option<u8>, name: &str, tail: u8) {
        let n = name.len();
        if n > 30 {
            if let Some(c) = lead {
                self.byte(c);
            }
            self.str(name);
            self.byte(tail);
            return;
        }
        let w = &mut self.buf[self.len..self.len + SLACK];
        let s = usize::from(lead.is_some());
        if let Some(c) = lead {
            w[0] = c;
        }
        copy_into(&mut w[s..], name.as_bytes());
        w[s + n] = tail;
        self.len += s + n + 1;
    }

    /// Append one ASCII byte.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn byte(&mut self, c: u8) {
        debug_assert!(c.is_ascii());
        self.buf[self.len] = c;
        self.len += 1;
    }

    /// Append the first `n` bytes of `padded` (a name zero-padded to a fixed size): all
    /// of it is stored, as fixed-size moves, and the length keeps `n`, so that names of
    /// any length take one path. `P` is at most [`SLACK`].
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn padded<const P: usize>(&mut self, padded: &[u8; P], n: usize) {
        const { assert!(P <= SLACK) };
        debug_assert!(n <= P);
        self.buf[self.len..self.len + P].copy_from_slice(padded);
        self.len += n;
    }

    /// Append `c` when `keep`, without a branch on `keep`: `c` is stored either way and
    /// kept by the length.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn byte_if(&mut self, c: u8, keep: bool) {
        debug_assert!(c.is_ascii());
        self.buf[self.len] = c;
        self.len += usize::from(keep);
    }

    /// Append `n` ASCII bytes made by `fill` (at most 64).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn bytes_with(&mut self, n: usize, fill: impl FnOnce(&mut [u8])) {
        debug_assert!(n <= 64);
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

    /// An array's item: `,` unless `first`, `-` when `neg`, and the magnitude `v`
    /// (decimal below 256, `0x` hex above), all in one 24-byte window of the buffer: one
    /// test of its room, where the pieces apart took one each.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn num_item(&mut self, first: bool, neg: bool, v: u64) {
        let w = &mut self.buf[self.len..self.len + 24];
        w[0] = b',';
        let k = usize::from(!first);
        w[k] = b'-';
        let k = k + usize::from(neg);
        let n = num_into(&mut w[k..], v);
        self.len += k + n;
    }

    /// `0x` and [`Line::hex`] of `v`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn hex_prefixed(&mut self, v: u64, min: usize) {
        self.buf[self.len..self.len + 2].copy_from_slice(b"0x");
        self.len += 2;
        self.hex(v, min);
    }

    /// `0x` and the two lowercase hex digits of `v`, as one four-byte move.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn hex_byte(&mut self, v: u8) {
        self.buf[self.len..self.len + 4].copy_from_slice(&HEX_BYTE[usize::from(v)]);
        self.len += 4;
    }

    /// Two lowercase hex digits a byte, in order, each pair from the table of
    /// [`Line::hex_byte`] (past its `0x`): one load and one store a byte.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn hex_bytes(&mut self, b: &[u8]) {
        self.len = hex_bytes_at(self.buf, self.len, b);
    }

    /// [`Line::hex_bytes`] of a field whose length is a constant where this is inlined
    /// (a layout's byte field): one of up to eight bytes (most of them) goes to the copy
    /// for its length, unrolled, with no loop whose count changes from caller to caller
    /// (an exit the branch predictor misses).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn hex_field(&mut self, b: &[u8]) {
        let (buf, at) = (&mut *self.buf, self.len);
        self.len = match b.len() {
            1 => hex_bytes_n::<1>(buf, at, b),
            2 => hex_bytes_n::<2>(buf, at, b),
            3 => hex_bytes_n::<3>(buf, at, b),
            4 => hex_bytes_n::<4>(buf, at, b),
            5 => hex_bytes_n::<5>(buf, at, b),
            6 => hex_bytes_n::<6>(buf, at, b),
            7 => hex_bytes_n::<7>(buf, at, b),
            8 => hex_bytes_n::<8>(buf, at, b),
            _ => hex_bytes_at(buf, at, b),
        };
    }
}

// The out-of-line pieces take the buffer and the length as values, never the line: a
// line whose address reached a call could no longer live in registers.

/// Copy `b` (at most 32 bytes, at most `dst`'s length) to the head of `dst` as two
/// overlapping fixed-size moves.
#[cfg_attr(not(debug_assertions), inline(always))]
fn copy_into(dst: &mut [u8], b: &[u8]) {
    let n = b.len();
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
}

/// Append `b`, of any length, at `at`; the new length.
#[cold]
#[inline(never)]
fn copy_long(buf: &mut Buf, at: usize, b: &[u8]) -> usize {
    buf[at..at + b.len()].copy_from_slice(b);
    at + b.len()
}

/// [`Line::hex_bytes`] at `at`; the new length. Out of line: one copy for every byte
/// field.
#[inline(never)]
fn hex_bytes_at(buf: &mut Buf, at: usize, b: &[u8]) -> usize {
    hex_bytes_at_inline(buf, at, b)
}

/// The loop of [`hex_bytes_at`].
#[cfg_attr(not(debug_assertions), inline(always))]
fn hex_bytes_at_inline(buf: &mut Buf, at: usize, b: &[u8]) -> usize {
    let dst = &mut buf[at..at + 2 * b.len()];
    for (pair, &x) in dst.chunks_exact_mut(2).zip(b) {
        pair.copy_from_slice(&HEX_BYTE[usize::from(x)][2..]);
    }
    at + 2 * b.len()
}

/// [`hex_bytes_at`] of the first `N` bytes of `b`, unrolled.
#[inline(never)]
fn hex_bytes_n<const N: usize>(buf: &mut Buf, at: usize, b: &[u8]) -> usize {
    hex_bytes_at_inline(buf, at, &b[..N])
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

/// `v` in decimal below 256, `0x` hex above, at the head of `dst` (at least 18 bytes):
/// its length.
#[cfg_attr(not(debug_assertions), inline(always))]
fn num_into(dst: &mut [u8], v: u64) -> usize {
    if v < 256 {
        let row = DEC[v as usize];
        dst[..4].copy_from_slice(&row);
        return usize::from(row[3]);
    }
    dst[..2].copy_from_slice(b"0x");
    let n = (64 - v.leading_zeros() as usize).div_ceil(4);
    if n <= 8 {
        let digits = hex8(v as u32) >> (8 * (8 - n));
        dst[2..10].copy_from_slice(&digits.to_le_bytes());
    } else {
        let digits = hex16(v) >> (8 * (16 - n));
        dst[2..18].copy_from_slice(&digits.to_le_bytes());
    }
    2 + n
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

    /// What `fill` prints.
    fn collect(fill: impl FnOnce(&mut Line<'_>)) -> String {
        let mut buf = [0; CAP];
        let n = Line::run(&mut buf, 0, fill);
        String::from(core::str::from_utf8(&buf[..n]).expect("a line is ASCII"))
    }

    #[test]
    fn array_items_print_as_fmt_prints_them() {
        let values = (0u64..300).chain([0xfff, 0x1000, 0xffff_ffff, 1 << 32, u64::MAX]);
        for v in values {
            let text = |v: u64| if v < 256 { format!("{v}") } else { format!("{v:#x}") };
            let out = collect(|l| {
                l.num_item(true, false, v);
                l.num_item(false, true, v);
                l.num_item(false, false, v);
                l.num_item(true, true, v);
            });
            assert_eq!(out, format!("{0},-{0},{0}-{0}", text(v)), "{v:#x}");
        }
    }

    #[test]
    fn numbers_print_as_fmt_prints_them() {
        for v in (0u64..300).chain([4095, 0xffff_ffff, 1 << 32, 0x1_2345_6789, u64::MAX]) {
            let out = collect(|l| {
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
            let want: String = bytes[..n].iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(collect(|l| l.hex_bytes(&bytes[..n])), want, "{n} bytes");
            assert_eq!(collect(|l| l.hex_field(&bytes[..n])), want, "{n} bytes");
        }
    }

    /// Names of every length up to and past the short copy's 32 bytes, with and
    /// without a separator, and a string longer than them.
    #[test]
    fn labels_and_strings_of_every_length_are_copied_whole() {
        let text: String = (0..100u8).map(|i| char::from(b'a' + i % 26)).collect();
        for n in 0..=40 {
            let name = &text[..n];
            let out = collect(|l| {
                l.label(Some(b' '), name);
                l.label(None, name);
                l.open(name);
                l.str(name);
                l.str(&text);
            });
            assert_eq!(out, format!(" {name}={name}={name}{{{name}{text}"), "{n} bytes");
        }
    }

    /// An out-of-line printer continues the line where the caller left it.
    #[test]
    fn a_called_printer_continues_the_line() {
        fn tail(buf: &mut Buf, at: usize) -> usize {
            Line::run(buf, at, |o| o.str(",tail"))
        }
        let out = collect(|l| {
            l.str("head");
            l.call(tail);
            l.byte(b'!');
        });
        assert_eq!(out, "head,tail!");
    }
}
