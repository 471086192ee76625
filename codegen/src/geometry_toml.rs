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

/// Where a key that toml reports as given twice was first given: `dup` is the span of
/// the second; the first is the same `[table]` header earlier in the file, or the same
/// key earlier in the same table.
pub fn first_definition(text: &str, dup: std::ops::Range<usize>) -> Option<std::ops::Range<usize>> {
    let key = text.get(dup.clone())?.trim();
    let line_start = text[..dup.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[dup.start..].find('\n').map_or(text.len(), |i| dup.start + i);
    let header = text[line_start..line_end].trim();
    let mut found = None;
    let mut at = 0;
    for line in text[..line_start].split_inclusive('\n') {
        let t = line.trim();
        let start = at + (line.len() - line.trim_start().len());
        at += line.len();
        if header.starts_with('[') {
            if t == header && found.is_none() {
                found = Some(start..start + t.len());
            }
        } else if t.starts_with('[') {
            found = None; // a new table: an earlier key was another table's
        } else if found.is_none()
            && t.split('=').next().is_some_and(|k| k.trim() == key)
            && t.contains('=')
        {
            found = Some(start..start + key.len());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_definition_of_a_key_given_twice() {
        let text = "name = \"a\"\n[values.n]\nvalue = 1\nsource = [\"x\"]\nvalue = 2\n\n[values.m]\nvalue = 3\n  [values.n]\n";
        let second = |needle: &str| {
            let at = text.rfind(needle).unwrap();
            at..at + needle.len()
        };
        let first =
            |r: std::ops::Range<usize>| first_definition(text, r).map(|r| (r.start, &text[r]));
        // A key in its table: not `value` of another table.
        assert_eq!(
            first(second("value = 2").start..second("value = 2").start + 5),
            Some((text.find("value = 1").unwrap(), "value"))
        );
        assert_eq!(first(second("value = 3").start..second("value = 3").start + 5), None);
        // A table header: the whole earlier header.
        let n = second("n]");
        assert_eq!(
            first(n.start..n.start + 1),
            Some((text.find("[values.n]").unwrap(), "[values.n]"))
        );
    }
}
