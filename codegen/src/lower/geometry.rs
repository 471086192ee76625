//! Geometry: the schema from `.isa` (types, derived expressions, rules) and the values
//! of each `arch/*.toml`, with inheritance resolved and derived values checked.

use std::collections::BTreeMap;

use super::meta::meta;
use super::{suggest, Cx};
use crate::diagnostic::Diagnostic;
use crate::geometry_toml::ArchFile;
use crate::model::*;
use crate::source::{FileId, Span};
use crate::syntax::ast::{self, ExprAst, GeomTypeRef, ItemKind, ValueRef};

/// An arch file after its identity was checked, before its values are.
pub(super) struct RawArch {
    file: FileId,
    data: ArchFile,
    name_span: Span,
}

fn span_of<T>(file: FileId, s: &toml::Spanned<T>) -> Span {
    let r = s.span();
    Span::new(file, r.start, r.end)
}

/// Register every arch's names (for `@archs`) and sort archs by generation.
pub(super) fn declare_archs(cx: &mut Cx<'_>, files: Vec<(FileId, ArchFile)>) -> Vec<RawArch> {
    let mut raws: Vec<RawArch> = files
        .into_iter()
        .map(|(file, data)| RawArch { file, name_span: span_of(file, &data.name), data })
        .collect();
    raws.sort_by(|a, b| {
        (*a.data.generation.get_ref(), a.data.name.get_ref())
            .cmp(&(*b.data.generation.get_ref(), b.data.name.get_ref()))
    });
    let mut generations: BTreeMap<u32, Span> = BTreeMap::new();
    let mut seen: BTreeMap<String, Span> = BTreeMap::new();
    for (i, r) in raws.iter().enumerate() {
        let g = *r.data.generation.get_ref();
        let gspan = span_of(r.file, &r.data.generation);
        if let Some(first) = generations.get(&g) {
            cx.error(
                Diagnostic::error(gspan, format!("two archs have generation {g}"))
                    .with(*first, "the other one")
                    .note("the generation orders archs for @archs(a..b)"),
            );
        }
        generations.insert(g, gspan);
        let names = std::iter::once((&r.data.name, "name"))
            .chain(std::iter::once((&r.data.label, "label")))
            .chain(r.data.aliases.iter().map(|a| (a, "alias")));
        for (n, _) in names {
            let key = n.get_ref().to_ascii_lowercase();
            let s = span_of(r.file, n);
            if cx.arch_names.get(&key) == Some(&ArchId(i as u32)) {
                continue; // an alias repeating the arch's own name or label
            }
            if let Some(first) = seen.get(&key) {
                cx.error(
                    Diagnostic::error(s, format!("arch name '{}' is used twice", n.get_ref()))
                        .with(*first, "first used here"),
                );
                continue;
            }
            seen.insert(key.clone(), s);
            cx.arch_names.insert(key, ArchId(i as u32));
        }
        cx.arch_list.push(r.data.name.get_ref().clone());
    }
    raws
}

