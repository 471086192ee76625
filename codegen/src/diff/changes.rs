//! Item-by-item comparison of two models: matching by name, then renames by content,
//! then one [`Change`] per differing aspect.

use std::collections::{BTreeMap, BTreeSet};

use super::json::{self, int, type_str_with};
use super::prose::same_prose;
use super::{Aspect, Change, Class, Kind, SegKind, Segment, Val};
use crate::model::*;
use crate::source::Span;

/// Every change between `o` and `n`, unsorted.
pub(super) fn compare(o: &Model, n: &Model) -> Vec<Change> {
    let mut c = Cmp::new(o, n);
    c.find_renames();
    c.records();
    c.structs();
    c.unions();
    c.arms();
    c.bits();
    c.enums();
    c.vocabs();
    c.bands();
    c.bindings();
    c.sentinels();
    c.bitmasks();
    c.apertures();
    c.geometry();
    c.archs();
    c.out
}

// ---------------------------------------------------------------------------------
// Pairing
// ---------------------------------------------------------------------------------

/// How an old item and a new item correspond.
pub(super) enum Pair<'x, T> {
    /// Same key on both sides.
    Both(&'x T, &'x T),
    /// Different key, same content: a rename.
    Renamed(&'x T, &'x T),
    /// Only in the old model.
    Old(&'x T),
    /// Only in the new model.
    New(&'x T),
}

/// Pair items by `same` (their key), then pair the leftovers by `twin` (same content
/// under another key) when exactly one candidate exists on each side.
pub(super) fn pair<'x, T>(
    old: &'x [T],
    new: &'x [T],
    same: impl Fn(&T, &T) -> bool,
    twin: impl Fn(&T, &T) -> bool,
) -> Vec<Pair<'x, T>> {
    let mut new_used = vec![false; new.len()];
    let mut old_to: Vec<Option<(usize, bool)>> = vec![None; old.len()];
    for (i, a) in old.iter().enumerate() {
        if let Some(j) = (0..new.len()).find(|&j| !new_used[j] && same(a, &new[j])) {
            new_used[j] = true;
            old_to[i] = Some((j, false));
        }
    }
    let free_old: Vec<usize> = (0..old.len()).filter(|&i| old_to[i].is_none()).collect();
    let free_new: Vec<usize> = (0..new.len()).filter(|&j| !new_used[j]).collect();
    for &i in &free_old {
        let cands: Vec<usize> =
            free_new.iter().copied().filter(|&j| !new_used[j] && twin(&old[i], &new[j])).collect();
        if let [j] = cands[..] {
            let back =
                free_old.iter().filter(|&&k| old_to[k].is_none() && twin(&old[k], &new[j])).count();
            if back == 1 {
                new_used[j] = true;
                old_to[i] = Some((j, true));
            }
        }
    }
    let mut out = Vec::new();
    for (i, a) in old.iter().enumerate() {
        out.push(match old_to[i] {
            Some((j, false)) => Pair::Both(a, &new[j]),
            Some((j, true)) => Pair::Renamed(a, &new[j]),
            None => Pair::Old(a),
        });
    }
    for (j, b) in new.iter().enumerate() {
        if !new_used[j] {
            out.push(Pair::New(b));
        }
    }
    out
}

pub(super) fn seg(kind: SegKind, name: impl Into<String>) -> Segment {
    Segment { kind, name: name.into() }
}

pub(super) fn sub(path: &[Segment], kind: SegKind, name: impl Into<String>) -> Vec<Segment> {
    let mut p = path.to_vec();
    p.push(seg(kind, name));
    p
}

pub(super) fn num(v: impl Into<i128>) -> Val {
    let v = v.into();
    Val { json: int(v), text: v.to_string() }
}

pub(super) fn text(s: impl Into<String>) -> Val {
    let s = s.into();
    Val { json: serde_json::Value::from(s.clone()), text: s }
}

fn lines(v: &[String]) -> Val {
    Val { json: serde_json::Value::from(v.to_vec()), text: v.join("\n") }
}

fn names_val(v: &Option<Vec<String>>) -> Val {
    match v {
        None => Val { json: serde_json::Value::Null, text: "all".to_string() },
        Some(v) => Val { json: serde_json::Value::from(v.clone()), text: v.join(", ") },
    }
}

/// An optional aspect left out: `null`, shown as `none`.
fn none() -> Val {
    Val { json: serde_json::Value::Null, text: "none".into() }
}

fn opt_text(v: &Option<String>) -> Val {
    v.clone().map_or_else(none, text)
}

/// Whether `new` only fills in entries that were `"?"` in `old` (same shape otherwise).
pub(super) fn only_learned(old: &Value, new: &Value) -> bool {
    match (old, new) {
        (Value::Unknown, n) => !matches!(n, Value::Unknown),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y || only_learned(x, y))
        }
        _ => false,
    }
}

/// A type the arms may reach through their fields.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Struct(StructId),
    Union(UnionId),
    Bits(BitsId),
    Enum(EnumId),
}

fn mentions(m: &Model, ty: &FieldType, t: Target) -> bool {
    match ty {
        FieldType::Array(inner, _) => mentions(m, inner, t),
        FieldType::Struct(s) => {
            t == Target::Struct(*s) || m[*s].fields.iter().any(|f| field_mentions(m, f, t))
        }
        FieldType::Union(u) => {
            t == Target::Union(*u) || m[*u].views.iter().any(|v| mentions(m, &v.ty, t))
        }
        FieldType::Bits(b) => {
            t == Target::Bits(*b)
                || m[*b]
                    .fields
                    .iter()
                    .chain(m[*b].alts.iter().flat_map(|a| &a.fields))
                    .any(|f| matches!((f.ty, t), (BitType::Enum(e), Target::Enum(x)) if e == x))
        }
        FieldType::Enum(e) => t == Target::Enum(*e),
        FieldType::Prim(_) | FieldType::Reserved(_) | FieldType::Unknown(_) => false,
    }
}

fn field_mentions(m: &Model, f: &Field, t: Target) -> bool {
    f.group.as_ref().is_some_and(|g| t == Target::Struct(g.group)) || mentions(m, &f.ty, t)
}

/// Arms whose layout on any generation (preamble included) places or contains `t`.
fn reach(m: &Model, t: Target) -> Vec<String> {
    m.arm_ids()
        .filter(|&a| m[a].layouts.iter().flat_map(|l| &l.fields).any(|f| field_mentions(m, f, t)))
        .map(|a| m[a].name.clone())
        .collect()
}

// ---------------------------------------------------------------------------------
// Items of every kind, as the walker sees them
// ---------------------------------------------------------------------------------

/// What [`Cmp::walk`] needs of an item, whatever its kind.
trait Item {
    fn meta(&self) -> &Meta;
    /// The name a rename is reported under; `None` for an item known only by its key.
    fn name(&self) -> Option<&str>;
    /// The type, for an item the arms may reach through their fields.
    fn target(&self, _m: &Model) -> Option<Target> {
        None
    }
    /// The metadata this item inherits `@source`/`@confidence` from, when that is not
    /// the item it is walked under.
    fn parent_meta<'m>(&self, _m: &'m Model) -> Option<&'m Meta> {
        None
    }
}

/// Most kinds keep their name and metadata in `name` and `meta`; the types the arms
/// may reach also say how their model finds them.
macro_rules! items {
    ($($t:ty $(=> $target:ident by $named:ident)?),* $(,)?) => {$(
        impl Item for $t {
            fn meta(&self) -> &Meta {
                &self.meta
            }
            fn name(&self) -> Option<&str> {
                Some(&self.name)
            }
            $(fn target(&self, m: &Model) -> Option<Target> {
                m.$named(&self.name).map(Target::$target)
            })?
        }
    )*};
}

items!(
    Record,
    Field,
    Struct => Struct by struct_named,
    Union => Union by union_named,
    View,
    Vocab,
    Word,
    Arm,
    BitField,
    Bits => Bits by bits_named,
    Alt,
    Enum => Enum by enum_named,
    Variant,
    Band,
    Sentinel,
    Bitmask,
    Aperture,
    Region,
    GeomItem,
    Arch,
);

/// Known by its opcode key, so never reported renamed.
impl Item for Binding {
    fn meta(&self) -> &Meta {
        &self.meta
    }
    fn name(&self) -> Option<&str> {
        None
    }
    /// A binding written in the opcode table (`NAME = VALUE => ARM`) shares its entry's
    /// provenance.
    fn parent_meta<'m>(&self, m: &'m Model) -> Option<&'m Meta> {
        if self.sub.is_some() {
            return None;
        }
        m[m.opcode_enum()].variant_of(self.opcode).map(|v| &v.meta)
    }
}

impl<T: Item> Item for &T {
    fn meta(&self) -> &Meta {
        (*self).meta()
    }
    fn name(&self) -> Option<&str> {
        (*self).name()
    }
    fn target(&self, m: &Model) -> Option<Target> {
        (*self).target(m)
    }
    fn parent_meta<'m>(&self, m: &'m Model) -> Option<&'m Meta> {
        (*self).parent_meta(m)
    }
}

