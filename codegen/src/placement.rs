//! The placement rule of the committed spec: every group is placed somewhere (an arm,
//! the record's preamble, a struct or another group). An edit to a group nothing places
//! would change nothing and say nothing of it (a fix made to the group an arm was meant
//! to use). `cargo xtask gen` and `check` refuse a spec that breaks it, as they do the
//! provenance rule; [`crate::load`] does not, so that an older spec (a side of
//! `cargo xtask diff`) and a scratch spec still load.

use std::collections::BTreeSet;

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::model::{Model, StructId};

/// One error for each group of `m` that nothing places, at the group's name.
pub fn unplaced_groups(m: &Model) -> Diagnostics {
    let placed: BTreeSet<StructId> = m
        .record
        .preamble
        .iter()
        .chain(m.structs.iter().flat_map(|s| &s.fields))
        .chain(m.arms.iter().flat_map(|a| a.layouts.iter().flat_map(|l| &l.fields)))
        .filter_map(|f| f.group.as_ref().map(|g| g.group))
        .collect();
    let out = m
        .structs
        .iter()
        .enumerate()
        .filter(|&(i, s)| s.is_group && !placed.contains(&StructId(i as u32)))
        .map(|(_, s)| {
            Diagnostic::error(s.meta.span, format!("group '{}' is placed nowhere", s.name)).note(
                "place it ('NN use NAME' in an arm, struct or group) or remove it: an edit to a \
                 group nothing places changes nothing",
            )
        })
        .collect();
    let mut d = Diagnostics(out);
    d.sort();
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_str as load;

    const BASE: &str = "enum OPCODE : u8 {\n    A = 1\n}\nrecord R : 4 {\n    \
                        discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n";

    /// A group an arm places passes; one nothing places is an error at its name, and
    /// the spec still loads (the rule is the committed spec's, not `load`'s).
    #[test]
    fn a_group_placed_nowhere_is_named() {
        let placed = format!("{BASE}group G : 1 {{\n    0 a u8\n}}\narm X : R {{\n    1 use G\n    2 r reserved[2]\n}}\n");
        assert!(unplaced_groups(&load(&placed)).0.is_empty());
        let lonely = format!("{placed}group LONELY : 1 {{\n    0 b u8\n}}\n");
        let m = load(&lonely);
        let d = unplaced_groups(&m);
        assert_eq!(d.0.len(), 1);
        assert_eq!(d.0[0].message, "group 'LONELY' is placed nowhere");
        assert_eq!(m.sources.text(d.0[0].span), "LONELY");
    }

    /// A group placed only inside another group that an arm places counts as placed.
    #[test]
    fn a_group_placed_in_a_group_is_placed() {
        let text = format!("{BASE}group IN : 1 {{\n    0 a u8\n}}\ngroup OUT : 2 {{\n    0 use IN\n    1 b u8\n}}\narm X : R {{\n    1 use OUT\n    3 r reserved[1]\n}}\n");
        assert!(unplaced_groups(&load(&text)).0.is_empty());
    }
}
