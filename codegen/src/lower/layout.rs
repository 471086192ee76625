//! Structs, groups, records and arms: type resolution, group flattening, and coverage
//! (every byte exactly once, nothing outside, arms after the shared preamble).

use super::meta::meta;
use super::{suggest, u32_of, Cx, Decl};
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::source::Span;
use crate::syntax::ast::{self, ItemKind, Member, TypeRef};

/// Already-lowered types that layouts refer to.
pub(super) struct Tables<'a> {
    pub structs: &'a [Struct],
    pub bits: &'a [Bits],
    pub enums: &'a [Enum],
}

/// A field before coverage checks, with the spans errors need.
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
                size: u32::try_from(size.value).unwrap_or(0),
                fields: Vec::new(),
                is_group: *is_group,
                meta: Meta::at(i.name.span),
            }
        })
        .collect();
    // Each pass flattens one more level of groups inside groups; stop at a fixed point.
    let passes = items.len() + 1;
    for pass in 0..=passes {
        let last = pass == passes;
        let saved = (!last).then(|| std::mem::take(&mut cx.errors));
        let tables = Tables { structs: &prev, bits, enums };
        let mut out = Vec::new();
        for item in items {
            out.push(lower_struct(cx, item, &tables));
        }
        let stable = out == prev;
        if let Some(saved) = saved {
            cx.errors = saved;
        }
        prev = out;
        if stable && !last {
            // One more pass with errors reported, over the stable shapes.
            let tables = Tables { structs: &prev, bits, enums };
            let mut out = Vec::new();
            for item in items {
                out.push(lower_struct(cx, item, &tables));
            }
            prev = out;
            break;
        }
    }
    check_cycles(cx, &prev, items);
    prev
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
    let (placed, complete) = members_of(cx, members, tables, 0, &item.name.name);
    let kind = if *is_group { "group" } else { "struct" };
    if complete {
        check_coverage(
            cx,
            &placed,
            0,
            size_v,
            &format!("{kind} '{}'", item.name.name),
            item.name.span,
        );
    }
    Struct {
        name: item.name.name.clone(),
        size: size_v,
        fields: placed.into_iter().map(|p| p.field).collect(),
        is_group: *is_group,
        meta: meta(cx, &item.ann, item.name.span),
    }
}

fn check_cycles(cx: &mut Cx<'_>, structs: &[Struct], items: &[&ast::Item]) {
    fn visit(s: usize, structs: &[Struct], path: &mut Vec<usize>, bad: &mut Vec<Vec<usize>>) {
        if let Some(pos) = path.iter().position(|&p| p == s) {
            bad.push(path[pos..].to_vec());
            return;
        }
        path.push(s);
        for f in &structs[s].fields {
            let mut t = &f.ty;
            while let FieldType::Array(inner, _) = t {
                t = inner;
            }
            if let FieldType::Struct(id) = t {
                visit(id.0 as usize, structs, path, bad);
            }
        }
        path.pop();
    }
    let mut bad = Vec::new();
    for s in 0..structs.len() {
        visit(s, structs, &mut Vec::new(), &mut bad);
    }
    let mut reported = std::collections::BTreeSet::new();
    for cycle in bad {
        let first = *cycle.iter().min().expect("a cycle has members");
        if reported.insert(first) {
            let names: Vec<&str> = cycle.iter().map(|&i| structs[i].name.as_str()).collect();
            cx.error(Diagnostic::error(
                items[first].name.span,
                format!(
                    "struct '{}' contains itself: {} -> {}",
                    structs[first].name,
                    names.join(" -> "),
                    names[0]
                ),
            ));
        }
    }
}

