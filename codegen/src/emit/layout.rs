//! `layout.rs`: every plain struct and union as an owned type, plus the field helpers
//! that `arms.rs` shares (declarations with compact docs, decode and encode bodies).

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Field, FieldType, Meta, Model, Select, Struct, Union};

use super::arch_set::arch_test;
use super::doc::{code, Doc};
use super::imports::Imports;
use super::names;
use super::tokens::{field_type, hex, read, usize_lit, write, Offset};
use super::{Chunks, ItemChunks};

/// The whole file.
///
/// One chunk per struct and per union, rendered apart (see `emit::render`), as the
/// arms are: one token stream and syntax tree for every struct of a large spec held
/// gigabytes (30,000 two-field structs: 3 GB).
pub fn emit(model: &Model) -> Box<dyn Chunks + '_> {
    let imports = Imports::new(
        &["opcode", "operand"],
        vec![
            ("Arch", quote! { crate::generated::geometry::Arch }),
            ("le", quote! { crate::raw::le }),
            ("F32", quote! { crate::F32 }),
        ],
    );
    let structs = model.structs.iter().filter(|s| !s.is_group).map(|s| struct_items(model, s));
    let unions = model.unions.iter().map(|u| union_items(model, u));
    Box::new(ItemChunks::new(model, structs.chain(unions), imports))
}

/// One struct: declaration, decode/encode, `Default`.
fn struct_items(model: &Model, s: &Struct) -> TokenStream {
    let name = names::ident(&s.rust);
    let size = usize_lit(s.size);
    let doc = Doc::of(model, &s.meta, format!("The struct {}.", code(&s.name)))
        .note(format!("{} bytes, little-endian; decoding and encoding keep every byte.", s.size));
    let decl = fields_decl(model, &s.fields, &s.meta);
    let b = quote! { b };
    let base = Offset::based(quote! { base }, 0);
    let reads = read_fields(model, &s.fields, &b, &base);
    let writes = write_fields(model, &s.fields, &b, &base);
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
        }

        impl Default for #name {
            /// All bytes zero.
            fn default() -> #name {
                #name::decode(&[0u8; #size])
            }
        }
    }
}

/// One union: a byte-array newtype with one accessor and one constructor per view, and
/// `view(arch)` choosing the reading the spec's tests select.
fn union_items(model: &Model, u: &Union) -> TokenStream {
    let name = names::ident(&u.rust);
    let size = usize_lit(u.size);
    let doc = Doc::of(model, &u.meta, format!("The union {}.", code(&u.name))).note(format!(
        "{} bytes read in one of several ways; the bytes are kept as they are, so every \
         reading round-trips.",
        u.size
    ));
    let view_enum = names::ident(&format!("{}View", u.rust));
    let mut accessors = Vec::new();
    let mut variants = Vec::new();
    for v in &u.views {
        let get = names::ident(&v.rust);
        let from = names::ident(&format!("from_{}", v.rust));
        let ty = field_type(model, &v.ty);
        let b = quote! { &self.0 };
        let value = read(model, &v.ty, &b, &Offset::at(0), 0);
        let w = quote! { b };
        let store = write(model, &v.ty, &w, &Offset::at(0), quote! { v }, 0);
        let when = match v.select {
            Select::When(t) => format!(
                " (chosen when {})",
                code(&format!(
                    "byte {} & {} == {}",
                    t.offset,
                    hex(t.mask as u64),
                    hex(t.value as u64)
                ))
            ),
            Select::Otherwise => " (chosen when no other test holds)".to_owned(),
            Select::Never => String::new(),
        };
        let vdoc =
            Doc::member(model, &v.meta, &u.meta, format!("The {} reading{when}", code(&v.name)));
        let from_doc = Doc::text(format!("The bytes of a {} reading.", code(&v.name)));
        let variant = names::ident(&names::type_str(&v.name));
        accessors.push(quote! {
            #vdoc
            #[must_use]
            #[inline]
            pub const fn #get(&self) -> #ty {
                #value
            }

            #from_doc
            #[must_use]
            pub fn #from(v: #ty) -> #name {
                let mut out = [0u8; #size];
                let b = &mut out;
                #store
                #name(out)
            }
        });
        let vdoc = Doc::text(format!("The {} reading.", code(&v.name)));
        variants.push(quote! { #vdoc #variant(#ty), });
    }
    let choose = choose_view(model, u, &view_enum);
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub struct #name(pub [u8; #size]);

        impl #name {
            /// Size in bytes.
            pub const SIZE: usize = #size;

            #(#accessors)*

            /// The reading the spec selects on `arch`: the first view (in spec order,
            /// among those on `arch`) whose test holds, else the `otherwise` view, else
            /// the first.
            #[must_use]
            pub const fn view(&self, arch: Arch) -> #view_enum {
                #choose
            }
        }

        impl Default for #name {
            /// All bytes zero.
            fn default() -> #name {
                #name([0u8; #size])
            }
        }

        #[doc = concat!(" One reading of [`", stringify!(#name), "`].")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum #view_enum {
            #(#variants)*
        }
    }
}