pub(super) fn schema(cx: &mut Cx<'_>, items: &[&ast::Item], enums: &[Enum]) -> Vec<GeomItem> {
    let mut names: BTreeMap<&str, (usize, Span)> = BTreeMap::new();
    for (i, item) in items.iter().enumerate() {
        if let Some((_, first)) = names.get(item.name.name.as_str()) {
            cx.error(
                Diagnostic::error(
                    item.name.span,
                    format!("duplicate geometry name '{}'", item.name.name),
                )
                .with(*first, "first declared here"),
            );
            continue;
        }
        names.insert(&item.name.name, (i, item.name.span));
    }
    let mut out = Vec::new();
    for item in items {
        let mut m = meta(cx, &item.ann, item.name.span);
        // An `@archs` in error (reported) is read as none: the item is then checked on
        // every generation, so the values the arch files give it are not errors too,
        // nor the derived values that need them.
        if m.archs_span.is_some_and(|s| cx.bad_archs.contains(&s)) {
            m.archs = None;
        }
        let kind = match &item.kind {
            ItemKind::Geometry { ty } => geom_type(cx, ty, enums).map(GeomKind::Value),
            ItemKind::Derived { ty, expr } => {
                let ty = geom_type(cx, ty, enums);
                let e = expr_of(cx, expr, items, &names, &[]);
                if let Some(t) = &ty {
                    if !matches!(t.strip_optional(), GeomType::Int(_)) {
                        cx.error(Diagnostic::error(
                            item.name.span,
                            "a derived value must be an integer",
                        ));
                    }
                }
                match (ty, e) {
                    (Some(t), Some(e)) => Some(GeomKind::Derived(t, e)),
                    _ => None,
                }
            }
            ItemKind::Rule { params, expr, requires } => {
                let mut pnames: Vec<&str> = Vec::new();
                for p in params {
                    if pnames.contains(&p.name.as_str()) {
                        cx.error(Diagnostic::error(
                            p.span,
                            format!("duplicate parameter '{}'", p.name),
                        ));
                    }
                    if names.contains_key(p.name.as_str()) {
                        cx.error(Diagnostic::error(
                            p.span,
                            format!(
                                "parameter '{}' shadows the geometry value of the same name",
                                p.name
                            ),
                        ));
                    }
                    pnames.push(&p.name);
                }
                if params.len() > 4 {
                    cx.error(Diagnostic::error(
                        item.name.span,
                        "a rule takes at most four parameters",
                    ));
                }
                let e = expr_of(cx, expr, items, &names, &pnames);
                let conds: Vec<Option<Cond>> = requires
                    .iter()
                    .map(|c| {
                        let lhs = expr_of(cx, &c.lhs, items, &names, &pnames)?;
                        let rhs = expr_of(cx, &c.rhs, items, &names, &pnames)?;
                        let text = cx.text(c.span).split_whitespace().collect::<Vec<_>>().join(" ");
                        Some(Cond { lhs, op: c.op, rhs, text })
                    })
                    .collect();
                match (e, conds.into_iter().collect::<Option<Vec<_>>>()) {
                    (Some(expr), Some(requires)) => Some(GeomKind::Rule {
                        params: params.iter().map(|p| p.name.clone()).collect(),
                        expr,
                        requires,
                    }),
                    _ => None,
                }
            }
            _ => unreachable!("not a geometry item"),
        };
        // Keep ids aligned with `names` even when an item fails: a placeholder keeps
        // its slot, and the error already recorded stops the model from being used.
        let kind = kind.unwrap_or(GeomKind::Value(GeomType::Int(Prim::U32)));
        out.push(GeomItem { name: item.name.name.clone(), rust: String::new(), kind, meta: m });
    }
    check_derived_cycles(cx, &out, items);
    out
}

fn geom_type(cx: &mut Cx<'_>, t: &GeomTypeRef, enums: &[Enum]) -> Option<GeomType> {
    let (base, optional) = match t {
        GeomTypeRef::Named(id, opt) => {
            let b = if id.name == "bool" {
                GeomType::Bool
            } else if let Some(p) = Prim::parse(&id.name) {
                GeomType::Int(p)
            } else {
                cx.error(
                    Diagnostic::error(id.span, format!("unknown geometry type '{}'", id.name))
                        .note("geometry values are integers (u8..i64), bool, or arrays of those"),
                );
                return None;
            };
            (b, *opt)
        }
        GeomTypeRef::Array(elem, len, opt, _) => {
            let e = geom_type(cx, elem, enums)?;
            let len = match len {
                None => ArrayLen::Unsized,
                Some(ValueRef::Int(n)) => match u32::try_from(n.value) {
                    Ok(n) if n > 0 => ArrayLen::Fixed(n),
                    _ => {
                        cx.error(Diagnostic::error(
                            n.span,
                            "a table needs a length between 1 and 2^32",
                        ));
                        return None;
                    }
                },
                Some(ValueRef::Name(id)) => {
                    let Some(eid) = enums.iter().position(|e| e.name == id.name) else {
                        cx.error(Diagnostic::error(id.span, format!("unknown enum '{}'", id.name)));
                        return None;
                    };
                    let e = &enums[eid];
                    let dense = e.variants.iter().enumerate().all(|(i, v)| v.value == i as u64);
                    if !dense || e.variants.is_empty() {
                        cx.error(Diagnostic::error(
                            id.span,
                            format!(
                                "a table indexed by '{}' needs its values to be 0..n without gaps",
                                id.name
                            ),
                        ));
                        return None;
                    }
                    ArrayLen::Enum(EnumId(eid as u32), e.variants.len() as u32)
                }
            };
            (GeomType::Array(Box::new(e), len), *opt)
        }
    };
    Some(if optional { GeomType::Optional(Box::new(base)) } else { base })
}