pub(super) fn records(cx: &mut Cx<'_>, items: &[&ast::Item], t: &Tables<'_>) -> Vec<Record> {
    let mut out = Vec::new();
    for item in items {
        let ItemKind::Record { size, discriminants, members } = &item.kind else { unreachable!() };
        let size_v = u32_of(cx, *size, "record size").unwrap_or(0);
        let (placed, complete) = members_of(cx, members, t, 0, &item.name.name);
        let preamble_size = placed.iter().map(|p| p.field.range().end).max().unwrap_or(0);
        let what = format!("the preamble of record '{}'", item.name.name);
        if complete {
            check_coverage(cx, &placed, 0, preamble_size, &what, item.name.span);
        }
        if preamble_size > size_v {
            cx.error(Diagnostic::error(
                item.name.span,
                format!("the preamble of '{}' (0..{preamble_size}) is larger than the record ({size_v})", item.name.name),
            ));
        }
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
        };
        let Some(discriminant) = discriminant else { continue };
        out.push(Record {
            name: item.name.name.clone(),
            size: size_v,
            discriminant,
            preamble: placed.into_iter().map(|p| p.field).collect(),
            preamble_size,
            meta: meta(cx, &item.ann, item.name.span),
        });
    }
    out
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

pub(super) fn arms(
    cx: &mut Cx<'_>,
    items: &[&ast::Item],
    records: &[Record],
    t: &Tables<'_>,
) -> Vec<Arm> {
    let mut out = Vec::new();
    for item in items {
        let ItemKind::Arm { record, members } = &item.kind else { unreachable!() };
        let Some(rid) = records.iter().position(|r| r.name == record.name) else {
            let mut d = Diagnostic::error(record.span, format!("unknown record '{}'", record.name));
            if let Some(s) = suggest(&record.name, records.iter().map(|r| r.name.as_str())) {
                d = d.note(s);
            }
            cx.error(d);
            continue;
        };
        let r = &records[rid];
        let (placed, complete) = members_of(cx, members, t, 0, &item.name.name);
        let mut payload = Vec::new();
        for p in placed {
            if p.field.offset < r.preamble_size {
                let mut d = Diagnostic::error(
                    p.span,
                    format!(
                        "arm '{}' does not begin with the shared preamble: field '{}' ({}..{}) is inside the preamble (0..{}) of record '{}'",
                        item.name.name,
                        p.field.name,
                        p.field.offset,
                        p.field.range().end,
                        r.preamble_size,
                        r.name
                    ),
                )
                .with(r.meta.span, "the preamble is declared here")
                .note(format!("an arm's own fields start at +{}", r.preamble_size));
                if let Some(o) = p.origin {
                    d = d.with(o, "defined in the group here");
                }
                cx.error(d);
            } else {
                payload.push(p);
            }
        }
        let what = format!("arm '{}'", item.name.name);
        if complete {
            check_coverage(cx, &payload, r.preamble_size, r.size, &what, item.name.span);
        }
        out.push(Arm {
            name: item.name.name.clone(),
            record: RecordId(rid as u32),
            fields: payload.into_iter().map(|p| p.field).collect(),
            meta: meta(cx, &item.ann, item.name.span),
        });
    }
    out
}

