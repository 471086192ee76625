//! `arms.rs`: per arm an owned type with every field of the record, a borrowed
//! zero-copy view with `const fn` accessors at the spec's offsets, the sealed [`Arm`]
//! impl, and `ArmKind` with its per-arm facts as tables indexed by the kind.
//!
//! An arm whose layout differs by generation is an enum over one struct per layout, and
//! its view an enum over their views: both `#[non_exhaustive]`, as a generation or a
//! layout split the spec gains adds a variant.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::model::{Arm, ArmId, FieldType, Layout, Model};

use super::arch_set::arch_variant;
use super::doc::{code, Doc};
use super::imports::Imports;
use super::layout::{fields_decl, read_fields, write_fields};
use super::names;
use super::tokens::{field_type, hex_text, hex_width, read, usize_lit, Offset};
use super::{ArmCursor, Chunks};

/// The whole file.
///
/// One chunk per arm, rendered apart (see `emit::render`): the file grows with the arms,
/// and one token stream and syntax tree for all of it made codegen superlinear.
pub fn emit(model: &Model) -> Box<dyn Chunks + '_> {
    let imports = Imports::new(
        &["layout", "opcode", "operand"],
        vec![
            ("impl_arm", quote! { crate::arm::impl_arm }),
            ("Arch", quote! { crate::generated::geometry::Arch }),
            ("Inst", quote! { crate::generated::inst::Inst }),
            ("RECORD_SIZE", quote! { crate::generated::inst::RECORD_SIZE }),
            ("le", quote! { crate::raw::le }),
            ("F32", quote! { crate::F32 }),
        ],
    );
    Box::new(ArmChunks { model, next: ArmCursor::default(), imports })
}

/// The arms' items one arm at a time; `ArmKind` and the `use` lines head the file.
struct ArmChunks<'m> {
    model: &'m Model,
    /// Where the chunks are.
    next: ArmCursor,
    imports: Imports<'static>,
}

