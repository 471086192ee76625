//! Text (grouped by class, then by item) and JSON renderings of a [`Diff`].

use std::fmt::Write;

use serde_json::json;

use super::{path_text, Change, Class, Diff, Kind, Site, Val};

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";

struct Style {
    on: bool,
}

impl Style {
    fn paint(&self, codes: &[&str], s: &str) -> String {
        if self.on {
            format!("{}{s}{RESET}", codes.concat())
        } else {
            s.to_string()
        }
    }
}

fn class_name(c: Class) -> &'static str {
    match c {
        Class::Breaking => "breaking",
        Class::Additive => "additive",
        Class::Metadata => "metadata",
    }
}

fn class_color(c: Class) -> &'static str {
    match c {
        Class::Breaking => RED,
        Class::Additive => GREEN,
        Class::Metadata => CYAN,
    }
}

/// The longest one-line value printed inline; longer or multi-line values get -/+ lines.
const INLINE: usize = 72;

fn inline(v: &Val) -> bool {
    !v.text.contains('\n') && v.text.chars().count() <= INLINE
}

fn reaches_text(arms: &[String]) -> String {
    const SHOWN: usize = 8;
    if arms.len() <= SHOWN {
        arms.join(", ")
    } else {
        format!("{}, and {} more", arms[..SHOWN].join(", "), arms.len() - SHOWN)
    }
}

fn sites(old: &Option<Site>, new: &Option<Site>) -> Option<String> {
    match (old, new) {
        (Some(a), Some(b)) if a == b => Some(a.to_string()),
        (Some(a), Some(b)) => Some(format!("{a} → {b}")),
        (Some(a), None) | (None, Some(a)) => Some(a.to_string()),
        (None, None) => None,
    }
}

/// The lines of a change under its item header.
fn change_lines(c: &Change, st: &Style, out: &mut String) {
    let sub = path_text(&c.path[1.min(c.path.len())..]);
    let mut extra: Vec<String> = Vec::new();
    let empty = Val { json: serde_json::Value::Null, text: String::new() };
    let (old, new) = (c.old.as_ref().unwrap_or(&empty), c.new.as_ref().unwrap_or(&empty));
    let desc = match c.kind {
        Kind::Added if new.text.is_empty() => "added".to_string(),
        Kind::Added if inline(new) => format!("added: {}", new.text),
        Kind::Removed if old.text.is_empty() => "removed".to_string(),
        Kind::Removed if inline(old) => format!("removed: {}", old.text),
        Kind::Added | Kind::Removed => {
            let (sign, v) = if c.kind == Kind::Added { ("+", new) } else { ("-", old) };
            extra.extend(v.text.lines().map(|l| format!("{sign} {l}")));
            if c.kind == Kind::Added { "added" } else { "removed" }.to_string()
        }
        Kind::Renamed => format!("renamed {} → {}", old.text, new.text),
        Kind::Changed => {
            let aspect = c.aspect.map_or("value", |a| a.as_str()).replace('_', " ");
            if inline(old) && inline(new) && !old.text.is_empty() && !new.text.is_empty() {
                format!("{aspect} {} → {}", old.text, new.text)
            } else {
                let (ol, nl): (Vec<&str>, Vec<&str>) =
                    (old.text.lines().collect(), new.text.lines().collect());
                extra.extend(ol.iter().filter(|l| !nl.contains(l)).map(|l| format!("- {l}")));
                extra.extend(nl.iter().filter(|l| !ol.contains(l)).map(|l| format!("+ {l}")));
                if extra.is_empty() {
                    // Same lines in another order.
                    extra.extend(ol.iter().map(|l| format!("- {l}")));
                    extra.extend(nl.iter().map(|l| format!("+ {l}")));
                }
                format!("{aspect} changed")
            }
        }
    };
    let mut line = if sub.is_empty() { desc } else { format!("{sub}: {desc}") };
    if let Some(n) = &c.note {
        let _ = write!(line, " ({n})");
    }
    if !extra.is_empty() {
        line.push(':');
    }
    let _ = writeln!(out, "    {line}");
    for e in extra {
        let color = if e.starts_with('-') { RED } else { GREEN };
        let _ = writeln!(out, "      {}", st.paint(&[color], e.trim_end()));
    }
    if let Some(s) = sites(&c.old_at, &c.new_at) {
        let _ = writeln!(out, "      {}", st.paint(&[DIM], &format!("at {s}")));
    }
}

