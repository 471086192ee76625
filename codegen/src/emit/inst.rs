//! `inst.rs`: record constants, the `Inst` sum of bound arms, opcode dispatch, the
//! binding table and the stream sentinels.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::model::{ArmId, Binding, FieldType, Model, Prim, Record, SubOpcode};

use super::arms::arm_type;
use super::doc::{code, Doc};
use super::names;
use super::tokens::{hex_text, hex_width, int, usize_lit};

/// The whole file.
pub fn emit(model: &Model) -> TokenStream {
    let Some(record) = model.records.first() else {
        return quote! {
            /// Size of one record: the spec declares no record.
            pub const RECORD_SIZE: usize = 0;
            /// Offset of the discriminant: the spec declares no record.
            pub const DISCRIMINANT_OFFSET: usize = 0;
        };
    };
    let consts = record_consts(model, record);
    let inst = inst_enum(model, record);
    let dispatch = dispatch_fn(model, record);
    let tables = binding_table(model, record);
    let sentinels = sentinels(model, record);
    quote! {
        use crate::error::DecodeError;
        use crate::generated::arms::{self, ArmKind};
        use crate::raw::Raw;

        #consts
        #inst
        #dispatch
        #tables
        #sentinels
    }
}

/// The discriminant's integer type.
fn disc_width(model: &Model, record: &Record) -> Prim {
    model[record.discriminant.ty].width
}

/// `RECORD_SIZE`, `PREAMBLE_SIZE`, `DISCRIMINANT_OFFSET`.
fn record_consts(model: &Model, record: &Record) -> TokenStream {
    let size = usize_lit(record.size);
    let pre = usize_lit(record.preamble_size);
    let off = usize_lit(record.discriminant.offset);
    let size_doc =
        Doc::text(format!("Size of one {} record; also the stream stride.", code(&record.name)))
            .note(format!(
        "Every record is exactly {} bytes; streams advance by this, never by a length field.",
        record.size
    ))
            .with_provenance(model, &record.meta);
    let pre_doc = Doc::text(format!(
        "Size of the preamble every arm starts with; payloads start here (+{}).",
        record.preamble_size
    ));
    let off_doc = Doc::text(format!(
        "Offset of the discriminant byte, the {} that selects the arm (+{}).",
        code(&model[record.discriminant.ty].name),
        record.discriminant.offset
    ));
    quote! {
        #size_doc
        pub const RECORD_SIZE: usize = #size;
        #pre_doc
        pub const PREAMBLE_SIZE: usize = #pre;
        #off_doc
        pub const DISCRIMINANT_OFFSET: usize = #off;
    }
}

/// Bound arms, in the order of their first binding (opcode order).
fn bound_arms(model: &Model) -> Vec<ArmId> {
    let mut out: Vec<ArmId> = Vec::new();
    for b in &model.bindings {
        if !out.contains(&b.arm) {
            out.push(b.arm);
        }
    }
    out
}

/// The field path from an arm to its discriminant (`header.opcode`), if it is a plain
/// integer or enum field of the preamble.
fn discriminant_path(model: &Model, record: &Record) -> Option<Vec<Ident>> {
    let mut fields = &record.preamble;
    let mut off = record.discriminant.offset;
    let mut path = Vec::new();
    loop {
        let f = fields.iter().find(|f| f.range().contains(&off))?;
        path.push(names::snake(&f.name));
        off -= f.offset;
        match &f.ty {
            FieldType::Struct(s) => fields = &model[*s].fields,
            FieldType::Enum(_) | FieldType::Prim(_) if off == 0 => return Some(path),
            _ => return None,
        }
    }
}

