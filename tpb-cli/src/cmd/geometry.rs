//! `tpb geometry`: every geometry value of one generation or all, shown as the spec's
//! reference (`docs/isa.md`) and `cargo xtask diff` show them: integers from 0x1000 in
//! hex, `?` where the sources do not give a value, `—` where the spec declares it only
//! for other generations (`@archs`), `unknown` for a generation whose geometry no source
//! gives. `--json` writes the same values for tools.

use std::io::Write;

use anyhow::{Context, Result};
use serde_json::{json, Map, Value};
use tpb_isa::generated::geometry::GEOMETRY;
use tpb_isa::Arch;

use crate::records::parse_arch;
use crate::table::table;

#[derive(clap::Args)]
pub struct Args {
    /// The generation (a name, label or alias: cayman, V3, trn2); all when absent.
    arch: Option<String>,
    /// Write JSON (format `tpb-geometry`, version 1): per generation its name, label,
    /// whether any source gives its geometry, and its values by spec name; a value the
    /// sources do not give is `null`, one the spec declares only for other generations
    /// is left out.
    #[arg(long)]
    json: bool,
}

impl Args {
    pub fn run(self, out: &mut dyn Write) -> Result<bool> {
        let archs: Vec<Arch> = match &self.arch {
            Some(a) => vec![parse_arch(a)?],
            None => Arch::ALL.to_vec(),
        };
        if self.json {
            let doc = json!({
                "format": "tpb-geometry",
                "version": 1,
                "generations": archs.iter().map(|&a| generation_json(a)).collect::<Result<Vec<_>>>()?,
            });
            serde_json::to_writer_pretty(&mut *out, &doc)?;
            writeln!(out)?;
            return Ok(true);
        }
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut head = vec![String::from("value")];
        head.extend(archs.iter().map(|a| format!("{} ({})", a.name(), a.label())));
        rows.push(head);
        for g in GEOMETRY {
            let mut row = vec![g.name.to_owned()];
            for &a in &archs {
                let mut s = String::new();
                match a.geometry() {
                    Some(geo) => (g.show)(geo, &mut s)?,
                    None => s.push_str("unknown"),
                }
                row.push(readable(&s));
            }
            rows.push(row);
        }
        table(out, &rows)?;
        // What the marks mean, for those the table shows: a reader meets `?` and `—`
        // without the reference at hand.
        let cells = || rows.iter().skip(1).flat_map(|r| r.iter().skip(1));
        let shown: Vec<_> = LEGEND
            .iter()
            .filter(|(mark, _)| match *mark {
                "unknown" => cells().any(|c| c == mark),
                _ => cells().any(|c| c.contains(mark)),
            })
            .collect();
        if !shown.is_empty() {
            writeln!(out)?;
        }
        for (mark, means) in shown {
            writeln!(out, "{mark}: {means}")?;
        }
        Ok(true)
    }
}

/// The marks of the text table and what each means, in the order they are explained.
const LEGEND: &[(&str, &str)] = &[
    ("?", "no source gives the value"),
    ("—", "the spec declares the value only for other generations"),
    ("unknown", "no source gives this generation's geometry"),
];

/// One generation's object of `--json`.
fn generation_json(a: Arch) -> Result<Value> {
    let values = match a.geometry() {
        Some(geo) => {
            let mut m = Map::new();
            for g in GEOMETRY {
                let mut s = String::new();
                (g.show)(geo, &mut s)?;
                if s != "—" {
                    let v = serde_json::from_str(&json_text(&s))
                        .with_context(|| format!("geometry value {} reads as {s}", g.name))?;
                    m.insert(g.name.to_owned(), v);
                }
            }
            Value::Object(m)
        }
        None => Value::Null,
    };
    Ok(json!({
        "name": a.name(),
        "label": a.label(),
        "known": a.geometry().is_some(),
        "values": values,
    }))
}

/// The generated table's `Debug` text of a value as JSON text: `Some(x)` as `x`, `None`
/// and `?` (not given) as `null`, a tuple as an array; integers, booleans and arrays
/// are already JSON.
fn json_text(debug: &str) -> String {
    rewrite(debug, true)
}

/// The generated table writes values with `Debug` (`[Some(137438953472), None]`); show
/// them as the reference does (`[0x2000000000, ?]`): `Some(x)` as `x`, `None` as `?`,
/// integers from 0x1000 in hex.
fn readable(debug: &str) -> String {
    rewrite(debug, false)
}

/// [`json_text`] (`json`) or [`readable`] of a value's `Debug` text.
fn rewrite(debug: &str, json: bool) -> String {
    let mut out = String::with_capacity(debug.len());
    // For each open parenthesis: whether it is a `Some(` whose `)` is dropped too.
    let mut opened = Vec::new();
    let mut rest = debug;
    let none = if json { "null" } else { "?" };
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("Some(") {
            opened.push(true);
            rest = r;
            continue;
        }
        if let Some(r) = rest.strip_prefix("None") {
            out.push_str(none);
            rest = r;
            continue;
        }
        if c.is_ascii_digit() {
            let n = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            match rest[..n].parse::<u128>() {
                Ok(v) if v >= 0x1000 && !json => out.push_str(&format!("{v:#x}")),
                _ => out.push_str(&rest[..n]),
            }
            rest = &rest[n..];
            continue;
        }
        match c {
            '?' => out.push_str(none),
            '(' => {
                opened.push(false);
                out.push(if json { '[' } else { '(' });
            }
            ')' => {
                if opened.pop() == Some(false) {
                    out.push(if json { ']' } else { ')' });
                }
            }
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{json_text, readable};

    #[test]
    fn debug_values_read_as_json() {
        let j = |s: &str| serde_json::from_str::<serde_json::Value>(&json_text(s)).unwrap();
        assert_eq!(j("4"), serde_json::json!(4));
        assert_eq!(j("?"), serde_json::Value::Null);
        assert_eq!(j("-1"), serde_json::json!(-1));
        assert_eq!(
            j("[Some(137438953472), None, Some(7)]"),
            serde_json::json!([137438953472u64, null, 7])
        );
        assert_eq!(j("[[36, 68], [4, 100]]"), serde_json::json!([[36, 68], [4, 100]]));
        assert_eq!(j("Some((1, 2))"), serde_json::json!([1, 2]));
        assert_eq!(j("[(1, Some(2)), (3, None)]"), serde_json::json!([[1, 2], [3, null]]));
        assert_eq!(j("true"), serde_json::json!(true));
    }

    #[test]
    fn debug_values_read_as_the_reference_shows_them() {
        assert_eq!(readable("4"), "4");
        assert_eq!(readable("?"), "?");
        assert_eq!(readable("—"), "—");
        assert_eq!(readable("4095"), "4095");
        assert_eq!(readable("4096"), "0x1000");
        assert_eq!(readable("[29028, 29284]"), "[0x7164, 0x7264]");
        assert_eq!(readable("[Some(137438953472), None, Some(7)]"), "[0x2000000000, ?, 7]");
        assert_eq!(readable("[[36, 68], [4, 100]]"), "[[36, 68], [4, 100]]");
        assert_eq!(readable("Some((1, 2))"), "(1, 2)");
        assert_eq!(readable("true"), "true");
    }
}
