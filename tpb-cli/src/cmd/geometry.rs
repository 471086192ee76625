//! `tpb geometry`: every geometry value of one generation or all, shown as the spec's
//! reference (`docs/isa.md`) and `cargo xtask diff` show them: integers from 0x1000 in
//! hex, `?` where the sources do not give a value, `—` where the spec declares it only
//! for other generations (`@archs`), `unknown` for a generation whose geometry no source
//! gives; an array too wide for a column an element a row (`hbm_bases[0]`, …). `--json`
//! writes the same values for tools.

use std::io::Write;

use anyhow::{Context, Result};
use serde_json::{json, Map, Value};
use tpb_isa::generated::geometry::GEOMETRY;
use tpb_isa::Arch;

use crate::json_doc;
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
                "generations": archs.iter().map(|&a| generation_json(a)).collect::<Result<Vec<_>>>()?,
            });
            json_doc::write(out, "tpb-geometry", 1, &doc)?;
            return Ok(true);
        }
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut head = vec![String::from("value")];
        head.extend(archs.iter().map(|a| format!("{} ({})", a.name(), a.label())));
        rows.push(head);
        for g in GEOMETRY {
            let mut cells = Vec::with_capacity(archs.len());
            for &a in &archs {
                let mut s = String::new();
                match a.geometry() {
                    Some(geo) => (g.show)(geo, &mut s)?,
                    None => s.push_str("unknown"),
                }
                cells.push(readable(&s));
            }
            rows.extend(value_rows(g.name, &cells));
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

/// The widest cell a value's row keeps: an array wider than this in any generation is
/// shown an element a row, so that one long table of bases does not widen every row of
/// the side-by-side table past a terminal.
const WIDE: usize = 24;

/// The table rows of the value `name` whose cells (one a generation) are `cells`: one
/// row, or, for an array wider than [`WIDE`] in some generation, a row per element
/// (`name[0]`, `name[1]`, …), a generation's cell blank past its array's end and its
/// mark (`?`, `—`, `unknown`) on every row where it has no array.
fn value_rows(name: &str, cells: &[String]) -> Vec<Vec<String>> {
    let whole = || {
        let mut row = vec![name.to_owned()];
        row.extend(cells.iter().cloned());
        vec![row]
    };
    if cells.iter().all(|c| c.chars().count() <= WIDE) {
        return whole();
    }
    let split: Vec<Option<Vec<&str>>> = cells.iter().map(|c| elements(c)).collect();
    let n = split.iter().flatten().map(Vec::len).max().unwrap_or(0);
    if n == 0 {
        return whole();
    }
    (0..n)
        .map(|i| {
            let mut row = vec![format!("{name}[{i}]")];
            row.extend(split.iter().zip(cells).map(|(e, cell)| match e {
                Some(e) => e.get(i).map_or_else(String::new, |x| (*x).to_owned()),
                None => cell.clone(),
            }));
            row
        })
        .collect()
}

/// The elements of an array's text (`[0x1, [2, 3], ?]`: `0x1`, `[2, 3]`, `?`), split at
/// its own commas; `None` for text that is not an array.
fn elements(cell: &str) -> Option<Vec<&str>> {
    let inner = cell.strip_prefix('[')?.strip_suffix(']')?;
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(inner[start..].trim());
    Some(out)
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
    use super::{elements, json_text, readable, value_rows};

    #[test]
    fn an_arrays_text_splits_at_its_own_commas() {
        assert_eq!(elements("[0x1, [2, 3], ?]"), Some(vec!["0x1", "[2, 3]", "?"]));
        assert_eq!(elements("[(1, 2), (3, ?)]"), Some(vec!["(1, 2)", "(3, ?)"]));
        assert_eq!(elements("[]"), Some(vec![]));
        assert_eq!(elements("0x1000"), None);
        assert_eq!(elements("?"), None);
    }

    /// A short value is one row; a wide array a row per element, shorter arrays blank
    /// past their end and a generation without one showing its mark on every row.
    #[test]
    fn a_wide_array_is_a_row_per_element() {
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        assert_eq!(value_rows("n", &s(&["2", "[1, 2]"])), vec![s(&["n", "2", "[1, 2]"])]);
        let wide = "[0x2000000000, 0x3000000000, ?]";
        assert_eq!(
            value_rows("bases", &s(&["—", "[0x1000, 0x2000]", wide, "unknown"])),
            vec![
                s(&["bases[0]", "—", "0x1000", "0x2000000000", "unknown"]),
                s(&["bases[1]", "—", "0x2000", "0x3000000000", "unknown"]),
                s(&["bases[2]", "—", "", "?", "unknown"]),
            ]
        );
    }

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