/// The kinds of type item a field names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TypeKind {
    Struct,
    Bits,
    Enum,
    Union,
}

/// The model an item comes from; `old` picks a parent item from the same side.
#[derive(Clone, Copy)]
struct Side<'a> {
    m: &'a Model,
    old: bool,
}

/// Where the changes of a matched pair go: the new item's path, and both items' spans.
struct At<'p> {
    path: &'p [Segment],
    os: Span,
    ns: Span,
}

fn same_name<T: Item>(a: &T, b: &T) -> bool {
    a.name() == b.name()
}

/// Pairs the items [`Cmp::find_renames`] found renamed.
fn known<T: Item>(map: &BTreeMap<String, String>) -> impl Fn(&T, &T) -> bool + '_ {
    move |a, b| a.name().and_then(|x| map.get(x)).map(String::as_str) == b.name()
}

/// Old name → new name of each renamed pair.
fn renames<T: Item>(pairs: Vec<Pair<'_, T>>) -> Vec<(String, String)> {
    pairs
        .into_iter()
        .filter_map(|p| match p {
            Pair::Renamed(a, b) => Some((a.name()?.to_string(), b.name()?.to_string())),
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------
// The comparer
// ---------------------------------------------------------------------------------

/// Old name → new name for the items found renamed, per namespace.
#[derive(Default)]
struct Renames {
    structs: BTreeMap<String, String>,
    unions: BTreeMap<String, String>,
    bits: BTreeMap<String, String>,
    enums: BTreeMap<String, String>,
    arms: BTreeMap<String, String>,
    geoms: BTreeMap<String, String>,
    archs: BTreeMap<String, String>,
}

fn mapped(map: &BTreeMap<String, String>, s: &str) -> String {
    map.get(s).cloned().unwrap_or_else(|| s.to_string())
}

pub(super) struct Cmp<'a> {
    pub(super) o: &'a Model,
    pub(super) n: &'a Model,
    pub(super) out: Vec<Change>,
    r: Renames,
    /// The metadata of the items being walked, outermost first (old, new): a member's
    /// `@source`/`@confidence` that only follows its item's is not reported again.
    parents: Vec<(Meta, Meta)>,
    /// Inside an arm's layouts a member's `@archs` selects the layout it belongs to; the
    /// per-generation comparison reports what that changes, so the list itself is not.
    pub(super) skip_archs: bool,
    /// Compare bytes only (the arch diff compares two layouts of one spec, whose
    /// provenance differs by design).
    pub(super) skip_meta: bool,
}

/// One `use GROUP` of a layout, as seen through its flattened fields.
struct Use<'x> {
    group: StructId,
    base: u32,
    prefix: Option<String>,
    meta: &'x Meta,
    members: Vec<usize>,
}

fn uses(fields: &[Field]) -> Vec<Use<'_>> {
    let mut out: Vec<Use<'_>> = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let Some(g) = &f.group else { continue };
        match out.iter_mut().find(|u| u.group == g.group && u.base == g.base) {
            Some(u) => u.members.push(i),
            None => out.push(Use {
                group: g.group,
                base: g.base,
                prefix: g.prefix.clone(),
                meta: &g.meta,
                members: vec![i],
            }),
        }
    }
    out
}