/// `pub enum Inst` and its impl.
fn inst_enum(model: &Model, record: &Record) -> TokenStream {
    let bound = bound_arms(model);
    let types: Vec<Ident> = bound.iter().map(|&a| arm_type(&model[a])).collect();
    let spec_names: Vec<&str> = bound.iter().map(|&a| model[a].name.as_str()).collect();
    let width = disc_width(model, record);
    let variants = bound.iter().map(|&a| {
        let arm = &model[a];
        let t = arm_type(arm);
        let doc = Doc::text(format!("{}: see [`arms::{t}`].", code(&arm.name)));
        quote! { #doc #t(arms::#t), }
    });
    let opcode_fn = match discriminant_path(model, record) {
        Some(path) => {
            // An enum-typed discriminant is stored raw in the owned arms.
            let access = quote! { #(#path).* };
            quote! {
                /// The discriminant (opcode) byte.
                #[must_use]
                #[inline]
                pub const fn opcode(&self) -> #width {
                    match self {
                        #(Inst::#types(x) => x.#access,)*
                        Inst::Unknown(r) => r.opcode(),
                    }
                }
            }
        }
        None => quote! {
            /// The discriminant (opcode) byte.
            #[must_use]
            #[inline]
            pub fn opcode(&self) -> #width {
                crate::raw::le::u8_at(&self.encode(), DISCRIMINANT_OFFSET)
            }
        },
    };
    let dispatch_arms = bound.iter().map(|&a| {
        let t = arm_type(&model[a]);
        quote! { Some(ArmKind::#t) => Inst::#t(arms::#t::decode(b)), }
    });
    let has_unbound = model.arms.len() > bound.len();
    let other = if has_unbound {
        quote! { _ => Inst::Unknown(Raw(*b)), }
    } else {
        quote! { None => Inst::Unknown(Raw(*b)), }
    };
    let doc = Doc::of(model, &record.meta, format!("A decoded {} record: one of the bound arms, or the raw bytes.", code(&record.name)))
        .note("Decoding never fails and never loses a byte: an opcode (or sub-opcode) no binding selects decodes to `Inst::Unknown`, and `encode` gives every input back unchanged.");
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub enum Inst {
            #(#variants)*
            /// A record no binding selects, kept verbatim.
            Unknown(Raw),
        }

        impl Inst {
            /// Decode a record, dispatching on the discriminant (and sub-opcode) bytes.
            #[must_use]
            #[inline]
            pub const fn decode(b: &[u8; RECORD_SIZE]) -> Inst {
                match dispatch(b) {
                    #(#dispatch_arms)*
                    #other
                }
            }

            /// Decode a slice that must be exactly one record long.
            pub fn decode_slice(b: &[u8]) -> Result<Inst, DecodeError> {
                match <&[u8; RECORD_SIZE]>::try_from(b) {
                    Ok(b) => Ok(Inst::decode(b)),
                    Err(_) => Err(DecodeError::Length { len: b.len() }),
                }
            }

            /// Encode back to bytes; the inverse of `decode` on every input.
            #[must_use]
            #[inline]
            pub fn encode(&self) -> [u8; RECORD_SIZE] {
                match self {
                    #(Inst::#types(x) => x.encode(),)*
                    Inst::Unknown(r) => r.0,
                }
            }

            #opcode_fn

            /// The arm's spec name, or `UNKNOWN`.
            #[must_use]
            pub const fn name(&self) -> &'static str {
                match self {
                    #(Inst::#types(_) => #spec_names,)*
                    Inst::Unknown(_) => "UNKNOWN",
                }
            }

            /// The arm, or `None` for `Inst::Unknown`.
            #[must_use]
            pub const fn arm(&self) -> Option<ArmKind> {
                match self {
                    #(Inst::#types(_) => Some(ArmKind::#types),)*
                    Inst::Unknown(_) => None,
                }
            }

            /// Whether no binding selected the record.
            #[must_use]
            pub const fn is_unknown(&self) -> bool {
                matches!(self, Inst::Unknown(_))
            }
        }

        impl From<&[u8; RECORD_SIZE]> for Inst {
            fn from(b: &[u8; RECORD_SIZE]) -> Inst {
                Inst::decode(b)
            }
        }

        impl From<Raw> for Inst {
            fn from(r: Raw) -> Inst {
                Inst::decode(&r.0)
            }
        }

        impl From<Inst> for Raw {
            fn from(i: Inst) -> Raw {
                Raw(i.encode())
            }
        }
    }
}

