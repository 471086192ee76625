//! `disasm.rs`: the tables the text disassembler and assembler are driven by, and the
//! `Display` impls of every arm and of `Inst`.
//!
//! Every arm becomes an `ArmDesc`: its mnemonic (the lowercase spec name) and its leaf
//! fields in offset order, structs flattened into dotted names (`events.wait_mode`).
//! The printer and the parser in `tpb_isa::disasm` walk these tables, so a new arm in
//! the spec is printable and assemblable as soon as it is generated. The file also
//! carries the geometry table the `tpb geometry` command prints.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::*;

use super::arms::arm_type;
use super::names;
use super::tokens::hex;

/// The whole file.
pub fn emit(model: &Model) -> TokenStream {
    let enums = model.enum_ids().map(|id| enum_desc(model, id));
    let bits = model.bits.iter().map(bits_desc);
    let arms: Vec<TokenStream> = model.arm_ids().map(|id| arm_desc(model, id)).collect();
    let displays = model.arm_ids().map(|id| {
        let t = arm_type(&model[id]);
        let d = desc_ident(&model[id]);
        quote! {
            impl fmt::Display for arms::#t {
                /// One line: the mnemonic, then `field=value` pairs in offset order.
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    crate::disasm::write_record(f, &#d, &self.encode())
                }
            }
        }
    });
    let all: Vec<proc_macro2::Ident> = model.arms.iter().map(desc_ident).collect();
    let n = all.len();
    let kinds: Vec<proc_macro2::Ident> = model.arms.iter().map(arm_type).collect();
    let bound: Vec<proc_macro2::Ident> = {
        let mut v = Vec::new();
        for b in &model.bindings {
            if !v.contains(&b.arm) {
                v.push(b.arm);
            }
        }
        v.into_iter().map(|a| arm_type(&model[a])).collect()
    };
    let geometry = geometry_table(model);
    quote! {
        use core::fmt;

        use crate::disasm::{AltDesc, ArmDesc, BitDesc, BitsDesc, Confidence, EnumDesc, FieldDesc, Kind, Role, Select};
        use crate::generated::arms::{self, ArmKind};
        use crate::generated::inst::Inst;

        #(#enums)*
        #(#bits)*
        #(#arms)*

        /// Every arm's table, sorted by spec name (the order of `ArmKind::ALL`).
        pub static ARMS: [&ArmDesc; #n] = [#(&#all),*];

        /// The table of an arm.
        #[must_use]
        pub const fn desc(kind: ArmKind) -> &'static ArmDesc {
            match kind {
                #(ArmKind::#kinds => &#all,)*
            }
        }

        #(#displays)*

        impl fmt::Display for Inst {
            /// One line: see the arm's `Display`; `Inst::Unknown` shows the opcode and all 64 bytes.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    #(Inst::#bound(x) => fmt::Display::fmt(x, f),)*
                    Inst::Unknown(r) => crate::disasm::write_unknown(f, r.bytes()),
                }
            }
        }

        #geometry
    }
}

fn u8l(v: u32) -> proc_macro2::Literal {
    proc_macro2::Literal::u8_unsuffixed(v as u8)
}

fn desc_ident(arm: &Arm) -> proc_macro2::Ident {
    format_ident!("{}_DESC", names::const_str(&arm.name))
}

fn enum_ident(e: &Enum) -> proc_macro2::Ident {
    format_ident!("ENUM_{}", names::const_str(&e.name))
}

fn bits_ident(b: &Bits) -> proc_macro2::Ident {
    format_ident!("BITS_{}", names::const_str(&b.name))
}

fn conf(c: Confidence) -> TokenStream {
    match c {
        Confidence::Certain => quote! { Confidence::Certain },
        Confidence::Medium => quote! { Confidence::Medium },
        Confidence::Inferred => quote! { Confidence::Inferred },
    }
}

