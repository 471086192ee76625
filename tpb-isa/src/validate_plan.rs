//! `plan_table!`: what validating a record checks, per generation and opcode value,
//! built at compile time from the generated rules themselves (`plan_for`), so that the
//! validator's checks before the fields (bitmask, availability, binding, dispatch, the
//! layout's leaves) are one load where they were five matches. An opcode with
//! sub-opcode bindings is marked [`Plan::BySub`] and left to the full rules.
//!
//! [`ByteChecks`] then stand for most of a layout's enum-typed leaves: one pass over
//! the record's bytes in place of a table lookup per leaf.

/// What a record with a given opcode value on a given generation checks.
#[derive(Debug)]
pub enum Plan<L: 'static> {
    /// These enum-typed leaves (a layout's, or the preamble's).
    Check(&'static L),
    /// Nothing: the opcode fails a validator bitmask (a spec whose bitmasks are all
    /// inferred checks none).
    #[allow(dead_code)]
    OpcodeNotValid,
    /// Nothing: the opcode, its binding or its arm does not exist on the generation.
    NotOnArch,
    /// The rules depend on a sub-opcode byte: run them in full.
    BySub,
}

impl<L> Clone for Plan<L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L> Copy for Plan<L> {}

/// `plan_table!(plan_of)`: `[[Plan<EnumLeaf>; 256]; Arch::ALL.len()]` whose row
/// `arch as usize`, column `opcode` is `plan_of(arch, opcode)` (a `const fn`), or
/// [`Plan::BySub`] when a binding of the opcode has a sub-opcode
/// ([`by_sub`](crate::dispatch_table::by_sub)).
macro_rules! plan_table {
    ($plan_of:ident) => {{
        use $crate::generated::geometry::Arch;
        use $crate::validate_plan::Plan;
        let by_sub = $crate::dispatch_table::by_sub();
        let mut t = [[Plan::BySub; 256]; Arch::ALL.len()];
        let mut a = 0;
        while a < Arch::ALL.len() {
            let mut op = 0;
            while op < 256 {
                if !by_sub[op] {
                    t[a][op] = $plan_of(Arch::ALL[a], op as u8);
                }
                op += 1;
            }
            a += 1;
        }
        t
    }};
}
pub(crate) use plan_table;

/// The enum checks of one layout on one generation, as data the validator runs
/// without a branch per leaf, where a lookup and a branch per leaf were most of its
/// cost.
///
/// A leaf that lies inside one byte of the record, of a byte-wide enum, is one of:
/// - a *range*, when the values the spec names and makes available on the generation
///   are one run `lo..=hi` of the leaf's bits: three byte masks over the record, and
///   a record passes when for every byte `i`, `(record[i] & mask[i]).wrapping_sub(lo[i])`
///   is at most `span[i]`, one pass that the compiler turns into a few vector
///   instructions;
/// - a *test*, when the leaf is the whole byte and its values have gaps: the byte's
///   bit in the enum's table, for up to [`TESTS`] leaves;
/// - nothing, when every value of its bits is named.
///
/// The other leaves (wider, with no value, past [`TESTS`], or sharing a byte with
/// another checked leaf) are the `rest`: a bit per leaf index, checked one by one.
/// Past 64 leaves or bytes nothing here is used ([`ByteChecks::holds`] is false,
/// [`ByteChecks::suspects`] `None`) and the caller checks every leaf.
#[derive(Clone, Copy, Debug)]
pub struct ByteChecks<const N: usize> {
    mask: [u8; N],
    lo: [u8; N],
    span: [u8; N],
    /// The leaf the range at each byte checks (the first, when two share it).
    owner: [u8; N],
    /// The bytes whose range two leaves share, a bit per byte.
    shared: u64,
    tests: usize,
    test_at: [u8; TESTS],
    test_leaf: [u8; TESTS],
    test_table: [[u64; 4]; TESTS],
    rest: u64,
    overflow: bool,
}

/// The leaves of a record that fails [`ByteChecks`], a bit per leaf index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Suspects {
    /// Leaves that fail.
    pub fail: u64,
    /// Leaves that may fail: check them one by one.
    pub maybe: u64,
}

impl Suspects {
    /// The first leaf that fails, in leaf order, given a test for the `maybe` ones
    /// (asked only of those before the first sure failure).
    #[inline]
    pub fn first(self, mut fails: impl FnMut(usize) -> bool) -> Option<usize> {
        let sure = self.fail.trailing_zeros();
        // The maybe-leaves before the first sure one (all of them when none is sure).
        let mut maybe = self.maybe & if sure == 64 { u64::MAX } else { (1 << sure) - 1 };
        while maybe != 0 {
            let i = maybe.trailing_zeros() as usize;
            if fails(i) {
                return Some(i);
            }
            maybe &= maybe - 1;
        }
        (sure < 64).then_some(sure as usize)
    }
}