impl<'a> Cmp<'a> {
    pub(super) fn new(o: &'a Model, n: &'a Model) -> Cmp<'a> {
        Cmp {
            o,
            n,
            out: Vec::new(),
            r: Renames::default(),
            parents: Vec::new(),
            skip_archs: false,
            skip_meta: false,
        }
    }

    // --- emitting ------------------------------------------------------------------

    #[allow(clippy::too_many_arguments)]
    pub(super) fn emit(
        &mut self,
        class: Class,
        kind: Kind,
        path: Vec<Segment>,
        aspect: Option<Aspect>,
        old: Option<(Val, Span)>,
        new: Option<(Val, Span)>,
        note: Option<String>,
    ) {
        let old_at = old.as_ref().map(|(_, s)| json::site(self.o, *s));
        let new_at = new.as_ref().map(|(_, s)| json::site(self.n, *s));
        self.out.push(Change {
            class,
            kind,
            path,
            aspect,
            old: old.map(|(v, _)| v),
            new: new.map(|(v, _)| v),
            old_at,
            new_at,
            reaches: Vec::new(),
            note,
        });
    }

    pub(super) fn added(
        &mut self,
        class: Class,
        path: Vec<Segment>,
        new: Val,
        ns: Span,
        note: Option<String>,
    ) {
        self.emit(class, Kind::Added, path, None, None, Some((new, ns)), note);
    }

    pub(super) fn removed(
        &mut self,
        class: Class,
        path: Vec<Segment>,
        old: Val,
        os: Span,
        note: Option<String>,
    ) {
        self.emit(class, Kind::Removed, path, None, Some((old, os)), None, note);
    }

    fn renamed(&mut self, path: Vec<Segment>, old: &str, os: Span, new: &str, ns: Span) {
        self.emit(
            Class::Metadata,
            Kind::Renamed,
            path,
            None,
            Some((text(old), os)),
            Some((text(new), ns)),
            None,
        );
    }

    /// Report `aspect` of the pair `at` as changed.
    fn change(&mut self, at: &At<'_>, class: Class, aspect: Aspect, old: Val, new: Val) {
        self.change_noted(at, class, aspect, old, new, None);
    }

    fn change_noted(
        &mut self,
        at: &At<'_>,
        class: Class,
        aspect: Aspect,
        old: Val,
        new: Val,
        note: Option<String>,
    ) {
        let (old, new) = (Some((old, at.os)), Some((new, at.ns)));
        self.emit(class, Kind::Changed, at.path.to_vec(), Some(aspect), old, new, note);
    }

    /// Report `aspect` as changed if `old != new`, each shown through `show`.
    fn differ<V: PartialEq>(
        &mut self,
        at: &At<'_>,
        class: Class,
        aspect: Aspect,
        old: V,
        new: V,
        show: impl Fn(V) -> Val,
    ) {
        if old != new {
            self.change(at, class, aspect, show(old), show(new));
        }
    }

    /// Report the paired items of one kind. A matched pair: its rename, what `both`
    /// finds, then its metadata; an item on one side only: its removal (breaking) or
    /// addition (additive). `at` places an item, `val` shows a whole one.
    fn walk<'x, T: Item>(
        &mut self,
        pairs: Vec<Pair<'x, T>>,
        at: impl Fn(Side<'a>, &T) -> Vec<Segment>,
        val: impl Fn(Side<'a>, &T) -> Val,
        both: impl FnMut(&mut Self, &At<'_>, &'x T, &'x T),
    ) {
        self.walk_noted(pairs, at, val, |_, _| None, both);
    }

    /// [`Cmp::walk`], with a `note` on what is added or removed. The changes made for a
    /// type (and all within it) get the arms it reaches.
    fn walk_noted<'x, T: Item>(
        &mut self,
        pairs: Vec<Pair<'x, T>>,
        at: impl Fn(Side<'a>, &T) -> Vec<Segment>,
        val: impl Fn(Side<'a>, &T) -> Val,
        note: impl Fn(Side<'a>, &T) -> Option<String>,
        mut both: impl FnMut(&mut Self, &At<'_>, &'x T, &'x T),
    ) {
        let (o, n) = (Side { m: self.o, old: true }, Side { m: self.n, old: false });
        for p in pairs {
            let start = self.out.len();
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = at(n, b);
                    let (am, bm) = (a.meta(), b.meta());
                    if let (Some(x), Some(y)) = (a.name(), b.name()) {
                        if x != y {
                            self.renamed(path.clone(), x, am.span, y, bm.span);
                        }
                    }
                    self.parents.push((am.clone(), bm.clone()));
                    both(self, &At { path: &path, os: am.span, ns: bm.span }, a, b);
                    self.parents.pop();
                    match (a.parent_meta(o.m), b.parent_meta(n.m)) {
                        // Written in its parent's entry on both sides (a binding in the opcode
                        // table): its metadata is the entry's, reported there.
                        (Some(pa), Some(pb)) if pa.span == am.span && pb.span == bm.span => {}
                        (Some(pa), Some(pb)) => {
                            self.parents.push((pa.clone(), pb.clone()));
                            self.meta(&path, am, bm);
                            self.parents.pop();
                        }
                        _ => self.meta(&path, am, bm),
                    }
                    self.set_reach(start, a.target(o.m), b.target(n.m));
                }
                Pair::Old(a) => {
                    self.removed(Class::Breaking, at(o, a), val(o, a), a.meta().span, note(o, a));
                    self.set_reach(start, a.target(o.m), None);
                }
                Pair::New(b) => {
                    self.added(Class::Additive, at(n, b), val(n, b), b.meta().span, note(n, b));
                }
            }
        }
    }

    /// Give the changes emitted since `start` the arms they reach, if a type is given. The
    /// opcode table reaches every arm through the header, which says nothing: its changes
    /// name none (a binding says which arm an opcode selects).
    fn set_reach(&mut self, start: usize, old: Option<Target>, new: Option<Target>) {
        let opcodes = |m: &Model, t: Option<Target>| t == Some(Target::Enum(m.opcode_enum()));
        if self.out.len() == start
            || (old.is_none() && new.is_none())
            || opcodes(self.o, old)
            || opcodes(self.n, new)
        {
            return;
        }
        let mut arms: BTreeSet<String> = BTreeSet::new();
        if let Some(t) = old {
            arms.extend(reach(self.o, t).iter().map(|a| mapped(&self.r.arms, a)));
        }
        if let Some(t) = new {
            arms.extend(reach(self.n, t));
        }
        let arms: Vec<String> = arms.into_iter().collect();
        for c in &mut self.out[start..] {
            c.reaches.clone_from(&arms);
        }
    }

    // --- names across the two models ----------------------------------------------

    /// An old type name (struct, bits or enum) as the new model names it.
    fn tname(&self, s: &str) -> String {
        self.r
            .structs
            .get(s)
            .or_else(|| self.r.unions.get(s))
            .or_else(|| self.r.bits.get(s))
            .or_else(|| self.r.enums.get(s))
            .cloned()
            .unwrap_or_else(|| s.to_string())
    }

    /// An old field type spelled with new names.
    fn old_type(&self, ty: &FieldType) -> String {
        type_str_with(self.o, ty, &|s| self.tname(s))
    }

    fn new_type(&self, ty: &FieldType) -> String {
        json::type_str(self.n, ty)
    }

    /// The old arch a new arch continues (same name, or renamed to it).
    fn old_arch(&self, new: ArchId) -> Option<ArchId> {
        let name = &self.n[new].name;
        let old = self.r.archs.iter().find(|(_, v)| *v == name).map_or(name.as_str(), |(k, _)| k);
        self.o.arch_named(old)
    }

    fn old_arch_names(&self, archs: &Option<Vec<ArchId>>) -> BTreeSet<String> {
        match archs {
            None => self.o.archs.iter().map(|a| mapped(&self.r.archs, &a.name)).collect(),
            Some(v) => v.iter().map(|id| mapped(&self.r.archs, &self.o[*id].name)).collect(),
        }
    }

    /// Arch names oldest generation first, as `@archs` and every listing give them (an
    /// arch the new spec lacks last).
    fn in_generation_order(&self, names: &BTreeSet<String>) -> Vec<String> {
        let mut v: Vec<String> = names.iter().cloned().collect();
        v.sort_by_key(|n| self.n.archs.iter().position(|a| a.name == *n).unwrap_or(usize::MAX));
        v
    }

    fn new_arch_names(&self, archs: &Option<Vec<ArchId>>) -> BTreeSet<String> {
        match archs {
            None => self.n.archs.iter().map(|a| a.name.clone()).collect(),
            Some(v) => v.iter().map(|id| self.n[*id].name.clone()).collect(),
        }
    }

    fn old_expr(&self, e: &Expr, params: &[String]) -> String {
        json::expr_str(self.o, e, params, &|s| mapped(&self.r.geoms, s))
    }

    fn new_expr(&self, e: &Expr, params: &[String]) -> String {
        json::expr_str(self.n, e, params, &|s| s.to_string())
    }

    // --- renames of whole items, found before anything is compared -----------------

    fn find_renames(&mut self) {
        let (o, n) = (self.o, self.n);
        let same_gen = |a: &Arch, b: &Arch| a.generation == b.generation;
        self.r.archs.extend(renames(pair(&o.archs, &n.archs, same_name, same_gen)));
        let enum_same = |a: &Enum, b: &Enum| {
            a.width == b.width
                && a.variants.len() == b.variants.len()
                && a.variants
                    .iter()
                    .zip(&b.variants)
                    .all(|(x, y)| x.name == y.name && x.value == y.value)
        };
        // A type renamed in the same edit that changes it is still that type where the
        // same fields, and no others, name it on both sides (and its size is kept): its
        // changes are then compared, not removed and added whole.
        let found = renames(pair(&o.enums, &n.enums, same_name, |a, b| {
            enum_same(a, b)
                || (a.width == b.width && self.used_alike(TypeKind::Enum, &a.name, &b.name))
        }));
        self.r.enums.extend(found);
        let found = renames(pair(&o.bits, &n.bits, same_name, |a, b| {
            bits_same(a, b)
                || (a.width == b.width && self.used_alike(TypeKind::Bits, &a.name, &b.name))
        }));
        self.r.bits.extend(found);
        // Structs may contain structs: a second pass sees renames the first found.
        for _ in 0..2 {
            let found = renames(pair(&o.structs, &n.structs, same_name, |a, b| {
                self.struct_same(a, b)
                    || (a.size == b.size
                        && a.is_group == b.is_group
                        && self.used_alike(TypeKind::Struct, &a.name, &b.name))
            }));
            self.r.structs.extend(found);
        }
        let union_same = |a: &Union, b: &Union| {
            a.size == b.size
                && a.views.len() == b.views.len()
                && a.views.iter().zip(&b.views).all(|(x, y)| {
                    x.name == y.name
                        && x.select == y.select
                        && self.old_type(&x.ty) == self.new_type(&y.ty)
                })
        };
        let found = renames(pair(&o.unions, &n.unions, same_name, |a, b| {
            union_same(a, b)
                || (a.size == b.size && self.used_alike(TypeKind::Union, &a.name, &b.name))
        }));
        self.r.unions.extend(found);
        let arm_same = |a: &Arm, b: &Arm| {
            a.full_preamble == b.full_preamble
                && a.layouts.len() == b.layouts.len()
                && a.layouts.iter().zip(&b.layouts).all(|(x, y)| {
                    let own = |l: &Layout| -> Vec<Field> { json::own_fields(l).cloned().collect() };
                    self.fields_same(&own(x), &own(y))
                })
        };
        // An arm the same opcodes select under a new name is that arm renamed, even when its
        // layout changed too: the layout is then compared, not removed and added whole.
        let bound = |m: &Model, a: &Arm| -> BTreeSet<(String, Option<(u32, String)>)> {
            let id = m.arm_named(&a.name);
            m.bindings.iter().filter(|b| Some(b.arm) == id).map(|b| bind_name_key(m, b)).collect()
        };
        let same_bindings = |a: &Arm, b: &Arm| {
            let x = bound(o, a);
            !x.is_empty() && x == bound(n, b)
        };
        let found = renames(pair(&o.arms, &n.arms, same_name, |a, b| {
            arm_same(a, b) || same_bindings(a, b)
        }));
        self.r.arms.extend(found);
        let found = renames(pair(&o.geometry, &n.geometry, same_name, |a, b| self.geom_same(a, b)));
        self.r.geoms.extend(found);
    }

    /// Whether the fields naming old type `a` are those naming new type `b`, and some do.
    fn used_alike(&self, kind: TypeKind, a: &str, b: &str) -> bool {
        let x = self.uses(self.o, kind, a, true);
        !x.is_empty() && x == self.uses(self.n, kind, b, false)
    }

    /// Where the type `kind` `name` is used in `m`: (owner, member) of every record
    /// preamble field, arm field, struct field, union view and bit-field naming it (under
    /// arrays too). On the old side (`old`) owners are named as the renames found so far
    /// name them on the new side.
    fn uses(&self, m: &Model, kind: TypeKind, name: &str, old: bool) -> BTreeSet<(String, String)> {
        let owner = |map: &BTreeMap<String, String>, what: &str, o: &str| {
            format!("{what} {}", if old { mapped(map, o) } else { o.to_string() })
        };
        let none = BTreeMap::new();
        // Every (owner, member, type) of the model.
        let mut members: Vec<(String, &String, &FieldType)> = Vec::new();
        let rec = owner(&none, "record", &m.record.name);
        members.extend(m.record.preamble.iter().map(|f| (rec.clone(), &f.name, &f.ty)));
        for a in &m.arms {
            let arm = owner(&none, "arm", &a.name);
            let fields = a.layouts.iter().flat_map(json::own_fields);
            members.extend(fields.map(|f| (arm.clone(), &f.name, &f.ty)));
        }
        for st in &m.structs {
            let o = owner(&self.r.structs, "struct", &st.name);
            members.extend(st.fields.iter().map(|f| (o.clone(), &f.name, &f.ty)));
        }
        for u in &m.unions {
            let o = owner(&self.r.unions, "union", &u.name);
            members.extend(u.views.iter().map(|v| (o.clone(), &v.name, &v.ty)));
        }
        let names = |ty: &FieldType| match (ty.leaf(), kind) {
            (FieldType::Struct(x), TypeKind::Struct) => m[*x].name == name,
            (FieldType::Bits(x), TypeKind::Bits) => m[*x].name == name,
            (FieldType::Enum(x), TypeKind::Enum) => m[*x].name == name,
            (FieldType::Union(x), TypeKind::Union) => m[*x].name == name,
            _ => false,
        };
        let mut out: BTreeSet<(String, String)> = members
            .into_iter()
            .filter(|(_, _, t)| names(t))
            .map(|(o, f, _)| (o, f.clone()))
            .collect();
        if kind == TypeKind::Enum {
            if m[m.record.discriminant.ty].name == name {
                out.insert((rec, "discriminant".into()));
            }
            for b in &m.bits {
                let of_enum = |f: &&BitField| matches!(f.ty, BitType::Enum(e) if m[e].name == name);
                let alts = b.alts.iter().flat_map(|a| &a.fields);
                for f in b.fields.iter().chain(alts).filter(of_enum) {
                    out.insert((owner(&self.r.bits, "bits", &b.name), f.name.clone()));
                }
            }
        }
        out
    }

    fn fields_same(&self, a: &[Field], b: &[Field]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                x.name == y.name
                    && x.offset == y.offset
                    && x.size == y.size
                    && self.old_type(&x.ty) == self.new_type(&y.ty)
            })
    }

    fn struct_same(&self, a: &Struct, b: &Struct) -> bool {
        a.is_group == b.is_group && a.size == b.size && self.fields_same(&a.fields, &b.fields)
    }

    fn geom_same(&self, a: &GeomItem, b: &GeomItem) -> bool {
        let def = match (&a.kind, &b.kind) {
            (GeomKind::Value(x), GeomKind::Value(y)) => {
                json::geom_type_str(self.o, x) == json::geom_type_str(self.n, y)
            }
            (GeomKind::Derived(x, e), GeomKind::Derived(y, f)) => {
                json::geom_type_str(self.o, x) == json::geom_type_str(self.n, y)
                    && self.old_expr(e, &[]) == self.new_expr(f, &[])
            }
            (
                GeomKind::Rule { params: p, expr: e, .. },
                GeomKind::Rule { params: q, expr: f, .. },
            ) => p == q && self.old_expr(e, p) == self.new_expr(f, q),
            _ => false,
        };
        if !def {
            return false;
        }
        let (ga, gb) = (self.o.geom_named(&a.name), self.n.geom_named(&b.name));
        let (Some(ga), Some(gb)) = (ga, gb) else { return false };
        let mut any = false;
        for oa in &self.o.archs {
            let Some(nb) = self.n.arch_named(&mapped(&self.r.archs, &oa.name)) else { continue };
            let nb = &self.n[nb];
            any = true;
            if oa.value(ga).map(|v| &v.value) != nb.value(gb).map(|v| &v.value) {
                return false;
            }
        }
        any || matches!(a.kind, GeomKind::Rule { .. })
    }

    // --- metadata ------------------------------------------------------------------

    /// docs, sources, confidence, waiver (metadata) and @archs (widening additive,
    /// narrowing breaking).
    pub(super) fn meta(&mut self, path: &[Segment], a: &Meta, b: &Meta) {
        if self.skip_meta {
            return;
        }
        let at = At { path, os: a.span, ns: b.span };
        let m = Class::Metadata;
        // A member that states no `@source` (or `@confidence`) of its own shows its item's;
        // a change there is the item's, reported once at the item.
        let (follows_sources, follows_confidence) = match self.parents.last() {
            Some((pa, pb)) => (
                a.sources == pa.sources && b.sources == pb.sources,
                a.confidence == pa.confidence && b.confidence == pb.confidence,
            ),
            None => (false, false),
        };
        // Re-wrapped docs say the same: no change.
        if !same_prose(&a.docs, &b.docs) {
            self.change(&at, m, Aspect::Docs, lines(&a.docs), lines(&b.docs));
        }
        if !follows_sources {
            self.differ(&at, m, Aspect::Sources, &a.sources, &b.sources, |v| lines(v));
        }
        if !follows_confidence {
            let show = |c: Confidence| text(c.as_str());
            self.differ(&at, m, Aspect::Confidence, a.confidence, b.confidence, show);
        }
        self.differ(&at, m, Aspect::Waiver, &a.waiver, &b.waiver, opt_text);
        if (a.archs.is_some() || b.archs.is_some()) && !self.skip_archs {
            let (sa, sb) = (self.old_arch_names(&a.archs), self.new_arch_names(&b.archs));
            // Judged on the generations both sides have: one added or removed is reported
            // once, at the arch, not again at every item an open range (`cayman..`) or no
            // `@archs` extends to it.
            let both: BTreeSet<String> = self
                .old_arch_names(&None)
                .intersection(&self.new_arch_names(&None))
                .cloned()
                .collect();
            let (ca, cb): (BTreeSet<_>, BTreeSet<_>) =
                (sa.intersection(&both).collect(), sb.intersection(&both).collect());
            if ca != cb {
                let class = if ca.is_subset(&cb) { Class::Additive } else { Class::Breaking };
                let va = names_val(&a.archs.as_ref().map(|_| self.in_generation_order(&sa)));
                let vb = names_val(&b.archs.as_ref().map(|_| self.in_generation_order(&sb)));
                self.change(&at, class, Aspect::Archs, va, vb);
            }
        }
    }

    // --- layouts -------------------------------------------------------------------

    /// Compare two flattened layouts (a record's preamble, a struct, a group, an arm).
    pub(super) fn layout(&mut self, path: &[Segment], of: &[Field], nf: &[Field]) {
        let (o, n) = (self.o, self.n);
        let mut skip_o = vec![false; of.len()];
        let mut skip_n = vec![false; nf.len()];
        let (uo, un) = (uses(of), uses(nf));
        let same_group = |a: &Use<'_>, b: &Use<'_>| self.tname(&o[a.group].name) == n[b.group].name;
        let pairs: Vec<(usize, usize)> = {
            let p = pair(
                &uo,
                &un,
                |a, b| same_group(a, b) && a.prefix == b.prefix,
                |a, b| same_group(a, b) && a.base == b.base,
            );
            p.into_iter()
                .filter_map(|x| match x {
                    Pair::Both(a, b) | Pair::Renamed(a, b) => {
                        let ia = uo.iter().position(|u| std::ptr::eq(u, a)).expect("from uo");
                        let ib = un.iter().position(|u| std::ptr::eq(u, b)).expect("from un");
                        Some((ia, ib))
                    }
                    _ => None,
                })
                .collect()
        };
        for (ia, ib) in pairs {
            let (a, b) = (&uo[ia], &un[ib]);
            for &i in &a.members {
                skip_o[i] = true;
            }
            for &j in &b.members {
                skip_n[j] = true;
            }
            let up = sub(path, SegKind::Use, json::use_name(&n[b.group].name, &b.prefix));
            let at = At { path: &up, os: a.meta.span, ns: b.meta.span };
            self.differ(&at, Class::Breaking, Aspect::Offset, a.base, b.base, num);
            if a.prefix != b.prefix {
                let (pa, pb) = (opt_text(&a.prefix), opt_text(&b.prefix));
                let note = Some("renames the group's fields; no byte moves".into());
                self.change_noted(&at, Class::Metadata, Aspect::Prefix, pa, pb, note);
            }
            self.meta(&up, a.meta, b.meta);
        }

        let res_o: BTreeSet<u32> =
            of.iter().filter(|f| f.is_reserved()).flat_map(Field::range).collect();
        let res_n: BTreeSet<u32> =
            nf.iter().filter(|f| f.is_reserved()).flat_map(Field::range).collect();
        let rest_o: Vec<&Field> =
            of.iter().enumerate().filter(|(i, _)| !skip_o[*i]).map(|(_, f)| f).collect();
        let rest_n: Vec<&Field> =
            nf.iter().enumerate().filter(|(i, _)| !skip_n[*i]).map(|(_, f)| f).collect();
        let named_o: Vec<&Field> = rest_o.iter().copied().filter(|f| !f.is_reserved()).collect();
        let named_n: Vec<&Field> = rest_n.iter().copied().filter(|f| !f.is_reserved()).collect();
        let twin = |a: &&Field, b: &&Field| {
            a.offset == b.offset && a.size == b.size && self.old_type(&a.ty) == self.new_type(&b.ty)
        };
        // A named field that took or left reserved bytes.
        let note = |s: Side<'a>, f: &&Field| {
            let (now, why) = if s.old {
                (&res_n, "its bytes are reserved now")
            } else {
                (&res_o, "carved out of reserved bytes")
            };
            f.range().all(|x| now.contains(&x)).then(|| why.to_string())
        };
        self.walk_noted(
            pair(&named_o, &named_n, same_name, twin),
            |_, f| sub(path, SegKind::Field, &f.name),
            |s, f| json::field_val(s.m, f),
            note,
            |this, at, a, b| this.field(at, a, b),
        );
        let res_fo: Vec<&Field> = rest_o.iter().copied().filter(|f| f.is_reserved()).collect();
        let res_fn: Vec<&Field> = rest_n.iter().copied().filter(|f| f.is_reserved()).collect();
        // Reserved runs: the same bytes (perhaps renamed), else the same name (grown or
        // shrunk because a neighbour changed, which the neighbour reports).
        for p in pair(&res_fo, &res_fn, |a, b| a.range() == b.range(), |a, b| a.name == b.name) {
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let fp = sub(path, SegKind::Field, &b.name);
                    if a.name != b.name {
                        self.renamed(fp.clone(), &a.name, a.meta.span, &b.name, b.meta.span);
                    }
                    self.meta(&fp, &a.meta, &b.meta);
                }
                // A reserved run whose bytes stay reserved but are split differently.
                Pair::Old(a) if a.range().all(|x| res_n.contains(&x)) => self.removed(
                    Class::Metadata,
                    sub(path, SegKind::Field, &a.name),
                    json::field_val(o, a),
                    a.meta.span,
                    Some("the bytes stay reserved".into()),
                ),
                Pair::New(b) if b.range().all(|x| res_o.contains(&x)) => self.added(
                    Class::Metadata,
                    sub(path, SegKind::Field, &b.name),
                    json::field_val(n, b),
                    b.meta.span,
                    Some("the bytes were reserved already".into()),
                ),
                // Bytes that changed hands are reported by the named fields that took or left them.
                Pair::Old(_) | Pair::New(_) => {}
            }
        }
    }

    /// Two fields matched by name (or rename).
    fn field(&mut self, at: &At<'_>, a: &Field, b: &Field) {
        self.differ(at, Class::Breaking, Aspect::Offset, a.offset, b.offset, num);
        let (ta, tb) = (self.old_type(&a.ty), self.new_type(&b.ty));
        if ta != tb {
            let resize = match (&a.ty, &b.ty) {
                (FieldType::Array(x, _), FieldType::Array(y, _)) => {
                    self.old_type(x) == self.new_type(y)
                }
                (FieldType::Prim(x), FieldType::Prim(y)) => x.signed() == y.signed(),
                (FieldType::Unknown(_), FieldType::Unknown(_)) => true,
                _ => false,
            };
            if resize && a.size != b.size {
                let note = Some(format!("{ta} → {tb}"));
                self.change_noted(
                    at,
                    Class::Breaking,
                    Aspect::Size,
                    num(a.size),
                    num(b.size),
                    note,
                );
            } else {
                let note = (a.size != b.size).then(|| format!("{} → {} bytes", a.size, b.size));
                self.change_noted(at, Class::Breaking, Aspect::Type, text(ta), text(tb), note);
            }
        }
        let pa = json::placement_text(self.o, a, &|s| self.tname(s));
        let pb = json::placement_text(self.n, b, &|s| s.to_string());
        self.differ(at, Class::Metadata, Aspect::Placement, pa, pb, text);
    }

    // --- items ---------------------------------------------------------------------

    fn records(&mut self) {
        let (o, n) = (self.o, self.n);
        self.walk(
            pair(
                std::slice::from_ref(&o.record),
                std::slice::from_ref(&n.record),
                same_name,
                |_, _| true,
            ),
            |_, r| vec![seg(SegKind::Record, &r.name)],
            |s, r| json::record_val(s.m, r),
            |this, at, a, b| {
                this.differ(at, Class::Breaking, Aspect::Size, a.size, b.size, num);
                let ea = mapped(&this.r.enums, &o[a.discriminant.ty].name);
                let da = format!("{} {}", a.discriminant.offset, ea);
                let db = format!("{} {}", b.discriminant.offset, n[b.discriminant.ty].name);
                this.differ(at, Class::Breaking, Aspect::Discriminant, da, db, text);
                let (pa, pb) = (a.preamble_size, b.preamble_size);
                this.differ(at, Class::Breaking, Aspect::PreambleSize, pa, pb, num);
                let ea = a.engines.map(|v| o[v].name.clone());
                let eb = b.engines.map(|v| n[v].name.clone());
                this.differ(at, Class::Metadata, Aspect::Engines, &ea, &eb, opt_text);
                // Every arm begins with the preamble: any layout change there is breaking.
                let start = this.out.len();
                this.layout(at.path, &a.preamble, &b.preamble);
                for c in &mut this.out[start..] {
                    if c.class == Class::Additive {
                        c.class = Class::Breaking;
                    }
                }
            },
        );
    }

    fn structs(&mut self) {
        let (o, n) = (self.o, self.n);
        let kind = |group: bool| if group { SegKind::Group } else { SegKind::Struct };
        self.walk(
            pair(&o.structs, &n.structs, same_name, known(&self.r.structs)),
            |_, s| vec![seg(kind(s.is_group), &s.name)],
            |s, x| json::struct_val(s.m, x),
            |this, at, a, b| {
                let form = |group| text(kind(group).as_str());
                this.differ(at, Class::Breaking, Aspect::Form, a.is_group, b.is_group, form);
                this.differ(at, Class::Breaking, Aspect::Size, a.size, b.size, num);
                this.layout(at.path, &a.fields, &b.fields);
            },
        );
    }

    fn arms(&mut self) {
        let (o, n) = (self.o, self.n);
        self.walk(
            pair(&o.arms, &n.arms, same_name, known(&self.r.arms)),
            |_, a| vec![seg(SegKind::Arm, &a.name)],
            |s, a| json::arm_val(s.m, s.m.arm_named(&a.name).expect("own arm")),
            |this, at, a, b| {
                let (fa, fb) = (a.full_preamble, b.full_preamble);
                let show = |full: bool| text(if full { "whole" } else { "partial" });
                this.differ(at, Class::Breaking, Aspect::Preamble, fa, fb, show);
                this.arm_layouts(at.path, a, b);
            },
        );
    }

    /// The layouts of two matched arms. When both are one layout for every generation,
    /// their fields are compared once. Otherwise each generation of the new spec is
    /// compared with the same generation of the old (a generation new on one side has
    /// nothing to compare with); a change every generation shares is reported once, the
    /// others once each under `layout GENS`, the generations it holds on.
    fn arm_layouts(&mut self, path: &[Segment], a: &Arm, b: &Arm) {
        let own = |l: &Layout| -> Vec<Field> { json::own_fields(l).cloned().collect() };
        let skip = std::mem::replace(&mut self.skip_archs, true);
        if !a.is_per_generation() && !b.is_per_generation() {
            self.layout(path, &own(&a.layouts[0]), &own(&b.layouts[0]));
            self.skip_archs = skip;
            return;
        }
        // Each change with the generations it holds on, so that one edit of a member
        // several generations share is one change, whatever else differs between them.
        let mut compared: Vec<ArchId> = Vec::new();
        let mut found: Vec<(Change, Vec<ArchId>)> = Vec::new();
        for nb in self.n.arch_ids() {
            let Some(oa) = self.old_arch(nb) else { continue };
            if !a.meta.available_on(oa) || !b.meta.available_on(nb) {
                continue;
            }
            compared.push(nb);
            let start = self.out.len();
            self.layout(path, &own(a.layout_on(oa)), &own(b.layout_on(nb)));
            for c in self.out.drain(start..).collect::<Vec<_>>() {
                match found.iter_mut().find(|(x, _)| *x == c) {
                    Some((_, archs)) => archs.push(nb),
                    None => found.push((c, vec![nb])),
                }
            }
        }
        self.skip_archs = skip;
        // What every generation shares is reported once; the rest under its generations.
        let mut common = Vec::new();
        for (mut c, archs) in found {
            if archs == compared {
                common.push(c);
            } else {
                let gens = json::arch_list_text(self.n, &archs);
                c.path.insert(path.len(), seg(SegKind::Layout, gens));
                self.out.push(c);
            }
        }
        self.out.extend(common);
    }

    fn unions(&mut self) {
        let (o, n) = (self.o, self.n);
        self.walk(
            pair(&o.unions, &n.unions, same_name, known(&self.r.unions)),
            |_, u| vec![seg(SegKind::Union, &u.name)],
            |s, u| json::union_val(s.m, u),
            |this, at, a, b| {
                this.differ(at, Class::Breaking, Aspect::Size, a.size, b.size, num);
                let views = pair(&a.views, &b.views, same_name, |x, y| {
                    x.select == y.select && this.old_type(&x.ty) == this.new_type(&y.ty)
                });
                this.walk(
                    views,
                    |_, v| sub(at.path, SegKind::View, &v.name),
                    |s, v| json::view_val(s.m, v),
                    |this, at, x, y| {
                        let (ta, tb) = (this.old_type(&x.ty), this.new_type(&y.ty));
                        this.differ(at, Class::Breaking, Aspect::Type, ta, tb, text);
                        let (sa, sb) = (json::select_text(&x.select), json::select_text(&y.select));
                        this.differ(at, Class::Breaking, Aspect::Predicate, sa, sb, text);
                    },
                );
            },
        );
    }

    fn vocabs(&mut self) {
        let (o, n) = (self.o, self.n);
        self.walk(
            pair(&o.vocabs, &n.vocabs, same_name, |_, _| false),
            |_, v| vec![seg(SegKind::Vocab, &v.name)],
            |s, v| json::vocab_val(s.m, v),
            |this, at, a, b| {
                this.walk(
                    pair(&a.words, &b.words, same_name, |_, _| false),
                    |_, w| sub(at.path, SegKind::Word, &w.name),
                    |s, w| json::word_val(s.m, w),
                    |_, _, _, _| {},
                );
            },
        );
    }

    fn bitfields(&mut self, path: &[Segment], a: &[BitField], b: &[BitField]) {
        let (o, n) = (self.o, self.n);
        self.walk(
            pair(a, b, same_name, |x, y| x.lo == y.lo && x.hi == y.hi),
            |_, f| sub(path, SegKind::Bitfield, &f.name),
            |s, f| json::bitfield_val(s.m, f),
            |this, at, x, y| {
                let range = |(lo, hi): (u32, u32)| text(format!("{lo}..{hi}"));
                this.differ(at, Class::Breaking, Aspect::Range, (x.lo, x.hi), (y.lo, y.hi), range);
                let ta = match x.ty {
                    BitType::Enum(e) => this.tname(&o[e].name),
                    t => json::bit_type_str(o, t),
                };
                let tb = json::bit_type_str(n, y.ty);
                this.differ(at, Class::Breaking, Aspect::Type, ta, tb, text);
            },
        );
    }

    fn bits(&mut self) {
        let (o, n) = (self.o, self.n);
        self.walk(
            pair(&o.bits, &n.bits, same_name, known(&self.r.bits)),
            |_, b| vec![seg(SegKind::Bits, &b.name)],
            |s, b| json::bits_val(s.m, b),
            |this, at, a, b| {
                this.differ(at, Class::Breaking, Aspect::Width, a.width, b.width, |w| {
                    text(w.as_str())
                });
                this.bitfields(at.path, &a.fields, &b.fields);
                this.alts(at.path, a, b);
            },
        );
    }

    /// The alts of two matched bits types.
    fn alts(&mut self, path: &[Segment], a: &Bits, b: &Bits) {
        let pred = |bits: &Bits, p: &Option<Predicate>| {
            p.as_ref()
                .map(|p| (bits.fields.get(p.field as usize).map(|f| (f.lo, f.hi)), p.mask, p.value))
        };
        let twin = |x: &Alt, y: &Alt| pred(a, &x.when) == pred(b, &y.when) && alt_fields_same(x, y);
        self.walk(
            pair(&a.alts, &b.alts, same_name, twin),
            |_, x| sub(path, SegKind::Alt, &x.name),
            |s, x| json::alt_val(s.m, if s.old { a } else { b }, x),
            |this, at, x, y| {
                if pred(a, &x.when) != pred(b, &y.when) {
                    let pa = text(json::predicate_text(a, &x.when));
                    let pb = text(json::predicate_text(b, &y.when));
                    this.change(at, Class::Breaking, Aspect::Predicate, pa, pb);
                }
                this.bitfields(at.path, &x.fields, &y.fields);
            },
        );
    }

    fn enums(&mut self) {
        let (o, n) = (self.o, self.n);
        self.walk(
            pair(&o.enums, &n.enums, same_name, known(&self.r.enums)),
            |_, e| vec![seg(SegKind::Enum, &e.name)],
            |s, e| json::enum_val(s.m, e),
            |this, at, a, b| {
                this.differ(at, Class::Breaking, Aspect::Width, a.width, b.width, |w| {
                    text(w.as_str())
                });
                // The opcode table's own `@status` and `@engine` are its values' defaults:
                // an edit of them is one change, here, as an inherited `@confidence` is
                // (their texts are the values' too).
                let status = |v: Option<Status>| v.map_or_else(none, |s| text(s.as_str()));
                let words = |v: Vec<String>| Val {
                    json: serde_json::Value::from(v.clone()),
                    text: if v.is_empty() { "none".into() } else { v.join(", ") },
                };
                this.differ(at, Class::Metadata, Aspect::Status, a.status, b.status, status);
                let (ea, eb) = (json::word_names(o, &a.engines), json::word_names(n, &b.engines));
                this.differ(at, Class::Metadata, Aspect::Engines, ea, eb, words);
                this.walk_noted(
                    pair(&a.variants, &b.variants, same_name, |x, y| x.value == y.value),
                    |_, v| sub(at.path, SegKind::Variant, &v.name),
                    |s, v| json::variant_val(s.m, if s.old { a } else { b }, v),
                    |s, v| v.meta.archs.as_ref().map(|l| json::archs_note(s.m, l)),
                    |this, at, x, y| {
                        // The JSON of a changed value is the number, not the variant object.
                        let value = |_: &Model, v: &Variant| Val {
                            json: serde_json::Value::from(v.value),
                            text: v.literal.clone(),
                        };
                        if x.value != y.value {
                            // Its bindings move with it and are not reported again.
                            let bound: Vec<&str> = if json::is_opcode_enum(n, b) {
                                let arms = n.bindings.iter().filter(|k| k.opcode == y.value);
                                arms.map(|k| n[k.arm].name.as_str()).collect()
                            } else {
                                Vec::new()
                            };
                            let note = (!bound.is_empty())
                                .then(|| format!("bound to {}", bound.join(", ")));
                            this.change_noted(
                                at,
                                Class::Breaking,
                                Aspect::Value,
                                value(o, x),
                                value(n, y),
                                note,
                            );
                        }
                        // Opcode table columns: no byte moves, decoders are unaffected. A
                        // value that only follows the table's default on both sides is
                        // reported there, once.
                        if !(x.status == a.status && y.status == b.status) {
                            let (sx, sy) = (x.status, y.status);
                            this.differ(at, Class::Metadata, Aspect::Status, sx, sy, status);
                        }
                        if !(x.engines == a.engines && y.engines == b.engines) {
                            let (ea, eb) = (json::engine_names(o, x), json::engine_names(n, y));
                            this.differ(at, Class::Metadata, Aspect::Engines, ea, eb, words);
                        }
                    },
                );
            },
        );
    }

    fn bands(&mut self) {
        let (o, n) = (self.o, self.n);
        let name = |m: &Model, b: &Band| format!("{}.{}", m[b.enum_id].name, b.name);
        let same = |a: &Band, b: &Band| {
            mapped(&self.r.enums, &o[a.enum_id].name) == n[b.enum_id].name && a.name == b.name
        };
        self.walk(
            pair(&o.bands, &n.bands, same, |_, _| false),
            |s, b| vec![seg(SegKind::Band, name(s.m, b))],
            |s, b| json::band_val(s.m, b),
            |this, at, a, b| {
                if a.ranges != b.ranges {
                    let lost = a
                        .ranges
                        .iter()
                        .any(|&(lo, hi)| !b.ranges.iter().any(|&(l, h)| l <= lo && hi <= h));
                    let class = if lost { Class::Breaking } else { Class::Additive };
                    // The JSON of changed ranges is the `[lo, hi]` pairs, not the band object.
                    let ranges = |m: &Model, b: &Band| Val {
                        json: serde_json::Value::from(
                            b.ranges
                                .iter()
                                .map(|&(l, h)| serde_json::json!([l, h]))
                                .collect::<Vec<_>>(),
                        ),
                        text: json::band_val(m, b).text,
                    };
                    this.change(at, class, Aspect::Ranges, ranges(o, a), ranges(n, b));
                }
            },
        );
    }

    fn bindings(&mut self) {
        let (o, n) = (self.o, self.n);
        let key = |b: &Binding| (b.opcode, b.sub.as_ref().map(|s| (s.offset, s.value)));
        let arms = self.r.arms.clone();
        let arm_o = |b: &Binding| mapped(&arms, &o[b.arm].name);
        // Paired by opcode name, so that a binding follows its opcode to a new value; then
        // by the numbers (a renamed opcode) or the arm.
        let pairs = pair(
            &o.bindings,
            &n.bindings,
            |a, b| bind_name_key(o, a) == bind_name_key(n, b),
            |a, b| key(a) == key(b) || arm_o(a) == n[b.arm].name,
        );
        // A binding whose opcode was removed, or added, is said by that opcode's change
        // (`0x21 => S3D3_AC`): paired by its arm with another opcode's binding (an opcode
        // renamed and renumbered at once is a removal and an addition), it would be
        // said again as a binding given another opcode.
        let said_old = |a: &Binding| said_by_opcode(&self.out, o, a, Kind::Removed);
        let said_new = |b: &Binding| said_by_opcode(&self.out, n, b, Kind::Added);
        let pairs: Vec<Pair<'_, Binding>> = pairs
            .into_iter()
            .flat_map(|p| match p {
                Pair::Renamed(a, b) if said_old(a) || said_new(b) => {
                    vec![Pair::Old(a), Pair::New(b)]
                }
                p => vec![p],
            })
            .filter(|p| match p {
                Pair::Old(a) => !said_old(a),
                Pair::New(b) => !said_new(b),
                _ => true,
            })
            .collect();
        self.walk_noted(
            pairs,
            |s, b| vec![seg(SegKind::Bind, json::bind_name(s.m, b))],
            |s, b| json::binding_val(s.m, b),
            |s, b| b.meta.archs.as_ref().map(|l| json::archs_note(s.m, l)),
            |this, at, a, b| {
                // A binding that only moved with its opcode's value: the value change, at
                // the opcode, says it once.
                let moved = bind_name_key(o, a) == bind_name_key(n, b);
                if key(a) != key(b) && !moved {
                    let k = |m: &Model, b: &Binding| Val {
                        json: json::bind_key_json(b),
                        text: json::bind_key_text(m, b),
                    };
                    // The path names the binding by its new opcode: the note says which
                    // arm it selects, as an opcode's value change does.
                    let note = Some(format!("selects {}", n[b.arm].name));
                    this.change_noted(at, Class::Breaking, Aspect::Opcode, k(o, a), k(n, b), note);
                }
                if arm_o(a) != n[b.arm].name {
                    let (aa, ab) = (text(&o[a.arm].name), text(&n[b.arm].name));
                    this.change(at, Class::Breaking, Aspect::Arm, aa, ab);
                }
                // A mnemonic of its own given, changed or taken away; one that follows a
                // name follows its rename, reported at the name.
                if (a.own_mnemonic || b.own_mnemonic) && a.mnemonic != b.mnemonic {
                    let (ma, mb) = (text(&a.mnemonic), text(&b.mnemonic));
                    this.change(at, Class::Metadata, Aspect::Mnemonic, ma, mb);
                }
            },
        );
    }

    fn sentinels(&mut self) {
        let (o, n) = (self.o, self.n);
        let key = |m: &Model, s: &Sentinel| {
            let b = &m[s.binding];
            (b.opcode, b.sub.as_ref().map(|s| (s.offset, s.value)))
        };
        self.walk(
            pair(&o.sentinels, &n.sentinels, same_name, |a, b| key(o, a) == key(n, b)),
            |_, s| vec![seg(SegKind::Sentinel, &s.name)],
            |s, x| json::sentinel_val(s.m, x),
            |this, at, a, b| {
                // Another binding only when both its numbers and its names differ: an
                // opcode that moved or was renamed is reported at the opcode.
                let (ba, bb) = (&o[a.binding], &n[b.binding]);
                if key(o, a) != key(n, b) && bind_name_key(o, ba) != bind_name_key(n, bb) {
                    let ba = text(json::bind_name(o, &o[a.binding]));
                    let bb = text(json::bind_name(n, &n[b.binding]));
                    this.change(at, Class::Breaking, Aspect::Binding, ba, bb);
                }
            },
        );
    }

    fn bitmasks(&mut self) {
        let (o, n) = (self.o, self.n);
        self.walk(
            pair(&o.bitmasks, &n.bitmasks, same_name, |_, _| false),
            |_, b| vec![seg(SegKind::Bitmask, &b.name)],
            |s, b| json::bitmask_val(s.m, b),
            |this, at, a, b| {
                if mapped(&this.r.enums, &o[a.enum_id].name) != n[b.enum_id].name {
                    let (ea, eb) = (text(&o[a.enum_id].name), text(&n[b.enum_id].name));
                    this.change(at, Class::Breaking, Aspect::Enum, ea, eb);
                }
                if a.words != b.words {
                    let words = |w: &[u64]| Val {
                        json: serde_json::Value::from(w.to_vec()),
                        text: json::words_text(w),
                    };
                    let note = bits_note(&o[a.enum_id], &a.words, &n[b.enum_id], &b.words);
                    let (wa, wb) = (words(&a.words), words(&b.words));
                    this.change_noted(at, Class::Breaking, Aspect::Words, wa, wb, Some(note));
                }
            },
        );
    }

    fn apertures(&mut self) {
        let (o, n) = (self.o, self.n);
        self.walk(
            pair(&o.apertures, &n.apertures, same_name, |_, _| false),
            |_, a| vec![seg(SegKind::Aperture, &a.name)],
            |s, a| json::aperture_val(s.m, a),
            |this, at, a, b| {
                this.walk(
                    pair(&a.regions, &b.regions, same_name, |x, y| {
                        x.base == y.base && x.size == y.size
                    }),
                    |_, r| sub(at.path, SegKind::Region, &r.name),
                    |s, r| json::region_val(s.m, r),
                    |this, at, x, y| {
                        let hex = |v: u64| Val {
                            json: serde_json::Value::from(v),
                            text: json::int_text(v.into()),
                        };
                        this.differ(at, Class::Breaking, Aspect::Base, x.base, y.base, hex);
                        this.differ(at, Class::Breaking, Aspect::Size, x.size, y.size, hex);
                    },
                );
            },
        );
    }

    fn geometry(&mut self) {
        let (o, n) = (self.o, self.n);
        let ty = |m: &Model, t: &GeomType| json::geom_type_str(m, t);
        // Rule parameters, one list: `a, b`.
        let params = |p: &[String]| {
            let mut v = lines(p);
            v.text = v.text.replace('\n', ", ");
            v
        };
        self.walk(
            pair(&o.geometry, &n.geometry, same_name, known(&self.r.geoms)),
            |_, g| vec![seg(SegKind::Geometry, &g.name)],
            |s, g| json::geom_val(s.m, g),
            |this, at, a, b| match (&a.kind, &b.kind) {
                (GeomKind::Value(x), GeomKind::Value(y)) => {
                    this.differ(at, Class::Breaking, Aspect::Type, ty(o, x), ty(n, y), text);
                }
                (GeomKind::Derived(x, e), GeomKind::Derived(y, f)) => {
                    this.differ(at, Class::Breaking, Aspect::Type, ty(o, x), ty(n, y), text);
                    let (ea, eb) = (this.old_expr(e, &[]), this.new_expr(f, &[]));
                    // The expression is the values' derivation, written in the docs: a
                    // rewrite that moves no generation's value (`a * 2` as `a + a`) is
                    // metadata; one that moves a value is breaking, and each moved value
                    // is said apart.
                    let class = if this.values_kept(&a.name, &b.name) {
                        Class::Metadata
                    } else {
                        Class::Breaking
                    };
                    this.differ(at, class, Aspect::Expr, ea, eb, text);
                }
                (
                    GeomKind::Rule { params: pa, expr: ea, requires: ra },
                    GeomKind::Rule { params: pb, expr: eb, requires: rb },
                ) => {
                    this.differ(at, Class::Breaking, Aspect::Params, &pa[..], &pb[..], params);
                    let (xa, xb) = (this.old_expr(ea, pa), this.new_expr(eb, pb));
                    this.differ(at, Class::Breaking, Aspect::Expr, xa, xb, text);
                    let qa = json::requires_str(o, ra, pa, &|s| mapped(&this.r.geoms, s));
                    let qb = json::requires_str(n, rb, pb, &|s| s.to_string());
                    this.differ(at, Class::Breaking, Aspect::Requires, qa, qb, text);
                }
                _ => this.change(
                    at,
                    Class::Breaking,
                    Aspect::Form,
                    text(json::form(a)),
                    text(json::form(b)),
                ),
            },
        );
    }

    /// Whether geometry item `old` keeps its value as `new` on every generation both
    /// sides have (a generation's renames followed); values unknown on both stay kept.
    fn values_kept(&self, old: &str, new: &str) -> bool {
        let (o, n) = (self.o, self.n);
        let (Some(og), Some(ng)) = (o.geom_named(old), n.geom_named(new)) else {
            return false;
        };
        o.arch_ids().all(|oa| {
            let Some(na) = n.arch_named(&mapped(&self.r.archs, &o[oa].name)) else {
                return true;
            };
            o[oa].value(og).map(|v| &v.value) == n[na].value(ng).map(|v| &v.value)
        })
    }

    fn archs(&mut self) {
        let (o, n) = (self.o, self.n);
        // Geometry items present on both sides, as (old id, new id); and the added ones.
        let mut common: Vec<(GeomId, GeomId)> = Vec::new();
        let mut added: Vec<GeomId> = Vec::new();
        for g in n.geom_ids() {
            let old_name = self
                .r
                .geoms
                .iter()
                .find(|(_, v)| **v == n[g].name)
                .map_or(n[g].name.as_str(), |(k, _)| k.as_str());
            match o.geom_named(old_name) {
                Some(og) => common.push((og, g)),
                None => added.push(g),
            }
        }
        self.walk(
            pair(&o.archs, &n.archs, same_name, known(&self.r.archs)),
            |_, a| vec![seg(SegKind::Arch, &a.name)],
            |s, a| json::arch_val(s.m, s.m.arch_named(&a.name).expect("own arch")),
            |this, at, a, b| {
                let (ga, gb) = (a.generation, b.generation);
                this.differ(at, Class::Breaking, Aspect::Generation, ga, gb, num);
                this.differ(at, Class::Metadata, Aspect::Label, &a.label, &b.label, text);
                let list = |v: &[String]| Val {
                    json: serde_json::Value::from(v.to_vec()),
                    text: v.join(", "),
                };
                let (la, lb) = (&a.aliases[..], &b.aliases[..]);
                this.differ(at, Class::Metadata, Aspect::Aliases, la, lb, list);
                let ia = a.inherits.map(|p| mapped(&this.r.archs, &o[p].name));
                let ib = b.inherits.map(|p| n[p].name.clone());
                if ia != ib {
                    let v =
                        |x: Option<ArchId>, m: &Model| x.map_or_else(none, |p| text(&m[p].name));
                    let (va, vb) = (v(a.inherits, o), v(b.inherits, n));
                    this.change(at, Class::Metadata, Aspect::Inherits, va, vb);
                }
                let (aid, bid) = (
                    o.arch_named(&a.name).expect("own arch"),
                    n.arch_named(&b.name).expect("own arch"),
                );
                if a.geometry_known != b.geometry_known {
                    let known = |k: bool| text(if k { "known" } else { "unknown" });
                    let (ka, kb) = (a.geometry_known, b.geometry_known);
                    let class = if kb { Class::Additive } else { Class::Breaking };
                    this.change(at, class, Aspect::Geometry, known(ka), known(kb));
                }
                if !b.geometry_known {
                    // Every value is lost: the line above says it once.
                    return;
                }
                for &(og, ng) in &common {
                    this.arch_value(at.path, (aid, og), (bid, ng));
                }
                for &g in &added {
                    if let Some(v) = b.value(g) {
                        let note = value_note(n, bid, g, v);
                        this.added(
                            Class::Additive,
                            sub(at.path, SegKind::Value, &n[g].name),
                            json::arch_value_val(n, g, v),
                            v.meta.span,
                            note,
                        );
                    }
                }
            },
        );
    }

    /// One geometry value of a pair of matched archs.
    fn arch_value(
        &mut self,
        path: &[Segment],
        (oa, og): (ArchId, GeomId),
        (na, ng): (ArchId, GeomId),
    ) {
        let (o, n) = (self.o, self.n);
        if matches!(n[ng].kind, GeomKind::Rule { .. }) {
            return;
        }
        let vp = sub(path, SegKind::Value, &n[ng].name);
        match (o[oa].value(og), n[na].value(ng)) {
            (None, None) => {}
            (Some(a), None) => {
                let note = value_note(o, oa, og, a);
                self.removed(
                    Class::Breaking,
                    vp,
                    json::arch_value_val(o, og, a),
                    a.meta.span,
                    note,
                );
            }
            (None, Some(b)) => {
                let note = value_note(n, na, ng, b);
                self.added(Class::Additive, vp, json::arch_value_val(n, ng, b), b.meta.span, note);
            }
            (Some(a), Some(b)) => {
                let at = At { path: &vp, os: a.meta.span, ns: b.meta.span };
                if a.value != b.value {
                    let class = if only_learned(&a.value, &b.value) {
                        Class::Additive
                    } else {
                        Class::Breaking
                    };
                    let old =
                        Val { json: json::value_json(&a.value), text: json::arch_value_text(a) };
                    let new =
                        Val { json: json::value_json(&b.value), text: json::arch_value_text(b) };
                    let note = value_note(n, na, ng, b).or_else(|| {
                        // A value of its own arch file whose sources stayed as they were:
                        // quoted, so that a reviewer sees whether they still say it.
                        let own = b.defined_in == na
                            && mapped(&self.r.archs, &o[a.defined_in].name) == n[na].name;
                        (own && !b.meta.sources.is_empty() && a.meta.sources == b.meta.sources)
                            .then(|| format!("sources unchanged: {}", b.meta.sources.join("; ")))
                    });
                    self.change_noted(&at, class, Aspect::Value, old, new, note);
                }
                let derived = matches!(n[ng].kind, GeomKind::Derived(..));
                let own_a = mapped(&self.r.archs, &o[a.defined_in].name) == n[na].name;
                let own_b = b.defined_in == na;
                if own_a != own_b
                    || (!own_a
                        && mapped(&self.r.archs, &o[a.defined_in].name) != n[b.defined_in].name)
                {
                    let (da, db) = (text(&o[a.defined_in].name), text(&n[b.defined_in].name));
                    self.change(&at, Class::Metadata, Aspect::DefinedIn, da, db);
                } else if own_a && derived && a.stated != b.stated {
                    let s = |x: bool| text(if x { "stated" } else { "computed" });
                    self.change(&at, Class::Metadata, Aspect::Stated, s(a.stated), s(b.stated));
                } else if own_a && (!derived || (a.stated && b.stated)) {
                    self.meta(&vp, &a.meta, &b.meta);
                }
            }
        }
    }
}

