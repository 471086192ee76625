//! The model diff: what changed between two checked specs (or two archs of one spec),
//! and what each change breaks for decoders.
//!
//! [`diff`] compares two [`Model`]s item by item; [`diff_archs`] compares the geometry
//! (and the `@archs` availability) of two generations of one model after inheritance.
//! Both return a [`Diff`]: a sorted list of [`Change`]s, each with a path
//! (`arm CTRL_AL / field immediate`), an aspect (`offset`), old and new values, the
//! `path:line:col` of the item on each side, and a [`Class`].
//!
//! # Classes: what a change breaks for a decoder built on the old spec
//!
//! - **breaking**: an opcode (enum) value changed or removed; a binding removed or
//!   re-pointed at another arm, or its opcode changed; a field moved, resized, retyped or
//!   removed, on any generation's layout; a group use moved; an arm's preamble changed
//!   from whole to partial or back; a union's size, a view's type or its selecting test
//!   changed, or a view removed; an arm, struct, union, bits type, enum, vocabulary word,
//!   band, sentinel, bitmask, aperture, geometry item or arch removed; the record's size,
//!   discriminant or preamble changed; a bit-field moved or retyped, or an alt's
//!   predicate changed; a band lost values; a bitmask's words changed (the note names
//!   the values whose bit is set or cleared: `sets 0xC0; clears 0x05 (NAME)`); an aperture
//!   region moved or resized; a geometry type, form or expression changed; a geometry
//!   value changed or lost on an arch (an arch whose geometry became unknown); an arch's
//!   generation changed; `@archs` narrowed.
//! - **additive**: a new opcode (enum value: a spec enum is an open newtype over its
//!   integer, whose named values are constants, and `Inst` and `ArmKind` are
//!   `#[non_exhaustive]`), binding, arm, struct, union, view, bits type, bit-field,
//!   alt, enum, vocabulary or word, band, sentinel, bitmask, aperture, region, geometry
//!   item or arch; a field carved out of bytes that were reserved (or any new field
//!   whose bytes another breaking change freed); a band that only grew; a geometry value
//!   newly given, or a `"?"` table entry that became known; `@archs` widened.
//! - **metadata**: docs (as prose: the same words and paragraphs wrapped otherwise are
//!   no change; a fenced code block's or a table's lines are compared whole), `@source`,
//!   `@confidence`, `@waive`, an opcode's `@status` and `@engine`, the record's `engines`
//!   vocabulary, arch labels and aliases, `inherits`, where an arch value is written (own
//!   file or inherited), a binding's own mnemonic (`as NAME`), and **renames**.
//!
//! `@archs` are compared on the generations both sides have (after arch renames): a
//! generation added or removed is one change, at the arch, and not again at every item
//! whose open range (`cayman..`) or absent `@archs` now reaches it or did.
//!
//! `@source` and `@confidence` are compared after inheritance; a member whose value only
//! follows its item's (it states none of its own, or the same) is not reported again:
//! the change is the item's, reported once there. So are the opcode table's own
//! `@status` and `@engine`, the defaults of its values (`enum OPCODE: status maintained →
//! dormant`). A binding written in its opcode's table
//! entry (`MATMUL = 0x02 => S3D3_MM`) shares the entry's docs, sources and `@archs`: a
//! change there is reported once, at the opcode.
//!
//! Text quotes numbers as the spec does: enum values and arch-file values as written
//! (`0x0A`, `3`, `[0x0, 0x1000000000]`), byte patterns (masks, tested values, band
//! bounds) as two-digit hex, offsets and sizes in decimal, and other numbers (computed
//! values, region bounds) in decimal below 0x1000 and hex from there. JSON has numbers.
//!
//! # Per-generation layouts
//!
//! An arm is a list of layouts, each holding on some generations. When both sides have
//! one layout, their fields are compared once (`arm X / field y`). Otherwise every
//! generation of the new side is compared with the same generation of the old (the
//! same name, or the arch it was renamed from; a generation only one side has is not
//! compared). A change every generation shares is reported once, without a layout;
//! the others carry a `layout GENS` segment naming the generations they hold on,
//! generations with the same changes together
//! (`arm S3D3_TS / layout mariana.. / field src_mem_pattern`).
//! Inside an arm the members' `@archs` pick the layout they belong to and are not
//! compared as availability. The preamble an arm inherits is reported at the record.
//!
//! Renames are recognised and reported once, as kind `renamed`, not as a removal plus an
//! addition: a field with the same offset, size and type under a new name; a reserved
//! run with the same bytes; an enum value with the same number; a bit-field with the
//! same bits; a region with the same window; a struct, bits type, enum or arm whose whole
//! layout is unchanged (an arm: every generation's layout; a union: every view); a
//! struct, union, bits type or enum of the same size that the same fields, and no others,
//! name on both sides (its changes are then compared); an arm
//! that the same opcodes select (its layout is then compared); a geometry item with the
//! same definition and values; an arch with the same generation. A rename keeps every
//! byte where it was, so it breaks no decoder and is classed **metadata**; it does change
//! the generated Rust names, so a tool that guards the Rust API should treat
//! `kind: "renamed"` as breaking for that.
//! A field type that names a renamed type is not reported as retyped.
//!
//! A change inside a group (or a struct, union, bits type or enum) is reported once, at the
//! type, with the arms it reaches in [`Change::reaches`] (none for the opcode table, which
//! every arm's header reaches); an arm whose `use` of the group did not change reports
//! nothing for those fields. A `use` that moved is reported at the arm
//! (`arm DMA_DIRECT2D / use DMA_2D_PATTERN as dst: offset 40 → 42`).
//!
//! An opcode whose value changed is one change, at the opcode (`enum OPCODE / variant
//! MATMUL: value 0x02 → 0x05 (bound to S3D3_MM)`): the bindings and sentinels that
//! follow it keep their names and are not reported again; so does a sub-opcode value's
//! (`enum PSEUDO_OPCODE / variant PSEUDO_EXIT_EXECUTION: value 1 → 5`). A binding is
//! matched by its opcode's name and its sub-opcode's, so one that also moved to another
//! arm reports that.
//!
//! An opcode added or removed with its binding is one change, at the opcode, whose value
//! shows the arm (`0x25 => S2D2_AC`); a binding is reported apart only when it is news of
//! its own (a sub-opcode binding, another arm, other `@archs`).
//!
//! An arch whose geometry became unknown is one breaking change (`arch maverick /
//! geometry: known → unknown`), its lost values not listed; one whose geometry became
//! known is an additive change, with its values listed as added.
//!
//! An edit to an inherited arch value (cayman's) is reported on every arch that sees it
//! after inheritance, with the note `inherited from cayman`; a derived value whose inputs
//! changed is reported too, with the note `derived`. A value of an arch's own file that
//! changed while its `source` list did not gets the note `sources unchanged: …`, quoting
//! them, so that a reviewer sees whether they still say the new value. The values of a
//! geometry item that was added are listed per arch; those of a removed item are not
//! (the removal says it).
//!
//! # Two archs of one spec ([`diff_archs`], `cargo xtask diff --arch A B`)
//!
//! Every item whose `@archs` holds on one arch and not the other is added or removed,
//! with its `@archs` as the note: opcodes and other enum values, bindings, arms, union
//! views, structs, bits alts, bands, regions, geometry items. An arm available on both
//! whose layout differs between them is compared field by field, bytes only (two
//! layouts of one arm differ in provenance by design). Geometry values are compared
//! after inheritance, except when either arch's geometry is unknown: that is reported
//! once (`arch maverick / geometry: known → unknown`) and no value is compared.
//! [`Diff::opcode_steps`] counts the opcode values added and removed;
//! [`Diff::opcodes_renumbered`] the names that keep their name and change value.
//!
//! # JSON (`cargo xtask diff --json`), format version 2
//!
//! ```text
//! {
//!   "format": "tpb-isa-diff", "version": 2,
//!   "old": "git:HEAD", "new": "isa",           // the two sides as given
//!   "summary": { "breaking": 1, "additive": 0, "metadata": 2,
//!                "opcodes": { "added": 0, "removed": 0,       // Diff::opcode_steps
//!                             "renumbered": 0 } },             // Diff::opcodes_renumbered
//!   "changes": [ {
//!     "class": "breaking" | "additive" | "metadata",
//!     "kind": "added" | "removed" | "changed" | "renamed",
//!     "path": [ { "kind": "arm", "name": "CTRL_AL" }, { "kind": "field", "name": "immediate" } ],
//!     "path_text": "arm CTRL_AL / field immediate",
//!     "aspect": "offset" | null,               // what changed (kind "changed" only)
//!     "old": 24, "new": 28,                    // null on the side that has no item
//!     "old_at": { "file": "isa/arms.isa", "line": 31, "col": 8 } | null,
//!     "new_at": { "file": "isa/arms.isa", "line": 31, "col": 8 } | null,
//!     "reaches": [ "S3D3_TS" ],                // arms a type-level change reaches
//!     "note": "carved out of reserved bytes" | null
//!   } ]
//! }
//! ```
//!
//! Path kinds: `record struct group union view arm layout field use bits bitfield alt
//! enum variant vocab word band bind sentinel bitmask aperture region geometry arch
//! value`. Aspects: see [`Aspect`]. Version 2 (the new spec model) added the kinds
//! `union view layout vocab word` and the aspects `preamble engines status geometry`,
//! and dropped the aspect `record` (a spec has one record); the aspect `mnemonic` (a
//! binding's own, `as NAME`) came later, a value a reader of version 2 may not know.
//! `old`/`new` are, for a changed aspect, the aspect's value: a number (offset, size,
//! enum value, region base), a string (type, confidence, predicate, expression, arch or
//! group name), a list (doc lines, sources, aliases, bitmask words, band ranges as
//! `[lo, hi]` pairs, `@archs` names, or `null` for "all archs"), a geometry value
//! (number, bool, `"?"` or nested array), or for a binding's opcode
//! `{ "opcode": 223, "sub": { "offset": 12, "value": 1 } | null }`. For a rename they are
//! the two names; for an added or removed item, the item itself in the vocabulary of
//! [`export`] (a field object, a variant object, an arch value object, ...). Integers are
//! JSON numbers and may exceed 2^53 (bitmask words, addresses). Changes are sorted by
//! class (breaking first), then path, then aspect. Object keys are written in sorted
//! order. Fields may be added in later versions, never renamed or removed.

