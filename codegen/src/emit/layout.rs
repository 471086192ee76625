//! `layout.rs`: every plain struct as an owned type, plus the field helpers that
//! `arms.rs` shares (field declarations, decode/encode bodies, typed enum getters).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};

use crate::model::{Field, FieldType, Model, Struct};

use super::doc::{code, Doc};
use super::names;
use super::tokens::{self, enum_view, enum_view_type, field_type, read, usize_lit, write, Offset};

/// The whole file.
pub fn emit(model: &Model) -> TokenStream {
    let items = model.structs.iter().filter(|s| !s.is_group).map(|s| struct_items(model, s));
    quote! { #(#items)* }
}

/// One struct: declaration, impl, `Default`, size assert.
fn struct_items(model: &Model, s: &Struct) -> TokenStream {
    let name = names::ty(&s.name);
    let size = usize_lit(s.size);
    let doc = Doc::of(model, &s.meta, format!("The struct {}.", code(&s.name)))
        .note(format!("{} bytes, little-endian; decoding and encoding keep every byte.", s.size));
    let decl = fields_decl(model, &s.fields);
    let b = quote! { b };
    let base = Offset::based(quote! { base }, 0);
    let reads = read_fields(model, &s.fields, &b, &base);
    let writes = write_fields(model, &s.fields, &b, &base);
    let getters = enum_methods(model, &s.fields);
    let assert = size_assert(model, &name, &s.fields);
    let serde = serde_derive();
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #serde
        pub struct #name {
            #(#decl)*
        }

        impl #name {
            /// Size in bytes.
            pub const SIZE: usize = #size;

            /// Decode from exactly [`Self::SIZE`] bytes; never fails.
            #[must_use]
            #[inline]
            pub const fn decode(b: &[u8; #size]) -> #name {
                #name::read_from(b, 0)
            }

            /// Encode to [`Self::SIZE`] bytes; `decode` of the result gives `self` back.
            #[must_use]
            pub fn encode(&self) -> [u8; #size] {
                let mut b = [0u8; #size];
                self.write_to(&mut b, 0);
                b
            }

            /// Decode from `b[base..base + SIZE]`; the callers pass in-range offsets.
            #[inline]
            pub(crate) const fn read_from(b: &[u8], base: usize) -> #name {
                #reads
            }

            /// Encode into `b[base..base + SIZE]`; the callers pass in-range offsets.
            #[inline]
            pub(crate) fn write_to(&self, b: &mut [u8], base: usize) {
                #writes
            }

            #getters
        }

        impl Default for #name {
            /// All bytes zero.
            fn default() -> #name {
                #name::decode(&[0u8; #size])
            }
        }

        #assert
    }
}

/// The Rust name of a field.
pub fn field_ident(f: &Field) -> Ident {
    names::snake(&f.name)
}

/// The doc of a field: spec docs or a fallback, its byte range, enum hint, provenance.
pub fn field_doc(model: &Model, f: &Field) -> Doc {
    let fallback = if f.is_reserved() {
        "Reserved bytes, kept verbatim.".to_owned()
    } else {
        format!("The {} field.", code(&f.name))
    };
    let mut doc = Doc::of(model, &f.meta, fallback).note(format!(
        "Bytes `{}..{}`.",
        f.offset,
        f.offset + f.size
    ));
    if let Some(e) = enum_of(&f.ty) {
        doc = doc.note(format!(
            "Raw {} value; the method of the same name gives the typed value.",
            code(&model[e].name)
        ));
    }
    if let Some(g) = &f.group {
        let group = &model[g.group];
        let prefix = g.prefix.as_deref().map(|p| format!(" as {p}")).unwrap_or_default();
        doc = doc
            .note(format!(
                "Placed by {} at +{}.",
                code(&format!("use {}{prefix}", group.name)),
                g.base
            ))
            .with_provenance(model, &group.meta)
            .with_provenance(model, &g.meta);
    }
    doc
}

/// The enum an enum-typed (or array-of-enum) field holds.
pub fn enum_of(ty: &FieldType) -> Option<crate::model::EnumId> {
    match ty {
        FieldType::Enum(e) => Some(*e),
        FieldType::Array(t, _) => enum_of(t),
        _ => None,
    }
}