fn enum_desc(model: &Model, id: EnumId) -> TokenStream {
    let e = &model[id];
    let ident = enum_ident(e);
    let name = &e.name;
    let width = u8l(e.width.size());
    let vals = e.variants.iter().map(|v| {
        let value = hex(v.value);
        let n = &v.name;
        quote! { (#value, #n) }
    });
    let doc = format!(" The names of `{}` for the disassembler, in value order.", e.name);
    quote! {
        #[doc = #doc]
        pub static #ident: EnumDesc = EnumDesc { name: #name, width: #width, variants: &[#(#vals),*] };
    }
}

fn bits_desc(b: &Bits) -> TokenStream {
    let ident = bits_ident(b);
    let name = &b.name;
    let width = u8l(b.width.size());
    let alts = b.alts.iter().map(|a| {
        let an = &a.name;
        let select = match &a.when {
            Some(p) => {
                let f = &b.fields[p.field as usize];
                let shift = u8l(f.lo);
                let mask = hex(p.mask & (f.mask() >> f.lo));
                let value = hex(p.value);
                quote! { Some(Select { shift: #shift, mask: #mask, value: #value }) }
            }
            None => quote! { None },
        };
        let fields = a.fields.iter().map(|f| {
            let fname = &f.name;
            let lo = u8l(f.lo);
            let hi = u8l(f.hi);
            let c = conf(f.meta.confidence);
            quote! { BitDesc { name: #fname, lo: #lo, hi: #hi, confidence: #c } }
        });
        quote! { AltDesc { name: #an, select: #select, fields: &[#(#fields),*] } }
    });
    let doc = format!(" The forms of the operand type `{}` for the disassembler.", b.name);
    quote! {
        #[doc = #doc]
        pub static #ident: BitsDesc = BitsDesc { name: #name, width: #width, alts: &[#(#alts),*] };
    }
}

/// The leaf fields of a field of type `ty` at `offset`, named `name`.
fn leaves(
    model: &Model,
    name: &str,
    offset: u32,
    ty: &FieldType,
    role: &TokenStream,
    c: Confidence,
    out: &mut Vec<TokenStream>,
) {
    let kind = match ty {
        FieldType::Struct(s) => {
            for f in &model[*s].fields {
                let c = c.max(f.meta.confidence);
                leaves(
                    model,
                    &format!("{name}.{}", f.name),
                    offset + f.offset,
                    &f.ty,
                    role,
                    c,
                    out,
                );
            }
            return;
        }
        FieldType::Array(t, n) if matches!(**t, FieldType::Struct(_)) => {
            let stride = model.size_of(t);
            for i in 0..*n {
                leaves(model, &format!("{name}.{i}"), offset + i * stride, t, role, c, out);
            }
            return;
        }
        FieldType::Reserved(n) => {
            let n = u8l(*n);
            let c = conf(c);
            let off = u8l(offset);
            out.push(quote! { FieldDesc { name: #name, offset: #off, kind: Kind::Bytes(#n), role: Role::Reserved, confidence: #c } });
            return;
        }
        FieldType::Array(t, n) if matches!(**t, FieldType::Prim(Prim::I8)) => {
            let n = u8l(*n);
            quote! { Kind::Str(#n) }
        }
        FieldType::Array(t, n) => {
            let inner = scalar_kind(model, t);
            let n = u8l(*n);
            quote! { Kind::Array(&#inner, #n) }
        }
        t => scalar_kind(model, t),
    };
    let c = conf(c);
    let off = u8l(offset);
    out.push(quote! { FieldDesc { name: #name, offset: #off, kind: #kind, role: #role, confidence: #c } });
}

fn scalar_kind(model: &Model, ty: &FieldType) -> TokenStream {
    match ty {
        FieldType::Prim(p) => {
            let w = u8l(p.size());
            if p.signed() {
                quote! { Kind::Int(#w) }
            } else {
                quote! { Kind::Uint(#w) }
            }
        }
        FieldType::Enum(e) => {
            let i = enum_ident(&model[*e]);
            quote! { Kind::Enum(&#i) }
        }
        FieldType::Bits(b) => {
            let b = &model[*b];
            if b.alts.is_empty() {
                let w = u8l(b.width.size());
                quote! { Kind::Uint(#w) }
            } else {
                let i = bits_ident(b);
                quote! { Kind::Bits(&#i) }
            }
        }
        // Nested arrays and arrays of reserved bytes do not occur in the spec; show
        // them as bytes so that nothing is lost.
        _ => {
            let n = u8l(model.size_of(ty));
            quote! { Kind::Bytes(#n) }
        }
    }
}

fn arm_desc(model: &Model, id: ArmId) -> TokenStream {
    let arm = &model[id];
    let record = &model[arm.record];
    let ident = desc_ident(arm);
    let t = arm_type(arm);
    let mnemonic = arm.name.to_lowercase();
    let spec = &arm.name;
    let bindings: Vec<&Binding> = model.bindings_of(id).collect();
    let opcodes: Vec<u64> = {
        let mut v: Vec<u64> = bindings.iter().map(|b| b.opcode).collect();
        v.dedup();
        v
    };
    let implied_opcode = (opcodes.len() == 1).then(|| opcodes[0]);
    // A sub-opcode byte is implied when every binding of the arm gives it the same value.
    let implied_sub: Option<(u32, u64)> = match bindings.first().and_then(|b| b.sub.as_ref()) {
        Some(s)
            if bindings.iter().all(|b| {
                b.sub.as_ref().is_some_and(|x| x.offset == s.offset && x.value == s.value)
            }) =>
        {
            Some((s.offset, s.value))
        }
        _ => None,
    };
    let mut out = Vec::new();
    for f in model.arm_fields(id) {
        let in_preamble = f.offset < record.preamble_size;
        let c = f.meta.confidence;
        if let FieldType::Struct(s) = &f.ty {
            for g in &model[*s].fields {
                let off = f.offset + g.offset;
                let role = if off == record.discriminant.offset && implied_opcode.is_some() {
                    let v = hex(implied_opcode.unwrap_or(0));
                    quote! { Role::Implied(#v) }
                } else if in_preamble {
                    quote! { Role::Preamble }
                } else {
                    quote! { Role::Normal }
                };
                leaves(
                    model,
                    &format!("{}.{}", f.name, g.name),
                    off,
                    &g.ty,
                    &role,
                    c.max(g.meta.confidence),
                    &mut out,
                );
            }
            continue;
        }
        let role = match implied_sub {
            Some((off, v)) if off == f.offset => {
                let v = hex(v);
                quote! { Role::Implied(#v) }
            }
            _ if in_preamble => quote! { Role::Preamble },
            _ => quote! { Role::Normal },
        };
        leaves(model, &f.name, f.offset, &f.ty, &role, c, &mut out);
    }
    let doc = format!(" The disassembler table of `{}` ([`arms::{t}`]).", arm.name);
    quote! {
        #[doc = #doc]
        pub static #ident: ArmDesc = ArmDesc {
            kind: ArmKind::#t,
            name: #spec,
            mnemonic: #mnemonic,
            fields: &[#(#out),*],
        };
    }
}

/// `GEOMETRY`: one row per geometry value with a function printing it for an arch.
fn geometry_table(model: &Model) -> TokenStream {
    let rows = model.geom_ids().filter_map(|g| {
        let item = &model[g];
        if matches!(item.kind, GeomKind::Rule { .. }) {
            return None;
        }
        let name = &item.name;
        let f = names::snake(&item.name);
        let everywhere = model.arch_ids().all(|a| item.meta.available_on(a));
        let optional = match &item.kind {
            GeomKind::Value(t) | GeomKind::Derived(t, _) => t.is_optional(),
            GeomKind::Rule { .. } => false,
        };
        let wrapped = !everywhere && !optional;
        let body = if optional || wrapped {
            quote! {
                match a.#f() {
                    Some(v) => write!(w, "{:?}", v),
                    None => w.write_str("?"),
                }
            }
        } else {
            quote! { write!(w, "{:?}", a.#f()) }
        };
        Some(quote! {
            GeomRow {
                name: #name,
                show: |a: crate::generated::geometry::Arch, w: &mut dyn fmt::Write| -> fmt::Result { #body },
            },
        })
    });
    quote! {
        /// One geometry value, printable for any arch (`?` when the arch has none).
        #[derive(Clone, Copy)]
        pub struct GeomRow {
            /// The spec name (`num_tpb`).
            pub name: &'static str,
            /// Write the value on an arch (`Debug` formatting; `?` when unknown).
            pub show: fn(crate::generated::geometry::Arch, &mut dyn fmt::Write) -> fmt::Result,
        }

        impl fmt::Debug for GeomRow {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name)
            }
        }

        /// Every geometry value (rules excluded), in spec order.
        pub static GEOMETRY: &[GeomRow] = &[#(#rows)*];
    }
}
