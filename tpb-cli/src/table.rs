//! Plain text tables: left-aligned columns, two spaces apart, a rule under the header.

use std::io::{self, Write};

/// Write `rows` (the first is the header) as a table.
pub fn table(out: &mut dyn Write, rows: &[Vec<String>]) -> io::Result<()> {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|c| rows.iter().map(|r| r.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0))
        .collect();
    for (i, r) in rows.iter().enumerate() {
        // Padded by hand: `format!("{s:<w$}")` panics when `w` passes `u16::MAX`, and a
        // cell can be that wide (a member path from a NEFF).
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, s)| {
                let pad = widths[c].saturating_sub(s.chars().count());
                let mut cell = String::with_capacity(s.len() + pad);
                cell.push_str(s);
                cell.extend(std::iter::repeat_n(' ', pad));
                cell
            })
            .collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_wider_than_a_format_width_is_written_not_a_panic() {
        let wide = "p".repeat(70_000);
        let rows =
            vec![vec!["path".to_owned(), "bytes".to_owned()], vec![wide.clone(), "0".to_owned()]];
        let mut out = Vec::new();
        table(&mut out, &rows).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], format!("path{}  bytes", " ".repeat(70_000 - 4)));
        assert_eq!(lines[2], format!("{wide}  0"));
    }

    #[test]
    fn columns_are_padded_to_the_widest_cell() {
        let rows =
            vec![vec!["a".to_owned(), "b".to_owned()], vec!["long".to_owned(), "x".to_owned()]];
        let mut out = Vec::new();
        table(&mut out, &rows).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a     b\n----  -\nlong  x\n");
    }
}
