//! `plan_table!`: what validating a record checks, per generation and opcode value,
//! built at compile time from the generated rules themselves (`plan_for`), so that the
//! validator's checks before the fields (bitmask, availability, binding, dispatch, the
//! layout's leaves) are one load where they were five matches. An opcode with
//! sub-opcode bindings that all read one byte is planned per value of that byte
//! (`sub_plan_table!`, [`Plan::Sub`]); one whose bindings read different bytes is
//! marked [`Plan::BySub`] and left to the full rules. Each plan's [`Gate`]
//! (`gate_table!`) is tested before the plan is read: a short list of leaves in one
//! byte each, and-ed without a branch, accepts a record that passes them; else one
//! byte against a row refuses one that fails.

use crate::leaf_test::{ByteTests, Unrolled};

/// What a record with a given opcode value on a given generation checks.
#[derive(Debug)]
pub enum Plan<L: 'static> {
    /// These enum-typed leaves, with their unrolled test when every leaf lies in one
    /// byte (so that its byte row alone decides it).
    Check(&'static [L], Option<crate::leaf_test::Unrolled>),
    /// Nothing: the opcode fails a validator bitmask (a spec whose bitmasks are all
    /// inferred checks none).
    #[allow(dead_code)]
    OpcodeNotValid,
    /// Nothing: the opcode, its binding or its arm does not exist on the generation.
    NotOnArch,
    /// The rules depend on a sub-opcode byte: run them in full.
    BySub,
    /// The rules depend on a sub-opcode byte that every sub-opcode binding of the
    /// opcode reads: the plan for each of its values.
    Sub(&'static SubPlan<L>),
}

impl<L> Clone for Plan<L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L> Copy for Plan<L> {}

/// The plans of one opcode value on one generation, by the value of its sub-opcode
/// byte.
#[derive(Debug)]
pub struct SubPlan<L: 'static> {
    /// The sub-opcode byte's offset in the record.
    pub offset: u8,
    /// The plan for each value of that byte (never [`Plan::Sub`]).
    pub plans: [Plan<L>; 256],
}

impl<L> Clone for SubPlan<L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L> Copy for SubPlan<L> {}

/// The first test of a plan, run before the plan is read: one byte of the record
/// against a row of flags, and the error when the byte fails it. On random records
/// most plans fail their first test (a refusal for the generation, or a first leaf
/// out of its enum), and which kind of plan a record has is a coin toss; the gate
/// answers them all with one load and one branch, where reading the plan first
/// branched on its kind.
///
/// One cache line each, aligned (`repr(align(64))`): a stream of mixed arms reads a
/// gate per record, so a table of 256 gates a generation that fits the first-level
/// cache and a gate that never straddles two lines are worth more than the rest of
/// the plan, which the record's out-of-line path reads from [`Plan`] itself.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Gate<L: 'static> {
    /// The error when the gate's byte fails its row (unused when every value passes).
    pub fail: Refusal<L>,
    /// Whether each value of the gate's byte passes.
    pub row: &'static [bool; 256],
    /// Where the plan is a leaf list whose leaves each lie in one byte and number at
    /// most [`SETTLE`] after the preamble's: those leaves' rows (with `settle_at`, the
    /// test no record passes for any other plan). A record of any such plan that
    /// passes them and the preamble's is settled alike: a stream that alternates arms
    /// meets no branch on the arm (the gate's one leaf and the call of the rest
    /// mispredicted there). Held as two arrays, not a [`ByteTests`], whose padding
    /// would take the gate past 64 bytes; [`Gate::settles`] tests them as one.
    pub settle_rows: [&'static [bool; 256]; SETTLE],
    /// The bytes of those leaves.
    pub settle_at: [u8; SETTLE],
    /// The gate's byte (any byte when the row is uniform).
    pub at: u8,
}

// A gate is one cache line.
const _: () = assert!(core::mem::size_of::<Gate<crate::generated::validate::EnumLeaf>>() == 64);

