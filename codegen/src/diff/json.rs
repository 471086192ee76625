//! The JSON vocabulary shared by [`export`] and the diff's `--json`, and the text
//! spellings (types, values, expressions) the diff prints.

use serde_json::{json, Map, Value as J};

use super::{Site, Val};
use crate::model::*;
use crate::source::Span;

/// The whole checked model after inheritance as one JSON document, format version 2.
///
/// ```text
/// {
///   "format": "tpb-isa-model", "version": 2,
///   "files": ["isa/arms/pe.isa", ...],
///   "record":    { name, size, discriminant: { offset, enum }, engines: VOCAB_NAME | null,
///                  preamble_size, preamble: [FIELD], META },
///   "structs":   [{ name, kind: "struct" | "group", size, fields: [FIELD], META }],
///   "unions":    [{ name, size, views: [{ name, type, select: TEST | "otherwise" | null, META }], META }],
///   "arms":      [{ name, full_preamble, complete, bindings: [BIND_NAME],
///                   layouts: [{ archs: [arch name], fields: [FIELD] }], META }],
///   "bits":      [{ name, width, fields: [BITFIELD], alts: [{ name, when: PRED | null, fields: [BITFIELD], META }], META }],
///   "enums":     [{ name, width, variants: [VARIANT], META }],
///   "vocabs":    [{ name, words: [{ name, META }], META }],
///   "bands":     [{ enum, name, ranges: [[lo, hi]], META }],
///   "bindings":  [{ name, opcode, opcode_name, sub: { offset, value, value_name } | null, arm, mnemonic, META }],
///   "sentinels": [{ name, binding: BIND_NAME, arm, META }],
///   "bitmasks":  [{ name, enum, words: [u64], words_hex: ["0x…"; 16 digits], META }],
///   "apertures": [{ name, regions: [{ name, base, size, META }], META }],
///   "geometry":  [{ name, form: "geometry" | "derived" | "rule", type?, expr?, params?, requires?, META }],
///   "archs":     [{ name, generation, label, aliases, inherits, geometry_known,
///                   values: { NAME: VALUE | null }, META }]
/// }
/// FIELD    = { name, offset, size, type, reserved, unknown, inherited,
///              group: { name, base, prefix } | null, META }
/// VARIANT  = { name, value, status: "maintained" | "dormant" | "unflagged" | "unstated" | null,
///              engines: [word], arm: ARM_NAME | null, META }   (status, engines, arm: opcodes only)
/// BITFIELD = { name, lo, hi, type: "uint" | "bool" | ENUM_NAME, META }   (bits lo..hi, half-open)
/// PRED     = { field, mask, value }              (FIELD & MASK == VALUE)
/// TEST     = { offset, mask, value }             (byte OFFSET & MASK == VALUE)
/// VALUE    = { value, defined_in, derived, stated, META }   (value: number | bool | "?" | [..])
/// META     = docs: [line], sources: [string], confidence: "certain" | "medium" | "inferred",
///            archs: [arch name] | null (all), waiver: string | null, at: { file, line, col }
/// ```
///
/// Types are spelled as in the spec (`u8`, `f32`, `[i16; 3]`, `ADDR4`, `reserved[13]`,
/// `unknown[4]`, geometry `[i32?; TPB_ENG_TYPE]`); expressions as Rust-precedence infix
/// text over geometry names and rule parameters. `@source`/`@confidence` are given after
/// inheritance: a member that states none shows its item's. An arm's `layouts` are its
/// complete per-generation readings (one for most arms), each with the preamble fields
/// first (`inherited: true`). An opcode variant's `arm` is the arm its own binding (no
/// sub-opcode) selects. Lists keep the model's order: spec order for members and for
/// `geometry`, `archs` by generation, `bindings` by opcode then sub-opcode value, enum
/// `variants` by value, `files` by path, every other list by name; `values` objects are
/// keyed by geometry name, `null` where the arch has no value (rules are not listed; an
/// arch with `geometry_known: false` has every value `null`). The keys of every object
/// are written in sorted (byte) order, not in the order above, so that the text of one
/// model is always the same.
#[must_use]
pub fn export(m: &Model) -> serde_json::Value {
    let files: Vec<J> = m.sources.iter().map(|(_, f)| J::from(f.path.clone())).collect();
    json!({
        "format": "tpb-isa-model",
        "version": 2,
        "files": files,
        "record": record(m, &m.record),
        "structs": m.structs.iter().map(|s| structure(m, s)).collect::<Vec<_>>(),
        "unions": m.unions.iter().map(|u| union(m, u)).collect::<Vec<_>>(),
        "arms": m.arm_ids().map(|a| arm(m, a)).collect::<Vec<_>>(),
        "bits": m.bits.iter().map(|b| bits(m, b)).collect::<Vec<_>>(),
        "enums": m.enums.iter().map(|e| enumeration(m, e)).collect::<Vec<_>>(),
        "vocabs": m.vocabs.iter().map(|v| vocab(m, v)).collect::<Vec<_>>(),
        "bands": m.bands.iter().map(|b| band(m, b)).collect::<Vec<_>>(),
        "bindings": m.bindings.iter().map(|b| binding(m, b)).collect::<Vec<_>>(),
        "sentinels": m.sentinels.iter().map(|s| sentinel(m, s)).collect::<Vec<_>>(),
        "bitmasks": m.bitmasks.iter().map(|b| bitmask(m, b)).collect::<Vec<_>>(),
        "apertures": m.apertures.iter().map(|a| aperture(m, a)).collect::<Vec<_>>(),
        "geometry": m.geometry.iter().map(|g| geom(m, g)).collect::<Vec<_>>(),
        "archs": m.arch_ids().map(|a| arch(m, a)).collect::<Vec<_>>(),
    })
}

