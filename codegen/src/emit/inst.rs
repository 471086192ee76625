//! `inst.rs`: record constants, the `Inst` sum of bound arms, opcode dispatch, the
//! binding table and the stream sentinels.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::model::{ArmId, Binding, Field, Layout, Model, Prim, Record, SubOpcode};

use super::arch_set::{arch_bits, arch_test};
use super::doc::{code, Doc};
use super::names;
use super::tokens::{field_type, hex_text, hex_width, int, read, singles, usize_lit, Offset};

/// The whole file.
pub fn emit(model: &Model) -> TokenStream {
    let record = &model.record;
    let consts = record_consts(model, record);
    let inst = inst_enum(model, record);
    let dispatch = dispatch_fn(model, record);
    let binding_on = binding_on_fn(model, record);
    let tables = binding_table(model, record);
    let sentinels = sentinels(model, record);
    let body = quote! { #consts #inst #dispatch #binding_on #tables #sentinels };
    let uses = super::imports::needed(
        model,
        &body,
        &["arms", "opcode", "layout"],
        &[
            ("DecodeError", quote! { crate::error::DecodeError }),
            ("Arch", quote! { crate::generated::geometry::Arch }),
            ("Raw", quote! { crate::raw::Raw }),
        ],
    );
    quote! { #uses #body }
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

/// `pub enum Inst` and its impl.
fn inst_enum(model: &Model, record: &Record) -> TokenStream {
    let types: Vec<Ident> = model.arms.iter().map(|a| names::ident(&a.rust)).collect();
    let op = names::ident(&model[record.discriminant.ty].rust);
    let variants = model.arms.iter().map(|arm| {
        let t = names::ident(&arm.rust);
        let doc = Doc::text(format!("{}: see [`{t}`].", code(&arm.name)));
        quote! { #doc #t(#t), }
    });
    let decode_as = model.arms.iter().map(|arm| {
        let t = names::ident(&arm.rust);
        quote! { ArmKind::#t => Inst::#t(#t::decode_on(arch, b)), }
    });
    let layout_archs = model.arms.iter().filter(|a| a.is_per_generation()).map(|arm| {
        let t = names::ident(&arm.rust);
        quote! { Inst::#t(x) => Some(x.archs()), }
    });
    let read_op = read_disc(quote! { r.0 });
    let (preamble_item, preamble) = preamble(model, record);
    let decode_body = opcode_match(
        model,
        record,
        &|a| {
            let t = names::ident(&model[a].rust);
            quote! { Inst::#t(#t::decode_on(arch, b)) }
        },
        Some(quote! { Inst::Opaque(Raw(*b)) }),
        quote! { Inst::Unknown(Raw(*b)) },
        Groups::All,
        Some(&quote! { arch }),
    );
    let doc = Doc::of(model, &record.meta, format!("A decoded {} record: one of the arms, or the raw bytes.", code(&record.name)))
        .note("Decoding never fails and never loses a byte: an opcode the table names but no binding reads decodes to `Inst::Opaque`, a value it does not name to `Inst::Unknown`, and `encode` gives every input back unchanged.")
        .note("An arm whose layout differs by generation holds one variant per layout, named after the oldest generation the layout holds on: a record decoded on a later generation that shares it is in that variant (its `archs()`, or `Inst::layout_archs`, list them). [`Inst::preamble`] reads the header and events of any arm without a match.");
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[non_exhaustive]
        pub enum Inst {
            #(#variants)*
            /// A record of a named opcode whose layout no source gives (or whose
            /// sub-opcode no binding selects), kept verbatim.
            Opaque(Raw),
            /// A record whose opcode value the table does not name, kept verbatim.
            Unknown(Raw),
        }

        impl Inst {
            /// Decode a record in the layouts of generation `arch`, dispatching on the
            /// discriminant (and sub-opcode) bytes. Always inlined: decoding in a caller's loop
            /// ran a quarter faster than through a call.
            #[must_use]
            #[inline(always)]
            // Single values, not ranges: one jump for them all (`tokens::singles`).
            #[allow(clippy::manual_range_patterns)]
            pub const fn decode(arch: Arch, b: &[u8; RECORD_SIZE]) -> Inst {
                // One match on the opcode that builds the arm (`dispatch` then
                // `decode_as` would be two), whose values of an engine that the table
                // lays out in one run are tested by range first (`engine_runs`).
                #decode_body
            }

            /// Decode a record as the arm `kind`, whatever its opcode (for an arm no
            /// binding selects, or to read a record as another arm).
            #[must_use]
            #[inline]
            pub const fn decode_as(kind: ArmKind, arch: Arch, b: &[u8; RECORD_SIZE]) -> Inst {
                match kind {
                    #(#decode_as)*
                }
            }

            /// Decode a slice that must be exactly one record long.
            pub fn decode_slice(arch: Arch, b: &[u8]) -> Result<Inst, DecodeError> {
                match <&[u8; RECORD_SIZE]>::try_from(b) {
                    Ok(b) => Ok(Inst::decode(arch, b)),
                    Err(_) => Err(DecodeError::Length { len: b.len() }),
                }
            }

            /// Encode back to bytes; the inverse of `decode` on every input.
            #[must_use]
            #[inline]
            pub fn encode(&self) -> [u8; RECORD_SIZE] {
                match self {
                    #(Inst::#types(x) => x.encode(),)*
                    Inst::Opaque(r) | Inst::Unknown(r) => r.0,
                }
            }

            /// The discriminant.
            #[must_use]
            #[inline]
            pub const fn opcode(&self) -> #op {
                match self {
                    #(Inst::#types(x) => x.opcode(),)*
                    Inst::Opaque(r) | Inst::Unknown(r) => #op(#read_op),
                }
            }

            /// The arm, or `None` for a record kept verbatim.
            #[must_use]
            pub const fn kind(&self) -> Option<ArmKind> {
                match self {
                    #(Inst::#types(_) => Some(ArmKind::#types),)*
                    Inst::Opaque(_) | Inst::Unknown(_) => None,
                }
            }

            /// The generations whose layout the value is in, for an arm whose layout
            /// differs by generation (its variant's); `None` for an arm read alike on
            /// every generation and for a record kept verbatim. Its fields mean what
            /// they say on these generations: `text` and `parse` for one of them
            /// keep the value, for another they read its bytes in that one's layout.
            #[must_use]
            pub const fn layout_archs(&self) -> Option<&'static [Arch]> {
                match self {
                    #(#layout_archs)*
                    _ => None,
                }
            }

            /// Whether the opcode is one the table does not name.
            #[must_use]
            pub const fn is_unknown(&self) -> bool {
                matches!(self, Inst::Unknown(_))
            }

            #preamble
        }

        #preamble_item

        impl From<Inst> for Raw {
            fn from(i: Inst) -> Raw {
                Raw(i.encode())
            }
        }
    }
}

/// Whether `layout` keeps the record's preamble member `member` (an arm may keep a
/// subset, and give the rest of the bytes its own meaning).
fn keeps(layout: &Layout, member: &Field) -> bool {
    layout.fields.iter().any(|f| f.inherited && f.name == member.name)
}

/// The value of `Inst::preamble()`'s field `member`: `Some(x.member)` on a layout that
/// keeps it, `None` on one that does not (listed in `without`).
fn preamble_member(model: &Model, member: &Field, without: &mut Vec<String>) -> TokenStream {
    let name = names::ident(&member.rust);
    // The pattern's binding and the value: `(x, Some(x.header))`, or `(_, None)`.
    let get = |l: &Layout, x: TokenStream| {
        if keeps(l, member) {
            (x.clone(), quote! { Some(#x.#name) })
        } else {
            (quote! { _ }, quote! { None })
        }
    };
    let arms: Vec<TokenStream> = model
        .arms
        .iter()
        .map(|arm| {
            let t = names::ident(&arm.rust);
            for l in arm.layouts.iter().filter(|l| !keeps(l, member)) {
                let gens: Vec<&str> = l.archs.iter().map(|&a| model[a].name.as_str()).collect();
                without.push(if arm.is_per_generation() {
                    format!("{} on {}", code(&arm.name), gens.join(", "))
                } else {
                    code(&arm.name)
                });
            }
            if !arm.is_per_generation() {
                let (x, v) = get(&arm.layouts[0], quote! { x });
                return quote! { Inst::#t(#x) => #v, };
            }
            let variants = arm.layouts.iter().map(|l| {
                let v = names::ident(&names::type_str(&model[l.archs[0]].name));
                let (y, got) = get(l, quote! { y });
                quote! { #t::#v(#y) => #got, }
            });
            quote! { Inst::#t(x) => match x { #(#variants)* }, }
        })
        .collect();
    let raw = read(model, &member.ty, &quote! { &r.0 }, &Offset::at(member.offset), 0);
    quote! {
        match self {
            #(#arms)*
            Inst::Opaque(r) | Inst::Unknown(r) => Some(#raw),
        }
    }
}

/// `pub struct Preamble` (each member of the record's preamble, where the instruction's
/// layout keeps it) and `Inst::preamble()`, so that code walking a stream (its
/// semaphores, its headers) needs no match on every arm, and learns which layouts give
/// the preamble's bytes another meaning.
fn preamble(model: &Model, record: &Record) -> (TokenStream, TokenStream) {
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    for m in &record.preamble {
        let name = names::ident(&m.rust);
        let ty = field_type(model, &m.ty);
        let mut without = Vec::new();
        let value = preamble_member(model, m, &mut without);
        let exceptions = if without.is_empty() {
            "every arm's layout keeps it".to_owned()
        } else {
            format!(
                "`None` on a layout that gives those bytes its own meaning: {}",
                without.join("; ")
            )
        };
        let doc = Doc::text(format!(
            "`+{}..{}`: the preamble member {} ({exceptions}).",
            m.offset,
            m.offset + m.size,
            code(&m.name)
        ));
        fields.push(quote! { #doc pub #name: Option<#ty>, });
        inits.push(quote! { #name: #value, });
    }
    let doc = Doc::text(format!(
        "The preamble of a {} record, read from any instruction: each member where the \
         instruction's layout keeps it.",
        code(&record.name)
    ))
    .note(
        "A record kept verbatim (`Inst::Opaque`, `Inst::Unknown`) reads every member from \
         its bytes: the record's arms begin with the preamble unless their layout says \
         otherwise.",
    );
    let item = quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[non_exhaustive]
        pub struct Preamble {
            #(#fields)*
        }
    };
    let method = quote! {
        /// The record's preamble (its header, its semaphore events, …) where the
        /// instruction's layout keeps it: see [`Preamble`].
        #[must_use]
        pub const fn preamble(&self) -> Preamble {
            Preamble { #(#inits)* }
        }
    };
    (item, method)
}

/// Read the discriminant (one byte, as the checker requires) of the record `b`.
fn read_disc(b: TokenStream) -> TokenStream {
    quote! { #b[DISCRIMINANT_OFFSET] }
}

/// `pub const fn dispatch(b) -> Option<ArmKind>`: a load from a table of the opcode
/// table's arms, and for an opcode without one there, a `match` on the sub byte of the
/// opcodes with sub-opcode bindings.
fn dispatch_fn(model: &Model, record: &Record) -> TokenStream {
    let hit = |a: ArmId| {
        let t = names::ident(&model[a].rust);
        quote! { Some(ArmKind::#t) }
    };
    let by_sub_match =
        opcode_match(model, record, &hit, None, quote! { None }, Groups::BySub, None);
    let op = names::ident(&model[record.discriminant.ty].rust);
    let width = disc_width(model, record);
    let mut by_sub: Vec<u64> =
        model.bindings.iter().filter(|b| b.sub.is_some()).map(|b| b.opcode).collect();
    by_sub.dedup();
    let by_sub: Vec<_> = by_sub.into_iter().map(|op| hex_width(op, width.size())).collect();
    let disc = read_disc(quote! { b });
    // The plain opcodes' answer is a load from a table the match builds at compile time:
    // a caller matching on a few arms then compares the arm, where the match folded into
    // the caller's jumped through a table of every opcode, which mispredicts where the
    // opcodes follow one another irregularly (the one-field view ran at half the hand
    // view's speed in cache on the corpus's Pool stream).
    let table_doc = Doc::text(format!(
        "The arm each plain opcode binds (`None` for an opcode with sub-opcode bindings or \
         none), from the opcode table's [`{op}::arm`]: [`dispatch`]'s table."
    ));
    let table = quote! {
        #table_doc
        const ARM_BY_OPCODE: [Option<ArmKind>; 256] = {
            let mut t = [None; 256];
            let mut i = 0;
            while i < 256 {
                t[i] = #op(i as u8).arm();
                i += 1;
            }
            t
        };
    };
    let plain = quote! { ARM_BY_OPCODE[#disc as usize] };
    let (body, by_sub_fn) = if by_sub.is_empty() {
        (plain, table)
    } else {
        // The table first: a bound plain opcode (most records) then meets no test of
        // the sub-opcode values, which only an opcode the table has no arm for takes.
        let body = quote! {
            match #plain {
                None => match #disc {
                    #(#by_sub)|* => dispatch_by_sub(b),
                    _ => None,
                },
                kind => kind,
            }
        };
        let f = quote! {
            /// [`dispatch`] of an opcode with sub-opcode bindings.
            #[must_use]
            const fn dispatch_by_sub(b: &[u8; RECORD_SIZE]) -> Option<ArmKind> {
                #by_sub_match
            }

            #table
        };
        (body, f)
    };
    quote! {
        /// Which arm the bindings select for a record, or `None` (`Inst::Opaque` or
        /// `Inst::Unknown`). Always inlined: a load from a table of the opcodes, so that
        /// a caller matching on a few arms compares the arm; only an opcode the table
        /// gives no arm is tested for sub-opcode bindings.
        #[must_use]
        #[inline(always)]
        pub const fn dispatch(b: &[u8; RECORD_SIZE]) -> Option<ArmKind> {
            #body
        }

        #by_sub_fn
    }
}

/// Which opcodes an [`opcode_match`] lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Groups {
    /// Every bound opcode, with its sub-opcode bindings.
    All,
    /// Only the opcodes with sub-opcode bindings.
    BySub,
}

/// `match` on the discriminant (and, for sub-opcode bindings, the sub byte) with
/// `hit(arm)` for a binding and, where none selects, `opaque` for a value the opcode
/// table names (when the caller tells them apart) and `unknown` for the rest. With
/// `arch`, a binding whose `@archs` leave the generation out selects nothing there (its
/// opcode's records are those of a named opcode without a layout).
fn opcode_match(
    model: &Model,
    record: &Record,
    hit: &dyn Fn(ArmId) -> TokenStream,
    opaque: Option<TokenStream>,
    unknown: TokenStream,
    which: Groups,
    arch: Option<&TokenStream>,
) -> TokenStream {
    let width = disc_width(model, record);
    let op_enum = &model[record.discriminant.ty];
    let mut groups = model.bindings_by_opcode();
    let has_sub = |bs: &[&Binding]| bs.iter().any(|b| b.sub.is_some());
    groups.retain(|(_, bs)| which != Groups::BySub || has_sub(bs));
    // `hit` for `b`, or `otherwise` on a generation its `@archs` leave out.
    let guarded = |b: &Binding, otherwise: &TokenStream| {
        let body = hit(b.arm);
        match (arch, &b.meta.archs) {
            (Some(arch), Some(archs)) if model.is_narrow(b) => {
                let test = arch_test(model, archs, arch);
                quote! { if #test { #body } else { #otherwise } }
            }
            _ => body,
        }
    };
    let arms: Vec<(u64, TokenStream)> = groups
        .iter()
        .map(|(op, bs)| {
            let named = op_enum.variant_of(*op).is_some();
            let none = match &opaque {
                Some(o) if named => o.clone(),
                _ => unknown.clone(),
            };
            let fallback = match bs.iter().find(|b| b.sub.is_none()) {
                Some(b) => guarded(b, &none),
                None => none,
            };
            let subs: Vec<(&SubOpcode, TokenStream)> = bs
                .iter()
                .filter_map(|b| b.sub.as_ref().map(|s| (s, guarded(b, &fallback))))
                .collect();
            (*op, sub_match(&subs, fallback))
        })
        .collect();
    // The named values no binding reads are opaque; the rest unknown.
    let unbound: Vec<u64> = match &opaque {
        Some(_) if which == Groups::All => op_enum
            .variants
            .iter()
            .filter(|v| !groups.iter().any(|(op, _)| *op == v.value))
            .map(|v| v.value)
            .collect(),
        _ => Vec::new(),
    };
    let disc = read_disc(quote! { b });
    // One `match` over the values `keep` holds.
    let values_match = |keep: &dyn Fn(u64) -> bool| {
        // One arm per distinct body, its values together (`0x46 | 0x47`, COPY and CAST,
        // decode alike): the jump's entries for them are then one target, which the
        // core predicts where such records alternate.
        let mut bodies: Vec<(String, Vec<u64>, &TokenStream)> = Vec::new();
        for (op, body) in arms.iter().filter(|(op, _)| keep(*op)) {
            let key = body.to_string();
            match bodies.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, values, _)) => values.push(*op),
                None => bodies.push((key, vec![*op], body)),
            }
        }
        let here = bodies.iter().map(|(_, values, body)| {
            let pats = singles(values, width.size());
            quote! { #(#pats)|* => #body, }
        });
        let kept: Vec<u64> = unbound.iter().copied().filter(|v| keep(*v)).collect();
        let none = singles(&kept, width.size());
        let opaque_arm = match &opaque {
            Some(o) if !none.is_empty() => quote! { #(#none)|* => #o, },
            _ => quote! {},
        };
        quote! {
            match #disc {
                #(#here)*
                #opaque_arm
                _ => #unknown,
            }
        }
    };
    let runs = if which == Groups::All { engine_runs(model, record) } else { Vec::new() };
    if runs.is_empty() {
        return values_match(&|_| true);
    }
    let run_arms = runs.iter().map(|&(lo, hi)| {
        let body = values_match(&|v| (lo..=hi).contains(&v));
        let (lo, hi) = (hex_width(lo, width.size()), hex_width(hi, width.size()));
        quote! { #lo..=#hi => #body, }
    });
    let rest = values_match(&|v| !runs.iter().any(|&(lo, hi)| (lo..=hi).contains(&v)));
    quote! {
        match #disc {
            #(#run_arms)*
            _ => #rest,
        }
    }
}

/// The value ranges of the engines whose named opcodes lie in one run (no other
/// engine's, or engine-less, named value between their first and last), for
/// [`opcode_match`] to test ahead of the jump on the value. Every engine's stream
/// interleaves its own opcodes with those of the engines that sequence it (NX's
/// semaphores, the host's pseudo records): a jump through a table of every opcode is
/// mispredicted where they alternate irregularly, a test of each run is not (on the
/// corpus's Pool and SP streams the decoder ran at 0.5× the hand decoder, whose
/// compiled `match` happens to test them apart, on one core). Empty where the table
/// names no engines.
fn engine_runs(model: &Model, record: &Record) -> Vec<(u64, u64)> {
    let variants = &model[record.discriminant.ty].variants;
    let mut runs: Vec<(u64, u64)> = Vec::new();
    let mut seen: Vec<&[u32]> = Vec::new();
    for v in variants.iter().filter(|v| !v.engines.is_empty()) {
        if seen.contains(&v.engines.as_slice()) {
            continue;
        }
        seen.push(&v.engines);
        // The variants are sorted by value: `v` is its set's first.
        let lo = v.value;
        let hi = variants.iter().rfind(|w| w.engines == v.engines).map_or(lo, |w| w.value);
        if variants.iter().all(|w| w.engines == v.engines || !(lo..=hi).contains(&w.value)) {
            runs.push((lo, hi));
        }
    }
    runs.sort_unstable();
    runs
}

/// Nested `match b[offset] { value => body, .., _ => fallback }` per sub offset.
fn sub_match(subs: &[(&SubOpcode, TokenStream)], fallback: TokenStream) -> TokenStream {
    let Some((first, _)) = subs.first() else { return fallback };
    let offset = first.offset;
    let (here, rest): (Vec<_>, Vec<_>) =
        subs.iter().cloned().partition(|(s, _)| s.offset == offset);
    let inner = sub_match(&rest, fallback);
    let arms = here.iter().filter(|(s, _)| s.value <= u8::MAX as u64).map(|(s, body)| {
        let v = int(s.value);
        quote! { #v => #body, }
    });
    let off = usize_lit(offset);
    quote! {
        match b[#off] {
            #(#arms)*
            _ => #inner,
        }
    }
}

/// `pub const fn binding_on(arch, record) -> bool` and `dispatch_on(arch, record)`: the
/// bindings of one generation. A binding's `@archs` may be narrower than its opcode's
/// (CUSTOM_OP_HEADER's struct is sunda's; cayman keeps the value): elsewhere the
/// opcode's records are those of a named opcode without a layout.
///
/// With a one-byte discriminant and at most eight generations, an opcode whose bindings
/// have no sub-opcode is answered by a table of generation masks (a load and a shift):
/// a `match` on the opcode jumped through a table of its own, mispredicted on records
/// of opcodes in random order, before every record's line was printed.
fn binding_on_fn(model: &Model, record: &Record) -> TokenStream {
    let width = disc_width(model, record);
    let arch = quote! { arch };
    let test = |b: &Binding| match &b.meta.archs {
        Some(archs) => arch_test(model, archs, &arch),
        None => quote! { true },
    };
    let groups = model.bindings_by_opcode();
    let narrow: Vec<&(u64, Vec<&Binding>)> =
        groups.iter().filter(|(_, bs)| bs.iter().any(|b| model.is_narrow(b))).collect();
    let tabled = width.size() == 1 && model.archs.len() <= 8;
    let by_table = |bs: &[&Binding]| tabled && bs.iter().all(|b| b.sub.is_none());
    let arms: Vec<TokenStream> = narrow
        .iter()
        .filter(|(_, bs)| !by_table(bs))
        .map(|(op, bs)| {
            let lit = hex_width(*op, width.size());
            let fallback = bs.iter().find(|b| b.sub.is_none()).map_or(quote! { true }, |b| test(b));
            let subs: Vec<(&SubOpcode, TokenStream)> =
                bs.iter().filter_map(|b| b.sub.as_ref().map(|s| (s, test(b)))).collect();
            let body = sub_match(&subs, fallback);
            quote! { #lit => #body, }
        })
        .collect();
    let disc = read_disc(quote! { b });
    let (rest, table) = if tabled {
        let n = model.archs.len();
        let all = arch_bits(&model.arch_ids().collect::<Vec<_>>());
        let rows = narrow.iter().filter(|(_, bs)| by_table(bs)).map(|(op, bs)| {
            let mask = bs.iter().find(|b| b.sub.is_none()).and_then(|b| b.meta.archs.as_ref());
            let mask = mask.map_or(all, |archs| arch_bits(archs));
            let op = hex_width(*op, 1);
            let mask = syn::LitInt::new(&format!("0b{mask:0n$b}"), proc_macro2::Span::call_site());
            quote! { t[#op] = #mask; }
        });
        let all = syn::LitInt::new(&format!("0b{all:b}"), proc_macro2::Span::call_site());
        let rest = quote! { BINDING_ARCHS[#disc as usize] >> arch as u8 & 1 != 0 };
        let table = quote! {
            /// Per opcode value, the generations its binding exists on, bit `arch as u8`
            /// set for each ([`binding_on`]'s table).
            const BINDING_ARCHS: [u8; 256] = {
                let mut t = [#all; 256];
                #(#rows)*
                t
            };
        };
        (rest, table)
    } else {
        (quote! { true }, quote! {})
    };
    let body = if arms.is_empty() {
        rest
    } else {
        quote! {
            match #disc {
                #(#arms)*
                _ => #rest,
            }
        }
    };
    quote! {
        /// Whether the binding that selects the record's arm exists on `arch` (true when
        /// no binding selects it). A binding's `@archs` may be narrower than its opcode's:
        /// on the other generations the opcode's records are those of a named opcode
        /// without a layout (`Inst::Opaque`).
        #[must_use]
        #[inline]
        pub const fn binding_on(arch: Arch, b: &[u8; RECORD_SIZE]) -> bool {
            #body
        }

        #table

        /// [`dispatch`] on generation `arch`: `None` where the binding that would select
        /// the arm does not exist on `arch` ([`binding_on`]), as [`Inst::decode`] reads it.
        #[must_use]
        #[inline(always)]
        pub const fn dispatch_on(arch: Arch, b: &[u8; RECORD_SIZE]) -> Option<ArmKind> {
            if binding_on(arch, b) {
                dispatch(b)
            } else {
                None
            }
        }
    }
}

/// `SubByte`, `Binding`, `BINDINGS`.
fn binding_table(model: &Model, record: &Record) -> TokenStream {
    let width = disc_width(model, record);
    let rows = model.bindings.iter().map(|b| {
        let op = hex_width(b.opcode, width.size());
        let sub = sub_byte(b.sub.as_ref());
        let t = names::ident(&model[b.arm].rust);
        let mnemonic = &b.mnemonic;
        quote! { Binding { opcode: #op, sub: #sub, arm: ArmKind::#t, mnemonic: #mnemonic }, }
    });
    let disc = read_disc(quote! { record });
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
            /// The text form's mnemonic (the opcode's name, lower case).
            pub mnemonic: &'static str,
        }

        impl Binding {
            /// Whether `record` has this binding's opcode (and sub-opcode). Never panics:
            /// a short slice does not match.
            #[must_use]
            pub const fn matches(&self, record: &[u8]) -> bool {
                selects(self.opcode, self.sub, record)
            }

            /// The record this binding selects with every other byte zero: the template
            /// to build an instruction from (`Inst::decode(arch, &binding.record())`, then
            /// set its fields), as an arm's `Default` is all zero, the opcode too.
            #[must_use]
            pub const fn record(&self) -> [u8; RECORD_SIZE] {
                record_of(self.opcode, self.sub)
            }
        }

        /// Every binding, sorted by opcode then sub-opcode.
        pub const BINDINGS: &[Binding] = &[#(#rows)*];

        /// The record holding `opcode` at the discriminant and `sub`, if any, and zero
        /// in every other byte.
        const fn record_of(opcode: #width, sub: Option<SubByte>) -> [u8; RECORD_SIZE] {
            let mut out = [0u8; RECORD_SIZE];
            let op = opcode.to_le_bytes();
            let mut i = 0;
            while i < op.len() {
                out[DISCRIMINANT_OFFSET + i] = op[i];
                i += 1;
            }
            if let Some(s) = sub {
                out[s.offset] = s.value;
            }
            out
        }

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

            /// The sentinel's record with every other byte zero (for `EXIT`, the record
            /// that ends a program).
            #[must_use]
            pub const fn record(&self) -> [u8; RECORD_SIZE] {
                record_of(self.opcode, self.sub)
            }
        }

        #(#items)*

        /// Every sentinel, sorted by name.
        pub const SENTINELS: &[Sentinel] = &[#(#consts),*];
    }
}

#[cfg(test)]
mod tests {
    use super::engine_runs;
    use crate::emit::unit_tests::{project_model, round_two_model};

    /// An engine's opcodes lie in one run when no other engine's value, nor an
    /// engine-less one, falls between its first and last; a set of engines is one
    /// engine here. On a table built for the rule (the project's own table changes as
    /// the spec grows, so it states nothing fixed): PE's 1..=2 and ACT's 0x21..=0x23
    /// are runs, as is the POOL+DVE set's single 0x30; POOL's 3..=5 holds DVE's 4,
    /// DVE's 4..=6 holds POOL's 5, and NX's 0x10..=0x12 holds the engine-less 0x11.
    #[test]
    fn an_engine_whose_opcodes_lie_in_one_run_is_tested_by_range() {
        let text = "enum ENGINE { PE ACT POOL DVE NX }\n\
            enum OPCODE : u8 {\n    A = 1 @engine(PE)\n    B = 2 @engine(PE)\n    \
            C = 3 @engine(POOL)\n    D = 4 @engine(DVE)\n    E = 5 @engine(POOL)\n    \
            F = 6 @engine(DVE)\n    G = 0x10 @engine(NX)\n    H = 0x11\n    \
            I = 0x12 @engine(NX)\n    J = 0x21 @engine(ACT)\n    K = 0x23 @engine(ACT)\n    \
            L = 0x30 @engine(POOL, DVE)\n}\n\
            record TPB_INST : 2 {\n    discriminant 0 OPCODE\n    engines ENGINE\n    \
            0 header OPCODE\n}\n";
        let model = crate::emit::unit_tests::model_of(&[("t.isa", text)]);
        assert_eq!(engine_runs(&model, &model.record), [(0x01, 0x02), (0x21, 0x23), (0x30, 0x30)]);
    }

    /// On the project's table the runs are sorted and disjoint, and POOL's and DVE's
    /// opcodes (which interleave: 0x41, 0x60) sit in none.
    #[test]
    fn the_projects_runs_are_disjoint_and_leave_pool_and_dve_out() {
        let model = project_model();
        let runs = engine_runs(&model, &model.record);
        assert!(runs.len() >= 2, "{runs:x?}");
        assert!(runs.iter().all(|&(lo, hi)| !(lo..=hi).contains(&0x41)), "{runs:x?}");
        assert!(runs.iter().all(|&(lo, hi)| !(lo..=hi).contains(&0x60)), "{runs:x?}");
        assert!(runs.windows(2).all(|w| w[0].1 < w[1].0), "{runs:x?}");
    }

    /// The decoder's `match` lists each arm body once, with every value it serves:
    /// COPY, CAST and RECIPROCAL (0x46, 0x47, 0x48) read one layout, so one arm holds
    /// them, each its own pattern (a range would be tested after the jump, apart).
    #[test]
    fn values_with_one_body_share_an_arm() {
        use super::{opcode_match, Groups};
        use quote::quote;
        let model = project_model();
        let m = opcode_match(
            &model,
            &model.record,
            &|a| {
                let t = crate::emit::names::ident(&model[a].rust);
                quote! { #t }
            },
            Some(quote! { Opaque }),
            quote! { Unknown },
            Groups::All,
            None,
        )
        .to_string();
        assert!(m.contains("0x46 | 0x47 | 0x48"), "{m}");
        assert!(!m.contains("0x46 ..="), "{m}");
        assert_eq!(m.matches("=> S4d4Tr").count(), 1, "{m}");
        assert_eq!(
            m.matches("=> Unknown").count(),
            1 + super::engine_runs(&model, &model.record).len()
        );
    }

    /// An engine set is a class of its own (`@engine(ACT, POOL)` is not ACT's); values
    /// without an engine join no run.
    #[test]
    fn runs_follow_the_engine_sets() {
        let model = round_two_model();
        assert_eq!(engine_runs(&model, &model.record), [(1, 1), (2, 2)]);
    }
}
