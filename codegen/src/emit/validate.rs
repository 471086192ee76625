//! `validate.rs`: validator bitmasks, address apertures, and per-generation record
//! validation, with one module per arch that the `match arch` entry points dispatch to.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};

use crate::model::{
    Aperture, ArmId, Binding, Bitmask, EnumId, Field, FieldType, Model, Prim, Record, SubOpcode,
};

use super::arms::arm_type;
use super::doc::{code, Doc};
use super::names;
use super::opcode::arch_test;
use super::tokens::{hex, hex_text, hex_width, int, usize_lit};

/// The whole file.
pub fn emit(model: &Model) -> TokenStream {
    let bitmasks = model.bitmasks.iter().map(|b| bitmask(model, b));
    let apertures = model.apertures.iter().map(|a| aperture(model, a));
    let records = model.records.first().map(|r| record_validation(model, r));
    quote! {
        use crate::error::ValidateError;
        use crate::generated::geometry::Arch;

        /// One address window of an aperture: `base..base + size`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Region {
            /// The region's spec name (`q0`).
            pub name: &'static str,
            /// First address.
            pub base: u64,
            /// Size in bytes.
            pub size: u64,
        }

        impl Region {
            /// Whether `addr` is inside the window (never overflows).
            #[must_use]
            pub const fn contains(&self, addr: u64) -> bool {
                addr >= self.base && addr - self.base < self.size
            }
        }

        #(#bitmasks)*
        #(#apertures)*
        #records
    }
}

/// `pub const X: [u64; N]` verbatim and `pub const fn x(v) -> bool`.
fn bitmask(model: &Model, b: &Bitmask) -> TokenStream {
    let width = model[b.enum_id].width;
    let konst = names::constant(&b.name);
    let func = names::snake(&b.name);
    let n = usize_lit(b.words.len() as u32);
    let words = b.words.iter().map(|&w| hex(w));
    let set: u32 = b.words.iter().map(|w| w.count_ones()).sum();
    let doc = Doc::of(model, &b.meta, format!("The validator table {}.", code(&b.name))).note(format!(
        "{} words, verbatim; {set} bits set. Bit `v & 63` of word `v >> 6` stands for value `v` of {}.",
        b.words.len(),
        code(&model[b.enum_id].name)
    ));
    let fdoc = Doc::text(format!(
        "Whether the bit of value `v` is set in [`{konst}`]; false past its last word."
    ));
    quote! {
        #doc
        pub const #konst: [u64; #n] = [#(#words),*];

        #fdoc
        #[must_use]
        #[inline]
        pub const fn #func(v: #width) -> bool {
            let word = (v >> 6) as usize;
            word < #konst.len() && (#konst[word] >> (v & 63)) & 1 == 1
        }
    }
}

