//! Enums, bands and `bits` operand types: widths, values, bit ranges and their overlaps.

use std::collections::BTreeMap;

use super::meta::{inherit, meta, meta_full};
use super::{suggest, u64_of, Cx};
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::syntax::ast::{self, ItemKind};

/// The unsigned integer a width name spells, or an error.
pub(super) fn unsigned(cx: &mut Cx<'_>, w: &ast::Ident, what: &str) -> Option<Prim> {
    match Prim::parse(&w.name) {
        Some(p) if !p.signed() && !p.is_float() => Some(p),
        _ => {
            cx.error(
                Diagnostic::error(
                    w.span,
                    format!("{what} must be u8, u16, u32 or u64, not '{}'", w.name),
                )
                .label("expected an unsigned integer type"),
            );
            None
        }
    }
}

pub(super) fn enums(cx: &mut Cx<'_>, items: &[&ast::Item]) -> Vec<Enum> {
    items
        .iter()
        .map(|item| {
            let ItemKind::Enum { width: Some(width), variants } = &item.kind else {
                unreachable!("not an enum")
            };
            let width_p = unsigned(cx, width, "an enum's underlying type").unwrap_or(Prim::U64);
            // Opcode attributes are read (and checked) by `opcode_attrs`, which knows
            // which enum is the opcode table.
            let (m, _) = meta_full(cx, &item.ann, item.name.span, None);
            let mut by_name: BTreeMap<&str, ast::Ident> = BTreeMap::new();
            let mut by_value: BTreeMap<u64, &ast::Ident> = BTreeMap::new();
            let mut out = Vec::new();
            for v in variants {
                let (vm, _) = meta_full(cx, &v.ann, v.name.span, Some(&m));
                let Some(value_lit) = v.value else {
                    cx.error(
                        Diagnostic::error(v.name.span, format!("'{}' has no value", v.name.name))
                            .note("a value of an enum with a width is 'NAME = VALUE'"),
                    );
                    cx.refused_variants.insert((item.name.name.clone(), v.name.name.clone()));
                    continue;
                };
                let Some(value) = u64_of(cx, value_lit) else {
                    cx.refused_variants.insert((item.name.name.clone(), v.name.name.clone()));
                    continue;
                };
                if !width_p.fits(i128::from(value)) {
                    cx.error(
                        Diagnostic::error(
                            value_lit.span,
                            format!(
                                "value {value:#x} of '{}' does not fit enum '{}' ({})",
                                v.name.name,
                                item.name.name,
                                width_p.as_str()
                            ),
                        )
                        .with(width.span, "the enum's width"),
                    );
                    cx.refused_variants.insert((item.name.name.clone(), v.name.name.clone()));
                    continue;
                }
                if let Some(first) = by_name.get(v.name.name.as_str()) {
                    cx.error(
                        Diagnostic::error(
                            v.name.span,
                            format!("duplicate variant '{}'", v.name.name),
                        )
                        .with(first.span, "first declared here"),
                    );
                    continue;
                }
                if let Some(first) = by_value.get(&value) {
                    cx.error(
                        Diagnostic::error(
                            value_lit.span,
                            format!(
                                "'{}' and '{}' both have the value {value:#x}",
                                v.name.name, first.name
                            ),
                        )
                        .with(first.span, "the other variant"),
                    );
                    cx.refused_variants.insert((item.name.name.clone(), v.name.name.clone()));
                    continue;
                }
                by_name.insert(&v.name.name, v.name.clone());
                by_value.insert(value, &v.name);
                out.push(Variant {
                    name: v.name.name.clone(),
                    rust: String::new(),
                    value,
                    literal: cx.text(value_lit.span).to_string(),
                    status: None,
                    engines: Vec::new(),
                    meta: vm,
                });
            }
            out.sort_by_key(|v| v.value);
            Enum {
                name: item.name.name.clone(),
                rust: String::new(),
                width: width_p,
                variants: out,
                status: None,
                engines: Vec::new(),
                meta: m,
            }
        })
        .collect()
}

