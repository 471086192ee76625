//! Small token helpers shared by the emitters: literals, primitive types, byte offsets,
//! and the little-endian reads and writes of layout fields.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};

use crate::model::{FieldType, Model, Prim};

use super::names;

impl ToTokens for Prim {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        format_ident!("{}", self.as_str()).to_tokens(tokens);
    }
}

/// The smallest unsigned type that holds `bits` bits.
pub fn uint_for_bits(bits: u32) -> Prim {
    match bits {
        0..=8 => Prim::U8,
        9..=16 => Prim::U16,
        17..=32 => Prim::U32,
        _ => Prim::U64,
    }
}

/// An unsuffixed integer literal: decimal below 256 (counts, small values), else hex
/// grouped by four digits (addresses, masks, identifiers).
pub fn int(v: u64) -> Literal {
    if v < 256 {
        Literal::u64_unsuffixed(v)
    } else {
        hex(v)
    }
}

/// An unsuffixed decimal literal (sizes, offsets, counts).
pub fn dec(v: u64) -> Literal {
    Literal::u64_unsuffixed(v)
}

/// An unsuffixed `usize`-like decimal literal.
pub fn usize_lit(v: u32) -> Literal {
    Literal::usize_unsuffixed(v as usize)
}

/// An unsuffixed hex literal, `_` every four digits above 0xFFFF (`0x1FFF_FFFF`).
pub fn hex(v: u64) -> Literal {
    let digits = format!("{v:X}");
    let grouped = if digits.len() > 4 {
        let mut s = String::new();
        let first = digits.len() % 4;
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (i + 4 - first) % 4 == 0 {
                s.push('_');
            }
            s.push(c);
        }
        s
    } else {
        digits
    };
    hex_str(&format!("0x{grouped}"))
}

/// A hex literal with exactly `2 * bytes` digits (`0x00` for a u8 value).
pub fn hex_width(v: u64, bytes: u32) -> Literal {
    if bytes > 2 {
        return hex(v);
    }
    hex_str(&format!("0x{v:0w$X}", w = 2 * bytes as usize))
}

fn hex_str(s: &str) -> Literal {
    s.parse().unwrap_or_else(|_| unreachable!("{s} is a literal"))
}

/// Match patterns for a set of values, each its own literal, for a `match` that must
/// compile to one jump: rustc tests a range pattern apart from the `switch` on the
/// single values, after it, so the values of a range took a second jump table
/// (COPY and CAST, `0x46..=0x47`, two thirds of the corpus's Activation records).
pub fn singles(values: &[u64], width: u32) -> Vec<Literal> {
    values.iter().map(|&v| hex_width(v, width)).collect()
}

/// Match patterns for a sorted set of values: runs of consecutive values as ranges
/// (where code size, not one jump, matters: [`singles`]).
pub fn patterns(values: &[u64], width: u32) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let mut j = i;
        while j + 1 < values.len() && values[j + 1] == values[j] + 1 {
            j += 1;
        }
        let lo = hex_width(values[i], width);
        out.push(if j == i {
            quote! { #lo }
        } else {
            let hi = hex_width(values[j], width);
            quote! { #lo..=#hi }
        });
        i = j + 1;
    }
    out
}

