//! Opcode bindings (with the sub-opcode byte), sentinels, validator bitmasks and apertures.

use std::collections::BTreeMap;

use super::meta::meta;
use super::{suggest, u32_of, u64_of, Cx, Items};
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::source::Span;
use crate::syntax::ast::{self, ItemKind, ValueRef};

/// Resolve a value written as a number or a variant name of `e`.
fn value_in(cx: &mut Cx<'_>, v: &ValueRef, e: &Enum, what: &str) -> Option<u64> {
    match v {
        ValueRef::Int(i) => {
            let value = u64_of(cx, *i)?;
            if !e.width.fits(i128::from(value)) {
                cx.error(Diagnostic::error(
                    i.span,
                    format!("{what} {value:#x} does not fit '{}' ({})", e.name, e.width.as_str()),
                ));
                return None;
            }
            Some(value)
        }
        ValueRef::Name(n) => match e.variant_named(&n.name) {
            Some(var) => Some(var.value),
            // Refused where it is declared: that is its one error.
            None if cx.refused_variants.contains(&(e.name.clone(), n.name.clone())) => None,
            None => {
                let mut d = Diagnostic::error(
                    n.span,
                    format!("'{}' is not a variant of '{}'", n.name, e.name),
                );
                d = d.note(
                    suggest(&n.name, e.variants.iter().map(|v| v.name.as_str())).unwrap_or_else(
                        || {
                            format!(
                                "name the value in `enum {}` (with its source), or write it as \
                                 a number",
                                e.name
                            )
                        },
                    ),
                );
                cx.error(d);
                None
            }
        },
    }
}