/// Enums without a width: names without encodings.
pub(super) fn vocabs(cx: &mut Cx<'_>, items: &[&ast::Item]) -> Vec<Vocab> {
    items
        .iter()
        .map(|item| {
            let ItemKind::Enum { variants, .. } = &item.kind else { unreachable!("not an enum") };
            let m = meta(cx, &item.ann, item.name.span);
            let mut words: Vec<Word> = Vec::new();
            for v in variants {
                if let Some(val) = v.value {
                    cx.error(
                        Diagnostic::error(
                            val.span,
                            format!("'{}' is a vocabulary word; it has no value", v.name.name),
                        )
                        .note(format!(
                            "give '{}' a width ('enum {} : u8') to number its values",
                            item.name.name, item.name.name
                        )),
                    );
                }
                if let Some(first) = words.iter().find(|w| w.name == v.name.name) {
                    cx.error(
                        Diagnostic::error(v.name.span, format!("duplicate word '{}'", v.name.name))
                            .with(first.meta.span, "first declared here"),
                    );
                    continue;
                }
                let wm = inherit(cx, &v.ann, v.name.span, Some(&m));
                words.push(Word { name: v.name.name.clone(), rust: String::new(), meta: wm });
            }
            Vocab { name: item.name.name.clone(), rust: String::new(), words, meta: m }
        })
        .collect()
}

/// `=> ARM`, `@status` and `@engine` belong to the opcode table (the record's
/// discriminant enum): read them there, with the enum's as defaults, and reject them
/// anywhere else.
pub(super) fn opcode_attrs(
    cx: &mut Cx<'_>,
    items: &[&ast::Item],
    enums: &mut [Enum],
    record: &Record,
    vocabs: &[Vocab],
) {
    let words = record.engines.map(|v| &vocabs[v.0 as usize]);
    for (i, item) in items.iter().enumerate() {
        let ItemKind::Enum { variants, .. } = &item.kind else { continue };
        let is_table = i == record.discriminant.ty.0 as usize;
        // Re-read the attributes; meta_full reports nothing new for what `enums` read.
        let saved = cx.errors.len();
        let (_, item_op) = meta_full(cx, &item.ann, item.name.span, None);
        let mut per_variant = Vec::new();
        for v in variants.iter().filter(|v| v.is_first_of_name(variants)) {
            let (_, op) = meta_full(cx, &v.ann, v.name.span, None);
            per_variant.push((v, op));
        }
        cx.errors.truncate(saved);
        let not_here = |cx: &mut Cx<'_>, span: crate::source::Span, what: &str| {
            cx.error(
                Diagnostic::error(span, format!("{what} belongs to the opcode table"))
                    .note(format!("'{}' is not the record's discriminant enum", item.name.name)),
            )
        };
        if !is_table {
            if let Some(s) = item_op.first {
                not_here(cx, s, "@status or @engine");
            }
            for (v, op) in &per_variant {
                if let Some(s) = op.first {
                    not_here(cx, s, "@status or @engine");
                }
                if let Some(a) = &v.arm {
                    not_here(cx, a.span, "'=> ARM'");
                }
            }
            continue;
        }
        let e = &mut enums[i];
        // The table's own defaults, kept so that the diff reports an edit of them once,
        // at the table; a word of them that is not in the vocabulary is reported there,
        // once, whether or not a value takes it.
        e.status = item_op.status.map(|(s, _)| s);
        e.engines = engine_words(cx, words, &item_op.engines);
        for (v, op) in per_variant {
            let Some(var) = e.variants.iter_mut().find(|x| x.name == v.name.name) else { continue };
            var.status = op.status.or(item_op.status).map(|(s, _)| s);
            var.engines = if op.engines.is_empty() {
                e.engines.clone()
            } else {
                engine_words(cx, words, &op.engines)
            };
        }
    }
}

