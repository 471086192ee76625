//! AST → Model: the only constructor of [`Model`]. Resolves names, runs every check,
//! and collects all diagnostics before deciding.

mod bindings;
mod cycles;
mod geometry;
mod layout;
mod meta;
pub(crate) use meta::{is_attribute, unknown_attribute_note};
mod names;
mod operand;

use std::collections::BTreeMap;

use crate::diagnostic::Diagnostic;
use crate::geometry_toml::{self, ArchFile};
use crate::model::*;
use crate::source::{FileId, Sources, Span};
use crate::syntax::{self, ast};
use crate::Failure;

/// What a type-namespace name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decl {
    Record(usize),
    Struct(usize),
    Arm(usize),
    Bits(usize),
    Enum(usize),
    Union(usize),
    Vocab(usize),
}

/// The state shared by every lowering pass.
struct Cx<'a> {
    sources: &'a Sources,
    errors: Vec<Diagnostic>,
    /// Type-namespace names → the item that declares them (first wins).
    decls: BTreeMap<String, (Decl, Span)>,
    /// Archs by every accepted name (name, label, aliases), lowercased.
    arch_names: BTreeMap<String, ArchId>,
    /// Arch names in model order, for messages.
    arch_list: Vec<String>,
    /// Groups that use themselves (through other groups or directly): reported once,
    /// and their uses left out of every layout.
    cyclic_groups: std::collections::BTreeSet<String>,
    /// Variants refused (a duplicate name or value, a value too wide), by (enum,
    /// variant): a later use of one is not a second error.
    refused_variants: std::collections::BTreeSet<(String, String)>,
    /// `@archs` attributes in error (an unknown arch): the generations of what they
    /// stand on are unknown, so no check compares them (it would be a second error).
    bad_archs: std::collections::BTreeSet<Span>,
    /// Every `@waive` by where it is written, and whether an overlap needed it.
    waivers: BTreeMap<Span, bool>,
}

impl Cx<'_> {
    /// An overlap of two members that a waiver on either side excuses: each waiver
    /// there was needed.
    fn waived(&mut self, a: &Meta, b: &Meta) -> bool {
        let excused = a.waiver.is_some() || b.waiver.is_some();
        mark_waivers(&mut self.waivers, a, b);
        excused
    }
}

/// [`Cx::waived`]'s marks, for a check that holds the waivers and not the context.
pub(crate) fn mark_waivers(waivers: &mut BTreeMap<Span, bool>, a: &Meta, b: &Meta) {
    for s in [a.waiver_span, b.waiver_span].into_iter().flatten() {
        waivers.insert(s, true);
    }
}

impl Cx<'_> {
    fn error(&mut self, d: Diagnostic) {
        self.errors.push(d);
    }

    fn text(&self, span: Span) -> &str {
        self.sources.text(span)
    }
}

/// Items of the `.isa` files grouped by kind, each list in name order.
#[derive(Default)]
struct Items<'a> {
    records: Vec<&'a ast::Item>,
    structs: Vec<&'a ast::Item>,
    arms: Vec<&'a ast::Item>,
    bits: Vec<&'a ast::Item>,
    enums: Vec<&'a ast::Item>,
    vocabs: Vec<&'a ast::Item>,
    unions: Vec<&'a ast::Item>,
    bands: Vec<&'a ast::Item>,
    binds: Vec<&'a ast::Item>,
    sentinels: Vec<&'a ast::Item>,
    bitmasks: Vec<&'a ast::Item>,
    apertures: Vec<&'a ast::Item>,
    geometry: Vec<&'a ast::Item>,
}