/// How many leaves after the preamble's a plan may have for its gate to settle it:
/// each slot costs every record four loads, and four cover most layouts' lists (every
/// arm the corpus uses; the longer lists take the gate's first leaf and the call).
pub const SETTLE: usize = 4;

impl<L> Clone for Gate<L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L> Copy for Gate<L> {}

/// The error a [`Gate`] gives.
#[derive(Debug)]
pub enum Refusal<L: 'static> {
    /// [`Plan::OpcodeNotValid`].
    OpcodeNotValid,
    /// [`Plan::NotOnArch`].
    NotOnArch,
    /// The first leaf of a [`Plan::Check`] whose leaves each lie in one byte: its
    /// error for the value of its byte.
    Leaf(&'static L),
}

impl<L> Clone for Refusal<L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L> Copy for Refusal<L> {}

/// No value passes.
pub(crate) static NEVER: [bool; 256] = [false; 256];
/// Every value passes.
pub(crate) static ALWAYS: [bool; 256] = [true; 256];

impl<L> Gate<L> {
    /// The gate of `plan`: a refusal fails every byte, a leaf list with an unrolled
    /// test tests its first leaf's byte, and every other plan passes (the plan then
    /// decides).
    pub(crate) const fn of(plan: &Plan<L>) -> Gate<L> {
        let settle = match *plan {
            Plan::Check(_, Some(Unrolled { settle: Some(s), .. })) => s,
            _ => ByteTests::never(),
        };
        let (at, row, fail) = match *plan {
            Plan::OpcodeNotValid => (0, &NEVER, Refusal::OpcodeNotValid),
            Plan::NotOnArch => (0, &NEVER, Refusal::NotOnArch),
            Plan::Check([first, ..], Some(u)) => (u.first_at, u.first_row, Refusal::Leaf(first)),
            _ => (0, &ALWAYS, Refusal::NotOnArch),
        };
        Gate { fail, row, settle_rows: settle.rows, settle_at: settle.at, at }
    }

    /// Whether `record` passes the settling tests (`settle_at`, `settle_rows`): each
    /// byte against its row, and-ed.
    #[inline(always)]
    pub fn settles(&self, record: &[u8; crate::generated::inst::RECORD_SIZE]) -> bool {
        ByteTests { at: self.settle_at, rows: self.settle_rows }.passes(record)
    }
}

/// `gate_table!(PLAN)`: the [`Gate`] of each plan of the `static` plan table `PLAN`
/// (`[[Plan<EnumLeaf>; 256]; Arch::ALL.len()]`).
macro_rules! gate_table {
    ($plans:ident) => {{
        use $crate::generated::geometry::Arch;
        use $crate::validate_plan::{Gate, Plan};
        let mut t = [[Gate::of(&Plan::BySub); 256]; Arch::ALL.len()];
        let mut a = 0;
        while a < Arch::ALL.len() {
            let mut op = 0;
            while op < 256 {
                t[a][op] = Gate::of(&$plans[a][op]);
                op += 1;
            }
            a += 1;
        }
        t
    }};
}
pub(crate) use gate_table;

/// How many opcode values have a binding with a sub-opcode.
pub(crate) const fn sub_opcode_count() -> usize {
    let by_sub = by_sub();
    let (mut n, mut op) = (0, 0);
    while op < 256 {
        if by_sub[op] {
            n += 1;
        }
        op += 1;
    }
    n
}

/// The opcode values that have a binding with a sub-opcode, in order, each with the
/// offset of the byte its sub-opcode bindings read when they all read the same one
/// (`None` when they read different bytes). `N` is [`sub_opcode_count`].
pub(crate) const fn sub_opcodes<const N: usize>() -> [(u8, Option<u8>); N] {
    use crate::generated::inst::BINDINGS;
    let by_sub = by_sub();
    let mut out = [(0u8, None); N];
    let (mut k, mut op) = (0, 0);
    while op < 256 && k < N {
        if by_sub[op] {
            let mut offset: Option<usize> = None;
            let mut shared = true;
            let mut i = 0;
            while i < BINDINGS.len() {
                if let (true, Some(s)) = (BINDINGS[i].opcode as usize == op, BINDINGS[i].sub) {
                    match offset {
                        Some(o) if o != s.offset => shared = false,
                        _ => offset = Some(s.offset),
                    }
                }
                i += 1;
            }
            out[k] = match offset {
                Some(o) if shared && o < 256 => (op as u8, Some(o as u8)),
                _ => (op as u8, None),
            };
            k += 1;
        }
        op += 1;
    }
    out
}

