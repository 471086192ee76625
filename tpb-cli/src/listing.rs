//! A NEFF's listing (`tpb disasm x.neff`, of every stream or of one), read back by
//! `tpb asm`: a stream's heading names it and its generation, its rows carry an index
//! column before the offset, a function's start has a label line. Each stream's lines
//! become the raw listing the assembler reads, line for line and column for column (the
//! heading blank, the index blanked; a label line is a raw listing's too), so that an
//! error's line and column are the file's.

use tpb_isa::Arch;

/// One stream of a listing as the assembler reads it.
#[derive(Debug, PartialEq, Eq)]
pub struct OneStream {
    /// The raw listing: the stream's lines, each column where it was.
    pub text: String,
    /// The stream's label (`sg00/PE`) as the heading has it: escaped as the record
    /// text escapes a name ([`crate::text::unescape`] gives the graph's own).
    pub label: String,
    /// The generation its heading names, when it names one `--arch` takes.
    pub arch: Option<Arch>,
    /// The generation as the heading names it (`cayman`; `?` where `tpb disasm` knew
    /// none).
    pub arch_text: String,
    /// The records its heading counts (`12 records`), when the number reads.
    pub records: Option<usize>,
    /// The lines of the file before the text's first line.
    pub first_line: usize,
    /// The heading's line in the file (from 1).
    pub heading_line: usize,
}

/// `text` read as a NEFF's listing: each stream's raw listing, in the order of their
/// headings; none when the text has no stream heading (a raw listing or plain text, read
/// as it is). A stream's text starts with its heading's line, blank (the first stream's
/// with the lines before it), and ends before the next heading: its line `n` is the
/// file's line [`OneStream::first_line`] + `n`, and its columns are the file's.
pub fn streams(text: &str) -> Vec<OneStream> {
    if !text.lines().any(|l| heading(l).is_some()) {
        return Vec::new();
    }
    let mut streams: Vec<OneStream> = Vec::new();
    // The lines before the first heading, kept for the first stream.
    let mut lead = String::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let body = body.strip_suffix('\r').unwrap_or(body);
        let end = &line[body.len()..];
        let text = match streams.last_mut() {
            Some(s) => &mut s.text,
            None => &mut lead,
        };
        let Some((label, arch, records)) = heading(body) else {
            // A stream the NEFF lacks has no records: its line reads as a blank one.
            if !absent(body) {
                text.push_str(&raw_row(body));
            }
            text.push_str(end);
            continue;
        };
        let (mut text, first_line) =
            if streams.is_empty() { (std::mem::take(&mut lead), 0) } else { (String::new(), i) };
        text.push_str(end);
        streams.push(OneStream {
            text,
            label: label.to_owned(),
            arch: arch.parse().ok(),
            arch_text: arch.to_owned(),
            records,
            first_line,
            heading_line: i + 1,
        });
    }
    streams
}

/// A line of a stream as the raw listing has it: the index column blanked (a label
/// line, `00000000 <main>:`, is the raw listing's too, which the assembler skips).
fn raw_row(body: &str) -> std::borrow::Cow<'_, str> {
    match index_column(body) {
        Some(n) => format!("{}{}", " ".repeat(n), &body[n..]).into(),
        None => body.into(),
    }
}

/// What shows `line` is a row of a NEFF's listing apart from its heading (which
/// [`streams`] would have read): an index column before the offset
/// (`     3  000000c0  text`). (A function's label line is a raw listing's too.)
pub fn stray_row(line: &str) -> Option<&'static str> {
    index_column(line).is_some().then_some("an index column")
}

/// What follows an input's name on the line that heads its listing where `tpb disasm`
/// lists several inputs, as objdump heads each file's (`x.neff:     file format neff`).
pub const FILE_FORMAT: &str = ":     file format ";

/// The kinds of input a heading of [`FILE_FORMAT`] names.
pub const FILE_FORMATS: [&str; 2] = ["neff", "raw"];