/// Whether the addition (or removal) of binding `b` of `m` is said by the same change of
/// its opcode, already in `out`: the opcode's line shows `=> ARM` and its `@archs` are
/// the binding's, so a line for the binding would repeat it.
pub(super) fn said_by_opcode(out: &[Change], m: &Model, b: &Binding, kind: Kind) -> bool {
    let e = &m[m.opcode_enum()];
    let Some(v) = e.variant_of(b.opcode) else { return false };
    b.sub.is_none()
        && v.meta.archs == b.meta.archs
        && json::opcode_arm(m, b.opcode) == Some(m[b.arm].name.as_str())
        && out.iter().any(|c| {
            c.kind == kind
                && matches!(&c.path[..], [x, y] if x.kind == SegKind::Enum && x.name == e.name
                    && y.kind == SegKind::Variant && y.name == v.name)
        })
}

/// A binding as the spec names it: its opcode's name (its value if it has none) and its
/// sub-opcode's offset and name (its value if its enum names none). Stays the same when
/// the opcode's value, or the sub-opcode's, changes: that is one change, at the enum.
fn bind_name_key(m: &Model, b: &Binding) -> (String, Option<(u32, String)>) {
    let op = m[m.opcode_enum()]
        .variant_of(b.opcode)
        .map_or_else(|| b.opcode.to_string(), |v| v.name.clone());
    let sub = b.sub.as_ref().map(|s| {
        let name = s.enum_id.and_then(|e| m[e].variant_of(s.value)).map(|v| v.name.clone());
        (s.offset, name.unwrap_or_else(|| s.value.to_string()))
    });
    (op, sub)
}

