//! How a plan's enum-typed leaves are tested: the list's loop, and the unrolled test
//! generated for a list whose leaves each lie in one byte ([`unrolled_table!`]).

use crate::error::ValidateError;
use crate::generated::geometry::Arch;
use crate::generated::inst::RECORD_SIZE;
use crate::generated::validate::EnumLeaf;
use crate::validate_plan::{ALWAYS, NEVER, SETTLE};

/// A leaf list's test unrolled into straight-line code: which of its leaves fail
/// their byte row, as a mask (bit `i` for leaf `i`; 0 when the record passes).
pub type LeafMask = fn(&[u8; RECORD_SIZE]) -> u64;

/// The unrolled test of a leaf list whose leaves each lie in one byte.
#[derive(Clone, Copy, Debug)]
pub struct Unrolled {
    /// Which leaves fail.
    pub failing: LeafMask,
    /// The first leaf's byte, tested before the call: a record that fails it (random
    /// bytes mostly do) is answered without an indirect call, which would mispredict
    /// on a stream of mixed arms. A copy of the leaf's, held in the plan so that the
    /// test needs no load through the list.
    pub first_at: u8,
    /// The first leaf's byte row.
    pub first_row: &'static [bool; 256],
    /// The leaves after the preamble's (which `check` tests for every record), when
    /// there are at most [`SETTLE`]: the gate's branch-free test (`Gate::settles`).
    pub settle: Option<ByteTests<SETTLE>>,
}

/// Leaves that each lie in one byte, as their bytes and byte rows, padded with rows
/// every value passes: tested and-ed, without a branch on which leaves they are.
#[derive(Clone, Copy, Debug)]
pub struct ByteTests<const N: usize> {
    /// Each leaf's byte (0 for padding).
    pub at: [u8; N],
    /// Its row.
    pub rows: [&'static [bool; 256]; N],
}

impl<const N: usize> ByteTests<N> {
    /// The bytes and rows of `leaves`, when there are at most `N` (a leaf not in one
    /// byte has the empty row, which no record passes).
    pub(crate) const fn of(leaves: &'static [EnumLeaf]) -> Option<ByteTests<N>> {
        if leaves.len() > N {
            return None;
        }
        let mut t = ByteTests { at: [0; N], rows: [&ALWAYS; N] };
        let mut i = 0;
        while i < leaves.len() {
            t.at[i] = leaves[i].byte_at;
            t.rows[i] = leaves[i].byte_row;
            i += 1;
        }
        Some(t)
    }

    /// A test no record passes.
    pub(crate) const fn never() -> ByteTests<N> {
        let mut t = ByteTests { at: [0; N], rows: [&ALWAYS; N] };
        if N > 0 {
            t.rows[0] = &NEVER;
        }
        t
    }

    /// Whether `record` passes every test: each byte against its row, and-ed.
    #[inline(always)]
    pub fn passes(&self, record: &[u8; RECORD_SIZE]) -> bool {
        let mut pass = true;
        let mut i = 0;
        while i < N {
            // `at` is inside the record: the modulus only spares a bounds test.
            pass &= self.rows[i][usize::from(record[usize::from(self.at[i]) % RECORD_SIZE])];
            i += 1;
        }
        pass
    }
}

/// `unrolled_table!(LEAVES; 0 1 2 3)`: `[Option<Unrolled>; N]` whose entry `a` is the
/// unrolled test of the leaf list `LEAVES[a]` (a `static` of fixed-length lists, so
/// that each leaf's byte and row fold into the code), or `None` when the list is
/// empty or a leaf of it does not lie in one byte.
macro_rules! unrolled_table {
    ($leaves:ident; $($a:literal)*) => {
        [$(
            EnumLeaf::unrolled(&$leaves[$a], &PREAMBLE_LEAVES[$a], |r: &[u8; RECORD_SIZE]| EnumLeaf::failing(&$leaves[$a], r))
        ),*]
    };
}
pub(crate) use unrolled_table;

/// Whether `leaves` begins with `preamble`'s leaves: the same bytes against the same
/// rows.
const fn starts_with(leaves: &[EnumLeaf], preamble: &[EnumLeaf]) -> bool {
    if leaves.len() < preamble.len() {
        return false;
    }
    let mut i = 0;
    while i < preamble.len() {
        let (a, b) = (&leaves[i], &preamble[i]);
        if a.byte_at != b.byte_at || a.byte_rows.is_none() || b.byte_rows.is_none() {
            return false;
        }
        let mut v = 0;
        while v < 256 {
            if a.byte_row[v] != b.byte_row[v] {
                return false;
            }
            v += 1;
        }
        i += 1;
    }
    true
}

impl EnumLeaf {
    /// The unrolled test `failing` of `leaves`, when the list is not empty, is short
    /// enough for [`EnumLeaf::failing`]'s mask, and each of its leaves lies in one byte
    /// (so that its byte row alone decides it).
    pub(crate) const fn unrolled(
        leaves: &'static [EnumLeaf],
        preamble: &'static [EnumLeaf],
        failing: LeafMask,
    ) -> Option<Unrolled> {
        if leaves.is_empty() || leaves.len() > 64 {
            return None;
        }
        let mut i = 0;
        while i < leaves.len() {
            if leaves[i].byte_rows.is_none() {
                return None;
            }
            i += 1;
        }
        // The preamble's leaves, which `check` tests for every record, are left out.
        let skip = if starts_with(leaves, preamble) { preamble.len() } else { 0 };
        let settle = ByteTests::of(leaves.split_at(skip).1);
        Some(Unrolled {
            failing,
            first_at: leaves[0].byte_at,
            first_row: leaves[0].byte_row,
            settle,
        })
    }