fn expr_of(
    cx: &mut Cx<'_>,
    e: &ExprAst,
    items: &[&ast::Item],
    names: &BTreeMap<&str, (usize, Span)>,
    params: &[&str],
) -> Option<Expr> {
    match e {
        ExprAst::Int(i) => match i128::try_from(i.value) {
            Ok(v) => Some(Expr::Int(v)),
            Err(_) => {
                cx.error(Diagnostic::error(i.span, "literal too large"));
                None
            }
        },
        ExprAst::Name(id) => {
            if let Some(p) = params.iter().position(|p| *p == id.name) {
                return Some(Expr::Param(p as u32));
            }
            match names.get(id.name.as_str()) {
                Some((idx, def)) => {
                    let ok = match &items[*idx].kind {
                        ItemKind::Geometry { ty } | ItemKind::Derived { ty, .. } => scalar_int(ty),
                        _ => false,
                    };
                    if !ok {
                        cx.error(
                            Diagnostic::error(
                                id.span,
                                format!("'{}' is not an integer value; expressions use integer geometry values", id.name),
                            )
                            .with(*def, "declared here"),
                        );
                        return None;
                    }
                    Some(Expr::Value(GeomId(*idx as u32)))
                }
                None => {
                    let mut d = Diagnostic::error(
                        id.span,
                        format!("unknown name '{}' in expression", id.name),
                    );
                    let cands: Vec<&str> =
                        names.keys().copied().chain(params.iter().copied()).collect();
                    if let Some(s) = suggest(&id.name, cands) {
                        d = d.note(s);
                    }
                    cx.error(d);
                    None
                }
            }
        }
        ExprAst::Binary(op, l, r, _) => {
            let l = expr_of(cx, l, items, names, params);
            let r = expr_of(cx, r, items, names, params);
            Some(Expr::Binary(*op, Box::new(l?), Box::new(r?)))
        }
    }
}

fn scalar_int(t: &GeomTypeRef) -> bool {
    match t {
        GeomTypeRef::Named(id, _) => Prim::parse(&id.name).is_some(),
        GeomTypeRef::Array(..) => false,
    }
}

fn check_derived_cycles(cx: &mut Cx<'_>, out: &[GeomItem], items: &[&ast::Item]) {
    fn refs(e: &Expr, acc: &mut Vec<usize>) {
        match e {
            Expr::Value(g) => acc.push(g.0 as usize),
            Expr::Binary(_, l, r) => {
                refs(l, acc);
                refs(r, acc);
            }
            Expr::Int(_) | Expr::Param(_) => {}
        }
    }
    let succ = |i: usize| {
        let mut acc = Vec::new();
        if let GeomKind::Derived(_, e) = &out[i].kind {
            refs(e, &mut acc);
        }
        acc
    };
    for cycle in super::cycles::cycles(out.len(), succ) {
        let first = cycle[0];
        let names: Vec<&str> = cycle.iter().map(|&c| out[c].name.as_str()).collect();
        cx.error(Diagnostic::error(
            items[first].name.span,
            format!(
                "derived '{}' depends on itself: {} -> {}",
                out[first].name,
                names.join(" -> "),
                names[0]
            ),
        ));
    }
}

/// Why an expression has no value.
enum EvalError {
    Unknown(GeomId),
    DivZero,
    Overflow,
}

fn eval(
    e: &Expr,
    value: &dyn Fn(GeomId) -> Option<i128>,
    params: &[i128],
) -> Result<i128, EvalError> {
    Ok(match e {
        Expr::Int(v) => *v,
        Expr::Value(g) => value(*g).ok_or(EvalError::Unknown(*g))?,
        Expr::Param(p) => params[*p as usize],
        Expr::Binary(op, l, r) => {
            let (l, r) = (eval(l, value, params)?, eval(r, value, params)?);
            if matches!(op, BinOp::Div | BinOp::Rem) && r == 0 {
                return Err(EvalError::DivZero);
            }
            let res = op.apply(l, r);
            res.ok_or(EvalError::Overflow)?
        }
    })
}

/// The expression with each value replaced by its number, for messages.
fn substitute(e: &Expr, value: &dyn Fn(GeomId) -> Option<i128>) -> String {
    e.render(&|leaf| match leaf {
        Expr::Value(g) => value(*g).map_or_else(|| "?".to_string(), |v| v.to_string()),
        other => spell_leaf(other, None),
    })
}

/// The spelled-out expression, for messages.
fn spell(e: &Expr, geometry: &[GeomItem]) -> String {
    e.render(&|leaf| spell_leaf(leaf, Some(geometry)))
}

fn spell_leaf(e: &Expr, geometry: Option<&[GeomItem]>) -> String {
    match (e, geometry) {
        (Expr::Int(v), _) => v.to_string(),
        (Expr::Value(g), Some(geo)) => geo[g.0 as usize].name.clone(),
        (Expr::Param(p), _) => format!("${p}"),
        _ => "?".to_string(),
    }
}