/// [`export`] pretty-printed, with a final newline: what `cargo xtask export` writes.
#[must_use]
pub fn export_json(m: &Model) -> String {
    let mut s = serde_json::to_string_pretty(&export(m)).expect("a JSON value serialises");
    s.push('\n');
    s
}

// ---------------------------------------------------------------------------------
// Scalars and metadata
// ---------------------------------------------------------------------------------

/// A JSON number for any integer the model holds (all fit 64 bits).
pub(super) fn int(v: i128) -> J {
    if let Ok(u) = u64::try_from(v) {
        J::from(u)
    } else if let Ok(i) = i64::try_from(v) {
        J::from(i)
    } else {
        J::from(v.to_string())
    }
}

/// `path:line:col` of a span in `m`'s sources.
pub(super) fn site(m: &Model, span: Span) -> Site {
    let l = m.sources.location(span);
    Site { file: l.path.to_string(), line: l.line as u32, col: l.col as u32 }
}

fn site_json(s: &Site) -> J {
    json!({ "file": s.file, "line": s.line, "col": s.col })
}

/// The names of an `@archs` list, `None` for all.
pub(super) fn arch_names(m: &Model, archs: &Option<Vec<ArchId>>) -> Option<Vec<String>> {
    archs.as_ref().map(|a| a.iter().map(|id| m[*id].name.clone()).collect())
}

pub(super) fn archs_json(m: &Model, archs: &Option<Vec<ArchId>>) -> J {
    match arch_names(m, archs) {
        None => J::Null,
        Some(v) => J::from(v),
    }
}

/// Add the META keys of `meta` to `obj`.
fn meta_into(m: &Model, meta: &Meta, obj: &mut Map<String, J>) {
    obj.insert("docs".into(), J::from(meta.docs.clone()));
    obj.insert("sources".into(), J::from(meta.sources.clone()));
    obj.insert("confidence".into(), J::from(meta.confidence.as_str()));
    obj.insert("archs".into(), archs_json(m, &meta.archs));
    obj.insert("waiver".into(), meta.waiver.clone().map_or(J::Null, J::from));
    obj.insert("at".into(), site_json(&site(m, meta.span)));
}

fn with_meta(m: &Model, meta: &Meta, v: J) -> J {
    let J::Object(mut obj) = v else { unreachable!("items are objects") };
    meta_into(m, meta, &mut obj);
    J::Object(obj)
}

// ---------------------------------------------------------------------------------
// Text spellings
// ---------------------------------------------------------------------------------

/// A field type as the spec spells it.
pub(super) fn type_str(m: &Model, ty: &FieldType) -> String {
    type_str_with(m, ty, &|s| s.to_string())
}

/// A field type with every type name passed through `name` (to compare across a rename).
pub(super) fn type_str_with(m: &Model, ty: &FieldType, name: &dyn Fn(&str) -> String) -> String {
    match ty {
        FieldType::Prim(p) => p.as_str().to_string(),
        FieldType::Array(t, n) => format!("[{}; {n}]", type_str_with(m, t, name)),
        FieldType::Struct(s) => name(&m[*s].name),
        FieldType::Bits(b) => name(&m[*b].name),
        FieldType::Enum(e) => name(&m[*e].name),
        FieldType::Union(u) => name(&m[*u].name),
        FieldType::Reserved(n) => format!("reserved[{n}]"),
        FieldType::Unknown(n) => format!("unknown[{n}]"),
    }
}

/// A geometry type as the spec spells it.
pub(super) fn geom_type_str(m: &Model, t: &GeomType) -> String {
    match t {
        GeomType::Int(p) => p.as_str().to_string(),
        GeomType::Bool => "bool".to_string(),
        GeomType::Optional(t) => format!("{}?", geom_type_str(m, t)),
        GeomType::Array(t, len) => match len {
            ArrayLen::Fixed(n) => format!("[{}; {n}]", geom_type_str(m, t)),
            ArrayLen::Enum(e, _) => format!("[{}; {}]", geom_type_str(m, t), m[*e].name),
            ArrayLen::Unsized => format!("[{}]", geom_type_str(m, t)),
        },
    }
}