/// The line (from 1) and input name of the first heading of an input's listing in
/// `text` (a listing of several inputs, which assemble one by one).
pub fn file_heading(text: &str) -> Option<(usize, &str)> {
    text.lines().enumerate().find_map(|(i, line)| {
        // From the end: a row (hundreds of bytes) is refused at its last bytes.
        let format = FILE_FORMATS.into_iter().find(|f| line.ends_with(f))?;
        let name = line[..line.len() - format.len()].strip_suffix(FILE_FORMAT)?;
        starts_plain(name).then_some((i + 1, name))
    })
}

/// What follows a stream's label on the line `tpb disasm` writes for a stream that a
/// NEFF's graph names but no member holds.
pub const ABSENT: &str = ": absent (its graph names it, no member holds it)";

/// Whether `line` is `tpb disasm`'s line for an absent stream: a stream's label (as a
/// heading's is read), then [`ABSENT`].
fn absent(line: &str) -> bool {
    line.strip_suffix(ABSENT).is_some_and(stream_label)
}

/// A stream heading, `sg00/PE: cayman, 12 records` (the generation may be followed by a
/// parenthesis): its label and generation. Read from the right, as `tpb disasm` writes
/// it after the label: the label is the graph's name as the file has it (escaped as the
/// record text escapes a name), which may hold blanks, `: ` or `, `. A line that starts
/// with a blank (a row), and a comment (`#` or `;` at the start or after a blank: `nop #
/// sg00/PE: cayman, 3 records`), are none.
fn heading(line: &str) -> Option<(&str, &str, Option<usize>)> {
    // A row (hundreds of bytes) is refused at its last bytes, before any search of it.
    if !line.ends_with(" records") && !line.ends_with(" record") {
        return None;
    }
    let (head, count) = line.rsplit_once(", ")?;
    let n = count.strip_suffix(" records").or_else(|| count.strip_suffix(" record"))?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (label, arch) = head.rsplit_once(": ")?;
    let arch = arch.split(" (").next().unwrap_or(arch);
    if !stream_label(label) || arch.is_empty() || arch.contains(char::is_whitespace) {
        return None;
    }
    Some((label, arch, n.parse().ok()))
}

/// Whether `label`, at the start of a line, can be a stream's label as `tpb disasm`
/// writes it: it holds a `/`, and it is no row (a leading blank) and no comment (`#` or
/// `;` at the start or after a blank).
fn stream_label(label: &str) -> bool {
    let comment = |w: &[u8]| matches!(w, [b, b'#' | b';'] if b.is_ascii_whitespace());
    starts_plain(label) && !label.as_bytes().windows(2).any(comment) && label.contains('/')
}