pub(super) fn bindings(
    cx: &mut Cx<'_>,
    items: &Items<'_>,
    record: &Record,
    arms: &[Arm],
    enums: &[Enum],
) -> Vec<Binding> {
    let op_enum = &enums[record.discriminant.ty.0 as usize];
    let arm_of = |cx: &mut Cx<'_>, arm: &ast::Ident| -> Option<usize> {
        let found = arms.iter().position(|a| a.name == arm.name);
        if found.is_none() {
            let mut d =
                Diagnostic::error(arm.span, format!("binding to unknown arm '{}'", arm.name));
            if let Some(s) = suggest(&arm.name, arms.iter().map(|a| a.name.as_str())) {
                d = d.note(s);
            }
            cx.error(d);
        }
        found
    };
    let mut out: Vec<(Binding, Span)> = Vec::new();
    // `NAME = VALUE => ARM` in the opcode table.
    let table = items.enums.iter().find(|i| i.name.name == op_enum.name);
    if let Some(ItemKind::Enum { variants, .. }) = table.map(|t| &t.kind) {
        for v in variants.iter().filter(|v| v.is_first_of_name(variants)) {
            let Some(arm) = &v.arm else { continue };
            let Some(var) = op_enum.variant_named(&v.name.name) else { continue };
            let Some(aid) = arm_of(cx, arm) else { continue };
            out.push((
                Binding {
                    opcode: var.value,
                    mnemonic: var.name.to_ascii_lowercase(),
                    own_mnemonic: false,
                    mnemonic_span: v.name.span,
                    sub: None,
                    arm: ArmId(aid as u32),
                    meta: var.meta.clone(),
                },
                arm.span,
            ));
        }
    }
    // `bind` statements.
    for item in &items.binds {
        let ItemKind::Bind { opcode, sub, arm, mnemonic: own } = &item.kind else {
            unreachable!("not a bind")
        };
        let Some(aid) = arm_of(cx, arm) else { continue };
        let a = &arms[aid];
        let Some(op) = value_in(cx, opcode, op_enum, "opcode") else { continue };
        let mut mnemonic = op_enum.variant_of(op).map(|v| v.name.to_ascii_lowercase());
        // Where the mnemonic comes from as written, as it is picked below.
        let mut mnemonic_span = if mnemonic.is_some() { opcode.span() } else { arm.span };
        let sub = match sub {
            None => None,
            Some((off, v)) => {
                let Some(offset) = u32_of(cx, *off, "sub-opcode offset") else { continue };
                let holders: Vec<Option<&Field>> = a
                    .layouts
                    .iter()
                    .map(|l| l.fields.iter().find(|f| f.offset == offset && !f.inherited))
                    .collect();
                let Some(Some(field)) = holders.first().copied() else {
                    cx.error(
                        Diagnostic::error(
                            off.span,
                            format!("arm '{}' has no field starting at +{offset} to hold the sub-opcode", a.name),
                        )
                        .with(a.meta.span, "the arm"),
                    );
                    continue;
                };
                if holders.iter().any(|h| h.is_none_or(|f| f.ty != field.ty)) {
                    cx.error(
                        Diagnostic::error(
                            off.span,
                            format!("the sub-opcode field of arm '{}' at +{offset} differs between generations", a.name),
                        )
                        .with(a.meta.span, "the arm"),
                    );
                    continue;
                }
                let (enum_id, e) = match &field.ty {
                    FieldType::Enum(eid) => (Some(*eid), enums[eid.0 as usize].clone()),
                    FieldType::Prim(p) if !p.signed() && !p.is_float() => (
                        None,
                        Enum {
                            name: field.name.clone(),
                            rust: String::new(),
                            width: *p,
                            variants: Vec::new(),
                            status: None,
                            engines: Vec::new(),
                            meta: field.meta.clone(),
                        },
                    ),
                    _ => {
                        cx.error(Diagnostic::error(
                            off.span,
                            format!(
                                "the sub-opcode field '{}' must be an enum or an unsigned integer",
                                field.name
                            ),
                        ));
                        continue;
                    }
                };
                let Some(value) = value_in(cx, v, &e, "sub-opcode") else { continue };
                mnemonic = e.variant_of(value).map(|v| v.name.to_ascii_lowercase());
                mnemonic_span = if mnemonic.is_some() { v.span() } else { arm.span };
                Some(SubOpcode { offset, value, enum_id })
            }
        };
        let m = meta(cx, &item.ann, item.name.span);
        let mnemonic = match own {
            // Its own, where the names would clash (a sub-opcode named as an opcode).
            Some(m) => match mnemonic_error(&m.name) {
                None => m.name.clone(),
                Some(why) => {
                    cx.error(Diagnostic::error(m.span, why).note(
                        "a mnemonic is a word of lowercase letters, digits and '_' that starts \
                         with a letter, as the names' own are (`as extended_copy`)",
                    ));
                    continue;
                }
            },
            None => mnemonic.unwrap_or_else(|| a.mnemonic.clone()),
        };
        out.push((
            Binding {
                opcode: op,
                mnemonic,
                own_mnemonic: own.is_some(),
                mnemonic_span: own.as_ref().map_or(mnemonic_span, |m| m.span),
                sub,
                arm: ArmId(aid as u32),
                meta: m,
            },
            item.span,
        ));
    }
    check_dispatch(cx, &out, arms);
    check_availability(cx, &out, arms, op_enum, &cx.arch_list.clone());
    let mut bindings: Vec<Binding> = out.into_iter().map(|(b, _)| b).collect();
    bindings.sort_by_key(|b| (b.opcode, b.sub.as_ref().map(|s| s.value)));
    bindings
}

