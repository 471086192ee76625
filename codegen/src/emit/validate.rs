//! `validate.rs`: validator bitmasks, address apertures, and per-generation record
//! validation with the final-instruction check dispatched per arch.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::arms::arm_type;
use super::doc::{code, Doc};
use super::names;
use super::opcode::arch_test;
use super::tokens::hex;
use crate::model::*;

pub fn emit(model: &Model) -> TokenStream {
    let bitmasks = model.bitmasks.iter().map(|b| bitmask(model, b));
    let apertures = model.apertures.iter().map(|a| aperture(model, a));
    let validate = validate_fn(model);
    let finals = final_check(model);
    quote! {
        use crate::error::ValidateError;
        use crate::generated::geometry::Arch;

        /// One address window of an aperture: `base..base + size`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Region {
            /// The region's spec name (`q0`).
            pub name: &'static str,
            /// First address.
            pub base: u64,
            /// Size in bytes.
            pub size: u64,
        }

        impl Region {
            /// Whether `addr` is inside the window.
            #[must_use]
            pub const fn contains(&self, addr: u64) -> bool {
                addr >= self.base && addr - self.base < self.size
            }
        }

        #(#bitmasks)*
        #(#apertures)*
        #validate
        #finals
    }
}

fn bitmask(model: &Model, b: &Bitmask) -> TokenStream {
    let e = &model[b.enum_id];
    let width = e.width;
    let konst = names::constant(&b.name);
    let func = names::snake(&b.name);
    let n = b.words.len();
    let words = b.words.iter().map(|w| hex(*w));
    let set: usize = b.words.iter().map(|w| w.count_ones() as usize).sum();
    let doc = Doc::of(model, &b.meta, format!("The validator table {}.", code(&b.name)))
        .note(format!("{n} words, verbatim; {set} bits set. Bit `v & 63` of word `v >> 6` is value `v`."));
    let fdoc = format!("Whether {} has the bit of value `v` set (see [`{}`]).", code(&b.name), konst);
    quote! {
        #doc
        pub const #konst: [u64; #n] = [#(#words),*];

        #[doc = #fdoc]
        #[must_use]
        #[inline]
        pub const fn #func(v: #width) -> bool {
            let word = (v as u64 >> 6) as usize;
            word < #konst.len() && (#konst[word] >> (v as u64 & 63)) & 1 == 1
        }
    }
}

fn aperture(model: &Model, a: &Aperture) -> TokenStream {
    let konst = names::constant(&a.name);
    let n = a.regions.len();
    let regions = a.regions.iter().map(|r| {
        let name = &r.name;
        let base = hex(r.base);
        let size = hex(r.size);
        quote! { Region { name: #name, base: #base, size: #size } }
    });
    let list: Vec<String> = a
        .regions
        .iter()
        .map(|r| format!("{} = {:#x}..={:#x}", r.name, r.base, r.base + r.size - 1))
        .collect();
    let doc = Doc::of(model, &a.meta, format!("The aperture {}.", code(&a.name))).note(format!("Regions: {}.", code(&list.join(", "))));
    let region_fn = format_ident!("{}_region", names::snake_str(&a.name));
    let in_fn = format_ident!("in_{}", names::snake_str(&a.name));
    let same_fn = format_ident!("same_{}", names::snake_str(&a.name));
    let rdoc = format!("The index of the {} region containing `addr`, if any.", code(&a.name));
    let idoc = format!("Whether `addr` is inside any region of {}.", code(&a.name));
    let sdoc = format!("Whether `a` and `b` are inside the same region of {}.", code(&a.name));
    quote! {
        #doc
        pub const #konst: [Region; #n] = [#(#regions),*];

        #[doc = #rdoc]
        #[must_use]
        pub const fn #region_fn(addr: u64) -> Option<usize> {
            let mut i = 0;
            while i < #konst.len() {
                if #konst[i].contains(addr) {
                    return Some(i);
                }
                i += 1;
            }
            None
        }

        #[doc = #idoc]
        #[must_use]
        pub const fn #in_fn(addr: u64) -> bool {
            #region_fn(addr).is_some()
        }

        #[doc = #sdoc]
        #[must_use]
        pub const fn #same_fn(a: u64, b: u64) -> bool {
            match (#region_fn(a), #region_fn(b)) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            }
        }
    }
}