/// Whether `text`, at the start of a line, starts as a heading does: not empty, and no
/// row (a leading blank) and no comment (`#` or `;`).
fn starts_plain(text: &str) -> bool {
    text.chars().next().is_some_and(|c| !c.is_whitespace() && !"#;".contains(c))
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

    /// The heading of one input among several is found at its line; a row, a comment
    /// or another format is none.
    #[test]
    fn an_inputs_heading_is_found_at_its_line() {
        let text = "nop\n# x.neff:     file format neff\nx.bin:     file format raw\n";
        assert_eq!(file_heading(text), Some((3, "x.bin")));
        assert_eq!(file_heading("  x.neff:     file format neff\n"), None);
        assert_eq!(file_heading("x.elf:     file format elf64-x86-64\n"), None);
        assert_eq!(file_heading("nop\n"), None);
    }

    #[test]
    fn one_streams_listing_reads_as_its_raw_listing_column_for_column() {
        let text = "sg00/PE: cayman, 12 records\n\
                    00000000 <main>:\n     0  00000000  nop\n    11  000002c0  nop # note\r\n";
        let [one] = &streams(text)[..] else { panic!() };
        assert_eq!(one.label, "sg00/PE");
        assert_eq!((one.arch, one.first_line), (Some(Arch::Cayman), 0));
        assert_eq!(
            one.text,
            "\n00000000 <main>:\n        00000000  nop\n        000002c0  nop # note\r\n"
        );
        let h = "sg01/Pool: mariana (the NEFF names no known generation; --arch picks), 1 record\n";
        let [one] = &streams(h)[..] else { panic!() };
        assert_eq!((one.label.as_str(), one.arch), ("sg01/Pool", Some(Arch::Mariana)));
    }

    #[test]
    fn each_stream_of_a_listing_has_its_lines_from_its_heading() {
        let text = "x\nsg00/PE: cayman, 1 record\n     0  00000000  nop\n\n\
                    sg00/SP: mariana, 2 records\n00000000 <f>:\n     1  00000040  nop";
        let s = streams(text);
        let got: Vec<_> =
            s.iter().map(|s| (s.label.as_str(), s.arch, s.first_line, s.text.as_str())).collect();
        assert_eq!(
            got,
            [
                ("sg00/PE", Some(Arch::Cayman), 0, "x\n\n        00000000  nop\n\n"),
                ("sg00/SP", Some(Arch::Mariana), 4, "\n00000000 <f>:\n        00000040  nop"),
            ]
        );
    }

    #[test]
    fn a_stream_the_neff_lacks_reads_as_a_blank_line() {
        let text = "sg00/PE: cayman, 1 record\n     0  00000000  nop\n\n\
                    sg00/Pool: absent (its graph names it, no member holds it)\n\n\
                    s: g/SP: absent (its graph names it, no member holds it)\n\
                    nop # sg00/SP: absent (its graph names it, no member holds it)\n";
        let [one] = &streams(text)[..] else { panic!() };
        assert_eq!(
            one.text,
            "\n        00000000  nop\n\n\n\n\nnop # sg00/SP: absent (its graph names it, no \
             member holds it)\n"
        );
    }

    proptest::proptest! {
        /// Any text: no panic, and its streams keep every line from the first heading
        /// on (an error's line number is the file's) and every row's columns.
        #[test]
        fn any_text_reads_without_panic_line_for_line(
            rows in proptest::collection::vec("[ 0-9a-f<>:/,A-Za-z_=é\r]{0,40}", 0..12),
            heading in proptest::bool::ANY,
        ) {
            let mut text = if heading { "sg00/PE: cayman, 3 records\n".to_owned() } else { String::new() };
            text.push_str(&rows.join("\n"));
            let file: Vec<&str> = text.split('\n').collect();
            let mut next = 0;
            for s in streams(&text) {
                proptest::prop_assert_eq!(s.first_line, next);
                let lines: Vec<&str> = s.text.split('\n').collect();
                next = s.first_line + lines.len() - 1;
                for (a, b) in lines.iter().zip(&file[s.first_line..]) {
                    proptest::prop_assert!(a.is_empty() || a.len() == b.len(), "{:?} from {:?}", a, b);
                }
            }
            proptest::prop_assert!(next == 0 || next + 1 == file.len());
        }
    }

    /// The label is what comes before the generation, read from the right: a graph
    /// name may hold blanks, `: ` and `, `; a row, a comment or a line that only looks
    /// like a heading in part is none.
    #[test]
    fn a_heading_is_read_from_the_right() {
        assert_eq!(
            heading("my graph/PE: cayman, 2 records"),
            Some(("my graph/PE", "cayman", Some(2)))
        );
        assert_eq!(
            heading("a: cayman, 3 records/SP: ?, 1 record"),
            Some(("a: cayman, 3 records/SP", "?", Some(1)))
        );
        assert_eq!(
            heading("sg00/PE: trn2 (the NEFF names no known generation; --arch picks), 0 records"),
            Some(("sg00/PE", "trn2", Some(0)))
        );
        for none in [
            "     3  000000c0  sg00/PE: cayman, 3 records",
            "# sg00/PE: cayman, 3 records",
            ";sg00/PE: cayman, 3 records",
            "nop # sg00/PE: cayman, 3 records",
            "nop\t; x/PE: cayman, 3 records",
            "sg00: cayman, 3 records",
            "sg00/PE: cayman, 3 words",
            "sg00/PE: cayman, records",
            "sg00/PE: , 3 records",
            "sg00/PE cayman, 3 records",
        ] {
            assert_eq!(heading(none), None, "{none}");
        }
    }

    #[test]
    fn a_raw_listing_or_text_has_no_streams() {
        assert_eq!(streams("00000000  nop\nnop\n"), []);
        assert_eq!(streams("nop header.inst_word_len=16\n"), []);
    }
}
