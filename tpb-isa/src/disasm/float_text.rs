//! An `f32`'s text as Rust's `{:?}` writes it, without the `fmt` machinery: the
//! listing's floats were a twelfth of the time of a listing of every bound arm.
//!
//! The digits are zmij's shortest (the fewest that read back to the value, the nearer
//! of two); zmij breaks an exact tie to the even digit, Rust's `{:?}` to the greater,
//! so an exact tie is moved up. A test holds the two equal on every `f32`'s bits but
//! NaN's, and its seed equal on all 2³² (run once, outside the suite).

/// The text of one `f32`, at most 24 bytes (`-1.2345678e-38`, `-1234567800000000.0`).
pub(crate) struct FloatText {
    buf: [u8; 24],
    len: usize,
}

impl FloatText {
    /// The text's bytes (ASCII).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    fn push(&mut self, b: &[u8]) {
        self.buf[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
    }
}

/// Zeros to pad a decimal with (a float's decimal form has fewer than 16 in a row).
const ZEROS: &[u8; 16] = b"0000000000000000";

/// `format!("{x:?}")` of an `x` that is not NaN: a decimal with at least one
/// fractional digit for zero and magnitudes in `1e-4..1e16`, else `<digits>e<exp>`.
pub(crate) fn debug_f32(x: f32) -> FloatText {
    debug_assert!(!x.is_nan());
    let mut t = FloatText { buf: [0; 24], len: 0 };
    if x.is_infinite() {
        t.push(if x < 0.0 { b"-inf" } else { b"inf" });
        return t;
    }
    if x == 0.0 {
        t.push(if x.is_sign_negative() { b"-0.0" } else { b"0.0" });
        return t;
    }
    let mut digits = [0u8; 24];
    let (n, e10) = shortest(x, &mut digits);
    if exact_tie_above(x, &digits[..n], e10) {
        // zmij took the even digit below the tie; it is not 9, so nothing carries.
        digits[n - 1] += 1;
    }
    let digits = &digits[..n];
    if x < 0.0 {
        t.push(b"-");
    }
    let abs = x.abs();
    if !(1e-4..1e16).contains(&abs) {
        t.push(&digits[..1]);
        if n > 1 {
            t.push(b".");
            t.push(&digits[1..]);
        }
        t.push(b"e");
        if e10 < 0 {
            t.push(b"-");
        }
        let e = e10.unsigned_abs();
        if e >= 10 {
            t.push(&[b'0' + (e / 10) as u8]);
        }
        t.push(&[b'0' + (e % 10) as u8]);
    } else if let Ok(whole) = usize::try_from(e10).map(|e| e + 1) {
        if n > whole {
            t.push(&digits[..whole]);
            t.push(b".");
            t.push(&digits[whole..]);
        } else {
            t.push(digits);
            t.push(&ZEROS[..whole - n]);
            t.push(b".0");
        }
    } else {
        t.push(b"0.");
        t.push(&ZEROS[..e10.unsigned_abs() as usize - 1]);
        t.push(digits);
    }
    t
}

/// zmij's shortest digits of a finite non-zero `x` into `digits` (ASCII, without
/// leading or trailing zeros): their count, and the decimal exponent of the first.
fn shortest(x: f32, digits: &mut [u8; 24]) -> (usize, i32) {
    let mut buf = zmij::Buffer::new();
    let s = buf.format_finite(x.abs()).as_bytes();
    // `123.45`, `0.00012`, `1.5e-7`, `1e+20`: a mantissa, then an exponent maybe.
    let (mant, exp) = match s.iter().position(|&c| c == b'e') {
        Some(i) => {
            let (sign, e) = match &s[i + 1..] {
                [b'-', e @ ..] => (-1, e),
                [b'+', e @ ..] => (1, e),
                e => (1, e),
            };
            (&s[..i], sign * e.iter().fold(0i32, |a, &c| a * 10 + i32::from(c - b'0')))
        }
        None => (s, 0),
    };
    // The significant digits, those before the point, and the zeros after the point
    // that lead them (`0.00012`).
    let (mut n, mut before, mut lead, mut point) = (0usize, 0i32, 0i32, false);
    for &c in mant {
        if c == b'.' {
            point = true;
        } else if n == 0 && c == b'0' {
            lead += i32::from(point);
        } else {
            before += i32::from(!point);
            if let Some(d) = digits.get_mut(n) {
                *d = c;
                n += 1;
            }
        }
    }
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    let first = if before > 0 { before - 1 } else { -lead - 1 };
    (n, first + exp)
}

/// Whether `x` lies exactly halfway between the `digits` (the first at decimal
/// exponent `e10`) and the digits one above: `2·x·10^p = 2d + 1`, `d` the digits'
/// integer and `p` the places of the last. With `x = m·2^k` (`m` odd) that holds when
/// the powers of two cancel (`k + 1 + p = 0`) and the odd parts agree (`m·5^p = 2d + 1`).
fn exact_tie_above(x: f32, digits: &[u8], e10: i32) -> bool {
    let bits = x.to_bits();
    let (raw_exp, frac) = ((bits >> 23) & 0xFF, bits & 0x7F_FFFF);
    let (m, e) = if raw_exp == 0 { (frac, -149) } else { (frac | 0x80_0000, raw_exp as i32 - 150) };
    let t = m.trailing_zeros();
    let (m, k) = (u128::from(m >> t), e + t as i32);
    // At most 9 digits: the count and `p` are small.
    let p = digits.len() as i32 - 1 - e10;
    if k + 1 + p != 0 {
        return false;
    }
    let d = digits.iter().fold(0u128, |a, &c| a * 10 + u128::from(c - b'0'));
    let odd = 2 * d + 1;
    if p >= 0 {
        5u128.checked_pow(p.unsigned_abs()).and_then(|f| m.checked_mul(f)) == Some(odd)
    } else {
        5u128.checked_pow(p.unsigned_abs()).and_then(|f| odd.checked_mul(f)) == Some(m)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::format;

    use super::debug_f32;

    fn check(bits: u32) {
        let x = f32::from_bits(bits);
        if x.is_nan() {
            return;
        }
        let want = format!("{x:?}");
        assert_eq!(debug_f32(x).as_bytes(), want.as_bytes(), "bits {bits:#010x}");
    }

    /// Equal to `{:?}` on the edges (zeros, subnormals, the ends of the decimal range,
    /// the largest, infinities), on exact ties, and on a million random bit patterns.
    #[test]
    fn the_text_is_that_of_debug() {
        for bits in [0, 1, 2, 0x7F_FFFF, 0x80_0000, 0x7F7F_FFFF, 0x7F80_0000, 0x3F80_0000] {
            check(bits);
            check(bits | 0x8000_0000);
        }
        for x in [1e-4f32, 1e16, 9.999999e-5, 9.999999e15, 0.1, 100.0, 1.0039063, 16777216.0] {
            for d in [-1i32, 0, 1] {
                check(x.to_bits().wrapping_add_signed(d));
            }
        }
        // Exact ties: 1 + 2^-8 + 2^-15 = 1.00390625 (`{:?}` 1.0039063, zmij 1.0039062).
        for bits in (0x3F80_8000u32..0x3F90_0000).step_by(0x1_0000) {
            check(bits);
        }
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..1_000_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            check(s as u32);
        }
    }
}
