//! A NEFF's listing of one stream (`tpb disasm x.neff --subgraph sg00 --engine pe`),
//! read back by `tpb asm`: its heading names the stream and its generation, its rows
//! carry an index column before the offset, a function's start has a label line. The
//! listing becomes the raw listing the assembler reads, line for line and column for
//! column (the heading and labels blank, the index blanked), so that an error's line
//! and column are the file's.

use tpb_isa::Arch;

/// One stream's listing as the assembler reads it.
#[derive(Debug, PartialEq, Eq)]
pub struct OneStream {
    /// The raw listing: as many lines as the text, each column where it was.
    pub text: String,
    /// The stream's label (`sg00/PE`).
    pub label: String,
    /// The generation its heading names, when it names one `--arch` takes.
    pub arch: Option<Arch>,
}

/// `text` read as a NEFF's listing: `Ok(None)` when it has no stream heading (a raw
/// listing or plain text, read as it is), the one stream's raw listing, or an error
/// naming the streams of a listing of several (which make no one stream).
pub fn one_stream(text: &str) -> Result<Option<OneStream>, String> {
    let headings: Vec<(&str, &str)> = text.lines().filter_map(heading).collect();
    let [(label, arch)] = headings[..] else {
        if headings.is_empty() {
            return Ok(None);
        }
        let labels: Vec<&str> = headings.iter().map(|(l, _)| *l).collect();
        return Err(format!(
            "the listing holds {} streams ({}); tpb asm writes one stream: list one with \
             `tpb disasm FILE.neff --subgraph SG --engine ENGINE`, or write them all with \
             `tpb extract FILE.neff -o DIR`",
            labels.len(),
            labels.join(", ")
        ));
    };
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let body = body.strip_suffix('\r').unwrap_or(body);
        let end = &line[body.len()..];
        if heading(body).is_some() || is_label(body) {
            out.push_str(end);
            continue;
        }
        match index_column(body) {
            Some(n) => {
                out.extend(std::iter::repeat_n(' ', n));
                out.push_str(&body[n..]);
            }
            None => out.push_str(body),
        }
        out.push_str(end);
    }
    Ok(Some(OneStream { text: out, label: label.to_owned(), arch: arch.parse().ok() }))
}

/// What shows `line` is a row of a NEFF's listing apart from its heading (which
/// [`one_stream`] would have read): an index column before the offset
/// (`     3  000000c0  text`), or a function's label (`00000000 <main>:`).
pub fn stray_row(line: &str) -> Option<&'static str> {
    if index_column(line).is_some() {
        Some("an index column")
    } else if is_label(line) {
        Some("a function label")
    } else {
        None
    }
}

/// A stream heading, `sg00/PE: cayman, 12 records` (the generation may be followed by a
/// parenthesis): its label and generation.
fn heading(line: &str) -> Option<(&str, &str)> {
    let (label, rest) = line.split_once(": ")?;
    if label.is_empty() || !label.contains('/') || label.contains(char::is_whitespace) {
        return None;
    }
    let (arch, count) = rest.rsplit_once(", ")?;
    let n = count.strip_suffix(" records").or_else(|| count.strip_suffix(" record"))?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((label, arch.split(" (").next().unwrap_or(arch)))
}

/// A function's label line: `00000000 <main>:`.
fn is_label(line: &str) -> bool {
    let Some((off, rest)) = line.split_once(' ') else { return false };
    is_offset(off) && rest.starts_with('<') && rest.ends_with(">:")
}

/// The length of a row's index column (blanks, then decimal digits) when an offset
/// column follows it.
fn index_column(line: &str) -> Option<usize> {
    let digits_at = line.len() - line.trim_start_matches(' ').len();
    let digits = line[digits_at..].bytes().take_while(u8::is_ascii_digit).count();
    let end = digits_at + digits;
    let rest = &line[end..];
    let off = rest.trim_start_matches(' ');
    let word = off.split(' ').next().unwrap_or("");
    (digits > 0 && off.len() < rest.len() && is_offset(word)).then_some(end)
}

/// 8 to 16 hex digits: an offset column.
fn is_offset(w: &str) -> bool {
    (8..=16).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_streams_listing_reads_as_its_raw_listing_column_for_column() {
        let text = "sg00/PE: cayman, 12 records\n\
                    00000000 <main>:\n     0  00000000  nop\n    11  000002c0  nop # note\r\n";
        let one = one_stream(text).unwrap().unwrap();
        assert_eq!(one.label, "sg00/PE");
        assert_eq!(one.arch, Some(Arch::Cayman));
        assert_eq!(one.text, "\n\n        00000000  nop\n        000002c0  nop # note\r\n");
        let h = "sg01/Pool: mariana (the NEFF names no known generation; --arch picks), 1 record\n";
        let one = one_stream(h).unwrap().unwrap();
        assert_eq!((one.label.as_str(), one.arch), ("sg01/Pool", Some(Arch::Mariana)));
    }

    proptest::proptest! {
        /// Any text: no panic, and a stream's listing keeps every line (an error's line
        /// number is the file's) and every row's columns.
        #[test]
        fn any_text_reads_without_panic_line_for_line(
            rows in proptest::collection::vec("[ 0-9a-f<>:/,A-Za-z_=é\r]{0,40}", 0..12),
            heading in proptest::bool::ANY,
        ) {
            let mut text = if heading { "sg00/PE: cayman, 3 records\n".to_owned() } else { String::new() };
            text.push_str(&rows.join("\n"));
            if let Ok(Some(one)) = one_stream(&text) {
                proptest::prop_assert_eq!(one.text.split('\n').count(), text.split('\n').count());
                for (a, b) in one.text.split('\n').zip(text.split('\n')) {
                    proptest::prop_assert!(a.is_empty() || a.len() == b.len(), "{:?} from {:?}", a, b);
                }
            }
        }
    }

    #[test]
    fn a_raw_listing_or_text_is_left_alone_and_several_streams_are_an_error() {
        assert_eq!(one_stream("00000000  nop\nnop\n"), Ok(None));
        assert_eq!(one_stream("nop header.inst_word_len=16\n"), Ok(None));
        let e = one_stream(
            "sg00/PE: cayman, 1 record\n     0  00000000  nop\n\nsg00/SP: cayman, 1 record\n",
        )
        .unwrap_err();
        assert!(e.starts_with("the listing holds 2 streams (sg00/PE, sg00/SP)"), "{e}");
    }
}
