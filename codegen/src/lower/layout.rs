//! Structs, groups, records and arms: type resolution, group flattening, and coverage
//! (every byte exactly once, nothing outside, arms after the shared preamble).

use std::collections::{BTreeMap, BTreeSet};

use super::cycles;
use super::meta::{inherit, meta};
use super::{suggest, u32_of, u8_of, Cx, Decl};
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::source::Span;
use crate::syntax::ast::{self, ItemKind, Member, TypeRef};

/// Already-lowered types that layouts refer to.
pub(super) struct Tables<'a> {
    pub structs: &'a [Struct],
    pub bits: &'a [Bits],
    pub enums: &'a [Enum],
    pub unions: &'a [Union],
}

/// A field before coverage checks, with the spans errors need.
#[derive(Clone)]
struct Placed {
    field: Field,
    /// The member line (the `use` line for group members).
    span: Span,
    /// The group's own field definition, for group members.
    origin: Option<Span>,
}

pub(super) fn structs(
    cx: &mut Cx<'_>,
    items: &[&ast::Item],
    bits: &[Bits],
    enums: &[Enum],
    unions: &[Union],
) -> Vec<Struct> {
    // Sizes are declared, so each struct lowers against the declared sizes of the others.
    // Groups placed inside structs need the groups' fields: a first pass (its errors
    // dropped) provides them, the second pass reports.
    let mut prev: Vec<Struct> = items
        .iter()
        .map(|i| {
            let ItemKind::Struct { size, is_group, .. } = &i.kind else {
                unreachable!("not a struct")
            };
            Struct {
                name: i.name.name.clone(),
                rust: String::new(),
                size: u32::try_from(size.value).unwrap_or(0),
                fields: Vec::new(),
                is_group: *is_group,
                meta: Meta::at(i.name.span),
            }
        })
        .collect();
    cx.cyclic_groups = group_cycles(cx, items);
    // Each pass flattens one more level of groups inside groups; stop at a fixed point.
    let passes = items.len() + 1;
    for pass in 0..=passes {
        let last = pass == passes;
        let saved = (!last).then(|| std::mem::take(&mut cx.errors));
        let tables = Tables { structs: &prev, bits, enums, unions };
        let out: Vec<Struct> = items.iter().map(|item| lower_struct(cx, item, &tables)).collect();
        let stable = out == prev;
        if let Some(saved) = saved {
            cx.errors = saved;
        }
        prev = out;
        if stable && !last {
            // One more pass with errors reported, over the stable shapes.
            let tables = Tables { structs: &prev, bits, enums, unions };
            prev = items.iter().map(|item| lower_struct(cx, item, &tables)).collect();
            break;
        }
    }
    prev
}

/// Groups that use themselves, directly or through other groups: one error per cycle,
/// at the `use` that closes it; the names of every group in one.
fn group_cycles(cx: &mut Cx<'_>, items: &[&ast::Item]) -> BTreeSet<String> {
    let index: BTreeMap<&str, usize> =
        items.iter().enumerate().map(|(i, it)| (it.name.name.as_str(), i)).collect();
    let uses = |i: usize| -> Vec<(usize, Span)> {
        let ItemKind::Struct { members, .. } = &items[i].kind else { return Vec::new() };
        members
            .iter()
            .filter_map(|m| match m {
                Member::Use { group, .. } => {
                    index.get(group.name.as_str()).map(|&j| (j, group.span))
                }
                Member::Field { .. } => None,
            })
            .collect()
    };
    let mut cyclic = BTreeSet::new();
    for cycle in cycles::cycles(items.len(), |i| uses(i).into_iter().map(|(j, _)| j).collect()) {
        let names: Vec<&str> = cycle.iter().map(|&i| items[i].name.name.as_str()).collect();
        let next = cycle.get(1).copied().unwrap_or(cycle[0]);
        let span = uses(cycle[0])
            .into_iter()
            .find(|&(j, _)| j == next)
            .map_or(items[cycle[0]].name.span, |(_, s)| s);
        cx.error(Diagnostic::error(
            span,
            format!("'{}' contains itself: {} -> {}", names[0], names.join(" -> "), names[0]),
        ));
        cyclic.extend(names.iter().map(|n| (*n).to_owned()));
    }
    cyclic
}

fn lower_struct(cx: &mut Cx<'_>, item: &ast::Item, tables: &Tables<'_>) -> Struct {
    let ItemKind::Struct { size, members, is_group } = &item.kind else {
        unreachable!("not a struct")
    };
    let size_v = u32_of(cx, *size, "struct size").unwrap_or(0);
    if size_v == 0 {
        cx.error(Diagnostic::error(
            size.span,
            format!("'{}' must have a size above zero", item.name.name),
        ));
    }
    let m = meta(cx, &item.ann, item.name.span);
    let (placed, complete) = members_of(cx, members, tables, &item.name.name, &m);
    let kind = if *is_group { "group" } else { "struct" };
    let mut suspect = false;
    if !*is_group {
        for p in &placed {
            if p.field.meta.archs.is_some() {
                // Its members of several generations would overlap: that follows.
                suspect = true;
                cx.error(
                    Diagnostic::error(p.span, "only arm members may differ by generation")
                        .note("write the per-generation members in the arm, or make this a group the arm places"),
                );
            }
        }
    }
    check_names(&mut cx.errors, &placed, &item.name.name);
    if !suspect {
        let what = format!("{kind} '{}'", item.name.name);
        let span = item.name.span;
        check_coverage(
            &mut cx.errors,
            &mut cx.waivers,
            &placed,
            0..size_v,
            &what,
            span,
            None,
            complete,
        );
    }
    Struct {
        name: item.name.name.clone(),
        rust: String::new(),
        size: size_v,
        fields: placed.into_iter().map(|p| p.field).collect(),
        is_group: *is_group,
        meta: m,
    }
}