/// Whole-byte leaves with gapped values that one layout tests by table.
pub const TESTS: usize = 8;

impl<const N: usize> ByteChecks<N> {
    /// No leaf: every record passes.
    pub const NONE: Self = ByteChecks {
        mask: [0; N],
        lo: [0; N],
        span: [0; N],
        owner: [0; N],
        shared: 0,
        tests: 0,
        test_at: [0; TESTS],
        test_leaf: [0; TESTS],
        test_table: [[0; 4]; TESTS],
        rest: 0,
        overflow: false,
    };

    /// These checks and leaf number `index`: `bits` bits from bit `shift` of the
    /// `width` bytes at `offset` (little-endian), whose values hold where `named` (a
    /// bit per byte value, on this generation; `None` for an enum wider than a byte)
    /// has a bit.
    #[must_use]
    pub const fn with_leaf(
        mut self,
        index: usize,
        offset: u8,
        width: u8,
        shift: u8,
        bits: u8,
        named: Option<&[u64; 4]>,
    ) -> Self {
        if index >= 64 || offset as usize + width as usize > 64 {
            self.overflow = true;
            return self;
        }
        // The byte the leaf lies in, and its bits there.
        let (byte, shift) = (offset as usize + shift as usize / 8, shift % 8);
        let t = match named {
            Some(t) if bits >= 1 && shift as u32 + bits as u32 <= 8 && byte < N => t,
            _ => return self.rest_of(index),
        };
        let all = (1u32 << bits) - 1;
        let Some((lo, hi)) = run(t, all + 1) else {
            return self.test(index, byte, bits, t);
        };
        if lo == 0 && hi as u32 == all {
            return self;
        }
        let mask = (all << shift) as u8;
        let (lo, hi) = (lo << shift, hi << shift);
        if self.mask[byte] == 0 {
            self.mask[byte] = mask;
            self.lo[byte] = lo;
            self.span[byte] = hi - lo;
            self.owner[byte] = index as u8;
            return self;
        }
        // A second leaf on the byte: the same bits narrow the run, others are apart.
        // Either way it is also checked one by one, since a byte that fails names
        // only its first leaf.
        let (lo0, hi0) = (self.lo[byte], self.lo[byte] + self.span[byte]);
        let (lo, hi) = (if lo > lo0 { lo } else { lo0 }, if hi < hi0 { hi } else { hi0 });
        if self.mask[byte] == mask && lo <= hi {
            self.lo[byte] = lo;
            self.span[byte] = hi - lo;
        }
        self.shared |= 1 << byte;
        self.rest_of(index)
    }

    /// Leaf `index`, the whole of byte `byte`, tested by table `t` (else the rest).
    const fn test(mut self, index: usize, byte: usize, bits: u8, t: &[u64; 4]) -> Self {
        if bits != 8 || self.tests == TESTS {
            return self.rest_of(index);
        }
        self.test_at[self.tests] = byte as u8;
        self.test_leaf[self.tests] = index as u8;
        self.test_table[self.tests] = *t;
        self.tests += 1;
        self
    }

    const fn rest_of(mut self, index: usize) -> Self {
        self.rest |= 1 << index;
        self
    }

    /// Whether `record` passes every range and test (false past 64 leaves).
    #[inline]
    #[must_use]
    pub fn holds(&self, record: &[u8; N]) -> bool {
        let mut acc = 0u8;
        for i in 0..N {
            acc |= self.miss(record, i);
        }
        let mut failed = 0u64;
        for k in 0..self.tests.min(TESTS) {
            failed |= self.test_fails(record, k);
        }
        acc == 0 && failed == 0 && !self.overflow
    }

    /// Non-zero when byte `i` of `record` fails its range.
    #[inline(always)]
    fn miss(&self, record: &[u8; N], i: usize) -> u8 {
        (record[i] & self.mask[i]).wrapping_sub(self.lo[i]).saturating_sub(self.span[i])
    }

    /// 1 when test `k` fails on `record`, else 0.
    #[inline(always)]
    fn test_fails(&self, record: &[u8; N], k: usize) -> u64 {
        let v = record[usize::from(self.test_at[k]) % N];
        !(self.test_table[k][usize::from(v >> 6)] >> (v & 63)) & 1
    }

    /// The leaves of `record` that fail or may fail: none but the `rest` when it
    /// [`holds`](Self::holds). `None` past 64 leaves: check every leaf.
    #[inline]
    #[must_use]
    pub fn suspects(&self, record: &[u8; N]) -> Option<Suspects> {
        if self.holds(record) {
            return Some(Suspects { fail: 0, maybe: self.rest });
        }
        self.failing(record)
    }

