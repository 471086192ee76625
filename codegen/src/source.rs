//! Spec sources: files handed to the pipeline, byte spans into them, and line/column lookup.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

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
}

impl SourceFile {
    /// Wrap a file's text.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let line_starts =
            std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        SourceFile { path: path.into(), text, line_starts }
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

    /// Add a file and return its id.
    pub fn add(&mut self, path: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(SourceFile::new(path, text));
        FileId(self.files.len() as u32 - 1)
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

    /// Every `*.isa` and `arch/*.toml` file under the spec folder `dir`, sorted by path,
    /// each shown as `shown_as/<path under dir>` with `/` separators (so diagnostics read
    /// `isa/arms.isa:41:9`) and with `\r\n` read as `\n`. The one reader of a spec
    /// folder: `cargo xtask`, the tests and the benches all load the spec through it.
    ///
    /// # Errors
    ///
    /// The first file or folder that cannot be read, its path in the message.
    pub fn read_spec(dir: &Path, shown_as: &str) -> io::Result<Sources> {
        let mut paths = Vec::new();
        collect_spec(dir, &mut paths)?;
        paths.sort();
        let mut sources = Sources::new();
        for p in paths {
            let text = fs::read_to_string(&p).map_err(|e| with_path(&p, e))?;
            let rel = p.strip_prefix(dir).unwrap_or(&p).to_string_lossy().replace('\\', "/");
            sources.add(format!("{shown_as}/{rel}"), text.replace("\r\n", "\n"));
        }
        Ok(sources)
    }
}

fn collect_spec(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(dir).map_err(|e| with_path(dir, e))? {
        let path = entry.map_err(|e| with_path(dir, e))?.path();
        if path.is_dir() {
            collect_spec(&path, out)?;
        } else {
            let is_isa = path.extension().is_some_and(|e| e == "isa");
            let is_arch = path.extension().is_some_and(|e| e == "toml")
                && path.parent().and_then(Path::file_name).is_some_and(|n| n == "arch");
            if is_isa || is_arch {
                out.push(path);
            }
        }
    }
    Ok(())
}

fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
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
    fn line_col_counts_from_one() {
        let f = SourceFile::new("a.isa", "ab\ncd\n\nx");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(1), (1, 2));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(6), (3, 1));
        assert_eq!(f.line_col(7), (4, 1));
        assert_eq!(f.line_col(100), (4, 2));
    }

    #[test]
    fn read_spec_takes_isa_files_and_arch_tomls_sorted_with_unix_newlines() {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir_all(d.path().join("arch")).unwrap();
        fs::write(d.path().join("b.isa"), "x\r\ny\n").unwrap();
        fs::write(d.path().join("a.isa"), "").unwrap();
        fs::write(d.path().join("arch/v2.toml"), "").unwrap();
        fs::write(d.path().join("notes.toml"), "").unwrap();
        fs::write(d.path().join("README.md"), "").unwrap();
        let s = Sources::read_spec(d.path(), "isa").unwrap();
        let paths: Vec<&str> = s.iter().map(|(_, f)| f.path.as_str()).collect();
        assert_eq!(paths, ["isa/a.isa", "isa/arch/v2.toml", "isa/b.isa"]);
        assert_eq!(s.iter().nth(2).unwrap().1.text, "x\ny\n");
        let e = Sources::read_spec(&d.path().join("missing"), "isa").unwrap_err();
        assert!(e.to_string().contains("missing"), "{e}");
    }
}