/// The indexes in the record's engines vocabulary of the `@engine` words `ws`, each once;
/// a word not in it, or any word where the record names no vocabulary, is an error at
/// the word.
fn engine_words(cx: &mut Cx<'_>, words: Option<&Vocab>, ws: &[ast::Ident]) -> Vec<u32> {
    let mut out = Vec::new();
    for w in ws {
        let Some(voc) = words else {
            cx.error(
                Diagnostic::error(
                    w.span,
                    "@engine needs the record to name its engines vocabulary",
                )
                .note("add 'engines ENGINE' to the record and declare 'enum ENGINE { ... }'"),
            );
            continue;
        };
        match voc.words.iter().position(|x| x.name == w.name) {
            Some(k) => {
                if !out.contains(&(k as u32)) {
                    out.push(k as u32);
                }
            }
            None => {
                let d = Diagnostic::error(
                    w.span,
                    format!("'{}' is not a word of '{}'", w.name, voc.name),
                );
                let d = match suggest(&w.name, voc.words.iter().map(|x| x.name.as_str())) {
                    Some(s) => d.note(s),
                    None => d.note(format!(
                        "the words are: {}",
                        voc.words.iter().map(|x| x.name.as_str()).collect::<Vec<_>>().join(", ")
                    )),
                };
                cx.error(d);
            }
        }
    }
    out
}

pub(super) fn bits(cx: &mut Cx<'_>, items: &[&ast::Item], enums: &[Enum]) -> Vec<Bits> {
    items
        .iter()
        .map(|item| {
            let ItemKind::Bits { width, fields, alts } = &item.kind else {
                unreachable!("not bits")
            };
            let w = unsigned(cx, width, "a bits type's underlying type").unwrap_or(Prim::U64);
            let m = meta(cx, &item.ann, item.name.span);
            let top = bit_fields(cx, fields, w, &item.name.name, &m, enums);
            check_overlaps(cx, &top, &[], &item.name.name);
            // Predicates first: an alt's fields may overlap the field that selects it,
            // but never the bits its predicate tests (`otherwise` avoids all tested bits).
            let preds: Vec<Option<Predicate>> = alts
                .iter()
                .map(|a| a.when.as_ref().and_then(|wh| predicate(cx, wh, &top)))
                .collect();
            let tested = |p: &Predicate| {
                top[p.field as usize].0.mask() & (p.mask << top[p.field as usize].0.lo)
            };
            let all_tested: Vec<(u32, u64)> =
                preds.iter().flatten().map(|p| (p.field, tested(p))).collect();
            let mut seen_otherwise: Option<ast::Ident> = None;
            let mut names: BTreeMap<String, crate::source::Span> =
                top.iter().map(|(f, _)| (f.name.clone(), f.meta.span)).collect();
            let mut out_alts = Vec::new();
            for (a, when) in alts.iter().zip(preds) {
                let am = inherit(cx, &a.ann, a.name.span, Some(&m));
                let afields = bit_fields(cx, &a.fields, w, &item.name.name, &am, enums);
                let selectors: Vec<(u32, u64)> = match &when {
                    Some(p) => vec![(p.field, tested(p))],
                    None => all_tested.clone(),
                };
                check_overlaps(cx, &afields, &[], &item.name.name);
                check_against(cx, &afields, &top, &selectors, &item.name.name, &a.name.name);
                for (f, _) in &afields {
                    if let Some(first) = names.get(&f.name) {
                        cx.error(
                            Diagnostic::error(
                                f.meta.span,
                                format!("duplicate bit-field '{}'", f.name),
                            )
                            .with(*first, "first declared here"),
                        );
                    }
                    names.insert(f.name.clone(), f.meta.span);
                }
                if a.when.is_none() {
                    if let Some(first) = &seen_otherwise {
                        cx.error(
                            Diagnostic::error(a.name.span, "only one alt may be 'otherwise'")
                                .with(first.span, "the other 'otherwise' alt"),
                        );
                    }
                    seen_otherwise = Some(a.name.clone());
                }
                out_alts.push(Alt {
                    name: a.name.name.clone(),
                    rust: String::new(),
                    when,
                    fields: afields.into_iter().map(|(f, _)| f).collect(),
                    meta: am,
                });
            }
            Bits {
                name: item.name.name.clone(),
                rust: String::new(),
                width: w,
                fields: top.into_iter().map(|(f, _)| f).collect(),
                alts: out_alts,
                meta: m,
            }
        })
        .collect()
}