mod archs;
mod changes;
pub(crate) mod json;
mod prose;
mod render;

use serde::Serialize;

use crate::model::{ArchId, Model};

pub use json::{export, export_json};

/// The diff of two checked specs, or of two archs of one spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    /// How to name the old side in output (`git:HEAD`, `cayman`); `old` by default.
    pub old: String,
    /// How to name the new side in output; `new` by default.
    pub new: String,
    /// Every change, sorted by class (breaking first), path and aspect.
    pub changes: Vec<Change>,
    /// The name of the opcode table (the record's discriminant enum) of the new side,
    /// whose added and removed values [`Diff::opcode_steps`] counts.
    pub opcode_enum: String,
}

/// What a change breaks for a decoder built on the old spec. Ordered `Metadata <
/// Additive < Breaking`, so `--fail-on additive` also fails on breaking changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// Docs, provenance, confidence, aliases, renames: no byte moves.
    Metadata,
    /// Something new that old decoders do not know but do not misread.
    Additive,
    /// Old decoders misread, reject or miss something.
    Breaking,
}

/// The shape of a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The item exists only on the new side.
    Added,
    /// The item exists only on the old side.
    Removed,
    /// One [`Aspect`] of the item differs.
    Changed,
    /// Same bytes (or value), new name; `old`/`new` are the names.
    Renamed,
}

