//! Docs, provenance, confidence and availability: the metadata every spec item carries.

use crate::source::Span;

use super::ArchId;

/// How sure the spec is of a fact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Read directly from the binary, DWARF or driver source.
    #[default]
    Certain,
    /// Derived from given facts (a width from neighbouring offsets).
    Medium,
    /// A reasoned guess; the doc says what it rests on.
    Inferred,
}

impl Confidence {
    /// The spec keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Certain => "certain",
            Confidence::Medium => "medium",
            Confidence::Inferred => "inferred",
        }
    }

    /// Parse the spec keyword.
    pub fn parse(s: &str) -> Option<Confidence> {
        match s {
            "certain" => Some(Confidence::Certain),
            "medium" => Some(Confidence::Medium),
            "inferred" => Some(Confidence::Inferred),
            _ => None,
        }
    }
}

/// Metadata of one spec item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The item's span (its name, for most items).
    pub span: Span,
    /// Doc lines, without the `///`, leading space trimmed once.
    pub docs: Vec<String>,
    /// `@source` strings, in spec order.
    pub sources: Vec<String>,
    /// `@confidence`, `Certain` when absent.
    pub confidence: Confidence,
    /// `@archs`: the generations the item exists on, sorted; `None` means all.
    pub archs: Option<Vec<ArchId>>,
    /// Where `@archs` is written, for diagnostics about it.
    pub archs_span: Option<Span>,
    /// `@waive` reason, if the item is allowed one deliberate overlap.
    pub waiver: Option<String>,
    /// Where `@waive` is written: a waiver no overlap needs is an error there.
    pub waiver_span: Option<Span>,
}

impl Meta {
    /// Metadata with only a span.
    pub fn at(span: Span) -> Meta {
        Meta {
            span,
            docs: Vec::new(),
            sources: Vec::new(),
            confidence: Confidence::Certain,
            archs: None,
            archs_span: None,
            waiver: None,
            waiver_span: None,
        }
    }

    /// Whether the item exists on `arch`.
    pub fn available_on(&self, arch: ArchId) -> bool {
        self.archs.as_ref().is_none_or(|a| a.contains(&arch))
    }
}