/// The regions as a const array, and `<name>(addr)`, `in_<name>(addr)` and
/// `addresses_in_same_<name>(a, b)` (the validator's own predicate names).
fn aperture(model: &Model, a: &Aperture) -> TokenStream {
    let konst = names::constant(&a.name);
    let n = usize_lit(a.regions.len() as u32);
    let region_consts: Vec<Ident> =
        a.regions.iter().map(|r| names::const_join(&[&a.name, &r.name])).collect();
    let regions = a.regions.iter().zip(&region_consts).map(|(r, c)| {
        let name = &r.name;
        let base = hex(r.base);
        let size = hex(r.size);
        let end = hex_text(r.base.saturating_add(r.size.saturating_sub(1)));
        let doc =
            Doc::of(model, &r.meta, format!("Region {} of {}.", code(&r.name), code(&a.name)))
                .note(format!("Addresses {}.", code(&format!("{}..={end}", hex_text(r.base)))));
        quote! {
            #doc
            pub const #c: Region = Region { name: #name, base: #base, size: #size };
        }
    });
    let list: Vec<String> = a
        .regions
        .iter()
        .map(|r| {
            format!(
                "{} = {}..={}",
                r.name,
                hex_text(r.base),
                hex_text(r.base.saturating_add(r.size.saturating_sub(1)))
            )
        })
        .collect();
    let doc = Doc::of(model, &a.meta, format!("The aperture {}.", code(&a.name)))
        .note(format!("Regions: {}.", code(&list.join(", "))));
    let index = if a.regions.len() <= 256 {
        quote! { u8 }
    } else {
        quote! { usize }
    };
    let snake = names::snake_str(&a.name);
    let region_fn = names::snake(&a.name);
    let in_fn = format_ident!("in_{snake}");
    let same_fn = format_ident!("addresses_in_same_{snake}");
    let rdoc =
        Doc::text(format!("The index in [`{konst}`] of the region containing `addr`, if any."));
    let idoc = Doc::text(format!("Whether `addr` is inside a region of [`{konst}`]."));
    let sdoc = Doc::text(format!("Whether `a` and `b` are inside the same region of [`{konst}`] (false when either is outside all)."));
    quote! {
        #(#regions)*

        #doc
        pub const #konst: [Region; #n] = [#(#region_consts),*];

        #rdoc
        #[must_use]
        pub const fn #region_fn(addr: u64) -> Option<#index> {
            let mut i = 0;
            while i < #konst.len() {
                if #konst[i].contains(addr) {
                    return Some(i as #index);
                }
                i += 1;
            }
            None
        }

        #idoc
        #[must_use]
        pub const fn #in_fn(addr: u64) -> bool {
            #region_fn(addr).is_some()
        }

        #sdoc
        #[must_use]
        pub const fn #same_fn(a: u64, b: u64) -> bool {
            match (#region_fn(a), #region_fn(b)) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            }
        }
    }
}

/// One enum-typed leaf of an arm's layout: dotted name, absolute offset, enum.
struct Leaf {
    name: String,
    offset: u32,
    enum_id: EnumId,
}

/// Enum-typed leaves of `fields` (through nested structs and arrays).
fn leaves(model: &Model, fields: &[Field], base: u32, prefix: &str, out: &mut Vec<Leaf>) {
    fn walk(model: &Model, ty: &FieldType, name: String, offset: u32, out: &mut Vec<Leaf>) {
        match ty {
            FieldType::Enum(e) => out.push(Leaf { name, offset, enum_id: *e }),
            FieldType::Struct(s) => leaves(model, &model[*s].fields, offset, &name, out),
            FieldType::Array(t, n) => {
                let stride = model.size_of(t);
                for i in 0..*n {
                    walk(model, t, format!("{name}[{i}]"), offset + i * stride, out);
                }
            }
            FieldType::Prim(_) | FieldType::Bits(_) | FieldType::Reserved(_) => {}
        }
    }
    for f in fields {
        let name = if prefix.is_empty() { f.name.clone() } else { format!("{prefix}.{}", f.name) };
        walk(model, &f.ty, name, base + f.offset, out);
    }
}

/// The leaves of an arm's whole layout (or the preamble alone), the discriminant aside.
fn arm_leaves(model: &Model, record: &Record, arm: Option<ArmId>) -> Vec<Leaf> {
    let fields: Vec<Field> = match arm {
        Some(a) => model.arm_fields(a).cloned().collect(),
        None => record.preamble.clone(),
    };
    let mut out = Vec::new();
    leaves(model, &fields, 0, "", &mut out);
    out.retain(|l| l.offset != record.discriminant.offset);
    out
}