/// A binding's arm exists on every generation its opcode (and the binding) exists on.
fn check_availability(
    cx: &mut Cx<'_>,
    out: &[(Binding, Span)],
    arms: &[Arm],
    op_enum: &Enum,
    arch_list: &[String],
) {
    for (b, span) in out {
        let arm = &arms[b.arm.0 as usize];
        let op_meta = op_enum.variant_of(b.opcode).map(|v| &v.meta);
        // An `@archs` in error has been reported; what it leaves is no arch at all.
        let in_error = |m: Option<&crate::model::Meta>| {
            m.and_then(|m| m.archs_span).is_some_and(|s| cx.bad_archs.contains(&s))
        };
        if in_error(Some(&arm.meta)) || in_error(Some(&b.meta)) || in_error(op_meta) {
            continue;
        }
        // A binding whose own `@archs` miss every generation of its opcode selects nothing.
        let archs = || (0..arch_list.len() as u32).map(ArchId);
        if b.meta.archs_span.is_some()
            && op_meta.is_some()
            && !archs()
                .any(|a| b.meta.available_on(a) && op_meta.is_some_and(|m| m.available_on(a)))
        {
            let names = |on: &dyn Fn(ArchId) -> bool| {
                archs()
                    .filter(|&a| on(a))
                    .map(|a| arch_list[a.0 as usize].as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let ours = names(&|a| b.meta.available_on(a));
            let its = names(&|a| op_meta.is_some_and(|m| m.available_on(a)));
            cx.error(
                Diagnostic::error(
                    b.meta.archs_span.unwrap_or(*span),
                    format!(
                        "this binding selects nothing: its @archs ({ours}) share no generation \
                         with those of opcode {:#04x} ({its})",
                        b.opcode
                    ),
                )
                .with(*span, "the binding")
                .note("a binding exists where its @archs and its opcode's both hold"),
            );
            continue;
        }
        let missing: Vec<&str> = (0..arch_list.len() as u32)
            .map(ArchId)
            .filter(|&a| {
                b.meta.available_on(a)
                    && op_meta.is_none_or(|m| m.available_on(a))
                    && !arm.meta.available_on(a)
            })
            .map(|a| arch_list[a.0 as usize].as_str())
            .collect();
        if !missing.is_empty() {
            cx.error(
                Diagnostic::error(
                    *span,
                    format!(
                        "opcode {:#04x} exists on {} but its arm '{}' does not",
                        b.opcode,
                        missing.join(", "),
                        arm.name
                    ),
                )
                .with(arm.meta.archs_span.unwrap_or(arm.meta.span), "the arm's @archs")
                .note(if op_meta.is_some() {
                    "widen the arm's @archs, or narrow the opcode's or the binding's"
                } else {
                    // A value `enum OPCODE` does not name has no @archs of its own.
                    "widen the arm's @archs, or narrow the binding's (an @archs before `bind`)"
                }),
            );
        }
    }
}

/// One arm per (opcode, sub-opcode); an opcode is either plain or sub-dispatched, on one offset.
fn check_dispatch(cx: &mut Cx<'_>, out: &[(Binding, Span)], arms: &[Arm]) {
    let mut by_op: BTreeMap<u64, Vec<&(Binding, Span)>> = BTreeMap::new();
    for b in out {
        by_op.entry(b.0.opcode).or_default().push(b);
    }
    for (op, list) in by_op {
        let first = list[0];
        // The offset most of the opcode's sub-opcode bindings read (the first's on a tie):
        // one binding that reads another is the odd one, reported once, wherever it is
        // written (it was one error per other binding when it came first).
        let mut counts: Vec<(u32, usize, &(Binding, Span))> = Vec::new();
        for b in &list {
            if let Some(s) = &b.0.sub {
                match counts.iter_mut().find(|c| c.0 == s.offset) {
                    Some(c) => c.1 += 1,
                    None => counts.push((s.offset, 1, b)),
                }
            }
        }
        let usual = counts.iter().rev().max_by_key(|c| c.1).copied();
        if let Some((offset, _, holder)) = usual {
            for b in &list {
                let Some(s) = b.0.sub.as_ref().filter(|s| s.offset != offset) else { continue };
                cx.error(
                    Diagnostic::error(
                        b.1,
                        format!(
                            "opcode {op:#04x} sub-dispatches on +{} here but on +{offset} in \
                             its other bindings",
                            s.offset
                        ),
                    )
                    .with(holder.1, "another binding"),
                );
            }
        }
        for b in list[1..].iter().filter(|b| first.0.sub.is_none() || b.0.sub.is_none()) {
            cx.error(
                Diagnostic::error(
                    b.1,
                    format!(
                        "opcode {op:#04x} is bound twice ({} and {})",
                        arms[first.0.arm.0 as usize].name, arms[b.0.arm.0 as usize].name
                    ),
                )
                .with(first.1, "the other binding")
                .note(
                    "an opcode is bound once (whatever its bindings' @archs), or every \
                     binding of it gives a sub-opcode; where its records differ by \
                     generation, give the one arm members with @archs (a layout per \
                     generation)",
                ),
            );
        }
        let mut subs: BTreeMap<u64, &(Binding, Span)> = BTreeMap::new();
        // Of the bindings on the usual offset: one on another is reported above.
        for b in &list {
            if let Some(s) = b.0.sub.as_ref().filter(|s| usual.is_some_and(|u| u.0 == s.offset)) {
                if let Some(prev) = subs.get(&s.value) {
                    cx.error(
                        Diagnostic::error(
                            b.1,
                            format!("opcode {op:#04x} with sub-opcode {} is bound twice", s.value),
                        )
                        .with(prev.1, "the other binding"),
                    );
                } else {
                    subs.insert(s.value, b);
                }
            }
        }
    }
}

pub(super) fn sentinels(
    cx: &mut Cx<'_>,
    items: &[&ast::Item],
    arms: &[Arm],
    bindings: &[Binding],
) -> Vec<Sentinel> {
    let mut out = Vec::new();
    let mut names: BTreeMap<&str, Span> = BTreeMap::new();
    for item in items {
        let ItemKind::Sentinel { arm } = &item.kind else { unreachable!() };
        if let Some(first) = names.get(item.name.name.as_str()) {
            cx.error(
                Diagnostic::error(
                    item.name.span,
                    format!("duplicate sentinel '{}'", item.name.name),
                )
                .with(*first, "first declared here"),
            );
            continue;
        }
        names.insert(&item.name.name, item.name.span);
        let Some(aid) = arms.iter().position(|a| a.name == arm.name) else {
            cx.error(Diagnostic::error(arm.span, format!("unknown arm '{}'", arm.name)));
            continue;
        };
        let found: Vec<usize> = bindings
            .iter()
            .enumerate()
            .filter(|(_, b)| b.arm.0 as usize == aid)
            .map(|(i, _)| i)
            .collect();
        match found.as_slice() {
            [one] => out.push(Sentinel {
                name: item.name.name.clone(),
                binding: BindingId(*one as u32),
                meta: meta(cx, &item.ann, item.name.span),
            }),
            [] => cx.error(Diagnostic::error(
                arm.span,
                format!(
                    "sentinel '{}' names arm '{}', which has no binding",
                    item.name.name, arm.name
                ),
            )),
            _ => cx.error(Diagnostic::error(
                arm.span,
                format!(
                    "sentinel '{}' names arm '{}', which has {} bindings",
                    item.name.name,
                    arm.name,
                    found.len()
                ),
            )),
        }
    }
    out
}

pub(super) fn bitmasks(cx: &mut Cx<'_>, items: &[&ast::Item], enums: &[Enum]) -> Vec<Bitmask> {
    let mut out = Vec::new();
    for item in items {
        let ItemKind::Bitmask { enum_name, words } = &item.kind else { unreachable!() };
        let Some(eid) = enums.iter().position(|e| e.name == enum_name.name) else {
            cx.error(Diagnostic::error(
                enum_name.span,
                format!("unknown enum '{}'", enum_name.name),
            ));
            continue;
        };
        let e = &enums[eid];
        let need = if e.width.bits() >= 32 { None } else { Some((1u64 << e.width.bits()) / 64) };
        let words: Vec<u64> = words.iter().filter_map(|w| u64_of(cx, *w)).collect();
        match need {
            Some(n) if n.max(1) as usize != words.len() => cx.error(Diagnostic::error(
                item.name.span,
                format!(
                    "bitmask '{}' has {} words; '{}' ({}) needs {} to give every value a bit",
                    item.name.name,
                    words.len(),
                    e.name,
                    e.width.as_str(),
                    n.max(1)
                ),
            )),
            None => cx.error(Diagnostic::error(
                enum_name.span,
                format!("a bitmask over '{}' ({}) would be too large", e.name, e.width.as_str()),
            )),
            _ => {}
        }
        out.push(Bitmask {
            name: item.name.name.clone(),
            enum_id: EnumId(eid as u32),
            words,
            meta: meta(cx, &item.ann, item.name.span),
        });
    }
    out
}

pub(super) fn apertures(cx: &mut Cx<'_>, items: &[&ast::Item]) -> Vec<Aperture> {
    let mut out = Vec::new();
    for item in items {
        let ItemKind::Aperture { regions } = &item.kind else { unreachable!() };
        let mut rs: Vec<(Region, Span)> = Vec::new();
        for r in regions {
            let m = meta(cx, &r.ann, r.name.span);
            let Some(base) = u64_of(cx, r.base) else { continue };
            let size = match (r.size, r.last) {
                (Some(s), _) => u64_of(cx, s),
                (None, Some(last)) => {
                    let Some(last) = u64_of(cx, last) else { continue };
                    if last < base {
                        cx.error(Diagnostic::error(
                            r.span,
                            format!("region '{}' ends before it starts", r.name.name),
                        ));
                        continue;
                    }
                    (last - base).checked_add(1)
                }
                (None, None) => unreachable!("a region has a size or an end"),
            };
            let Some(size) = size else { continue };
            if size == 0 || base.checked_add(size).is_none() {
                cx.error(Diagnostic::error(
                    r.span,
                    format!("region '{}' is empty or wraps past 2^64", r.name.name),
                ));
                continue;
            }
            rs.push((Region { name: r.name.name.clone(), base, size, meta: m }, r.span));
        }
        for i in 0..rs.len() {
            for j in i + 1..rs.len() {
                let (a, b) = (&rs[i].0, &rs[j].0);
                if a.name == b.name {
                    cx.error(
                        Diagnostic::error(rs[j].1, format!("duplicate region '{}'", b.name))
                            .with(rs[i].1, "first here"),
                    );
                } else if a.base < b.base + b.size && b.base < a.base + a.size {
                    cx.error(
                        Diagnostic::error(
                            rs[j].1,
                            format!(
                                "region '{}' ({:#x}..{:#x}) overlaps '{}' ({:#x}..{:#x})",
                                b.name,
                                b.base,
                                b.base + b.size,
                                a.name,
                                a.base,
                                a.base + a.size
                            ),
                        )
                        .with(rs[i].1, "overlapped here"),
                    );
                }
            }
        }
        out.push(Aperture {
            name: item.name.name.clone(),
            regions: rs.into_iter().map(|(r, _)| r).collect(),
            meta: meta(cx, &item.ann, item.name.span),
        });
    }
    out
}

/// Why `name` cannot be a binding's own mnemonic, if it cannot: the text form reads a
/// mnemonic as a lowercase word. (`unknown`, the mnemonic of a record whose opcode the
/// spec does not name, is a keyword, which the parser refuses as a name.)
fn mnemonic_error(name: &str) -> Option<String> {
    let word = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    (!word).then(|| format!("'{name}' is not a mnemonic"))
}

#[cfg(test)]
mod tests {
    use crate::lower::test_support::{errors, model};

    const SPEC: &str = "enum SUB : u8 {\n    GO = 1\n    STOP = 2\n}\nenum OPCODE : u8 {\n    PLAIN = 1 => A\n    PREFIX = 2\n}\n\
        record R : 2 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\narm A : R {\n    1 x u8\n}\narm S : R {\n    1 kind SUB\n}\n";

    /// One binding of a prefix that reads its sub-opcode at another offset than the
    /// others is one error, at it, written first or last (first, it drew an error at each
    /// other binding).
    #[test]
    fn a_sub_opcode_at_another_offset_is_one_error_at_it() {
        let spec = "enum SUB : u8 {\n    GO = 1\n    STOP = 2\n    WAIT = 3\n}\nenum OPCODE : u8 {\n    PREFIX = 2\n}\n\
            record R : 3 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
            arm S : R {\n    1 kind SUB\n    2 other SUB\n}\n";
        let usual = "bind PREFIX, sub @1 = GO => S\nbind PREFIX, sub @1 = STOP => S\n\
            bind PREFIX, sub @1 = WAIT => S\n";
        let odd = "bind PREFIX, sub @2 = GO => S\n";
        let want = ["opcode 0x02 sub-dispatches on +2 here but on +1 in its other bindings"];
        assert_eq!(errors(&format!("{spec}{odd}{usual}"), &[]), want);
        assert_eq!(errors(&format!("{spec}{usual}{odd}"), &[]), want);
    }

    /// An arm whose `@archs` names an unknown arch is one error: its bindings are not
    /// also said to reach generations the arm lacks (it was said to have none).
    #[test]
    fn an_arm_with_an_unknown_arch_is_one_error_not_one_per_binding() {
        use crate::lower::test_support::OLD_NEW;
        let spec = |archs: &str| {
            format!(
                "enum OPCODE : u8 {{\n    PLAIN = 1 => A\n    OTHER = 3\n}}\n\
                 record R : 2 {{\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}}\n\
                 @archs({archs})\narm A : R {{\n    1 x u8\n}}\nbind OTHER => A\n"
            )
        };
        assert_eq!(errors(&spec("nwe.."), &OLD_NEW), ["unknown arch 'nwe'"]);
        // A known arch still leaves the bindings checked against it.
        let e = errors(&spec("new.."), &OLD_NEW);
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(e.iter().all(|m| m.ends_with("exists on old but its arm 'A' does not")), "{e:?}");
    }

    /// A binding of a value `enum OPCODE` does not name, whose arm lacks a generation,
    /// is told to narrow the binding's `@archs` (the value has none of its own); a
    /// named opcode's, the opcode's or the binding's.
    #[test]
    fn the_fix_for_an_arm_missing_a_generation_names_what_has_archs() {
        use crate::lower::test_support::{load, OLD_NEW};
        let notes = |bind: &str| {
            let text = format!(
                "enum OPCODE : u8 {{\n    NAMED = 1\n}}\n\
                 record R : 2 {{\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}}\n\
                 @archs(new)\narm A : R {{\n    1 x u8\n}}\n{bind}\n"
            );
            let f = load(&text, &OLD_NEW).expect_err("the arm lacks old");
            f.diagnostics.0.iter().flat_map(|d| d.notes.clone()).collect::<Vec<_>>()
        };
        assert_eq!(
            notes("bind 0x05 => A"),
            ["widen the arm's @archs, or narrow the binding's (an @archs before `bind`)"]
        );
        assert_eq!(
            notes("bind NAMED => A"),
            ["widen the arm's @archs, or narrow the opcode's or the binding's"]
        );
    }

    /// A binding whose `@archs` share no generation with its opcode's is an error at its
    /// `@archs`; one that shares some is not.
    #[test]
    fn a_binding_on_no_generation_of_its_opcode_is_an_error() {
        use crate::lower::test_support::OLD_NEW;
        let spec = |archs: &str| {
            format!(
                "enum OPCODE : u8 {{\n    PLAIN = 1 @archs(new)\n}}\n\
                 record R : 2 {{\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}}\n\
                 arm A : R {{\n    1 x u8\n}}\nbind PLAIN => A @archs({archs})\n"
            )
        };
        assert_eq!(
            errors(&spec("old"), &OLD_NEW),
            ["this binding selects nothing: its @archs (old) share no generation with those \
              of opcode 0x01 (new)"]
        );
        crate::lower::test_support::model(&spec("old.."), &OLD_NEW);
    }

    /// Bindings come from the table and from `bind`; sorted by (opcode, sub-opcode); a
    /// sub-opcode binding's mnemonic is the sub-opcode's name, a binding of a value the
    /// table does not name takes the arm's.
    #[test]
    fn bindings_sorted_with_their_mnemonics() {
        let m = model(
            &format!(
                "{SPEC}bind PREFIX, sub @1 = STOP => S\nbind 2, sub @1 = GO => S\nbind 9 => A\n"
            ),
            &[],
        );
        let got: Vec<(u64, Option<u64>, &str, &str)> = m
            .bindings
            .iter()
            .map(|b| {
                (
                    b.opcode,
                    b.sub.as_ref().map(|s| s.value),
                    b.mnemonic.as_str(),
                    m[b.arm].name.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (1, None, "plain", "A"),
                (2, Some(1), "go", "S"),
                (2, Some(2), "stop", "S"),
                (9, None, "a", "A")
            ]
        );
    }

    /// An opcode is bound once, or every binding of it gives a sub-opcode at one offset.
    #[test]
    fn dispatch_conflicts() {
        let e = errors(&format!("{SPEC}bind PLAIN, sub @1 = 1 => S\n"), &[]);
        assert_eq!(e, ["opcode 0x01 is bound twice (A and S)"]);
        let e = errors(
            &format!("{SPEC}bind PREFIX, sub @1 = 1 => S\nbind PREFIX, sub @1 = GO => S\n"),
            &[],
        );
        assert_eq!(e, ["opcode 0x02 with sub-opcode 1 is bound twice"]);
    }

    /// A variant refused where it is declared (its value taken, too wide) is that one
    /// error: a binding that names it is not a second ("not a variant").
    #[test]
    fn a_refused_variant_is_one_error() {
        for bad in ["STOP = 1", "STOP = 256"] {
            let spec = SPEC.replace("STOP = 2", bad);
            let e = errors(&format!("{spec}bind PREFIX, sub @1 = STOP => S\n"), &[]);
            assert_eq!(e.len(), 1, "{bad}: {e:?}");
            assert!(!e[0].contains("not a variant"), "{bad}: {e:?}");
        }
    }

    /// A table value that repeats an earlier one's name is that one error: its binding
    /// and attributes are not taken as the first's (its arm was said to bind the first's
    /// value twice, at the second's line).
    #[test]
    fn a_duplicate_opcode_name_is_one_error() {
        let spec = SPEC.replace("PREFIX = 2\n", "PREFIX = 2\n    PLAIN = 3 => S\n");
        assert_eq!(errors(&spec, &[]), ["duplicate variant 'PLAIN'"]);
    }
}