/// The kind of one path segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SegKind {
    /// A `record`.
    Record,
    /// A `struct`.
    Struct,
    /// A `union`.
    Union,
    /// A view of a union.
    View,
    /// A `group`.
    Group,
    /// An `arm`.
    Arm,
    /// The per-generation layout of an arm (`layout mariana..`), named by its generations;
    /// present only where an arm's change differs between generations.
    Layout,
    /// A layout field.
    Field,
    /// An `OFFSET use GROUP [as PREFIX]` line of an arm.
    Use,
    /// A `bits` operand type.
    Bits,
    /// A bit range of a `bits` type.
    Bitfield,
    /// An `alt` view of a `bits` type.
    Alt,
    /// An `enum`.
    Enum,
    /// An enum value (an opcode, for the record's discriminant enum).
    Variant,
    /// A vocabulary (`enum ENGINE { PE ACT ... }`).
    Vocab,
    /// A word of a vocabulary.
    Word,
    /// A `band`.
    Band,
    /// A `bind` (named `OPCODE[, sub @OFF = VALUE]`).
    Bind,
    /// A `sentinel`.
    Sentinel,
    /// A `bitmask`.
    Bitmask,
    /// An `aperture`.
    Aperture,
    /// A region of an aperture.
    Region,
    /// A geometry item (`geometry`, `derived` or `rule`).
    Geometry,
    /// An arch (`arch/*.toml`).
    Arch,
    /// A geometry value of one arch.
    Value,
}