/// `sub_plan_table!(plan_for)`: `[[SubPlan<EnumLeaf>; sub_opcode_count()];
/// Arch::ALL.len()]` whose row `arch as usize`, entry `k` holds, for the `k`-th opcode
/// of [`sub_opcodes`] whose sub-opcode bindings read one byte, `plan_for(arch, r)` of a
/// record `r` of that opcode and each value of that byte (a `const fn`; no other byte
/// decides a plan of such an opcode). Entries of the other opcodes are not used.
macro_rules! sub_plan_table {
    ($plan_for:ident) => {{
        use $crate::generated::geometry::Arch;
        use $crate::validate_plan::{Plan, SubPlan};
        const N: usize = $crate::validate_plan::sub_opcode_count();
        const OPS: [(u8, Option<u8>); N] = $crate::validate_plan::sub_opcodes::<N>();
        let mut t = [[SubPlan { offset: 0, plans: [Plan::BySub; 256] }; N]; Arch::ALL.len()];
        let mut a = 0;
        while a < Arch::ALL.len() {
            let mut k = 0;
            while k < N {
                if let Some(offset) = OPS[k].1 {
                    t[a][k].offset = offset;
                    let mut v = 0;
                    while v < 256 {
                        let mut record = [0u8; RECORD_SIZE];
                        record[DISCRIMINANT_OFFSET] = OPS[k].0;
                        record[offset as usize] = v as u8;
                        t[a][k].plans[v] = $plan_for(Arch::ALL[a], &record);
                        v += 1;
                    }
                }
                k += 1;
            }
            a += 1;
        }
        t
    }};
}
pub(crate) use sub_plan_table;

/// `plan_table!(plan_of, SUB_PLAN)`: `[[Plan<EnumLeaf>; 256]; Arch::ALL.len()]` whose
/// row `arch as usize`, column `opcode` is `plan_of(arch, opcode)` (a `const fn`); for
/// an opcode with a sub-opcode binding ([`by_sub`]),
/// [`Plan::Sub`] into `SUB_PLAN` (the static `sub_plan_table!` builds) when its
/// sub-opcode bindings read one byte, else [`Plan::BySub`].
macro_rules! plan_table {
    ($plan_of:ident, $sub:ident) => {{
        use $crate::generated::geometry::Arch;
        use $crate::validate_plan::Plan;
        const N: usize = $crate::validate_plan::sub_opcode_count();
        const OPS: [(u8, Option<u8>); N] = $crate::validate_plan::sub_opcodes::<N>();
        let by_sub = $crate::validate_plan::by_sub();
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
            let mut k = 0;
            while k < N {
                if OPS[k].1.is_some() {
                    t[a][OPS[k].0 as usize] = Plan::Sub(&$sub[a][k]);
                }
                k += 1;
            }
            a += 1;
        }
        t
    }};
}
pub(crate) use plan_table;