/// The body of `view(arch)`.
fn choose_view(model: &Model, u: &Union, view_enum: &proc_macro2::Ident) -> TokenStream {
    let arch = quote! { arch };
    let mut steps = Vec::new();
    let mut uses_arch = false;
    for v in u.views.iter() {
        if let Select::When(t) = v.select {
            let on = available(model, &v.meta, &arch);
            uses_arch |= v.meta.archs.is_some();
            let (i, m, val) = (usize_lit(t.offset), hex(t.mask as u64), hex(t.value as u64));
            let get = names::ident(&v.rust);
            let variant = names::ident(&names::type_str(&v.name));
            let on = if v.meta.archs.is_some() {
                quote! { #on && }
            } else {
                quote! {}
            };
            steps.push(quote! {
                if #on self.0[#i] & #m == #val {
                    return #view_enum::#variant(self.#get());
                }
            });
        }
    }
    let fallback = u
        .views
        .iter()
        .find(|v| v.select == Select::Otherwise)
        .or_else(|| u.views.iter().find(|v| v.select == Select::Never))
        .or(u.views.first());
    let fallback = match fallback {
        Some(v) => {
            let get = names::ident(&v.rust);
            let variant = names::ident(&names::type_str(&v.name));
            quote! { #view_enum::#variant(self.#get()) }
        }
        None => quote! { unreachable!() },
    };
    if uses_arch {
        quote! { #(#steps)* #fallback }
    } else {
        quote! { let _ = arch; #(#steps)* #fallback }
    }
}

/// Whether an item with `meta` exists on the generation in `arch`.
fn available(model: &Model, meta: &Meta, arch: &TokenStream) -> TokenStream {
    match &meta.archs {
        None => quote! { true },
        Some(a) => arch_test(model, a, arch),
    }
}

/// The compact doc of a field: its bytes, what placed it, then the spec's doc and what
/// differs from its owner.
pub fn field_doc(model: &Model, f: &Field, owner: &Meta) -> Doc {
    let mut head = format!("`+{}..{}`", f.offset, f.offset + f.size);
    match &f.ty {
        FieldType::Reserved(_) => head.push_str(" reserved"),
        FieldType::Unknown(_) => head.push_str(" not given by the sources (partial layout)"),
        _ => {}
    }
    if let Some(g) = &f.group {
        let group = &model[g.group];
        let prefix = g.prefix.as_deref().map(|p| format!(" as {p}")).unwrap_or_default();
        head.push_str(&format!(" ({})", code(&format!("use {}{prefix}", group.name))));
    }
    if f.inherited {
        return Doc::text(format!("{head}: the record's preamble member {}.", code(&f.name)));
    }
    Doc::member(model, &f.meta, owner, head)
}

/// `pub name: T,` with docs, per field.
pub fn fields_decl(model: &Model, fields: &[Field], owner: &Meta) -> Vec<TokenStream> {
    fields
        .iter()
        .map(|f| {
            let doc = field_doc(model, f, owner);
            let ident = names::ident(&f.rust);
            let ty = field_type(model, &f.ty);
            let big = serde_big_array(&f.ty);
            quote! { #doc #big pub #ident: #ty, }
        })
        .collect()
}

fn serde_big_array(ty: &FieldType) -> Option<TokenStream> {
    let n = match ty {
        FieldType::Reserved(n) | FieldType::Unknown(n) | FieldType::Array(_, n) => *n,
        _ => return None,
    };
    (n > 32).then(
        || quote! { #[cfg_attr(feature = "serde", serde(with = "serde_big_array::BigArray"))] },
    )
}

/// `Self { a: <read a>, ... }` reading every field from `b` at `base + offset`.
pub fn read_fields(model: &Model, fields: &[Field], b: &TokenStream, base: &Offset) -> TokenStream {
    let inits = fields.iter().map(|f| {
        let ident = names::ident(&f.rust);
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
        let ident = names::ident(&f.rust);
        write(model, &f.ty, b, &base.plus(f.offset), quote! { self.#ident }, 0)
    });
    quote! { #(#stmts)* }
}