/// Unions with their declared sizes and no views yet: what struct fields need.
pub(super) fn union_shells(cx: &mut Cx<'_>, items: &[&ast::Item]) -> Vec<Union> {
    items
        .iter()
        .map(|i| {
            let ItemKind::Union { size, .. } = &i.kind else { unreachable!("not a union") };
            let size = u32_of(cx, *size, "union size").unwrap_or(0);
            if size == 0 {
                cx.error(Diagnostic::error(
                    i.name.span,
                    format!("union '{}' must have a size above zero", i.name.name),
                ));
            }
            Union {
                name: i.name.name.clone(),
                rust: String::new(),
                size,
                views: Vec::new(),
                meta: Meta::at(i.name.span),
            }
        })
        .collect()
}

/// Unions: each view a type of exactly the union's size, tests inside it, one
/// `otherwise` at most.
pub(super) fn unions(cx: &mut Cx<'_>, items: &[&ast::Item], t: &Tables<'_>) -> Vec<Union> {
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let ItemKind::Union { views, .. } = &item.kind else { unreachable!("not a union") };
        let size = t.unions[i].size;
        let m = meta(cx, &item.ann, item.name.span);
        let mut seen: std::collections::BTreeMap<&str, Span> = std::collections::BTreeMap::new();
        let mut lowered = Vec::new();
        let mut otherwise: Option<Span> = None;
        for v in views {
            let vm = inherit(cx, &v.ann, v.name.span, Some(&m));
            if let Some(first) = seen.insert(&v.name.name, v.name.span) {
                cx.error(
                    Diagnostic::error(v.name.span, format!("duplicate view '{}'", v.name.name))
                        .with(first, "first declared here"),
                );
                continue;
            }
            let Some(ty) = field_type(cx, &v.ty, t) else { continue };
            let vsize = size_of(t, &ty);
            if vsize != size {
                cx.error(
                    Diagnostic::error(
                        v.ty.span(),
                        format!(
                            "view '{}' is {vsize} byte{}, but union '{}' is {size}",
                            v.name.name,
                            if vsize == 1 { "" } else { "s" },
                            item.name.name
                        ),
                    )
                    .note("every view reads all of the union's bytes; pad a smaller type into a struct with reserved bytes"),
                );
            }
            let select = if let Some(w) = &v.when {
                let (Some(offset), Some(mask), Some(value)) = (
                    u32_of(cx, w.offset, "byte"),
                    u8_of(cx, w.mask, "mask"),
                    u8_of(cx, w.value, "value"),
                ) else {
                    continue;
                };
                if offset >= size {
                    cx.error(Diagnostic::error(
                        w.offset.span,
                        format!(
                            "byte {offset} lies outside union '{}' (0..{size})",
                            item.name.name
                        ),
                    ));
                }
                if value & !mask != 0 {
                    cx.error(Diagnostic::error(
                        w.value.span,
                        format!("value {value:#x} has bits outside the mask {mask:#x}, so the test never holds"),
                    ));
                }
                Select::When(ByteTest { offset, mask, value })
            } else if v.otherwise {
                if let Some(first) = otherwise.replace(v.span) {
                    cx.error(
                        Diagnostic::error(v.span, "a union has one 'otherwise' view")
                            .with(first, "the first one"),
                    );
                }
                Select::Otherwise
            } else {
                Select::Never
            };
            lowered.push(View {
                name: v.name.name.clone(),
                rust: String::new(),
                ty,
                select,
                meta: vm,
            });
        }
        if lowered.is_empty() {
            cx.error(Diagnostic::error(
                item.name.span,
                format!("union '{}' has no view", item.name.name),
            ));
        }
        out.push(Union {
            name: item.name.name.clone(),
            rust: String::new(),
            size,
            views: lowered,
            meta: m,
        });
    }
    out
}

/// Structs and unions that contain themselves (through fields, arrays and views).
pub(super) fn check_containment(
    cx: &mut Cx<'_>,
    t: &Tables<'_>,
    struct_items: &[&ast::Item],
    union_items: &[&ast::Item],
) {
    let ns = t.structs.len();
    let node = |ty: &FieldType| match ty.leaf() {
        FieldType::Struct(s) => Some(s.0 as usize),
        FieldType::Union(u) => Some(ns + u.0 as usize),
        _ => None,
    };
    let succ = |i: usize| -> Vec<usize> {
        if i < ns {
            t.structs[i].fields.iter().filter_map(|f| node(&f.ty)).collect()
        } else {
            t.unions[i - ns].views.iter().filter_map(|v| node(&v.ty)).collect()
        }
    };
    let name = |i: usize| {
        if i < ns {
            (t.structs[i].name.as_str(), struct_items[i].name.span)
        } else {
            (t.unions[i - ns].name.as_str(), union_items[i - ns].name.span)
        }
    };
    for cycle in cycles::cycles(ns + t.unions.len(), succ) {
        let names: Vec<&str> = cycle.iter().map(|&i| name(i).0).collect();
        let (first, span) = name(cycle[0]);
        cx.error(Diagnostic::error(
            span,
            format!("'{first}' contains itself: {} -> {}", names.join(" -> "), names[0]),
        ));
    }
}