/// An expression in Rust-precedence infix, names through `name`.
pub(super) fn expr_str(
    m: &Model,
    e: &Expr,
    params: &[String],
    name: &dyn Fn(&str) -> String,
) -> String {
    fn go(m: &Model, e: &Expr, params: &[String], name: &dyn Fn(&str) -> String, out: &mut String) {
        match e {
            Expr::Int(v) => out.push_str(&int_text(*v)),
            Expr::Value(g) => out.push_str(&name(&m[*g].name)),
            Expr::Param(i) => out.push_str(params.get(*i as usize).map_or("?", String::as_str)),
            Expr::Binary(op, l, r) => {
                let p = op.precedence();
                let wrap_l = matches!(&**l, Expr::Binary(o, ..) if o.precedence() < p);
                let wrap_r = matches!(&**r, Expr::Binary(o, ..) if o.precedence() <= p);
                for (side, wrap, sep) in [(l, wrap_l, true), (r, wrap_r, false)] {
                    if wrap {
                        out.push('(');
                    }
                    go(m, side, params, name, out);
                    if wrap {
                        out.push(')');
                    }
                    if sep {
                        out.push_str(&format!(" {} ", op.as_str()));
                    }
                }
            }
        }
    }
    let mut s = String::new();
    go(m, e, params, name, &mut s);
    s
}

