//! serde types of `isa/arch/*.toml`, as written (before inheritance and checking).

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

/// One arch file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchFile {
    /// Codename.
    pub name: Spanned<String>,
    /// Generation number; orders archs.
    pub generation: Spanned<u32>,
    /// `V3`.
    pub label: Spanned<String>,
    /// Other accepted names.
    #[serde(default)]
    pub aliases: Vec<Spanned<String>>,
    /// The arch this file is a delta of.
    pub inherits: Option<Spanned<String>>,
    /// `"unknown"`: no source gives this generation's geometry; it then has no values.
    pub geometry: Option<Spanned<String>>,
    /// Provenance of the arch as a whole.
    #[serde(default)]
    pub source: Sources,
    /// Confidence of the arch as a whole.
    pub confidence: Option<Spanned<String>>,
    /// Free text.
    pub doc: Option<String>,
    /// `[values.NAME]` tables.
    #[serde(default)]
    pub values: BTreeMap<Spanned<String>, Spanned<Entry>>,
}

/// `source = "..."` or `source = ["...", "..."]`.
#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
pub enum Sources {
    /// None given.
    #[default]
    None,
    /// One string.
    One(String),
    /// Several.
    Many(Vec<String>),
}

impl Sources {
    /// The strings.
    pub fn into_vec(self) -> Vec<String> {
        match self {
            Sources::None => Vec::new(),
            Sources::One(s) => vec![s],
            Sources::Many(v) => v,
        }
    }
}

/// One `[values.NAME]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The value: integer, bool, `"?"`, or array of those.
    pub value: Spanned<toml::Value>,
    /// Provenance (required by the checker).
    #[serde(default)]
    pub source: Sources,
    /// `certain` | `medium` | `inferred`.
    pub confidence: Option<Spanned<String>>,
    /// Free text, one line per `\n`.
    pub doc: Option<String>,
}

/// Parse one arch file; the error carries the byte range toml reports.
pub fn parse(text: &str) -> Result<ArchFile, (String, Option<std::ops::Range<usize>>)> {
    toml::from_str(text).map_err(|e| (e.message().to_string(), e.span()))
}