/// The one record of the spec.
pub(super) fn record(
    cx: &mut Cx<'_>,
    items: &[&ast::Item],
    t: &Tables<'_>,
    vocabs: &[Vocab],
) -> Option<Record> {
    // The first in the files is the record; any other is reported.
    let mut items = items.to_vec();
    items.sort_by_key(|i| i.span);
    let Some((item, rest)) = items.split_first() else {
        // Point at the start of the first `.isa` file (of the first file, if none is).
        let file = cx
            .sources
            .iter()
            .find(|(_, f)| f.path.ends_with(".isa"))
            .or_else(|| cx.sources.iter().next())
            .map_or(crate::source::FileId(0), |(id, _)| id);
        cx.error(
            Diagnostic::error(crate::source::Span::new(file, 0, 0), "the spec declares no record")
                .note("declare the instruction record: 'record TPB_INST : 64 { discriminant 0 OPCODE ... }'"),
        );
        return None;
    };
    for other in rest {
        cx.error(
            Diagnostic::error(other.name.span, "a spec has exactly one record")
                .with(item.name.span, "the record is declared here"),
        );
    }
    let ItemKind::Record { size, discriminants, engines, members } = &item.kind else {
        unreachable!()
    };
    let size_v = u32_of(cx, *size, "record size").unwrap_or(0);
    let m = meta(cx, &item.ann, item.name.span);
    let (placed, complete) = members_of(cx, members, t, &item.name.name, &m);
    check_names(&mut cx.errors, &placed, &item.name.name);
    let preamble_size = placed.iter().map(|p| p.field.range().end).max().unwrap_or(0);
    let what = format!("the preamble of record '{}'", item.name.name);
    let (span, extent) = (item.name.span, 0..preamble_size);
    check_coverage(&mut cx.errors, &mut cx.waivers, &placed, extent, &what, span, None, complete);
    if preamble_size > size_v {
        cx.error(Diagnostic::error(
            item.name.span,
            format!(
                "the preamble of '{}' (0..{preamble_size}) is larger than the record ({size_v})",
                item.name.name
            ),
        ));
    }
    let engines = match engines.as_slice() {
        [] => None,
        [e, more @ ..] => {
            for x in more {
                cx.error(Diagnostic::error(x.span, "a record names one engines vocabulary"));
            }
            match vocabs.iter().position(|v| v.name == e.name) {
                Some(i) => Some(VocabId(i as u32)),
                None => {
                    let mut d =
                        Diagnostic::error(e.span, format!("unknown vocabulary '{}'", e.name))
                            .label("expected an enum without a width");
                    if let Some(s) = suggest(&e.name, vocabs.iter().map(|v| v.name.as_str())) {
                        d = d.note(s);
                    }
                    cx.error(d);
                    None
                }
            }
        }
    };
    let discriminant = match discriminants.as_slice() {
        [] => {
            cx.error(
                Diagnostic::error(
                    item.name.span,
                    format!("record '{}' has no discriminant", item.name.name),
                )
                .note("declare the byte that selects the arm: 'discriminant 0 OPCODE'"),
            );
            None
        }
        [(off, ty, _), rest @ ..] => {
            for (_, _, s) in rest {
                cx.error(Diagnostic::error(*s, "a record has one discriminant"));
            }
            discriminant(cx, *off, ty, size_v, &placed, t)
        }
    }?;
    Some(Record {
        name: item.name.name.clone(),
        size: size_v,
        discriminant,
        engines,
        preamble: placed.into_iter().map(|p| p.field).collect(),
        preamble_size,
        meta: m,
    })
}

fn discriminant(
    cx: &mut Cx<'_>,
    off: ast::Int,
    ty: &ast::Ident,
    size: u32,
    preamble: &[Placed],
    t: &Tables<'_>,
) -> Option<Discriminant> {
    let Some(eid) = t.enums.iter().position(|e| e.name == ty.name) else {
        cx.error(
            Diagnostic::error(ty.span, format!("unknown enum '{}'", ty.name))
                .label("the discriminant must be an enum"),
        );
        return None;
    };
    let e = &t.enums[eid];
    if e.width.size() != 1 {
        cx.error(
            Diagnostic::error(
                ty.span,
                format!("the discriminant '{}' is {} bytes wide", ty.name, e.width.size()),
            )
            .label("the discriminant must be a one-byte enum")
            .note(
                "the runtime reads the opcode as one byte: the validator's plans, the text \
                 form and the stream walk index their tables by it",
            ),
        );
        // Lowering goes on with it, so that what follows is checked too (an error
        // here already keeps the generator from writing anything).
    }
    let offset = u32_of(cx, off, "discriminant offset")?;
    if offset.saturating_add(e.width.size()) > size {
        cx.error(Diagnostic::error(
            off.span,
            format!("discriminant at +{offset} lies outside the record (0..{size})"),
        ));
        return None;
    }
    let covered = preamble.iter().any(|p| p.field.offset <= offset && offset < p.field.range().end);
    if !covered {
        cx.error(Diagnostic::error(
            off.span,
            format!(
                "discriminant at +{offset} is not inside the preamble, so arms could overwrite it"
            ),
        ));
    }
    Some(Discriminant { offset, ty: EnumId(eid as u32) })
}