/// The guards of a rule, `a < b, c < d`.
pub(super) fn requires_str(
    m: &Model,
    conds: &[Cond],
    params: &[String],
    name: &dyn Fn(&str) -> String,
) -> String {
    conds
        .iter()
        .map(|c| {
            format!(
                "{} {} {}",
                expr_str(m, &c.lhs, params, name),
                c.op.as_str(),
                expr_str(m, &c.rhs, params, name)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// An integer as people read it: decimal below 0x1000, hex from there.
pub(super) fn int_text(v: i128) -> String {
    if (-0x1000..0x1000).contains(&v) {
        v.to_string()
    } else if v < 0 {
        format!("-{:#X}", -v).replace("0X", "0x")
    } else {
        format!("{v:#X}").replace("0X", "0x")
    }
}

/// A byte pattern (a mask, a tested value, a band bound, an opcode no variant names) in
/// hex of at least two digits, as the spec writes them: `0x01`, `0xDF`.
pub(super) fn hex_text(v: u64) -> String {
    format!("0x{v:02X}")
}

/// A geometry value as JSON: numbers, booleans, `"?"`, arrays.
pub(super) fn value_json(v: &Value) -> J {
    match v {
        Value::Int(i) => int(*i),
        Value::Bool(b) => J::from(*b),
        Value::Unknown => J::from("?"),
        Value::Array(a) => J::from(a.iter().map(value_json).collect::<Vec<_>>()),
    }
}

/// A geometry value as text: `0x900000000`, `[[40, 72], [8, 104]]`, `?`.
pub(super) fn value_text(v: &Value) -> String {
    match v {
        Value::Int(i) => int_text(*i),
        Value::Bool(b) => b.to_string(),
        Value::Unknown => "?".to_string(),
        Value::Array(a) => format!("[{}]", a.iter().map(value_text).collect::<Vec<_>>().join(", ")),
    }
}

/// A geometry value as its arch file writes it: each integer spelled as there (`0x6`,
/// `[0x0, 0x1000000000]`); a value no file states (derived) as [`value_text`] does.
pub(super) fn arch_value_text(v: &ArchValue) -> String {
    fn ints(v: &Value, out: &mut Vec<i128>) {
        match v {
            Value::Int(i) => out.push(*i),
            Value::Array(a) => a.iter().for_each(|x| ints(x, out)),
            Value::Bool(_) | Value::Unknown => {}
        }
    }
    fn spelled<'s>(v: &Value, words: &mut impl Iterator<Item = &'s str>) -> String {
        match v {
            Value::Int(i) => words.next().map_or_else(|| int_text(*i), str::to_string),
            Value::Array(a) => {
                let items: Vec<String> = a.iter().map(|x| spelled(x, words)).collect();
                format!("[{}]", items.join(", "))
            }
            other => value_text(other),
        }
    }
    let mut want = Vec::new();
    ints(&v.value, &mut want);
    let Some(text) = &v.literal else { return value_text(&v.value) };
    // The integer literals of the TOML text, in order; strings (`"?"`) and comments skipped.
    let mut words: Vec<&str> = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while !rest.is_empty() {
            let Some(c) = rest.chars().next() else { break };
            if c == '#' {
                break;
            }
            if c == '"' {
                rest = rest[1..].find('"').map_or("", |e| &rest[e + 2..]);
                continue;
            }
            let end = rest.find(|c: char| " \t,[]".contains(c)).unwrap_or(rest.len());
            let (word, tail) = rest.split_at(end.max(c.len_utf8()));
            if word.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') {
                words.push(word);
            }
            rest = tail;
        }
    }
    let parse = |w: &str| -> Option<i128> {
        let w = w.replace('_', "");
        let (neg, w) = match w.strip_prefix('-') {
            Some(r) => (true, r.to_string()),
            None => (false, w.trim_start_matches('+').to_string()),
        };
        let v = match w.get(..2) {
            Some("0x") => i128::from_str_radix(&w[2..], 16),
            Some("0o") => i128::from_str_radix(&w[2..], 8),
            Some("0b") => i128::from_str_radix(&w[2..], 2),
            _ => w.parse(),
        };
        v.ok().map(|v| if neg { -v } else { v })
    };
    if words.len() == want.len() && words.iter().zip(&want).all(|(w, i)| parse(w) == Some(*i)) {
        spelled(&v.value, &mut words.into_iter())
    } else {
        value_text(&v.value)
    }
}

/// The name of a binding as the spec writes it: `PSEUDO_INST, sub @12 = PSEUDO_EXIT_EXECUTION`.
pub(crate) fn bind_name(m: &Model, b: &Binding) -> String {
    let op_enum = &m[m.opcode_enum()];
    let mut s = op_enum.variant_of(b.opcode).map_or_else(|| hex_text(b.opcode), |v| v.name.clone());
    if let Some(sub) = &b.sub {
        let v = sub
            .enum_id
            .and_then(|e| m[e].variant_of(sub.value))
            .map_or_else(|| sub.value.to_string(), |v| v.name.clone());
        s.push_str(&format!(", sub @{} = {v}", sub.offset));
    }
    s
}

/// The numbers of a binding as the spec writes its values: `0xDF, sub @12 = 1`.
pub(super) fn bind_key_text(m: &Model, b: &Binding) -> String {
    let op = m[m.opcode_enum()].variant_of(b.opcode);
    let mut s = op.map_or_else(|| hex_text(b.opcode), |v| v.literal.clone());
    if let Some(sub) = &b.sub {
        let v = sub.enum_id.and_then(|e| m[e].variant_of(sub.value));
        let v = v.map_or_else(|| sub.value.to_string(), |v| v.literal.clone());
        s.push_str(&format!(", sub @{} = {v}", sub.offset));
    }
    s
}

/// The numbers of a binding as JSON: `{ "opcode": 223, "sub": { "offset": 12, "value": 1 } | null }`.
pub(super) fn bind_key_json(b: &Binding) -> J {
    let sub = b.sub.as_ref().map_or(J::Null, |s| json!({ "offset": s.offset, "value": s.value }));
    json!({ "opcode": b.opcode, "sub": sub })
}

/// The predicate of an alt: `marker & 0xA0 == 0x80`, or `otherwise`.
pub(super) fn predicate_text(b: &Bits, p: &Option<Predicate>) -> String {
    match p {
        None => "otherwise".to_string(),
        Some(p) => {
            let f = b.fields.get(p.field as usize).map_or("?", |f| f.name.as_str());
            format!("{f} & {} == {}", hex_text(p.mask), hex_text(p.value))
        }
    }
}

/// A band's value set: `0xC1..=0xDF | 0xA9`.
pub(super) fn ranges_text(ranges: &[(u64, u64)]) -> String {
    ranges
        .iter()
        .map(
            |&(lo, hi)| {
                if lo == hi {
                    hex_text(lo)
                } else {
                    format!("{}..={}", hex_text(lo), hex_text(hi))
                }
            },
        )
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Where a field comes from: `inline` or `use DMA_2D_PATTERN as src`.
pub(super) fn placement_text(m: &Model, f: &Field, name: &dyn Fn(&str) -> String) -> String {
    match &f.group {
        None => "inline".to_string(),
        Some(g) => format!("use {}", use_name(&name(&m[g.group].name), &g.prefix)),
    }
}

/// The path name of a group use: `DMA_2D_PATTERN as src`.
pub(super) fn use_name(group: &str, prefix: &Option<String>) -> String {
    match prefix {
        Some(p) => format!("{group} as {p}"),
        None => group.to_string(),
    }
}

// ---------------------------------------------------------------------------------
// Items: JSON object and the short text the diff prints for an added or removed item
// ---------------------------------------------------------------------------------

pub(super) fn field(m: &Model, f: &Field) -> J {
    let group = f.group.as_ref().map_or(
        J::Null,
        |g| json!({ "name": m[g.group].name, "base": g.base, "prefix": g.prefix }),
    );
    with_meta(
        m,
        &f.meta,
        json!({
            "name": f.name,
            "offset": f.offset,
            "size": f.size,
            "type": type_str(m, &f.ty),
            "reserved": f.is_reserved(),
            "unknown": matches!(f.ty, FieldType::Unknown(_)),
            "inherited": f.inherited,
            "group": group,
        }),
    )
}

pub(super) fn field_val(m: &Model, f: &Field) -> Val {
    Val {
        json: field(m, f),
        text: format!("{}..{} {}", f.offset, f.offset + f.size, type_str(m, &f.ty)),
    }
}

pub(super) fn record(m: &Model, r: &Record) -> J {
    with_meta(
        m,
        &r.meta,
        json!({
            "name": r.name,
            "size": r.size,
            "discriminant": { "offset": r.discriminant.offset, "enum": m[r.discriminant.ty].name },
            "engines": r.engines.map(|v| m[v].name.clone()),
            "preamble_size": r.preamble_size,
            "preamble": r.preamble.iter().map(|f| field(m, f)).collect::<Vec<_>>(),
        }),
    )
}

pub(super) fn record_val(m: &Model, r: &Record) -> Val {
    Val { json: record(m, r), text: format!("size {}, preamble 0..{}", r.size, r.preamble_size) }
}

pub(super) fn structure(m: &Model, s: &Struct) -> J {
    with_meta(
        m,
        &s.meta,
        json!({
            "name": s.name,
            "kind": if s.is_group { "group" } else { "struct" },
            "size": s.size,
            "fields": s.fields.iter().map(|f| field(m, f)).collect::<Vec<_>>(),
        }),
    )
}

pub(super) fn struct_val(m: &Model, s: &Struct) -> Val {
    Val { json: structure(m, s), text: format!("size {}, {}", s.size, fields(s.fields.len())) }
}

/// The fields an arm declares (its layout without the inherited preamble).
pub(super) fn own_fields(l: &Layout) -> impl Iterator<Item = &Field> + '_ {
    l.fields.iter().filter(|f| !f.inherited)
}

pub(super) fn arm(m: &Model, id: ArmId) -> J {
    let a = &m[id];
    let layouts: Vec<J> = a
        .layouts
        .iter()
        .map(|l| {
            json!({
                "archs": l.archs.iter().map(|x| m[*x].name.clone()).collect::<Vec<_>>(),
                "fields": l.fields.iter().map(|f| field(m, f)).collect::<Vec<_>>(),
            })
        })
        .collect();
    with_meta(
        m,
        &a.meta,
        json!({
            "name": a.name,
            "full_preamble": a.full_preamble,
            "complete": m.is_complete(id),
            "layouts": layouts,
            "bindings": m.bindings_of(id).map(|b| bind_name(m, b)).collect::<Vec<_>>(),
        }),
    )
}

pub(super) fn arm_val(m: &Model, id: ArmId) -> Val {
    let a = &m[id];
    let binds: Vec<String> = m.bindings_of(id).map(|b| bind_name(m, b)).collect();
    let bound = if binds.is_empty() {
        "unbound".to_string()
    } else {
        format!("bound to {}", binds.join("; "))
    };
    // `2 layouts: 13 fields (cayman, mariana), 13 fields (maverick)`: an arch list has
    // commas of its own.
    let shape = if a.is_per_generation() {
        let per: Vec<String> = a
            .layouts
            .iter()
            .map(|l| format!("{} ({})", fields(own_fields(l).count()), arch_list_text(m, &l.archs)))
            .collect();
        format!("{} layouts: {}", a.layouts.len(), per.join(", "))
    } else {
        fields(own_fields(&a.layouts[0]).count())
    };
    Val { json: arm(m, id), text: format!("{shape}, {bound}") }
}

/// `cayman..`, `sunda..mariana`, `sunda, mariana`: a sorted arch list as `@archs` writes
/// it, a run that reaches the newest generation open-ended, other runs of three or more
/// as ranges.
pub(super) fn arch_list_text(m: &Model, archs: &[ArchId]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < archs.len() {
        let mut j = i;
        while j + 1 < archs.len() && archs[j + 1].0 == archs[j].0 + 1 {
            j += 1;
        }
        let last = archs[j].0 as usize + 1 == m.archs.len();
        if j > i && last {
            out.push(format!("{}..", m[archs[i]].name));
        } else if j >= i + 2 {
            out.push(format!("{}..{}", m[archs[i]].name, m[archs[j]].name));
        } else {
            out.extend(archs[i..=j].iter().map(|x| m[*x].name.clone()));
        }
        i = j + 1;
    }
    out.join(", ")
}

/// `@archs(cayman..)`: the note on an item added or removed with its availability.
pub(super) fn archs_note(m: &Model, list: &[ArchId]) -> String {
    format!("@archs({})", arch_list_text(m, list))
}

pub(super) fn view(m: &Model, v: &View) -> J {
    let select = match v.select {
        Select::When(t) => json!({ "offset": t.offset, "mask": t.mask, "value": t.value }),
        Select::Otherwise => J::from("otherwise"),
        Select::Never => J::Null,
    };
    with_meta(m, &v.meta, json!({ "name": v.name, "type": type_str(m, &v.ty), "select": select }))
}

/// How a view is chosen: `when byte 3 & 0x60 == 0x20`, `otherwise`, `never`.
pub(super) fn select_text(s: &Select) -> String {
    match s {
        Select::When(t) => format!(
            "when byte {} & {} == {}",
            t.offset,
            hex_text(t.mask.into()),
            hex_text(t.value.into())
        ),
        Select::Otherwise => "otherwise".to_string(),
        Select::Never => "never".to_string(),
    }
}

pub(super) fn view_val(m: &Model, v: &View) -> Val {
    let sel = match v.select {
        Select::Never => String::new(),
        s => format!(" {}", select_text(&s)),
    };
    Val { json: view(m, v), text: format!("{}{sel}", type_str(m, &v.ty)) }
}

pub(super) fn union(m: &Model, u: &Union) -> J {
    with_meta(
        m,
        &u.meta,
        json!({
            "name": u.name,
            "size": u.size,
            "views": u.views.iter().map(|v| view(m, v)).collect::<Vec<_>>(),
        }),
    )
}

pub(super) fn union_val(m: &Model, u: &Union) -> Val {
    Val {
        json: union(m, u),
        text: format!("size {}, {}", u.size, count(u.views.len(), "view", "views")),
    }
}

fn word(m: &Model, w: &Word) -> J {
    with_meta(m, &w.meta, json!({ "name": w.name }))
}

pub(super) fn word_val(m: &Model, w: &Word) -> Val {
    Val { json: word(m, w), text: w.name.clone() }
}

pub(super) fn vocab(m: &Model, v: &Vocab) -> J {
    with_meta(
        m,
        &v.meta,
        json!({ "name": v.name, "words": v.words.iter().map(|w| word(m, w)).collect::<Vec<_>>() }),
    )
}

pub(super) fn vocab_val(m: &Model, v: &Vocab) -> Val {
    let words: Vec<&str> = v.words.iter().map(|w| w.name.as_str()).collect();
    Val { json: vocab(m, v), text: words.join(" ") }
}

/// A bit-field's type: `uint`, `bool` or the enum's name.
pub(super) fn bit_type_str(m: &Model, t: BitType) -> String {
    match t {
        BitType::Uint => "uint".to_string(),
        BitType::Bool => "bool".to_string(),
        BitType::Enum(e) => m[e].name.clone(),
    }
}

fn bitfield(m: &Model, f: &BitField) -> J {
    with_meta(
        m,
        &f.meta,
        json!({ "name": f.name, "lo": f.lo, "hi": f.hi, "type": bit_type_str(m, f.ty) }),
    )
}

pub(super) fn bitfield_val(m: &Model, f: &BitField) -> Val {
    let ty = match f.ty {
        BitType::Uint => String::new(),
        t => format!(" {}", bit_type_str(m, t)),
    };
    Val { json: bitfield(m, f), text: format!("bits {}..{}{ty}", f.lo, f.hi) }
}

fn alt(m: &Model, b: &Bits, a: &Alt) -> J {
    let when = a.when.as_ref().map_or(J::Null, |p| {
        json!({
            "field": b.fields.get(p.field as usize).map(|f| f.name.clone()),
            "mask": p.mask,
            "value": p.value,
        })
    });
    with_meta(
        m,
        &a.meta,
        json!({ "name": a.name, "when": when, "fields": a.fields.iter().map(|f| bitfield(m, f)).collect::<Vec<_>>() }),
    )
}

pub(super) fn alt_val(m: &Model, b: &Bits, a: &Alt) -> Val {
    Val { json: alt(m, b, a), text: format!("when {}", predicate_text(b, &a.when)) }
}

pub(super) fn bits(m: &Model, b: &Bits) -> J {
    with_meta(
        m,
        &b.meta,
        json!({
            "name": b.name,
            "width": b.width.as_str(),
            "fields": b.fields.iter().map(|f| bitfield(m, f)).collect::<Vec<_>>(),
            "alts": b.alts.iter().map(|a| alt(m, b, a)).collect::<Vec<_>>(),
        }),
    )
}

pub(super) fn bits_val(m: &Model, b: &Bits) -> Val {
    Val {
        json: bits(m, b),
        text: format!(
            "{}, {}, {}",
            b.width.as_str(),
            count(b.fields.len(), "bit-field", "bit-fields"),
            count(b.alts.len(), "alt", "alts")
        ),
    }
}

/// The engine words of an opcode.
pub(super) fn engine_names(m: &Model, v: &Variant) -> Vec<String> {
    word_names(m, &v.engines)
}

/// The names of `@engine` words given as indexes into the record's `engines` vocabulary.
pub(super) fn word_names(m: &Model, engines: &[u32]) -> Vec<String> {
    let vocab = m.record.engines.map(|id| &m[id]);
    engines
        .iter()
        .map(|&i| {
            vocab
                .and_then(|w| w.words.get(i as usize))
                .map_or_else(|| i.to_string(), |w| w.name.clone())
        })
        .collect()
}

/// The arm an opcode value selects by itself (a binding without a sub-opcode).
pub(super) fn opcode_arm(m: &Model, value: u64) -> Option<&str> {
    m.bindings.iter().find(|b| b.opcode == value && b.sub.is_none()).map(|b| m[b.arm].name.as_str())
}

/// Whether `e` is the record's discriminant enum (the opcode table).
pub(super) fn is_opcode_enum(m: &Model, e: &Enum) -> bool {
    m[m.opcode_enum()].name == e.name
}

fn variant(m: &Model, e: &Enum, v: &Variant) -> J {
    let arm = if is_opcode_enum(m, e) { opcode_arm(m, v.value) } else { None };
    with_meta(
        m,
        &v.meta,
        json!({
            "name": v.name,
            "value": v.value,
            "status": v.status.map(Status::as_str),
            "engines": engine_names(m, v),
            "arm": arm,
        }),
    )
}

pub(super) fn variant_val(m: &Model, e: &Enum, v: &Variant) -> Val {
    let mut text = v.literal.clone();
    if is_opcode_enum(m, e) {
        if let Some(a) = opcode_arm(m, v.value) {
            text.push_str(&format!(" => {a}"));
        }
        let engines = engine_names(m, v);
        if !engines.is_empty() {
            text.push_str(&format!(" @engine({})", engines.join(", ")));
        }
    }
    Val { json: variant(m, e, v), text }
}

pub(super) fn enumeration(m: &Model, e: &Enum) -> J {
    with_meta(
        m,
        &e.meta,
        json!({
            "name": e.name,
            "width": e.width.as_str(),
            "variants": e.variants.iter().map(|v| variant(m, e, v)).collect::<Vec<_>>(),
        }),
    )
}

pub(super) fn enum_val(m: &Model, e: &Enum) -> Val {
    Val {
        json: enumeration(m, e),
        text: format!("{}, {}", e.width.as_str(), count(e.variants.len(), "value", "values")),
    }
}

pub(super) fn band(m: &Model, b: &Band) -> J {
    with_meta(
        m,
        &b.meta,
        json!({
            "enum": m[b.enum_id].name,
            "name": b.name,
            "ranges": b.ranges.iter().map(|&(lo, hi)| json!([lo, hi])).collect::<Vec<_>>(),
        }),
    )
}

pub(super) fn band_val(m: &Model, b: &Band) -> Val {
    Val { json: band(m, b), text: ranges_text(&b.ranges) }
}

pub(super) fn binding(m: &Model, b: &Binding) -> J {
    let op_enum = &m[m.opcode_enum()];
    let sub = b.sub.as_ref().map_or(J::Null, |s| {
        json!({
            "offset": s.offset,
            "value": s.value,
            "value_name": s.enum_id.and_then(|e| m[e].variant_of(s.value)).map(|v| v.name.clone()),
        })
    });
    with_meta(
        m,
        &b.meta,
        json!({
            "name": bind_name(m, b),
            "opcode": b.opcode,
            "opcode_name": op_enum.variant_of(b.opcode).map(|v| v.name.clone()),
            "sub": sub,
            "arm": m[b.arm].name,
            "mnemonic": b.mnemonic,
        }),
    )
}

/// A binding as the spec writes it: `0xF0, sub @12 = 1 => ARM`, and `as NAME` for one
/// with a mnemonic of its own.
pub(super) fn binding_val(m: &Model, b: &Binding) -> Val {
    let mut text = format!("{} => {}", bind_key_text(m, b), m[b.arm].name);
    if b.own_mnemonic {
        text.push_str(&format!(" as {}", b.mnemonic));
    }
    Val { json: binding(m, b), text }
}

pub(super) fn sentinel(m: &Model, s: &Sentinel) -> J {
    let b = &m[s.binding];
    with_meta(
        m,
        &s.meta,
        json!({ "name": s.name, "binding": bind_name(m, b), "arm": m[b.arm].name }),
    )
}

pub(super) fn sentinel_val(m: &Model, s: &Sentinel) -> Val {
    Val { json: sentinel(m, s), text: bind_name(m, &m[s.binding]) }
}

pub(super) fn bitmask(m: &Model, b: &Bitmask) -> J {
    // The words as hex strings too: exact for readers whose numbers are doubles (jq,
    // JavaScript), which round a word past 2^53.
    let hex: Vec<String> = b.words.iter().map(|w| format!("{w:#018x}")).collect();
    with_meta(
        m,
        &b.meta,
        json!({ "name": b.name, "enum": m[b.enum_id].name, "words": b.words, "words_hex": hex }),
    )
}

/// A bitmask's words as the spec writes them, sixteen digits each, so that the old and
/// the new line up digit for digit.
pub(super) fn words_text(words: &[u64]) -> String {
    format!("[{}]", words.iter().map(|w| format!("0x{w:016X}")).collect::<Vec<_>>().join(", "))
}

pub(super) fn bitmask_val(m: &Model, b: &Bitmask) -> Val {
    Val { json: bitmask(m, b), text: format!("{} {}", m[b.enum_id].name, words_text(&b.words)) }
}

fn region(m: &Model, r: &Region) -> J {
    with_meta(m, &r.meta, json!({ "name": r.name, "base": r.base, "size": r.size }))
}

pub(super) fn region_val(m: &Model, r: &Region) -> Val {
    Val {
        json: region(m, r),
        text: format!("{} + {}", int_text(r.base.into()), int_text(r.size.into())),
    }
}

pub(super) fn aperture(m: &Model, a: &Aperture) -> J {
    with_meta(
        m,
        &a.meta,
        json!({ "name": a.name, "regions": a.regions.iter().map(|r| region(m, r)).collect::<Vec<_>>() }),
    )
}

pub(super) fn aperture_val(m: &Model, a: &Aperture) -> Val {
    Val { json: aperture(m, a), text: count(a.regions.len(), "region", "regions") }
}

/// `geometry`, `derived` or `rule`.
pub(super) fn form(g: &GeomItem) -> &'static str {
    match g.kind {
        GeomKind::Value(_) => "geometry",
        GeomKind::Derived(..) => "derived",
        GeomKind::Rule { .. } => "rule",
    }
}