/// Lower bit-fields, checking each lies inside the integer; sorted by `lo`.
fn bit_fields(
    cx: &mut Cx<'_>,
    defs: &[ast::BitFieldDef],
    w: Prim,
    owner: &str,
    owner_meta: &Meta,
    enums: &[Enum],
) -> Vec<(BitField, crate::source::Span)> {
    let mut out = Vec::new();
    for d in defs {
        let m = inherit(cx, &d.ann, d.name.span, Some(owner_meta));
        let (lo, hi) = (d.lo.value, d.hi.value);
        if lo >= hi {
            cx.error(Diagnostic::error(
                d.span,
                format!(
                    "bit-field '{}' ({lo}..{hi}) is empty: the first bit must be below the end",
                    d.name.name
                ),
            ));
            continue;
        }
        if hi > u128::from(w.bits()) {
            cx.error(
                Diagnostic::error(
                    d.span,
                    format!(
                        "bit-field '{}' ({lo}..{hi}) lies outside '{owner}' ({})",
                        d.name.name,
                        w.as_str()
                    ),
                )
                .label(format!("bits end at {}", w.bits())),
            );
            continue;
        }
        let width = (hi - lo) as u32;
        let ty = match &d.ty {
            None => BitType::Uint,
            Some(t) if t.name == "bool" => {
                if width != 1 {
                    cx.error(Diagnostic::error(
                        t.span,
                        format!("bit-field '{}' is {width} bits; a bool is one", d.name.name),
                    ));
                }
                BitType::Bool
            }
            Some(t) => match enums.iter().position(|e| e.name == t.name) {
                Some(i) => {
                    let e = &enums[i];
                    if width > e.width.bits() {
                        cx.error(Diagnostic::error(
                            t.span,
                            format!(
                                "bit-field '{}' is {width} bits, wider than enum '{}' ({})",
                                d.name.name,
                                e.name,
                                e.width.as_str()
                            ),
                        ));
                    }
                    // A narrower field holds the values that fit (DTYPE_PAIR's 4-bit
                    // nibbles carry the codes up to 0xF); it needs at least one.
                    let limit = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
                    if !e.variants.is_empty() && e.variants.iter().all(|v| v.value > limit) {
                        cx.error(Diagnostic::error(
                            t.span,
                            format!(
                                "no value of enum '{}' fits the {width}-bit field '{}'",
                                e.name, d.name.name
                            ),
                        ));
                    }
                    BitType::Enum(EnumId(i as u32))
                }
                None => {
                    let mut diag =
                        Diagnostic::error(t.span, format!("unknown bit-field type '{}'", t.name))
                            .label("expected bool or an enum");
                    if let Some(s) =
                        suggest(&t.name, enums.iter().map(|e| e.name.as_str()).chain(["bool"]))
                    {
                        diag = diag.note(s);
                    }
                    cx.error(diag);
                    BitType::Uint
                }
            },
        };
        out.push((
            BitField {
                name: d.name.name.clone(),
                rust: String::new(),
                ty,
                lo: lo as u32,
                hi: hi as u32,
                meta: m,
            },
            d.span,
        ));
    }
    out.sort_by_key(|(f, _)| f.lo);
    out
}

/// Overlaps within `fields`, and between `fields` and `against`; a waiver on either side permits one.
fn check_overlaps(
    cx: &mut Cx<'_>,
    fields: &[(BitField, crate::source::Span)],
    against: &[(BitField, crate::source::Span)],
    owner: &str,
) {
    for (i, (a, aspan)) in fields.iter().enumerate() {
        let others = fields[i + 1..].iter().chain(against.iter());
        for (b, bspan) in others {
            if a.lo < b.hi && b.lo < a.hi && !cx.waived(&a.meta, &b.meta) {
                let (first, second, fspan, sspan) = if (b.lo, &b.name) < (a.lo, &a.name) {
                    (b, a, *bspan, *aspan)
                } else {
                    (a, b, *aspan, *bspan)
                };
                cx.error(
                    Diagnostic::error(
                        sspan,
                        format!(
                            "bit-field '{}' ({}..{}) overlaps '{}' ({}..{}) in '{owner}'",
                            second.name, second.lo, second.hi, first.name, first.lo, first.hi
                        ),
                    )
                    .with(fspan, "overlapped here")
                    .note("put alternative readings in different 'alt' views, or add @waive(\"reason\")"),
                );
            }
        }
    }
}