/// Which opcode values have a binding with a sub-opcode: their arm (and so their
/// validation) depends on more than the opcode byte.
pub(crate) const fn by_sub() -> [bool; 256] {
    use crate::generated::inst::BINDINGS;
    let mut by_sub = [false; 256];
    let mut i = 0;
    while i < BINDINGS.len() {
        if BINDINGS[i].sub.is_some() {
            by_sub[BINDINGS[i].opcode as usize] = true;
        }
        i += 1;
    }
    by_sub
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::generated::geometry::Arch;
    use crate::generated::inst::{BINDINGS, RECORD_SIZE};
    use crate::generated::validate::{check_by_rules, validate};

    /// The next value of a linear congruential generator (the tests' random payloads).
    pub(crate) fn next(seed: &mut u64) -> u64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *seed
    }

    /// The gates answer as the full rules do for every value of the byte they test: the
    /// first leaf's byte of each arm's leaf list (and any byte of a refused opcode), on
    /// every generation and opcode value, over a zero and a random payload.
    #[test]
    fn every_value_of_a_gates_byte_validates_as_the_rules_do() {
        use crate::generated::inst::dispatch;
        use crate::generated::validate::leaf_list;
        let mut seed = 0x7062_6973_6100_0004u64;
        let mut tested = 0usize;
        for &arch in Arch::ALL {
            for op in 0..=255u8 {
                for random in [false, true] {
                    let mut r = [0u8; RECORD_SIZE];
                    if random {
                        r.iter_mut().for_each(|x| *x = (next(&mut seed) >> 56) as u8);
                    }
                    r[0] = op;
                    let at = dispatch(&r)
                        .and_then(|kind| leaf_list(kind, arch).0.first())
                        .map_or(RECORD_SIZE - 1, |l| usize::from(l.byte_at));
                    if at == 0 {
                        continue;
                    }
                    for v in 0..=255u8 {
                        r[at] = v;
                        assert_eq!(
                            validate(arch, &r),
                            check_by_rules(arch, &r),
                            "{arch:?} {op:#04x}"
                        );
                        tested += 1;
                    }
                }
            }
        }
        assert!(tested > 200_000, "{tested}");
    }

    /// A record of each binding whose every leaf in one byte passes (its byte set to a
    /// value every leaf in that byte passes), and then every value of each leaf's byte:
    /// the gate's branch-free test (which settles such records) answers as the full
    /// rules do, on every generation.
    #[test]
    fn every_value_of_each_leafs_byte_on_a_passing_record_validates_as_the_rules_do() {
        use crate::generated::validate::leaf_list;
        let (mut passing, mut tested) = (0usize, 0usize);
        for &arch in Arch::ALL {
            for b in BINDINGS {
                let mut r = b.record();
                let leaves = leaf_list(b.arm, arch).0;
                let in_byte = || leaves.iter().filter(|l| l.byte_rows.is_some());
                for l in in_byte() {
                    let at = usize::from(l.byte_at);
                    let pass =
                        |v: usize| in_byte().all(|m| m.byte_at != l.byte_at || m.byte_row[v]);
                    if let Some(v) = (0..256).find(|&v| pass(v)) {
                        r[at] = v as u8;
                    }
                }
                assert_eq!(validate(arch, &r), check_by_rules(arch, &r), "{arch:?} {}", b.mnemonic);
                passing += usize::from(validate(arch, &r).is_ok());
                for l in in_byte() {
                    let mut r = r;
                    for v in 0..=255u8 {
                        r[usize::from(l.byte_at)] = v;
                        assert_eq!(
                            validate(arch, &r),
                            check_by_rules(arch, &r),
                            "{arch:?} {} {} = {v}",
                            b.mnemonic,
                            l.name
                        );
                        tested += 1;
                    }
                }
            }
        }
        // Most bindings exist on most generations, and their records then pass.
        assert!(passing > BINDINGS.len() * 2, "{passing} of {}", BINDINGS.len() * 4);
        assert!(tested > 300_000, "{tested}");
    }

    /// The planned validator gives what the full rules give, error for error, on every
    /// generation and opcode value, with zero and random payloads and every value of
    /// each sub-opcode byte.
    #[test]
    fn the_plan_validates_as_the_rules_do() {
        let mut seed = 0x7062_6973_6100_0002u64;
        for &arch in Arch::ALL {
            for op in 0..=255u8 {
                for fill in 0..8u8 {
                    let mut r = [0u8; RECORD_SIZE];
                    for x in &mut r {
                        let seed = next(&mut seed);
                        // Mostly small values, so that enum fields are often named.
                        *x = match fill {
                            0 => 0,
                            7 => (seed >> 56) as u8,
                            _ => (seed >> 60) as u8 * (fill % 3),
                        };
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
