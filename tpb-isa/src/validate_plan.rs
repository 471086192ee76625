//! `plan_table!`: what validating a record checks, per generation and opcode value,
//! built at compile time from the generated rules themselves (`plan_for`), so that the
//! validator's checks before the fields (bitmask, availability, binding, dispatch, the
//! layout's leaves) are one load where they were five matches. An opcode with
//! sub-opcode bindings is marked [`Plan::BySub`] and left to the full rules.

/// What a record with a given opcode value on a given generation checks.
#[derive(Debug)]
pub enum Plan<L: 'static> {
    /// These enum-typed leaves.
    Check(&'static [L]),
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

#[cfg(test)]
mod tests {
    use crate::error::ValidateError;
    use crate::generated::arms::ArmKind;
    use crate::generated::geometry::Arch;
    use crate::generated::inst::{BINDINGS, RECORD_SIZE};
    use crate::generated::validate::{check_by_rules, check_leaves, enum_leaves, validate};

    /// The next value of a linear congruential generator (the tests' random payloads).
    fn next(seed: &mut u64) -> u64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *seed
    }

    /// The leaf loop's fast path (one byte, one bit; for a marker byte too, the top
    /// byte of its word) answers as each leaf's own value and test, error for error:
    /// for every arm, generation and leaf, every value of each of the leaf's bytes
    /// over random small payloads.
    #[test]
    fn the_leaf_loop_answers_as_each_leaf_does() {
        let mut seed = 0x7062_6973_6100_0003u64;
        let mut checked = 0usize;
        for arch in Arch::ALL {
            for &kind in ArmKind::ALL {
                let leaves = enum_leaves(kind, arch);
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
                                }),
                                None => Ok(()),
                            };
                            assert_eq!(
                                check_leaves(arch, &r, leaves),
                                want,
                                "{kind:?} {arch:?} {}",
                                l.name
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
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
