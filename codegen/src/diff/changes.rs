//! Item-by-item comparison of two models: matching by name, then renames by content,
//! then one [`Change`] per differing aspect.

use std::collections::{BTreeMap, BTreeSet};

use super::json::{self, int, type_str_with};
use super::{Aspect, Change, Class, Kind, SegKind, Segment, Val};
use crate::model::*;
use crate::source::Span;

/// Every change between `o` and `n`, unsorted.
pub(super) fn compare(o: &Model, n: &Model) -> Vec<Change> {
    let mut c = Cmp::new(o, n);
    c.find_renames();
    c.records();
    c.structs();
    c.arms();
    c.bits();
    c.enums();
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
    Bits(BitsId),
    Enum(EnumId),
}

fn mentions(m: &Model, ty: &FieldType, t: Target) -> bool {
    match ty {
        FieldType::Array(inner, _) => mentions(m, inner, t),
        FieldType::Struct(s) => {
            t == Target::Struct(*s) || m[*s].fields.iter().any(|f| field_mentions(m, f, t))
        }
        FieldType::Bits(b) => t == Target::Bits(*b),
        FieldType::Enum(e) => t == Target::Enum(*e),
        FieldType::Prim(_) | FieldType::Reserved(_) => false,
    }
}

fn field_mentions(m: &Model, f: &Field, t: Target) -> bool {
    f.group.as_ref().is_some_and(|g| t == Target::Struct(g.group)) || mentions(m, &f.ty, t)
}

/// Arms whose layout (preamble included) places or contains `t`.
fn reach(m: &Model, t: Target) -> Vec<String> {
    m.arm_ids()
        .filter(|&a| m.arm_fields(a).any(|f| field_mentions(m, f, t)))
        .map(|a| m[a].name.clone())
        .collect()
}

// ---------------------------------------------------------------------------------
// The comparer
// ---------------------------------------------------------------------------------

/// Old name → new name for the items found renamed, per namespace.
#[derive(Default)]
struct Renames {
    structs: BTreeMap<String, String>,
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
        Cmp { o, n, out: Vec::new(), r: Renames::default() }
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