/// An alt's fields against the top-level fields: overlapping a selector field is
/// allowed outside its tested bits; anything else needs a waiver.
fn check_against(
    cx: &mut Cx<'_>,
    fields: &[(BitField, crate::source::Span)],
    top: &[(BitField, crate::source::Span)],
    selectors: &[(u32, u64)],
    owner: &str,
    alt: &str,
) {
    for (a, aspan) in fields {
        for (k, (b, bspan)) in top.iter().enumerate() {
            if !(a.lo < b.hi && b.lo < a.hi) {
                continue;
            }
            let tested: u64 = selectors
                .iter()
                .filter(|(f, _)| *f as usize == k)
                .map(|(_, m)| m)
                .fold(0, |x, y| x | y);
            let is_selector = selectors.iter().any(|(f, _)| *f as usize == k);
            // Allowed without a waiver: a waiver here excuses nothing (and is not marked
            // as needed).
            if is_selector && a.mask() & tested == 0 {
                continue;
            }
            if cx.waived(&a.meta, &b.meta) {
                continue;
            }
            let why = if is_selector {
                format!("it covers bits that select the alt ({tested:#x})")
            } else {
                "alternative views may overlap only the field that selects them".to_string()
            };
            cx.error(
                Diagnostic::error(
                    *aspan,
                    format!(
                        "bit-field '{}' ({}..{}) of alt '{alt}' overlaps '{}' ({}..{}) in '{owner}': {why}",
                        a.name, a.lo, a.hi, b.name, b.lo, b.hi
                    ),
                )
                .with(*bspan, "overlapped here")
                .note("add @waive(\"reason\") if the overlap is deliberate"),
            );
        }
    }
}

fn predicate(
    cx: &mut Cx<'_>,
    w: &ast::WhenDef,
    top: &[(BitField, crate::source::Span)],
) -> Option<Predicate> {
    let Some(idx) = top.iter().position(|(f, _)| f.name == w.field.name) else {
        cx.error(
            Diagnostic::error(w.field.span, format!("unknown bit-field '{}'", w.field.name))
                .note("an alt's 'when' tests a bit-field declared outside any alt"),
        );
        return None;
    };
    let f = &top[idx].0;
    let width = f.hi - f.lo;
    let limit = if width >= 64 { u128::from(u64::MAX) } else { (1u128 << width) - 1 };
    for (what, v) in [("mask", w.mask), ("value", w.value)] {
        if v.value > limit {
            cx.error(Diagnostic::error(
                v.span,
                format!(
                    "{what} {:#x} is wider than bit-field '{}' ({width} bits)",
                    v.value, f.name
                ),
            ));
            return None;
        }
    }
    if w.value.value & !w.mask.value != 0 {
        cx.error(Diagnostic::error(
            w.value.span,
            format!(
                "value {:#x} has bits outside the mask {:#x}; the test can never hold",
                w.value.value, w.mask.value
            ),
        ));
    }
    Some(Predicate { field: idx as u32, mask: w.mask.value as u64, value: w.value.value as u64 })
}

pub(super) fn bands(cx: &mut Cx<'_>, items: &[&ast::Item], enums: &[Enum]) -> Vec<Band> {
    // (enum, band) → item
    let mut table: BTreeMap<(String, String), &ast::Item> = BTreeMap::new();
    for item in items {
        let ItemKind::Band { enum_name, .. } = &item.kind else { unreachable!("not a band") };
        let key = (enum_name.name.clone(), item.name.name.clone());
        if let Some(first) = table.get(&key) {
            cx.error(
                Diagnostic::error(item.name.span, format!("duplicate band '{}.{}'", key.0, key.1))
                    .with(first.name.span, "first declared here"),
            );
            continue;
        }
        table.insert(key, item);
    }
    let mut out = Vec::new();
    // Each band expanded once (`None`: it failed, its error already given), so that a
    // band used by many others costs one expansion and a cycle one error.
    let mut done: Expanded = BTreeMap::new();
    for ((enum_name, name), item) in &table {
        let ItemKind::Band { enum_name: en, .. } = &item.kind else { unreachable!() };
        let Some(eid) = enums.iter().position(|e| &e.name == enum_name) else {
            cx.error(Diagnostic::error(en.span, format!("unknown enum '{enum_name}'")));
            continue;
        };
        let key = (enum_name.clone(), name.clone());
        let ranges = match done.get(&key) {
            Some(r) => r.clone(),
            None => {
                let mut stack = vec![name.clone()];
                let r = expand(cx, &table, enum_name, item, &enums[eid], &mut stack, &mut done);
                done.insert(key, r.clone());
                r
            }
        };
        let Some(ranges) = ranges else {
            continue;
        };
        out.push(Band {
            enum_id: EnumId(eid as u32),
            name: name.clone(),
            ranges,
            meta: meta(cx, &item.ann, item.name.span),
        });
    }
    out
}