    /// Which leaves after the first fail their byte row, as a mask (bit `i` for leaf
    /// `i`; the caller tests the first, [`Unrolled::first_at`]). On a `static` list of
    /// fixed length (`unrolled_table!`) the loop unrolls and each leaf's byte and row
    /// fold into the code: two loads a leaf, where the list's loop makes four and a
    /// branch. The passes are and-ed (a load and an `and` with the row a leaf); the
    /// mask is worked out only for a record that fails, out of line. Building the mask
    /// on every record (a flag, a shift and an `or` a leaf) made SP's validation,
    /// whose two arms have five and six leaves, 25–40% slower.
    #[inline(always)]
    pub(crate) fn failing<const N: usize>(
        leaves: &'static [EnumLeaf; N],
        record: &[u8; RECORD_SIZE],
    ) -> u64 {
        let mut pass = true;
        for l in leaves.iter().skip(1) {
            pass &= l.byte_passes(record);
        }
        if pass {
            0
        } else {
            Self::failing_mask(leaves, record)
        }
    }

    /// Which leaves after the first fail their byte row, as a mask: the slow half of
    /// [`EnumLeaf::failing`], for a record that fails one.
    #[cold]
    #[inline(never)]
    fn failing_mask(leaves: &[EnumLeaf], record: &[u8; RECORD_SIZE]) -> u64 {
        let mut failing = 0u64;
        for (i, l) in leaves.iter().enumerate().skip(1) {
            let pass = l.byte_passes(record);
            failing |= u64::from(!pass) << (i % 64);
        }
        failing
    }

    /// Whether the leaf's byte in `record` passes its byte row (the hot test of every
    /// leaf; always inlined, so that a `static` leaf's byte and row fold into the code).
    #[inline(always)]
    pub(crate) fn byte_passes(&self, record: &[u8; RECORD_SIZE]) -> bool {
        // `byte_at` is inside the record: the modulus only spares a bounds test.
        self.byte_row[usize::from(record[usize::from(self.byte_at) % RECORD_SIZE])]
    }

    /// The error of a leaf in one byte whose byte row fails `record`: the value of its
    /// bits in that byte.
    #[cold]
    pub(crate) fn byte_error(&self, arch: Arch, record: &[u8; RECORD_SIZE]) -> ValidateError {
        let v = record[usize::from(self.byte_at) % RECORD_SIZE];
        let value = (u64::from(v) >> (self.shift % 8)) & ((1u64 << self.bits) - 1);
        ValidateError::BadEnum { field: self.name, offset: self.offset as usize, value, arch }
    }
}

/// The spec's facts; the hot path's table row is left out.
impl core::fmt::Debug for EnumLeaf {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EnumLeaf")
            .field("name", &self.name)
            .field("offset", &self.offset)
            .field("width", &self.width)
            .field("shift", &self.shift)
            .field("bits", &self.bits)
            .field("check", &self.check)
            .finish_non_exhaustive()
    }
}