/// `inherited from cayman` / `derived` for a value seen on `arch`.
pub(super) fn value_note(m: &Model, arch: ArchId, g: GeomId, v: &ArchValue) -> Option<String> {
    if matches!(m[g].kind, GeomKind::Derived(..)) && !v.stated {
        Some("derived".to_string())
    } else if v.defined_in != arch {
        Some(format!("inherited from {}", m[v.defined_in].name))
    } else {
        None
    }
}

fn alt_fields_same(x: &Alt, y: &Alt) -> bool {
    x.fields.len() == y.fields.len()
        && x.fields
            .iter()
            .zip(&y.fields)
            .all(|(a, b)| a.name == b.name && a.lo == b.lo && a.hi == b.hi)
}

fn bits_same(a: &Bits, b: &Bits) -> bool {
    a.width == b.width
        && a.fields.len() == b.fields.len()
        && a.fields
            .iter()
            .zip(&b.fields)
            .all(|(x, y)| x.name == y.name && x.lo == y.lo && x.hi == y.hi)
        && a.alts.len() == b.alts.len()
        && a.alts
            .iter()
            .zip(&b.alts)
            .all(|(x, y)| x.name == y.name && x.when == y.when && alt_fields_same(x, y))
}

/// The values whose bit is set in `a` and clear in `b` (bit `v & 63` of word `v >> 6`;
/// a word past the end is clear).
fn bits_only_in(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    for (i, w) in a.iter().enumerate() {
        let only = w & !b.get(i).copied().unwrap_or(0);
        out.extend((0..64).filter(|bit| only >> bit & 1 == 1).map(|bit| i as u64 * 64 + bit));
    }
    out
}