/// The bands expanded so far, by (enum, band): their merged ranges, or `None` for one
/// whose error was given.
type Expanded = BTreeMap<(String, String), Option<Vec<(u64, u64)>>>;

/// The merged ranges of a band, following references to other bands (each expanded
/// once, into `done`).
fn expand(
    cx: &mut Cx<'_>,
    table: &BTreeMap<(String, String), &ast::Item>,
    enum_name: &str,
    item: &ast::Item,
    e: &Enum,
    stack: &mut Vec<String>,
    done: &mut Expanded,
) -> Option<Vec<(u64, u64)>> {
    let ItemKind::Band { elems, .. } = &item.kind else { unreachable!() };
    let mut ranges = Vec::new();
    let mut ok = true;
    for el in elems {
        match el {
            ast::BandElem::Value(v) | ast::BandElem::Range(v, _, _) => {
                let (lo, hi, span) = match el {
                    ast::BandElem::Range(lo, hi, s) => (lo.value, hi.value, *s),
                    _ => (v.value, v.value, v.span),
                };
                if lo > hi {
                    cx.error(Diagnostic::error(span, format!("empty range {lo:#x}..={hi:#x}")));
                    ok = false;
                } else if !e.width.fits(hi as i128) || hi > u128::from(u64::MAX) {
                    cx.error(Diagnostic::error(
                        span,
                        format!("{hi:#x} does not fit enum '{}' ({})", e.name, e.width.as_str()),
                    ));
                    ok = false;
                } else {
                    ranges.push((lo as u64, hi as u64));
                }
            }
            ast::BandElem::Band(b) => {
                if let Some(at) = stack.iter().position(|n| *n == b.name) {
                    // The cycle itself, from the band that closes it.
                    cx.error(Diagnostic::error(
                        b.span,
                        format!(
                            "band '{}' includes itself: {} -> {}",
                            b.name,
                            stack[at..].join(" -> "),
                            b.name
                        ),
                    ));
                    ok = false;
                    continue;
                }
                let key = (enum_name.to_string(), b.name.clone());
                if let Some(r) = done.get(&key) {
                    match r {
                        Some(r) => ranges.extend(r.iter().copied()),
                        None => ok = false,
                    }
                    continue;
                }
                match table.get(&key) {
                    Some(other) => {
                        stack.push(b.name.clone());
                        let r = expand(cx, table, enum_name, other, e, stack, done);
                        stack.pop();
                        match &r {
                            Some(r) => ranges.extend(r.iter().copied()),
                            None => ok = false,
                        }
                        done.insert(key, r);
                    }
                    None => {
                        cx.error(Diagnostic::error(
                            b.span,
                            format!("unknown band '{}' of enum '{enum_name}'", b.name),
                        ));
                        ok = false;
                    }
                }
            }
        }
    }
    ok.then(|| merge(ranges))
}