pub(super) fn arms(cx: &mut Cx<'_>, items: &[&ast::Item], r: &Record, t: &Tables<'_>) -> Vec<Arm> {
    let mut out = Vec::new();
    let narchs = cx.arch_list.len() as u32;
    for item in items {
        let ItemKind::Arm { record, preamble, members } = &item.kind else { unreachable!() };
        if record.name != r.name {
            let mut d = Diagnostic::error(record.span, format!("unknown record '{}'", record.name));
            if let Some(s) = suggest(&record.name, [r.name.as_str()]) {
                d = d.note(s);
            }
            cx.error(d);
            continue;
        }
        let m = meta(cx, &item.ann, item.name.span);
        // The inherited part of the preamble. A member named wrongly leaves its bytes
        // uncovered and maybe the discriminant too: that follows, so it is not checked.
        let mut preamble_ok = true;
        let inherited: Vec<Placed> = match preamble {
            None => r.preamble.iter().map(inherited_field).collect(),
            Some((names, _)) => {
                let mut v = Vec::new();
                for n in names {
                    match r.preamble.iter().find(|f| f.name == n.name) {
                        Some(f) => v.push(inherited_field(f)),
                        None => {
                            let mut d = Diagnostic::error(
                                n.span,
                                format!(
                                    "'{}' is not a member of the preamble of '{}'",
                                    n.name, r.name
                                ),
                            );
                            if let Some(s) =
                                suggest(&n.name, r.preamble.iter().map(|f| f.name.as_str()))
                            {
                                d = d.note(s);
                            }
                            cx.error(d.with(r.meta.span, "the preamble is declared here"));
                            preamble_ok = false;
                        }
                    }
                }
                v
            }
        };
        let full_preamble = inherited.len() == r.preamble.len();
        let (own, complete) = members_of(cx, members, t, &item.name.name, &m);
        let complete = complete && preamble_ok;
        let mut ok_own = Vec::new();
        for p in own {
            let clash = inherited.iter().find(|i| {
                let (a, b) = (i.field.range(), p.field.range());
                a.start < b.end && b.start < a.end
            });
            if let Some(i) = clash {
                let mut d = Diagnostic::error(
                    p.span,
                    format!(
                        "field '{}' ({}..{}) is inside the inherited preamble member '{}' ({}..{}) of record '{}'",
                        p.field.name,
                        p.field.offset,
                        p.field.range().end,
                        i.field.name,
                        i.field.offset,
                        i.field.range().end,
                        r.name
                    ),
                )
                .with(r.meta.span, "the preamble is declared here");
                d = if full_preamble {
                    // Suggest inheriting every member the field does not overlap.
                    let keep: Vec<&str> = r
                        .preamble
                        .iter()
                        .filter(|f| {
                            let (a, b) = (f.range(), p.field.range());
                            !(a.start < b.end && b.start < a.end)
                        })
                        .map(|f| f.name.as_str())
                        .collect();
                    d.note(format!("an arm's own fields start at +{}; an arm that does not begin with the whole preamble says which members it inherits: '{}({})'", r.preamble_size, r.name, keep.join(", ")))
                } else {
                    d.note("drop the member from the inherited list, or move the field")
                };
                if let Some(o) = p.origin {
                    d = d.with(o, "defined in the group here");
                }
                cx.error(d);
            } else {
                ok_own.push(p);
            }
        }
        // A member that did not resolve may be the one holding the discriminant: its
        // error is the one to report. A discriminant byte no field covers is reported as
        // such, not also as a gap to fill with reserved bytes.
        let inherits_it =
            inherited.iter().any(|i| i.field.range().contains(&r.discriminant.offset));
        let no_discriminant =
            (complete && !inherits_it && !check_own_discriminant(cx, &ok_own, r, t, item))
                .then_some(r.discriminant.offset);
        // One layout per distinct set of members: group the generations by which
        // members exist on them.
        // Only the generations the arm exists on need a layout.
        let on: Vec<Option<ArchId>> =
            (0..narchs).map(ArchId).filter(|&a| m.available_on(a)).map(Some).collect();
        let arch_ids: Vec<Option<ArchId>> = if on.is_empty() { vec![None] } else { on };
        let mut classes: Vec<(Vec<usize>, Vec<ArchId>)> = Vec::new();
        for a in arch_ids {
            let set: Vec<usize> = ok_own
                .iter()
                .enumerate()
                .filter(|(_, p)| a.is_none_or(|a| p.field.meta.available_on(a)))
                .map(|(i, _)| i)
                .collect();
            match classes.iter_mut().find(|(s, _)| *s == set) {
                Some((_, archs)) => archs.extend(a),
                None => classes.push((set, a.into_iter().collect())),
            }
        }
        let many = classes.len() > 1;
        let classes_archs: usize = classes.iter().map(|(_, a)| a.len()).sum();
        let mut layouts = Vec::new();
        // Each problem once, with the generations it occurs on.
        let mut found: Vec<(Diagnostic, Vec<ArchId>)> = Vec::new();
        for (set, archs) in classes {
            let mut placed: Vec<Placed> = inherited.clone();
            placed.extend(set.iter().map(|&i| ok_own[i].clone()));
            placed.sort_by_key(|p| (p.field.offset, p.field.size));
            let mut problems = Vec::new();
            check_names(&mut problems, &placed, &item.name.name);
            let what = format!("arm '{}'", item.name.name);
            check_coverage(
                &mut problems,
                &mut cx.waivers,
                &placed,
                0..r.size,
                &what,
                item.name.span,
                no_discriminant,
                complete,
            );
            // The same problem on several generations (one field against each
            // generation's reading of the same bytes) is one diagnostic.
            for d in problems {
                match found.iter_mut().find(|(x, _)| x.span == d.span && x.message == d.message) {
                    Some((x, on)) => {
                        on.extend(&archs);
                        for l in d.secondary {
                            if !x.secondary.contains(&l) {
                                x.secondary.push(l);
                            }
                        }
                    }
                    None => found.push((d, archs.clone())),
                }
            }
            layouts.push(Layout {
                archs,
                rust: String::new(),
                fields: placed.into_iter().map(|p| p.field).collect(),
            });
        }
        let exists_on = classes_archs;
        for (mut d, mut on) in found {
            // A problem of some generations only says which.
            if many && on.len() < exists_on {
                on.sort();
                let names: Vec<&str> =
                    on.iter().map(|a| cx.arch_list[a.0 as usize].as_str()).collect();
                d.message = format!("{} on {}", d.message, names.join(", "));
                // A gap of some generations is filled on those: the same member on every
                // generation would overlap the members that cover the bytes elsewhere.
                let list = names.join(", ");
                for n in &mut d.notes {
                    if let Some(decl) =
                        n.strip_prefix("declare them: '").and_then(|r| r.strip_suffix('\''))
                    {
                        *n = format!(
                            "declare them on those generations: '{decl}  @archs({list})', or \
                             widen the @archs of a member that covers them on another"
                        );
                    }
                }
            }
            cx.error(d);
        }
        out.push(Arm {
            name: item.name.name.clone(),
            rust: String::new(),
            rust_ref: String::new(),
            mnemonic: item.name.name.to_ascii_lowercase(),
            layouts,
            full_preamble,
            meta: m,
        });
    }
    out
}

fn inherited_field(f: &Field) -> Placed {
    Placed { field: Field { inherited: true, ..f.clone() }, span: f.meta.span, origin: None }
}