pub fn lower(mut sources: Sources) -> Result<Model, Failure> {
    // An empty spec still gets a diagnostic ("no record"), which needs a file to point
    // at: the spec folder itself, empty.
    if sources.iter().next().is_none() {
        sources.add("isa", "");
    }
    let mut errors = Vec::new();
    let mut files = Vec::new();
    let mut arch_files: Vec<(FileId, ArchFile)> = Vec::new();
    for (id, f) in sources.iter() {
        if let Some((at, byte)) = f.not_utf8() {
            // Its text is a guess (U+FFFD for what is not UTF-8): reported, not parsed.
            let span = Span::new(id, at, at + '\u{fffd}'.len_utf8());
            errors.push(
                Diagnostic::error(span, format!("the file is not UTF-8 (byte {byte:#04x})"))
                    .label("the first byte that is not UTF-8")
                    .note("a spec file is UTF-8 text; the line is shown with U+FFFD where its bytes are not UTF-8"),
            );
        } else if f.path.ends_with(".isa") {
            match syntax::parse(id, &f.text) {
                Ok(file) => files.push(file),
                Err(e) => errors.extend(e),
            }
        } else if f.path.ends_with(".toml") {
            match geometry_toml::parse(&f.text) {
                Ok(a) => arch_files.push((id, a)),
                Err(misfits) => errors.extend(misfits.into_iter().map(|(msg, range)| {
                    let r = range.unwrap_or(0..0);
                    let mut d = Diagnostic::error(Span::new(id, r.start, r.end), msg);
                    // toml names neither the key nor where it was first given.
                    if d.message == "duplicate key" {
                        let key = f.text.get(r.clone()).unwrap_or_default().trim();
                        d.message = format!("'{key}' is given twice");
                        if let Some(first) = geometry_toml::first_definition(&f.text, r) {
                            d = d
                                .with(Span::new(id, first.start, first.end), "first given here")
                                .note(
                                "give each key once; a later value does not replace an earlier one",
                            );
                        }
                    }
                    d
                })),
            }
        }
    }
    // A file that does not parse is missing its declarations, so checking the others
    // against it would only report what follows from that: report the syntax alone.
    if !errors.is_empty() {
        errors.sort_by(|a, b| (a.span, &a.message).cmp(&(b.span, &b.message)));
        return Err(Failure { sources, diagnostics: errors.into() });
    }
    let mut cx = Cx {
        sources: &sources,
        errors,
        decls: BTreeMap::new(),
        arch_names: BTreeMap::new(),
        arch_list: Vec::new(),
        cyclic_groups: std::collections::BTreeSet::new(),
        refused_variants: std::collections::BTreeSet::new(),
        bad_archs: std::collections::BTreeSet::new(),
        waivers: BTreeMap::new(),
    };
    let model = build(&mut cx, &files, arch_files);
    // A waiver no overlap needed would excuse the next accidental one; said only of a
    // spec otherwise sound (a member left out by an error may be what it waives).
    if model.is_some() && cx.errors.is_empty() {
        for (&span, _) in cx.waivers.iter().filter(|(_, &used)| !used) {
            cx.errors.push(Diagnostic::error(span, "this @waive excuses no overlap").note(
                "remove it: a waiver nothing needs would excuse a later overlap made by mistake",
            ));
        }
    }
    let mut errors = std::mem::take(&mut cx.errors);
    errors.sort_by(|a, b| (a.span, &a.message).cmp(&(b.span, &b.message)));
    errors.dedup();
    match model {
        Some(parts) if errors.is_empty() => Ok(Model::new(sources, parts)),
        _ => Err(Failure { sources, diagnostics: errors.into() }),
    }
}

