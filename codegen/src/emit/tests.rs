//! `tests/generated/*.rs`: tables of the generated crate's facts, derived from the model
//! and not from the generated code, that one generic checker in `tests/generated.rs`
//! runs (point 16 of the style: data per arm, code once).
//!
//! Each row names the generated items it exercises and the expectation the model gives
//! (a field's byte range, a bit-field's bit range, a rule's result); the checker calls
//! the generated crate and compares. Nothing here compares a generated constant with
//! itself: a layout, bit range or rule change in the emitters without the model, or the
//! reverse, fails.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use crate::model::*;

use super::arch_set::arch_variant;
use super::names;
use super::tokens::{hex, signed, usize_lit};
use super::{ArmCursor, Chunks, Whole};

/// The generated test modules: `(file stem, one-line doc, chunks of tokens)` (see
/// `emit::render`).
pub fn emit(model: &Model) -> Vec<(&'static str, &'static str, Box<dyn Chunks + '_>)> {
    vec![
        (
            "arms",
            "Every layout of every arm: its generations, and each field's byte range.",
            Box::new(ArmRows { model, next: ArmCursor::default(), names: Vec::new() }),
        ),
        ("bits", "Every bit-field of every operand type, with its bit range.", Box::new(Whole(bits(model)))),
        (
            "unions",
            "Every view of every union, with the generations it exists on and how it is chosen.",
            Box::new(Whole(unions(model))),
        ),
        (
            "rules",
            "Every geometry rule on every generation with a geometry, inside and just outside its guards, with the result the model computes.",
            Box::new(Whole(rules(model))),
        ),
    ]
}

/// `arms.rs`: `ARMS`, one row per (arm, layout) with one `field!` line per field, in
/// one chunk per arm.
///
/// Each row is its own `const` item: the field probes are closures, and closures all in
/// one static's body make rustc superlinear (a spec of 2,040 arms took over 5 minutes
/// to build this file, one const per row 50 s).
struct ArmRows<'m> {
    model: &'m Model,
    /// Where the chunks are.
    next: ArmCursor,
    /// The rows given so far, for `ARMS`.
    names: Vec<Ident>,
}