/// What a bitmask's new words say of the values: `sets 0xC0 (NAME); clears 0x05 (NAME)`,
/// each value named on the side that has its bit set, at most 8 listed per list.
fn bits_note(ea: &Enum, a: &[u64], eb: &Enum, b: &[u64]) -> String {
    const SHOWN: usize = 8;
    let list = |e: &Enum, values: Vec<u64>| {
        let mut parts: Vec<String> = values
            .iter()
            .take(SHOWN)
            .map(|&v| match e.variants.iter().find(|x| x.value == v) {
                Some(x) => format!("0x{v:02X} ({})", x.name),
                None => format!("0x{v:02X}"),
            })
            .collect();
        if values.len() > SHOWN {
            parts.push(format!("and {} more", values.len() - SHOWN));
        }
        parts.join(", ")
    };
    let (set, cleared) = (bits_only_in(b, a), bits_only_in(a, b));
    let mut out = Vec::new();
    if !set.is_empty() {
        out.push(format!("sets {}", list(eb, set)));
    }
    if !cleared.is_empty() {
        out.push(format!("clears {}", list(ea, cleared)));
    }
    if out.is_empty() {
        // Words only appended or dropped as zero: no value's bit changed.
        out.push("no value's bit changed".to_string());
    }
    out.join("; ")
}
