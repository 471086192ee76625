//! `validate.rs`: validator bitmasks, address apertures, and per-generation record
//! validation, with one module per arch that the `match arch` entry points dispatch to.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::model::{
    Aperture, BitField, BitType, Bitmask, Bits, Confidence, EnumId, Field, FieldType, Model, Prim,
    Record,
};

use super::doc::{code, Doc};
use super::names;
use super::tokens::{hex, hex_text, hex_width, usize_lit};

/// The whole file.
pub fn emit(model: &Model) -> TokenStream {
    let bitmasks = model.bitmasks.iter().map(|b| bitmask(model, b));
    let apertures = model.apertures.iter().map(|a| aperture(model, a));
    let records = record_validation(model, &model.record);
    let uses = quote! {
        use crate::error::ValidateError;
        use crate::generated::arms::ArmKind;
        use crate::generated::geometry::Arch;
        use crate::generated::inst::{dispatch, RECORD_SIZE};
        use crate::leaf_test::{check_list, unrolled_table, ByteTests, Unrolled};
        use crate::validate_plan::Plan;
        use crate::generated::opcode::*;
    };
    quote! {
        #uses

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
            // The link leads to the aperture's docs and sources, which a region
            // without its own inherits.
            Doc::of(model, &r.meta, format!("Region {} of [`{konst}`].", code(&r.name)))
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

/// One enum-typed leaf of a layout: dotted name, absolute offset, width in bytes, the
/// bit range inside it (whole bytes for a field, a slice for a typed bit-field), enum.
struct Leaf {
    name: String,
    offset: u32,
    width: u32,
    shift: u32,
    bits: u32,
    enum_id: EnumId,
}

/// Enum-typed leaves of `fields` (through nested structs, arrays and typed bit-fields;
/// unions are many readings at once, so nothing in them is required). An enum whose
/// values no source gives (declared `{}`) checks nothing: the spec does not know its
/// values, which is not to say that no value is valid.
fn leaves(model: &Model, fields: &[Field], base: u32, prefix: &str, out: &mut Vec<Leaf>) {
    fn walk(model: &Model, ty: &FieldType, name: String, offset: u32, out: &mut Vec<Leaf>) {
        match ty {
            FieldType::Enum(e) if model[*e].variants.is_empty() => {}
            FieldType::Enum(e) => {
                let width = model[*e].width.size();
                out.push(Leaf { name, offset, width, shift: 0, bits: width * 8, enum_id: *e })
            }
            FieldType::Bits(b) => {
                let bits = &model[*b];
                for f in &bits.fields {
                    if let BitType::Enum(e) = f.ty {
                        if model[e].variants.is_empty() || shared_by_a_reading(bits, f) {
                            continue;
                        }
                        out.push(Leaf {
                            name: format!("{name}.{}", f.name),
                            offset,
                            width: bits.width.size(),
                            shift: f.lo,
                            bits: f.hi - f.lo,
                            enum_id: e,
                        });
                    }
                }
            }
            FieldType::Struct(s) => leaves(model, &model[*s].fields, offset, &name, out),
            FieldType::Array(t, n) => {
                let stride = model.size_of(t);
                for i in 0..*n {
                    walk(model, t, format!("{name}[{i}]"), offset + i * stride, out);
                }
            }
            FieldType::Prim(_)
            | FieldType::Union(_)
            | FieldType::Reserved(_)
            | FieldType::Unknown(_) => {}
        }
    }
    for f in fields {
        let name = if prefix.is_empty() { f.name.clone() } else { format!("{prefix}.{}", f.name) };
        walk(model, &f.ty, name, base + f.offset, out);
    }
}

/// Whether a reading (`alt`) of `bits` gives some of `field`'s bits to a field of its
/// own: then the field's value also carries that reading's data, and a value its enum
/// does not name is no error. The ADDR4 marker is the case: its byte holds bits 24..29
/// of a 29-bit immediate address (a PSUM address has 0x02 there).
fn shared_by_a_reading(bits: &Bits, field: &BitField) -> bool {
    bits.alts.iter().flat_map(|a| &a.fields).any(|x| x.lo < field.hi && field.lo < x.hi)
}

/// The leaves of a layout (or the preamble alone), the discriminant aside.
fn layout_leaves(model: &Model, record: &Record, fields: &[Field]) -> Vec<Leaf> {
    let mut out = Vec::new();
    leaves(model, fields, 0, "", &mut out);
    out.retain(|l| l.offset != record.discriminant.offset || l.shift != 0);
    out
}

/// `validate`, `final_inst_validity_check`, the enum-field tables and the shared rules.
fn record_validation(model: &Model, record: &Record) -> TokenStream {
    let engine = engine_type(model);
    let op_name = &model[record.discriminant.ty].name;
    let doc = Doc::text("Validate one record for a generation.").note(format!(
        "Checks, in order: the record's bit in every validator bitmask over {} whose reading a source confirms (an inferred table is not enforced); that an opcode value \
         the spec names and the arm its binding selects exist on `arch` \
         (`@archs`); and that every \
         enum-typed field of that arm's layout on `arch` (the discriminant aside) holds a value the \
         spec names and makes available on `arch`; a field of an enum whose values no source gives, \
         and an enum bit-field whose bits a reading of its operand gives to other fields (the ADDR4 \
         marker byte, which holds the top of an immediate address), are not checked. A record no binding selects on `arch` \
         (a binding whose `@archs` leaves `arch` out selects nothing there) is checked as far as \
         the preamble, and for an opcode whose bindings all sub-dispatch on one enum-typed byte \
         (PSEUDO_INST's `pseudo_opcode`), that byte: the spec knows nothing else of it. An opcode value the spec neither names nor \
         binds (`0x00`, an all-zero record, which `Inst::decode` gives as `Inst::Unknown`) \
         is [`ValidateError::NotOnArch`], as is one it names on other generations only.{}",
        code(op_name),
        apertures_unapplied(model)
    ));
    let check = check_fn(model, record);
    quote! {
        #doc
        #[inline]
        pub fn validate(arch: Arch, record: &[u8; RECORD_SIZE]) -> Result<(), ValidateError> {
            check(arch, record)
        }

        /// Validate the final record of an engine's stream for a generation.
        ///
        /// Mirrors `ib_final_inst_validity_check` (a 5-byte `jmp` into
        /// `tdrv_arch_instr_block_final_inst_validity_check`): one arch-neutral entry that
        /// dispatches, per arch, to that generation's validator. The spec knows no
        /// per-engine rule yet, so every engine runs the record rules of [`validate`].
        /// It takes the final record itself; for a whole stream's bytes,
        /// [`stream::final_inst_validity_check`](crate::stream::final_inst_validity_check)
        /// finds that record first.
        pub fn final_inst_validity_check(
            arch: Arch,
            engine: #engine,
            record: &[u8; RECORD_SIZE],
        ) -> Result<(), ValidateError> {
            let _ = engine;
            check(arch, record)
        }

        #check
    }
}

/// What `validate`'s doc says of the spec's address apertures: that it applies none,
/// since the sources give the predicates but not the fields of which arm they govern.
fn apertures_unapplied(model: &Model) -> String {
    if model.apertures.is_empty() {
        return String::new();
    }
    let names: Vec<String> = model.apertures.iter().map(|a| code(&a.name)).collect();
    format!(
        " The address apertures ({}) are applied to no field: the sources give their \
         predicates but not which fields of which arm they govern; the predicates in this \
         module are for callers.",
        names.join(", ")
    )
}

/// The engine parameter: the `TPB_ENG_TYPE` enum when the spec has it, else its raw byte.
fn engine_type(model: &Model) -> TokenStream {
    match model.enums.iter().find(|e| e.rust == "TpbEngType") {
        Some(e) => {
            let t = names::ident(&e.rust);
            quote! { #t }
        }
        None => quote! { u8 },
    }
}

/// The expression reading a record's discriminant from `record` (a `const` read).
fn read_opcode(record: &Record) -> TokenStream {
    let disc = usize_lit(record.discriminant.offset);
    quote! { record[#disc] }
}

/// The shared rule set: `fn check(arch, record)`, the leaf tables, and the per-enum
/// `named_*` tests the tables point at.
fn check_fn(model: &Model, record: &Record) -> TokenStream {
    let op_enum = record.discriminant.ty;
    let op_ty = names::ident(&model[op_enum].rust);
    let read_op = read_opcode(record);
    // A table whose reading is inferred decides nothing: only confirmed ones reject.
    let masks: Vec<Ident> = model
        .bitmasks
        .iter()
        .filter(|b| b.enum_id == op_enum && b.meta.confidence != Confidence::Inferred)
        .map(|b| names::snake(&b.name))
        .collect();
    let restricted = model.bindings.iter().any(|b| model.is_narrow(b));
    // A binding another generation's `@archs` keeps (CUSTOM_OP_HEADER's struct is
    // sunda's; cayman keeps the value) selects nothing here: the opcode exists, its layout
    // is unknown, so its record is checked as any record no binding selects.
    let binding_call = restricted.then(|| {
        quote! {
            if !crate::generated::inst::binding_on(arch, record) {
                return unbound(arch, opcode);
            }
        }
    });
    let n_arch = usize_lit(model.arch_ids().count() as u32);
    let arch_indices: Vec<proc_macro2::Literal> =
        (0..model.arch_ids().count() as u32).map(usize_lit).collect();
    // One table of enum leaves per distinct layout, a copy per generation (each leaf's
    // value table row resolved for it); `leaves(kind, arch)` picks it.
    let mut used: BTreeSet<EnumId> = BTreeSet::new();
    let mut sub_rows: BTreeSet<(EnumId, u32, u32)> = BTreeSet::new();
    let mut tables: Vec<TokenStream> = Vec::new();
    let mut kind_arms = Vec::new();
    for (ai, arm) in model.arms.iter().enumerate() {
        let k = names::ident(&arm.rust);
        let mut per_layout = Vec::new();
        for (li, l) in arm.layouts.iter().enumerate() {
            let ls = layout_leaves(model, record, &l.fields);
            if ls.is_empty() {
                per_layout.push(None);
                continue;
            }
            used.extend(ls.iter().map(|x| x.enum_id));
            sub_rows.extend(ls.iter().filter_map(in_byte));
            let t = format_ident!("LEAVES_{}_{}", ai, li);
            let p = format_ident!("UNROLLED_{}_{}", ai, li);
            let rows = ls.iter().map(|x| leaf_row(model, x));
            let doc = format!(
                " The enum-typed fields of `{}`{}.",
                arm.name,
                if arm.layouts.len() > 1 {
                    format!(
                        " on {}",
                        l.archs
                            .iter()
                            .map(|&a| model[a].name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                } else {
                    String::new()
                }
            );
            let n = usize_lit(ls.len() as u32);
            tables.push(quote! {
                #[doc = #doc]
                static #t: [[EnumLeaf; #n]; #n_arch] = EnumLeaf::per_arch([#(#rows),*]);
                const #p: [Option<Unrolled>; #n_arch] = unrolled_table!(#t; #(#arch_indices)*);
            });
            per_layout.push(Some((t, p)));
        }
        if per_layout.iter().all(Option::is_none) {
            continue;
        }
        if arm.layouts.len() == 1 {
            let (t, p) = per_layout[0].as_ref().expect("checked");
            kind_arms.push(quote! { ArmKind::#k => (&#t[arch as usize], #p[arch as usize]), });
        } else {
            // Generations the arm does not exist on read its records as the oldest layout.
            let elsewhere: Vec<TokenStream> = model
                .arch_ids()
                .filter(|a| !arm.layouts.iter().any(|l| l.archs.contains(a)))
                .map(|a| super::arch_set::arch_variant(model, a))
                .collect();
            let rows = per_layout.iter().zip(&arm.layouts).enumerate().map(|(k, (p, l))| {
                let mut archs: Vec<TokenStream> =
                    l.archs.iter().map(|&a| super::arch_set::arch_variant(model, a)).collect();
                if k == 0 {
                    archs.extend(elsewhere.iter().cloned());
                }
                match p {
                    Some((t, p)) => {
                        quote! { #(#archs)|* => (&#t[arch as usize], #p[arch as usize]), }
                    }
                    None => quote! { #(#archs)|* => (&[], None), },
                }
            });
            kind_arms.push(quote! { ArmKind::#k => match arch { #(#rows)* }, });
        }
    }
    let pre = layout_leaves(model, record, &record.preamble);
    used.extend(pre.iter().map(|l| l.enum_id));
    sub_rows.extend(pre.iter().filter_map(in_byte));
    let unbound = unbound_fn(model, record, &pre);
    let sub_rows: Vec<TokenStream> = sub_rows.into_iter().map(|k| rows_const(model, k)).collect();
    let pre_rows = pre.iter().map(|x| leaf_row(model, x));
    let n_pre = usize_lit(pre.len() as u32);
    let named_fns = used.iter().map(|&e| named_fn(model, e));
    let table_use = if used.iter().any(|&e| model[e].width == Prim::U8) || !sub_rows.is_empty() {
        quote! { use crate::enum_table::enum_table; }
    } else {
        quote! {}
    };
    let check_entry = plan_table(model);
    quote! {
        /// An enum-typed field (or typed bit-field) a validator checks.
        #[derive(Clone, Copy)]
        pub struct EnumLeaf {
            /// The field's dotted name.
            pub name: &'static str,
            /// Its first byte in the record.
            pub offset: u8,
            /// Its width in bytes (little-endian).
            pub width: u8,
            /// Its lowest bit inside those bytes.
            pub shift: u8,
            /// Its width in bits.
            pub bits: u8,
            /// The value test of the field's enum.
            pub check: &'static EnumCheck,
            /// Whether each value of the leaf's byte passes, on the generation of the
            /// leaf list this leaf is in, when the field lies in one byte (a byte of a
            /// byte-wide enum, or a bit-field inside one byte): the validator's hot path
            /// reads the byte and tests one flag. Any other leaf has the empty row, which
            /// no byte passes, so the hot path hands it to the full test.
            pub(crate) byte_row: &'static [bool; 256],
            /// The rows `byte_row` is taken from (one a generation), when the leaf lies
            /// in one byte: its enum's table for a whole byte, a table of the byte's
            /// values for a bit-field inside one.
            pub(crate) byte_rows: Option<&'static [[bool; 256]; #n_arch]>,
            /// That byte's offset in the record.
            pub(crate) byte_at: u8,
        }

        /// The value table row of a leaf that is not one whole byte of a byte-wide enum.
        static NO_BYTE_ROW: [bool; 256] = [false; 256];

        /// Which values of an enum the spec names and makes available on a generation.
        pub struct EnumCheck {
            /// The test.
            pub named: fn(Arch, u64) -> bool,
            /// `named` as a flag per value and generation, for a byte-wide enum: the
            /// validator's hot path (an indirect call per field was most of its cost).
            pub(crate) table: Option<[[bool; 256]; #n_arch]>,
        }

        impl EnumLeaf {
            /// A leaf whose byte row is not resolved yet ([`EnumLeaf::per_arch`] does).
            const fn new(name: &'static str, offset: u8, width: u8, shift: u8, bits: u8, check: &'static EnumCheck) -> EnumLeaf {
                let byte_rows = match &check.table {
                    Some(t) if bits == 8 && shift % 8 == 0 && shift / 8 < width => Some(t),
                    _ => None,
                };
                EnumLeaf { name, offset, width, shift, bits, check, byte_row: &NO_BYTE_ROW, byte_rows, byte_at: offset + shift / 8 }
            }

            /// A bit-field inside one byte, with `rows`: for each generation, whether
            /// each value of that byte holds a named value in the field's bits.
            const fn in_byte(name: &'static str, offset: u8, width: u8, shift: u8, bits: u8, check: &'static EnumCheck, rows: &'static [[bool; 256]; #n_arch]) -> EnumLeaf {
                let leaf = EnumLeaf::new(name, offset, width, shift, bits, check);
                EnumLeaf { byte_rows: Some(rows), ..leaf }
            }

            /// A layout's leaves once per generation, each with its byte row for it.
            const fn per_arch<const N: usize>(leaves: [EnumLeaf; N]) -> [[EnumLeaf; N]; #n_arch] {
                let mut out = [leaves; #n_arch];
                let mut a = 0;
                while a < #n_arch {
                    let mut i = 0;
                    while i < N {
                        if let Some(t) = leaves[i].byte_rows {
                            out[a][i].byte_row = &t[a];
                        }
                        i += 1;
                    }
                    a += 1;
                }
                out
            }

            /// Whether `v` is a value the spec names and makes available on `arch`
            /// (`check.named`, through its table when there is one).
            #[must_use]
            #[inline]
            pub fn holds(&self, arch: Arch, v: u64) -> bool {
                match &self.check.table {
                    Some(t) if v < 256 => t[arch as usize][v as usize],
                    Some(_) => false,
                    None => (self.check.named)(arch, v),
                }
            }

            /// The leaf's value in `record` (off the validator's hot path, which reads
            /// the leaf's byte).
            #[must_use]
            pub fn value(&self, record: &[u8; RECORD_SIZE]) -> u64 {
                let mut v = 0u64;
                for i in 0..self.width as usize {
                    v |= u64::from(record[self.offset as usize + i]) << (8 * i);
                }
                let v = v >> self.shift;
                if self.bits >= 64 { v } else { v & ((1u64 << self.bits) - 1) }
            }
        }

        /// The enum-typed fields of the preamble, for a record no binding selects.
        static PREAMBLE_LEAVES: [[EnumLeaf; #n_pre]; #n_arch] = EnumLeaf::per_arch([#(#pre_rows),*]);
        const PREAMBLE_UNROLLED: [Option<Unrolled>; #n_arch] = unrolled_table!(PREAMBLE_LEAVES; #(#arch_indices)*);
        /// The preamble's leaves' bytes and rows as constants, for the validator's
        /// first test: a crate that inlines it sees the bytes and the rows' addresses,
        /// where it would load them from the static.
        const PREAMBLE_TESTS: [ByteTests<#n_pre>; #n_arch] = {
            let mut t = [ByteTests::never(); #n_arch];
            let mut a = 0;
            while a < #n_arch {
                if let Some(p) = ByteTests::of(&PREAMBLE_LEAVES[a]) {
                    t[a] = p;
                }
                a += 1;
            }
            t
        };

        #(#tables)*
        #(#sub_rows)*

        /// The enum-typed fields of an arm's layout on a generation.
        #[must_use]
        pub const fn enum_leaves(kind: ArmKind, arch: Arch) -> &'static [EnumLeaf] {
            leaf_list(kind, arch).0
        }

        /// [`enum_leaves`] with its unrolled test, when it has one.
        pub(crate) const fn leaf_list(kind: ArmKind, arch: Arch) -> (&'static [EnumLeaf], Option<Unrolled>) {
            let _ = arch;
            #[allow(unreachable_patterns)]
            match kind {
                #(#kind_arms)*
                _ => (&[], None),
            }
        }

        #check_entry

        /// The rules every generation shares; `arch` decides availability and layouts.
        pub(crate) fn check_by_rules(arch: Arch, record: &[u8; RECORD_SIZE]) -> Result<(), ValidateError> {
            apply(plan_for(arch, record), arch, record)
        }

        /// The rules before the fields, for one record: the first error in the order
        /// the validator reports them, else the enum-typed leaves to check.
        const fn plan_for(arch: Arch, record: &[u8; RECORD_SIZE]) -> Plan<EnumLeaf> {
            let opcode = #read_op;
            #(
                if !#masks(opcode) {
                    return Plan::OpcodeNotValid;
                }
            )*
            let op = #op_ty(opcode);
            if op.is_known() && !op.available_on(arch) {
                return Plan::NotOnArch;
            }
            // A value the opcode table does not name and no binding reads is one the
            // spec knows on no generation: not a record it can accept.
            if !op.is_known() && dispatch(record).is_none() {
                return Plan::NotOnArch;
            }
            #binding_call
            match dispatch(record) {
                Some(kind) if !kind.available_on(arch) => Plan::NotOnArch,
                Some(kind) => {
                    let (leaves, pass) = leaf_list(kind, arch);
                    Plan::Check(leaves, pass)
                }
                None => unbound(arch, opcode),
            }
        }

        #unbound

        /// The result of a plan for `record` (the full rules for [`Plan::BySub`]).
        /// Always inlined: the validator's hot path is `check` with this in it.
        #[inline(always)]
        fn apply(plan: Plan<EnumLeaf>, arch: Arch, record: &[u8; RECORD_SIZE]) -> Result<(), ValidateError> {
            let opcode = #read_op;
            match plan {
                Plan::Check(leaves, unrolled) => check_list(arch, record, leaves, unrolled),
                Plan::OpcodeNotValid => Err(ValidateError::OpcodeNotValid { opcode }),
                Plan::NotOnArch => Err(ValidateError::NotOnArch { opcode, arch }),
                // Entries for a sub-opcode byte (`plan_for` gives neither; `check` resolves `Sub`).
                Plan::BySub | Plan::Sub(_) => check_by_rules(arch, record),
            }
        }

        #table_use
        #(#named_fns)*
    }
}

/// `fn check`: one load from `PLAN` (built at compile time by
/// the hand-written `plan_table!` from `plan_for` on each opcode value), then the
/// leaves; the full rules only for sub-opcode values.
fn plan_table(model: &Model) -> TokenStream {
    let on_arch = model.arch_ids().map(|a| {
        let v = super::arch_set::arch_variant(model, a);
        quote! { #v => check_on(#v, record), }
    });
    quote! {
        use crate::generated::inst::DISCRIMINANT_OFFSET;
        use crate::leaf_test::check_rest;
        use crate::validate_plan::{gate_table, plan_table, sub_plan_table, Gate, Refusal, SubPlan};

        /// The rules every generation shares, planned per opcode value (and per value
        /// of a sub-opcode byte): the plan's gate first, then the plan. A copy per
        /// generation, so that its preamble rows and tables are constants.
        #[inline]
        fn check(arch: Arch, record: &[u8; RECORD_SIZE]) -> Result<(), ValidateError> {
            match arch {
                #(#on_arch)*
            }
        }

        /// [`check`] on a generation the caller names as a constant.
        #[inline(always)]
        fn check_on(arch: Arch, record: &[u8; RECORD_SIZE]) -> Result<(), ValidateError> {
            let op = usize::from(record[DISCRIMINANT_OFFSET]);
            let gate = &GATE[arch as usize][op];
            // A short leaf list whose leaves each lie in one byte, after the preamble's:
            // passed alike, without a branch on the arm.
            if PREAMBLE_TESTS[arch as usize].passes(record) & gate.settles(record) {
                return Ok(());
            }
            if !gate.row[usize::from(record[usize::from(gate.at) % RECORD_SIZE])] {
                return Err(refusal(gate.fail, arch, record));
            }
            planned(arch, record, op)
        }

        /// [`check`] of a record whose gate neither settled nor refused it: the rest
        /// of its plan, out of line (the two tests above are the hot path).
        #[inline(never)]
        fn planned(
            arch: Arch,
            record: &[u8; RECORD_SIZE],
            op: usize,
        ) -> Result<(), ValidateError> {
            match PLAN[arch as usize][op] {
                // A leaf list whose first leaf the gate tested: its unrolled test of the rest.
                Plan::Check(leaves @ [_, ..], Some(u)) => check_rest(arch, record, leaves, u.failing),
                Plan::Sub(s) => apply(s.plans[usize::from(record[usize::from(s.offset) % RECORD_SIZE])], arch, record),
                plan => apply(plan, arch, record),
            }
        }

        /// The error of a gate a record fails: what [`apply`] gives for its plan.
        #[inline(always)]
        fn refusal(fail: Refusal<EnumLeaf>, arch: Arch, record: &[u8; RECORD_SIZE]) -> ValidateError {
            let opcode = record[DISCRIMINANT_OFFSET];
            match fail {
                Refusal::OpcodeNotValid => ValidateError::OpcodeNotValid { opcode },
                Refusal::NotOnArch => ValidateError::NotOnArch { opcode, arch },
                Refusal::Leaf(leaf) => leaf.byte_error(arch, record),
            }
        }

        /// The gate of each entry of [`PLAN`].
        static GATE: [[Gate<EnumLeaf>; 256]; Arch::ALL.len()] = gate_table!(PLAN);

        /// What [`check_by_rules`] checks before the fields, per generation and opcode
        /// value.
        static PLAN: [[Plan<EnumLeaf>; 256]; Arch::ALL.len()] = plan_table!(plan_of, SUB_PLAN);

        /// The same per value of the sub-opcode byte, for an opcode value whose
        /// sub-opcode bindings read one byte.
        static SUB_PLAN: [[SubPlan<EnumLeaf>; crate::validate_plan::sub_opcode_count()]; Arch::ALL.len()] =
            sub_plan_table!(plan_for);

        /// [`plan_for`] a record of opcode value `opcode` whose arm does not depend on a
        /// sub-opcode (so no other byte matters).
        const fn plan_of(arch: Arch, opcode: u8) -> Plan<EnumLeaf> {
            let mut record = [0u8; RECORD_SIZE];
            record[DISCRIMINANT_OFFSET] = opcode;
            plan_for(arch, &record)
        }
    }
}

/// `const fn unbound(arch, opcode) -> Plan`: what a record no binding selects on `arch`
/// checks. The preamble's enum fields; and for an opcode whose bindings all sub-dispatch
/// on one byte-wide enum field (PSEUDO_INST's `pseudo_opcode` at +12), that byte too: a
/// value its enum does not name is known to be wrong, where the opcode's other bytes are
/// unknown. Not for bindings whose reading is inferred (EXTENDED_INST's byte +12): an
/// inferred reading decides nothing.
fn unbound_fn(model: &Model, record: &Record, pre: &[Leaf]) -> TokenStream {
    let width = model[record.discriminant.ty].width;
    let n_arch = usize_lit(model.arch_ids().count() as u32);
    let arch_indices: Vec<proc_macro2::Literal> =
        (0..model.arch_ids().count() as u32).map(usize_lit).collect();
    let groups = model.bindings_by_opcode();
    let mut tables = Vec::new();
    let mut arms = Vec::new();
    for (op, bs) in &groups {
        let Some(first) = bs[0].sub.as_ref() else { continue };
        let shared = bs.iter().all(|b| {
            b.meta.confidence != Confidence::Inferred
                && b.sub.as_ref().is_some_and(|s| {
                    s.offset == first.offset && s.enum_id.is_some() && s.enum_id == first.enum_id
                })
        });
        if !shared {
            continue;
        }
        // The arm's own leaf for that byte: its name and its enum, one whole byte.
        let arm = &model[bs[0].arm];
        let Some(leaf) = arm.layouts.iter().find_map(|l| {
            layout_leaves(model, record, &l.fields).into_iter().find(|x| {
                x.offset == first.offset
                    && x.shift == 0
                    && x.bits == 8
                    && Some(x.enum_id) == first.enum_id
            })
        }) else {
            continue;
        };
        let mut ls: Vec<&Leaf> = pre.iter().chain([&leaf]).collect();
        ls.sort_by_key(|x| (x.offset, x.shift));
        let rows = ls.iter().map(|x| leaf_row(model, x));
        let hex_op = format!("{op:02X}");
        let t = format_ident!("UNBOUND_LEAVES_{}", hex_op);
        let p = format_ident!("UNBOUND_UNROLLED_{}", hex_op);
        let n = usize_lit(ls.len() as u32);
        let doc = format!(
            " The enum-typed fields of a record of opcode {} that no binding selects: the \
             preamble's and `{}`, the byte its bindings sub-dispatch on.",
            hex_text(*op),
            leaf.name
        );
        tables.push(quote! {
            #[doc = #doc]
            static #t: [[EnumLeaf; #n]; #n_arch] = EnumLeaf::per_arch([#(#rows),*]);
            const #p: [Option<Unrolled>; #n_arch] = unrolled_table!(#t; #(#arch_indices)*);
        });
        let lit = hex_width(*op, width.size());
        arms.push(quote! { #lit => Plan::Check(&#t[arch as usize], #p[arch as usize]), });
    }
    quote! {
        #(#tables)*

        /// What a record no binding selects on `arch` checks: the preamble's enum fields,
        /// and the sub-opcode byte of an opcode whose bindings all sub-dispatch on one
        /// enum-typed byte (the spec knows nothing else of the record).
        const fn unbound(arch: Arch, opcode: u8) -> Plan<EnumLeaf> {
            match opcode {
                #(#arms)*
                _ => Plan::Check(&PREAMBLE_LEAVES[arch as usize], PREAMBLE_UNROLLED[arch as usize]),
            }
        }
    }
}

/// `EnumLeaf::new("in_dtype", 32, 1, 0, 8, &CHECK_DTYPE)`.
fn leaf_row(model: &Model, l: &Leaf) -> TokenStream {
    let check = check_ident(model, l.enum_id);
    let name = &l.name;
    let (off, w, sh, bits) =
        (usize_lit(l.offset), usize_lit(l.width), usize_lit(l.shift), usize_lit(l.bits));
    match in_byte(l) {
        Some(key) => {
            let rows = rows_ident(model, key);
            quote! { EnumLeaf::in_byte(#name, #off, #w, #sh, #bits, &#check, &#rows) }
        }
        None => quote! { EnumLeaf::new(#name, #off, #w, #sh, #bits, &#check) },
    }
}

/// A bit-field narrower than a byte that lies inside one byte: its enum, its lowest
/// bit in that byte and its width, which key the table of that byte's values.
fn in_byte(l: &Leaf) -> Option<(EnumId, u32, u32)> {
    let at = l.shift % 8;
    (l.bits < 8 && at + l.bits <= 8 && l.shift / 8 < l.width).then_some((l.enum_id, at, l.bits))
}

fn rows_ident(model: &Model, (e, at, bits): (EnumId, u32, u32)) -> Ident {
    format_ident!("ROWS_{}_{}_{}", names::const_str(&model[e].name), at, bits)
}

/// `const ROWS_X_AT_BITS`: for each generation and byte value, whether bits
/// `at..at + bits` of the byte hold a value of `X` (from its `named_x` test).
///
/// A `const`, like `CHECK_X`, not a `static`: a `static` here is an exported symbol of
/// the crate, and position-independent code reads an exported symbol's address from
/// the GOT, one more load for each leaf the unrolled tests read, which are bound by
/// their loads. A `const` the leaf lists refer to becomes a private allocation of
/// theirs, addressed directly.
fn rows_const(model: &Model, key: (EnumId, u32, u32)) -> TokenStream {
    let rows = rows_ident(model, key);
    let f = named_ident(model, key.0);
    let (at, bits) = (usize_lit(key.1), usize_lit(key.2));
    let n_arch = usize_lit(model.arch_ids().count() as u32);
    let doc = format!(
        " Whether bits {}..{} of a byte hold a value of `{}` the spec names and makes \
         available, per generation and byte value.",
        key.1,
        key.1 + key.2,
        model[key.0].name
    );
    quote! {
        #[doc = #doc]
        const #rows: [[bool; 256]; #n_arch] = enum_table!(#f, #at, #bits);
    }
}

fn named_ident(model: &Model, e: EnumId) -> Ident {
    format_ident!("named_{}", names::snake_str(&model[e].name))
}

fn check_ident(model: &Model, e: EnumId) -> Ident {
    format_ident!("CHECK_{}", names::const_str(&model[e].name))
}

/// `fn named_x(arch, v) -> bool`: `v` is a named value of the enum, available on `arch`,
/// and set in every bitmask over the enum.
fn named_fn(model: &Model, e: EnumId) -> TokenStream {
    let en = &model[e];
    let f = named_ident(model, e);
    let t = names::ident(&en.rust);
    let w = en.width;
    let masks: Vec<Ident> = model
        .bitmasks
        .iter()
        .filter(|b| b.enum_id == e && b.meta.confidence != Confidence::Inferred)
        .map(|b| names::snake(&b.name))
        .collect();
    let doc = format!(
        " Whether `v` is a value of `{}` the spec names and makes available on `arch`.",
        en.name
    );
    let test = quote! {
        #[doc = #doc]
        const fn #f(arch: Arch, v: u64) -> bool {
            if v > #w::MAX as u64 {
                return false;
            }
            let raw = v as #w;
            let x = #t(raw);
            x.is_known() && x.available_on(arch) #(&& #masks(raw))*
        }
    };
    let check = check_ident(model, e);
    // A byte-wide enum's test as a table (`crate::enum_table`).
    let table = if en.width == Prim::U8 {
        quote! { Some(enum_table!(#f)) }
    } else {
        quote! { None }
    };
    // A `const` for the reason `rows_const` gives.
    let cdoc = format!(" The value test of `{}`.", en.name);
    quote! {
        #test

        #[doc = #cdoc]
        const #check: EnumCheck = EnumCheck { named: #f, table: #table };
    }
}
