//! `opcode.rs`: every spec enum as an open newtype with one constant per named value,
//! the opcode table's facts (status, engines, arm), bands and vocabularies.
//!
//! An enum is a newtype over its width, not a Rust `enum`: a field of an enum type holds
//! any value of the width, named or not, so decoding stays lossless and a value added
//! to the spec is additive for every downstream `match`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Band, Enum, EnumId, Model, Status, Vocab};

use super::arch_set::arch_test;
use super::doc::{code, Doc};
use super::imports::Imports;
use super::names;
use super::tokens::{hex_width, patterns};
use super::{Chunks, ItemChunks};

/// The whole file, one chunk per enum and vocabulary (see `emit::render`).
pub fn emit(model: &Model) -> Box<dyn Chunks + '_> {
    let enums = model.enum_ids().map(|id| enum_items(model, id));
    let vocabs = model.vocabs.iter().map(|v| vocab(model, v));
    let imports = Imports::new(
        &[],
        vec![
            ("fmt", quote! { core::fmt }),
            ("Status", quote! { crate::facts::Status }),
            ("ArmKind", quote! { crate::generated::arms::ArmKind }),
            ("Arch", quote! { crate::generated::geometry::Arch }),
        ],
    );
    Box::new(ItemChunks::new(model, enums.chain(vocabs), imports))
}

/// One enum: the newtype, its constants and queries, and its trait impls.
fn enum_items(model: &Model, id: EnumId) -> TokenStream {
    let e = &model[id];
    let name = names::ident(&e.rust);
    let width = e.width;
    let doc = Doc::of(model, &e.meta, format!("The spec enum {}.", code(&e.name))).note(format!(
        "Any {} is a value: a constant names each value the spec names, and an unnamed value \
         decodes, prints as hex and re-encodes unchanged.",
        code(width.as_str())
    ));
    let consts = e.variants.iter().map(|v| {
        let c = names::ident(&v.rust);
        let value = hex_width(v.value, width.size());
        let doc = Doc::member(
            model,
            &v.meta,
            &e.meta,
            code(&hex_width(v.value, width.size()).to_string()),
        );
        quote! { #doc pub const #c: #name = #name(#value); }
    });
    let spec = e.name.as_str();
    let values: Vec<_> = e.variants.iter().map(|v| hex_width(v.value, width.size())).collect();
    let spec_names: Vec<&str> = e.variants.iter().map(|v| v.name.as_str()).collect();
    let name_body = if e.variants.is_empty() {
        quote! { let _ = self; None }
    } else {
        quote! {
            match self.0 {
                #(#values => Some(#spec_names),)*
                _ => None,
            }
        }
    };
    let consts_list: Vec<_> = e.variants.iter().map(|v| names::ident(&v.rust)).collect();
    let bands = model.bands.iter().filter(|b| b.enum_id == id).map(|b| band_method(model, b));
    let available = available_on(model, e);
    let opcode = (id == model.opcode_enum()).then(|| opcode_facts(model, e));
    quote! {
        #doc
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[repr(transparent)]
        pub struct #name(pub #width);

        // By value name in human-readable formats, else the integer (`enum_serde`).
        #[cfg(feature = "serde")]
        crate::enum_serde::named_serde!(#name, #width, #spec);

        impl #name {
            #(#consts)*

            /// Every named value, in value order.
            #[must_use]
            pub const fn known() -> &'static [#name] {
                &[#(#name::#consts_list),*]
            }

            /// The spec name of the value, if the spec names it.
            #[must_use]
            pub const fn name(self) -> Option<&'static str> {
                #name_body
            }

            /// The value the spec names `name` (exact, case-sensitive).
            #[must_use]
            pub fn from_name(name: &str) -> Option<#name> {
                #name::known().iter().copied().find(|v| v.name() == Some(name))
            }

            /// Whether the spec names the value.
            #[must_use]
            pub const fn is_known(self) -> bool {
                self.name().is_some()
            }

            #(#bands)*
            #available
            #opcode
        }

        impl From<#width> for #name {
            fn from(v: #width) -> #name {
                #name(v)
            }
        }

        impl From<#name> for #width {
            fn from(v: #name) -> #width {
                v.0
            }
        }

        impl fmt::Debug for #name {
            /// The value's name, or the type's name and the raw value in hex when the
            /// spec names none.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "{}({:#x})", stringify!(#name), self.0),
                }
            }
        }

        impl fmt::Display for #name {
            /// The spec name, or the raw value in hex.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "{:#x}", self.0),
                }
            }
        }
    }
}