pub(super) fn archs(cx: &mut Cx<'_>, raws: Vec<RawArch>, geometry: &[GeomItem]) -> Vec<Arch> {
    let n = raws.len();
    // Parents first: resolve `inherits` into indices, rejecting unknown parents and cycles.
    let mut parent: Vec<Option<usize>> = vec![None; n];
    // An arch whose `inherits` is in error (unknown, a cycle, an unknown geometry, or
    // a parent so broken): the values it lacks are that error's, not reported again.
    let mut broken = vec![false; n];
    for (i, r) in raws.iter().enumerate() {
        if let Some(p) = &r.data.inherits {
            match raws.iter().position(|o| o.data.name.get_ref() == p.get_ref()) {
                Some(j) => parent[i] = Some(j),
                None => {
                    broken[i] = true;
                    let mut d = Diagnostic::error(
                        span_of(r.file, p),
                        format!(
                            "'{}' inherits unknown arch '{}'",
                            r.data.name.get_ref(),
                            p.get_ref()
                        ),
                    );
                    if let Some(s) =
                        suggest(p.get_ref(), raws.iter().map(|o| o.data.name.get_ref().as_str()))
                    {
                        d = d.note(s);
                    }
                    cx.error(d);
                }
            }
        }
    }
    let mut in_cycle = vec![false; n];
    for cycle in super::cycles::cycles(n, |i| parent[i].into_iter().collect()) {
        let start = cycle[0];
        let names: Vec<&str> =
            cycle.iter().map(|&c| raws[c].data.name.get_ref().as_str()).collect();
        let r = &raws[start];
        let s = r.data.inherits.as_ref().map_or(r.name_span, |p| span_of(r.file, p));
        cx.error(Diagnostic::error(
            s,
            format!("inheritance cycle: {} -> {}", names.join(" -> "), names[0]),
        ));
        for &c in &cycle {
            in_cycle[c] = true;
        }
    }
    for i in 0..n {
        if in_cycle[i] {
            parent[i] = None;
            broken[i] = true;
        }
    }
    let mut order: Vec<usize> = Vec::new();
    fn place(i: usize, parent: &[Option<usize>], order: &mut Vec<usize>) {
        if order.contains(&i) {
            return;
        }
        if let Some(p) = parent[i] {
            place(p, parent, order);
        }
        order.push(i);
    }
    for i in 0..n {
        place(i, &parent, &mut order);
    }

    let known: Vec<bool> = raws.iter().map(|r| geometry_known(cx, r)).collect();
    for (i, r) in raws.iter().enumerate() {
        if let (Some(p), Some(span)) = (parent[i], r.data.inherits.as_ref()) {
            if !known[p] {
                broken[i] = true;
                cx.error(
                    Diagnostic::error(
                        span_of(r.file, span),
                        format!(
                            "'{}' inherits '{}', whose geometry is unknown",
                            r.data.name.get_ref(),
                            raws[p].data.name.get_ref()
                        ),
                    )
                    .note("an unknown geometry has no values to inherit"),
                );
            }
        }
    }
    let mut values: Vec<Vec<Option<ArchValue>>> = vec![vec![None; geometry.len()]; n];
    let mut stated: Vec<BTreeMap<usize, (i128, Span)>> = vec![BTreeMap::new(); n];
    // Per arch, the values given but in error (reported there): a child that inherits
    // one lacks it for that error's reason, not reported again.
    let mut invalid: Vec<std::collections::BTreeSet<usize>> = vec![Default::default(); n];
    for &i in &order {
        if !known[i] {
            continue;
        }
        if let Some(p) = parent[i] {
            broken[i] |= broken[p];
            values[i] = values[p].clone();
            stated[i] = stated[p].clone();
            invalid[i] = invalid[p].clone();
            for (g, item) in geometry.iter().enumerate() {
                // Not inherited: values outside the item's @archs, and derived values
                // computed (not stated) for the parent: they are recomputed here.
                let computed = matches!(item.kind, GeomKind::Derived(..))
                    && values[i][g].as_ref().is_some_and(|v| !v.stated);
                if !item.meta.available_on(ArchId(i as u32)) || computed {
                    values[i][g] = None;
                    stated[i].remove(&g);
                }
            }
        }
        let r = &raws[i];
        for (key, entry) in &r.data.values {
            let kspan = span_of(r.file, key);
            let Some(g) = geometry.iter().position(|g| &g.name == key.get_ref()) else {
                let mut d =
                    Diagnostic::error(kspan, format!("unknown geometry key '{}'", key.get_ref()))
                        .label("not declared in the geometry schema");
                d = match suggest(key.get_ref(), geometry.iter().map(|g| g.name.as_str())) {
                    Some(s) => d.note(s),
                    None => d.note("declare it in isa/geometry.isa: 'geometry NAME : TYPE'"),
                };
                cx.error(d);
                continue;
            };
            let e = entry.get_ref();
            let vspan = span_of(r.file, &e.value);
            let gm = &geometry[g].meta;
            if !gm.available_on(ArchId(i as u32)) {
                cx.error(
                    Diagnostic::error(
                        kspan,
                        format!(
                            "'{}' is not available on {}, so its arch file cannot give it",
                            key.get_ref(),
                            r.data.name.get_ref()
                        ),
                    )
                    .with(gm.archs_span.unwrap_or(gm.span), "its @archs is declared here"),
                );
                continue;
            }
            let mut m = Meta::at(kspan);
            m.sources = match &e.source {
                crate::geometry_toml::Sources::None => Vec::new(),
                crate::geometry_toml::Sources::One(s) => vec![s.clone()],
                crate::geometry_toml::Sources::Many(v) => v.clone(),
            };
            if m.sources.iter().all(|s| s.trim().is_empty()) {
                cx.error(
                    Diagnostic::error(
                        kspan,
                        format!(
                            "value '{}' of arch '{}' has no source",
                            key.get_ref(),
                            r.data.name.get_ref()
                        ),
                    )
                    .note("every fact carries its provenance: add source = [\"symbol @address\"]"),
                );
            }
            if let Some(c) = &e.confidence {
                match Confidence::parse(c.get_ref()) {
                    Some(c) => m.confidence = c,
                    None => cx.error(
                        Diagnostic::error(
                            span_of(r.file, c),
                            format!("unknown confidence '{}'", c.get_ref()),
                        )
                        .note("expected certain, medium or inferred"),
                    ),
                }
            }
            m.docs = e
                .doc
                .as_deref()
                .map(|d| d.lines().map(str::to_string).collect())
                .unwrap_or_default();
            match &geometry[g].kind {
                GeomKind::Rule { .. } => cx.error(Diagnostic::error(
                    kspan,
                    format!(
                        "'{}' is a rule; arch files give values, rules compute from them",
                        key.get_ref()
                    ),
                )),
                GeomKind::Value(t) => match convert(cx, e.value.get_ref(), t, vspan, key.get_ref())
                {
                    Some(v) => {
                        values[i][g] = Some(ArchValue {
                            value: v,
                            meta: m,
                            defined_in: ArchId(i as u32),
                            stated: false,
                            literal: Some(cx.text(vspan).to_string()),
                        });
                    }
                    None => {
                        invalid[i].insert(g);
                    }
                },
                GeomKind::Derived(t, _) => {
                    if let Some(Value::Int(v)) =
                        convert(cx, e.value.get_ref(), t, vspan, key.get_ref())
                    {
                        stated[i].insert(g, (v, vspan));
                        values[i][g] = Some(ArchValue {
                            value: Value::Int(v),
                            meta: m,
                            defined_in: ArchId(i as u32),
                            stated: true,
                            literal: Some(cx.text(vspan).to_string()),
                        });
                    }
                }
            }
        }
        // Required values.
        for (g, item) in geometry.iter().enumerate() {
            if let GeomKind::Value(t) = &item.kind {
                if values[i][g].is_none()
                    && !t.is_optional()
                    && !broken[i]
                    && !invalid[i].contains(&g)
                    && item.meta.available_on(ArchId(i as u32))
                {
                    cx.error(
                        Diagnostic::error(
                            r.name_span,
                            format!(
                                "arch '{}' gives no value for '{}'",
                                r.data.name.get_ref(),
                                item.name
                            ),
                        )
                        .with(item.meta.span, "declared here")
                        .note(format!(
                            "add [values.{}] to the arch file, or make the type optional ('{}?')",
                            item.name, "T"
                        )),
                    );
                }
            }
        }
        // Derived values, in dependency order (evaluate lazily with memo).
        let arch_name = r.data.name.get_ref().clone();
        let mut done = vec![false; geometry.len()];
        for g in 0..geometry.len() {
            derive(
                cx,
                geometry,
                &mut values[i],
                &stated[i],
                g,
                &arch_name,
                r.name_span,
                i,
                &mut done,
                &mut Vec::new(),
            );
        }
        rule_divisors(cx, geometry, &values[i], &arch_name, i);
    }

    raws.into_iter()
        .enumerate()
        .zip(values)
        .map(|((i, r), vals)| {
            let mut m = Meta::at(r.name_span);
            m.sources = r.data.source.into_vec();
            m.docs = r
                .data
                .doc
                .as_deref()
                .map(|d| d.lines().map(str::to_string).collect())
                .unwrap_or_default();
            if let Some(c) = &r.data.confidence {
                match Confidence::parse(c.get_ref()) {
                    Some(c) => m.confidence = c,
                    None => cx.error(Diagnostic::error(
                        span_of(r.file, c),
                        format!("unknown confidence '{}'", c.get_ref()),
                    )),
                }
            }
            Arch {
                name: r.data.name.into_inner(),
                generation: r.data.generation.into_inner(),
                label: r.data.label.into_inner(),
                aliases: r.data.aliases.into_iter().map(toml::Spanned::into_inner).collect(),
                inherits: parent[i].map(|p| ArchId(p as u32)),
                geometry_known: known[i],
                meta: m,
                values: vals,
            }
        })
        .collect()
}

