//! `operand.rs`: every `bits` type as an integer newtype with bit-field getters and setters.

use std::collections::BTreeMap;

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::model::{Alt, BitField, BitType, Bits, Model};

use super::doc::{code, Doc};
use super::imports::Imports;
use super::names;
use super::tokens::{dec, hex, uint_for_bits};
use super::{Chunks, ItemChunks};

/// The whole file, one chunk per type (see `emit::render`).
pub fn emit(model: &Model) -> Box<dyn Chunks + '_> {
    let items = model.bits.iter().map(|b| bits_items(model, b));
    Box::new(ItemChunks::new(model, items, Imports::new(&["opcode"], Vec::new())))
}

/// One bit-field with the Rust name it gets (alternatives' fields are prefixed with the
/// alternative's name when another field of the type has the same name).
pub(super) struct Named<'a> {
    pub(super) field: &'a BitField,
    pub(super) alt: Option<&'a Alt>,
    pub(super) name: String,
}

/// Every bit-field of a type, top level first, with collision-free names.
pub(super) fn named_fields(b: &Bits) -> Vec<Named<'_>> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    let all = b
        .fields
        .iter()
        .map(|f| (f, None))
        .chain(b.alts.iter().flat_map(|a| a.fields.iter().map(move |f| (f, Some(a)))));
    let all: Vec<(&BitField, Option<&Alt>)> = all.collect();
    for (f, _) in &all {
        *count.entry(f.name.as_str()).or_default() += 1;
    }
    all.into_iter()
        .map(|(field, alt)| {
            let name = match alt {
                Some(a) if count[field.name.as_str()] > 1 => format!("{}_{}", a.name, field.name),
                _ => field.name.clone(),
            };
            Named { field, alt, name }
        })
        .collect()
}

/// The newtype, its impl, its form enum (when it has alternatives) and conversions.
fn bits_items(model: &Model, b: &Bits) -> TokenStream {
    let name = names::ident(&b.rust);
    let w = b.width;
    let doc = Doc::of(model, &b.meta, format!("The operand type {}.", code(&b.name)))
        .note(format!("A {} with named bit ranges; every bit is kept as given.", code(w.as_str())));
    let fields = named_fields(b);
    let accessors = fields.iter().map(|f| accessor(model, b, f));
    let preds = b.alts.iter().map(|a| alt_predicate(b, &fields, a));
    let form = form_items(model, b);
    quote! {
        #doc
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub struct #name(pub #w);

        impl #name {
            /// Wrap a raw value.
            #[must_use]
            #[inline]
            pub const fn new(bits: #w) -> #name {
                #name(bits)
            }

            /// The raw value.
            #[must_use]
            #[inline]
            pub const fn bits(self) -> #w {
                self.0
            }

            #(#accessors)*
            #(#preds)*
        }

        #form

        impl From<#w> for #name {
            fn from(bits: #w) -> #name {
                #name(bits)
            }
        }

        impl From<#name> for #w {
            fn from(v: #name) -> #w {
                v.0
            }
        }
    }
}