/// A signed integer as tokens (`-1` is a negation of a literal).
pub fn signed(v: i128) -> TokenStream {
    let mag = v.unsigned_abs();
    let lit = if mag <= u64::MAX as u128 { int(mag as u64) } else { Literal::u128_unsuffixed(mag) };
    if v < 0 {
        quote! { -#lit }
    } else {
        lit.into_token_stream()
    }
}

/// `0x..` text of a value in docs.
pub fn hex_text(v: u64) -> String {
    format!("{v:#X}").replacen("0X", "0x", 1)
}

/// A byte offset `base + k + i * stride + ...`, folded so that no term is `+ 0` or `* 1`.
#[derive(Clone)]
pub struct Offset {
    base: Option<TokenStream>,
    konst: u32,
    terms: Vec<(TokenStream, u32)>,
}

impl Offset {
    /// A constant offset.
    pub fn at(konst: u32) -> Offset {
        Offset { base: None, konst, terms: Vec::new() }
    }

    /// `base + konst`, for helpers that take a base offset.
    pub fn based(base: TokenStream, konst: u32) -> Offset {
        Offset { base: Some(base), konst, terms: Vec::new() }
    }

    /// This offset plus `k`.
    pub fn plus(&self, k: u32) -> Offset {
        Offset { konst: self.konst + k, ..self.clone() }
    }

    /// This offset plus `index * stride`.
    pub fn indexed(&self, index: TokenStream, stride: u32) -> Offset {
        let mut o = self.clone();
        o.terms.push((index, stride));
        o
    }
}

impl ToTokens for Offset {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let mut parts: Vec<TokenStream> = Vec::new();
        if let Some(b) = &self.base {
            parts.push(b.clone());
        }
        if self.konst != 0 || (self.base.is_none() && self.terms.is_empty()) {
            parts.push(usize_lit(self.konst).into_token_stream());
        }
        for (index, stride) in &self.terms {
            parts.push(if *stride == 1 {
                index.clone()
            } else {
                let s = usize_lit(*stride);
                quote! { #index * #s }
            });
        }
        tokens.extend(quote! { #(#parts)+* });
    }
}

/// The owned Rust type of a layout field: spec types by their generated name (imported
/// by each generated module), floats as their bits, arrays as arrays, reserved and
/// unknown bytes as `[u8; N]`.
pub fn field_type(model: &Model, ty: &FieldType) -> TokenStream {
    match ty {
        FieldType::Prim(Prim::F32) => quote! { F32 },
        FieldType::Prim(p) => p.to_token_stream(),
        FieldType::Array(t, n) => {
            let t = field_type(model, t);
            let n = usize_lit(*n);
            quote! { [#t; #n] }
        }
        FieldType::Struct(s) => names::ident(&model[*s].rust).into_token_stream(),
        FieldType::Union(u) => names::ident(&model[*u].rust).into_token_stream(),
        FieldType::Bits(b) => names::ident(&model[*b].rust).into_token_stream(),
        FieldType::Enum(e) => names::ident(&model[*e].rust).into_token_stream(),
        FieldType::Reserved(n) | FieldType::Unknown(n) => {
            let n = usize_lit(*n);
            quote! { [u8; #n] }
        }
    }
}

/// A `const`-evaluable expression reading a field of type `ty` from the byte slice `b`
/// at `off`. Arrays read in a `while` loop; `depth` keeps loop variables distinct.
pub fn read(
    model: &Model,
    ty: &FieldType,
    b: &TokenStream,
    off: &Offset,
    depth: usize,
) -> TokenStream {
    match ty {
        FieldType::Prim(Prim::F32) => quote! { F32(le::u32_at(#b, #off)) },
        FieldType::Prim(p) => {
            let f = format_ident!("{}_at", p.as_str());
            quote! { le::#f(#b, #off) }
        }
        FieldType::Enum(e) => {
            let name = names::ident(&model[*e].rust);
            let inner = read(model, &FieldType::Prim(model[*e].width), b, off, depth);
            quote! { #name(#inner) }
        }
        FieldType::Bits(id) => {
            let name = names::ident(&model[*id].rust);
            let inner = read(model, &FieldType::Prim(model[*id].width), b, off, depth);
            quote! { #name(#inner) }
        }
        FieldType::Union(u) => {
            let name = names::ident(&model[*u].rust);
            let n = usize_lit(model[*u].size);
            quote! { #name(le::bytes_at::<#n>(#b, #off)) }
        }
        FieldType::Struct(s) => {
            let name = names::ident(&model[*s].rust);
            quote! { #name::read_from(#b, #off) }
        }
        FieldType::Reserved(n) | FieldType::Unknown(n) => {
            let n = usize_lit(*n);
            quote! { le::bytes_at::<#n>(#b, #off) }
        }
        FieldType::Array(t, n) if matches!(**t, FieldType::Prim(Prim::U8)) => {
            let n = usize_lit(*n);
            quote! { le::bytes_at::<#n>(#b, #off) }
        }
        FieldType::Array(t, n) if matches!(**t, FieldType::Prim(Prim::I8)) => {
            let n = usize_lit(*n);
            quote! { le::i8s_at::<#n>(#b, #off) }
        }
        FieldType::Array(_, 0) => quote! { [] },
        FieldType::Array(t, n) => {
            let i = format_ident!("i{depth}");
            let a = format_ident!("a{depth}");
            let stride = model.size_of(t);
            let first = read(model, t, b, off, depth + 1);
            let elem = read(model, t, b, &off.indexed(quote! { #i }, stride), depth + 1);
            let n = usize_lit(*n);
            quote! {{
                let mut #a = [#first; #n];
                let mut #i = 1;
                while #i < #n {
                    #a[#i] = #elem;
                    #i += 1;
                }
                #a
            }}
        }
    }
}

/// Statements writing the value `v` (an expression of the owned field type) of type `ty`
/// into the mutable byte slice `b` at `off`.
pub fn write(
    model: &Model,
    ty: &FieldType,
    b: &TokenStream,
    off: &Offset,
    v: TokenStream,
    depth: usize,
) -> TokenStream {
    match ty {
        FieldType::Prim(Prim::F32) => quote! { le::set_u32(#b, #off, #v.0); },
        FieldType::Prim(p) => {
            let f = format_ident!("set_{}", p.as_str());
            quote! { le::#f(#b, #off, #v); }
        }
        FieldType::Enum(e) => {
            write(model, &FieldType::Prim(model[*e].width), b, off, quote! { #v.0 }, depth)
        }
        FieldType::Bits(id) => {
            write(model, &FieldType::Prim(model[*id].width), b, off, quote! { #v.0 }, depth)
        }
        FieldType::Union(_) => quote! { le::set_bytes(#b, #off, &#v.0); },
        FieldType::Struct(_) => quote! { #v.write_to(#b, #off); },
        FieldType::Reserved(_) | FieldType::Unknown(_) => quote! { le::set_bytes(#b, #off, &#v); },
        FieldType::Array(t, _) if matches!(**t, FieldType::Prim(Prim::U8)) => {
            quote! { le::set_bytes(#b, #off, &#v); }
        }
        FieldType::Array(t, _) => {
            let i = format_ident!("i{depth}");
            let x = format_ident!("x{depth}");
            let stride = model.size_of(t);
            let inner =
                write(model, t, b, &off.indexed(quote! { #i }, stride), quote! { #x }, depth + 1);
            quote! {
                for (#i, #x) in #v.into_iter().enumerate() {
                    #inner
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::patterns;

    #[test]
    fn consecutive_values_read_as_a_range() {
        let text = |v: &[u64]| {
            patterns(v, 1).iter().map(ToString::to_string).collect::<Vec<_>>().join(" | ")
        };
        assert_eq!(text(&[3, 4, 5, 0x4D]), "0x03 ..= 0x05 | 0x4D");
        assert_eq!(text(&[0xB1, 0xB2, 0xB5]), "0xB1 ..= 0xB2 | 0xB5");
        assert_eq!(text(&[0xDB, 0xDC, 0xDD, 0xDE]), "0xDB ..= 0xDE");
        assert_eq!(text(&[]), "");
    }
}