impl Chunks for ArmChunks<'_> {
    fn next_chunk(&mut self) -> Option<TokenStream> {
        let id = self.next.next(self.model)?;
        let items = arm_items(self.model, id);
        self.imports.scan(&items);
        Some(items)
    }

    fn finish(mut self: Box<Self>) -> (TokenStream, TokenStream) {
        let kind = arm_kind(self.model);
        self.imports.scan(&kind);
        let uses = self.imports.uses(self.model);
        (quote! { #uses #kind }, TokenStream::new())
    }
}

/// The opcode values that select an arm, sorted and unique.
fn opcodes(model: &Model, id: ArmId) -> Vec<u64> {
    let mut v: Vec<u64> = model.bindings_of(id).map(|b| b.opcode).collect();
    v.dedup();
    v
}

/// `pub enum ArmKind` and its facts as tables indexed by `self as usize`.
fn arm_kind(model: &Model) -> TokenStream {
    let w = model[model.opcode_enum()].width;
    let variants: Vec<Ident> = model.arms.iter().map(|a| names::ident(&a.rust)).collect();
    let spec_names: Vec<&str> = model.arms.iter().map(|a| a.name.as_str()).collect();
    let n = usize_lit(model.arms.len() as u32);
    let decls = model.arms.iter().map(|arm| {
        let v = names::ident(&arm.rust);
        let doc = Doc::text(format!("{}: see [`{v}`].", code(&arm.name)));
        quote! { #doc #v, }
    });
    let opcode_rows = model.arm_ids().map(|id| {
        let ops = opcodes(model, id).into_iter().map(|o| hex_width(o, w.size()));
        quote! { &[#(#ops),*] }
    });
    let arch_rows = model.arms.iter().map(|a| {
        let mask: u32 =
            model.arch_ids().filter(|&x| a.meta.available_on(x)).map(|x| 1u32 << x.0).sum();
        hex_width(u64::from(mask), 1)
    });
    let flag_rows = model.arm_ids().map(|id| {
        let mut f = 0u8;
        if model.is_bound(id) {
            f |= 1;
        }
        if model.is_complete(id) {
            f |= 2;
        }
        if model[id].is_per_generation() {
            f |= 4;
        }
        hex_width(u64::from(f), 1)
    });
    // One byte while it holds the arms (a spec past 256 arms still compiles).
    let repr = if model.arms.len() <= 256 {
        quote! { u8 }
    } else {
        quote! { u16 }
    };
    quote! {
        /// Which arm a record is read as: every arm of the spec, bound or not.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[non_exhaustive]
        #[repr(#repr)]
        pub enum ArmKind {
            #(#decls)*
        }

        /// Spec names, by kind.
        static ARM_NAMES: [&str; #n] = [#(#spec_names),*];
        /// Bound opcode values, by kind.
        static ARM_OPCODES: [&[#w]; #n] = [#(#opcode_rows),*];
        /// Generations (bit `Arch as u8`), by kind.
        static ARM_ARCHS: [u8; #n] = [#(#arch_rows),*];
        /// Bit 0 bound, bit 1 complete layout, bit 2 layout differs by generation.
        static ARM_FLAGS: [u8; #n] = [#(#flag_rows),*];

        impl ArmKind {
            /// Every arm, sorted by spec name.
            pub const ALL: &'static [ArmKind] = &[#(ArmKind::#variants),*];

            /// The spec name of the arm (`PSEUDO_FUNCTION_BEGIN`).
            #[must_use]
            pub const fn name(self) -> &'static str {
                ARM_NAMES[self as usize]
            }

            /// The opcode values bound to the arm, sorted (empty for an arm only decoded
            /// explicitly).
            #[must_use]
            pub const fn opcodes(self) -> &'static [#w] {
                ARM_OPCODES[self as usize]
            }

            /// Whether a binding selects the arm, so that `Inst::decode` can produce it.
            #[must_use]
            pub const fn is_bound(self) -> bool {
                ARM_FLAGS[self as usize] & 1 != 0
            }

            /// Whether the sources give the meaning of every byte of the arm on every
            /// generation (else some bytes are kept as unknown).
            #[must_use]
            pub const fn is_complete(self) -> bool {
                ARM_FLAGS[self as usize] & 2 != 0
            }

            /// Whether the arm's layout differs between generations.
            #[must_use]
            pub const fn is_per_generation(self) -> bool {
                ARM_FLAGS[self as usize] & 4 != 0
            }

            /// Whether the arm exists on `arch` (the spec's `@archs`; all when absent).
            #[must_use]
            pub const fn available_on(self, arch: Arch) -> bool {
                ARM_ARCHS[self as usize] & (1 << arch as u8) != 0
            }
        }

        /// The spec name ([`ArmKind::name`]), as the spec and the layout tables spell it.
        impl core::fmt::Display for ArmKind {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())
            }
        }
    }
}

/// The doc of an arm: the spec's docs, its opcodes, completeness, generations.
fn arm_doc(model: &Model, id: ArmId) -> Doc {
    let arm = &model[id];
    let mut doc = Doc::of(model, &arm.meta, format!("The arm {}.", code(&arm.name)));
    // Each binding by its spec names (the value alone where the spec names none), and its
    // mnemonic where that is not the name that selects it in lower case.
    let named = |name: Option<&str>, value: u64| match name {
        Some(n) => format!("`{n}` {}", hex_text(value)),
        None => hex_text(value),
    };
    let bindings: Vec<String> = model
        .bindings_of(id)
        .map(|b| {
            let op = model[model.opcode_enum()].variant_of(b.opcode).map(|v| v.name.as_str());
            let (mut text, name) = match &b.sub {
                None => (named(op, b.opcode), op),
                Some(s) => {
                    let sub = s.enum_id.and_then(|e| model[e].variant_of(s.value));
                    let sub = sub.map(|v| v.name.as_str());
                    let text = format!(
                        "{} with {} at +{}",
                        named(op, b.opcode),
                        named(sub, s.value),
                        s.offset
                    );
                    (text, sub)
                }
            };
            if name.is_none_or(|n| n.to_ascii_lowercase() != b.mnemonic) {
                text.push_str(&format!(" (mnemonic `{}`)", b.mnemonic));
            }
            text
        })
        .collect();
    doc = doc.note(if bindings.is_empty() {
        "No opcode binds it: decode it explicitly (`Inst::decode_as`).".to_owned()
    } else {
        format!("Opcodes: {}.", bindings.join(", "))
    });
    if !model.is_complete(id) {
        doc = doc.note("Partial layout: bytes the sources do not describe are kept as `unknown`.");
    }
    if arm.is_per_generation() {
        let per: Vec<String> = arm
            .layouts
            .iter()
            .map(|l| {
                let names: Vec<&str> = l.archs.iter().map(|&a| model[a].name.as_str()).collect();
                format!("[`{}`] on {}", l.rust, names.join(", "))
            })
            .collect();
        doc = doc.note(format!("Its layout differs by generation: {}.", per.join("; ")));
    }
    doc
}

/// One arm: its owned type(s), views and `Arm` impl.
fn arm_items(model: &Model, id: ArmId) -> TokenStream {
    let arm = &model[id];
    let name = names::ident(&arm.rust);
    let view = names::ident(&arm.rust_ref);
    let doc = arm_doc(model, id);
    // The `Arm` impl is the same for every arm but its name (`crate::arm::impl_arm`).
    let kind_impl = quote! { impl_arm!(#name); };
    if !arm.is_per_generation() {
        let layout = layout_items(model, arm, &arm.layouts[0], &name, &view, &doc);
        return quote! {
            #layout

            impl #name {
                /// Decode on a generation (the layout is the same on every one).
                #[must_use]
                #[inline]
                pub const fn decode_on(arch: Arch, b: &[u8; RECORD_SIZE]) -> #name {
                    let _ = arch;
                    #name::decode(b)
                }
            }

            impl<'a> #view<'a> {
                /// View a record on a generation (the layout is the same on every one):
                /// as an arm whose layout differs by generation is viewed, so that code
                /// reads every arm alike. Any record is viewed: its opcode is not checked
                /// ([`dispatch_on`](crate::inst::dispatch_on) says which arm it is).
                #[must_use]
                #[inline]
                pub const fn new(arch: Arch, b: &'a [u8; RECORD_SIZE]) -> #view<'a> {
                    let _ = arch;
                    #view(b)
                }
            }

            #kind_impl
        };
    }
    // One struct per layout, and enums over them.
    let mut layouts = Vec::new();
    let mut variants = Vec::new();
    let mut view_variants = Vec::new();
    let mut decode_arms = Vec::new();
    let mut view_arms = Vec::new();
    let mut encode_arms = Vec::new();
    let mut opcode_arms = Vec::new();
    let mut archs_arms = Vec::new();
    // Generations the arm does not exist on read its records as the oldest layout.
    let elsewhere: Vec<TokenStream> = model
        .arch_ids()
        .filter(|a| !arm.layouts.iter().any(|l| l.archs.contains(a)))
        .map(|a| arch_variant(model, a))
        .collect();
    for (k, l) in arm.layouts.iter().enumerate() {
        let lname = names::ident(&l.rust);
        let lview = names::ident(&format!("{}Ref", l.rust));
        let gens: Vec<&str> = l.archs.iter().map(|&a| model[a].name.as_str()).collect();
        let ldoc = Doc::text(format!("The layout of {} on {}.", code(&arm.name), gens.join(", ")))
            .note(format!("See [`{}`].", arm.rust));
        layouts.push(layout_items(model, arm, l, &lname, &lview, &ldoc));
        let v = names::ident(&names::type_str(&model[l.archs[0]].name));
        let vdoc = Doc::text(format!("On {}.", gens.join(", ")));
        variants.push(quote! { #vdoc #v(#lname), });
        view_variants.push(quote! { #vdoc #v(#lview<'a>), });
        let mut archs: Vec<TokenStream> = l.archs.iter().map(|&a| arch_variant(model, a)).collect();
        if k == 0 {
            archs.extend(elsewhere.iter().cloned());
        }
        decode_arms.push(quote! { #(#archs)|* => #name::#v(#lname::decode(b)), });
        view_arms.push(quote! { #(#archs)|* => #view::#v(#lview(b)), });
        encode_arms.push(quote! { #name::#v(x) => x.encode(), });
        opcode_arms.push(quote! { #name::#v(x) => x.opcode(), });
        let own: Vec<TokenStream> = l.archs.iter().map(|&a| arch_variant(model, a)).collect();
        archs_arms.push(quote! { #name::#v(_) => &[#(#own),*], });
    }
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[non_exhaustive]
        pub enum #name {
            #(#variants)*
        }

        impl #name {
            /// Decode any record as this arm, in the layout of `arch` (on a generation the
            /// arm does not exist on, the layout of the oldest one it exists on); never
            /// fails, every byte is kept.
            #[must_use]
            #[inline]
            pub const fn decode_on(arch: Arch, b: &[u8; RECORD_SIZE]) -> #name {
                match arch {
                    #(#decode_arms)*
                }
            }

            /// Encode back to bytes; the inverse of `decode_on` on every input.
            #[must_use]
            #[inline]
            pub fn encode(&self) -> [u8; RECORD_SIZE] {
                match self {
                    #(#encode_arms)*
                }
            }

            /// The discriminant.
            #[must_use]
            #[inline]
            pub const fn opcode(&self) -> Opcode {
                match self {
                    #(#opcode_arms)*
                }
            }

            /// The generations whose layout the value is in (its variant's): what its
            /// fields mean, whatever generation it is later printed or encoded for.
            #[must_use]
            #[inline]
            pub const fn archs(&self) -> &'static [Arch] {
                match self {
                    #(#archs_arms)*
                }
            }
        }

        #[doc = concat!(" The borrowed view of [`", stringify!(#name), "`], in the layout of a generation.")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum #view<'a> {
            #(#view_variants)*
        }

        impl<'a> #view<'a> {
            /// View a record in the layout of `arch`. Any record is viewed: its opcode is
            /// not checked, so a record of another arm reads as this one
            /// ([`dispatch_on`](crate::inst::dispatch_on) says which arm it is).
            #[must_use]
            #[inline]
            pub const fn new(arch: Arch, b: &'a [u8; RECORD_SIZE]) -> #view<'a> {
                match arch {
                    #(#view_arms)*
                }
            }
        }

        #(#layouts)*
        #kind_impl
    }
}

/// The owned struct and borrowed view of one layout.
fn layout_items(
    model: &Model,
    arm: &Arm,
    l: &Layout,
    name: &Ident,
    view: &Ident,
    doc: &Doc,
) -> TokenStream {
    let decl = fields_decl(model, &l.fields, &arm.meta);
    let b = quote! { b };
    let base = Offset::at(0);
    let reads = read_fields(model, &l.fields, &b, &base);
    let writes = write_fields(model, &l.fields, &b, &base);
    let accessors = l.fields.iter().map(|f| {
        let ident = names::ident(&f.rust);
        let ty = field_type(model, &f.ty);
        let value = read(model, &f.ty, &quote! { self.0 }, &Offset::at(f.offset), 0);
        let r = f.range();
        let doc = format!(" `+{}..{}`: [`{name}::{ident}`], read in place.", r.start, r.end);
        quote! {
            #[doc = #doc]
            #[must_use]
            #[inline]
            pub const fn #ident(&self) -> #ty {
                #value
            }
        }
    });
    let opcode = opcode_path(model, l);
    let view_doc = format!(
        " The borrowed view of [`{name}`]: each field read in place, by the method of the \
         field's name, without decoding the rest. It views any record: the opcode is not \
         checked."
    );
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub struct #name {
            #(#decl)*
        }

        impl #name {
            /// Decode any record as this layout; never fails, every byte is kept.
            #[must_use]
            #[inline]
            pub const fn decode(b: &[u8; RECORD_SIZE]) -> #name {
                #reads
            }

            /// Encode back to bytes; the inverse of `decode` on every input.
            #[must_use]
            #[inline]
            pub fn encode(&self) -> [u8; RECORD_SIZE] {
                let mut out = [0u8; RECORD_SIZE];
                let b = &mut out;
                #writes
                out
            }

            /// The discriminant.
            #[must_use]
            #[inline]
            pub const fn opcode(&self) -> Opcode {
                #opcode
            }
        }

        impl Default for #name {
            /// All bytes zero, the opcode too (so its record selects no arm); to build
            /// an instruction, start from a binding's record
            /// ([`Binding::record`](crate::generated::inst::Binding::record)) or its text
            /// (`Inst::parse(arch, "mnemonic")`).
            fn default() -> #name {
                #name::decode(&[0u8; RECORD_SIZE])
            }
        }

        #[doc = #view_doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct #view<'a>(pub &'a [u8; RECORD_SIZE]);

        impl<'a> #view<'a> {
            #(#accessors)*

            /// The owned record.
            #[must_use]
            pub const fn decode(&self) -> #name {
                #name::decode(self.0)
            }

            /// The record's bytes.
            #[must_use]
            pub const fn bytes(&self) -> &'a [u8; RECORD_SIZE] {
                self.0
            }
        }
    }
}

/// `self.header.opcode`: the field path to the discriminant in a layout.
fn opcode_path(model: &Model, l: &Layout) -> TokenStream {
    let off = model.record.discriminant.offset;
    let mut path = Vec::new();
    let mut fields = &l.fields;
    let mut rel = off;
    loop {
        let Some(f) = fields.iter().find(|f| f.range().contains(&rel)) else {
            return quote! { Opcode(0) };
        };
        path.push(names::ident(&f.rust));
        match &f.ty {
            FieldType::Struct(s) => {
                rel -= f.offset;
                fields = &model[*s].fields;
            }
            _ => break,
        }
    }
    quote! { self.#(#path).* }
}

#[cfg(test)]
mod tests {
    use super::arm_doc;

    /// An arm's doc names its bindings by the spec's names (the prefix and its
    /// sub-opcode), and a mnemonic only where it is not the selecting name in lower case.
    #[test]
    fn an_arms_doc_names_its_bindings_as_the_spec_does() {
        let m = crate::emit::unit_tests::project_model();
        let doc = |arm: &str| arm_doc(&m, m.arm_named(arm).unwrap()).lines().join("\n");
        let d = doc("EXTENDED_RDMA_DESC_GEN");
        assert!(
            d.contains("Opcodes: `EXTENDED_INST` 0xF0 with `RDMA_DESC_GEN` 0x8 at +12."),
            "{d}"
        );
        let d = doc("S3D3_MM");
        assert!(d.contains("`MATMUL` 0x2") && !d.contains("mnemonic"), "{d}");
    }
}