impl Chunks for ArmRows<'_> {
    fn next_chunk(&mut self) -> Option<TokenStream> {
        let id = self.next.next(self.model)?;
        let rows = arm_rows(self.model, id);
        let items = rows.iter().map(|(_, item)| item);
        let chunk = quote! { #(#items)* };
        self.names.extend(rows.into_iter().map(|(row, _)| row));
        Some(chunk)
    }

    fn finish(self: Box<Self>) -> (TokenStream, TokenStream) {
        let names = &self.names;
        let head = quote! {
            use super::LayoutCase;
            use tpb_isa::*;

            /// Every layout of every arm, in model order.
            pub(crate) static ARMS: &[LayoutCase] = &[#(#names),*];
        };
        (head, TokenStream::new())
    }
}

/// One arm's rows: each layout's `const` name and item.
fn arm_rows(model: &Model, id: ArmId) -> Vec<(Ident, TokenStream)> {
    let arm = &model[id];
    let kind = names::ident(&arm.rust);
    arm.layouts
        .iter()
        .map(|l| {
            let ty = names::ident(&l.rust);
            let view = names::ident(&format!("{}Ref", l.rust));
            // How the arm's type holds this layout: itself, or the variant named after
            // the layout's oldest generation.
            let wrap = if arm.is_per_generation() {
                let v = names::ident(&names::type_str(&model[l.archs[0]].name));
                quote! { #kind::#v }
            } else {
                quote! { #kind::from }
            };
            let archs = l.archs.iter().map(|&a| arch_variant(model, a));
            let fields = l.fields.iter().map(|f| {
                let name = names::ident(&f.rust);
                let (off, size) = (usize_lit(f.offset), usize_lit(f.size));
                quote! { field!(#ty, #view, #name, #off, #size), }
            });
            let shown = l.rust.as_str();
            let row = names::ident(&names::const_str(&l.rust));
            (
                row.clone(),
                quote! {
                    const #row: LayoutCase = LayoutCase {
                        kind: ArmKind::#kind,
                        name: #shown,
                        archs: &[#(#archs),*],
                        check: layout!(#kind, #wrap, #ty, #view),
                        fields: &[#(#fields)*],
                    };
                },
            )
        })
        .collect()
}

/// `bits.rs`: `BITS`, one row per bits type with fields, one `bit!` line per bit-field
/// (those of every alternative view included).
fn bits(model: &Model) -> TokenStream {
    let rows = model.bits.iter().filter_map(|b| {
        let ty = names::ident(&b.rust);
        let all = b.fields.iter().chain(b.alts.iter().flat_map(|a| a.fields.iter()));
        let fields: Vec<TokenStream> = all
            .map(|f| {
                let get = names::snake(&f.name);
                let with = names::snake_join(&["with", &f.name]);
                let (lo, hi) = (usize_lit(f.lo), usize_lit(f.hi));
                quote! { bit!(#ty, #get, #with, #lo, #hi), }
            })
            .collect();
        if fields.is_empty() {
            return None;
        }
        let width = usize_lit(b.width.bits());
        let shown = b.rust.as_str();
        Some(quote! {
            BitsCase { name: #shown, width: #width, fields: &[#(#fields)*] },
        })
    });
    quote! {
        use super::BitsCase;
        use tpb_isa::*;

        /// Every operand type with bit-fields, in model order.
        pub(crate) static BITS: &[BitsCase] = &[#(#rows)*];
    }
}

/// `unions.rs`: `UNIONS`, one row per union with one `ViewCase` per view: its
/// generations and its selection test, from which the checker computes the view the
/// spec chooses.
fn unions(model: &Model) -> TokenStream {
    let rows = model.unions.iter().map(|u| {
        let ty = names::ident(&u.rust);
        let view_enum = names::ident(&format!("{}View", u.rust));
        let variants = u.views.iter().map(|v| names::ident(&names::type_str(&v.name)));
        let views = u.views.iter().map(|v| {
            let get = names::ident(&v.rust);
            let from = names::ident(&format!("from_{}", v.rust));
            let name = v.name.as_str();
            let archs = model
                .arch_ids()
                .filter(|&a| v.meta.available_on(a))
                .map(|a| arch_variant(model, a));
            let (test, otherwise) = match v.select {
                Select::When(t) => {
                    let (o, m, x) = (usize_lit(t.offset), hex(t.mask.into()), hex(t.value.into()));
                    (quote! { Some((#o, #m, #x)) }, false)
                }
                Select::Otherwise => (quote! { None }, true),
                Select::Never => (quote! { None }, false),
            };
            quote! {
                ViewCase {
                    name: #name,
                    archs: &[#(#archs),*],
                    test: #test,
                    otherwise: #otherwise,
                    round_trip: view!(#ty, #get, #from),
                },
            }
        });
        let shown = u.rust.as_str();
        let size = usize_lit(u.size);
        quote! {
            UnionCase {
                name: #shown,
                size: #size,
                chosen: chosen!(#ty, #view_enum, [#(#variants),*]),
                views: &[#(#views)*],
            },
        }
    });
    quote! {
        use super::{UnionCase, ViewCase};
        use tpb_isa::*;

        /// Every union, in model order.
        pub(crate) static UNIONS: &[UnionCase] = &[#(#rows)*];
    }
}

/// `rules.rs`: `RULES`, per generation with a geometry and per rule, a call inside every
/// guard and one just outside each, with the result the model computes.
fn rules(model: &Model) -> TokenStream {
    let mut rows = Vec::new();
    for a in model.arch_ids().filter(|&a| model[a].geometry_known) {
        for item in &model.geometry {
            let GeomKind::Rule { params, expr, requires } = &item.kind else { continue };
            if !item.meta.available_on(a) {
                let zeros = vec![0i128; params.len()];
                rows.push(rule_row(model, a, item, &zeros, &Outcome::NotOnArch));
                continue;
            }
            let mut inside = vec![0i128; params.len()];
            let edges: Vec<(u32, i128, i128)> =
                requires.iter().filter_map(|c| edge(model, a, c)).collect();
            for &(p, lo, _) in &edges {
                if fits_u32(lo) {
                    inside[p as usize] = lo;
                }
            }
            let mut cases = vec![inside.clone()];
            for &(p, _, out) in &edges {
                if fits_u32(out) {
                    let mut ps = inside.clone();
                    ps[p as usize] = out;
                    cases.push(ps);
                }
            }
            for ps in cases {
                let o = outcome(model, a, requires, expr, &ps);
                rows.push(rule_row(model, a, item, &ps, &o));
            }
        }
    }
    quote! {
        use super::RuleCase;
        use tpb_isa::*;

        /// Rule calls and their expected results.
        pub(crate) static RULES: &[RuleCase] = &[#(#rows)*];
    }
}

/// The result the model gives for a rule call.
enum Outcome {
    Ok(i128),
    /// The guard that failed, with its two sides as computed for a guard of the spec.
    OutOfRange(String, Option<(i128, CmpOp, i128)>),
    Unknown(GeomId),
    /// The rule's `@archs` leaves the generation out.
    NotOnArch,
}

/// Evaluate a rule expression on one arch; `Err` carries the outcome that stops it.
fn eval(model: &Model, arch: ArchId, e: &Expr, params: &[i128]) -> Result<i128, Outcome> {
    Ok(match e {
        Expr::Int(v) => *v,
        Expr::Param(p) => params[*p as usize],
        Expr::Value(g) => {
            let known = model[*g].meta.available_on(arch).then(|| model[arch].value(*g)).flatten();
            match known.and_then(|v| v.value.as_int()) {
                Some(v) => v,
                None => return Err(Outcome::Unknown(*g)),
            }
        }
        Expr::Binary(op, l, r) => {
            let (l, r) = (eval(model, arch, l, params)?, eval(model, arch, r, params)?);
            op.apply(l, r)
                .ok_or_else(|| Outcome::OutOfRange("arithmetic stays in range".to_owned(), None))?
        }
    })
}

/// What the rule returns for `params` on `arch`: guards in order, then the result.
fn outcome(
    model: &Model,
    arch: ArchId,
    requires: &[Cond],
    expr: &Expr,
    params: &[i128],
) -> Outcome {
    let run = || -> Result<i128, Outcome> {
        for c in requires {
            let l = eval(model, arch, &c.lhs, params)?;
            let r = eval(model, arch, &c.rhs, params)?;
            if !c.op.holds(l, r) {
                return Err(Outcome::OutOfRange(c.text.clone(), Some((l, c.op, r))));
            }
        }
        let v = eval(model, arch, expr, params)?;
        if !fits_u32(v) {
            return Err(Outcome::OutOfRange("result fits u32".to_owned(), None));
        }
        Ok(v)
    };
    match run() {
        Ok(v) => Outcome::Ok(v),
        Err(o) => o,
    }
}

fn has_param(e: &Expr) -> bool {
    match e {
        Expr::Param(_) => true,
        Expr::Binary(_, l, r) => has_param(l) || has_param(r),
        _ => false,
    }
}

/// For a guard `PARAM op EXPR` (or `EXPR op PARAM`): the parameter, the value at the
/// edge inside and the value just outside. `None` when the guard has another shape or
/// its bound is unknown on `arch`.
fn edge(model: &Model, arch: ArchId, c: &Cond) -> Option<(u32, i128, i128)> {
    let (p, op, bound) = match (&c.lhs, &c.rhs) {
        (Expr::Param(p), e) if !has_param(e) => (*p, c.op, e),
        (e, Expr::Param(p)) if !has_param(e) => {
            let flipped = match c.op {
                CmpOp::Lt => CmpOp::Gt,
                CmpOp::Le => CmpOp::Ge,
                CmpOp::Gt => CmpOp::Lt,
                CmpOp::Ge => CmpOp::Le,
                o => o,
            };
            (*p, flipped, e)
        }
        _ => return None,
    };
    let b = eval(model, arch, bound, &[]).ok()?;
    Some(match op {
        CmpOp::Lt => (p, b - 1, b),
        CmpOp::Le => (p, b, b + 1),
        CmpOp::Gt => (p, b + 1, b),
        CmpOp::Ge => (p, b, b - 1),
        CmpOp::Eq => (p, b, b + 1),
        CmpOp::Ne => (p, b + 1, b),
    })
}

fn fits_u32(v: i128) -> bool {
    (0..=i128::from(u32::MAX)).contains(&v)
}

/// One `RuleCase` row: the call on the generation's `Geometry` and the expected result.
fn rule_row(
    model: &Model,
    arch: ArchId,
    item: &GeomItem,
    params: &[i128],
    o: &Outcome,
) -> TokenStream {
    let v = names::ty(&model[arch].name);
    let f = names::snake(&item.name);
    let args: Vec<Literal> = params.iter().map(|p| Literal::u32_unsuffixed(*p as u32)).collect();
    let shown = params.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(", ");
    let call = format!("{}({shown}) on {}", item.name, model[arch].name);
    let rule = item.name.as_str();
    let want = match o {
        Outcome::Ok(r) => {
            let r = Literal::u32_unsuffixed(*r as u32);
            quote! { Ok(#r) }
        }
        Outcome::OutOfRange(guard, computed) => {
            let mut slots: Vec<Literal> =
                params.iter().map(|p| Literal::u64_unsuffixed(*p as u64)).collect();
            slots.resize(4, Literal::u64_unsuffixed(0));
            slots.truncate(4);
            let names: Vec<&str> = match &item.kind {
                GeomKind::Rule { params, .. } => params.iter().map(String::as_str).collect(),
                _ => Vec::new(),
            };
            let computed = match computed {
                Some((l, op, r)) => {
                    let (l, op, r) = (signed(*l), op.as_str(), signed(*r));
                    quote! { Some(Comparison::new(#l, #op, #r)) }
                }
                None => quote! { None },
            };
            quote! { Err(GeometryError::OutOfRange { rule: #rule, guard: #guard, params: &[#(#names),*], args: [#(#slots),*], arch: Arch::#v, computed: #computed }) }
        }
        Outcome::Unknown(g) => {
            let item = model[*g].name.as_str();
            quote! { Err(GeometryError::Unknown { item: #item, arch: Arch::#v }) }
        }
        Outcome::NotOnArch => {
            quote! { Err(GeometryError::Unknown { item: #rule, arch: Arch::#v }) }
        }
    };
    quote! {
        RuleCase { call: #call, got: Geometry::#v.#f(#(#args),*), want: #want },
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;
    use crate::emit::unit_tests::round_two_model;

    fn table(model: &Model, stem: &str) -> String {
        let (_, what, chunks) = emit(model).into_iter().find(|(s, _, _)| *s == stem).unwrap();
        crate::emit::render(stem, what, chunks)
    }

    #[test]
    fn a_per_generation_arm_has_one_row_per_layout_wrapped_in_its_variant() {
        let arms = table(&round_two_model(), "arms");
        assert!(
            arms.contains("layout!(WideArm, WideArm::Old, WideArmOld, WideArmOldRef)"),
            "{arms}"
        );
        assert!(arms.contains("layout!(WideArm, WideArm::New, WideArmNew, WideArmNewRef)"));
        // The field that differs by generation is at the same bytes in both layouts; a
        // preamble subset arm places its own discriminant.
        assert!(arms.contains("field!(WideArmOld, WideArmOldRef, val, 8, 4)"));
        assert!(arms.contains("field!(WideArmNew, WideArmNewRef, val, 8, 4)"));
        assert!(arms.contains("field!(Own, OwnRef, opcode, 0, 1)"));
        assert!(arms.contains("layout!(Own, Own::from, Own, OwnRef)"));
    }

    #[test]
    fn every_bit_field_is_a_row_with_its_bit_range() {
        let bits = table(&round_two_model(), "bits");
        assert!(bits.contains("bit!(Pair, lo, with_lo, 0, 4)"), "{bits}");
        assert!(bits.contains("bit!(Pair, hi, with_hi, 4, 7)"));
        assert!(bits.contains("bit!(Pair, flag, with_flag, 7, 8)"));
    }

    #[test]
    fn rule_rows_cover_only_generations_with_a_geometry() {
        // The project's spec: rules on sunda, cayman and mariana, none on maverick, whose
        // geometry is unknown.
        let rules = table(&crate::emit::unit_tests::project_model(), "rules");
        assert!(rules.contains("Geometry::Cayman.hbm_index(7)"), "{rules}");
        assert!(rules.contains("want: Ok(3)"));
        assert!(!rules.contains("Maverick"));
        // Just outside the guard: the error names the guard as the spec writes it.
        assert!(rules.contains("guard: \"tpb_idx < num_tpb\""));
    }
}