/// `validate`, `final_inst_validity_check`, the per-arch modules and the shared checks.
fn record_validation(model: &Model, record: &Record) -> TokenStream {
    let engine = engine_type(model);
    let op_name = &model[record.discriminant.ty].name;
    let modules = model.archs.iter().map(|a| {
        let m = names::snake(&a.name);
        let v = names::variant(&a.name);
        let mdoc = format!(" The validator of {} ({}): the shared rules with {}'s availability.", a.name, a.label, a.name);
        let vdoc = Doc::text(format!("Validate one record for {} (see [`super::validate`]).", a.name));
        let fdoc = Doc::text(format!("The final-record check for {} (see [`super::final_inst_validity_check`]).", a.name));
        quote! {
            #[doc = #mdoc]
            pub mod #m {
                use crate::error::ValidateError;
                use crate::generated::geometry::Arch;
                use crate::generated::inst::RECORD_SIZE;

                #vdoc
                pub fn validate(record: &[u8; RECORD_SIZE]) -> Result<(), ValidateError> {
                    super::check(Arch::#v, record)
                }

                #fdoc
                pub fn final_inst_validity_check(engine: #engine, record: &[u8; RECORD_SIZE]) -> Result<(), ValidateError> {
                    let _ = engine;
                    super::check(Arch::#v, record)
                }
            }
        }
    });
    let validate_arms: Vec<TokenStream> = model
        .archs
        .iter()
        .map(|a| {
            let m = names::snake(&a.name);
            let v = names::variant(&a.name);
            quote! { Arch::#v => #m::validate(record), }
        })
        .collect();
    let final_arms = model.archs.iter().map(|a| {
        let m = names::snake(&a.name);
        let v = names::variant(&a.name);
        quote! { Arch::#v => #m::final_inst_validity_check(engine, record), }
    });
    let doc = Doc::text("Validate one record for a generation.").note(format!(
        "Checks, in order: the record's bit in every validator bitmask over {}; that the opcode value, \
         the binding that selects its arm and the arm exist on `arch` (`@archs`); and that every \
         enum-typed field of that arm (the discriminant aside) holds a value the spec names and \
         makes available on `arch`. A record no binding selects is checked as far as the preamble: \
         the spec knows nothing else of it.",
        code(op_name)
    ));
    let (validate_body, final_body) = if model.archs.is_empty() {
        (quote! { match arch {} }, quote! { let _ = (engine, record); match arch {} })
    } else {
        (quote! { match arch { #(#validate_arms)* } }, quote! { match arch { #(#final_arms)* } })
    };
    let check = check_fn(model, record);
    quote! {
        #doc
        pub fn validate(arch: Arch, record: &[u8; crate::generated::inst::RECORD_SIZE]) -> Result<(), ValidateError> {
            #validate_body
        }

        /// Validate the final record of an engine's stream for a generation.
        ///
        /// Mirrors `ib_final_inst_validity_check` (a 5-byte `jmp` into
        /// `tdrv_arch_instr_block_final_inst_validity_check`): one arch-neutral entry that
        /// dispatches, per arch, to that generation's validator. The spec knows no
        /// per-engine rule yet, so every engine runs the record rules of [`validate`].
        pub fn final_inst_validity_check(
            arch: Arch,
            engine: #engine,
            record: &[u8; crate::generated::inst::RECORD_SIZE],
        ) -> Result<(), ValidateError> {
            #final_body
        }

        #(#modules)*
        #check
    }
}

/// The engine parameter: the `TPB_ENG_TYPE` enum when the spec has it, else its raw byte.
fn engine_type(model: &Model) -> TokenStream {
    match model.enums.iter().find(|e| names::type_str(&e.name) == "TpbEngType") {
        Some(e) => {
            let t = names::ty(&e.name);
            quote! { crate::generated::opcode::#t }
        }
        None => quote! { u8 },
    }
}

/// The shared rule set: `fn check(arch, record)` and its helpers.
fn check_fn(model: &Model, record: &Record) -> TokenStream {
    let op_enum = record.discriminant.ty;
    let width = model[op_enum].width;
    let op_ty = names::ty(&model[op_enum].name);
    let disc = usize_lit(record.discriminant.offset);
    let read_op = if width.size() == 1 {
        quote! { record[#disc] }
    } else {
        let f = format_ident!("{}_at", width.as_str());
        quote! { crate::raw::le::#f(record, #disc) }
    };
    // Error payloads carry the opcode byte.
    let op_byte = if width == Prim::U8 {
        quote! { opcode }
    } else {
        quote! { opcode: opcode as u8 }
    };
    let masks = model.bitmasks.iter().filter(|b| b.enum_id == op_enum).map(|b| {
        let f = names::snake(&b.name);
        quote! {
            if !#f(opcode) {
                return Err(ValidateError::OpcodeNotValid { #op_byte });
            }
        }
    });
    let binding_check = binding_available(model, record);
    let binding_call = (!binding_check.is_empty()).then(|| {
        quote! {
            if !binding_available(arch, record) {
                return Err(ValidateError::NotOnArch { #op_byte, arch });
            }
        }
    });
    // Field checks per bound arm, and for the preamble of unbound records.
    let mut used: BTreeSet<EnumId> = BTreeSet::new();
    let mut arm_fns = Vec::new();
    let mut arm_arms = Vec::new();
    let mut bound: Vec<ArmId> = Vec::new();
    for b in &model.bindings {
        if !bound.contains(&b.arm) {
            bound.push(b.arm);
        }
    }
    for &a in &bound {
        let ls = arm_leaves(model, record, Some(a));
        if ls.is_empty() {
            continue;
        }
        used.extend(ls.iter().map(|l| l.enum_id));
        let f = format_ident!("check_{}", names::snake_str(&model[a].name));
        let t = arm_type(&model[a]);
        let doc = format!(" The enum-typed fields of `{}`.", model[a].name);
        let stmts = ls.iter().map(|l| leaf_check(model, l));
        arm_fns.push(quote! {
            #[doc = #doc]
            fn #f(arch: Arch, record: &[u8; crate::generated::inst::RECORD_SIZE]) -> Result<(), ValidateError> {
                #(#stmts)*
                Ok(())
            }
        });
        arm_arms.push(quote! { crate::generated::arms::ArmKind::#t => #f(arch, record), });
    }
    if arm_arms.len() < model.arms.len() {
        arm_arms.push(quote! { _ => Ok(()), });
    }
    let pre = arm_leaves(model, record, None);
    let unknown = if pre.is_empty() {
        quote! { Ok(()) }
    } else {
        used.extend(pre.iter().map(|l| l.enum_id));
        let stmts = pre.iter().map(|l| leaf_check(model, l));
        quote! {{ #(#stmts)* Ok(()) }}
    };
    let named_fns = used.iter().map(|&e| named_fn(model, e));
    quote! {
        /// The rules every generation shares; `arch` only decides availability.
        fn check(arch: Arch, record: &[u8; crate::generated::inst::RECORD_SIZE]) -> Result<(), ValidateError> {
            let opcode = #read_op;
            #(#masks)*
            if let Some(op) = crate::generated::opcode::#op_ty::from_value(opcode) {
                if !op.available_on(arch) {
                    return Err(ValidateError::NotOnArch { #op_byte, arch });
                }
            }
            #binding_call
            match crate::generated::inst::dispatch(record) {
                Some(kind) => {
                    if !kind.available_on(arch) {
                        return Err(ValidateError::NotOnArch { #op_byte, arch });
                    }
                    match kind {
                        #(#arm_arms)*
                    }
                }
                None => #unknown,
            }
        }

        #binding_check
        #(#arm_fns)*
        #(#named_fns)*
    }
}

/// `if !named_x(arch, v) { return Err(BadEnum { .. }) }` for one leaf.
fn leaf_check(model: &Model, l: &Leaf) -> TokenStream {
    let e = &model[l.enum_id];
    let f = named_ident(model, l.enum_id);
    let off = usize_lit(l.offset);
    let read = if e.width.size() == 1 {
        quote! { record[#off] }
    } else {
        let g = format_ident!("{}_at", e.width.as_str());
        quote! { crate::raw::le::#g(record, #off) }
    };
    let value = if e.width == Prim::U64 {
        quote! { v }
    } else {
        quote! { u64::from(v) }
    };
    let name = &l.name;
    quote! {
        let v = #read;
        if !#f(arch, v) {
            return Err(ValidateError::BadEnum { field: #name, offset: #off, value: #value });
        }
    }
}

fn named_ident(model: &Model, e: EnumId) -> Ident {
    format_ident!("named_{}", names::snake_str(&model[e].name))
}

/// `const fn named_x(arch, v) -> bool`: `v` is a named value of the enum, available on
/// `arch`, and set in every bitmask over the enum.
fn named_fn(model: &Model, e: EnumId) -> TokenStream {
    let en = &model[e];
    let f = named_ident(model, e);
    let t = names::ty(&en.name);
    let w = en.width;
    let masks: Vec<Ident> =
        model.bitmasks.iter().filter(|b| b.enum_id == e).map(|b| names::snake(&b.name)).collect();
    let doc = format!(
        " Whether `v` is a value of `{}` the spec names and makes available on `arch`.",
        en.name
    );
    quote! {
        #[doc = #doc]
        const fn #f(arch: Arch, v: #w) -> bool {
            match crate::generated::opcode::#t::from_value(v) {
                Some(x) => x.available_on(arch) #(&& #masks(v))*,
                None => false,
            }
        }
    }
}

/// `const fn binding_available(arch, record) -> bool`, mirroring the dispatch, when any
/// binding has `@archs`; empty otherwise.
fn binding_available(model: &Model, record: &Record) -> TokenStream {
    if model.bindings.iter().all(|b| b.meta.archs.is_none()) {
        return TokenStream::new();
    }
    let width = model[record.discriminant.ty].width;
    let disc = usize_lit(record.discriminant.offset);
    let test = |b: &Binding| match &b.meta.archs {
        Some(archs) => arch_test(model, archs),
        None => quote! { true },
    };
    let mut groups: Vec<(u64, Vec<&Binding>)> = Vec::new();
    for b in &model.bindings {
        match groups.last_mut() {
            Some((op, v)) if *op == b.opcode => v.push(b),
            _ => groups.push((b.opcode, vec![b])),
        }
    }
    let arms = groups.iter().filter(|(_, bs)| bs.iter().any(|b| b.meta.archs.is_some())).map(
        |(op, bs)| {
            let lit = hex_width(*op, width.size());
            let fallback = bs.iter().find(|b| b.sub.is_none()).map_or(quote! { true }, |b| test(b));
            let subs: Vec<(&SubOpcode, TokenStream)> =
                bs.iter().filter_map(|b| b.sub.as_ref().map(|s| (s, test(b)))).collect();
            let body = sub_tests(&subs, fallback);
            quote! { #lit => #body, }
        },
    );
    let read_op = if width.size() == 1 {
        quote! { record[#disc] }
    } else {
        let f = format_ident!("{}_at", width.as_str());
        quote! { crate::raw::le::#f(record, #disc) }
    };
    quote! {
        /// Whether the binding that selects the record's arm exists on `arch`; true when
        /// no binding selects it (the opcode's own availability is checked apart).
        const fn binding_available(arch: Arch, record: &[u8; crate::generated::inst::RECORD_SIZE]) -> bool {
            match #read_op {
                #(#arms)*
                _ => true,
            }
        }
    }
}

/// Nested `match record[offset] { value => test, .., _ => fallback }` per sub offset.
fn sub_tests(subs: &[(&SubOpcode, TokenStream)], fallback: TokenStream) -> TokenStream {
    let Some((first, _)) = subs.first() else { return fallback };
    let offset = first.offset;
    let (here, rest): (Vec<_>, Vec<_>) =
        subs.iter().cloned().partition(|(s, _)| s.offset == offset);
    let inner = sub_tests(&rest, fallback);
    let arms = here.iter().filter(|(s, _)| s.value <= u8::MAX as u64).map(|(s, t)| {
        let v = int(s.value);
        quote! { #v => #t, }
    });
    let off = usize_lit(offset).into_token_stream();
    quote! {
        match record[#off] {
            #(#arms)*
            _ => #inner,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn seed_names_and_per_arch_dispatch() {
        let text = emit(&fixture::model()).to_string();
        assert!(
            text.contains("pub const fn sbuf_quadrant (addr : u64) -> Option < u8 >"),
            "{text}"
        );
        assert!(text
            .contains("pub const fn addresses_in_same_sbuf_quadrant (a : u64 , b : u64) -> bool"));
        assert!(text.contains("pub const fn in_psum (addr : u64) -> bool"));
        assert!(text.contains("Arch :: Cayman => cayman :: validate (record) ,"));
        assert!(text.contains("engine : crate :: generated :: opcode :: TpbEngType"));
        // S3D3_TS's binding is cayman.. only; its dtype array is checked element by element.
        assert!(
            text.contains("0x20 => matches ! (arch , Arch :: Cayman | Arch :: Mariana) ,"),
            "{text}"
        );
        assert!(text.contains("field : \"dtypes[1]\" , offset : 14"));
        assert!(text.contains("Some (x) => x . available_on (arch) ,"));
    }
}