impl SegKind {
    /// The spelling used in paths and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            SegKind::Record => "record",
            SegKind::Struct => "struct",
            SegKind::Union => "union",
            SegKind::View => "view",
            SegKind::Layout => "layout",
            SegKind::Vocab => "vocab",
            SegKind::Word => "word",
            SegKind::Group => "group",
            SegKind::Arm => "arm",
            SegKind::Field => "field",
            SegKind::Use => "use",
            SegKind::Bits => "bits",
            SegKind::Bitfield => "bitfield",
            SegKind::Alt => "alt",
            SegKind::Enum => "enum",
            SegKind::Variant => "variant",
            SegKind::Band => "band",
            SegKind::Bind => "bind",
            SegKind::Sentinel => "sentinel",
            SegKind::Bitmask => "bitmask",
            SegKind::Aperture => "aperture",
            SegKind::Region => "region",
            SegKind::Geometry => "geometry",
            SegKind::Arch => "arch",
            SegKind::Value => "value",
        }
    }
}

/// One step of a change's path: `arm CTRL_AL`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Segment {
    /// What the item is.
    pub kind: SegKind,
    /// Its name (on the new side, for an item present on both).
    pub name: String,
}

/// What about an item changed (for [`Kind::Changed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Aspect {
    /// Byte offset of a field or group use.
    Offset,
    /// Size in bytes (record, struct, resized field, region).
    Size,
    /// Field, view, bit-field or geometry type.
    Type,
    /// Underlying integer of an enum or bits type.
    Width,
    /// Whether an arm begins with the whole preamble (`whole` / `partial`).
    Preamble,
    /// The vocabulary of a record's `@engine` words, an opcode's engines, or the opcode
    /// table's default engines.
    Engines,
    /// An opcode's maintained/dormant flag, or the opcode table's default of it.
    Status,
    /// Whether any source gives an arch's geometry (`known` / `unknown`).
    Geometry,
    /// A record's discriminant (offset and enum).
    Discriminant,
    /// Where a record's per-arm payload starts.
    PreambleSize,
    /// `as PREFIX` of a group use (renames its fields; no byte moves).
    Prefix,
    /// Whether a field is inline or placed by a group use.
    Placement,
    /// `struct` vs `group`, or `geometry` vs `derived` vs `rule`.
    Form,
    /// Bit range of a bit-field.
    Range,
    /// The predicate that selects an alt, or the test that selects a union view.
    Predicate,
    /// An enum value's number, or a geometry value.
    Value,
    /// The value set of a band.
    Ranges,
    /// The opcode (and sub-opcode) of a binding that still selects the same arm.
    Opcode,
    /// The arm a binding selects.
    Arm,
    /// A binding's own mnemonic (`as NAME`): the text form's name of its records.
    Mnemonic,
    /// The binding a sentinel names.
    Binding,
    /// The enum a bitmask tests.
    Enum,
    /// The words of a bitmask.
    Words,
    /// First address of a region.
    Base,
    /// A derived value's or rule's expression.
    Expr,
    /// A rule's parameters.
    Params,
    /// A rule's `requires` guards.
    Requires,
    /// An arch's generation number.
    Generation,
    /// An arch's label (`V3`).
    Label,
    /// An arch's aliases.
    Aliases,
    /// The arch an arch inherits from.
    Inherits,
    /// Which arch file holds a value (own or inherited).
    DefinedIn,
    /// Whether a derived value is stated in the arch file or only computed.
    Stated,
    /// Doc comment lines.
    Docs,
    /// `@source` strings.
    Sources,
    /// `@confidence`.
    Confidence,
    /// `@archs`: widening is additive, narrowing breaking.
    Archs,
    /// `@waive` reason.
    Waiver,
}