/// The enum rules for a leaf list: through its unrolled test when it has one, else the
/// loop.
#[inline(always)]
pub(crate) fn check_list(
    arch: Arch,
    record: &[u8; RECORD_SIZE],
    leaves: &[EnumLeaf],
    unrolled: Option<Unrolled>,
) -> Result<(), ValidateError> {
    let Some(u) = unrolled else {
        return check_leaves(arch, record, leaves);
    };
    if !u.first_row[usize::from(record[usize::from(u.first_at) % RECORD_SIZE])] {
        return Err(leaves[0].byte_error(arch, record));
    }
    check_rest(arch, record, leaves, u.failing)
}

/// The enum rules for a leaf list with an unrolled test, but for its first leaf (which
/// the caller tested).
#[inline(always)]
pub(crate) fn check_rest(
    arch: Arch,
    record: &[u8; RECORD_SIZE],
    leaves: &[EnumLeaf],
    failing: LeafMask,
) -> Result<(), ValidateError> {
    match failing(record) {
        0 => Ok(()),
        mask => Err(leaves[mask.trailing_zeros() as usize % leaves.len()].byte_error(arch, record)),
    }
}

/// The enum rules: every leaf's value is one its enum names on `arch`.
#[inline]
pub(crate) fn check_leaves(
    arch: Arch,
    record: &[u8; RECORD_SIZE],
    leaves: &[EnumLeaf],
) -> Result<(), ValidateError> {
    for l in leaves {
        if l.byte_passes(record) {
            continue;
        }
        // Not passed by its byte row: a leaf in one byte fails with the value of its
        // bits there, any other takes the full test.
        if l.byte_rows.is_some() {
            return Err(l.byte_error(arch, record));
        }
        let value = l.value(record);
        if !l.holds(arch, value) {
            return Err(ValidateError::BadEnum {
                field: l.name,
                offset: l.offset as usize,
                value,
                arch,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check_leaves, check_list};
    use crate::error::ValidateError;
    use crate::generated::arms::ArmKind;
    use crate::generated::geometry::Arch;
    use crate::generated::inst::RECORD_SIZE;
    use crate::generated::validate::{enum_leaves, leaf_list};
    use crate::validate_plan::tests::next;

    /// The leaf loop's fast path (the leaf's byte against its row: a whole byte, or a
    /// bit-field inside one) and the list's unrolled test answer as each leaf's own
    /// value and test, error for error: for every arm, generation and leaf, every value
    /// of each of the leaf's bytes over random small payloads.
    #[test]
    fn the_leaf_loop_and_the_unrolled_test_answer_as_each_leaf_does() {
        let mut seed = 0x7062_6973_6100_0003u64;
        let (mut checked, mut unrolled) = (0usize, 0usize);
        for &arch in Arch::ALL {
            for &kind in ArmKind::ALL {
                let (leaves, u) = leaf_list(kind, arch);
                assert_eq!(leaves.as_ptr(), enum_leaves(kind, arch).as_ptr());
                for l in leaves {
                    for at in l.offset as usize..(l.offset + l.width) as usize {
                        for v in 0..=255u8 {
                            let mut r = [0u8; RECORD_SIZE];
                            for x in &mut r {
                                *x = (next(&mut seed) >> 62) as u8;
                            }
                            r[at] = v;
                            let want = match leaves.iter().find(|l| !l.holds(arch, l.value(&r))) {
                                Some(l) => Err(ValidateError::BadEnum {
                                    field: l.name,
                                    offset: l.offset as usize,
                                    value: l.value(&r),
                                    arch,
                                }),
                                None => Ok(()),
                            };
                            assert_eq!(
                                check_leaves(arch, &r, leaves),
                                want,
                                "{kind:?} {arch:?} {}",
                                l.name
                            );
                            assert_eq!(
                                check_list(arch, &r, leaves, u),
                                want,
                                "unrolled: {kind:?} {arch:?} {}",
                                l.name
                            );
                            checked += 1;
                            unrolled += usize::from(u.is_some());
                        }
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
        assert!(unrolled > checked / 2, "{unrolled} of {checked} through an unrolled test");
    }
}