    /// The leaves of a record that does not hold: those that surely fail (a failing
    /// test, or the range of a byte no other leaf shares), and those that may (the
    /// `rest`, and the first leaf of a shared byte that fails).
    #[cold]
    fn failing(&self, record: &[u8; N]) -> Option<Suspects> {
        if self.overflow {
            return None;
        }
        let mut miss = [0u8; N];
        for (i, m) in miss.iter_mut().enumerate() {
            *m = self.miss(record, i);
        }
        let mut s = Suspects { fail: 0, maybe: self.rest };
        // Eight bytes at a time: a record fails at few bytes.
        for (k, w) in miss.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..w.len()].copy_from_slice(w);
            let mut word = u64::from_le_bytes(word);
            while word != 0 {
                let i = 8 * k + (word.trailing_zeros() / 8) as usize;
                if (self.shared >> i) & 1 == 1 {
                    s.maybe |= 1 << self.owner[i];
                } else {
                    s.fail |= 1 << self.owner[i];
                }
                word &= !(0xFF << (8 * (i - 8 * k)));
            }
        }
        for k in 0..self.tests.min(TESTS) {
            s.fail |= self.test_fails(record, k) << self.test_leaf[k];
        }
        Some(s)
    }
}

/// The values below `n` whose bits are set in `t`, when they are one run `lo..=hi`.
const fn run(t: &[u64; 4], n: u32) -> Option<(u8, u8)> {
    const fn has(t: &[u64; 4], v: u32) -> bool {
        (t[(v >> 6) as usize] >> (v & 63)) & 1 == 1
    }
    let mut v = 0;
    while v < n && !has(t, v) {
        v += 1;
    }
    if v == n {
        return None;
    }
    let lo = v;
    while v < n && has(t, v) {
        v += 1;
    }
    let hi = v - 1;
    while v < n {
        if has(t, v) {
            return None;
        }
        v += 1;
    }
    Some((lo as u8, hi as u8))
}

#[cfg(test)]
mod tests {
    use super::ByteChecks;
    use crate::generated::arms::ArmKind;
    use crate::generated::geometry::Arch;
    use crate::generated::inst::{BINDINGS, RECORD_SIZE};
    use crate::generated::validate::{
        check_by_rules, check_layout, check_leaves, layout_leaves, validate,
    };

