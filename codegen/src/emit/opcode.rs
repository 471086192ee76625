//! `opcode.rs`: every spec enum with `TryFrom`, names, `ALL`, bands and availability.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{ArchId, Band, Enum, EnumId, Meta, Model};

use super::doc::{code, Doc};
use super::names;
use super::tokens::{hex_text, hex_width, usize_lit};

/// The whole file.
pub fn emit(model: &Model) -> TokenStream {
    let enums = model.enum_ids().map(|id| enum_items(model, id));
    let bands = model.bands.iter().map(|b| band_fn(model, b));
    quote! {
        use core::fmt;

        use crate::generated::geometry::Arch;

        #(#enums)*
        #(#bands)*
    }
}

/// One enum: the type, its inherent impl, and its trait impls.
fn enum_items(model: &Model, id: EnumId) -> TokenStream {
    let e = &model[id];
    let decl = enum_decl(model, e);
    let inherent = inherent_impl(model, id);
    let traits = trait_impls(e);
    quote! { #decl #inherent #traits }
}

/// `#[repr(uN)] pub enum X { V = value, ... }`.
fn enum_decl(model: &Model, e: &Enum) -> TokenStream {
    let name = names::ty(&e.name);
    let width = e.width;
    let doc = Doc::of(model, &e.meta, format!("The spec enum {}.", code(&e.name))).note(format!(
        "Stored as {}; `TryFrom<{}>` gives the raw value back when the spec names none.",
        code(width.as_str()),
        width.as_str()
    ));
    let variants = e.variants.iter().map(|v| {
        let ident = names::variant(&v.name);
        let value = hex_width(v.value, width.size());
        let doc =
            Doc::of(model, &v.meta, format!("{} = {}.", code(&v.name), code(&hex_text(v.value))));
        quote! { #doc #ident = #value, }
    });
    // A zero-variant enum cannot have a `repr`; the lowering allows none today, but keep
    // the output valid for any model.
    let repr = (!e.variants.is_empty()).then(|| quote! { #[repr(#width)] });
    quote! {
        #doc
        #repr
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub enum #name {
            #(#variants)*
        }
    }
}

/// `ALL`, `value`, `name`, `from_value`, `from_name`, band queries and `available_on`.
fn inherent_impl(model: &Model, id: EnumId) -> TokenStream {
    let e = &model[id];
    let name = names::ty(&e.name);
    let width = e.width;
    let n = usize_lit(e.variants.len() as u32);
    let idents: Vec<_> = e.variants.iter().map(|v| names::variant(&v.name)).collect();
    let values: Vec<_> = e.variants.iter().map(|v| hex_width(v.value, width.size())).collect();
    let spec_names: Vec<&str> = e.variants.iter().map(|v| v.name.as_str()).collect();
    let bands = model.bands.iter().filter(|b| b.enum_id == id).map(|b| band_method(model, b));
    let available = available_on(model, e);
    quote! {
        impl #name {
            /// Every variant, in value order.
            pub const ALL: [#name; #n] = [#(#name::#idents),*];

            /// The raw value.
            #[must_use]
            #[inline]
            pub const fn value(self) -> #width {
                match self {
                    #(#name::#idents => #values,)*
                }
            }

            /// The spec name (`INVALID`, not `Invalid`).
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    #(#name::#idents => #spec_names,)*
                }
            }

            /// The variant with raw value `v`, if the spec names one.
            #[must_use]
            pub const fn from_value(v: #width) -> Option<#name> {
                match v {
                    #(#values => Some(#name::#idents),)*
                    _ => None,
                }
            }

            /// The variant with spec name `name` (exact, case-sensitive).
            #[must_use]
            pub fn from_name(name: &str) -> Option<#name> {
                match name {
                    #(#spec_names => Some(#name::#idents),)*
                    _ => None,
                }
            }

            #(#bands)*
            #available
        }
    }
}

/// `TryFrom<uN>`, `From<X> for uN` and `Display`.
fn trait_impls(e: &Enum) -> TokenStream {
    let name = names::ty(&e.name);
    let width = e.width;
    quote! {
        impl TryFrom<#width> for #name {
            type Error = #width;

            /// The variant with raw value `v`; the value itself when the spec names none.
            fn try_from(v: #width) -> Result<#name, #width> {
                match #name::from_value(v) {
                    Some(x) => Ok(x),
                    None => Err(v),
                }
            }
        }

        impl From<#name> for #width {
            fn from(v: #name) -> #width {
                v.value()
            }
        }

        impl fmt::Display for #name {
            /// The spec name.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    }
}