    #[allow(clippy::too_many_arguments)]
    pub(super) fn changed(
        &mut self,
        class: Class,
        path: Vec<Segment>,
        aspect: Aspect,
        old: Val,
        os: Span,
        new: Val,
        ns: Span,
    ) {
        self.emit(class, Kind::Changed, path, Some(aspect), Some((old, os)), Some((new, ns)), None);
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

    /// Give the changes emitted since `start` the arms they reach.
    fn set_reach(&mut self, start: usize, old: Option<Target>, new: Option<Target>) {
        if self.out.len() == start {
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

    fn old_arch_names(&self, archs: &Option<Vec<ArchId>>) -> BTreeSet<String> {
        match archs {
            None => self.o.archs.iter().map(|a| mapped(&self.r.archs, &a.name)).collect(),
            Some(v) => v.iter().map(|id| mapped(&self.r.archs, &self.o[*id].name)).collect(),
        }
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
        for p in
            pair(&o.archs, &n.archs, |a, b| a.name == b.name, |a, b| a.generation == b.generation)
        {
            if let Pair::Renamed(a, b) = p {
                self.r.archs.insert(a.name.clone(), b.name.clone());
            }
        }
        for p in pair(
            &o.enums,
            &n.enums,
            |a, b| a.name == b.name,
            |a, b| {
                a.width == b.width
                    && a.variants.len() == b.variants.len()
                    && a.variants
                        .iter()
                        .zip(&b.variants)
                        .all(|(x, y)| x.name == y.name && x.value == y.value)
            },
        ) {
            if let Pair::Renamed(a, b) = p {
                self.r.enums.insert(a.name.clone(), b.name.clone());
            }
        }
        for p in pair(&o.bits, &n.bits, |a, b| a.name == b.name, bits_same) {
            if let Pair::Renamed(a, b) = p {
                self.r.bits.insert(a.name.clone(), b.name.clone());
            }
        }
        // Structs may contain structs: a second pass sees renames the first found.
        for _ in 0..2 {
            let mut found = Vec::new();
            for p in
                pair(&o.structs, &n.structs, |a, b| a.name == b.name, |a, b| self.struct_same(a, b))
            {
                if let Pair::Renamed(a, b) = p {
                    found.push((a.name.clone(), b.name.clone()));
                }
            }
            self.r.structs.extend(found);
        }
        let mut found = Vec::new();
        for p in pair(
            &o.arms,
            &n.arms,
            |a, b| a.name == b.name,
            |a, b| o[a.record].name == n[b.record].name && self.fields_same(&a.fields, &b.fields),
        ) {
            if let Pair::Renamed(a, b) = p {
                found.push((a.name.clone(), b.name.clone()));
            }
        }
        self.r.arms.extend(found);
        let mut found = Vec::new();
        for p in
            pair(&o.geometry, &n.geometry, |a, b| a.name == b.name, |a, b| self.geom_same(a, b))
        {
            if let Pair::Renamed(a, b) = p {
                found.push((a.name.clone(), b.name.clone()));
            }
        }
        self.r.geoms.extend(found);
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
        let (os, ns) = (a.span, b.span);
        if a.docs != b.docs {
            self.changed(
                Class::Metadata,
                path.to_vec(),
                Aspect::Docs,
                lines(&a.docs),
                os,
                lines(&b.docs),
                ns,
            );
        }
        if a.sources != b.sources {
            self.changed(
                Class::Metadata,
                path.to_vec(),
                Aspect::Sources,
                lines(&a.sources),
                os,
                lines(&b.sources),
                ns,
            );
        }
        if a.confidence != b.confidence {
            self.changed(
                Class::Metadata,
                path.to_vec(),
                Aspect::Confidence,
                text(a.confidence.as_str()),
                os,
                text(b.confidence.as_str()),
                ns,
            );
        }
        if a.waiver != b.waiver {
            let w = |x: &Option<String>| {
                x.clone().map_or_else(
                    || Val { json: serde_json::Value::Null, text: "none".into() },
                    text,
                )
            };
            self.changed(
                Class::Metadata,
                path.to_vec(),
                Aspect::Waiver,
                w(&a.waiver),
                os,
                w(&b.waiver),
                ns,
            );
        }
        if a.archs.is_some() || b.archs.is_some() {
            let (sa, sb) = (self.old_arch_names(&a.archs), self.new_arch_names(&b.archs));
            if sa != sb {
                let class = if sa.is_subset(&sb) { Class::Additive } else { Class::Breaking };
                let va = names_val(&a.archs.as_ref().map(|_| sa.iter().cloned().collect()));
                let vb = names_val(&b.archs.as_ref().map(|_| sb.iter().cloned().collect()));
                self.changed(class, path.to_vec(), Aspect::Archs, va, os, vb, ns);
            }
        }
    }

    // --- layouts -------------------------------------------------------------------

    /// Compare two flattened layouts (a record's preamble, a struct, a group, an arm).
    fn layout(&mut self, path: &[Segment], of: &[Field], nf: &[Field]) {
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
            if a.base != b.base {
                self.changed(
                    Class::Breaking,
                    up.clone(),
                    Aspect::Offset,
                    num(a.base),
                    a.meta.span,
                    num(b.base),
                    b.meta.span,
                );
            }
            if a.prefix != b.prefix {
                let p = |x: &Option<String>| {
                    x.clone().map_or_else(
                        || Val { json: serde_json::Value::Null, text: "none".into() },
                        text,
                    )
                };
                self.emit(
                    Class::Metadata,
                    Kind::Changed,
                    up.clone(),
                    Some(Aspect::Prefix),
                    Some((p(&a.prefix), a.meta.span)),
                    Some((p(&b.prefix), b.meta.span)),
                    Some("renames the group's fields; no byte moves".into()),
                );
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
        for p in pair(&named_o, &named_n, |a, b| a.name == b.name, twin) {
            match p {
                Pair::Both(a, b) => self.field(path, a, b),
                Pair::Renamed(a, b) => {
                    self.renamed(
                        sub(path, SegKind::Field, &b.name),
                        &a.name,
                        a.meta.span,
                        &b.name,
                        b.meta.span,
                    );
                    self.field(path, a, b);
                }
                Pair::Old(a) => {
                    let note = a
                        .range()
                        .all(|x| res_n.contains(&x))
                        .then(|| "its bytes are reserved now".to_string());
                    self.removed(
                        Class::Breaking,
                        sub(path, SegKind::Field, &a.name),
                        json::field_val(o, a),
                        a.meta.span,
                        note,
                    );
                }
                Pair::New(b) => {
                    let note = b
                        .range()
                        .all(|x| res_o.contains(&x))
                        .then(|| "carved out of reserved bytes".to_string());
                    self.added(
                        Class::Additive,
                        sub(path, SegKind::Field, &b.name),
                        json::field_val(n, b),
                        b.meta.span,
                        note,
                    );
                }
            }
        }
        let res_fo: Vec<&Field> = rest_o.iter().copied().filter(|f| f.is_reserved()).collect();
        let res_fn: Vec<&Field> = rest_n.iter().copied().filter(|f| f.is_reserved()).collect();
        // Reserved runs: the same bytes (perhaps renamed), else the same name (grown or
        // shrunk because a neighbour changed, which the neighbour reports).
        for p in pair(&res_fo, &res_fn, |a, b| a.range() == b.range(), |a, b| a.name == b.name) {
            match p {
                Pair::Both(a, b) => {
                    let fp = sub(path, SegKind::Field, &b.name);
                    if a.name != b.name {
                        self.renamed(fp.clone(), &a.name, a.meta.span, &b.name, b.meta.span);
                    }
                    self.meta(&fp, &a.meta, &b.meta);
                }
                Pair::Renamed(a, b) => {
                    self.meta(&sub(path, SegKind::Field, &b.name), &a.meta, &b.meta)
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
    fn field(&mut self, path: &[Segment], a: &Field, b: &Field) {
        let fp = sub(path, SegKind::Field, &b.name);
        let (os, ns) = (a.meta.span, b.meta.span);
        if a.offset != b.offset {
            self.changed(
                Class::Breaking,
                fp.clone(),
                Aspect::Offset,
                num(a.offset),
                os,
                num(b.offset),
                ns,
            );
        }
        let (ta, tb) = (self.old_type(&a.ty), self.new_type(&b.ty));
        if ta != tb {
            let resize = match (&a.ty, &b.ty) {
                (FieldType::Array(x, _), FieldType::Array(y, _)) => {
                    self.old_type(x) == self.new_type(y)
                }
                (FieldType::Prim(x), FieldType::Prim(y)) => x.signed() == y.signed(),
                _ => false,
            };
            if resize && a.size != b.size {
                self.emit(
                    Class::Breaking,
                    Kind::Changed,
                    fp.clone(),
                    Some(Aspect::Size),
                    Some((num(a.size), os)),
                    Some((num(b.size), ns)),
                    Some(format!("{ta} → {tb}")),
                );
            } else {
                let note = (a.size != b.size).then(|| format!("{} → {} bytes", a.size, b.size));
                self.emit(
                    Class::Breaking,
                    Kind::Changed,
                    fp.clone(),
                    Some(Aspect::Type),
                    Some((text(ta), os)),
                    Some((text(tb), ns)),
                    note,
                );
            }
        }
        let pa = json::placement_text(self.o, a, &|s| self.tname(s));
        let pb = json::placement_text(self.n, b, &|s| s.to_string());
        if pa != pb {
            self.changed(
                Class::Metadata,
                fp.clone(),
                Aspect::Placement,
                text(pa),
                os,
                text(pb),
                ns,
            );
        }
        self.meta(&fp, &a.meta, &b.meta);
    }

    // --- items ---------------------------------------------------------------------

    fn records(&mut self) {
        let (o, n) = (self.o, self.n);
        for p in pair(&o.records, &n.records, |a, b| a.name == b.name, |_, _| false) {
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(SegKind::Record, &b.name)];
                    let (os, ns) = (a.meta.span, b.meta.span);
                    if a.size != b.size {
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Size,
                            num(a.size),
                            os,
                            num(b.size),
                            ns,
                        );
                    }
                    let da = format!(
                        "{} {}",
                        a.discriminant.offset,
                        mapped(&self.r.enums, &o[a.discriminant.ty].name)
                    );
                    let db = format!("{} {}", b.discriminant.offset, n[b.discriminant.ty].name);
                    if da != db {
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Discriminant,
                            text(da),
                            os,
                            text(db),
                            ns,
                        );
                    }
                    if a.preamble_size != b.preamble_size {
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::PreambleSize,
                            num(a.preamble_size),
                            os,
                            num(b.preamble_size),
                            ns,
                        );
                    }
                    // Every arm begins with the preamble: any layout change there is breaking.
                    let start = self.out.len();
                    self.layout(&path, &a.preamble, &b.preamble);
                    for c in &mut self.out[start..] {
                        if c.class == Class::Additive {
                            c.class = Class::Breaking;
                        }
                    }
                    self.meta(&path, &a.meta, &b.meta);
                }
                Pair::Old(a) => self.removed(
                    Class::Breaking,
                    vec![seg(SegKind::Record, &a.name)],
                    json::record_val(o, a),
                    a.meta.span,
                    None,
                ),
                Pair::New(b) => self.added(
                    Class::Additive,
                    vec![seg(SegKind::Record, &b.name)],
                    json::record_val(n, b),
                    b.meta.span,
                    None,
                ),
            }
        }
    }

    fn structs(&mut self) {
        let (o, n) = (self.o, self.n);
        let kind = |s: &Struct| if s.is_group { SegKind::Group } else { SegKind::Struct };
        let renames = self.r.structs.clone();
        for p in pair(
            &o.structs,
            &n.structs,
            |a, b| a.name == b.name,
            |a, b| renames.get(&a.name) == Some(&b.name),
        ) {
            let start = self.out.len();
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(kind(b), &b.name)];
                    let (os, ns) = (a.meta.span, b.meta.span);
                    if a.name != b.name {
                        self.renamed(path.clone(), &a.name, os, &b.name, ns);
                    }
                    if a.is_group != b.is_group {
                        let k = |s: &Struct| text(kind(s).as_str());
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Form,
                            k(a),
                            os,
                            k(b),
                            ns,
                        );
                    }
                    if a.size != b.size {
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Size,
                            num(a.size),
                            os,
                            num(b.size),
                            ns,
                        );
                    }
                    self.layout(&path, &a.fields, &b.fields);
                    self.meta(&path, &a.meta, &b.meta);
                    let (ia, ib) = (o.struct_named(&a.name), n.struct_named(&b.name));
                    self.set_reach(start, ia.map(Target::Struct), ib.map(Target::Struct));
                }
                Pair::Old(a) => {
                    self.removed(
                        Class::Breaking,
                        vec![seg(kind(a), &a.name)],
                        json::struct_val(o, a),
                        a.meta.span,
                        None,
                    );
                    self.set_reach(start, o.struct_named(&a.name).map(Target::Struct), None);
                }
                Pair::New(b) => {
                    self.added(
                        Class::Additive,
                        vec![seg(kind(b), &b.name)],
                        json::struct_val(n, b),
                        b.meta.span,
                        None,
                    );
                }
            }
        }
    }

    fn arms(&mut self) {
        let (o, n) = (self.o, self.n);
        let renames = self.r.arms.clone();
        for p in pair(
            &o.arms,
            &n.arms,
            |a, b| a.name == b.name,
            |a, b| renames.get(&a.name) == Some(&b.name),
        ) {
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(SegKind::Arm, &b.name)];
                    let (os, ns) = (a.meta.span, b.meta.span);
                    if a.name != b.name {
                        self.renamed(path.clone(), &a.name, os, &b.name, ns);
                    }
                    if o[a.record].name != n[b.record].name {
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Record,
                            text(&o[a.record].name),
                            os,
                            text(&n[b.record].name),
                            ns,
                        );
                    }
                    self.layout(&path, &a.fields, &b.fields);
                    self.meta(&path, &a.meta, &b.meta);
                }
                Pair::Old(a) => {
                    let id = o.arm_named(&a.name).expect("own arm");
                    self.removed(
                        Class::Breaking,
                        vec![seg(SegKind::Arm, &a.name)],
                        json::arm_val(o, id),
                        a.meta.span,
                        None,
                    );
                }
                Pair::New(b) => {
                    let id = n.arm_named(&b.name).expect("own arm");
                    self.added(
                        Class::Additive,
                        vec![seg(SegKind::Arm, &b.name)],
                        json::arm_val(n, id),
                        b.meta.span,
                        None,
                    );
                }
            }
        }
    }

    fn bitfields(&mut self, path: &[Segment], a: &[BitField], b: &[BitField]) {
        let (o, n) = (self.o, self.n);
        let range = |f: &BitField| format!("{}..{}", f.lo, f.hi);
        for p in pair(a, b, |x, y| x.name == y.name, |x, y| x.lo == y.lo && x.hi == y.hi) {
            match p {
                Pair::Both(x, y) | Pair::Renamed(x, y) => {
                    let fp = sub(path, SegKind::Bitfield, &y.name);
                    if x.name != y.name {
                        self.renamed(fp.clone(), &x.name, x.meta.span, &y.name, y.meta.span);
                    }
                    if (x.lo, x.hi) != (y.lo, y.hi) {
                        self.changed(
                            Class::Breaking,
                            fp.clone(),
                            Aspect::Range,
                            text(range(x)),
                            x.meta.span,
                            text(range(y)),
                            y.meta.span,
                        );
                    }
                    self.meta(&fp, &x.meta, &y.meta);
                }
                Pair::Old(x) => self.removed(
                    Class::Breaking,
                    sub(path, SegKind::Bitfield, &x.name),
                    json::bitfield_val(o, x),
                    x.meta.span,
                    None,
                ),
                Pair::New(y) => self.added(
                    Class::Additive,
                    sub(path, SegKind::Bitfield, &y.name),
                    json::bitfield_val(n, y),
                    y.meta.span,
                    None,
                ),
            }
        }
    }

    fn bits(&mut self) {
        let (o, n) = (self.o, self.n);
        let renames = self.r.bits.clone();
        for p in pair(
            &o.bits,
            &n.bits,
            |a, b| a.name == b.name,
            |a, b| renames.get(&a.name) == Some(&b.name),
        ) {
            let start = self.out.len();
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(SegKind::Bits, &b.name)];
                    let (os, ns) = (a.meta.span, b.meta.span);
                    if a.name != b.name {
                        self.renamed(path.clone(), &a.name, os, &b.name, ns);
                    }
                    if a.width != b.width {
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Width,
                            text(a.width.as_str()),
                            os,
                            text(b.width.as_str()),
                            ns,
                        );
                    }
                    self.bitfields(&path, &a.fields, &b.fields);
                    let pred = |bits: &Bits, p: &Option<Predicate>| {
                        p.as_ref().map(|p| {
                            (
                                bits.fields.get(p.field as usize).map(|f| (f.lo, f.hi)),
                                p.mask,
                                p.value,
                            )
                        })
                    };
                    let twin = |x: &Alt, y: &Alt| {
                        pred(a, &x.when) == pred(b, &y.when) && alt_fields_same(x, y)
                    };
                    for q in pair(&a.alts, &b.alts, |x, y| x.name == y.name, twin) {
                        match q {
                            Pair::Both(x, y) | Pair::Renamed(x, y) => {
                                let ap = sub(&path, SegKind::Alt, &y.name);
                                if x.name != y.name {
                                    self.renamed(
                                        ap.clone(),
                                        &x.name,
                                        x.meta.span,
                                        &y.name,
                                        y.meta.span,
                                    );
                                }
                                if pred(a, &x.when) != pred(b, &y.when) {
                                    let (pa, pb) = (
                                        json::predicate_text(a, &x.when),
                                        json::predicate_text(b, &y.when),
                                    );
                                    self.changed(
                                        Class::Breaking,
                                        ap.clone(),
                                        Aspect::Predicate,
                                        text(pa),
                                        x.meta.span,
                                        text(pb),
                                        y.meta.span,
                                    );
                                }
                                self.bitfields(&ap, &x.fields, &y.fields);
                                self.meta(&ap, &x.meta, &y.meta);
                            }
                            Pair::Old(x) => self.removed(
                                Class::Breaking,
                                sub(&path, SegKind::Alt, &x.name),
                                json::alt_val(o, a, x),
                                x.meta.span,
                                None,
                            ),
                            Pair::New(y) => self.added(
                                Class::Additive,
                                sub(&path, SegKind::Alt, &y.name),
                                json::alt_val(n, b, y),
                                y.meta.span,
                                None,
                            ),
                        }
                    }
                    self.meta(&path, &a.meta, &b.meta);
                    self.set_reach(
                        start,
                        o.bits_named(&a.name).map(Target::Bits),
                        n.bits_named(&b.name).map(Target::Bits),
                    );
                }
                Pair::Old(a) => {
                    self.removed(
                        Class::Breaking,
                        vec![seg(SegKind::Bits, &a.name)],
                        json::bits_val(o, a),
                        a.meta.span,
                        None,
                    );
                    self.set_reach(start, o.bits_named(&a.name).map(Target::Bits), None);
                }
                Pair::New(b) => self.added(
                    Class::Additive,
                    vec![seg(SegKind::Bits, &b.name)],
                    json::bits_val(n, b),
                    b.meta.span,
                    None,
                ),
            }
        }
    }

    fn enums(&mut self) {
        let (o, n) = (self.o, self.n);
        let renames = self.r.enums.clone();
        for p in pair(
            &o.enums,
            &n.enums,
            |a, b| a.name == b.name,
            |a, b| renames.get(&a.name) == Some(&b.name),
        ) {
            let start = self.out.len();
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(SegKind::Enum, &b.name)];
                    let (os, ns) = (a.meta.span, b.meta.span);
                    if a.name != b.name {
                        self.renamed(path.clone(), &a.name, os, &b.name, ns);
                    }
                    if a.width != b.width {
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Width,
                            text(a.width.as_str()),
                            os,
                            text(b.width.as_str()),
                            ns,
                        );
                    }
                    for q in pair(
                        &a.variants,
                        &b.variants,
                        |x, y| x.name == y.name,
                        |x, y| x.value == y.value,
                    ) {
                        match q {
                            Pair::Both(x, y) | Pair::Renamed(x, y) => {
                                let vp = sub(&path, SegKind::Variant, &y.name);
                                if x.name != y.name {
                                    self.renamed(
                                        vp.clone(),
                                        &x.name,
                                        x.meta.span,
                                        &y.name,
                                        y.meta.span,
                                    );
                                }
                                if x.value != y.value {
                                    self.changed(
                                        Class::Breaking,
                                        vp.clone(),
                                        Aspect::Value,
                                        json::variant_val(o, x),
                                        x.meta.span,
                                        json::variant_val(n, y),
                                        y.meta.span,
                                    );
                                    // The JSON of a changed value is the number, not the variant object.
                                    let c = self.out.last_mut().expect("just pushed");
                                    for (v, num) in [(&mut c.old, x.value), (&mut c.new, y.value)] {
                                        if let Some(v) = v {
                                            v.json = serde_json::Value::from(num);
                                        }
                                    }
                                }
                                self.meta(&vp, &x.meta, &y.meta);
                            }
                            Pair::Old(x) => self.removed(
                                Class::Breaking,
                                sub(&path, SegKind::Variant, &x.name),
                                json::variant_val(o, x),
                                x.meta.span,
                                None,
                            ),
                            Pair::New(y) => self.added(
                                Class::Additive,
                                sub(&path, SegKind::Variant, &y.name),
                                json::variant_val(n, y),
                                y.meta.span,
                                None,
                            ),
                        }
                    }
                    self.meta(&path, &a.meta, &b.meta);
                    self.set_reach(
                        start,
                        o.enum_named(&a.name).map(Target::Enum),
                        n.enum_named(&b.name).map(Target::Enum),
                    );
                }
                Pair::Old(a) => {
                    self.removed(
                        Class::Breaking,
                        vec![seg(SegKind::Enum, &a.name)],
                        json::enum_val(o, a),
                        a.meta.span,
                        None,
                    );
                    self.set_reach(start, o.enum_named(&a.name).map(Target::Enum), None);
                }
                Pair::New(b) => self.added(
                    Class::Additive,
                    vec![seg(SegKind::Enum, &b.name)],
                    json::enum_val(n, b),
                    b.meta.span,
                    None,
                ),
            }
        }
    }

    fn bands(&mut self) {
        let (o, n) = (self.o, self.n);
        let name = |m: &Model, b: &Band| format!("{}.{}", m[b.enum_id].name, b.name);
        let same = |a: &Band, b: &Band| {
            mapped(&self.r.enums, &o[a.enum_id].name) == n[b.enum_id].name && a.name == b.name
        };
        for p in pair(&o.bands, &n.bands, same, |_, _| false) {
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(SegKind::Band, name(n, b))];
                    if a.ranges != b.ranges {
                        let lost = a
                            .ranges
                            .iter()
                            .any(|&(lo, hi)| !b.ranges.iter().any(|&(l, h)| l <= lo && hi <= h));
                        let class = if lost { Class::Breaking } else { Class::Additive };
                        self.changed(
                            class,
                            path.clone(),
                            Aspect::Ranges,
                            json::band_val(o, a),
                            a.meta.span,
                            json::band_val(n, b),
                            b.meta.span,
                        );
                        let c = self.out.last_mut().expect("just pushed");
                        for (v, r) in [(&mut c.old, &a.ranges), (&mut c.new, &b.ranges)] {
                            if let Some(v) = v {
                                v.json = serde_json::Value::from(
                                    r.iter()
                                        .map(|&(l, h)| serde_json::json!([l, h]))
                                        .collect::<Vec<_>>(),
                                );
                            }
                        }
                    }
                    self.meta(&path, &a.meta, &b.meta);
                }
                Pair::Old(a) => self.removed(
                    Class::Breaking,
                    vec![seg(SegKind::Band, name(o, a))],
                    json::band_val(o, a),
                    a.meta.span,
                    None,
                ),
                Pair::New(b) => self.added(
                    Class::Additive,
                    vec![seg(SegKind::Band, name(n, b))],
                    json::band_val(n, b),
                    b.meta.span,
                    None,
                ),
            }
        }
    }

    fn bindings(&mut self) {
        let (o, n) = (self.o, self.n);
        let key = |b: &Binding| (b.opcode, b.sub.as_ref().map(|s| (s.offset, s.value)));
        let arms = self.r.arms.clone();
        let arm_o = |b: &Binding| mapped(&arms, &o[b.arm].name);
        for p in pair(
            &o.bindings,
            &n.bindings,
            |a, b| key(a) == key(b),
            |a, b| arm_o(a) == n[b.arm].name,
        ) {
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(SegKind::Bind, json::bind_name(n, b))];
                    let (os, ns) = (a.meta.span, b.meta.span);
                    if key(a) != key(b) {
                        let k = |b: &Binding| Val {
                            json: json::bind_key_json(b),
                            text: json::bind_key_text(b),
                        };
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Opcode,
                            k(a),
                            os,
                            k(b),
                            ns,
                        );
                    }
                    if arm_o(a) != n[b.arm].name {
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Arm,
                            text(&o[a.arm].name),
                            os,
                            text(&n[b.arm].name),
                            ns,
                        );
                    }
                    self.meta(&path, &a.meta, &b.meta);
                }
                Pair::Old(a) => self.removed(
                    Class::Breaking,
                    vec![seg(SegKind::Bind, json::bind_name(o, a))],
                    json::binding_val(o, a),
                    a.meta.span,
                    None,
                ),
                Pair::New(b) => self.added(
                    Class::Additive,
                    vec![seg(SegKind::Bind, json::bind_name(n, b))],
                    json::binding_val(n, b),
                    b.meta.span,
                    None,
                ),
            }
        }
    }

    fn sentinels(&mut self) {
        let (o, n) = (self.o, self.n);
        let key = |m: &Model, s: &Sentinel| {
            let b = &m[s.binding];
            (b.opcode, b.sub.as_ref().map(|s| (s.offset, s.value)))
        };
        for p in
            pair(&o.sentinels, &n.sentinels, |a, b| a.name == b.name, |a, b| key(o, a) == key(n, b))
        {
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(SegKind::Sentinel, &b.name)];
                    let (os, ns) = (a.meta.span, b.meta.span);
                    if a.name != b.name {
                        self.renamed(path.clone(), &a.name, os, &b.name, ns);
                    }
                    if key(o, a) != key(n, b) {
                        let (ba, bb) =
                            (json::bind_name(o, &o[a.binding]), json::bind_name(n, &n[b.binding]));
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Binding,
                            text(ba),
                            os,
                            text(bb),
                            ns,
                        );
                    }
                    self.meta(&path, &a.meta, &b.meta);
                }
                Pair::Old(a) => self.removed(
                    Class::Breaking,
                    vec![seg(SegKind::Sentinel, &a.name)],
                    json::sentinel_val(o, a),
                    a.meta.span,
                    None,
                ),
                Pair::New(b) => self.added(
                    Class::Additive,
                    vec![seg(SegKind::Sentinel, &b.name)],
                    json::sentinel_val(n, b),
                    b.meta.span,
                    None,
                ),
            }
        }
    }

    fn bitmasks(&mut self) {
        let (o, n) = (self.o, self.n);
        for p in pair(&o.bitmasks, &n.bitmasks, |a, b| a.name == b.name, |_, _| false) {
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(SegKind::Bitmask, &b.name)];
                    let (os, ns) = (a.meta.span, b.meta.span);
                    let ea = mapped(&self.r.enums, &o[a.enum_id].name);
                    if ea != n[b.enum_id].name {
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Enum,
                            text(&o[a.enum_id].name),
                            os,
                            text(&n[b.enum_id].name),
                            ns,
                        );
                    }
                    if a.words != b.words {
                        let w = |words: &[u64]| Val {
                            json: serde_json::Value::from(words.to_vec()),
                            text: json::words_text(words),
                        };
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Words,
                            w(&a.words),
                            os,
                            w(&b.words),
                            ns,
                        );
                    }
                    self.meta(&path, &a.meta, &b.meta);
                }
                Pair::Old(a) => self.removed(
                    Class::Breaking,
                    vec![seg(SegKind::Bitmask, &a.name)],
                    json::bitmask_val(o, a),
                    a.meta.span,
                    None,
                ),
                Pair::New(b) => self.added(
                    Class::Additive,
                    vec![seg(SegKind::Bitmask, &b.name)],
                    json::bitmask_val(n, b),
                    b.meta.span,
                    None,
                ),
            }
        }
    }

    fn apertures(&mut self) {
        let (o, n) = (self.o, self.n);
        for p in pair(&o.apertures, &n.apertures, |a, b| a.name == b.name, |_, _| false) {
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(SegKind::Aperture, &b.name)];
                    for q in pair(
                        &a.regions,
                        &b.regions,
                        |x, y| x.name == y.name,
                        |x, y| x.base == y.base && x.size == y.size,
                    ) {
                        match q {
                            Pair::Both(x, y) | Pair::Renamed(x, y) => {
                                let rp = sub(&path, SegKind::Region, &y.name);
                                let (os, ns) = (x.meta.span, y.meta.span);
                                if x.name != y.name {
                                    self.renamed(rp.clone(), &x.name, os, &y.name, ns);
                                }
                                let hex = |v: u64| Val {
                                    json: serde_json::Value::from(v),
                                    text: json::int_text(v.into()),
                                };
                                if x.base != y.base {
                                    self.changed(
                                        Class::Breaking,
                                        rp.clone(),
                                        Aspect::Base,
                                        hex(x.base),
                                        os,
                                        hex(y.base),
                                        ns,
                                    );
                                }
                                if x.size != y.size {
                                    self.changed(
                                        Class::Breaking,
                                        rp.clone(),
                                        Aspect::Size,
                                        hex(x.size),
                                        os,
                                        hex(y.size),
                                        ns,
                                    );
                                }
                                self.meta(&rp, &x.meta, &y.meta);
                            }
                            Pair::Old(x) => self.removed(
                                Class::Breaking,
                                sub(&path, SegKind::Region, &x.name),
                                json::region_val(o, x),
                                x.meta.span,
                                None,
                            ),
                            Pair::New(y) => self.added(
                                Class::Additive,
                                sub(&path, SegKind::Region, &y.name),
                                json::region_val(n, y),
                                y.meta.span,
                                None,
                            ),
                        }
                    }
                    self.meta(&path, &a.meta, &b.meta);
                }
                Pair::Old(a) => self.removed(
                    Class::Breaking,
                    vec![seg(SegKind::Aperture, &a.name)],
                    json::aperture_val(o, a),
                    a.meta.span,
                    None,
                ),
                Pair::New(b) => self.added(
                    Class::Additive,
                    vec![seg(SegKind::Aperture, &b.name)],
                    json::aperture_val(n, b),
                    b.meta.span,
                    None,
                ),
            }
        }
    }

    fn geometry(&mut self) {
        let (o, n) = (self.o, self.n);
        let renames = self.r.geoms.clone();
        for p in pair(
            &o.geometry,
            &n.geometry,
            |a, b| a.name == b.name,
            |a, b| renames.get(&a.name) == Some(&b.name),
        ) {
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(SegKind::Geometry, &b.name)];
                    let (os, ns) = (a.meta.span, b.meta.span);
                    if a.name != b.name {
                        self.renamed(path.clone(), &a.name, os, &b.name, ns);
                    }
                    let ty = |m: &Model, t: &GeomType| json::geom_type_str(m, t);
                    match (&a.kind, &b.kind) {
                        (GeomKind::Value(x), GeomKind::Value(y)) => {
                            if ty(o, x) != ty(n, y) {
                                self.changed(
                                    Class::Breaking,
                                    path.clone(),
                                    Aspect::Type,
                                    text(ty(o, x)),
                                    os,
                                    text(ty(n, y)),
                                    ns,
                                );
                            }
                        }
                        (GeomKind::Derived(x, e), GeomKind::Derived(y, f)) => {
                            if ty(o, x) != ty(n, y) {
                                self.changed(
                                    Class::Breaking,
                                    path.clone(),
                                    Aspect::Type,
                                    text(ty(o, x)),
                                    os,
                                    text(ty(n, y)),
                                    ns,
                                );
                            }
                            let (ea, eb) = (self.old_expr(e, &[]), self.new_expr(f, &[]));
                            if ea != eb {
                                self.changed(
                                    Class::Breaking,
                                    path.clone(),
                                    Aspect::Expr,
                                    text(ea),
                                    os,
                                    text(eb),
                                    ns,
                                );
                            }
                        }
                        (
                            GeomKind::Rule { params: pa, expr: ea, requires: ra },
                            GeomKind::Rule { params: pb, expr: eb, requires: rb },
                        ) => {
                            if pa != pb {
                                self.changed(
                                    Class::Breaking,
                                    path.clone(),
                                    Aspect::Params,
                                    lines(pa),
                                    os,
                                    lines(pb),
                                    ns,
                                );
                                let c = self.out.last_mut().expect("just pushed");
                                for v in [&mut c.old, &mut c.new].into_iter().flatten() {
                                    v.text = v.text.replace('\n', ", ");
                                }
                            }
                            let (xa, xb) = (self.old_expr(ea, pa), self.new_expr(eb, pb));
                            if xa != xb {
                                self.changed(
                                    Class::Breaking,
                                    path.clone(),
                                    Aspect::Expr,
                                    text(xa),
                                    os,
                                    text(xb),
                                    ns,
                                );
                            }
                            let qa = json::requires_str(o, ra, pa, &|s| mapped(&self.r.geoms, s));
                            let qb = json::requires_str(n, rb, pb, &|s| s.to_string());
                            if qa != qb {
                                self.changed(
                                    Class::Breaking,
                                    path.clone(),
                                    Aspect::Requires,
                                    text(qa),
                                    os,
                                    text(qb),
                                    ns,
                                );
                            }
                        }
                        _ => self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Form,
                            text(json::form(a)),
                            os,
                            text(json::form(b)),
                            ns,
                        ),
                    }
                    self.meta(&path, &a.meta, &b.meta);
                }
                Pair::Old(a) => self.removed(
                    Class::Breaking,
                    vec![seg(SegKind::Geometry, &a.name)],
                    json::geom_val(o, a),
                    a.meta.span,
                    None,
                ),
                Pair::New(b) => self.added(
                    Class::Additive,
                    vec![seg(SegKind::Geometry, &b.name)],
                    json::geom_val(n, b),
                    b.meta.span,
                    None,
                ),
            }
        }
    }

    fn archs(&mut self) {
        let (o, n) = (self.o, self.n);
        let renames = self.r.archs.clone();
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
        for p in pair(
            &o.archs,
            &n.archs,
            |a, b| a.name == b.name,
            |a, b| renames.get(&a.name) == Some(&b.name),
        ) {
            match p {
                Pair::Both(a, b) | Pair::Renamed(a, b) => {
                    let path = vec![seg(SegKind::Arch, &b.name)];
                    let (os, ns) = (a.meta.span, b.meta.span);
                    if a.name != b.name {
                        self.renamed(path.clone(), &a.name, os, &b.name, ns);
                    }
                    if a.generation != b.generation {
                        self.changed(
                            Class::Breaking,
                            path.clone(),
                            Aspect::Generation,
                            num(a.generation),
                            os,
                            num(b.generation),
                            ns,
                        );
                    }
                    if a.label != b.label {
                        self.changed(
                            Class::Metadata,
                            path.clone(),
                            Aspect::Label,
                            text(&a.label),
                            os,
                            text(&b.label),
                            ns,
                        );
                    }
                    if a.aliases != b.aliases {
                        let l = |v: &[String]| Val {
                            json: serde_json::Value::from(v.to_vec()),
                            text: v.join(", "),
                        };
                        self.changed(
                            Class::Metadata,
                            path.clone(),
                            Aspect::Aliases,
                            l(&a.aliases),
                            os,
                            l(&b.aliases),
                            ns,
                        );
                    }
                    let ia = a.inherits.map(|p| mapped(&self.r.archs, &o[p].name));
                    let ib = b.inherits.map(|p| n[p].name.clone());
                    if ia != ib {
                        let v = |x: Option<ArchId>, m: &Model| {
                            x.map_or_else(
                                || Val { json: serde_json::Value::Null, text: "none".into() },
                                |p| text(&m[p].name),
                            )
                        };
                        self.changed(
                            Class::Metadata,
                            path.clone(),
                            Aspect::Inherits,
                            v(a.inherits, o),
                            os,
                            v(b.inherits, n),
                            ns,
                        );
                    }
                    self.meta(&path, &a.meta, &b.meta);
                    let (aid, bid) = (
                        o.arch_named(&a.name).expect("own arch"),
                        n.arch_named(&b.name).expect("own arch"),
                    );
                    for &(og, ng) in &common {
                        self.arch_value(&path, (aid, og), (bid, ng));
                    }
                    for &g in &added {
                        if let Some(v) = b.value(g) {
                            let note = value_note(n, bid, g, v);
                            self.added(
                                Class::Additive,
                                sub(&path, SegKind::Value, &n[g].name),
                                json::arch_value_val(n, g, v),
                                v.meta.span,
                                note,
                            );
                        }
                    }
                }
                Pair::Old(a) => {
                    let id = o.arch_named(&a.name).expect("own arch");
                    self.removed(
                        Class::Breaking,
                        vec![seg(SegKind::Arch, &a.name)],
                        json::arch_val(o, id),
                        a.meta.span,
                        None,
                    );
                }
                Pair::New(b) => {
                    let id = n.arch_named(&b.name).expect("own arch");
                    self.added(
                        Class::Additive,
                        vec![seg(SegKind::Arch, &b.name)],
                        json::arch_val(n, id),
                        b.meta.span,
                        None,
                    );
                }
            }
        }
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
                if a.value != b.value {
                    let class = if only_learned(&a.value, &b.value) {
                        Class::Additive
                    } else {
                        Class::Breaking
                    };
                    let old =
                        Val { json: json::value_json(&a.value), text: json::value_text(&a.value) };
                    let new =
                        Val { json: json::value_json(&b.value), text: json::value_text(&b.value) };
                    let note = value_note(n, na, ng, b);
                    self.emit(
                        class,
                        Kind::Changed,
                        vp.clone(),
                        Some(Aspect::Value),
                        Some((old, a.meta.span)),
                        Some((new, b.meta.span)),
                        note,
                    );
                }
                let derived = matches!(n[ng].kind, GeomKind::Derived(..));
                let own_a = mapped(&self.r.archs, &o[a.defined_in].name) == n[na].name;
                let own_b = b.defined_in == na;
                let (os, ns) = (a.meta.span, b.meta.span);
                if own_a != own_b
                    || (!own_a
                        && mapped(&self.r.archs, &o[a.defined_in].name) != n[b.defined_in].name)
                {
                    let (da, db) = (text(&o[a.defined_in].name), text(&n[b.defined_in].name));
                    self.changed(Class::Metadata, vp.clone(), Aspect::DefinedIn, da, os, db, ns);
                } else if own_a && derived && a.stated != b.stated {
                    let s = |x: bool| text(if x { "stated" } else { "computed" });
                    self.changed(
                        Class::Metadata,
                        vp.clone(),
                        Aspect::Stated,
                        s(a.stated),
                        os,
                        s(b.stated),
                        ns,
                    );
                } else if own_a && (!derived || (a.stated && b.stated)) {
                    self.meta(&vp, &a.meta, &b.meta);
                }
            }
        }
    }
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
