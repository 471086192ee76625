//! `arms.rs`: per arm an owned struct with every field of the record, a borrowed
//! zero-copy view with `const fn` accessors at the spec's offsets, and `ArmKind`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::model::{Arm, ArmId, Field, FieldType, Model};

use super::doc::{code, Doc};
use super::layout::{self, enum_of, field_doc, field_ident, raw_ident};
use super::names;
use super::opcode::arch_test;
use super::tokens::{enum_view_type, field_type, hex_text, hex_width, read, usize_lit, Offset};

/// The whole file.
pub fn emit(model: &Model) -> TokenStream {
    let kind = arm_kind(model);
    let arms = model.arm_ids().map(|id| arm_items(model, id));
    quote! {
        use crate::generated::geometry::Arch;
        use crate::generated::inst::RECORD_SIZE;

        #kind
        #(#arms)*
    }
}

/// The Rust type of an arm.
pub fn arm_type(arm: &Arm) -> Ident {
    names::ty(&arm.name)
}

/// The view type of an arm (`CtrlAlRef`).
pub fn ref_type(arm: &Arm) -> Ident {
    format_ident!("{}Ref", names::type_str(&arm.name))
}

/// The record's full layout for an arm: preamble fields, then the arm's.
fn all_fields(model: &Model, id: ArmId) -> Vec<Field> {
    model.arm_fields(id).cloned().collect()
}

/// The opcode values that select an arm, sorted and unique.
fn opcodes(model: &Model, id: ArmId) -> Vec<u64> {
    let mut v: Vec<u64> = model.bindings_of(id).map(|b| b.opcode).collect();
    v.dedup();
    v
}

/// `pub enum ArmKind` with `ALL`, `name`, `opcodes` and `available_on`.
fn arm_kind(model: &Model) -> TokenStream {
    let record_width = record_width(model);
    let variants: Vec<Ident> = model.arms.iter().map(arm_type).collect();
    let spec_names: Vec<&str> = model.arms.iter().map(|a| a.name.as_str()).collect();
    let n = usize_lit(model.arms.len() as u32);
    let decls = model.arm_ids().map(|id| {
        let arm = &model[id];
        let v = arm_type(arm);
        let doc = Doc::text(format!("{}: see [`{v}`].", code(&arm.name)));
        quote! { #doc #v, }
    });
    let avail_arms: Vec<TokenStream> = model
        .arms
        .iter()
        .filter_map(|a| {
            let archs = a.meta.archs.as_ref()?;
            let v = arm_type(a);
            let test = arch_test(model, archs);
            Some(quote! { ArmKind::#v => #test, })
        })
        .collect();
    let available = if avail_arms.is_empty() {
        quote! { let _ = arch; true }
    } else if avail_arms.len() < model.arms.len() {
        quote! { match self { #(#avail_arms)* _ => true } }
    } else {
        quote! { match self { #(#avail_arms)* } }
    };
    let bound: Vec<TokenStream> = model
        .arm_ids()
        .map(|id| {
            let v = arm_type(&model[id]);
            let b = model.bindings_of(id).next().is_some();
            quote! { ArmKind::#v => #b, }
        })
        .collect();
    quote! {
        /// Which arm a record is read as; every arm of the spec, bound or not.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ArmKind {
            #(#decls)*
        }

        impl ArmKind {
            /// Every arm, sorted by spec name.
            pub const ALL: [ArmKind; #n] = [#(ArmKind::#variants),*];

            /// The spec name of the arm (`PSEUDO_FUNCTION_BEGIN`).
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    #(ArmKind::#variants => #spec_names,)*
                }
            }

            /// The opcode values bound to the arm (empty for an arm only decoded explicitly).
            #[must_use]
            pub const fn opcodes(self) -> &'static [#record_width] {
                match self {
                    #(ArmKind::#variants => #variants::OPCODES,)*
                }
            }

            /// Whether a binding selects the arm, so that `Inst::decode` can produce it.
            #[must_use]
            pub const fn is_bound(self) -> bool {
                match self {
                    #(#bound)*
                }
            }

            /// Whether the arm exists on `arch` (the spec's `@archs`; all when absent).
            #[must_use]
            pub const fn available_on(self, arch: Arch) -> bool {
                #available
            }
        }
    }
}

/// The discriminant's integer type.
fn record_width(model: &Model) -> TokenStream {
    use quote::ToTokens;
    match model.records.first() {
        Some(r) => model[r.discriminant.ty].width.to_token_stream(),
        None => quote! { u8 },
    }
}

/// One arm: owned struct, impl, `Default`, view, size assert.
fn arm_items(model: &Model, id: ArmId) -> TokenStream {
    let arm = &model[id];
    let record = &model[arm.record];
    let name = arm_type(arm);
    let view = ref_type(arm);
    let kind = quote! { ArmKind::#name };
    let fields = all_fields(model, id);
    let size = usize_lit(record.size);
    let spec_name = &arm.name;
    let ops = opcodes(model, id);
    let width = model[record.discriminant.ty].width;
    let op_lits = ops.iter().map(|&v| hex_width(v, width.size()));
    let binding_note = if ops.is_empty() {
        "Not bound to an opcode: decode it explicitly; `Inst::decode` yields `Inst::Unknown` for it.".to_owned()
    } else {
        let list: Vec<String> = model
            .bindings_of(id)
            .map(|b| match &b.sub {
                Some(s) => {
                    format!("{} with byte {} == {}", code(&hex_text(b.opcode)), s.offset, s.value)
                }
                None => code(&hex_text(b.opcode)),
            })
            .collect();
        format!("Bound to opcode {}.", list.join(", "))
    };
    let doc = Doc::of(
        model,
        &arm.meta,
        format!("The arm {} of {}.", code(&arm.name), code(&record.name)),
    )
    .note(binding_note)
    .note(format!("The borrowed view is [`{view}`]."));
    let decl = layout::fields_decl(model, &fields);
    let b = quote! { b };
    let reads = layout::read_fields(model, &fields, &b, &Offset::at(0));
    let writes = layout::write_fields(model, &fields, &b, &Offset::at(0));
    let getters = layout::enum_methods(model, &fields);
    let assert = layout::size_assert(model, &name, &fields);
    let accessors = fields.iter().map(|f| view_accessor(model, f));
    let serde = layout::serde_derive();
    let view_doc = Doc::text(format!("A borrowed, zero-copy view of a record as [`{name}`]: accessors read at the spec's offsets."));
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #serde
        pub struct #name {
            #(#decl)*
        }

        impl #name {
            /// Size in bytes (the record size).
            pub const SIZE: usize = #size;
            /// The spec name.
            pub const NAME: &'static str = #spec_name;
            /// The arm's kind.
            pub const KIND: ArmKind = #kind;
            /// The opcode values bound to this arm, sorted.
            pub const OPCODES: &'static [#width] = &[#(#op_lits),*];

            /// Decode any record as this arm; never fails, every byte is kept.
            #[must_use]
            #[inline]
            pub const fn decode(b: &[u8; RECORD_SIZE]) -> #name {
                #reads
            }

            /// Encode to a record; `decode` of the result gives `self` back, and
            /// `decode` then `encode` is the identity on every input.
            #[must_use]
            #[inline]
            pub fn encode(&self) -> [u8; RECORD_SIZE] {
                let mut out = [0u8; RECORD_SIZE];
                let b = &mut out;
                #writes
                out
            }

            /// A view of `b` as this arm.
            #[must_use]
            #[inline]
            pub const fn view(b: &[u8; RECORD_SIZE]) -> #view<'_> {
                #view(b)
            }

            #getters
        }

        impl Default for #name {
            /// All bytes zero.
            fn default() -> #name {
                #name::decode(&[0u8; RECORD_SIZE])
            }
        }

        #view_doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct #view<'a>(pub &'a [u8; RECORD_SIZE]);

        impl<'a> #view<'a> {
            /// View `b` as this arm.
            #[must_use]
            pub const fn new(b: &'a [u8; RECORD_SIZE]) -> #view<'a> {
                #view(b)
            }

            /// Decode the whole record into the owned type.
            #[must_use]
            #[inline]
            pub const fn decode(&self) -> #name {
                #name::decode(self.0)
            }

            #(#accessors)*
        }

        #assert
    }
}