/// `available_on(arch)`: whether the value exists on a generation (named values with
/// `@archs`; every other value, named or not, answers true).
fn available_on(model: &Model, e: &Enum) -> TokenStream {
    // Group values by their generation set so each set is tested once.
    let mut groups: Vec<(&Vec<crate::model::ArchId>, Vec<u64>)> = Vec::new();
    for v in &e.variants {
        let Some(archs) = &v.meta.archs else { continue };
        let value = v.value;
        match groups.iter_mut().find(|(a, _)| *a == archs) {
            Some((_, vs)) => vs.push(value),
            None => groups.push((archs, vec![value])),
        }
    }
    let arms = groups.iter().map(|(archs, values)| {
        let test = arch_test(model, archs, &quote! { arch });
        let pats = patterns(values, e.width.size());
        quote! { #(#pats)|* => #test, }
    });
    let body = if groups.is_empty() {
        quote! { let _ = arch; true }
    } else {
        quote! {
            match self.0 {
                #(#arms)*
                _ => true,
            }
        }
    };
    quote! {
        /// Whether the value exists on `arch` (the spec's `@archs`; true for a value the
        /// spec does not restrict or does not name).
        #[must_use]
        pub const fn available_on(self, arch: Arch) -> bool {
            #body
        }
    }
}

/// The opcode table's facts: the arm of each plainly bound opcode, status, engines.
fn opcode_facts(model: &Model, e: &Enum) -> TokenStream {
    let w = e.width.size();
    let arm_rows = model.bindings.iter().filter(|b| b.sub.is_none()).map(|b| {
        let v = hex_width(b.opcode, w);
        let kind = names::ident(&model[b.arm].rust);
        quote! { #v => Some(ArmKind::#kind), }
    });
    let sub_rows: Vec<_> = {
        let mut ops: Vec<u64> =
            model.bindings.iter().filter(|b| b.sub.is_some()).map(|b| b.opcode).collect();
        ops.dedup();
        ops.into_iter().map(|o| hex_width(o, w)).collect()
    };
    let sub_body = if sub_rows.is_empty() {
        quote! { let _ = self; false }
    } else {
        quote! { matches!(self.0, #(#sub_rows)|*) }
    };
    let mut by_status: Vec<(Status, Vec<u64>)> = Vec::new();
    for v in &e.variants {
        if let Some(s) = v.status {
            let value = v.value;
            match by_status.iter_mut().find(|(x, _)| *x == s) {
                Some((_, vs)) => vs.push(value),
                None => by_status.push((s, vec![value])),
            }
        }
    }
    let status_rows = by_status.iter().map(|(s, vs)| {
        let s = names::ident(&names::type_str(s.as_str()));
        let pats = patterns(vs, w);
        quote! { #(#pats)|* => Some(Status::#s), }
    });
    let engine_rows = model.record.engines.map(|voc| {
        let voc = &model[voc];
        let ty = names::ident(&voc.rust);
        let mut groups: Vec<(&Vec<u32>, Vec<u64>)> = Vec::new();
        for v in e.variants.iter().filter(|v| !v.engines.is_empty()) {
            let value = v.value;
            match groups.iter_mut().find(|(g, _)| *g == &v.engines) {
                Some((_, vs)) => vs.push(value),
                None => groups.push((&v.engines, vec![value])),
            }
        }
        let rows = groups.iter().map(|(eng, vs)| {
            let words = eng.iter().map(|&k| names::ident(&voc.words[k as usize].rust));
            let pats = patterns(vs, w);
            quote! { #(#pats)|* => &[#(#ty::#words),*], }
        });
        quote! {
            /// The engines the opcode table ties the opcode to (its `@engine` words; empty
            /// when it names none): what the sources say, not every engine whose stream
            /// may hold it (compiled streams carry sync and copy opcodes on other engines).
            #[must_use]
            pub const fn engines(self) -> &'static [#ty] {
                match self.0 {
                    #(#rows)*
                    _ => &[],
                }
            }
        }
    });
    quote! {
        /// The arm records with this opcode are read as, when the opcode binds one arm
        /// (an opcode that sub-dispatches on another byte answers `None`; see
        /// [`Self::sub_dispatches`]).
        #[must_use]
        pub const fn arm(self) -> Option<ArmKind> {
            match self.0 {
                #(#arm_rows)*
                _ => None,
            }
        }

        /// Whether records with this opcode choose their arm by a sub-opcode byte.
        #[must_use]
        pub const fn sub_dispatches(self) -> bool {
            #sub_body
        }

        /// The maintained/dormant flag the opcode table gives (`None` for a value it
        /// does not name).
        #[must_use]
        pub const fn status(self) -> Option<Status> {
            match self.0 {
                #(#status_rows)*
                _ => None,
            }
        }

        #engine_rows
    }
}

/// `is_<band>(self)`: membership of a named value set.
fn band_method(model: &Model, b: &Band) -> TokenStream {
    let f = names::snake_join(&["is", &b.name]);
    let w = model[b.enum_id].width.size();
    let ranges = b.ranges.iter().map(|&(lo, hi)| {
        if lo == hi {
            let v = hex_width(lo, w);
            quote! { #v }
        } else {
            let (lo, hi) = (hex_width(lo, w), hex_width(hi, w));
            quote! { #lo..=#hi }
        }
    });
    let doc = Doc::of(model, &b.meta, format!("Whether the value is in band {}.", code(&b.name)));
    quote! {
        #doc
        #[must_use]
        pub const fn #f(self) -> bool {
            matches!(self.0, #(#ranges)|*)
        }
    }
}

/// A vocabulary: a plain Rust enum of names without encodings.
fn vocab(model: &Model, v: &Vocab) -> TokenStream {
    let name = names::ident(&v.rust);
    let doc = Doc::of(model, &v.meta, format!("The spec vocabulary {}.", code(&v.name)))
        .note("Names without an encoding: never stored in a record.");
    let words: Vec<_> = v.words.iter().map(|w| names::ident(&w.rust)).collect();
    let docs = v.words.iter().map(|w| Doc::member(model, &w.meta, &v.meta, code(&w.name)));
    let spec: Vec<&str> = v.words.iter().map(|w| w.name.as_str()).collect();
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[non_exhaustive]
        pub enum #name {
            #(#docs #words,)*
        }

        impl #name {
            /// The spec name.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    #(#name::#words => #spec,)*
                }
            }
        }

        impl fmt::Display for #name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    }
}
