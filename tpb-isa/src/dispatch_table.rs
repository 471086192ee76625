//! `dispatch_table!`: the arm of every value of a byte-wide opcode, built at compile
//! time from the generated `match` itself, so that `dispatch` is one load where it
//! would take an indirect jump, and the two cannot disagree. An opcode with sub-opcode
//! bindings is marked [`Slot::BySub`] and left to the match.

/// What one opcode value dispatches to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot<K> {
    /// This arm.
    Arm(K),
    /// No arm (an opcode no arm reads, or one the spec does not name).
    NoArm,
    /// The arm depends on a sub-opcode byte: ask the match.
    BySub,
}

/// `dispatch_table!(by_match)`: `[Slot<ArmKind>; 256]` holding, for each opcode value,
/// the arm that `by_match` (a `const fn(&[u8; RECORD_SIZE]) -> Option<ArmKind>`)
/// selects, or [`Slot::BySub`] when a binding of the value has a sub-opcode.
macro_rules! dispatch_table {
    ($by_match:ident) => {{
        use $crate::dispatch_table::Slot;
        let by_sub = $crate::dispatch_table::by_sub();
        let mut t = [Slot::NoArm; 256];
        let mut op = 0usize;
        while op < 256 {
            let mut record = [0u8; RECORD_SIZE];
            record[DISCRIMINANT_OFFSET] = op as u8;
            t[op] = if by_sub[op] {
                Slot::BySub
            } else {
                match $by_match(&record) {
                    Some(k) => Slot::Arm(k),
                    None => Slot::NoArm,
                }
            };
            op += 1;
        }
        t
    }};
}
pub(crate) use dispatch_table;

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
mod tests {
    use crate::generated::inst::{dispatch, dispatch_match, BINDINGS, RECORD_SIZE};

    /// The table agrees with the match on every opcode value, whatever the other bytes
    /// hold, and on every value of each sub-opcode byte.
    #[test]
    fn the_table_dispatches_as_the_match_does() {
        let mut seed = 0x7062_6973_6100_0001u64;
        for op in 0..=255u8 {
            for fill in 0..8u8 {
                let mut r = [0u8; RECORD_SIZE];
                for x in &mut r {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    *x = if fill == 0 { 0 } else { (seed >> 56) as u8 };
                }
                r[0] = op;
                assert_eq!(dispatch(&r), dispatch_match(&r), "opcode {op:#04x}");
                for b in BINDINGS.iter().filter(|b| b.opcode == op) {
                    if let Some(s) = b.sub {
                        for v in 0..=255u8 {
                            r[s.offset] = v;
                            assert_eq!(dispatch(&r), dispatch_match(&r), "{op:#04x}/{v}");
                        }
                    }
                }
            }
        }
    }
}