/// The `const fn` accessor of a view (and `_raw` for enum-typed fields).
fn view_accessor(model: &Model, f: &Field) -> TokenStream {
    let ident = field_ident(f);
    let doc = field_doc(model, f);
    let b = quote! { self.0 };
    let off = Offset::at(f.offset);
    let raw = read(model, &f.ty, &b, &off, 0);
    match enum_of(&f.ty) {
        None => {
            let ty = field_type(model, &f.ty);
            quote! {
                #doc
                #[must_use]
                #[inline]
                pub const fn #ident(&self) -> #ty {
                    #raw
                }
            }
        }
        Some(e) => {
            let raw_fn = raw_ident(f);
            let raw_ty = field_type(model, &f.ty);
            let view_ty = enum_view_type(model, &f.ty);
            let enum_ty = names::ty(&model[e].name);
            let raw_doc = Doc::text(format!(
                "The raw value of {} (bytes `{}..{}`).",
                code(&f.name),
                f.offset,
                f.offset + f.size
            ));
            let typed = if let FieldType::Enum(_) = f.ty {
                quote! {
                    #doc
                    #[inline]
                    pub const fn #ident(&self) -> #view_ty {
                        let v = self.#raw_fn();
                        match crate::generated::opcode::#enum_ty::from_value(v) {
                            Some(x) => Ok(x),
                            None => Err(v),
                        }
                    }
                }
            } else {
                let conv = super::tokens::enum_view(model, &f.ty, quote! { self.#raw_fn() });
                quote! {
                    #doc
                    #[must_use]
                    pub fn #ident(&self) -> #view_ty {
                        #conv
                    }
                }
            };
            quote! {
                #typed

                #raw_doc
                #[must_use]
                #[inline]
                pub const fn #raw_fn(&self) -> #raw_ty {
                    #raw
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn arms_have_views_and_opcodes() {
        let text = emit(&fixture::model()).to_string();
        assert!(
            text.contains("pub struct CtrlAlRef < 'a > (pub & 'a [u8 ; RECORD_SIZE])"),
            "{text}"
        );
        assert!(text.contains("pub const OPCODES : & 'static [u8] = & [0xDF]"));
        assert!(text.contains("pub const fn pseudo_opcode_raw (& self) -> u8 { crate :: raw :: le :: u8_at (self . 0 , 12) }"));
        assert!(text.contains("ArmKind :: CtrlAl => false"));
    }
}