/// Whether the arch file gives a geometry: `geometry = "unknown"` says no source does,
/// and then the file may give no values and inherit none.
fn geometry_known(cx: &mut Cx<'_>, r: &RawArch) -> bool {
    let Some(g) = &r.data.geometry else { return true };
    if g.get_ref() != "unknown" {
        cx.error(
            Diagnostic::error(span_of(r.file, g), format!("unknown geometry state '{}'", g.get_ref()))
                .note("write geometry = \"unknown\" for a generation whose geometry no source gives, or leave it out"),
        );
        // Read the file as what its contents say it meant, so the one mistake is the
        // one diagnostic: values given, a known geometry; none, an unknown one.
        return !r.data.values.is_empty();
    }
    if let Some(p) = &r.data.inherits {
        cx.error(
            Diagnostic::error(span_of(r.file, p), "an arch with an unknown geometry inherits none")
                .with(span_of(r.file, g), "the geometry is unknown here"),
        );
    }
    for key in r.data.values.keys() {
        cx.error(
            Diagnostic::error(
                span_of(r.file, key),
                format!(
                    "'{}' is given, but the geometry of '{}' is declared unknown",
                    key.get_ref(),
                    r.data.name.get_ref()
                ),
            )
            .with(span_of(r.file, g), "declared unknown here"),
        );
    }
    false
}