/// `const fn available_on(self, arch: Arch) -> bool` from the variants' (and the enum's) `@archs`.
fn available_on(model: &Model, e: &Enum) -> TokenStream {
    let name = names::ty(&e.name);
    let mut arms = Vec::new();
    for v in &e.variants {
        if let Some(archs) = &v.meta.archs {
            let ident = names::variant(&v.name);
            let test = arch_test(model, archs);
            arms.push(quote! { #name::#ident => #test, });
        }
    }
    let per_variant = if arms.is_empty() {
        quote! { true }
    } else {
        if arms.len() < e.variants.len() {
            arms.push(quote! { _ => true, });
        }
        quote! { match self { #(#arms)* } }
    };
    let body = match &e.meta.archs {
        Some(archs) => {
            let test = arch_test(model, archs);
            quote! { #test && #per_variant }
        }
        None if arms.is_empty() => quote! { let _ = arch; true },
        None => per_variant,
    };
    quote! {
        /// Whether the value exists on `arch` (the spec's `@archs`; all generations when absent).
        #[must_use]
        pub const fn available_on(self, arch: Arch) -> bool {
            #body
        }
    }
}

/// `matches!(arch, Arch::A | Arch::B)`, or `false` for an empty set.
pub fn arch_test(model: &Model, archs: &[ArchId]) -> TokenStream {
    if archs.is_empty() {
        return quote! { false };
    }
    let variants = archs.iter().map(|&a| names::variant(&model[a].name));
    quote! { matches!(arch, #(Arch::#variants)|*) }
}

/// The `is_<band>` method on the enum.
fn band_method(model: &Model, b: &Band) -> TokenStream {
    let e = &model[b.enum_id];
    let method = names::snake_join(&["is", &b.name]);
    let free = band_fn_name(model, b);
    let doc = band_doc(model, b, &b.meta, e);
    quote! {
        #doc
        #[must_use]
        #[inline]
        pub const fn #method(self) -> bool {
            #free(self.value())
        }
    }
}

/// `pub const fn is_<enum>_<band>(v: uN) -> bool`, true for unnamed values in the band too.
fn band_fn(model: &Model, b: &Band) -> TokenStream {
    let e = &model[b.enum_id];
    let width = e.width;
    let name = band_fn_name(model, b);
    let doc =
        band_doc(model, b, &b.meta, e).note("Any raw value counts, named by the spec or not.");
    let pats: Vec<TokenStream> = b
        .ranges
        .iter()
        .map(|&(lo, hi)| {
            let lo_t = hex_width(lo, width.size());
            let hi_t = hex_width(hi, width.size());
            if lo == hi {
                quote! { #lo_t }
            } else {
                quote! { #lo_t..=#hi_t }
            }
        })
        .collect();
    let body = if pats.is_empty() {
        quote! { let _ = v; false }
    } else {
        quote! { matches!(v, #(#pats)|*) }
    };
    quote! {
        #doc
        #[must_use]
        #[inline]
        pub const fn #name(v: #width) -> bool {
            #body
        }
    }
}

fn band_fn_name(model: &Model, b: &Band) -> proc_macro2::Ident {
    names::snake_join(&["is", &model[b.enum_id].name, &b.name])
}

fn band_doc(model: &Model, b: &Band, meta: &Meta, e: &Enum) -> Doc {
    let ranges: Vec<String> =
        b.ranges
            .iter()
            .map(|&(lo, hi)| {
                if lo == hi {
                    hex_text(lo)
                } else {
                    format!("{}..={}", hex_text(lo), hex_text(hi))
                }
            })
            .collect();
    Doc::of(
        model,
        meta,
        format!("Whether the value is in the band {}.", code(&format!("{}.{}", e.name, b.name))),
    )
    .note(format!("Values: {}.", code(&ranges.join(" | "))))
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn bands_and_availability() {
        let text = emit(&fixture::model()).to_string();
        assert!(text.contains("pub const fn is_opcode_host_only (v : u8) -> bool { matches ! (v , 0xA9 | 0xC1 ..= 0xDF) }"), "{text}");
        assert!(text.contains(
            "Opcode :: JpegDecode => matches ! (arch , Arch :: Cayman | Arch :: Mariana)"
        ));
        assert!(text.contains("pub const ALL : [Opcode ; 7]"));
    }
}
