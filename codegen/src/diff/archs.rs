//! Two archs of one model after inheritance: their geometry values, the items whose
//! `@archs` includes one and not the other (opcodes, enum values, bindings, arms, union
//! views, ...), and the arms whose layout differs between the two.

use super::changes::{only_learned, said_by_opcode, seg, sub, text, value_note, Cmp};
use super::json;
use super::{Aspect, Change, Class, Kind, SegKind, Segment, Val};
use crate::model::*;

pub(super) fn compare(m: &Model, a: ArchId, b: ArchId) -> Vec<Change> {
    let mut c = ArchCmp { c: Cmp::new(m, m), m, a, b };
    // Two layouts of one arm differ in provenance by design: compare their bytes.
    c.c.skip_meta = true;
    c.c.skip_archs = true;
    c.values();
    c.availability();
    c.c.out
}

struct ArchCmp<'a> {
    c: Cmp<'a>,
    m: &'a Model,
    a: ArchId,
    b: ArchId,
}

impl ArchCmp<'_> {
    /// Why an item has no value on `arch`: its `@archs`, or an optional value not given.
    fn absent_note(&self, g: GeomId, arch: ArchId) -> String {
        let item = &self.m[g];
        match &item.meta.archs {
            Some(list) if !list.contains(&arch) => archs_text(self.m, list),
            _ => format!("not given for {}", self.m[arch].name),
        }
    }

    fn values(&mut self) {
        let (m, a, b) = (self.m, self.a, self.b);
        if !m[a].geometry_known || !m[b].geometry_known {
            // No source gives one side's geometry: say so once, compare no value, and
            // still report the schema items whose `@archs` differ.
            if m[a].geometry_known != m[b].geometry_known {
                let (ka, kb) = (m[a].geometry_known, m[b].geometry_known);
                let known = |k: bool| text(if k { "known" } else { "unknown" });
                let which = if kb { a } else { b };
                let note =
                    format!("no source gives {}'s geometry; no value is compared", m[which].name);
                let class = if kb { Class::Additive } else { Class::Breaking };
                self.c.emit(
                    class,
                    Kind::Changed,
                    vec![seg(SegKind::Arch, &m[which].name)],
                    Some(Aspect::Geometry),
                    Some((known(ka), m[a].meta.span)),
                    Some((known(kb), m[b].meta.span)),
                    Some(note),
                );
            }
            for g in m.geom_ids() {
                let item = &m[g];
                let path = vec![seg(SegKind::Geometry, &item.name)];
                self.avail(path, &item.meta, || json::geom_val(m, item));
            }
            return;
        }
        for g in m.geom_ids() {
            let item = &m[g];
            let path = vec![seg(SegKind::Geometry, &item.name)];
            if matches!(item.kind, GeomKind::Rule { .. }) {
                let val = || json::geom_val(m, item);
                self.avail(path, &item.meta, val);
                continue;
            }
            match (m[a].value(g), m[b].value(g)) {
                (None, None) => {}
                (Some(x), None) => {
                    let note = self.absent_note(g, b);
                    self.c.removed(
                        Class::Breaking,
                        path,
                        json::arch_value_val(m, g, x),
                        x.meta.span,
                        Some(note),
                    );
                }
                (None, Some(y)) => {
                    let note = self.absent_note(g, a);
                    self.c.added(
                        Class::Additive,
                        path,
                        json::arch_value_val(m, g, y),
                        y.meta.span,
                        Some(note),
                    );
                }
                (Some(x), Some(y)) if x.value != y.value => {
                    let class = if only_learned(&x.value, &y.value) {
                        Class::Additive
                    } else {
                        Class::Breaking
                    };
                    let v = |v: &ArchValue| Val {
                        json: json::value_json(&v.value),
                        text: json::arch_value_text(v),
                    };
                    let note = value_note(m, b, g, y);
                    self.c.emit(
                        class,
                        Kind::Changed,
                        path,
                        Some(Aspect::Value),
                        Some((v(x), x.meta.span)),
                        Some((v(y), y.meta.span)),
                        note,
                    );
                }
                (Some(_), Some(_)) => {}
            }
        }
    }

    /// Report an item whose `@archs` includes exactly one of the two archs; return whether
    /// its members are worth visiting (available on both).
    fn avail(&mut self, path: Vec<Segment>, meta: &Meta, val: impl FnOnce() -> Val) -> bool {
        let (on_a, on_b) = (meta.available_on(self.a), meta.available_on(self.b));
        let note = meta.archs.as_ref().map(|l| archs_text(self.m, l));
        match (on_a, on_b) {
            (true, false) => self.c.removed(Class::Breaking, path, val(), meta.span, note),
            (false, true) => self.c.added(Class::Additive, path, val(), meta.span, note),
            _ => {}
        }
        on_a && on_b
    }

    fn fields(&mut self, path: &[Segment], fields: &[Field]) {
        let m = self.m;
        for f in fields {
            self.avail(sub(path, SegKind::Field, &f.name), &f.meta, || json::field_val(m, f));
        }
    }

    fn bitfields(&mut self, path: &[Segment], fields: &[BitField]) {
        let m = self.m;
        for f in fields {
            self.avail(sub(path, SegKind::Bitfield, &f.name), &f.meta, || json::bitfield_val(m, f));
        }
    }

    fn availability(&mut self) {
        let m = self.m;
        let r = &m.record;
        let path = vec![seg(SegKind::Record, &r.name)];
        if self.avail(path.clone(), &r.meta, || json::record_val(m, r)) {
            self.fields(&path, &r.preamble);
        }
        for s in &m.structs {
            let kind = if s.is_group { SegKind::Group } else { SegKind::Struct };
            let path = vec![seg(kind, &s.name)];
            if self.avail(path.clone(), &s.meta, || json::struct_val(m, s)) {
                self.fields(&path, &s.fields);
            }
        }
        for id in m.arm_ids() {
            let arm = &m[id];
            let path = vec![seg(SegKind::Arm, &arm.name)];
            if self.avail(path.clone(), &arm.meta, || json::arm_val(m, id)) {
                let (la, lb) = (arm.layout_on(self.a), arm.layout_on(self.b));
                if la != lb {
                    let own = |l: &Layout| -> Vec<Field> { json::own_fields(l).cloned().collect() };
                    self.c.layout(&path, &own(la), &own(lb));
                }
            }
        }
        for u in &m.unions {
            let path = vec![seg(SegKind::Union, &u.name)];
            if self.avail(path.clone(), &u.meta, || json::union_val(m, u)) {
                for v in &u.views {
                    self.avail(sub(&path, SegKind::View, &v.name), &v.meta, || {
                        json::view_val(m, v)
                    });
                }
            }
        }
        for bits in &m.bits {
            let path = vec![seg(SegKind::Bits, &bits.name)];
            if self.avail(path.clone(), &bits.meta, || json::bits_val(m, bits)) {
                self.bitfields(&path, &bits.fields);
                for alt in &bits.alts {
                    let ap = sub(&path, SegKind::Alt, &alt.name);
                    if self.avail(ap.clone(), &alt.meta, || json::alt_val(m, bits, alt)) {
                        self.bitfields(&ap, &alt.fields);
                    }
                }
            }
        }
        for e in &m.enums {
            let path = vec![seg(SegKind::Enum, &e.name)];
            if self.avail(path.clone(), &e.meta, || json::enum_val(m, e)) {
                for v in &e.variants {
                    self.avail(sub(&path, SegKind::Variant, &v.name), &v.meta, || {
                        json::variant_val(m, e, v)
                    });
                }
            }
        }
        for band in &m.bands {
            let path = vec![seg(SegKind::Band, format!("{}.{}", m[band.enum_id].name, band.name))];
            self.avail(path, &band.meta, || json::band_val(m, band));
        }
        for bind in &m.bindings {
            let kind = if bind.meta.available_on(self.a) { Kind::Removed } else { Kind::Added };
            if said_by_opcode(&self.c.out, m, bind, kind) {
                continue;
            }
            let path = vec![seg(SegKind::Bind, json::bind_name(m, bind))];
            self.avail(path, &bind.meta, || json::binding_val(m, bind));
        }
        for s in &m.sentinels {
            self.avail(vec![seg(SegKind::Sentinel, &s.name)], &s.meta, || json::sentinel_val(m, s));
        }
        for bm in &m.bitmasks {
            self.avail(vec![seg(SegKind::Bitmask, &bm.name)], &bm.meta, || {
                json::bitmask_val(m, bm)
            });
        }
        for ap in &m.apertures {
            let path = vec![seg(SegKind::Aperture, &ap.name)];
            if self.avail(path.clone(), &ap.meta, || json::aperture_val(m, ap)) {
                for r in &ap.regions {
                    self.avail(sub(&path, SegKind::Region, &r.name), &r.meta, || {
                        json::region_val(m, r)
                    });
                }
            }
        }
    }
}

fn archs_text(m: &Model, list: &[ArchId]) -> String {
    json::archs_note(m, list)
}
