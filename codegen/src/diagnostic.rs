//! Spanned diagnostics: every check reports into these, and they render like rustc's.

use std::fmt;
use std::ops::Range;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term;

use crate::source::{FileId, Sources, Span};

/// One problem in the spec: a primary span, secondary labels and notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Lowercase, no trailing period; names both sides of a conflict.
    pub message: String,
    /// Where the problem is.
    pub span: Span,
    /// Text under the primary caret (may be empty).
    pub label: String,
    /// Other places that take part (the other field, the group definition).
    pub secondary: Vec<(Span, String)>,
    /// Free-text help lines.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Text under the primary caret.
    pub fn label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Another place that takes part.
    pub fn with(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// A help or context line.
    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    fn to_codespan(&self) -> cs::Diagnostic<FileId> {
        let mut labels =
            vec![cs::Label::primary(self.span.file, self.span.range())
                .with_message(self.label.clone())];
        labels.extend(
            self.secondary
                .iter()
                .map(|(s, m)| cs::Label::secondary(s.file, s.range()).with_message(m.clone())),
        );
        cs::Diagnostic::error()
            .with_message(self.message.clone())
            .with_labels(labels)
            .with_notes(self.notes.clone())
    }
}

/// All diagnostics of one run, sorted by position so output is stable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// True when there is nothing to report.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of diagnostics.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Sort by file and position and drop exact duplicates.
    pub fn sort(&mut self) {
        self.0.sort_by(|a, b| (a.span, &a.message).cmp(&(b.span, &b.message)));
        self.0.dedup();
    }

    /// Render every diagnostic rustc-style (`--> path:line:col`, source line, carets);
    /// one whose line is longer than 400 bytes shows a window of it around the caret,
    /// not the whole line.
    pub fn render(&self, sources: &Sources) -> String {
        let config = term::Config { chars: term::Chars::ascii(), ..term::Config::default() };
        let mut out = String::new();
        for d in &self.0 {
            let spans = std::iter::once(d.span).chain(d.secondary.iter().map(|(s, _)| *s));
            if spans.into_iter().any(|s| line_of(sources, s).len() > LINE_SHOWN_MAX) {
                out.push_str(&windowed(sources, d));
                continue;
            }
            match term::emit_into_string(&config, sources, &d.to_codespan()) {
                Ok(s) => out.push_str(&s),
                Err(_) => out.push_str(&format!("error: {}\n", d.message)),
            }
        }
        let n = self.0.len();
        out.push_str(&format!("error: the spec has {n} error{}\n", if n == 1 { "" } else { "s" }));
        out
    }

    /// One `path:line:col: message` line per diagnostic, for tests and tools.
    pub fn short(&self, sources: &Sources) -> String {
        self.0.iter().map(|d| format!("{}: {}\n", sources.location(d.span), d.message)).collect()
    }
}

/// The longest source line a diagnostic echoes whole: a longer one (a generated spec's
/// megabyte line) is shown as a window around the caret.
const LINE_SHOWN_MAX: usize = 400;

/// Characters of a long line shown on each side of the caret.
const WINDOW: usize = 60;

/// The text of the line `span` starts on, without its line end.
fn line_of(sources: &Sources, span: Span) -> &str {
    let file = sources.file(span.file);
    let (line, _) = file.line_col(span.start as usize);
    let range = file.line_range(line - 1).unwrap_or(0..0);
    file.text[range].trim_end_matches(['\n', '\r'])
}

/// `d` with a window of its line around the caret (`…` where the line goes on), its
/// other places by location, and its notes.
fn windowed(sources: &Sources, d: &Diagnostic) -> String {
    let loc = sources.location(d.span);
    let line = line_of(sources, d.span);
    let file = sources.file(d.span.file);
    let line_start = file.line_range(loc.line - 1).map_or(0, |r| r.start);
    let at = (d.span.start as usize).saturating_sub(line_start).min(line.len());
    let at = (0..=at).rev().find(|&i| line.is_char_boundary(i)).unwrap_or(0);
    let before: Vec<char> = line[..at].chars().collect();
    let after: Vec<char> = line[at..].chars().collect();
    let width = line[at..]
        .get(..(d.span.end as usize - d.span.start as usize).min(line.len() - at))
        .map_or(1, |t| t.chars().count())
        .clamp(1, WINDOW);
    let lead = before.len().saturating_sub(WINDOW);
    let shown_before: String = before[lead..].iter().collect();
    let shown_after: String = after.iter().take(WINDOW).collect();
    let (open, close) =
        (if lead > 0 { "…" } else { "" }, if after.len() > WINDOW { "…" } else { "" });
    let n = loc.line.to_string();
    let pad = " ".repeat(n.len());
    let mut out = format!("error: {}\n{pad}--> {loc}\n{pad} |\n", d.message);
    out.push_str(&format!("{n} | {open}{shown_before}{shown_after}{close}\n"));
    let caret_at = open.chars().count() + shown_before.chars().count();
    let label = if d.label.is_empty() { String::new() } else { format!(" {}", d.label) };
    out.push_str(&format!("{pad} | {}{}{label}\n", " ".repeat(caret_at), "^".repeat(width)));
    for (span, label) in &d.secondary {
        out.push_str(&format!("{pad} = {label}: {}\n", sources.location(*span)));
    }
    for note in &d.notes {
        out.push_str(&format!("{pad} = {note}\n"));
    }
    out.push('\n');
    out
}

impl From<Vec<Diagnostic>> for Diagnostics {
    fn from(mut v: Vec<Diagnostic>) -> Diagnostics {
        v.sort_by(|a, b| (a.span, &a.message).cmp(&(b.span, &b.message)));
        v.dedup();
        Diagnostics(v)
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{}", d.message)?;
        }
        Ok(())
    }
}

impl<'a> Files<'a> for Sources {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        Ok(&self.file(id).path)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        Ok(&self.file(id).text)
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, FilesError> {
        Ok(self.file(id).line_col(byte_index).0 - 1)
    }

    fn line_range(&'a self, id: FileId, line_index: usize) -> Result<Range<usize>, FilesError> {
        let file = self.file(id);
        file.line_range(line_index).ok_or(FilesError::LineTooLarge {
            given: line_index,
            max: file.line_col(file.text.len()).0,
        })
    }
}