/// Compute derived item `g` for one arch (dependencies first) and check a stated value.
#[allow(clippy::too_many_arguments)]
fn derive(
    cx: &mut Cx<'_>,
    geometry: &[GeomItem],
    values: &mut Vec<Option<ArchValue>>,
    stated: &BTreeMap<usize, (i128, Span)>,
    g: usize,
    arch: &str,
    arch_span: Span,
    arch_id: usize,
    done: &mut Vec<bool>,
    visiting: &mut Vec<usize>,
) {
    let GeomKind::Derived(ty, expr) = &geometry[g].kind else { return };
    // Cycles are reported by the schema check; here they only stop the recursion.
    if done[g] || visiting.contains(&g) {
        return;
    }
    visiting.push(g);
    // Dependencies first.
    let mut deps = Vec::new();
    collect(expr, &mut deps);
    for d in deps {
        derive(cx, geometry, values, stated, d, arch, arch_span, arch_id, done, visiting);
    }
    visiting.pop();
    done[g] = true;
    let lookup = |id: GeomId| {
        values.get(id.0 as usize).and_then(|v| v.as_ref()).and_then(|v| v.value.as_int())
    };
    let item = &geometry[g];
    let computed = eval(expr, &lookup, &[]);
    let prim = match ty.strip_optional() {
        GeomType::Int(p) => *p,
        _ => Prim::U64,
    };
    let value = match computed {
        Ok(v) if prim.fits(v) => Value::Int(v),
        Ok(v) => {
            // At the declaration, where the fix goes (as for a division by zero), with
            // the generation whose values give it.
            cx.error(
                Diagnostic::error(
                    item.meta.span,
                    format!(
                        "derived '{}' is {v} on {arch}, which does not fit {}",
                        item.name,
                        prim.as_str()
                    ),
                )
                .with(arch_span, format!("the values of {arch}")),
            );
            return;
        }
        Err(EvalError::Unknown(dep)) => {
            // A required value missing here, or a derived one that failed (a cycle
            // included), has its own diagnostic already: this one would only follow.
            let d = &geometry[dep.0 as usize];
            let reported = match &d.kind {
                GeomKind::Value(t) => {
                    !t.is_optional() && d.meta.available_on(ArchId(arch_id as u32))
                }
                GeomKind::Derived(..) => values[dep.0 as usize].is_none(),
                GeomKind::Rule { .. } => false,
            };
            if !ty.is_optional() {
                if !reported {
                    cx.error(
                        Diagnostic::error(
                            arch_span,
                            format!(
                                "derived '{}' cannot be computed on {arch}: '{}' has no value",
                                item.name, geometry[dep.0 as usize].name
                            ),
                        )
                        .with(item.meta.span, "declared here"),
                    );
                }
                // No value: what depends on this one is not reported either.
                return;
            }
            Value::Unknown
        }
        Err(EvalError::DivZero) => {
            cx.error(Diagnostic::error(
                item.meta.span,
                format!("derived '{}' divides by zero on {arch}", item.name),
            ));
            return;
        }
        Err(EvalError::Overflow) => {
            cx.error(Diagnostic::error(
                item.meta.span,
                format!("derived '{}' overflows on {arch}", item.name),
            ));
            return;
        }
    };
    if let (Some((s, sspan)), Value::Int(v)) = (stated.get(&g), &value) {
        if s != v {
            cx.error(
                Diagnostic::error(
                    *sspan,
                    format!(
                        "derived '{}' = {} = {} = {v} on {arch}, but the arch file states {s}",
                        item.name,
                        spell(expr, geometry),
                        substitute(expr, &lookup)
                    ),
                )
                .label(format!("stated {s}"))
                .with(item.meta.span, "derived here"),
            );
        }
    }
    let (meta, defined_in, was_stated, literal) = match values[g].take() {
        Some(v) if v.stated => (v.meta, v.defined_in, true, v.literal),
        _ => (item.meta.clone(), ArchId(arch_id as u32), false, None),
    };
    values[g] = Some(ArchValue { value, meta, defined_in, stated: was_stated, literal });
}