/// The getter and the `with_` builder of one bit-field, typed by its spec type.
fn accessor(model: &Model, b: &Bits, f: &Named<'_>) -> TokenStream {
    let w = b.width;
    let (lo, hi) = (f.field.lo, f.field.hi);
    let raw = uint_for_bits(hi - lo);
    let get = names::snake(&f.name);
    let with = names::snake_join(&["with", &f.name]);
    let mask = hex(f.field.mask());
    let shift = dec(lo as u64);
    let mut head = format!("Bits `{lo}..{hi}`");
    if let Some(a) = f.alt {
        head.push_str(&format!(" in the {} form", code(&a.name)));
    }
    let doc = Doc::member(model, &f.field.meta, &b.meta, head);
    // Raw value: shift down, mask unless the field reaches the top bit, narrow if needed.
    // `self.0`, then `>> lo`, `& ones`, `as T`: parenthesised only where precedence needs.
    let mut get_expr = quote! { self.0 };
    let mut bare = true;
    if lo > 0 {
        get_expr = quote! { #get_expr >> #shift };
        bare = false;
    }
    if hi < w.bits() {
        let ones = hex(ones(hi - lo));
        get_expr = if bare {
            quote! { #get_expr & #ones }
        } else {
            quote! { (#get_expr) & #ones }
        };
        bare = false;
    }
    if raw != w {
        get_expr = if bare {
            quote! { #get_expr as #raw }
        } else {
            quote! { (#get_expr) as #raw }
        };
    }
    let (ty, get_expr, to_raw) = match f.field.ty {
        BitType::Uint => (quote! { #raw }, get_expr, quote! { v }),
        BitType::Bool => (quote! { bool }, quote! { #get_expr != 0 }, quote! { v as #raw }),
        BitType::Enum(e) => {
            let en = names::ident(&model[e].rust);
            let ew = model[e].width;
            let conv = if ew == raw {
                quote! { #get_expr }
            } else {
                quote! { (#get_expr) as #ew }
            };
            let back = if ew == raw {
                quote! { v.0 }
            } else {
                quote! { v.0 as #raw }
            };
            (quote! { #en }, quote! { #en(#conv) }, back)
        }
    };
    let full = lo == 0 && hi == w.bits();
    let with_body = if full {
        quote! { Self(#to_raw) }
    } else {
        let mut v = quote! { (#to_raw) };
        if raw != w {
            v = quote! { (#v as #w) };
        }
        if lo > 0 {
            v = quote! { (#v << #shift) };
        }
        quote! { Self((self.0 & !#mask) | (#v & #mask)) }
    };
    // A setter masks `v` to the field: say so where `v`'s type is wider than the field.
    let width = hi - lo;
    let value_bits = match f.field.ty {
        BitType::Uint => raw.bits(),
        BitType::Bool => 1,
        BitType::Enum(e) => model[e].width.bits(),
    };
    let mut with_text = format!("A copy with {} set to `v`.", code(&f.name));
    if width < value_bits {
        with_text.push_str(&format!(
            " The field is {width} bit{} wide: higher bits of `v` are dropped, not an error.",
            if width == 1 { "" } else { "s" }
        ));
    }
    let with_doc = Doc::text(with_text);
    quote! {
        #doc
        #[must_use]
        #[inline]
        pub const fn #get(self) -> #ty {
            #get_expr
        }

        #with_doc
        #[must_use]
        #[inline]
        pub const fn #with(self, v: #ty) -> Self {
            #with_body
        }
    }
}

fn ones(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// `marker & 0xA0 == 0x80`, or `otherwise`, as text for docs.
fn alt_condition(b: &Bits, a: &Alt) -> String {
    match &a.when {
        Some(p) => {
            let f = &b.fields[p.field as usize];
            code(&format!(
                "{} & {} == {}",
                f.name,
                super::tokens::hex_text(p.mask),
                super::tokens::hex_text(p.value)
            ))
        }
        None => "when no other form's condition holds".to_owned(),
    }
}

/// `pub const fn is_<alt>(self) -> bool`.
fn alt_predicate(b: &Bits, fields: &[Named<'_>], a: &Alt) -> TokenStream {
    let method = names::snake_join(&["is", &a.name]);
    let doc = Doc::text(format!(
        "Whether the operand is in the {} form: {}.",
        code(&a.name),
        alt_condition(b, a)
    ));
    let body = match &a.when {
        Some(p) => {
            let f = &b.fields[p.field as usize];
            let _ = fields;
            // Test the bits in place, whatever the field's type.
            let mask = hex((p.mask & ones(f.hi - f.lo)) << f.lo);
            let value = hex((p.value & ones(f.hi - f.lo)) << f.lo);
            quote! { (self.0 & #mask) == #value }
        }
        None => {
            let others: Vec<Ident> = b
                .alts
                .iter()
                .filter(|o| o.when.is_some())
                .map(|o| names::snake_join(&["is", &o.name]))
                .collect();
            if others.is_empty() {
                quote! { true }
            } else {
                quote! { !(#(self.#others())||*) }
            }
        }
    };
    quote! {
        #doc
        #[must_use]
        #[inline]
        pub const fn #method(self) -> bool {
            #body
        }
    }
}

/// `pub enum XForm` and `fn form(self)` when the type has alternatives.
fn form_items(model: &Model, b: &Bits) -> TokenStream {
    if b.alts.is_empty() {
        return TokenStream::new();
    }
    let name = names::ident(&b.rust);
    let form = names::type_join(&[&b.name, "form"]);
    let has_otherwise = b.alts.iter().any(|a| a.when.is_none());
    let variants = b.alts.iter().map(|a| {
        let v = names::ident(&a.rust);
        let doc = Doc::of(
            model,
            &a.meta,
            format!("The {} form: {}.", code(&a.name), alt_condition(b, a)),
        );
        quote! { #doc #v, }
    });
    let chain: Vec<TokenStream> = b
        .alts
        .iter()
        .filter(|a| a.when.is_some())
        .map(|a| {
            let is = names::snake_join(&["is", &a.name]);
            let v = names::ident(&a.rust);
            let value = if has_otherwise {
                quote! { #form::#v }
            } else {
                quote! { Some(#form::#v) }
            };
            quote! { if self.#is() { return #value; } }
        })
        .collect();
    let fallback = match b.alts.iter().find(|a| a.when.is_none()) {
        Some(a) => {
            let v = names::ident(&a.rust);
            quote! { #form::#v }
        }
        None => quote! { None },
    };
    let ret = if has_otherwise {
        quote! { #form }
    } else {
        quote! { Option<#form> }
    };
    let form_doc = Doc::text(format!("The alternative readings of {}.", code(&b.name)));
    let fn_doc = Doc::text(if has_otherwise {
        "Which form the operand is in: the first whose condition holds, in spec order."
    } else {
        "Which form the operand is in: the first whose condition holds, in spec order; `None` when none does."
    });
    quote! {
        #form_doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum #form {
            #(#variants)*
        }

        impl #name {
            #fn_doc
            #[must_use]
            pub const fn form(self) -> #ret {
                #(#chain)*
                #fallback
            }
        }
    }
}