/// An arm that does not inherit the discriminant must hold it itself: a field at that
/// byte whose type (through structs) is the discriminant's enum. Returns whether a field
/// covers the byte at all.
fn check_own_discriminant(
    cx: &mut Cx<'_>,
    own: &[Placed],
    r: &Record,
    t: &Tables<'_>,
    item: &ast::Item,
) -> bool {
    let off = r.discriminant.offset;
    let want = r.discriminant.ty;
    let holder = own.iter().find(|p| p.field.range().contains(&off));
    let ok = holder.is_some_and(|p| {
        leaf_at(t, &p.field.ty, off - p.field.offset) == Some(&FieldType::Enum(want))
    });
    if !ok {
        let e = &t.enums[want.0 as usize].name;
        let d = match holder {
            Some(p) => Diagnostic::error(
                p.span,
                format!("field '{}' holds the discriminant byte {off}, but is not typed '{e}'", p.field.name),
            ),
            None => Diagnostic::error(
                item.name.span,
                format!("arm '{}' does not inherit the discriminant at +{off}, and declares no field there", item.name.name),
            ),
        };
        cx.error(
            d.note(format!("declare '{off} opcode {e}' (or a struct whose byte {off} is one)")),
        );
    }
    holder.is_some()
}

/// The scalar type at byte `off` of `ty`, looking through structs and arrays; `None`
/// through a struct that contains itself (its error is the cycle finder's, which has
/// not run when a record's discriminant is checked).
fn leaf_at<'t>(t: &'t Tables<'_>, ty: &'t FieldType, off: u32) -> Option<&'t FieldType> {
    // A path through no cycle meets each struct once at most.
    leaf_within(t, ty, off, t.structs.len())
}

/// [`leaf_at`], passing through at most `structs` more structs.
fn leaf_within<'t>(
    t: &'t Tables<'_>,
    ty: &'t FieldType,
    off: u32,
    structs: usize,
) -> Option<&'t FieldType> {
    match ty {
        FieldType::Struct(s) => {
            let left = structs.checked_sub(1)?;
            let s = t.structs.get(s.0 as usize)?;
            let f = s.fields.iter().find(|f| f.range().contains(&off))?;
            leaf_within(t, &f.ty, off - f.offset, left)
        }
        FieldType::Array(e, _) => {
            let size = size_of(t, e);
            if size == 0 {
                return None;
            }
            leaf_within(t, e, off % size, structs)
        }
        other => (off == 0).then_some(other),
    }
}

/// Two fields of one layout with one name.
fn check_names(out: &mut Vec<Diagnostic>, placed: &[Placed], owner: &str) {
    let mut seen: std::collections::BTreeMap<&str, &Placed> = std::collections::BTreeMap::new();
    for p in placed {
        if let Some(first) = seen.get(p.field.name.as_str()) {
            let mut d = Diagnostic::error(
                p.span,
                format!("duplicate field '{}' in '{owner}'", p.field.name),
            )
            .with(first.span, "first declared here");
            if let Some(o) = p.origin {
                d = d.with(o, "defined in the group here");
            }
            out.push(d);
        } else {
            seen.insert(&p.field.name, p);
        }
    }
}

/// Lower members: resolve types, flatten groups, compute offsets and sizes; sorted by
/// offset. Members inherit the owner's provenance. The second value is false when a
/// member failed to resolve: gaps are then not reported (its bytes would read as one),
/// so one mistake gives one diagnostic, but overlaps of the others still are.
fn members_of(
    cx: &mut Cx<'_>,
    members: &[Member],
    t: &Tables<'_>,
    _owner: &str,
    owner_meta: &Meta,
) -> (Vec<Placed>, bool) {
    let mut out = Vec::new();
    let mut complete = true;
    for m in members {
        match m {
            Member::Field { offset, name, ty, ann, span } => {
                let Some(off) = u32_of(cx, *offset, "offset") else { continue };
                let before = cx.errors.len();
                let field_meta = inherit(cx, ann, name.span, Some(owner_meta));
                // An `@archs` in error leaves the field's generations unknown: which
                // bytes it covers where is that error's, not a coverage one.
                let inside = |d: &Diagnostic, a: Span| {
                    d.span.file == a.file && a.start <= d.span.start && d.span.end <= a.end
                };
                let archs_failed = ann
                    .attrs
                    .iter()
                    .filter(|a| a.name.name == "archs")
                    .any(|a| cx.errors[before..].iter().any(|d| inside(d, a.span)));
                complete &= !archs_failed;
                let Some(fty) = field_type(cx, ty, t) else {
                    complete = false;
                    continue;
                };
                let size = size_of(t, &fty);
                if size == 0 {
                    cx.error(Diagnostic::error(
                        ty.span(),
                        format!("field '{}' has size zero", name.name),
                    ));
                    continue;
                }
                out.push(Placed {
                    field: Field {
                        name: name.name.clone(),
                        rust: String::new(),
                        offset: off,
                        size,
                        ty: fty,
                        meta: field_meta,
                        group: None,
                        inherited: false,
                    },
                    span: *span,
                    origin: None,
                });
            }
            Member::Use { offset, group, prefix, ann, span } => {
                if cx.cyclic_groups.contains(&group.name) {
                    // Its cycle is reported once; flattened, it would only grow.
                    complete = false;
                    continue;
                }
                let Some(off) = u32_of(cx, *offset, "offset") else { continue };
                let use_meta = meta(cx, ann, group.span);
                let gid = match cx.decls.get(&group.name) {
                    Some((Decl::Struct(i), _)) if t.structs.get(*i).is_some_and(|s| s.is_group) => {
                        *i
                    }
                    Some((Decl::Struct(_), def)) => {
                        let def = *def;
                        cx.error(
                            Diagnostic::error(
                                group.span,
                                format!("'{}' is a struct, not a group", group.name),
                            )
                            .with(def, "declared as a struct here")
                            .note(format!(
                                "place a struct as a field: '{} NAME {}'",
                                offset.value, group.name
                            )),
                        );
                        complete = false;
                        continue;
                    }
                    _ => {
                        unknown_name(cx, &group.name, group.span, "group", t);
                        complete = false;
                        continue;
                    }
                };
                let g = &t.structs[gid];
                for (k, gf) in g.fields.iter().enumerate() {
                    let mut fm = gf.meta.clone();
                    fm.confidence = fm.confidence.max(use_meta.confidence);
                    fm.sources.extend(use_meta.sources.iter().cloned());
                    if fm.archs.is_none() {
                        fm.archs.clone_from(&use_meta.archs);
                        fm.archs_span = use_meta.archs_span;
                    }
                    if fm.waiver.is_none() {
                        fm.waiver.clone_from(&use_meta.waiver);
                        fm.waiver_span = use_meta.waiver_span;
                    }
                    let name = match prefix {
                        Some(p) => format!("{}_{}", p.name, gf.name),
                        None => gf.name.clone(),
                    };
                    let origin = gf.meta.span;
                    fm.span = group.span;
                    out.push(Placed {
                        field: Field {
                            name,
                            rust: String::new(),
                            offset: off.saturating_add(gf.offset),
                            size: gf.size,
                            ty: gf.ty.clone(),
                            meta: fm,
                            group: Some(GroupUse {
                                group: StructId(gid as u32),
                                base: off,
                                prefix: prefix.as_ref().map(|p| p.name.clone()),
                                meta: use_meta.clone(),
                                member: k as u32,
                            }),
                            inherited: false,
                        },
                        span: *span,
                        origin: Some(origin),
                    });
                }
            }
        }
    }
    out.sort_by_key(|p| (p.field.offset, p.field.size));
    (out, complete)
}