/// A rule that divides by a part of its expression that holds no parameter and is zero
/// on `arch`: it could only ever fail there (as a derived value that does is an error).
fn rule_divisors(
    cx: &mut Cx<'_>,
    geometry: &[GeomItem],
    values: &[Option<ArchValue>],
    arch: &str,
    arch_id: usize,
) {
    let lookup = |id: GeomId| {
        values.get(id.0 as usize).and_then(|v| v.as_ref()).and_then(|v| v.value.as_int())
    };
    for item in geometry {
        let GeomKind::Rule { expr, .. } = &item.kind else { continue };
        if !item.meta.available_on(ArchId(arch_id as u32)) {
            continue;
        }
        let mut divisors = Vec::new();
        constant_divisors(expr, &mut divisors);
        if divisors.iter().any(|d| matches!(eval(d, &lookup, &[]), Ok(0))) {
            cx.error(Diagnostic::error(
                item.meta.span,
                format!("rule '{}' divides by zero on {arch} whatever its arguments", item.name),
            ));
        }
    }
}

/// The right-hand sides of `/` and `%` in `e` that hold no parameter.
fn constant_divisors<'e>(e: &'e Expr, acc: &mut Vec<&'e Expr>) {
    if let Expr::Binary(op, l, r) = e {
        if matches!(op, BinOp::Div | BinOp::Rem) && !has_param(r) {
            acc.push(r);
        }
        constant_divisors(l, acc);
        constant_divisors(r, acc);
    }
}

fn has_param(e: &Expr) -> bool {
    match e {
        Expr::Param(_) => true,
        Expr::Binary(_, l, r) => has_param(l) || has_param(r),
        _ => false,
    }
}

fn collect(e: &Expr, acc: &mut Vec<usize>) {
    match e {
        Expr::Value(g) => acc.push(g.0 as usize),
        Expr::Binary(_, l, r) => {
            collect(l, acc);
            collect(r, acc);
        }
        _ => {}
    }
}