    /// A leaf `(offset, width, shift, bits)` and its enum's table.
    type Case<'a> = ((u8, u8, u8, u8), Option<&'a [u64; 4]>);

    /// A bit table of the values in `vals`.
    fn table(vals: &[u8]) -> [u64; 4] {
        let mut t = [0u64; 4];
        for &v in vals {
            t[usize::from(v >> 6)] |= 1 << (v & 63);
        }
        t
    }

    /// Whether `b` as leaf `(offset, width, shift, bits)` holds a value named in `t`.
    fn named(t: &[u64; 4], r: &[u8; 4], (offset, width, shift, bits): (u8, u8, u8, u8)) -> bool {
        let mut v = 0u32;
        for i in 0..width as usize {
            v |= u32::from(r[offset as usize + i]) << (8 * i);
        }
        let v = (v >> shift) & ((1u32 << bits) - 1);
        v < 256 && (t[(v >> 6) as usize] >> (v & 63)) & 1 == 1
    }

    /// On every value of two bytes, the checks and the leaves they name as suspects
    /// give the first failing leaf that checking the leaves one by one gives: runs,
    /// gaps, no value, every value, two nibbles of one byte, a field in a byte's top
    /// bits, two leaves on one byte, leaves in the upper bytes of a word, a leaf
    /// across two bytes, an enum wider than a byte, and more gapped leaves than
    /// [`TESTS`](super::TESTS).
    #[test]
    fn byte_checks_hold_as_their_leaves_do() {
        let run = table(&[0, 1, 2, 3, 4]);
        let high = table(&[3, 4, 5]);
        let gap = table(&[0, 2]);
        let none = table(&[]);
        let every = [u64::MAX; 4];
        let nibble = table(&[0, 1, 2, 7]);
        let nibble_run = table(&[1, 2, 3]);
        let top = table(&[1, 2]);
        let even = [0x5555_5555_5555_5555u64; 4];
        let cases: &[&[Case<'_>]] = &[
            &[((1, 1, 0, 8), Some(&run))],
            &[((1, 1, 0, 8), Some(&high))],
            &[((1, 1, 0, 8), Some(&gap))],
            &[((1, 1, 0, 8), Some(&none))],
            &[((1, 1, 0, 8), Some(&every))],
            &[((1, 1, 0, 4), Some(&nibble_run)), ((1, 1, 4, 4), Some(&nibble))],
            &[((1, 1, 0, 4), Some(&nibble_run)), ((1, 1, 4, 4), Some(&nibble_run))],
            &[((2, 1, 6, 2), Some(&top)), ((1, 1, 0, 8), Some(&run))],
            &[((1, 1, 0, 8), Some(&run)), ((1, 1, 0, 8), Some(&high))],
            &[((1, 1, 0, 8), Some(&run)), ((1, 1, 0, 8), Some(&gap))],
            &[((1, 1, 0, 8), Some(&high)), ((1, 1, 0, 8), Some(&table(&[0, 1])))],
            &[((1, 2, 0, 8), Some(&run))],
            &[((1, 2, 4, 8), Some(&run))],
            &[((1, 1, 0, 8), None), ((2, 1, 0, 3), Some(&run))],
            &[((0, 4, 8, 8), Some(&gap)), ((0, 4, 16, 8), Some(&run))],
            &[((0, 4, 12, 4), Some(&nibble)), ((0, 4, 16, 2), Some(&top))],
            &[((1, 1, 0, 8), Some(&gap)), ((1, 1, 0, 8), Some(&high)), ((1, 1, 0, 8), Some(&run))],
            &[
                ((1, 1, 0, 8), Some(&gap)),
                ((2, 1, 0, 8), Some(&even)),
                ((1, 1, 0, 8), Some(&even)),
                ((2, 1, 0, 8), Some(&gap)),
                ((1, 1, 0, 8), Some(&gap)),
                ((2, 1, 0, 8), Some(&even)),
                ((1, 1, 0, 8), Some(&even)),
                ((2, 1, 0, 8), Some(&gap)),
                ((1, 1, 0, 8), Some(&table(&[0, 4]))),
                ((2, 1, 0, 8), Some(&table(&[0, 6]))),
            ],
        ];
        for (n, leaves) in cases.iter().enumerate() {
            let mut c = ByteChecks::<4>::NONE;
            for (i, &((o, w, s, b), t)) in leaves.iter().enumerate() {
                c = c.with_leaf(i, o, w, s, b, t);
            }
            for x in 0..=255u8 {
                for y in 0..=255u8 {
                    let r = [0, x, y, 0];
                    let ok = |i: usize| leaves[i].1.is_some_and(|t| named(t, &r, leaves[i].0));
                    let first = (0..leaves.len()).find(|&i| !ok(i));
                    // What `check_layout` does.
                    let by_checks = c.suspects(&r).unwrap().first(|i| !ok(i));
                    assert_eq!(by_checks, first, "case {n}: {x:#04x} {y:#04x}");
                }
            }
        }
        // Past 64 leaves the masks hold nothing and name no suspect.
        let mut c = ByteChecks::<4>::NONE;
        for i in 0..65 {
            c = c.with_leaf(i, 1, 1, 0, 8, Some(&every));
        }
        assert!(!c.holds(&[0; 4]));
        assert_eq!(c.suspects(&[0; 4]), None);
    }

    /// For every arm, generation and leaf, and every value of the leaf's first
    /// byte over random small payloads, the byte checks give what checking every
    /// leaf in order gives, error for error.
    #[test]
    fn layouts_validate_by_bytes_as_leaf_by_leaf() {
        let mut seed = 0x7062_6973_6100_0003u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed >> 33
        };
        let mut checked = 0usize;
        for arch in Arch::ALL {
            for &kind in ArmKind::ALL {
                let layout = layout_leaves(kind, arch);
                for l in layout.leaves {
                    for v in 0..=255u8 {
                        let mut r = [0u8; RECORD_SIZE];
                        for x in &mut r {
                            *x = (next() % 4) as u8;
                        }
                        r[l.offset as usize] = v;
                        assert_eq!(
                            check_layout(arch, &r, layout),
                            check_leaves(arch, &r, layout.leaves),
                            "{kind:?} {arch:?} {} = {v:#04x}",
                            l.name
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// The planned validator gives what the full rules give, error for error, on every
    /// generation and opcode value, with zero and random payloads and every value of
    /// each sub-opcode byte.
    #[test]
    fn the_plan_validates_as_the_rules_do() {
        let mut seed = 0x7062_6973_6100_0002u64;
        for arch in Arch::ALL {
            for op in 0..=255u8 {
                for fill in 0..8u8 {
                    let mut r = [0u8; RECORD_SIZE];
                    for x in &mut r {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        // Small values, so that enum fields are often named.
                        *x = if fill == 0 { 0 } else { (seed >> 60) as u8 * (fill % 3) };
                    }
                    r[0] = op;
                    assert_eq!(validate(arch, &r), check_by_rules(arch, &r), "{arch:?} {op:#04x}");
                    for b in BINDINGS.iter().filter(|b| b.opcode == op) {
                        if let Some(s) = b.sub {
                            for v in 0..=255u8 {
                                r[s.offset] = v;
                                assert_eq!(validate(arch, &r), check_by_rules(arch, &r));
                            }
                        }
                    }
                }
            }
        }
    }
}
