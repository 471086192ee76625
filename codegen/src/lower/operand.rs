//! Enums, bands and `bits` operand types: widths, values, bit ranges and their overlaps.

use std::collections::BTreeMap;

use super::meta::meta;
use super::{u64_of, Cx};
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::syntax::ast::{self, ItemKind};

/// The unsigned integer a width name spells, or an error.
pub(super) fn unsigned(cx: &mut Cx<'_>, w: &ast::Ident, what: &str) -> Option<Prim> {
    match Prim::parse(&w.name) {
        Some(p) if !p.signed() => Some(p),
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
            let ItemKind::Enum { width, variants } = &item.kind else {
                unreachable!("not an enum")
            };
            let width_p = unsigned(cx, width, "an enum's underlying type").unwrap_or(Prim::U64);
            let mut by_name: BTreeMap<&str, ast::Ident> = BTreeMap::new();
            let mut by_value: BTreeMap<u64, &ast::Ident> = BTreeMap::new();
            let mut out = Vec::new();
            for v in variants {
                let m = meta(cx, &v.ann, v.name.span);
                let Some(value) = u64_of(cx, v.value) else { continue };
                if !width_p.fits(i128::from(value)) {
                    cx.error(
                        Diagnostic::error(
                            v.value.span,
                            format!(
                                "value {value:#x} of '{}' does not fit enum '{}' ({})",
                                v.name.name,
                                item.name.name,
                                width_p.as_str()
                            ),
                        )
                        .with(width.span, "the enum's width"),
                    );
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
                            v.value.span,
                            format!(
                                "'{}' and '{}' both have the value {value:#x}",
                                v.name.name, first.name
                            ),
                        )
                        .with(first.span, "the other variant"),
                    );
                    continue;
                }
                by_name.insert(&v.name.name, v.name.clone());
                by_value.insert(value, &v.name);
                out.push(Variant { name: v.name.name.clone(), value, meta: m });
            }
            out.sort_by_key(|v| v.value);
            Enum {
                name: item.name.name.clone(),
                width: width_p,
                variants: out,
                meta: meta(cx, &item.ann, item.name.span),
            }
        })
        .collect()
}

pub(super) fn bits(cx: &mut Cx<'_>, items: &[&ast::Item]) -> Vec<Bits> {
    items
        .iter()
        .map(|item| {
            let ItemKind::Bits { width, fields, alts } = &item.kind else {
                unreachable!("not bits")
            };
            let w = unsigned(cx, width, "a bits type's underlying type").unwrap_or(Prim::U64);
            let top = bit_fields(cx, fields, w, &item.name.name);
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
                let afields = bit_fields(cx, &a.fields, w, &item.name.name);
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
                    when,
                    fields: afields.into_iter().map(|(f, _)| f).collect(),
                    meta: meta(cx, &a.ann, a.name.span),
                });
            }
            Bits {
                name: item.name.name.clone(),
                width: w,
                fields: top.into_iter().map(|(f, _)| f).collect(),
                alts: out_alts,
                meta: meta(cx, &item.ann, item.name.span),
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
) -> Vec<(BitField, crate::source::Span)> {
    let mut out = Vec::new();
    for d in defs {
        let m = meta(cx, &d.ann, d.name.span);
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
        out.push((
            BitField { name: d.name.name.clone(), lo: lo as u32, hi: hi as u32, meta: m },
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
            if a.lo < b.hi && b.lo < a.hi && a.meta.waiver.is_none() && b.meta.waiver.is_none() {
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
            if !(a.lo < b.hi && b.lo < a.hi) || a.meta.waiver.is_some() || b.meta.waiver.is_some() {
                continue;
            }
            let tested: u64 = selectors
                .iter()
                .filter(|(f, _)| *f as usize == k)
                .map(|(_, m)| m)
                .fold(0, |x, y| x | y);
            let is_selector = selectors.iter().any(|(f, _)| *f as usize == k);
            if is_selector && a.mask() & tested == 0 {
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
    for ((enum_name, name), item) in &table {
        let ItemKind::Band { enum_name: en, .. } = &item.kind else { unreachable!() };
        let Some(eid) = enums.iter().position(|e| &e.name == enum_name) else {
            cx.error(Diagnostic::error(en.span, format!("unknown enum '{enum_name}'")));
            continue;
        };
        let mut stack = vec![name.clone()];
        let Some(ranges) = expand(cx, &table, enum_name, item, &enums[eid], &mut stack) else {
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

/// The merged ranges of a band, following references to other bands.
fn expand(
    cx: &mut Cx<'_>,
    table: &BTreeMap<(String, String), &ast::Item>,
    enum_name: &str,
    item: &ast::Item,
    e: &Enum,
    stack: &mut Vec<String>,
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
                if stack.contains(&b.name) {
                    cx.error(Diagnostic::error(
                        b.span,
                        format!(
                            "band '{}' includes itself: {} -> {}",
                            b.name,
                            stack.join(" -> "),
                            b.name
                        ),
                    ));
                    ok = false;
                    continue;
                }
                match table.get(&(enum_name.to_string(), b.name.clone())) {
                    Some(other) => {
                        stack.push(b.name.clone());
                        match expand(cx, table, enum_name, other, e, stack) {
                            Some(r) => ranges.extend(r),
                            None => ok = false,
                        }
                        stack.pop();
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