/// Lower members: resolve types, flatten groups, compute offsets and sizes; sorted by offset.
/// The second value is false when a member failed to resolve: coverage is then not
/// checked, so one mistake gives one diagnostic.
fn members_of(
    cx: &mut Cx<'_>,
    members: &[Member],
    t: &Tables<'_>,
    base: u32,
    owner: &str,
) -> (Vec<Placed>, bool) {
    let mut out = Vec::new();
    let mut complete = true;
    for m in members {
        match m {
            Member::Field { offset, name, ty, ann, span } => {
                let Some(off) = u32_of(cx, *offset, "offset") else { continue };
                let field_meta = meta(cx, ann, name.span);
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
                        offset: base.saturating_add(off),
                        size,
                        ty: fty,
                        meta: field_meta,
                        group: None,
                    },
                    span: *span,
                    origin: None,
                });
            }
            Member::Use { offset, group, prefix, ann, span } => {
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
                    }
                    if fm.waiver.is_none() {
                        fm.waiver.clone_from(&use_meta.waiver);
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
                            offset: base.saturating_add(off).saturating_add(gf.offset),
                            size: gf.size,
                            ty: gf.ty.clone(),
                            meta: fm,
                            group: Some(GroupUse {
                                group: StructId(gid as u32),
                                base: base.saturating_add(off),
                                prefix: prefix.as_ref().map(|p| p.name.clone()),
                                meta: use_meta.clone(),
                                member: k as u32,
                            }),
                        },
                        span: *span,
                        origin: Some(origin),
                    });
                }
            }
        }
    }
    // Duplicate names within one layout (including flattened group members).
    let mut seen: std::collections::BTreeMap<&str, &Placed> = std::collections::BTreeMap::new();
    for p in &out {
        if let Some(first) = seen.get(p.field.name.as_str()) {
            let mut d = Diagnostic::error(
                p.span,
                format!("duplicate field '{}' in '{owner}'", p.field.name),
            )
            .with(first.span, "first declared here");
            if let Some(o) = p.origin {
                d = d.with(o, "defined in the group here");
            }
            cx.error(d);
        } else {
            seen.insert(&p.field.name, p);
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
        TypeRef::Array(elem, n, _) => {
            let e = field_type(cx, elem, t)?;
            let n = u32_of(cx, *n, "array length")?;
            if n == 0 {
                cx.error(Diagnostic::error(ty.span(), "an array needs at least one element"));
                return None;
            }
            if matches!(e, FieldType::Reserved(_)) {
                cx.error(Diagnostic::error(
                    ty.span(),
                    "write reserved bytes as reserved[N], not as an array",
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
        FieldType::Reserved(n) => *n,
    }
}

/// Every byte of `start..end` covered by exactly one field; nothing outside.
fn check_coverage(
    cx: &mut Cx<'_>,
    placed: &[Placed],
    start: u32,
    end: u32,
    what: &str,
    owner_span: Span,
) {
    let mut cursor = start;
    let mut last: Option<&Placed> = None;
    for p in placed {
        let r = p.field.range();
        if r.end > end || r.start < start {
            let mut d = Diagnostic::error(
                p.span,
                format!(
                    "field '{}' ({}..{}) lies outside {what} ({start}..{end})",
                    p.field.name, r.start, r.end
                ),
            );
            if let Some(o) = p.origin {
                d = d.with(o, "defined in the group here");
            }
            cx.error(d);
        }
        if let Some(prev) = last {
            let pr = prev.field.range();
            if r.start < pr.end {
                if p.field.meta.waiver.is_none() && prev.field.meta.waiver.is_none() {
                    let mut d = Diagnostic::error(
                        p.span,
                        format!(
                            "field '{}' ({}..{}) overlaps '{}' ({}..{})",
                            p.field.name, r.start, r.end, prev.field.name, pr.start, pr.end
                        ),
                    )
                    .with(prev.span, format!("'{}' is here", prev.field.name));
                    if let Some(o) = p.origin {
                        d = d.with(o, "defined in the group here");
                    }
                    cx.error(d.note("every byte belongs to exactly one field; a deliberate overlap needs @waive(\"reason\")"));
                }
            } else if r.start > cursor {
                gap(cx, cursor, r.start, what, p.span);
            }
        } else if r.start > cursor {
            gap(cx, cursor, r.start, what, p.span);
        }
        cursor = cursor.max(r.end);
        if last.is_none_or(|l| r.end > l.field.range().end) {
            last = Some(p);
        }
    }
    if cursor < end {
        gap(cx, cursor, end, what, owner_span);
    }
}

fn gap(cx: &mut Cx<'_>, from: u32, to: u32, what: &str, span: Span) {
    cx.error(
        Diagnostic::error(
            span,
            format!("bytes {from}..{to} of {what} are not covered by any field"),
        )
        .note(format!("declare them: '{from} reserved_{from} reserved[{}]'", to - from)),
    );
}