fn merge(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    ranges.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (lo, hi) in ranges {
        match out.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::lower::test_support::{errors, model, RECORD};
    use crate::model::Status;

    /// The opcode table's `@status` and `@engine` on the enum are defaults; a value's own
    /// replace them (engines are not added to the default's).
    #[test]
    fn opcode_attributes_default_from_the_table() {
        let m = model(
            "enum ENGINE { PE ACT POOL }\n@status(maintained)\n@engine(PE)\nenum OPCODE : u8 {\n    A = 1\n    B = 2 @status(dormant) @engine(POOL, ACT, POOL)\n}\nrecord R : 1 {\n    discriminant 0 OPCODE\n    engines ENGINE\n    0 opcode OPCODE\n}\n",
            &[],
        );
        let op = &m[m.opcode_enum()];
        let a = op.variant_named("A").unwrap();
        let b = op.variant_named("B").unwrap();
        assert_eq!((a.status, a.engines.as_slice()), (Some(Status::Maintained), &[0][..]));
        assert_eq!((b.status, b.engines.as_slice()), (Some(Status::Dormant), &[2, 1][..]));
    }

    /// A word of the table's own `@engine` that the vocabulary lacks is one error, at the
    /// table: whether every value names its own engines (it went unreported) or several
    /// take the table's (one error each, at the one word).
    #[test]
    fn an_unknown_table_engine_is_one_error() {
        let spec = |values: &str| {
            format!(
                "enum ENGINE {{ PE ACT }}\n@engine(PX)\nenum OPCODE : u8 {{\n{values}}}\n\
                 record R : 1 {{\n    discriminant 0 OPCODE\n    engines ENGINE\n    0 opcode OPCODE\n}}\n"
            )
        };
        for values in ["    A = 1 @engine(PE)\n    B = 2 @engine(ACT)\n", "    A = 1\n    B = 2\n"]
        {
            assert_eq!(errors(&spec(values), &[]), ["'PX' is not a word of 'ENGINE'"], "{values}");
        }
    }

    /// Values are kept sorted by value, whatever the spec order; names and values unique.
    #[test]
    fn enum_values_sorted_and_unique() {
        let m = model(
            &format!("enum OPCODE : u8 {{\n    Z = 9\n    A = 1\n    M = 4\n}}\n{RECORD}"),
            &[],
        );
        let values: Vec<u64> = m[m.opcode_enum()].variants.iter().map(|v| v.value).collect();
        assert_eq!(values, [1, 4, 9]);
        let e = errors(
            &format!("enum OPCODE : u8 {{\n    A = 1\n    B = 1\n    A = 2\n}}\n{RECORD}"),
            &[],
        );
        assert_eq!(e, ["'B' and 'A' both have the value 0x1", "duplicate variant 'A'"]);
    }

    /// A waiver on an alt's field that overlaps only the untested bits of the field that
    /// selects the alt excuses nothing (that overlap is allowed): an error, as any
    /// waiver no overlap needs; one over the tested bits is needed.
    #[test]
    fn a_waiver_on_an_alt_field_over_untested_selector_bits_is_unneeded() {
        let spec = |range: &str| {
            format!(
                "enum OPCODE : u8 {{}}\n{RECORD}bits B : u8 {{\n    0..8 marker\n    \
                 alt hi when marker & 0x80 == 0x80 {{\n        {range} low @waive(\"w\")\n    }}\n}}\n"
            )
        };
        assert_eq!(errors(&spec("0..4"), &[]), ["this @waive excuses no overlap"]);
        model(&spec("4..8"), &[]);
    }

    /// A band's ranges are merged, other bands expanded.
    #[test]
    fn bands_merge_and_expand() {
        let m = model(
            &format!("enum OPCODE : u8 {{}}\n{RECORD}band OPCODE.a = 1..=3 | 7\nband OPCODE.b = a | 4 | 8..=9 | 2\n"),
            &[],
        );
        let b = m.bands.iter().find(|b| b.name == "b").unwrap();
        assert_eq!(b.ranges, [(1, 4), (7, 9)]);
    }

    /// Each band is expanded once: 40 bands that each use the one before twice were
    /// 2^40 expansions (28 did not finish in a minute).
    #[test]
    fn a_band_used_many_times_is_expanded_once() {
        let mut spec = format!("enum OPCODE : u8 {{}}\n{RECORD}band OPCODE.b0 = 1\n");
        for i in 1..40 {
            spec.push_str(&format!("band OPCODE.b{i} = b{} | b{} | {i}\n", i - 1, i - 1));
        }
        let m = model(&spec, &[]);
        let last = m.bands.iter().find(|b| b.name == "b39").unwrap();
        assert_eq!(last.ranges, [(1, 39)]);
    }

    /// A cycle is one error, naming the cycle alone (not the band that led into it).
    #[test]
    fn a_band_cycle_is_one_error_with_its_own_path() {
        let e = errors(
            &format!("enum OPCODE : u8 {{}}\n{RECORD}band OPCODE.a = p\nband OPCODE.p = 1 | p\n"),
            &[],
        );
        assert_eq!(e, ["band 'p' includes itself: p -> p"]);
    }
}
