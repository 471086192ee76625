//! `tests/generated/*.rs`: tests of the generated crate, derived from the model and not
//! from the generated code, so that a layout or value change in one without the other fails.
//!
//! Every expected value here is computed from the [`Model`] (offsets, sizes, bit ranges,
//! bindings, geometry values, rule expressions); the generated crate is only called.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::model::*;

use super::arms::{arm_type, ref_type};
use super::layout::{enum_of, field_ident, raw_ident};
use super::names;
use super::operand::named_fields;
use super::tokens::{hex, usize_lit};

/// The generated test modules: `(file stem, one-line doc, tokens)`.
pub fn emit(model: &Model) -> Vec<(&'static str, &'static str, TokenStream)> {
    vec![
        ("bits", "Every bit-field of every operand type: set and get at its bit range only.", bits(model)),
        ("dispatch", "Every binding selects its arm; every unbound opcode is `Inst::Unknown` and kept.", dispatch(model)),
        ("geometry", "Every geometry value of every arch, and every rule inside and just outside its guards.", geometry(model)),
        ("pins", "Every field of every arm at its byte range, little-endian, read back owned and borrowed.", pins(model)),
        ("roundtrip", "Every arm decodes a record with every byte set to the spec's field values and back.", roundtrip(model)),
    ]
}

/// The byte a pin test stores at record offset `o`: non-zero, distinct per offset, and
/// below 0x80 so that signed fields stay positive.
fn pin_byte(o: u32) -> u8 {
    0x40 + (o % 0x40) as u8
}

/// The byte the round-trip record holds at offset `i`.
fn full_byte(i: u32) -> u8 {
    (i.wrapping_mul(7).wrapping_add(3)) as u8
}

