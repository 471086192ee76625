//! Spec sources: files handed to the pipeline, byte spans into them, and line/column lookup.

use std::fmt;

/// Index of a file in [`Sources`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct FileId(pub u32);

/// A byte range in one source file; the unit every diagnostic and model item points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Span {
    /// The file the range is in.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from byte offsets.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span { file, start: start as u32, end: end as u32 }
    }

    /// The byte range, for slicing and for codespan.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One spec file: its path relative to the spec root (`isa/arms.isa`) and its text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Display path, relative to the project root, with `/` separators.
    pub path: String,
    /// The whole text.
    pub text: String,
    line_starts: Vec<usize>,
    /// Where the file stopped being UTF-8, when it did (see [`SourceFile::not_utf8`]).
    not_utf8: Option<(usize, u8)>,
}

impl SourceFile {
    /// Wrap a file's text.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let line_starts =
            std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        SourceFile { path: path.into(), text, line_starts, not_utf8: None }
    }

    /// For a file read from bytes that are not UTF-8 ([`Sources::add_bytes`]): the byte
    /// offset in [`text`](SourceFile::text) of its first bad byte (there replaced, with
    /// the rest of its sequence, by U+FFFD) and that byte. The loader reports such a file
    /// there and does not parse it.
    pub fn not_utf8(&self) -> Option<(usize, u8)> {
        self.not_utf8
    }

    /// Byte range of a 0-based line, newline included; `None` past the last line.
    pub fn line_range(&self, line: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.line_starts.get(line)?;
        let end = self.line_starts.get(line + 1).copied().unwrap_or(self.text.len());
        Some(start..end)
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let col = self.text.get(start..offset).map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }
}

/// All files of one spec, in a stable order (sorted by path by whoever builds it).
#[derive(Clone, Debug, Default)]
pub struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    /// An empty set.
    pub fn new() -> Sources {
        Sources::default()
    }

    /// Add a file and return its id. A leading byte-order mark (which some editors
    /// write) is not part of the text: positions are then the columns an editor shows.
    pub fn add(&mut self, path: impl Into<String>, text: impl Into<String>) -> FileId {
        let mut text = text.into();
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        self.files.push(SourceFile::new(path, text));
        FileId(self.files.len() as u32 - 1)
    }

    /// Add a file from its bytes, as a spec folder or revision is read: `\r\n` read as
    /// `\n`, and a leading byte-order mark dropped as [`Sources::add`] drops it. Bytes
    /// that are not UTF-8 are kept as text with U+FFFD for each bad sequence, and the
    /// first bad byte noted ([`SourceFile::not_utf8`]): the loader reports it at its line
    /// and column, with the line, as it reports any error in the spec.
    pub fn add_bytes(&mut self, path: impl Into<String>, bytes: &[u8]) -> FileId {
        let mut unix = Vec::with_capacity(bytes.len());
        let mut rest = bytes;
        while let Some(i) = rest.windows(2).position(|w| w == b"\r\n") {
            unix.extend_from_slice(&rest[..i]);
            unix.push(b'\n');
            rest = &rest[i + 2..];
        }
        unix.extend_from_slice(rest);
        if unix.starts_with("\u{feff}".as_bytes()) {
            unix.drain(.."\u{feff}".len());
        }
        match String::from_utf8(unix) {
            Ok(text) => self.add(path, text),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let byte = e.as_bytes()[at];
                let mut file = SourceFile::new(path, String::from_utf8_lossy(e.as_bytes()));
                file.not_utf8 = Some((at, byte));
                self.files.push(file);
                FileId(self.files.len() as u32 - 1)
            }
        }
    }

    /// The file behind an id.
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// Every file with its id, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files.iter().enumerate().map(|(i, f)| (FileId(i as u32), f))
    }

    /// `path:line:col` of a span's start.
    pub fn location(&self, span: Span) -> Location<'_> {
        let file = self.file(span.file);
        let (line, col) = file.line_col(span.start as usize);
        Location { path: &file.path, line, col }
    }

    /// The text a span covers.
    pub fn text(&self, span: Span) -> &str {
        &self.file(span.file).text[span.range()]
    }
}

/// A printable `path:line:col`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location<'a> {
    /// File path.
    pub path: &'a str,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
}

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path, self.line, self.col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_text() {
        let mut s = Sources::new();
        let id = s.add("a.isa", "\u{feff}struct A : 1 {}\n");
        assert_eq!(s.file(id).text, "struct A : 1 {}\n");
        // Only at the start.
        let id = s.add("b.isa", "x\u{feff}");
        assert_eq!(s.file(id).text, "x\u{feff}");
    }

    /// A spec whose files an editor saved with a byte-order mark loads as without.
    #[test]
    fn a_spec_saved_with_byte_order_marks_loads() {
        let text = "enum OPCODE : u8 {}\nrecord R : 1 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n";
        let mut s = Sources::new();
        s.add("isa/a.isa", format!("\u{feff}{text}"));
        s.add("isa/arch/v1.toml", "\u{feff}name = \"v1\"\ngeneration = 1\nlabel = \"V1\"\n");
        let m = crate::load(s).unwrap_or_else(|f| panic!("{}", f.render()));
        assert_eq!(m.archs.len(), 1);
    }

    #[test]
    fn bytes_are_read_as_text_with_unix_newlines_and_the_first_bad_byte_noted() {
        let mut s = Sources::new();
        let id = s.add_bytes("a.isa", b"\xef\xbb\xbfa\r\nb\r\n");
        assert_eq!((s.file(id).text.as_str(), s.file(id).not_utf8()), ("a\nb\n", None));
        let id = s.add_bytes("b.isa", b"\xef\xbb\xbfx\r\n  \xc3\xa9\xe9 \xff\r\n");
        let f = s.file(id);
        assert_eq!(f.text, "x\n  \u{e9}\u{fffd} \u{fffd}\n");
        assert_eq!(f.not_utf8(), Some((6, 0xe9)));
        assert_eq!(f.line_col(6), (2, 4));
        // A sequence cut short by the end of the file.
        let id = s.add_bytes("c.isa", b"ab\xe2\x82");
        assert_eq!(s.file(id).not_utf8(), Some((2, 0xe2)));
    }

    #[test]
    fn line_col_counts_from_one() {
        let f = SourceFile::new("a.isa", "ab\ncd\n\nx");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(1), (1, 2));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(6), (3, 1));
        assert_eq!(f.line_col(7), (4, 1));
        assert_eq!(f.line_col(100), (4, 2));
    }
}
