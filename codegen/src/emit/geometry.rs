//! `geometry.rs`: the `Arch` enum of every generation, the `Geometry` enum of those
//! whose geometry a source gives, one accessor per geometry value, per-generation
//! constant modules, and the rules as fallible `const fn`s.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::doc::{code, Doc};
use super::names;
use super::tokens::signed;
use crate::model::*;

pub fn emit(model: &Model) -> TokenStream {
    let arch_enum = arch_enum(model);
    let geometry_enum = geometry_enum(model);
    let accessors: Vec<TokenStream> = model.geom_ids().filter_map(|g| accessor(model, g)).collect();
    let rules: Vec<TokenStream> = model.geom_ids().filter_map(|g| rule(model, g)).collect();
    let modules = known(model).map(|a| arch_module(model, a));
    let table = geometry_table(model);
    let uses = super::imports::needed(model, &quote! { #(#accessors)* }, &["opcode"], &[]);
    quote! {
        use crate::error::{Comparison, GeometryError};
        #uses

        #arch_enum
        #geometry_enum

        impl Geometry {
            #(#accessors)*
            #(#rules)*
        }

        #table

        #(#modules)*
    }
}

/// `GEOMETRY`: one row per geometry value with a function that prints it, so that a
/// tool lists every value without naming any.
fn geometry_table(model: &Model) -> TokenStream {
    let rows = model.geom_ids().filter_map(|g| {
        let item = &model[g];
        let t = declared(item)?;
        let name = &item.name;
        let f = names::snake(&item.name);
        // `—` where `@archs` leaves the generation out (the sources give the value for
        // others only), `?` where they do not give it for a generation the item is
        // declared on: the two marks of the reference table (`docs/isa.md`).
        let absent: Vec<Ident> = known(model)
            .filter(|&a| !item.meta.available_on(a))
            .map(|a| names::variant(&model[a].name))
            .collect();
        let body = if everywhere(model, item) && !t.is_optional() {
            quote! { write!(w, "{:?}", g.#f()) }
        } else if absent.is_empty() {
            quote! {
                match g.#f() {
                    Some(v) => write!(w, "{:?}", v),
                    None => w.write_str("?"),
                }
            }
        } else {
            quote! {
                match g.#f() {
                    _ if matches!(g, #(Geometry::#absent)|*) => w.write_str("—"),
                    Some(v) => write!(w, "{:?}", v),
                    None => w.write_str("?"),
                }
            }
        };
        Some(quote! {
            GeomRow { name: #name, show: |g: Geometry, w: &mut dyn core::fmt::Write| -> core::fmt::Result { #body } },
        })
    });
    quote! {
        /// One geometry value, printable for any generation whose geometry is known.
        #[derive(Clone, Copy)]
        pub struct GeomRow {
            /// The spec name (`num_tpb`).
            pub name: &'static str,
            /// Write the value (`Debug` formatting): `?` where the sources do not give it
            /// for the generation, `—` where the spec declares it only for the generations
            /// whose sources give it (`@archs`), not this one.
            pub show: fn(Geometry, &mut dyn core::fmt::Write) -> core::fmt::Result,
        }

        impl core::fmt::Debug for GeomRow {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name)
            }
        }

        /// Every geometry value (rules excluded), in spec order.
        pub static GEOMETRY: &[GeomRow] = &[#(#rows)*];
    }
}

/// The generations whose geometry a source gives.
fn known(model: &Model) -> impl Iterator<Item = ArchId> + '_ {
    model.arch_ids().filter(|&a| model[a].geometry_known)
}

/// `pub enum Geometry`: the generations with a known geometry, and the conversions.
fn geometry_enum(model: &Model) -> TokenStream {
    let variants: Vec<Ident> = known(model).map(|a| names::variant(&model[a].name)).collect();
    let unknown: Vec<Ident> = model
        .arch_ids()
        .filter(|&a| !model[a].geometry_known)
        .map(|a| names::variant(&model[a].name))
        .collect();
    let docs =
        known(model).map(|a| Doc::text(format!("{} ({}).", code(&model[a].name), model[a].label)));
    let unknown_note = if unknown.is_empty() {
        String::new()
    } else {
        format!(
            " No source gives the geometry of {}: [`Arch::geometry`] answers `None` for it.",
            model
                .arch_ids()
                .filter(|&a| !model[a].geometry_known)
                .map(|a| code(&model[a].name))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let doc = format!(" The hardware geometry of a generation a source describes.{unknown_note}");
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Geometry {
            #(#docs #variants,)*
        }

        impl Geometry {
            /// Every generation with a known geometry, oldest first (a slice, so that a
            /// generation added to the spec changes no type).
            pub const ALL: &'static [Geometry] = &[#(Geometry::#variants),*];

            /// The generation.
            #[must_use]
            pub const fn arch(self) -> Arch {
                match self { #(Geometry::#variants => Arch::#variants,)* }
            }
        }

        impl Arch {
            /// The geometry of this generation, or `None` when no source gives it.
            #[must_use]
            pub const fn geometry(self) -> Option<Geometry> {
                match self {
                    #(Arch::#variants => Some(Geometry::#variants),)*
                    #(Arch::#unknown => None,)*
                }
            }
        }

        impl From<Geometry> for Arch {
            fn from(g: Geometry) -> Arch {
                g.arch()
            }
        }

        impl TryFrom<Arch> for Geometry {
            type Error = GeometryError;

            /// The geometry of `arch`; an error naming it when no source gives one.
            fn try_from(arch: Arch) -> Result<Geometry, GeometryError> {
                arch.geometry().ok_or(GeometryError::UnknownGeometry { arch })
            }
        }

        impl core::str::FromStr for Geometry {
            type Err = GeometryError;

            /// A generation's name, label or alias; an error when it is not one, or when
            /// its geometry is unknown.
            fn from_str(s: &str) -> Result<Geometry, GeometryError> {
                let arch = Arch::from_name(s).ok_or_else(|| GeometryError::UnknownName(UnknownArch::new(s)))?;
                Geometry::try_from(arch)
            }
        }

        impl core::fmt::Display for Geometry {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.arch().name())
            }
        }
    }
}

fn arch_enum(model: &Model) -> TokenStream {
    let variants: Vec<Ident> = model.archs.iter().map(|a| names::variant(&a.name)).collect();
    let decls = model.archs.iter().map(|a| {
        let v = names::variant(&a.name);
        let mut doc = Doc::of(model, &a.meta, format!("{} ({}).", code(&a.name), a.label));
        let mut also: Vec<String> = vec![a.label.clone()];
        also.extend(a.aliases.iter().filter(|x| !x.eq_ignore_ascii_case(&a.label)).cloned());
        doc = doc.note(format!(
            "Generation {}; also accepted as {}.",
            a.generation,
            also.iter().map(|s| code(s)).collect::<Vec<_>>().join(", ")
        ));
        if let Some(p) = a.inherits {
            doc = doc.note(format!("Written as {} plus overrides.", code(&model[p].name)));
        }
        quote! { #doc #v, }
    });
    let spec_names: Vec<&str> = model.archs.iter().map(|a| a.name.as_str()).collect();
    let labels: Vec<&str> = model.archs.iter().map(|a| a.label.as_str()).collect();
    let gens: Vec<u32> = model.archs.iter().map(|a| a.generation).collect();
    let aliases = model.archs.iter().map(|a| {
        let list = &a.aliases;
        quote! { &[#(#list),*] }
    });
    let inherits = model.archs.iter().map(|a| match a.inherits {
        Some(p) => {
            let v = names::variant(&model[p].name);
            quote! { Some(Arch::#v) }
        }
        None => quote! { None },
    });
    quote! {
        /// A NeuronCore generation the spec describes: its ISA, and its geometry where a
        /// source gives one ([`Arch::geometry`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        #[repr(u8)]
        pub enum Arch {
            #(#decls)*
        }

        /// A name that is not an arch, its label or one of its aliases: a copy of it (its
        /// first 32 bytes), which the message quotes, so that `?` on a parse says what
        /// was given.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct UnknownArch {
            given: crate::disasm::Name,
            /// Whether the name was longer than the copy (the message then ends it in `…`).
            cut: bool,
        }

        impl UnknownArch {
            /// The error for the name `given`.
            #[must_use]
            pub fn new(given: &str) -> UnknownArch {
                let copy = crate::disasm::Name::new(given);
                UnknownArch { given: copy, cut: copy.as_str().len() < given.len() }
            }

            /// The name given (cut at 32 bytes).
            #[must_use]
            pub fn given(&self) -> &str {
                self.given.as_str()
            }
        }

        impl core::fmt::Display for UnknownArch {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let more = if self.cut { "…" } else { "" };
                write!(f, "unknown generation '{}{more}': expected a name, label or alias (", self.given)?;
                for (i, a) in Arch::ALL.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    f.write_str(a.name())?;
                    f.write_str(", ")?;
                    f.write_str(a.label())?;
                    for alias in a.aliases().iter().filter(|x| !x.eq_ignore_ascii_case(a.label())) {
                        f.write_str(", ")?;
                        f.write_str(alias)?;
                    }
                }
                f.write_str(")")
            }
        }

        impl core::error::Error for UnknownArch {}

        impl Arch {
            /// Every generation, oldest first (a slice, so that a generation added to the
            /// spec changes no type).
            pub const ALL: &'static [Arch] = &[#(Arch::#variants),*];

            /// The codename (`cayman`).
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self { #(Arch::#variants => #spec_names,)* }
            }

            /// The generation label (`V3`).
            #[must_use]
            pub const fn label(self) -> &'static str {
                match self { #(Arch::#variants => #labels,)* }
            }

            /// The generation number, which orders archs.
            #[must_use]
            pub const fn generation(self) -> u32 {
                match self { #(Arch::#variants => #gens,)* }
            }

            /// Other accepted names (cloud instance families).
            #[must_use]
            pub const fn aliases(self) -> &'static [&'static str] {
                match self { #(Arch::#variants => #aliases,)* }
            }

            /// The arch this one is written as a delta of.
            #[must_use]
            pub const fn inherits(self) -> Option<Arch> {
                match self { #(Arch::#variants => #inherits,)* }
            }

            /// Look up a name, label or alias, ignoring ASCII case.
            #[must_use]
            pub fn from_name(s: &str) -> Option<Arch> {
                Arch::ALL.iter().copied().find(|a| {
                    a.name().eq_ignore_ascii_case(s)
                        || a.label().eq_ignore_ascii_case(s)
                        || a.aliases().iter().any(|x| x.eq_ignore_ascii_case(s))
                })
            }
        }

        impl core::str::FromStr for Arch {
            type Err = UnknownArch;
            fn from_str(s: &str) -> Result<Arch, UnknownArch> {
                Arch::from_name(s).ok_or_else(|| UnknownArch::new(s))
            }
        }

        impl core::fmt::Display for Arch {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())
            }
        }
    }
}

/// The item's metadata with `@archs` narrowed to the generations whose geometry is
/// known: `Available on:` of a geometry item must not name one (maverick) that has no
/// `Geometry` variant and answers unknown for every value.
fn with_geometry(model: &Model, meta: &Meta) -> Meta {
    let mut meta = meta.clone();
    if let Some(archs) = &mut meta.archs {
        archs.retain(|&a| model[a].geometry_known);
    }
    meta
}

/// The declared type of a value or derived item.
fn declared(item: &GeomItem) -> Option<&GeomType> {
    match &item.kind {
        GeomKind::Value(t) | GeomKind::Derived(t, _) => Some(t),
        GeomKind::Rule { .. } => None,
    }
}

/// Whether every generation with a known geometry has the item (no `@archs`
/// restriction leaves one out).
fn everywhere(model: &Model, item: &GeomItem) -> bool {
    known(model).all(|a| item.meta.available_on(a))
}

/// The Rust type of a geometry value; tables of unstated length are `&'static [T]`.
fn rust_type(t: &GeomType) -> TokenStream {
    type_tokens(t, true)
}

/// The same type in a `const` item, where `'static` is implied (clippy's
/// `redundant_static_lifetimes`).
fn const_type(t: &GeomType) -> TokenStream {
    type_tokens(t, false)
}

fn type_tokens(t: &GeomType, outer_static: bool) -> TokenStream {
    match t {
        GeomType::Int(p) => quote! { #p },
        GeomType::Bool => quote! { bool },
        GeomType::Array(e, len) => {
            let e = type_tokens(e, true);
            match len.count() {
                Some(n) => {
                    let n = super::tokens::usize_lit(n);
                    quote! { [#e; #n] }
                }
                None if outer_static => quote! { &'static [#e] },
                None => quote! { &[#e] },
            }
        }
        GeomType::Optional(t) => {
            let t = type_tokens(t, outer_static);
            quote! { Option<#t> }
        }
    }
}

/// The type the `Arch` accessor returns: the declared type, wrapped in `Option` when
/// some arch does not have the item (an optional type already is one).
fn accessor_type(model: &Model, item: &GeomItem) -> Option<TokenStream> {
    let t = declared(item)?;
    let inner = rust_type(t);
    Some(if everywhere(model, item) || t.is_optional() {
        inner
    } else {
        quote! { Option<#inner> }
    })
}

fn value_tokens(v: Option<&Value>, t: &GeomType) -> TokenStream {
    match t {
        GeomType::Optional(inner) => match v {
            None | Some(Value::Unknown) => quote! { None },
            Some(v) => {
                let x = value_tokens(Some(v), inner);
                quote! { Some(#x) }
            }
        },
        GeomType::Int(_) => match v {
            Some(Value::Int(i)) => signed(*i),
            _ => unreachable!("lower guarantees an integer"),
        },
        GeomType::Bool => match v {
            Some(Value::Bool(b)) => quote! { #b },
            _ => unreachable!("lower guarantees a bool"),
        },
        GeomType::Array(e, len) => match v {
            Some(Value::Array(items)) => {
                let xs = items.iter().map(|x| value_tokens(Some(x), e));
                if len.count().is_some() {
                    quote! { [#(#xs),*] }
                } else {
                    quote! { &[#(#xs),*] }
                }
            }
            _ => unreachable!("lower guarantees an array"),
        },
    }
}

/// `pub const fn num_tpb(self) -> u32 { match self { Arch::Sunda => sunda::NUM_TPB, ... } }`.
fn accessor(model: &Model, g: GeomId) -> Option<TokenStream> {
    let item = &model[g];
    let ret = accessor_type(model, item)?;
    let t = declared(item)?;
    let wrap = !(everywhere(model, item) || t.is_optional());
    let name = names::snake(&item.name);
    let konst = names::constant(&item.name);
    let arms = known(model).map(|a| {
        let v = names::variant(&model[a].name);
        let m = names::snake(&model[a].name);
        if !item.meta.available_on(a) {
            quote! { Geometry::#v => None, }
        } else if wrap {
            quote! { Geometry::#v => Some(#m::#konst), }
        } else {
            quote! { Geometry::#v => #m::#konst, }
        }
    });
    let meta = with_geometry(model, &item.meta);
    let mut doc = Doc::of(model, &meta, format!("The geometry value {}.", code(&item.name)));
    if let GeomKind::Derived(_, e) = &item.kind {
        doc = doc.note(format!("Derived: {}.", code(&spell(model, e, &[]))));
    }
    let values: Vec<String> = known(model)
        .filter(|&a| item.meta.available_on(a))
        .map(|a| {
            format!(
                "{} {}",
                model[a].name,
                code(&show(model[a].value(g).map(|v| &v.value), "unknown"))
            )
        })
        .collect();
    doc = doc.note(format!("Values: {}.", values.join("; ")));
    let indexed = match t.strip_optional() {
        GeomType::Array(e, ArrayLen::Enum(eid, _)) if !t.is_optional() && !wrap => {
            let et = names::ty(&model[*eid].name);
            let elem = rust_type(e);
            let by = format_ident!("{}_of", names::snake_str(&item.name));
            let d = Doc::text(if e.is_optional() {
                format!(
                    "One entry of {}, indexed by {}; `None` for a key past the table's end and \
                     for an entry the sources do not give ([`Self::{name}`] tells them apart: \
                     its length, and its `None` entries).",
                    code(&item.name),
                    code(&model[*eid].name),
                )
            } else {
                format!(
                    "One entry of {}, indexed by {}; `None` for a key past the table's end.",
                    code(&item.name),
                    code(&model[*eid].name)
                )
            });
            let (ret, hit) = if e.is_optional() {
                (elem.clone(), quote! { t[i] })
            } else {
                (quote! { Option<#elem> }, quote! { Some(t[i]) })
            };
            quote! {
                #d
                #[must_use]
                pub const fn #by(self, key: #et) -> #ret {
                    let t = self.#name();
                    let i = key.0 as usize;
                    if i < t.len() { #hit } else { None }
                }
            }
        }
        _ => quote! {},
    };
    Some(quote! {
        #doc
        #[must_use]
        pub const fn #name(self) -> #ret {
            match self { #(#arms)* }
        }
        #indexed
    })
}

/// A value as `docs/isa.md`, `tpb geometry` and the diff show it: decimal below 0x1000
/// (counts, engine ids), hex from there (addresses, sizes, offsets, PCI ids); a value
/// the sources do not give as `unknown` (the rustdoc's word; the reference's `?`).
pub(super) fn show(v: Option<&Value>, unknown: &str) -> String {
    match v {
        None | Some(Value::Unknown) => unknown.into(),
        Some(Value::Int(i)) if *i >= 0x1000 => format!("{i:#x}"),
        Some(Value::Int(i)) => i.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Array(xs)) => {
            let items: Vec<String> = xs.iter().map(|x| show(Some(x), unknown)).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// The expression as spec text, parameters by name, inner operations parenthesised
/// (the rustdoc and `docs/isa.md` spell it alike).
pub(super) fn spell(model: &Model, e: &Expr, params: &[String]) -> String {
    e.render(&|leaf| match leaf {
        Expr::Int(v) => v.to_string(),
        Expr::Value(g) => model[*g].name.clone(),
        Expr::Param(p) => params.get(*p as usize).cloned().unwrap_or_else(|| format!("${p}")),
        Expr::Binary(..) => unreachable!("render spells operations itself"),
    })
}

/// `pub mod cayman { pub const NUM_TPB: u32 = 8; ... }` with each entry's provenance.
fn arch_module(model: &Model, a: ArchId) -> TokenStream {
    let arch = &model[a];
    let m = names::snake(&arch.name);
    let doc = Doc::text(format!(
        "Geometry constants of {} ({}): the values the sources give for it, each with \
         its provenance. A value the spec declares optional (`u32?`) is an `Option` here \
         too; one it needs on every generation but the sources leave out for this one, or \
         one of another generation only, has no constant. Code over every generation \
         reads [`Geometry`] instead, whose methods say what is unknown.",
        arch.name, arch.label
    ));
    let consts = model.geom_ids().filter_map(|g| {
        let item = &model[g];
        let t = declared(item)?;
        if !item.meta.available_on(a) {
            return None;
        }
        let v = arch.value(g);
        if v.is_none() && !t.is_optional() {
            return None;
        }
        let ty = const_type(t);
        let val = value_tokens(v.map(|v| &v.value), t);
        let k = names::constant(&item.name);
        let mut d = match v {
            Some(v) if !v.meta.sources.is_empty() || !v.meta.docs.is_empty() => {
                Doc::of(model, &v.meta, format!("{} on {}.", code(&item.name), arch.name))
            }
            _ => Doc::of(
                model,
                &with_geometry(model, &item.meta),
                format!("{} on {}.", code(&item.name), arch.name),
            ),
        };
        if let Some(v) = v {
            if v.defined_in != a {
                d = d.note(format!("Inherited from {}.", code(&model[v.defined_in].name)));
            }
            if let GeomKind::Derived(_, e) = &item.kind {
                d = d.note(format!(
                    "Derived: {}{}.",
                    code(&spell(model, e, &[])),
                    if v.stated { ", and the sources state the same value" } else { "" }
                ));
            }
        } else {
            d = d.note("Not given by the sources for this generation.");
        }
        Some(quote! { #d pub const #k: #ty = #val; })
    });
    quote! {
        #doc
        pub mod #m {
            #(#consts)*
        }
    }
}

/// A rule as `pub const fn name(self, params..) -> Result<u32, GeometryError>`.
fn rule(model: &Model, g: GeomId) -> Option<TokenStream> {
    let item = &model[g];
    let GeomKind::Rule { params, expr, requires } = &item.kind else { return None };
    let rule_name = item.name.as_str();
    let name = names::snake(&item.name);
    let pidents: Vec<Ident> = params.iter().map(|p| names::snake(p)).collect();
    let mut args: Vec<TokenStream> = pidents.iter().map(|p| quote! { #p as u64 }).collect();
    args.resize(4, quote! { 0 });
    args.truncate(4);
    let names: Vec<&str> = params.iter().map(String::as_str).collect();
    let args_arr = quote! { params: &[#(#names),*], args: [#(#args),*], arch: self.arch() };
    let mut cx = Lets {
        model,
        rule: rule_name,
        args: args_arr.clone(),
        stmts: Vec::new(),
        next: 0,
        loaded: Vec::new(),
        may_be_unknown: false,
    };
    let mut guards = Vec::new();
    for c in requires {
        let l = cx.expr(c.lhs.clone());
        let r = cx.expr(c.rhs.clone());
        // The guard's negation, so that the failing case reads directly.
        let op = match c.op {
            CmpOp::Lt => quote! { >= },
            CmpOp::Le => quote! { > },
            CmpOp::Gt => quote! { <= },
            CmpOp::Ge => quote! { < },
            CmpOp::Eq => quote! { != },
            CmpOp::Ne => quote! { == },
        };
        let text = &c.text;
        let spelled = c.op.as_str();
        let stmts = std::mem::take(&mut cx.stmts);
        guards.push(quote! {
            #(#stmts)*
            if #l #op #r {
                return Err(GeometryError::OutOfRange {
                    rule: #rule_name,
                    guard: #text,
                    #args_arr,
                    computed: Some(Comparison::new(#l, #spelled, #r)),
                });
            }
        });
    }
    let result = cx.expr(expr.clone());
    let stmts = std::mem::take(&mut cx.stmts);
    // A generation the rule's `@archs` leaves out gets no answer, whatever values the
    // expression happens to read there.
    let absent: Vec<Ident> = known(model)
        .filter(|&a| !item.meta.available_on(a))
        .map(|a| names::variant(&model[a].name))
        .collect();
    let not_here = if absent.is_empty() {
        quote! {}
    } else {
        quote! {
            if matches!(self, #(Geometry::#absent)|*) {
                return Err(GeometryError::Unknown { item: #rule_name, arch: self.arch() });
            }
        }
    };
    let meta = with_geometry(model, &item.meta);
    let mut doc = Doc::of(model, &meta, format!("The rule {}.", code(rule_name)))
        .note(format!("Computes {}.", code(&spell(model, expr, params))));
    if !requires.is_empty() {
        let g: Vec<String> = requires.iter().map(|c| code(&c.text)).collect();
        doc = doc.note(format!(
            "Requires {}; otherwise returns `GeometryError::OutOfRange` (never panics).",
            g.join(" and ")
        ));
    }
    let unknown = match (absent.is_empty(), cx.may_be_unknown) {
        (true, false) => None,
        (true, true) => Some("when a value it needs is not given for the generation"),
        (false, false) => Some("on a generation its `@archs` leaves out"),
        (false, true) => Some(
            "on a generation its `@archs` leaves out (naming the rule), and when a value it \
             needs is not given for the generation (naming the value)",
        ),
    };
    if let Some(when) = unknown {
        doc = doc.note(format!("Returns `GeometryError::Unknown` {when}."));
    }
    let prologue = pidents.iter().enumerate().map(|(i, p)| {
        let v = format_ident!("p{i}");
        quote! { let #v = #p as i128; }
    });
    Some(quote! {
        #doc
        pub const fn #name(self, #(#pidents: u32),*) -> Result<u32, GeometryError> {
            #not_here
            #(#prologue)*
            #(#guards)*
            #(#stmts)*
            let r = #result;
            if r < 0 || r > u32::MAX as i128 {
                return Err(GeometryError::OutOfRange { rule: #rule_name, guard: "result fits u32", #args_arr, computed: None });
            }
            Ok(r as u32)
        }
    })
}

/// Lowers an expression into `let` statements over `i128`, each operation checked.
struct Lets<'a> {
    model: &'a Model,
    rule: &'a str,
    args: TokenStream,
    stmts: Vec<TokenStream>,
    next: u32,
    loaded: Vec<(GeomId, Ident)>,
    /// Whether a value read may be missing on some generation (the rule can return
    /// `GeometryError::Unknown`).
    may_be_unknown: bool,
}

impl Lets<'_> {
    fn temp(&mut self) -> Ident {
        self.next += 1;
        format_ident!("t{}", self.next)
    }

    fn expr(&mut self, e: Expr) -> TokenStream {
        match e {
            Expr::Int(v) => {
                // Operands are atoms; a negative literal needs parentheses as a receiver.
                let lit = signed(v);
                if v < 0 {
                    quote! { (#lit) }
                } else {
                    lit
                }
            }
            Expr::Param(p) => {
                let v = format_ident!("p{p}");
                quote! { #v }
            }
            Expr::Value(g) => {
                if let Some((_, id)) = self.loaded.iter().find(|(x, _)| *x == g) {
                    return quote! { #id };
                }
                let item = &self.model[g];
                let m = names::snake(&item.name);
                let t = self.temp();
                let spec = item.name.as_str();
                let optional = declared(item).is_some_and(GeomType::is_optional)
                    || !everywhere(self.model, item);
                self.may_be_unknown |= optional;
                self.stmts.push(if optional {
                    quote! {
                        let #t = match self.#m() {
                            Some(v) => v as i128,
                            None => return Err(GeometryError::Unknown { item: #spec, arch: self.arch() }),
                        };
                    }
                } else {
                    quote! { let #t = self.#m() as i128; }
                });
                self.loaded.push((g, t.clone()));
                quote! { #t }
            }
            Expr::Binary(op, l, r) => {
                // A literal shift amount in range needs no run-time check.
                let shift = match *r {
                    Expr::Int(k) if (0..=63).contains(&k) && op == BinOp::Shl => {
                        Some(proc_macro2::Literal::u32_unsuffixed(k as u32))
                    }
                    Expr::Int(k) if (0..=127).contains(&k) && op == BinOp::Shr => {
                        Some(proc_macro2::Literal::u32_unsuffixed(k as u32))
                    }
                    _ => None,
                };
                let l = self.expr(*l);
                let r = self.expr(*r);
                let t = self.temp();
                let rule = self.rule;
                let args = &self.args;
                let fail = quote! { return Err(GeometryError::OutOfRange { rule: #rule, guard: "arithmetic stays in range", #args, computed: None }) };
                let checked =
                    |f: TokenStream| quote! { let #t = match #f { Some(v) => v, None => #fail }; };
                self.stmts.push(match (op, shift) {
                    (BinOp::Mul, _) => checked(quote! { #l.checked_mul(#r) }),
                    (BinOp::Div, _) => checked(quote! { #l.checked_div(#r) }),
                    (BinOp::Rem, _) => checked(quote! { #l.checked_rem(#r) }),
                    (BinOp::Add, _) => checked(quote! { #l.checked_add(#r) }),
                    (BinOp::Sub, _) => checked(quote! { #l.checked_sub(#r) }),
                    (BinOp::Shl, Some(k)) => checked(quote! { #l.checked_shl(#k) }),
                    (BinOp::Shl, None) => checked(
                        quote! { if #r < 0 || #r > 63 { None } else { #l.checked_shl(#r as u32) } },
                    ),
                    (BinOp::Shr, Some(k)) => quote! { let #t = #l >> #k; },
                    (BinOp::Shr, None) => {
                        checked(quote! { if #r < 0 || #r > 127 { None } else { Some(#l >> #r) } })
                    }
                    (BinOp::And, _) => quote! { let #t = #l & #r; },
                    (BinOp::Xor, _) => quote! { let #t = #l ^ #r; },
                    (BinOp::Or, _) => quote! { let #t = #l | #r; },
                });
                quote! { #t }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::emit::unit_tests::project_model;

    fn geometry_rs() -> String {
        let out = crate::emit::generate(&project_model());
        out.into_iter().find(|f| f.path.ends_with("generated/geometry.rs")).unwrap().contents
    }

    #[test]
    fn values_read_as_the_reference_shows_them() {
        let g = geometry_rs();
        // Counts in decimal, as the sources and the doc prose write them ...
        assert!(g.contains("Values: sunda `34`; cayman `132`; mariana `132`."), "{g}");
        assert!(g.contains("Values: cayman `[[36, 68], [4, 100]]`;"));
        // ... PCI ids, offsets and addresses in hex.
        assert!(g.contains("Values: sunda `[0x7164, 0x7264]`;"));
        assert!(g.contains("Values: sunda `0x1000`;"));
    }

    #[test]
    fn a_rule_answers_only_on_the_generations_of_its_archs() {
        let g = geometry_rs();
        let die_flip = &g[g.find("pub const fn die_flip(").unwrap()..];
        let body = &die_flip[..die_flip.find("\n    }\n").unwrap()];
        // The check comes first, before any guard or value is read.
        assert!(
            body.contains(
                "if matches!(self, Geometry::Sunda) {\n            return Err(GeometryError::Unknown {\n                item: \"die_flip\","
            ),
            "{body}"
        );
        // A rule on every generation has no such check.
        let hbm = &g[g.find("pub const fn hbm_index(").unwrap()..];
        assert!(!hbm[..hbm.find("\n    }\n").unwrap()].contains("matches!"));
    }

    #[test]
    fn available_on_names_only_generations_with_a_geometry() {
        let g = geometry_rs();
        assert!(g.contains("Available on: cayman, mariana\n"), "{g}");
        assert!(!g.lines().any(|l| l.contains("Available on:") && l.contains("maverick")));
    }

    #[test]
    fn a_value_given_only_for_other_generations_is_marked_apart() {
        let g = geometry_rs();
        assert!(g.contains("matches!(g, Geometry::Sunda) => w.write_str(\"—\")"), "{g}");
    }

    /// `@archs` on a geometry value says where the sources give it (`isa/geometry.isa`):
    /// sunda's TPB mmap bases exist (`V2_MMAP_TPB_COUNT 2`) but are not given, so the
    /// reference must not read `—` as "the generation has no such value".
    #[test]
    fn the_reference_reads_archs_as_where_the_sources_give_a_value() {
        let out = crate::emit::generate(&project_model());
        let doc = out.into_iter().find(|f| f.path == super::super::layout_doc::PATH).unwrap();
        assert!(!doc.contents.contains("has no such value"));
        assert!(doc
            .contents
            .contains("`—`: declared only for the generations whose sources give it"));
    }
}