/// Read the discriminant of `b` (a byte slice or array).
fn read_disc(width: Prim, b: TokenStream) -> TokenStream {
    if width.size() == 1 {
        quote! { #b[DISCRIMINANT_OFFSET] }
    } else {
        let f = quote::format_ident!("{}_at", width.as_str());
        quote! { crate::raw::le::#f(#b, DISCRIMINANT_OFFSET) }
    }
}

/// `pub const fn dispatch(b) -> Option<ArmKind>`: a `match` on the discriminant and,
/// for sub-opcode bindings, on the sub byte.
fn dispatch_fn(model: &Model, record: &Record) -> TokenStream {
    let width = disc_width(model, record);
    let mut groups: Vec<(u64, Vec<&Binding>)> = Vec::new();
    for b in &model.bindings {
        match groups.last_mut() {
            Some((op, v)) if *op == b.opcode => v.push(b),
            _ => groups.push((b.opcode, vec![b])),
        }
    }
    let arms = groups.iter().map(|(op, bs)| {
        let lit = hex_width(*op, width.size());
        let plain = bs.iter().find(|b| b.sub.is_none()).map(|b| {
            let t = arm_type(&model[b.arm]);
            quote! { Some(ArmKind::#t) }
        });
        let fallback = plain.unwrap_or_else(|| quote! { None });
        let subs: Vec<(&SubOpcode, ArmId)> =
            bs.iter().filter_map(|b| b.sub.as_ref().map(|s| (s, b.arm))).collect();
        let body = sub_match(model, &subs, fallback);
        quote! { #lit => #body, }
    });
    let disc = read_disc(width, quote! { b });
    quote! {
        /// Which arm the bindings select for a record, or `None` (`Inst::Unknown`).
        #[must_use]
        #[inline]
        pub const fn dispatch(b: &[u8; RECORD_SIZE]) -> Option<ArmKind> {
            match #disc {
                #(#arms)*
                _ => None,
            }
        }
    }
}

/// Nested `match b[offset] { value => Some(arm), .., _ => fallback }` per sub offset.
fn sub_match(model: &Model, subs: &[(&SubOpcode, ArmId)], fallback: TokenStream) -> TokenStream {
    let Some((first, _)) = subs.first() else { return fallback };
    let offset = first.offset;
    let (here, rest): (Vec<_>, Vec<_>) =
        subs.iter().copied().partition(|(s, _)| s.offset == offset);
    let inner = sub_match(model, &rest, fallback);
    let arms = here.iter().filter(|(s, _)| s.value <= u8::MAX as u64).map(|(s, a)| {
        let v = int(s.value);
        let t = arm_type(&model[*a]);
        quote! { #v => Some(ArmKind::#t), }
    });
    let off = usize_lit(offset);
    quote! {
        match b[#off] {
            #(#arms)*
            _ => #inner,
        }
    }
}

/// `SubByte`, `Binding`, `BINDINGS`.
fn binding_table(model: &Model, record: &Record) -> TokenStream {
    let width = disc_width(model, record);
    let rows = model.bindings.iter().map(|b| {
        let op = hex_width(b.opcode, width.size());
        let sub = sub_byte(b.sub.as_ref());
        let t = arm_type(&model[b.arm]);
        quote! { Binding { opcode: #op, sub: #sub, arm: ArmKind::#t }, }
    });
    let disc = read_disc(width, quote! { record });
    let need = usize_lit(width.size());
    quote! {
        /// A byte of the record that must hold a value (a sub-opcode).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct SubByte {
            /// Byte offset in the record.
            pub offset: usize,
            /// The value it must hold.
            pub value: u8,
        }

        /// One opcode (and sub-opcode) → arm binding of the spec.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Binding {
            /// The discriminant value.
            pub opcode: #width,
            /// The sub-opcode byte, for extension prefixes such as `PSEUDO_INST`.
            pub sub: Option<SubByte>,
            /// The arm the binding selects.
            pub arm: ArmKind,
        }

        impl Binding {
            /// Whether `record` has this binding's opcode (and sub-opcode). Never panics:
            /// a short slice does not match.
            #[must_use]
            pub const fn matches(&self, record: &[u8]) -> bool {
                selects(self.opcode, self.sub, record)
            }
        }

        /// Every binding, sorted by opcode then sub-opcode.
        pub const BINDINGS: &[Binding] = &[#(#rows)*];

        /// Whether `record` holds `opcode` at the discriminant and `sub`, if any.
        const fn selects(opcode: #width, sub: Option<SubByte>, record: &[u8]) -> bool {
            if record.len() < DISCRIMINANT_OFFSET + #need || #disc != opcode {
                return false;
            }
            match sub {
                Some(s) => record.len() > s.offset && record[s.offset] == s.value,
                None => true,
            }
        }
    }
}

/// `Some(SubByte { .. })` or `None`.
fn sub_byte(sub: Option<&SubOpcode>) -> TokenStream {
    match sub {
        Some(s) => {
            let off = usize_lit(s.offset);
            let v = int(s.value.min(u8::MAX as u64));
            quote! { Some(SubByte { offset: #off, value: #v }) }
        }
        None => quote! { None },
    }
}

/// `Sentinel`, one const per sentinel, `SENTINELS`.
fn sentinels(model: &Model, record: &Record) -> TokenStream {
    let width = disc_width(model, record);
    let consts: Vec<Ident> = model.sentinels.iter().map(|s| names::constant(&s.name)).collect();
    let items = model.sentinels.iter().map(|s| {
        let c = names::constant(&s.name);
        let b = &model[s.binding];
        let op = hex_width(b.opcode, width.size());
        let sub = sub_byte(b.sub.as_ref());
        let spec = &s.name;
        let selects = match &b.sub {
            Some(sub) => format!(
                "byte {} == {} and byte {} == {}",
                record.discriminant.offset,
                hex_text(b.opcode),
                sub.offset,
                sub.value
            ),
            None => format!("byte {} == {}", record.discriminant.offset, hex_text(b.opcode)),
        };
        let doc = Doc::of(model, &s.meta, format!("The {} sentinel.", code(&s.name))).note(
            format!("A record is one when {} ({}).", code(&selects), code(&model[b.arm].name)),
        );
        quote! {
            #doc
            pub const #c: Sentinel = Sentinel { name: #spec, opcode: #op, sub: #sub };
        }
    });
    quote! {
        /// A record with a meaning in the stream (the program's end, a function's start).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Sentinel {
            /// The spec name (`EXIT`).
            pub name: &'static str,
            /// The discriminant value.
            pub opcode: #width,
            /// The sub-opcode byte that must match too, if any.
            pub sub: Option<SubByte>,
        }

        impl Sentinel {
            /// Whether `record` (normally one record of a stream) is this sentinel: the
            /// discriminant and, if any, the sub-opcode byte match. Never panics: a slice
            /// too short to hold a byte does not match.
            #[must_use]
            pub const fn matches(&self, record: &[u8]) -> bool {
                selects(self.opcode, self.sub, record)
            }
        }

        #(#items)*

        /// Every sentinel, sorted by name.
        pub const SENTINELS: &[Sentinel] = &[#(#consts),*];
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn pseudo_inst_sub_dispatch() {
        let text = emit(&fixture::model()).to_string();
        assert!(
            text.contains("0xDF => match b [12] { 1 => Some (ArmKind :: PseudoExitExecution) , 2 => Some (ArmKind :: PseudoLibraryReloadIndex) , _ => None , } ,"),
            "{text}"
        );
        assert!(text.contains("pub const EXIT : Sentinel = Sentinel { name : \"EXIT\" , opcode : 0xDF , sub : Some (SubByte { offset : 12 , value : 1 }) } ;"));
        assert!(text.contains("x . header . opcode"));
    }
}