pub(super) fn text(d: &Diff, color: bool) -> String {
    let st = Style { on: color };
    let mut out = String::new();
    let title = format!("{} → {}", d.old, d.new);
    if d.is_empty() {
        let _ = writeln!(out, "{}: no changes", st.paint(&[BOLD], &title));
        return out;
    }
    let counts: Vec<String> = [Class::Breaking, Class::Additive, Class::Metadata]
        .iter()
        .map(|&c| format!("{} {}", d.count(c), class_name(c)))
        .collect();
    let n = d.changes.len();
    let steps = match (d.opcode_steps(), d.opcodes_renumbered()) {
        ((0, 0), 0) => String::new(),
        ((added, removed), 0) => format!("; opcodes +{added} -{removed}"),
        ((added, removed), n) => format!("; opcodes +{added} -{removed}, {n} renumbered"),
    };
    let _ = writeln!(
        out,
        "{}: {n} change{} ({}){steps}",
        st.paint(&[BOLD], &title),
        if n == 1 { "" } else { "s" },
        counts.join(", ")
    );
    for class in [Class::Breaking, Class::Additive, Class::Metadata] {
        let list: Vec<&Change> = d.changes.iter().filter(|c| c.class == class).collect();
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{}",
            st.paint(
                &[BOLD, class_color(class)],
                &format!("{} ({})", class_name(class), list.len())
            )
        );
        let mut i = 0;
        while i < list.len() {
            let root = list[i].path.first();
            let group: Vec<&Change> =
                list[i..].iter().take_while(|c| c.path.first() == root).copied().collect();
            let mut header =
                root.map_or_else(String::new, |s| format!("{} {}", s.kind.as_str(), s.name));
            let reaches = &group[0].reaches;
            if !reaches.is_empty() {
                let _ = write!(
                    header,
                    "  {}",
                    st.paint(&[DIM], &format!("(reaches {})", reaches_text(reaches)))
                );
            }
            let _ = writeln!(out, "  {header}");
            for c in &group {
                change_lines(c, &st, &mut out);
            }
            i += group.len();
        }
    }
    out
}

fn site_json(s: &Option<Site>) -> serde_json::Value {
    s.as_ref().map_or(
        serde_json::Value::Null,
        |s| json!({ "file": s.file, "line": s.line, "col": s.col }),
    )
}

pub(super) fn json(d: &Diff) -> String {
    let changes: Vec<serde_json::Value> = d
        .changes
        .iter()
        .map(|c| {
            json!({
                "class": c.class,
                "kind": c.kind,
                "path": c.path,
                "path_text": c.path_text(),
                "aspect": c.aspect,
                "old": c.old.as_ref().map(|v| v.json.clone()),
                "new": c.new.as_ref().map(|v| v.json.clone()),
                "old_at": site_json(&c.old_at),
                "new_at": site_json(&c.new_at),
                "reaches": c.reaches,
                "note": c.note,
            })
        })
        .collect();
    let (added, removed) = d.opcode_steps();
    let doc = json!({
        "format": "tpb-isa-diff",
        "version": 2,
        "old": d.old,
        "new": d.new,
        "summary": {
            "breaking": d.count(Class::Breaking),
            "additive": d.count(Class::Additive),
            "metadata": d.count(Class::Metadata),
            "opcodes": { "added": added, "removed": removed, "renumbered": d.opcodes_renumbered() },
        },
        "changes": changes,
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("a JSON value serialises");
    s.push('\n');
    s
}