pub(super) fn geom(m: &Model, g: &GeomItem) -> J {
    let id = |s: &str| s.to_string();
    let mut obj = Map::new();
    obj.insert("name".into(), J::from(g.name.clone()));
    obj.insert("form".into(), J::from(form(g)));
    match &g.kind {
        GeomKind::Value(t) => {
            obj.insert("type".into(), J::from(geom_type_str(m, t)));
        }
        GeomKind::Derived(t, e) => {
            obj.insert("type".into(), J::from(geom_type_str(m, t)));
            obj.insert("expr".into(), J::from(expr_str(m, e, &[], &id)));
        }
        GeomKind::Rule { params, expr, requires } => {
            obj.insert("params".into(), J::from(params.clone()));
            obj.insert("expr".into(), J::from(expr_str(m, expr, params, &id)));
            let req: Vec<J> = requires
                .iter()
                .map(|c| J::from(requires_str(m, std::slice::from_ref(c), params, &id)))
                .collect();
            obj.insert("requires".into(), J::from(req));
        }
    }
    with_meta(m, &g.meta, J::Object(obj))
}

pub(super) fn geom_val(m: &Model, g: &GeomItem) -> Val {
    let id = |s: &str| s.to_string();
    let text = match &g.kind {
        GeomKind::Value(t) => format!("geometry {}", geom_type_str(m, t)),
        GeomKind::Derived(t, e) => {
            format!("derived {} = {}", geom_type_str(m, t), expr_str(m, e, &[], &id))
        }
        GeomKind::Rule { params, expr, .. } => {
            format!("rule ({}) = {}", params.join(", "), expr_str(m, expr, params, &id))
        }
    };
    Val { json: geom(m, g), text }
}