/// A suffixed integer literal of `p` holding the little-endian `bytes`.
fn prim_lit(p: Prim, bytes: &[u8]) -> TokenStream {
    let mut v: u64 = 0;
    for (i, b) in bytes.iter().enumerate() {
        v |= u64::from(*b) << (8 * i);
    }
    let bits = p.bits();
    let (neg, mag) = if p.signed() && bits < 64 && v >> (bits - 1) & 1 == 1 {
        (true, (1u64 << bits) - v)
    } else if p.signed() && bits == 64 && v >> 63 == 1 {
        (true, v.wrapping_neg())
    } else {
        (false, v)
    };
    let text = format!("{}{}", hex(mag), p.as_str());
    let lit: Literal = text.parse().unwrap_or_else(|_| unreachable!("{text} is a literal"));
    if neg {
        quote! { -#lit }
    } else {
        quote! { #lit }
    }
}

/// An expression of the owned Rust type of `ty` whose encoding is `bytes` (built field
/// by field from the model, so nested offsets are pinned too).
fn value_expr(model: &Model, ty: &FieldType, bytes: &[u8]) -> TokenStream {
    match ty {
        FieldType::Prim(p) => prim_lit(*p, bytes),
        FieldType::Enum(e) => prim_lit(model[*e].width, bytes),
        FieldType::Bits(b) => {
            let name = names::ty(&model[*b].name);
            let v = prim_lit(model[*b].width, bytes);
            quote! { tpb_isa::generated::operand::#name(#v) }
        }
        FieldType::Struct(s) => {
            let st = &model[*s];
            let name = names::ty(&st.name);
            let inits = st.fields.iter().map(|f| {
                let id = field_ident(f);
                let v = value_expr(
                    model,
                    &f.ty,
                    &bytes[f.offset as usize..(f.offset + f.size) as usize],
                );
                quote! { #id: #v, }
            });
            quote! { tpb_isa::generated::layout::#name { #(#inits)* } }
        }
        FieldType::Array(t, n) => {
            let stride = model.size_of(t) as usize;
            let xs = (0..*n as usize)
                .map(|i| value_expr(model, t, &bytes[i * stride..(i + 1) * stride]));
            quote! { [#(#xs),*] }
        }
        FieldType::Reserved(_) => {
            let xs = bytes.iter().map(|b| prim_lit(Prim::U8, &[*b]));
            quote! { [#(#xs),*] }
        }
    }
}

fn u8_lits(bytes: &[u8]) -> Vec<Literal> {
    bytes.iter().map(|b| hex(u64::from(*b))).collect()
}

/// `pins.rs`: one test per (arm, top-level field).
fn pins(model: &Model) -> TokenStream {
    let arms = model.arm_ids().map(|id| {
        let arm = &model[id];
        let size = model[arm.record].size;
        let ty = arm_type(arm);
        let view = ref_type(arm);
        let m = names::snake(&arm.name);
        let n = usize_lit(size);
        let tests = model.arm_fields(id).map(|f| {
            let test = field_ident(f);
            let id = field_ident(f);
            let (lo, hi) = (f.offset as usize, (f.offset + f.size) as usize);
            let mut want = vec![0u8; size as usize];
            for o in f.range() {
                want[o as usize] = pin_byte(o);
            }
            let value = value_expr(model, &f.ty, &want[lo..hi]);
            let field_bytes = u8_lits(&want[lo..hi]);
            let (lo_l, hi_l) = (usize_lit(f.offset), usize_lit(f.offset + f.size));
            let acc = if enum_of(&f.ty).is_some() { raw_ident(f) } else { field_ident(f) };
            let what = format!("{}.{} is bytes {lo}..{hi}, little-endian", arm.name, f.name);
            quote! {
                #[test]
                fn #test() {
                    let mut x = #ty::decode(&[0u8; #n]);
                    x.#id = #value;
                    let b = x.encode();
                    let mut want = [0u8; #n];
                    want[#lo_l..#hi_l].copy_from_slice(&[#(#field_bytes),*]);
                    assert_eq!(b, want, "{}: non-zero bytes {:?}", #what, nonzero(&b));
                    let d = #ty::decode(&b);
                    assert_eq!(d, x);
                    assert_eq!(d.#id, #value);
                    assert_eq!(#view::new(&b).#acc(), #value);
                }
            }
        });
        quote! {
            mod #m {
                use super::nonzero;
                use tpb_isa::generated::arms::{#ty, #view};
                #(#tests)*
            }
        }
    });
    quote! {
        /// Offsets of the non-zero bytes, for failure messages.
        fn nonzero(b: &[u8]) -> Vec<usize> {
            b.iter().enumerate().filter(|(_, v)| **v != 0).map(|(i, _)| i).collect()
        }
        #(#arms)*
    }
}

/// `roundtrip.rs`: per arm, decode a record with every byte set, check each field's
/// value from the model, and re-encode to the same bytes.
fn roundtrip(model: &Model) -> TokenStream {
    let tests = model.arm_ids().map(|id| {
        let arm = &model[id];
        let size = model[arm.record].size;
        let ty = arm_type(arm);
        let view = ref_type(arm);
        let test = names::snake(&arm.name);
        let n = usize_lit(size);
        let bytes: Vec<u8> = (0..size).map(full_byte).collect();
        let lits = u8_lits(&bytes);
        let checks = model.arm_fields(id).map(|f| {
            let id = field_ident(f);
            let v =
                value_expr(model, &f.ty, &bytes[f.offset as usize..(f.offset + f.size) as usize]);
            let acc = if enum_of(&f.ty).is_some() { raw_ident(f) } else { field_ident(f) };
            let what = format!("{}.{}", arm.name, f.name);
            quote! {
                assert_eq!(x.#id, #v, #what);
                assert_eq!(view.#acc(), #v, #what);
            }
        });
        quote! {
            #[test]
            fn #test() {
                let b: [u8; #n] = [#(#lits),*];
                let x = #ty::decode(&b);
                let view = #view::new(&b);
                #(#checks)*
                assert_eq!(x.encode(), b);
                assert_eq!(#ty::decode(&x.encode()), x);
                assert_eq!(view.decode(), x);
            }
        }
    });
    quote! {
        use tpb_isa::generated::arms::*;
        #(#tests)*
    }
}

/// The record the dispatch tests start from: the round-trip bytes.
fn dispatch_base(size: u32) -> Vec<u8> {
    (0..size).map(full_byte).collect()
}

/// `dispatch.rs`: one test per binding, one table test of unbound opcodes and sub-opcodes.
fn dispatch(model: &Model) -> TokenStream {
    let Some(record) = model.records.first() else { return quote! {} };
    let n = usize_lit(record.size);
    let disc = usize_lit(record.discriminant.offset);
    let width = model[record.discriminant.ty].width;
    if width.size() != 1 {
        // Dispatch tests assume a one-byte discriminant (every spec so far).
        return quote! {};
    }
    let base = u8_lits(&dispatch_base(record.size));
    let bindings = model.bindings.iter().map(|b| {
        let arm = &model[b.arm];
        let ty = arm_type(arm);
        let op = b.opcode as u8;
        let op_lit = hex(b.opcode);
        let (name, set_sub) = match &b.sub {
            Some(s) => {
                let off = usize_lit(s.offset);
                let v = hex(s.value);
                (
                    format_ident!("opcode_{:#04x}_byte{}_{}", b.opcode, s.offset, s.value),
                    quote! { b[#off] = #v; },
                )
            }
            None => (format_ident!("opcode_{:#04x}", op), quote! {}),
        };
        let what = format!("{} selects {}", name, arm.name);
        quote! {
            #[test]
            fn #name() {
                let mut b: [u8; #n] = BASE;
                b[#disc] = #op_lit;
                #set_sub
                match Inst::decode(&b) {
                    Inst::#ty(x) => assert_eq!(x, arms::#ty::decode(&b)),
                    other => panic!("{}: got {:?}", #what, other),
                }
                assert_eq!(Inst::decode(&b).encode(), b);
                assert!(arms::#ty::OPCODES.contains(&#op_lit));
            }
        }
    });
    // Unbound cases: opcodes no binding names; for opcodes bound only with a sub-opcode,
    // every value of the sub-opcode byte no binding names.
    let mut plain: Vec<TokenStream> = Vec::new();
    let mut subs: Vec<TokenStream> = Vec::new();
    for op in 0u64..=255 {
        let bs: Vec<&Binding> = model.bindings.iter().filter(|b| b.opcode == op).collect();
        if bs.is_empty() {
            let l = hex(op);
            plain.push(quote! { #l });
            continue;
        }
        if bs.iter().any(|b| b.sub.is_none()) {
            continue;
        }
        let mut offsets: Vec<u32> =
            bs.iter().filter_map(|b| b.sub.as_ref().map(|s| s.offset)).collect();
        offsets.dedup();
        if offsets.len() != 1 {
            continue;
        }
        let off = usize_lit(offsets[0]);
        for v in 0u64..=255 {
            if !bs.iter().any(|b| b.sub.as_ref().is_some_and(|s| s.value == v)) {
                let (o, v) = (hex(op), hex(v));
                subs.push(quote! { (#o, #off, #v) });
            }
        }
    }
    let (np, ns) = (usize_lit(plain.len() as u32), usize_lit(subs.len() as u32));
    quote! {
        use tpb_isa::generated::arms;
        use tpb_isa::Inst;

        /// Every byte set (`i * 7 + 3`), before the opcode bytes are written.
        const BASE: [u8; #n] = [#(#base),*];

        #(#bindings)*

        /// Opcodes no binding names (from the spec).
        const UNBOUND: [u8; #np] = [#(#plain),*];

        /// `(opcode, sub-opcode offset, value)` no binding names (from the spec).
        const UNBOUND_SUB: [(u8, usize, u8); #ns] = [#(#subs),*];

        fn unknown_and_kept(b: &[u8; #n]) -> bool {
            matches!(Inst::decode(b), Inst::Unknown(r) if r.0 == *b) && Inst::decode(b).encode() == *b
        }

        #[test]
        fn unbound_opcodes_are_unknown_and_kept() {
            let mut bad = Vec::new();
            for op in UNBOUND {
                let mut b = BASE;
                b[#disc] = op;
                if !unknown_and_kept(&b) {
                    bad.push(op);
                }
                let mut z = [0u8; #n];
                z[#disc] = op;
                if !unknown_and_kept(&z) {
                    bad.push(op);
                }
            }
            assert!(bad.is_empty(), "not Inst::Unknown or not kept: {bad:#04x?}");
        }

        #[test]
        fn unbound_sub_opcodes_are_unknown_and_kept() {
            let mut bad = Vec::new();
            for (op, off, v) in UNBOUND_SUB {
                let mut b = BASE;
                b[#disc] = op;
                b[off] = v;
                if !unknown_and_kept(&b) {
                    bad.push((op, v));
                }
            }
            assert!(bad.is_empty(), "not Inst::Unknown or not kept: {bad:#04x?}");
        }
    }
}

fn ones(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// `bits.rs`: per bits type a module, per bit-field a test.
fn bits(model: &Model) -> TokenStream {
    let mods = model.bits.iter().filter(|b| !named_fields(b).is_empty()).map(|b| {
        let m = names::snake(&b.name);
        let ty = names::ty(&b.name);
        let all = ones(b.width.bits());
        let tests = named_fields(b).into_iter().map(|nf| {
            let f = nf.field;
            let w = f.hi - f.lo;
            let mask = f.mask();
            // Distinctive: alternating bits, with the lowest and highest bit of the field set.
            let v = (0x5A5A_5A5A_5A5A_5A5A & ones(w)) | 1 | (1u64 << (w - 1));
            let get = names::snake(&nf.name);
            let set = names::snake_join(&["set", &nf.name]);
            let with = names::snake_join(&["with", &nf.name]);
            let cases = [0u64, all, 0xA5A5_A5A5_A5A5_A5A5 & all].map(|base| {
                let want = (base & !mask) | (v << f.lo);
                let (base, want) = (hex(base), hex(want));
                quote! { (#base, #want) }
            });
            let vl = hex(v);
            let cleared = hex(all & !mask);
            let placed = hex(v << f.lo);
            let what = format!("{}.{} is bits {}..{}", b.name, nf.name, f.lo, f.hi);
            quote! {
                #[test]
                fn #get() {
                    for (base, want) in [#(#cases),*] {
                        let mut x = #ty(base);
                        x.#set(#vl);
                        assert_eq!(x.0, want, "{}: set on {:#x}", #what, base);
                        assert_eq!(x.#get(), #vl, #what);
                        assert_eq!(#ty(base).#with(#vl).0, want, #what);
                    }
                    assert_eq!(#ty(#placed).#get(), #vl, #what);
                    assert_eq!(#ty(#cleared).#get(), 0, #what);
                }
            }
        });
        quote! {
            mod #m {
                use tpb_isa::generated::operand::#ty;
                #(#tests)*
            }
        }
    });
    quote! { #(#mods)* }
}

/// The Rust type of a geometry value (mirrors the accessor's declared type).
fn geom_rust_type(t: &GeomType) -> TokenStream {
    match t {
        GeomType::Int(p) => quote! { #p },
        GeomType::Bool => quote! { bool },
        GeomType::Array(e, len) => {
            let e = geom_rust_type(e);
            match len.count() {
                Some(n) => {
                    let n = usize_lit(n);
                    quote! { [#e; #n] }
                }
                None => quote! { &'static [#e] },
            }
        }
        GeomType::Optional(t) => {
            let t = geom_rust_type(t);
            quote! { Option<#t> }
        }
    }
}

fn int_tokens(v: i128) -> TokenStream {
    let lit = Literal::i128_unsuffixed(v.abs());
    if v < 0 {
        quote! { -#lit }
    } else {
        quote! { #lit }
    }
}

/// The expected value as tokens of type `geom_rust_type(t)`, or `None` when the model
/// has no value where the type needs one.
fn geom_value(v: Option<&Value>, t: &GeomType) -> Option<TokenStream> {
    Some(match t {
        GeomType::Optional(inner) => match v {
            None | Some(Value::Unknown) => quote! { None },
            Some(v) => {
                let x = geom_value(Some(v), inner)?;
                quote! { Some(#x) }
            }
        },
        GeomType::Int(_) => int_tokens(v?.as_int()?),
        GeomType::Bool => match v? {
            Value::Bool(b) => quote! { #b },
            _ => return None,
        },
        GeomType::Array(e, len) => match v? {
            Value::Array(items) => {
                let xs: Option<Vec<TokenStream>> =
                    items.iter().map(|x| geom_value(Some(x), e)).collect();
                let xs = xs?;
                if len.count().is_some() {
                    quote! { [#(#xs),*] }
                } else {
                    quote! { &[#(#xs),*] }
                }
            }
            _ => return None,
        },
    })
}

/// An expected rule result, computed from the model the way the spec defines it.
enum Outcome {
    Ok(i128),
    OutOfRange(String),
    Unknown(GeomId),
}

/// Evaluate a rule expression on one arch; `Err` carries the outcome that stops it.
fn eval(model: &Model, arch: ArchId, e: &Expr, params: &[i128]) -> Result<i128, Outcome> {
    let arith = || Outcome::OutOfRange("arithmetic stays in range".to_owned());
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
            let res = match op {
                BinOp::Mul => l.checked_mul(r),
                BinOp::Div => l.checked_div(r),
                BinOp::Rem => l.checked_rem(r),
                BinOp::Add => l.checked_add(r),
                BinOp::Sub => l.checked_sub(r),
                BinOp::Shl => (0..=63).contains(&r).then(|| l.checked_shl(r as u32)).flatten(),
                BinOp::Shr => (0..=127).contains(&r).then(|| l >> r),
                BinOp::And => Some(l & r),
                BinOp::Xor => Some(l ^ r),
                BinOp::Or => Some(l | r),
            };
            res.ok_or_else(arith)?
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
                return Err(Outcome::OutOfRange(c.text.clone()));
            }
        }
        let v = eval(model, arch, expr, params)?;
        if v < 0 || v > i128::from(u32::MAX) {
            return Err(Outcome::OutOfRange("result fits u32".to_owned()));
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

/// For a guard `PARAM op EXPR` (or `EXPR op PARAM`): the parameter, the largest-edge
/// value inside and the value just outside. `None` when the guard has another shape or
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

/// One rule call on one arch with its expected result, as a test statement.
fn rule_call(
    model: &Model,
    arch: ArchId,
    item: &GeomItem,
    params: &[i128],
    o: &Outcome,
) -> TokenStream {
    let v = names::variant(&model[arch].name);
    let f = names::snake(&item.name);
    let args: Vec<Literal> = params.iter().map(|p| Literal::u32_unsuffixed(*p as u32)).collect();
    let rule = item.name.as_str();
    let want = match o {
        Outcome::Ok(r) => {
            let r = Literal::u32_unsuffixed(*r as u32);
            quote! { Ok(#r) }
        }
        Outcome::OutOfRange(guard) => {
            let mut slots: Vec<Literal> =
                params.iter().map(|p| Literal::u64_unsuffixed(*p as u64)).collect();
            slots.resize(4, Literal::u64_unsuffixed(0));
            slots.truncate(4);
            quote! { Err(GeometryError::OutOfRange { rule: #rule, guard: #guard, args: [#(#slots),*] }) }
        }
        Outcome::Unknown(g) => {
            let item = model[*g].name.as_str();
            quote! { Err(GeometryError::Unknown { item: #item, arch: Arch::#v }) }
        }
    };
    quote! { assert_eq!(Arch::#v.#f(#(#args),*), #want); }
}

/// `geometry.rs`: per arch a module; per value a test; per rule a test with a call
/// inside every guard and one just outside each.
fn geometry(model: &Model) -> TokenStream {
    let mods = model.arch_ids().map(|a| {
        let arch = &model[a];
        let m = names::snake(&arch.name);
        let v = names::variant(&arch.name);
        let tests = model.geom_ids().filter_map(|g| {
            let item = &model[g];
            let test = names::snake(&item.name);
            match &item.kind {
                GeomKind::Value(t) | GeomKind::Derived(t, _) => {
                    let everywhere = model.arch_ids().all(|x| item.meta.available_on(x));
                    let wrap = !(everywhere || t.is_optional());
                    let inner = geom_rust_type(t);
                    let (ty, want) = if !item.meta.available_on(a) {
                        (quote! { Option<#inner> }, quote! { None })
                    } else {
                        let x = geom_value(arch.value(g).map(|v| &v.value), t)?;
                        if wrap {
                            (quote! { Option<#inner> }, quote! { Some(#x) })
                        } else {
                            (inner, x)
                        }
                    };
                    let what = format!("{} on {}", item.name, arch.name);
                    Some(quote! {
                        #[test]
                        fn #test() {
                            let want: #ty = #want;
                            assert_eq!(Arch::#v.#test(), want, #what);
                        }
                    })
                }
                GeomKind::Rule { params, expr, requires } => {
                    let mut inside = vec![0i128; params.len()];
                    let edges: Vec<(u32, i128, i128)> =
                        requires.iter().filter_map(|c| edge(model, a, c)).collect();
                    for &(p, lo, _) in &edges {
                        if fits_u32(lo) {
                            inside[p as usize] = lo;
                        }
                    }
                    let mut calls = vec![rule_call(
                        model,
                        a,
                        item,
                        &inside,
                        &outcome(model, a, requires, expr, &inside),
                    )];
                    for &(p, _, out) in &edges {
                        if !fits_u32(out) {
                            continue;
                        }
                        let mut ps = inside.clone();
                        ps[p as usize] = out;
                        calls.push(rule_call(
                            model,
                            a,
                            item,
                            &ps,
                            &outcome(model, a, requires, expr, &ps),
                        ));
                    }
                    Some(quote! {
                        #[test]
                        fn #test() {
                            #(#calls)*
                        }
                    })
                }
            }
        });
        quote! {
            mod #m {
                #[allow(unused_imports)]
                use tpb_isa::{Arch, GeometryError};
                #(#tests)*
            }
        }
    });
    quote! { #(#mods)* }
}
