//! The longest text each part of a line can print, from the tables: what lets a
//! [`Printer`](super::Printer) hold any record's whole line in its buffer. `const`, so
//! that the generated `LINE_MAX` (a constant per arm, their maximum) is checked against
//! the buffer when the crate compiles.
//!
//! Each bound is an upper bound, not the exact maximum: every leaf counted as shown,
//! every bit-field of every form counted, numbers at their widest form.

use super::desc::{ArmText, BitDesc, BitKind, BitsDesc, EnumDesc, FieldDesc, Kind, UnionDesc};
use super::print::UNKNOWN;
use crate::generated::disasm::{MNEMONICS, OPAQUE};
use crate::generated::inst::BINDINGS;
use crate::inst::RECORD_SIZE;

/// The longest an `f32` prints: at most nine significant digits, a sign, and either
/// up to sixteen integer digits and `.0` (below 1e16) or a point, `e` and an
/// exponent of two digits and its sign; a NaN as `0x` and eight digits.
const F32_MAX: usize = 24;

/// The larger of `a` and `b` (`Ord::max` is not `const`).
const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

/// The longest number of `w` bytes: decimal below 256 (three digits), else `0x` and
/// up to two digits a byte.
const fn uint_max(w: usize) -> usize {
    max(3, 2 + 2 * w)
}

/// The longest number of `bits` bits: decimal below 256, else `0x` and a digit per
/// four bits.
const fn bits_uint_max(bits: u8) -> usize {
    max(3, 2 + (bits as usize).div_ceil(4))
}

/// The longest name of `e`, at least `least`.
const fn names_max(e: &EnumDesc, least: usize) -> usize {
    let mut m = least;
    let mut i = 0;
    while i < e.by_value.len() {
        m = max(m, e.by_value[i].1.len());
        i += 1;
    }
    m
}

/// The longest `name=value` of a bit-field, with a comma.
const fn bit_max(b: &BitDesc) -> usize {
    let n = b.hi - b.lo;
    let value = match b.kind {
        BitKind::Uint => bits_uint_max(n),
        BitKind::Bool => "false".len(),
        BitKind::Enum(e) => names_max(e, bits_uint_max(n)),
    };
    b.name.len() + 1 + value + 1
}

/// The longest run of `fields`, with their commas.
const fn bits_sum(fields: &[BitDesc]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < fields.len() {
        n += bit_max(&fields[i]);
        i += 1;
    }
    n
}

/// The longest `form{field=value,...,rest=0x..}` of an operand type: the fields every
/// form has, and those of the form with the longest.
const fn bits_max(d: &BitsDesc) -> usize {
    let mut form = 0;
    let mut i = 0;
    while i < d.alts.len() {
        form = max(form, d.alts[i].name.len() + bits_sum(d.alts[i].fields));
        i += 1;
    }
    form + 1 + bits_sum(d.fields) + "rest=".len() + uint_max(d.width as usize) + 1
}

/// The longest `view{field=value,...}` of a union, or its bytes in hex.
const fn union_max(u: &UnionDesc) -> usize {
    let mut m = 2 * u.size as usize;
    let mut i = 0;
    while i < u.views.len() {
        let v = &u.views[i];
        m = max(m, v.name.len() + 1 + leaves_max(v.fields) + 1);
        i += 1;
    }
    m
}

/// The longest value of `kind`.
const fn kind_max(kind: &Kind) -> usize {
    match *kind {
        Kind::Uint(w) => uint_max(w as usize),
        Kind::Int(w) => 1 + uint_max(w as usize),
        Kind::F32 => F32_MAX,
        Kind::Enum(e) => names_max(e, uint_max(e.width as usize)),
        Kind::Bits(d) => bits_max(d),
        Kind::Union(u) => union_max(u),
        Kind::Array(k, n) => 2 + n as usize * (kind_max(k) + 1),
        // A quote each side, and `\xNN` a byte at most.
        Kind::Str(n) => 2 + 4 * n as usize,
        Kind::Bytes(n) => 2 * n as usize,
    }
}