fn field_type(cx: &mut Cx<'_>, ty: &TypeRef, t: &Tables<'_>) -> Option<FieldType> {
    match ty {
        TypeRef::Reserved(n, _) => {
            let n = u32_of(cx, *n, "reserved size")?;
            if n == 0 {
                cx.error(Diagnostic::error(ty.span(), "reserved[0] covers no bytes"));
                return None;
            }
            Some(FieldType::Reserved(n))
        }
        TypeRef::Unknown(n, _) => {
            let n = u32_of(cx, *n, "unknown size")?;
            if n == 0 {
                cx.error(Diagnostic::error(ty.span(), "unknown[0] covers no bytes"));
                return None;
            }
            Some(FieldType::Unknown(n))
        }
        TypeRef::Array(elem, n, _) => {
            let e = field_type(cx, elem, t)?;
            let n = u32_of(cx, *n, "array length")?;
            if n == 0 {
                cx.error(Diagnostic::error(ty.span(), "an array needs at least one element"));
                return None;
            }
            if e.is_opaque() {
                cx.error(Diagnostic::error(
                    ty.span(),
                    "write reserved or unknown bytes as reserved[N] or unknown[N], not as an array",
                ));
                return None;
            }
            Some(FieldType::Array(Box::new(e), n))
        }
        TypeRef::Named(id) => {
            if let Some(p) = Prim::parse(&id.name) {
                return Some(FieldType::Prim(p));
            }
            match cx.decls.get(&id.name).copied() {
                Some((Decl::Struct(i), def)) => {
                    if t.structs.get(i).is_some_and(|s| s.is_group) {
                        cx.error(
                            Diagnostic::error(
                                id.span,
                                format!("group '{}' cannot be a field type", id.name),
                            )
                            .with(def, "declared as a group here")
                            .note(format!("place a group's fields with 'OFFSET use {}'", id.name)),
                        );
                        return None;
                    }
                    Some(FieldType::Struct(StructId(i as u32)))
                }
                Some((Decl::Bits(i), _)) => Some(FieldType::Bits(BitsId(i as u32))),
                Some((Decl::Enum(i), _)) => Some(FieldType::Enum(EnumId(i as u32))),
                Some((Decl::Union(i), _)) => Some(FieldType::Union(UnionId(i as u32))),
                Some((Decl::Vocab(_), def)) => {
                    cx.error(
                        Diagnostic::error(
                            id.span,
                            format!(
                                "'{}' is a vocabulary (an enum without a width), not a field type",
                                id.name
                            ),
                        )
                        .with(def, "declared here")
                        .note("give the enum a width and values to store it in a record"),
                    );
                    None
                }
                Some((Decl::Record(_) | Decl::Arm(_), def)) => {
                    cx.error(
                        Diagnostic::error(
                            id.span,
                            format!("'{}' is a record or arm, not a field type", id.name),
                        )
                        .with(def, "declared here"),
                    );
                    None
                }
                None => {
                    unknown_name(cx, &id.name, id.span, "type", t);
                    None
                }
            }
        }
    }
}

fn unknown_name(cx: &mut Cx<'_>, name: &str, span: Span, what: &str, _t: &Tables<'_>) {
    let mut d = Diagnostic::error(span, format!("unknown {what} '{name}'"));
    let candidates: Vec<String> =
        cx.decls.keys().cloned().chain(Prim::ALL.iter().map(|p| p.as_str().to_string())).collect();
    if let Some(s) = suggest(name, candidates.iter().map(String::as_str)) {
        d = d.note(s);
    }
    cx.error(d);
}

fn size_of(t: &Tables<'_>, ty: &FieldType) -> u32 {
    match ty {
        FieldType::Prim(p) => p.size(),
        FieldType::Array(e, n) => size_of(t, e).saturating_mul(*n),
        FieldType::Struct(s) => t.structs.get(s.0 as usize).map_or(0, |s| s.size),
        FieldType::Bits(b) => t.bits.get(b.0 as usize).map_or(0, |b| b.width.size()),
        FieldType::Enum(e) => t.enums.get(e.0 as usize).map_or(0, |e| e.width.size()),
        FieldType::Union(u) => t.unions.get(u.0 as usize).map_or(0, |u| u.size),
        FieldType::Reserved(n) | FieldType::Unknown(n) => *n,
    }
}

