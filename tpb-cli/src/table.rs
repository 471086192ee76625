//! Plain text tables: left-aligned columns, two spaces apart, a rule under the header.

use std::io::{self, Write};

/// Write `rows` (the first is the header) as a table.
pub fn table(out: &mut dyn Write, rows: &[Vec<String>]) -> io::Result<()> {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|c| rows.iter().map(|r| r.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0))
        .collect();
    for (i, r) in rows.iter().enumerate() {
        let line: Vec<String> =
            r.iter().enumerate().map(|(c, s)| format!("{s:<w$}", w = widths[c])).collect();
        writeln!(out, "{}", line.join("  ").trim_end())?;
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            writeln!(out, "{}", rule.join("  "))?;
        }
    }
    Ok(())
}

/// A row of cells from anything printable.
#[macro_export]
macro_rules! row {
    ($($cell:expr),* $(,)?) => { vec![$($cell.to_string()),*] };
}