impl Aspect {
    /// The spelling used in JSON; text output replaces `_` with a space.
    pub fn as_str(self) -> &'static str {
        match self {
            Aspect::Offset => "offset",
            Aspect::Size => "size",
            Aspect::Type => "type",
            Aspect::Width => "width",
            Aspect::Preamble => "preamble",
            Aspect::Engines => "engines",
            Aspect::Status => "status",
            Aspect::Geometry => "geometry",
            Aspect::Discriminant => "discriminant",
            Aspect::PreambleSize => "preamble_size",
            Aspect::Prefix => "prefix",
            Aspect::Placement => "placement",
            Aspect::Form => "form",
            Aspect::Range => "range",
            Aspect::Predicate => "predicate",
            Aspect::Value => "value",
            Aspect::Ranges => "ranges",
            Aspect::Opcode => "opcode",
            Aspect::Arm => "arm",
            Aspect::Mnemonic => "mnemonic",
            Aspect::Binding => "binding",
            Aspect::Enum => "enum",
            Aspect::Words => "words",
            Aspect::Base => "base",
            Aspect::Expr => "expr",
            Aspect::Params => "params",
            Aspect::Requires => "requires",
            Aspect::Generation => "generation",
            Aspect::Label => "label",
            Aspect::Aliases => "aliases",
            Aspect::Inherits => "inherits",
            Aspect::DefinedIn => "defined_in",
            Aspect::Stated => "stated",
            Aspect::Docs => "docs",
            Aspect::Sources => "sources",
            Aspect::Confidence => "confidence",
            Aspect::Archs => "archs",
            Aspect::Waiver => "waiver",
        }
    }
}

/// A value on one side of a change: its JSON form and its text form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Val {
    /// In the [`export`] vocabulary.
    pub json: serde_json::Value,
    /// For people; several lines for docs and source lists.
    pub text: String,
}

/// `path:line:col` of an item on one side.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Site {
    /// Display path of the file (`isa/arms.isa`, `HEAD:isa/arms.isa`).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// One change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// What it breaks.
    pub class: Class,
    /// Added, removed, changed or renamed.
    pub kind: Kind,
    /// The item, outermost first.
    pub path: Vec<Segment>,
    /// What changed, for [`Kind::Changed`].
    pub aspect: Option<Aspect>,
    /// The old value (`None` for an addition).
    pub old: Option<Val>,
    /// The new value (`None` for a removal).
    pub new: Option<Val>,
    /// Where the item is in the old spec.
    pub old_at: Option<Site>,
    /// Where the item is in the new spec.
    pub new_at: Option<Site>,
    /// Arms a change to a group, struct, bits type or enum reaches, sorted.
    pub reaches: Vec<String>,
    /// A short explanation (`carved out of reserved bytes`, `inherited from cayman`).
    pub note: Option<String>,
}