fn build(
    cx: &mut Cx<'_>,
    files: &[ast::File],
    arch_files: Vec<(FileId, ArchFile)>,
) -> Option<ModelParts> {
    let items = classify(cx, files);
    let archs_raw = geometry::declare_archs(cx, arch_files);

    let vocabs = operand::vocabs(cx, &items.vocabs);
    let enums = operand::enums(cx, &items.enums);
    let bits = operand::bits(cx, &items.bits, &enums);
    let unions = layout::union_shells(cx, &items.unions);
    let structs = layout::structs(cx, &items.structs, &bits, &enums, &unions);
    let tables = layout::Tables { structs: &structs, bits: &bits, enums: &enums, unions: &unions };
    let unions = layout::unions(cx, &items.unions, &tables);
    let tables = layout::Tables { structs: &structs, bits: &bits, enums: &enums, unions: &unions };
    layout::check_containment(cx, &tables, &items.structs, &items.unions);
    let record = layout::record(cx, &items.records, &tables, &vocabs);
    let arms = match &record {
        Some(r) => layout::arms(cx, &items.arms, r, &tables),
        None => Vec::new(),
    };
    let mut enums = enums;
    if let Some(r) = &record {
        operand::opcode_attrs(cx, &items.enums, &mut enums, r, &vocabs);
    }
    let bands = operand::bands(cx, &items.bands, &enums);
    let bindings = match &record {
        Some(r) => bindings::bindings(cx, &items, r, &arms, &enums),
        None => Vec::new(),
    };
    // Without a record there are no arms: a sentinel naming one would be a second error.
    let sentinels = match &record {
        Some(_) => bindings::sentinels(cx, &items.sentinels, &arms, &bindings),
        None => Vec::new(),
    };
    let bitmasks = bindings::bitmasks(cx, &items.bitmasks, &enums);
    let apertures = bindings::apertures(cx, &items.apertures);
    let geometry = geometry::schema(cx, &items.geometry, &enums);
    let archs = geometry::archs(cx, archs_raw, &geometry);
    let mut parts = ModelParts {
        record: record?,
        structs,
        unions,
        arms,
        bits,
        enums,
        vocabs,
        bands,
        bindings,
        sentinels,
        bitmasks,
        apertures,
        geometry,
        archs,
    };
    names::assign(cx, &mut parts);
    Some(parts)
}

/// Sort items by kind and name; report duplicate names in the type namespace and
/// Rust-name collisions (two spec names that would become the same Rust type).
fn classify<'a>(cx: &mut Cx<'_>, files: &'a [ast::File]) -> Items<'a> {
    let mut items = Items::default();
    for item in files.iter().flat_map(|f| &f.items) {
        use ast::ItemKind as K;
        let list = match item.kind {
            K::Record { .. } => &mut items.records,
            K::Struct { .. } => &mut items.structs,
            K::Arm { .. } => &mut items.arms,
            K::Bits { .. } => &mut items.bits,
            K::Enum { width: Some(_), .. } => &mut items.enums,
            K::Enum { width: None, .. } => &mut items.vocabs,
            K::Union { .. } => &mut items.unions,
            K::Band { .. } => &mut items.bands,
            K::Bind { .. } => &mut items.binds,
            K::Sentinel { .. } => &mut items.sentinels,
            K::Bitmask { .. } => &mut items.bitmasks,
            K::Aperture { .. } => &mut items.apertures,
            K::Geometry { .. } | K::Derived { .. } | K::Rule { .. } => &mut items.geometry,
        };
        list.push(item);
    }
    for list in [
        &mut items.records,
        &mut items.structs,
        &mut items.arms,
        &mut items.bits,
        &mut items.enums,
        &mut items.vocabs,
        &mut items.unions,
        &mut items.sentinels,
        &mut items.bitmasks,
        &mut items.apertures,
    ] {
        list.sort_by(|a, b| a.name.name.cmp(&b.name.name).then(a.span.cmp(&b.span)));
    }
    // Type namespace: records, structs/groups, arms, bits, enums, vocabularies and
    // unions share one (the Rust names are checked by the naming pass).
    type Kind<'x> = (&'x [&'x ast::Item], fn(usize) -> Decl);
    let kinds: [Kind<'_>; 7] = [
        (&items.records, Decl::Record),
        (&items.structs, Decl::Struct),
        (&items.arms, Decl::Arm),
        (&items.bits, Decl::Bits),
        (&items.enums, Decl::Enum),
        (&items.vocabs, Decl::Vocab),
        (&items.unions, Decl::Union),
    ];
    for (list, make) in kinds {
        for (i, item) in list.iter().enumerate() {
            let name = &item.name;
            if let Some((_, first)) = cx.decls.get(&name.name) {
                let first = *first;
                cx.error(
                    // Neutral words: files load in path order, so the one read
                    // first may be the one just written.
                    Diagnostic::error(name.span, format!("duplicate name '{}'", name.name))
                        .label("declared here")
                        .with(first, "and here"),
                );
                continue;
            }
            cx.decls.insert(name.name.clone(), (make(i), name.span));
        }
    }
    items
}

/// Edit distance, for "did you mean" notes.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// "did you mean 'x'?" for the closest candidate within a small distance.
fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    candidates
        .into_iter()
        .map(|c| (distance(name, c), c))
        .filter(|(d, c)| *d <= 2.max(name.len() / 4) && *d < c.len())
        .min()
        .map(|(_, c)| format!("did you mean '{c}'?"))
}