/// The derive and, for arrays longer than serde's 32, `serde_big_array`'s adapter.
pub fn serde_derive() -> TokenStream {
    quote! { #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))] }
}

fn serde_big_array(ty: &FieldType) -> Option<TokenStream> {
    let n = match ty {
        FieldType::Reserved(n) | FieldType::Array(_, n) => *n,
        _ => return None,
    };
    (n > 32).then(
        || quote! { #[cfg_attr(feature = "serde", serde(with = "serde_big_array::BigArray"))] },
    )
}

/// `pub name: T,` with docs, per field.
pub fn fields_decl(model: &Model, fields: &[Field]) -> Vec<TokenStream> {
    fields
        .iter()
        .map(|f| {
            let doc = field_doc(model, f);
            let ident = field_ident(f);
            let ty = field_type(model, &f.ty);
            let big = serde_big_array(&f.ty);
            quote! { #doc #big pub #ident: #ty, }
        })
        .collect()
}

/// `Self { a: <read a>, ... }` reading every field from `b` at `base + offset`.
pub fn read_fields(model: &Model, fields: &[Field], b: &TokenStream, base: &Offset) -> TokenStream {
    let inits = fields.iter().map(|f| {
        let ident = field_ident(f);
        let value = read(model, &f.ty, b, &base.plus(f.offset), 0);
        quote! { #ident: #value, }
    });
    quote! { Self { #(#inits)* } }
}

/// Statements writing every field of `self` into `b` at `base + offset`.
pub fn write_fields(
    model: &Model,
    fields: &[Field],
    b: &TokenStream,
    base: &Offset,
) -> TokenStream {
    let stmts = fields.iter().map(|f| {
        let ident = field_ident(f);
        write(model, &f.ty, b, &base.plus(f.offset), quote! { self.#ident }, 0)
    });
    quote! { #(#stmts)* }
}

/// prost-style typed getters (and setters, for scalars) of the enum-typed fields.
pub fn enum_methods(model: &Model, fields: &[Field]) -> TokenStream {
    let methods = fields.iter().filter_map(|f| {
        let view = enum_view_type(model, &f.ty)?;
        let ident = field_ident(f);
        let e = enum_of(&f.ty)?;
        let get = enum_view(model, &f.ty, quote! { self.#ident });
        let get_doc = Doc::text(format!(
            "The typed {} of {}; the raw value when the spec names none.",
            code(&model[e].name),
            code(&f.name)
        ));
        let setter = matches!(f.ty, FieldType::Enum(_)).then(|| {
            let set = names::snake_join(&["set", &f.name]);
            let ty = names::ty(&model[e].name);
            let set_doc = Doc::text(format!("Set {} to a named value.", code(&f.name)));
            quote! {
                #set_doc
                #[inline]
                pub fn #set(&mut self, v: crate::generated::opcode::#ty) {
                    self.#ident = v.value();
                }
            }
        });
        // `Result` is already `#[must_use]` (clippy's `double_must_use`); arrays are not.
        let must_use = (!matches!(f.ty, FieldType::Enum(_))).then(|| quote! { #[must_use] });
        Some(quote! {
            #get_doc
            #must_use
            pub fn #ident(&self) -> #view {
                #get
            }
            #setter
        })
    });
    quote! { #(#methods)* }
}

/// `const _: () = assert!(<field sizes> == X::SIZE);`, nested structs by their own `SIZE`.
pub fn size_assert(model: &Model, name: &Ident, fields: &[Field]) -> TokenStream {
    let mut literal = 0u32;
    let mut terms = Vec::new();
    for f in fields {
        match size_term(model, &f.ty) {
            Some(t) => terms.push(t),
            None => literal += f.size,
        }
    }
    if literal > 0 || terms.is_empty() {
        terms.push(tokens::usize_lit(literal).into_token_stream());
    }
    let text = format!("the fields of {name} do not add up to its size");
    quote! {
        const _: () = assert!(#(#terms)+* == #name::SIZE, #text);
    }
}

/// `T::SIZE` or `N * T::SIZE` for struct-typed fields (and arrays of them).
fn size_term(model: &Model, ty: &FieldType) -> Option<TokenStream> {
    match ty {
        FieldType::Struct(s) => {
            let n = names::ty(&model[*s].name);
            Some(quote! { crate::generated::layout::#n::SIZE })
        }
        FieldType::Array(t, n) => {
            let inner = size_term(model, t)?;
            let n = usize_lit(*n);
            Some(quote! { #n * #inner })
        }
        _ => None,
    }
}

/// `x_raw` accessor name of a view.
pub fn raw_ident(f: &Field) -> Ident {
    format_ident!("{}_raw", names::snake_str(&f.name))
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn nested_arrays_and_enums() {
        let text = emit(&fixture::model()).to_string();
        assert!(text.contains("pub struct Header"), "{text}");
        assert!(!text.contains("DtypePair"), "groups are not emitted");
        assert!(text.contains(
            "pub fn opcode (& self) -> Result < crate :: generated :: opcode :: Opcode , u8 >"
        ));
        assert!(text.contains("crate :: raw :: le :: i16_at (b , base + 4 + i0 * 2)"), "{text}");
    }
}
