//! The provenance rule of the committed spec: every item cites at least one `@source`
//! of its own (a member may lean on its item's). `cargo xtask gen` and `check` refuse a
//! spec that breaks it, at the item's line, as any other error; [`crate::load`] does
//! not, so that a test or a scratch spec need not cite anything.

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::model::{GeomKind, Meta, Model};

/// One error for each item of `m` that cites no source: records, structs, groups, arms,
/// unions, vocabularies, operand types, enums, bands, bindings, sentinels, bitmasks,
/// apertures, geometry rules, archs, and every arch's geometry value (its arch-file
/// entry). Sorted by position.
pub fn unsourced(m: &Model) -> Diagnostics {
    let mut out = Vec::new();
    let mut check = |what: String, meta: &Meta| {
        if meta.sources.iter().all(|s| s.trim().is_empty()) {
            out.push(
                Diagnostic::error(meta.span, format!("{what} has no @source"))
                    .label("cites nothing")
                    .note(
                        "every fact carries its provenance: cite the symbol, address, DWARF \
                         name, file:line or page it comes from, as @source(\"...\")",
                    ),
            );
        }
    };
    check(format!("record {}", m.record.name), &m.record.meta);
    for s in &m.structs {
        check(format!("{} {}", if s.is_group { "group" } else { "struct" }, s.name), &s.meta);
    }
    for a in &m.arms {
        check(format!("arm {}", a.name), &a.meta);
    }
    for u in &m.unions {
        check(format!("union {}", u.name), &u.meta);
    }
    for v in &m.vocabs {
        check(format!("vocabulary {}", v.name), &v.meta);
    }
    for b in &m.bits {
        check(format!("bits {}", b.name), &b.meta);
    }
    for e in &m.enums {
        check(format!("enum {}", e.name), &e.meta);
    }
    for b in &m.bands {
        check(format!("band {}.{}", m[b.enum_id].name, b.name), &b.meta);
    }
    for b in &m.bindings {
        // As the spec writes it: the opcode's name, else its value in two digits.
        check(format!("bind {} => {}", crate::diff::json::bind_name(m, b), m[b.arm].name), &b.meta);
    }
    for s in &m.sentinels {
        check(format!("sentinel {}", s.name), &s.meta);
    }
    for b in &m.bitmasks {
        check(format!("bitmask {}", b.name), &b.meta);
    }
    for a in &m.apertures {
        check(format!("aperture {}", a.name), &a.meta);
    }
    // A geometry value's provenance is per generation, on its arch-file entry (below);
    // a rule is a derivation of its own and cites it.
    for g in &m.geometry {
        if matches!(g.kind, GeomKind::Rule { .. }) {
            check(format!("rule {}", g.name), &g.meta);
        }
    }
    for a in &m.archs {
        check(format!("arch {}", a.name), &a.meta);
        for g in m.geom_ids() {
            if let Some(v) = a.value(g) {
                check(format!("value {}.{}", a.name, m[g].name), &v.meta);
            }
        }
    }
    let mut d = Diagnostics(out);
    d.sort();
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_str as load;

    /// An item without a source is named at its line; one with a source, or a member
    /// of a cited item, is not.
    #[test]
    fn an_item_that_cites_nothing_is_an_error_at_its_line() {
        let m = load(
            "@source(\"seed: the record\")\nenum OPCODE : u8 {\n    A = 1\n}\n\
             @source(\"seed\")\nrecord R : 2 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
             arm X : R {\n    1 a u8\n}\n@source(\"seed\")\nbind A => X\n",
        );
        let d = unsourced(&m);
        assert_eq!(d.short(&m.sources), "spec.isa:10:5: arm X has no @source\n");
    }

    /// A binding is named as the spec writes it: its opcode's name, else the value in
    /// two hex digits (it read `bind 0xb`).
    #[test]
    fn a_binding_that_cites_nothing_is_named_as_written() {
        let m = load(
            "@source(\"seed\")\nenum OPCODE : u8 {\n    A = 1\n}\n\
             @source(\"seed\")\nrecord R : 2 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
             @source(\"seed\")\narm X : R {\n    1 a u8\n}\nbind A => X\nbind 0x0b => X\n",
        );
        let d = unsourced(&m);
        assert_eq!(
            d.short(&m.sources),
            "spec.isa:14:1: bind A => X has no @source\nspec.isa:15:1: bind 0x0B => X has no @source\n"
        );
    }
}
