//! Tests of a generation against a set of generations, as tokens.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{ArchId, Model};

use super::names;

/// The `Arch` variant of a generation.
pub fn arch_variant(model: &Model, a: ArchId) -> TokenStream {
    let v = names::ty(&model[a].name);
    quote! { Arch::#v }
}

/// `matches!(arch, Arch::A | Arch::B)`, `true` when the set holds every generation, and
/// `false` when it is empty.
pub fn arch_test(model: &Model, archs: &[ArchId], arch: &TokenStream) -> TokenStream {
    if archs.len() == model.archs.len() {
        return quote! { true };
    }
    if archs.is_empty() {
        return quote! { false };
    }
    let vs = archs.iter().map(|&a| arch_variant(model, a));
    quote! { matches!(#arch, #(#vs)|*) }
}

/// The set as a mask, bit `a.0` for each generation `a`: the generated tables' form
/// (`arch as u8` picks the bit), which holds the first eight generations (a ninth and
/// later have no bit).
pub fn arch_bits(archs: &[ArchId]) -> u8 {
    archs.iter().fold(0u8, |m, a| m | 1u8.checked_shl(a.0).unwrap_or(0))
}