impl Change {
    /// `arm CTRL_AL / field immediate`.
    pub fn path_text(&self) -> String {
        path_text(&self.path)
    }
}

pub(crate) fn path_text(path: &[Segment]) -> String {
    path.iter().map(|s| format!("{} {}", s.kind.as_str(), s.name)).collect::<Vec<_>>().join(" / ")
}

impl Diff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// How many changes have class `c`.
    #[must_use]
    pub fn count(&self, c: Class) -> usize {
        self.changes.iter().filter(|x| x.class == c).count()
    }

    /// The worst class present, if any change.
    #[must_use]
    pub fn worst(&self) -> Option<Class> {
        self.changes.iter().map(|c| c.class).max()
    }

    /// `(added, removed)` values of the opcode table: for an arch diff, the opcodes one
    /// generation gains and loses against the other.
    #[must_use]
    pub fn opcode_steps(&self) -> (usize, usize) {
        let count = |k: Kind| {
            self.changes
                .iter()
                .filter(|c| {
                    c.kind == k
                        && matches!(&c.path[..], [e, v] if e.kind == SegKind::Enum
                            && e.name == self.opcode_enum
                            && v.kind == SegKind::Variant)
                })
                .count()
        };
        (count(Kind::Added), count(Kind::Removed))
    }

    /// How many opcode names keep their name but take another value: each is a value
    /// removed and a value added that [`Diff::opcode_steps`], counting names, does not
    /// show.
    #[must_use]
    pub fn opcodes_renumbered(&self) -> usize {
        self.changes
            .iter()
            .filter(|c| {
                c.kind == Kind::Changed
                    && c.aspect == Some(Aspect::Value)
                    && matches!(&c.path[..], [e, v] if e.kind == SegKind::Enum
                        && e.name == self.opcode_enum
                        && v.kind == SegKind::Variant)
            })
            .count()
    }

    /// Whether a change of class `c` or worse exists (`--fail-on c`).
    pub fn fails_on(&self, c: Class) -> bool {
        self.worst().is_some_and(|w| w >= c)
    }

    /// Readable text grouped by class, then by item; ANSI colour when `color`.
    #[must_use]
    pub fn render(&self, color: bool) -> String {
        render::text(self, color)
    }

    /// The JSON document described in the module docs, pretty-printed, with a final newline.
    #[must_use]
    pub fn to_json(&self) -> String {
        render::json(self)
    }

    fn sorted(old: &str, new: &str, new_model: &Model, mut changes: Vec<Change>) -> Diff {
        changes.sort_by(|a, b| {
            (std::cmp::Reverse(a.class), &a.path, a.aspect, a.kind, &a.note).cmp(&(
                std::cmp::Reverse(b.class),
                &b.path,
                b.aspect,
                b.kind,
                &b.note,
            ))
        });
        changes.dedup();
        let opcode_enum = new_model[new_model.opcode_enum()].name.clone();
        Diff { old: old.to_string(), new: new.to_string(), changes, opcode_enum }
    }
}

/// Compare two checked specs. Items are matched by name, then renames by content; see
/// the module docs for the classes.
#[must_use]
pub fn diff(old: &Model, new: &Model) -> Diff {
    Diff::sorted("old", "new", new, changes::compare(old, new))
}

/// Compare two archs of one spec after inheritance: every geometry value that differs or
/// exists on one side only, and every item whose `@archs` includes one arch and not the
/// other. `a` is the old side, `b` the new. Equal values are not reported, whatever
/// their sources say.
#[must_use]
pub fn diff_archs(model: &Model, a: ArchId, b: ArchId) -> Diff {
    Diff::sorted(&model[a].name, &model[b].name, model, archs::compare(model, a, b))
}