/// The integer value of a literal if it fits `u64`, else an error.
fn u64_of(cx: &mut Cx<'_>, i: ast::Int) -> Option<u64> {
    match u64::try_from(i.value) {
        Ok(v) => Some(v),
        Err(_) => {
            cx.error(Diagnostic::error(i.span, "value does not fit in 64 bits"));
            None
        }
    }
}

/// The integer value of a literal if it fits `u32`, else an error naming `what`.
fn u32_of(cx: &mut Cx<'_>, i: ast::Int, what: &str) -> Option<u32> {
    match u32::try_from(i.value) {
        Ok(v) => Some(v),
        Err(_) => {
            cx.error(Diagnostic::error(i.span, format!("{what} {} is too large", i.value)));
            None
        }
    }
}

/// The integer value of a literal if it fits `u8`, else an error naming `what`.
fn u8_of(cx: &mut Cx<'_>, i: ast::Int, what: &str) -> Option<u8> {
    match u8::try_from(i.value) {
        Ok(v) => Some(v),
        Err(_) => {
            cx.error(Diagnostic::error(
                i.span,
                format!("{what} {:#x} does not fit in a byte", i.value),
            ));
            None
        }
    }
}

/// Spec text for the unit tests of the lowering passes.
#[cfg(test)]
mod test_support {
    use crate::{Failure, Model, Sources};

    /// Two generations, `old` (1) and `new` (2).
    pub const OLD_NEW: [(&str, &str); 2] = [
        ("isa/arch/old.toml", "name = \"old\"\ngeneration = 1\nlabel = \"V1\"\n"),
        ("isa/arch/new.toml", "name = \"new\"\ngeneration = 2\nlabel = \"V2\"\n"),
    ];

    /// `old`, `new` and a third generation, `next` (3, alias `n3`).
    pub const OLD_NEW_NEXT: [(&str, &str); 3] = [
        OLD_NEW[0],
        OLD_NEW[1],
        (
            "isa/arch/next.toml",
            "name = \"next\"\ngeneration = 3\nlabel = \"V3\"\naliases = [\"n3\"]\n",
        ),
    ];

    /// A one-byte record over `OPCODE`, for specs that need one and declare their own
    /// `OPCODE` (`enum OPCODE : u8 { ... }`).
    pub const RECORD: &str = "record R : 1 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n";

    /// Load `.isa` text (`isa/x.isa`) with `extra` files.
    pub fn load(text: &str, extra: &[(&str, &str)]) -> Result<Model, Failure> {
        let mut s = Sources::new();
        s.add("isa/x.isa", text);
        for (p, t) in extra {
            s.add(*p, *t);
        }
        crate::load(s)
    }

    /// Like [`load`], for text that checks.
    pub fn model(text: &str, extra: &[(&str, &str)]) -> Model {
        load(text, extra).unwrap_or_else(|f| panic!("{text}\ndoes not load:\n{}", f.render()))
    }

    /// The messages of text that does not check.
    pub fn errors(text: &str, extra: &[(&str, &str)]) -> Vec<String> {
        match load(text, extra) {
            Ok(_) => panic!("{text}\nloads"),
            Err(f) => f.diagnostics.0.into_iter().map(|d| d.message).collect(),
        }
    }
}