/// Check a TOML value against a geometry type.
fn convert(cx: &mut Cx<'_>, v: &toml::Value, t: &GeomType, span: Span, key: &str) -> Option<Value> {
    fn go(v: &toml::Value, t: &GeomType, path: &str) -> Result<Value, String> {
        match t {
            GeomType::Optional(inner) => match v {
                toml::Value::String(s) if s == "?" => Ok(Value::Unknown),
                _ => go(v, inner, path),
            },
            GeomType::Int(p) => match v {
                toml::Value::Integer(i) if p.fits(i128::from(*i)) => Ok(Value::Int(i128::from(*i))),
                toml::Value::Integer(i) if *i < 0 => {
                    Err(format!("{path}{i} does not fit {}", p.as_str()))
                }
                toml::Value::Integer(i) => Err(format!("{path}{i:#x} does not fit {}", p.as_str())),
                toml::Value::String(s) if s == "?" => Err(format!(
                    "{path}\"?\" is not allowed: the type is {}, not {}?",
                    p.as_str(),
                    p.as_str()
                )),
                other => Err(format!("{path}expected {}, found {}", p.as_str(), other.type_str())),
            },
            GeomType::Bool => match v {
                toml::Value::Boolean(b) => Ok(Value::Bool(*b)),
                other => Err(format!("{path}expected bool, found {}", other.type_str())),
            },
            GeomType::Array(elem, len) => match v {
                toml::Value::Array(items) => {
                    if let Some(n) = len.count() {
                        if items.len() != n as usize {
                            return Err(format!(
                                "{path}expected {n} entries, found {}",
                                items.len()
                            ));
                        }
                    }
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, x)| go(x, elem, &format!("{path}entry {i}: ")))
                        .collect::<Result<Vec<_>, _>>()
                        .map(Value::Array)
                }
                other => Err(format!("{path}expected an array, found {}", other.type_str())),
            },
        }
    }
    match go(v, t, "") {
        Ok(v) => Some(v),
        Err(msg) => {
            cx.error(Diagnostic::error(span, format!("value of '{key}': {msg}")));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::lower::test_support::{errors, model};

    const SCHEMA: &str = "enum OPCODE : u8 {}\nrecord R : 1 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\ngeometry n : u32\nderived d : u32 = n * 2\n";
    const KNOWN: &str =
        "name = \"a\"\ngeneration = 1\nlabel = \"V1\"\n\n[values.n]\nvalue = 3\nsource = [\"s\"]\n";
    const UNKNOWN: &str = "name = \"b\"\ngeneration = 2\nlabel = \"V2\"\ngeometry = \"unknown\"\nsource = [\"none gives it\"]\n";

    /// An unknown geometry has no values, not even derived ones, and needs none of the
    /// required ones; a known one beside it is computed as usual.
    #[test]
    fn unknown_geometry_has_no_values() {
        let m = model(SCHEMA, &[("isa/arch/a.toml", KNOWN), ("isa/arch/b.toml", UNKNOWN)]);
        let (a, b) = (&m[m.arch_named("a").unwrap()], &m[m.arch_named("b").unwrap()]);
        assert!(a.geometry_known && !b.geometry_known);
        let d = m.geom_named("d").unwrap();
        assert_eq!(a.value(d).and_then(|v| v.value.as_int()), Some(6));
        assert!(b.values.iter().all(Option::is_none));
        assert_eq!(b.meta.sources, ["none gives it"]);
    }

    /// A rule whose divisor holds no parameter and is zero on a generation could only
    /// fail there: an error, as for a derived value (it was accepted, and the generated
    /// rule returned `OutOfRange` for every argument).
    #[test]
    fn a_rule_dividing_by_a_constant_zero_is_an_error() {
        let arch = [("isa/arch/a.toml", KNOWN)];
        for (rule, bad) in [
            ("rule r(i) = i / (n - 3)\n", true),
            ("rule r(i) = i % 0\n", true),
            ("rule r(i) = n / (i - 3)\n", false),
            ("rule r(i) = i / n\n", false),
        ] {
            let spec = format!("{SCHEMA}{rule}");
            if bad {
                let e = errors(&spec, &arch);
                assert_eq!(e, ["rule 'r' divides by zero on a whatever its arguments"], "{rule}");
            } else {
                model(&spec, &arch);
            }
        }
    }

    /// A derived value that does not fit its type is reported at its declaration (where
    /// a division by zero is too), with the generation's file as a label.
    #[test]
    fn a_derived_value_too_wide_is_reported_at_its_declaration() {
        use crate::lower::test_support::load;
        let schema = SCHEMA.replace("derived d : u32 = n * 2", "derived d : u32 = n - 4");
        let f = load(&schema, &[("isa/arch/a.toml", KNOWN)]).unwrap_err();
        let d = &f.diagnostics.0[0];
        assert_eq!(d.message, "derived 'd' is -1 on a, which does not fit u32");
        assert!(f.sources.file(d.span.file).path.ends_with("x.isa"));
    }

    #[test]
    fn a_known_geometry_still_needs_its_values() {
        let e = errors(
            SCHEMA,
            &[("isa/arch/a.toml", "name = \"a\"\ngeneration = 1\nlabel = \"V1\"\n")],
        );
        assert_eq!(e, ["arch 'a' gives no value for 'n'"]);
    }

    const CHILD: &str = "name = \"c\"\ngeneration = 2\nlabel = \"V2\"\ninherits = \"a\"\n";

    /// A value in error is reported where it is given, once: an arch inheriting it
    /// does not also "give no value" for it; a negative number reads as negative.
    #[test]
    fn an_invalid_value_is_reported_once_where_given() {
        let bad = KNOWN.replace("value = 3", "value = -4");
        let e = errors(SCHEMA, &[("isa/arch/a.toml", &bad), ("isa/arch/c.toml", CHILD)]);
        assert_eq!(e, ["value of 'n': -4 does not fit u32"]);
        let bad = KNOWN.replace("value = 3", "value = \"four\"");
        let e = errors(SCHEMA, &[("isa/arch/a.toml", &bad), ("isa/arch/c.toml", CHILD)]);
        assert_eq!(e, ["value of 'n': expected u32, found string"]);
    }

    /// A geometry item whose `@archs` names an unknown arch is one error: the arch files
    /// that give it a value are not also told it is not available on them.
    #[test]
    fn an_unknown_arch_in_an_items_archs_is_the_one_error() {
        let schema = SCHEMA.replace("geometry n : u32", "@archs(aa..)\ngeometry n : u32?");
        let e = errors(&schema, &[("isa/arch/a.toml", KNOWN), ("isa/arch/c.toml", CHILD)]);
        assert_eq!(e, ["unknown arch 'aa'"]);
    }

    /// An `inherits` of an arch that does not exist is the one error: the values the
    /// child would have inherited are not each reported missing.
    #[test]
    fn an_unknown_parent_is_the_one_error() {
        let child = CHILD.replace("\"a\"\n", "\"aa\"\n");
        let e = errors(SCHEMA, &[("isa/arch/a.toml", KNOWN), ("isa/arch/c.toml", &child)]);
        assert_eq!(e, ["'c' inherits unknown arch 'aa'"]);
    }
}
