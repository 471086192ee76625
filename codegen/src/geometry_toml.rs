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
#[derive(Debug, Default)]
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

/// By hand, not `#[serde(untagged)]`: a wrong `source` then says what it takes ("a
/// string or an array of strings") and points at the wrong element, where an untagged
/// enum says only that no variant matched, at the whole value.
impl<'de> Deserialize<'de> for Sources {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Sources;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or an array of strings")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Sources, E> {
                Ok(Sources::One(v.to_owned()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Sources, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = a.next_element::<String>()? {
                    v.push(s);
                }
                Ok(Sources::Many(v))
            }
        }
        d.deserialize_any(V)
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