pub(super) fn arch_value(m: &Model, g: GeomId, v: &ArchValue) -> J {
    let derived = matches!(m[g].kind, GeomKind::Derived(..));
    with_meta(
        m,
        &v.meta,
        json!({
            "value": value_json(&v.value),
            "defined_in": m[v.defined_in].name,
            "derived": derived,
            "stated": !derived || v.stated,
        }),
    )
}

pub(super) fn arch_value_val(m: &Model, g: GeomId, v: &ArchValue) -> Val {
    Val { json: arch_value(m, g, v), text: arch_value_text(v) }
}

pub(super) fn arch(m: &Model, id: ArchId) -> J {
    let a = &m[id];
    let mut values = Map::new();
    for g in m.geom_ids() {
        if matches!(m[g].kind, GeomKind::Rule { .. }) {
            continue;
        }
        values.insert(m[g].name.clone(), a.value(g).map_or(J::Null, |v| arch_value(m, g, v)));
    }
    with_meta(
        m,
        &a.meta,
        json!({
            "name": a.name,
            "generation": a.generation,
            "label": a.label,
            "aliases": a.aliases,
            "inherits": a.inherits.map(|p| m[p].name.clone()),
            "geometry_known": a.geometry_known,
            "values": values,
        }),
    )
}

pub(super) fn arch_val(m: &Model, id: ArchId) -> Val {
    let a = &m[id];
    let unknown = if a.geometry_known { "" } else { ", geometry unknown" };
    Val { json: arch(m, id), text: format!("generation {} ({}){unknown}", a.generation, a.label) }
}

/// `n fields`, `1 field`.
fn fields(n: usize) -> String {
    count(n, "field", "fields")
}

/// `0 values`, `1 value`, `2 values`.
fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}