/// Every byte of `extent` covered by exactly one field; nothing outside. Bytes past the
/// end are not part of the layout, so a field out there is reported as outside, never as
/// leaving a gap. A gap that holds byte `reported` is left out (its caller has said why
/// that byte is missing). When a member did not resolve (`complete` false; its error is
/// given) no gap is reported, as its bytes would read as one, but the overlaps of the
/// members that did are: one mistake does not hide another.
#[allow(clippy::too_many_arguments)]
fn check_coverage(
    out: &mut Vec<Diagnostic>,
    waivers: &mut BTreeMap<Span, bool>,
    placed: &[Placed],
    extent: std::ops::Range<u32>,
    what: &str,
    owner_span: Span,
    reported: Option<u32>,
    complete: bool,
) {
    let (start, end) = (extent.start, extent.end);
    let gap = |out: &mut Vec<Diagnostic>, from: u32, to: u32, span: Span| {
        if complete && from < to && !reported.is_some_and(|b| (from..to).contains(&b)) {
            out.push(
                Diagnostic::error(
                    span,
                    format!("bytes {from}..{to} of {what} are not covered by any field"),
                )
                .note(format!("declare them: '{from} reserved_{from} reserved[{}]'", to - from)),
            );
        }
    };
    // Whether a waiver on either side excuses an overlap (each one there was needed).
    let mut waived = |a: &Placed, b: &Placed| {
        super::mark_waivers(waivers, &a.field.meta, &b.field.meta);
        a.field.meta.waiver.is_some() || b.field.meta.waiver.is_some()
    };
    let mut cursor = start;
    let mut last: Option<&Placed> = None;
    for p in placed {
        let r = p.field.range();
        if r.end > end || r.start < start {
            // The end as written, past u32 if it is (the range saturates); a size that
            // saturated u32 itself (an array of arrays) is only known to be that large.
            let written_end = u64::from(p.field.offset) + u64::from(p.field.size);
            let or_more = if p.field.size == u32::MAX { " or more" } else { "" };
            let mut d = Diagnostic::error(
                p.span,
                format!(
                    "field '{}' ({}..{written_end}{or_more}) lies outside {what} ({start}..{end})",
                    p.field.name, r.start
                ),
            )
            .note(if what.starts_with("struct") || what.starts_with("group") {
                format!("move or shrink the field, or enlarge {what}")
            } else {
                "move or shrink the field (an arm is as long as the record)".to_owned()
            });
            if let Some(o) = p.origin {
                d = d.with(o, "defined in the group here");
            }
            out.push(d);
        }
        match last {
            Some(prev) if r.start < prev.field.range().end => {
                let pr = prev.field.range();
                if !waived(p, prev) {
                    let mut d = Diagnostic::error(
                        p.span,
                        format!(
                            "field '{}' ({}..{}) overlaps '{}' ({}..{})",
                            p.field.name, r.start, r.end, prev.field.name, pr.start, pr.end
                        ),
                    )
                    .with(prev.span, format!("'{}' is here", prev.field.name));
                    // Either field may come through a group: show the group's field of
                    // each, so that the fix (in the group or at its use) is in view.
                    if let Some(o) = p.origin {
                        d = d.with(o, "defined in the group here");
                    }
                    if let Some(o) = prev.origin {
                        let name = &prev.field.name;
                        d = d.with(o, format!("'{name}' is defined in the group here"));
                    }
                    out.push(d.note("every byte belongs to exactly one field; a deliberate overlap needs @waive(\"reason\")"));
                }
            }
            _ => gap(out, cursor, r.start.min(end), p.span),
        }
        cursor = cursor.max(r.end);
        if last.is_none_or(|l| r.end > l.field.range().end) {
            last = Some(p);
        }
    }
    gap(out, cursor, end, owner_span);
}

#[cfg(test)]
mod tests {
    use super::{check_coverage, Placed};
    use crate::diagnostic::Diagnostic;
    use crate::lower::test_support::{model, OLD_NEW_NEXT};
    use crate::model::{Field, FieldType, Meta, Prim};
    use crate::source::{FileId, Span};

    fn placed(name: &str, offset: u32, size: u32) -> Placed {
        let span = Span::new(FileId(0), offset as usize, offset as usize + 1);
        Placed {
            field: Field {
                name: name.to_string(),
                rust: String::new(),
                offset,
                size,
                ty: FieldType::Reserved(size),
                meta: Meta::at(span),
                group: None,
                inherited: false,
            },
            span,
            origin: None,
        }
    }

