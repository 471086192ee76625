//! Spec docs and provenance → `#[doc]` attributes, one per line.
//!
//! Every generated item gets a [`Doc`]: the spec's doc lines (or a fallback sentence when
//! the spec has none, because the runtime crate denies missing docs), notes the emitter
//! adds (offsets, values), then the provenance: `Source:` lines, `Confidence:` unless
//! certain, and `Available on:` when the item has `@archs`. Spec text is escaped just
//! enough that rustdoc reads it as prose: no intra-doc links, HTML tags or doctests.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use crate::model::{Confidence, Meta, Model};

/// The doc comment of one generated item.
#[derive(Clone, Debug, Default)]
pub struct Doc {
    summary: Vec<String>,
    notes: Vec<String>,
    provenance: Vec<String>,
}

impl Doc {
    /// A doc of fixed generator text (already Markdown).
    pub fn text(line: impl Into<String>) -> Doc {
        Doc { summary: vec![line.into()], ..Doc::default() }
    }

    /// The spec's docs of an item (or `fallback` when it has none) and its provenance.
    pub fn of(model: &Model, meta: &Meta, fallback: impl Into<String>) -> Doc {
        let summary = if meta.docs.iter().all(|l| l.trim().is_empty()) {
            vec![fallback.into()]
        } else {
            sanitize_lines(&meta.docs)
        };
        Doc { summary, notes: Vec::new(), provenance: provenance(model, meta) }
    }

    /// The compact doc of a member (field, value, view): `head` and the spec's first doc
    /// line on one line, the spec's other lines, then one line of what differs from the
    /// owner: confidence, generations, sources.
    pub fn member(model: &Model, meta: &Meta, owner: &Meta, head: impl Into<String>) -> Doc {
        let head = head.into();
        let docs = sanitize_lines(&meta.docs);
        let mut summary = Vec::new();
        match docs.first() {
            Some(first) if !first.trim().is_empty() && !first.starts_with("```") => {
                summary.push(if head.is_empty() {
                    first.clone()
                } else {
                    format!("{head}: {first}")
                });
                summary.extend(docs.iter().skip(1).cloned());
            }
            _ => {
                summary.push(head);
                summary.extend(docs);
            }
        }
        let mut tail = Vec::new();
        if meta.confidence != owner.confidence {
            tail.push(format!("confidence: {}", meta.confidence.as_str()));
        }
        if let Some(archs) = &meta.archs {
            let names: Vec<&str> = archs.iter().map(|&a| model[a].name.as_str()).collect();
            tail.push(if names.is_empty() {
                "on no generation".to_owned()
            } else {
                format!("on {}", names.join(", "))
            });
        }
        if meta.sources != owner.sources && !meta.sources.is_empty() {
            let s: Vec<String> = meta.sources.iter().map(|s| sanitize(s)).collect();
            tail.push(format!("source: {}", s.join("; ")));
        }
        if let Some(reason) = &meta.waiver {
            tail.push(format!("overlap waived: {}", sanitize(reason)));
        }
        if !tail.is_empty() {
            let last = summary.pop().unwrap_or_default();
            let sep = if last.is_empty() { "" } else { " · " };
            // A long line reads better as its own paragraph.
            if last.len() + tail.join(" · ").len() > 160 {
                summary.push(last);
                summary.push(String::new());
                summary.push(capitalize(&tail.join(" · ")));
            } else {
                summary.push(format!("{last}{sep}{}", tail.join(" · ")));
            }
        }
        Doc { summary, notes: Vec::new(), provenance: Vec::new() }
    }

    /// Add a paragraph of generator text (already Markdown).
    pub fn note(mut self, line: impl Into<String>) -> Doc {
        self.notes.push(line.into());
        self
    }

    /// Add provenance lines of another item (a group use, an inherited value).
    pub fn with_provenance(mut self, model: &Model, meta: &Meta) -> Doc {
        for line in provenance(model, meta) {
            if !self.provenance.contains(&line) {
                self.provenance.push(line);
            }
        }
        self
    }

    /// The lines, blank lines between paragraphs.
    pub fn lines(&self) -> Vec<String> {
        let mut out = self.summary.clone();
        for para in self.notes.iter().chain(&self.provenance) {
            out.push(String::new());
            out.push(para.clone());
        }
        out
    }
}