/// The longest run of `fields`, each with a separator before it and `=`.
const fn leaves_max(fields: &[FieldDesc]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < fields.len() {
        n += 1 + fields[i].name.len() + 1 + kind_max(&fields[i].kind);
        i += 1;
    }
    n
}

/// The longest line of `arm`, over its mnemonics and layouts.
pub(crate) const fn arm_max(arm: &ArmText) -> usize {
    let mut mnemonic = arm.mnemonic.len();
    let mut i = 0;
    while i < arm.bindings.len() {
        let b = arm.bindings[i] as usize;
        if b < BINDINGS.len() {
            mnemonic = max(mnemonic, BINDINGS[b].mnemonic.len());
        }
        i += 1;
    }
    let mut layout = 0;
    let mut i = 0;
    while i < arm.layouts.len() {
        let l = &arm.layouts[i];
        layout = max(layout, leaves_max(l.preamble) + leaves_max(l.fields));
        i += 1;
    }
    mnemonic + layout
}

/// The longest line of a record no arm reads: an opcode the spec names (its mnemonic,
/// the preamble and the payload) or one it does not (`unknown`, the opcode and every
/// byte).
pub(crate) const fn other_max() -> usize {
    let mut mnemonic = 0;
    let mut i = 0;
    while i < MNEMONICS.len() {
        mnemonic = max(mnemonic, MNEMONICS[i].0.len());
        i += 1;
    }
    let opaque = mnemonic + leaves_max(OPAQUE.preamble) + leaves_max(OPAQUE.fields);
    let unknown = UNKNOWN.len() + " opcode=0x".len() + 2 + " bytes=".len() + 2 * RECORD_SIZE;
    max(opaque, unknown)
}

/// The largest of `v` (0 for none).
pub(crate) const fn max_of(v: &[usize]) -> usize {
    let mut m = 0;
    let mut i = 0;
    while i < v.len() {
        m = max(m, v[i]);
        i += 1;
    }
    m
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::disasm::write_record;
    use crate::generated::disasm::{ARMS, LINE_MAX};
    use crate::Arch;
    use std::string::String;

    /// The length of the line `write_record` prints of `r` (not a `Printer`'s, which
    /// relies on the bound under test).
    fn line_len(arch: Arch, r: &[u8; RECORD_SIZE]) -> usize {
        let mut out = String::new();
        write_record(&mut out, arch, r).unwrap();
        out.len()
    }

    /// The generated `LINE_MAX` is the bound of every arm and of the other records.
    #[test]
    fn the_longest_line_is_the_longest_arms_or_the_others() {
        let arms = ARMS.iter().map(arm_max).max().unwrap_or(0);
        assert_eq!(LINE_MAX, arms.max(other_max()));
    }

    /// The bound holds on records of every arm, every generation, with random bytes and
    /// with the bytes that print longest (all ones, sign bits set).
    #[test]
    fn no_record_prints_longer_than_its_bound() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut longest = 0;
        for arm in ARMS.iter() {
            let bound = arm_max(arm);
            for &i in arm.bindings {
                let b = &BINDINGS[usize::from(i)];
                for round in 0..64 {
                    let mut r = [0u8; RECORD_SIZE];
                    for (k, byte) in r.iter_mut().enumerate() {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        *byte = match round {
                            0 => 0xff,
                            1 => 0x80 | (k as u8 & 0x7f),
                            2 => 0x7f,
                            _ => x as u8,
                        };
                    }
                    r[0] = b.opcode;
                    if let Some(s) = b.sub {
                        r[s.offset] = s.value;
                    }
                    for &arch in Arch::ALL {
                        let n = line_len(arch, &r);
                        assert!(n <= bound, "{} on {arch:?}: {n} bytes, bound {bound}", arm.name);
                        longest = longest.max(n);
                    }
                }
            }
        }
        assert!(longest <= LINE_MAX);
        // The records no arm reads, named or not.
        for opcode in 0..=255u8 {
            let mut r = [0xffu8; RECORD_SIZE];
            r[0] = opcode;
            if crate::inst::dispatch(&r).is_none() {
                let n = line_len(Arch::Cayman, &r);
                assert!(n <= other_max(), "opcode {opcode:#04x}: {n} bytes");
            }
        }
    }
}