    fn coverage(fields: &[Placed], end: u32, reported: Option<u32>) -> Vec<String> {
        let mut out: Vec<Diagnostic> = Vec::new();
        let owner = Span::new(FileId(0), 0, 0);
        check_coverage(
            &mut out,
            &mut std::collections::BTreeMap::new(),
            fields,
            0..end,
            "struct 'S'",
            owner,
            reported,
            true,
        );
        out.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn coverage_reports_gaps_overlaps_and_fields_outside() {
        assert!(coverage(&[placed("a", 0, 2), placed("b", 2, 2)], 4, None).is_empty());
        assert_eq!(
            coverage(&[placed("a", 0, 1), placed("b", 2, 2)], 4, None),
            ["bytes 1..2 of struct 'S' are not covered by any field"]
        );
        assert_eq!(
            coverage(&[placed("a", 0, 3), placed("b", 2, 2)], 4, None),
            ["field 'b' (2..4) overlaps 'a' (0..3)"]
        );
        assert_eq!(
            coverage(&[placed("a", 0, 2)], 4, None),
            ["bytes 2..4 of struct 'S' are not covered by any field"]
        );
    }

    /// Past the end there is no layout, so no gap: a field out there is outside, once.
    #[test]
    fn coverage_past_the_end_is_only_outside() {
        assert_eq!(
            coverage(&[placed("a", 0, 4), placed("b", 6, 2)], 4, None),
            ["field 'b' (6..8) lies outside struct 'S' (0..4)"]
        );
        assert_eq!(
            coverage(&[placed("a", 0, 2), placed("b", 6, 2)], 4, None),
            [
                "field 'b' (6..8) lies outside struct 'S' (0..4)",
                "bytes 2..4 of struct 'S' are not covered by any field"
            ]
        );
    }

    /// A size that saturated u32 (an array of arrays past 4 GiB) is said to be at least
    /// that large, not given as the size written.
    #[test]
    fn a_saturated_size_is_said_to_be_a_lower_bound() {
        assert_eq!(
            coverage(&[placed("a", 0, 4), placed("b", 4, u32::MAX)], 4, None),
            ["field 'b' (4..4294967299 or more) lies outside struct 'S' (0..4)"]
        );
    }

    /// A gap holding the byte the caller has reported on is left to that report.
    #[test]
    fn coverage_leaves_a_reported_byte_out() {
        assert!(coverage(&[placed("a", 1, 3)], 4, Some(0)).is_empty());
        assert_eq!(
            coverage(&[placed("a", 1, 1)], 4, Some(0)),
            ["bytes 2..4 of struct 'S' are not covered by any field"]
        );
    }

    /// A field whose `@archs` names no arch is one error, not also a coverage gap.
    #[test]
    fn an_unknown_arch_in_archs_is_not_also_a_gap() {
        let e = crate::lower::test_support::errors(
            "enum OPCODE : u8 {}\nrecord R : 3 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
             arm X : R {\n    1 a u8 @archs(nwe..)\n    2 b u8\n}\n",
            &OLD_NEW_NEXT,
        );
        assert_eq!(e, ["unknown arch 'nwe'"]);
        // Another attribute's error beside a good `@archs` leaves the gap reported.
        let e = crate::lower::test_support::errors(
            "enum OPCODE : u8 {}\nrecord R : 3 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
             arm X : R {\n    1 a u8 @archs(new..) @confidence(hgih)\n}\n",
            &OLD_NEW_NEXT,
        );
        assert!(e.contains(&"unknown confidence 'hgih'".to_string()), "{e:?}");
        assert!(e.iter().any(|m| m.contains("not covered")), "{e:?}");
    }

    /// Generations with the same members share one layout, named after the oldest; an
    /// arm the same everywhere has one, named after the arm.
    #[test]
    fn per_generation_layouts_group_generations() {
        let m = model(
            "enum OPCODE : u8 {}\nrecord R : 3 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
             arm X : R {\n    1 a u16 @archs(..new)\n    1 a i16 @archs(next)\n}\narm Y : R {\n    1 b u16\n}\n",
            &OLD_NEW_NEXT,
        );
        let x = &m[m.arm_named("X").unwrap()];
        let layouts: Vec<(&str, usize, FieldType)> = x
            .layouts
            .iter()
            .map(|l| (l.rust.as_str(), l.archs.len(), l.fields[1].ty.clone()))
            .collect();
        assert_eq!(
            layouts,
            [("XOld", 2, FieldType::Prim(Prim::U16)), ("XNext", 1, FieldType::Prim(Prim::I16))]
        );
        let y = &m[m.arm_named("Y").unwrap()];
        assert_eq!(y.layouts[0].archs.len(), 3);
        assert_eq!(
            (y.layouts.len(), y.layouts[0].rust.as_str(), y.layouts[0].archs.len()),
            (1, "Y", 3)
        );
    }

    /// An arm has layouts on the generations it exists on only: its per-generation
    /// members need not cover the bytes on the others.
    #[test]
    fn per_generation_layouts_only_where_the_arm_exists() {
        let m = model(
            "enum OPCODE : u8 {}\nrecord R : 3 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
             @archs(new..)\narm X : R {\n    1 a u16 @archs(new)\n    1 a i16 @archs(next)\n}\n",
            &OLD_NEW_NEXT,
        );
        let x = &m[m.arm_named("X").unwrap()];
        let on: Vec<Vec<&str>> = x
            .layouts
            .iter()
            .map(|l| l.archs.iter().map(|a| m[*a].name.as_str()).collect())
            .collect();
        assert_eq!(on, [vec!["new"], vec!["next"]]);
    }

    /// An arm of its own layout whose field over the discriminant is a struct that
    /// contains itself is an error, not a recursion without end: the discriminant check
    /// walked into the struct before the cycle finder ran, and overflowed the stack
    /// (found by `no_panic`'s mutants of the round-two fixture, a struct renamed to the
    /// opcode enum's name).
    #[test]
    fn a_discriminant_in_a_struct_that_contains_itself_is_an_error() {
        use crate::lower::test_support::errors;
        let spec = "enum OP : u8 { A = 1 => X }\nstruct H : 2 {\n    0 h H\n}\n\
                    record R : 2 {\n    discriminant 0 OP\n    0 op OP\n    1 b u8\n}\n\
                    arm X : R() {\n    0 header H\n}\n";
        let e = errors(spec, &[]);
        assert!(e.iter().any(|m| m.contains("'H' contains itself")), "{e:?}");
    }

    /// A group that uses itself, or two that use each other, is one error each cycle,
    /// at the `use` that closes it (it flattened pass after pass into dozens of
    /// errors about `x_x_x_a`).
    #[test]
    fn a_group_using_itself_is_one_cycle_error() {
        use crate::lower::test_support::{errors, RECORD};
        let spec = |groups: &str| format!("enum OPCODE : u8 {{}}\n{RECORD}{groups}");
        let e = errors(&spec("group GA : 4 {\n 0 a u8\n 1 use GA as x\n}\n"), &[]);
        assert_eq!(e, ["'GA' contains itself: GA -> GA"]);
        let e = errors(
            &spec("group GA : 2 {\n 0 a u8\n 1 use GB\n}\ngroup GB : 2 {\n 0 b u8\n 1 use GA\n}\n"),
            &[],
        );
        assert_eq!(e, ["'GA' contains itself: GA -> GB -> GA"]);
    }
}