impl ToTokens for Doc {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        for line in self.lines() {
            let text = if line.is_empty() { line } else { format!(" {line}") };
            tokens.extend(quote! { #[doc = #text] });
        }
    }
}

/// `Source:`, `Confidence:`, `Available on:` and waiver lines of an item.
pub fn provenance(model: &Model, meta: &Meta) -> Vec<String> {
    let mut out: Vec<String> =
        meta.sources.iter().map(|s| format!("Source: {}", sanitize(s))).collect();
    if meta.confidence != Confidence::Certain {
        out.push(format!("Confidence: {}", meta.confidence.as_str()));
    }
    if let Some(archs) = &meta.archs {
        let names: Vec<&str> = archs.iter().map(|&a| model[a].name.as_str()).collect();
        out.push(if names.is_empty() {
            "Available on: no generation".to_owned()
        } else {
            format!("Available on: {}", names.join(", "))
        });
    }
    if let Some(reason) = &meta.waiver {
        out.push(format!("Overlap waived: {}", sanitize(reason)));
    }
    out
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Inline code, for names and values the generator quotes.
pub fn code(s: &str) -> String {
    let ticks = if s.contains('`') { "``" } else { "`" };
    format!("{ticks}{s}{ticks}")
}

/// Escape spec doc lines: fenced blocks become `text` blocks and are kept verbatim,
/// indented lines are not code blocks, and prose is escaped by [`sanitize`].
fn sanitize_lines(lines: &[String]) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            let info = trimmed.trim_start_matches('`').trim();
            out.push(if !fenced && info.is_empty() {
                "```text".to_owned()
            } else {
                trimmed.to_owned()
            });
            fenced = !fenced;
        } else if fenced {
            out.push(line.clone());
        } else {
            // A list item's continuation lines are indented under it, so rustdoc keeps
            // them in the item (clippy's doc_lazy_continuation).
            let is_item = |l: &str| l.starts_with("- ") || l.starts_with("+ ") || list_number(l);
            let in_item = out
                .iter()
                .rev()
                .take_while(|l: &&String| !l.is_empty())
                .any(|l| is_item(l.trim_start()))
                && !is_item(trimmed)
                && !trimmed.is_empty();
            let text = sanitize(trimmed.trim_end());
            out.push(if in_item { format!("  {text}") } else { text });
        }
    }
    if fenced {
        out.push("```".to_owned());
    }
    out
}

/// Whether a line starts a numbered list item (`1. `, `12) `).
fn list_number(l: &str) -> bool {
    let digits = l.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && (l[digits..].starts_with(". ") || l[digits..].starts_with(") "))
}

/// Escape one line of spec prose for rustdoc: `[`, `]`, `<`, `*` and `\` outside code
/// spans are escaped, `_` too unless it is inside a word (`*_IMM_*` and `_BIT` would
/// open emphasis, `device_tpb_idx` cannot), and bare URLs are put in angle brackets.
pub fn sanitize(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    for (i, part) in line.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        // Odd parts are inside a code span, unless the last backtick is unmatched.
        let in_code = i % 2 == 1 && line.matches('`').count() > i;
        if in_code {
            out.push_str(part);
            continue;
        }
        for (j, word) in part.split(' ').enumerate() {
            if j > 0 {
                out.push(' ');
            }
            if word.starts_with("http://") || word.starts_with("https://") {
                let url = word.trim_end_matches(['.', ',', ';', ':', ')']);
                out.push('<');
                out.push_str(url);
                out.push('>');
                out.push_str(&word[url.len()..]);
                continue;
            }
            let chars: Vec<char> = word.chars().collect();
            for (k, &c) in chars.iter().enumerate() {
                let alnum = |x: Option<&char>| x.is_some_and(|x| x.is_alphanumeric());
                let intraword =
                    alnum(k.checked_sub(1).and_then(|p| chars.get(p))) && alnum(chars.get(k + 1));
                if matches!(c, '[' | ']' | '<' | '*' | '\\') || (c == '_' && !intraword) {
                    out.push('\\');
                }
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_is_escaped_and_code_kept() {
        assert_eq!(sanitize("a [u8; 4] <b> `x[0] <y>`"), "a \\[u8; 4\\] \\<b> `x[0] <y>`");
        assert_eq!(sanitize("see https://example.org/x."), "see <https://example.org/x>.");
        assert_eq!(sanitize("unmatched ` [x]"), "unmatched ` \\[x\\]");
    }

    #[test]
    fn underscores_that_could_open_emphasis_are_escaped() {
        assert_eq!(sanitize("the *_IMM_* modes"), "the \\*\\_IMM\\_\\* modes");
        assert_eq!(sanitize("CTRL_AL's *_lo/*_hi"), "CTRL_AL's \\*\\_lo/\\*\\_hi");
        assert_eq!(sanitize("_WIDE_BIT and device_tpb_idx"), "\\_WIDE_BIT and device_tpb_idx");
        assert_eq!(sanitize("`*_IMM_*`"), "`*_IMM_*`");
    }

    #[test]
    fn fences_become_text() {
        let lines = vec![
            "```".to_owned(),
            "  +0 [x]".to_owned(),
            "```".to_owned(),
            "    indented".to_owned(),
        ];
        assert_eq!(sanitize_lines(&lines), ["```text", "  +0 [x]", "```", "indented"]);
    }
}