/// Enum-typed fields of an arm (through nested structs), skipping the discriminant:
/// (dotted name, absolute offset, enum).
fn enum_fields(model: &Model, arm: ArmId) -> Vec<(String, u32, EnumId)> {
    fn walk(model: &Model, fields: &[Field], base: u32, prefix: &str, out: &mut Vec<(String, u32, EnumId)>) {
        for f in fields {
            let name = if prefix.is_empty() { f.name.clone() } else { format!("{prefix}.{}", f.name) };
            match &f.ty {
                FieldType::Enum(e) => out.push((name, base + f.offset, *e)),
                FieldType::Struct(s) => walk(model, &model[*s].fields, base + f.offset, &name, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    let fields: Vec<Field> = model.arm_fields(arm).cloned().collect();
    walk(model, &fields, 0, "", &mut out);
    let disc = model[model[arm].record].discriminant.offset;
    out.retain(|(_, off, _)| *off != disc);
    out
}

fn validate_fn(model: &Model) -> TokenStream {
    let Some(record) = model.records.first() else { return quote! {} };
    let op_enum = record.discriminant.ty;
    let disc = record.discriminant.offset as usize;
    let size = record.size as usize;
    let masks = model.bitmasks.iter().filter(|b| b.enum_id == op_enum).map(|b| {
        let f = names::snake(&b.name);
        quote! {
            if !#f(opcode) {
                return Err(ValidateError::OpcodeNotValid { opcode });
            }
        }
    });
    let op_ty = names::ty(&model[op_enum].name);
    // Per bound arm: availability of the arm and its binding, and its enum fields.
    let mut seen = Vec::new();
    let arms = model.bindings.iter().filter_map(|b| {
        if seen.contains(&b.arm) {
            return None;
        }
        seen.push(b.arm);
        let arm = &model[b.arm];
        let t = arm_type(arm);
        let binding_archs: Vec<ArchId> = {
            // The arm is available where any of its bindings is.
            let mut all = Vec::new();
            let mut any_unrestricted = false;
            for bb in model.bindings_of(b.arm) {
                match &bb.meta.archs {
                    None => any_unrestricted = true,
                    Some(list) => all.extend(list.iter().copied()),
                }
            }
            if any_unrestricted {
                model.arch_ids().collect()
            } else {
                all.sort();
                all.dedup();
                all
            }
        };
        let arm_archs: Vec<ArchId> =
            model.arch_ids().filter(|a| arm.meta.available_on(*a) && binding_archs.contains(a)).collect();
        let avail = if arm_archs.len() == model.archs.len() { quote! { true } } else { arch_test(model, &arm_archs) };
        let checks = enum_fields(model, b.arm).into_iter().map(|(name, off, e)| {
            let en = &model[e];
            let et = names::ty(&en.name);
            let w = en.width;
            let off = off as usize;
            let read = format_ident!("{}_at", w.as_str());
            quote! {
                let v = crate::raw::le::#read(record, #off);
                if crate::generated::opcode::#et::try_from(v).is_err() {
                    return Err(ValidateError::BadEnum { field: #name, offset: #off, value: v as u64 });
                }
            }
        });
        Some(quote! {
            crate::generated::inst::Inst::#t(_) => {
                if !(#avail) {
                    return Err(ValidateError::NotOnArch { opcode, arch });
                }
                #(#checks)*
            }
        })
    });
    let doc = Doc::text("Validate one record for a generation.").note(format!(
        "Checks, in order: the opcode's bit in every validator bitmask over {}; that the opcode value, \
         and the arm its binding selects, exist on `arch` (`@archs`); and that every enum-typed field \
         of that arm (the discriminant aside) holds a value the spec names. A record whose opcode has \
         no binding passes the bitmask test only: the spec knows nothing else of it.",
        code(&model[op_enum].name)
    ));
    quote! {
        #doc
        pub fn validate(arch: Arch, record: &[u8; #size]) -> Result<(), ValidateError> {
            let opcode = record[#disc];
            #(#masks)*
            if let Ok(op) = crate::generated::opcode::#op_ty::try_from(opcode) {
                if !op.available_on(arch) {
                    return Err(ValidateError::NotOnArch { opcode, arch });
                }
            }
            match crate::generated::inst::Inst::decode(record) {
                #(#arms)*
                _ => {}
            }
            Ok(())
        }
    }
}

fn final_check(model: &Model) -> TokenStream {
    let Some(record) = model.records.first() else { return quote! {} };
    let size = record.size as usize;
    let engine = match model.enum_named("TPB_ENG_TYPE") {
        Some(e) => {
            let t = names::ty(&model[e].name);
            quote! { crate::generated::opcode::#t }
        }
        None => quote! { u8 },
    };
    let per_arch = model.archs.iter().map(|a| {
        let f = format_ident!("final_inst_validity_check_{}", names::snake_str(&a.name));
        let v = names::variant(&a.name);
        let doc = format!(
            "The final-instruction check of {} ({}): today the shared per-arch rules of [`validate`].",
            a.name, a.label
        );
        quote! {
            #[doc = #doc]
            pub fn #f(engine: #engine, record: &[u8; #size]) -> Result<(), ValidateError> {
                let _ = engine;
                validate(Arch::#v, record)
            }
        }
    });
    let arms = model.archs.iter().map(|a| {
        let f = format_ident!("final_inst_validity_check_{}", names::snake_str(&a.name));
        let v = names::variant(&a.name);
        quote! { Arch::#v => #f(engine, record), }
    });
    quote! {
        /// Validate the final record of an engine's stream for a generation.
        ///
        /// Mirrors `ib_final_inst_validity_check` (@0x323cb0, a 5-byte `jmp` into
        /// `tdrv_arch_instr_block_final_inst_validity_check`): one arch-neutral entry that
        /// dispatches to the generation's validator. The per-arch validators share the
        /// record format and differ only in what `@archs` makes available.
        pub fn final_inst_validity_check(arch: Arch, engine: #engine, record: &[u8; #size]) -> Result<(), ValidateError> {
            match arch {
                #(#arms)*
            }
        }

        #(#per_arch)*
    }
}
