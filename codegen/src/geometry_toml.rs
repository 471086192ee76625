//! serde types of `isa/arch/*.toml`, as written (before inheritance and checking).

use std::collections::BTreeMap;
use std::ops::Range;

use serde::de::{DeserializeOwned, Error as _};
use serde::Deserialize;
use toml::de::{DeTable, DeValue, Deserializer, ValueDeserializer};
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

/// One error in an arch file: toml's message, and the byte range it reports.
pub type TomlError = (String, Option<Range<usize>>);

fn toml_error(e: &toml::de::Error) -> TomlError {
    (e.message().to_owned(), e.span())
}

/// Parse one arch file. A file that is not TOML is one error (the first); a TOML file
/// that does not fit [`ArchFile`] is every misfit found in one pass ([`misfits`]: each
/// unknown key, value of the wrong type and missing key), where deserializing would stop
/// at the first; that first is always among them.
pub fn parse(text: &str) -> Result<ArchFile, Vec<TomlError>> {
    let doc = DeTable::parse(text).map_err(|e| vec![toml_error(&e)])?;
    let mut errors = Vec::new();
    misfits(&doc, &mut errors);
    ArchFile::deserialize(Deserializer::from(doc)).map_err(|e| {
        let first = toml_error(&e);
        if !errors.contains(&first) {
            errors.push(first);
        }
        errors
    })
}

/// A key of a table of an arch file: its name, whether it must be given, and the check
/// of its value.
struct Key {
    name: &'static str,
    required: bool,
    check: fn(&Spanned<DeValue<'_>>, &mut Vec<TomlError>),
}

/// The keys of [`ArchFile`], as serde names them.
const ARCH_KEYS: [Key; 10] = [
    Key { name: "name", required: true, check: fits::<Spanned<String>> },
    Key { name: "generation", required: true, check: fits::<Spanned<u32>> },
    Key { name: "label", required: true, check: fits::<Spanned<String>> },
    Key { name: "aliases", required: false, check: fits::<Vec<Spanned<String>>> },
    Key { name: "inherits", required: false, check: fits::<Spanned<String>> },
    Key { name: "geometry", required: false, check: fits::<Spanned<String>> },
    Key { name: "source", required: false, check: fits::<Sources> },
    Key { name: "confidence", required: false, check: fits::<Spanned<String>> },
    Key { name: "doc", required: false, check: fits::<String> },
    Key { name: "values", required: false, check: values_misfits },
];

/// [`ARCH_KEYS`]' names, in order, for the message of an unknown key.
static ARCH_NAMES: [&str; ARCH_KEYS.len()] = names(&ARCH_KEYS);

/// The keys of [`Entry`], as serde names them.
const ENTRY_KEYS: [Key; 4] = [
    Key { name: "value", required: true, check: fits::<Spanned<toml::Value>> },
    Key { name: "source", required: false, check: fits::<Sources> },
    Key { name: "confidence", required: false, check: fits::<Spanned<String>> },
    Key { name: "doc", required: false, check: fits::<String> },
];

/// [`ENTRY_KEYS`]' names, in order.
static ENTRY_NAMES: [&str; ENTRY_KEYS.len()] = names(&ENTRY_KEYS);

/// The names of `keys`, in order (serde's unknown-field message wants a static list).
const fn names<const N: usize>(keys: &[Key; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = keys[i].name;
        i += 1;
    }
    out
}

/// Every way the arch file `doc` does not fit [`ArchFile`], each with serde's message
/// and span as deserializing would report it if it were the first.
fn misfits(doc: &Spanned<DeTable<'_>>, errors: &mut Vec<TomlError>) {
    table_misfits(doc.get_ref(), doc.span(), &ARCH_KEYS, &ARCH_NAMES, errors);
}

/// The misfits of `table` (at `span`) to a struct of `keys`: each unknown key, each
/// value of the wrong type, each key missing.
fn table_misfits(
    table: &DeTable<'_>,
    span: Range<usize>,
    keys: &[Key],
    names: &'static [&'static str],
    errors: &mut Vec<TomlError>,
) {
    for (key, value) in table {
        match keys.iter().find(|k| k.name == key.get_ref().as_ref()) {
            Some(k) => (k.check)(value, errors),
            None => {
                let e = toml::de::Error::unknown_field(key.get_ref(), names);
                errors.push((e.message().to_owned(), Some(key.span())));
            }
        }
    }
    for k in keys.iter().filter(|k| k.required) {
        if !table.keys().any(|key| key.get_ref().as_ref() == k.name) {
            let e = toml::de::Error::missing_field(k.name);
            errors.push((e.message().to_owned(), Some(span.clone())));
        }
    }
}

/// Whether `value` deserializes as a `T`; serde's error when not.
fn fits<T: DeserializeOwned>(value: &Spanned<DeValue<'_>>, errors: &mut Vec<TomlError>) {
    if let Err(e) = T::deserialize(ValueDeserializer::from(value.clone())) {
        errors.push(toml_error(&e));
    }
}

/// The misfits of `values`: a table of [`Entry`] tables, each checked on its own.
fn values_misfits(value: &Spanned<DeValue<'_>>, errors: &mut Vec<TomlError>) {
    let Some(table) = value.get_ref().as_table() else {
        return fits::<BTreeMap<Spanned<String>, Spanned<Entry>>>(value, errors);
    };
    for entry in table.values() {
        match entry.get_ref().as_table() {
            Some(t) => table_misfits(t, entry.span(), &ENTRY_KEYS, &ENTRY_NAMES, errors),
            None => fits::<Spanned<Entry>>(entry, errors),
        }
    }
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

    const HEAD: &str = "name = \"a\"\ngeneration = 1\nlabel = \"V1\"\n";

    /// With one mistake, the one-pass check finds what deserializing reports, no more and
    /// no less, message and span: it keeps to serde's keys, types and words.
    #[test]
    fn one_misfit_is_the_error_deserializing_reports() {
        let one = [
            "generation = 1\nlabel = \"V1\"\n".to_owned(),
            "name = \"a\"\nlabel = \"V1\"\n".to_owned(),
            "name = \"a\"\ngeneration = 1\n".to_owned(),
            "name = 3\ngeneration = 1\nlabel = \"V1\"\n".to_owned(),
            "name = \"a\"\ngeneration = \"three\"\nlabel = \"V1\"\n".to_owned(),
            "name = \"a\"\ngeneration = -1\nlabel = \"V1\"\n".to_owned(),
            "name = \"a\"\ngeneration = 1.5\nlabel = \"V1\"\n".to_owned(),
            "name = \"a\"\ngeneration = 1\nlabel = []\n".to_owned(),
            format!("{HEAD}colour = \"blue\"\n"),
            format!("{HEAD}aliases = \"x\"\n"),
            format!("{HEAD}aliases = [\"x\", 2]\n"),
            format!("{HEAD}inherits = 1\n"),
            format!("{HEAD}geometry = true\n"),
            format!("{HEAD}source = 1\n"),
            format!("{HEAD}source = [\"x\", 42]\n"),
            format!("{HEAD}source = {{a = 1}}\n"),
            format!("{HEAD}confidence = 1\n"),
            format!("{HEAD}doc = 1\n"),
            format!("{HEAD}values = 1\n"),
            format!("{HEAD}[values]\nn = 1\n"),
            format!("{HEAD}[values.n]\nsource = \"x\"\n"),
            format!("{HEAD}[values.n]\nvalue = 1\nsorce = \"x\"\n"),
            format!("{HEAD}[values.n]\nvalue = 1\nsource = 2\n"),
            format!("{HEAD}[values.n]\nvalue = 1\nconfidence = []\n"),
            format!("{HEAD}[values.n]\nvalue = 1\ndoc = 2\n"),
            format!("{HEAD}[values.n]\nvalue = 1\n[values.n.x]\n"),
            format!("{HEAD}values.n = {{ value = 1, x = 2 }}\n"),
        ];
        for text in &one {
            let Err(e) = toml::from_str::<ArchFile>(text) else { panic!("{text} parses") };
            assert_eq!(parse(text).err(), Some(vec![toml_error(&e)]), "{text}");
        }
    }

    /// Every unknown key, wrong type and missing key of a file, each at its own place;
    /// a syntax error is one.
    #[test]
    fn every_misfit_of_a_file_is_reported() {
        let text = "name = \"a\"\ngeneration = \"three\"\ncolour = \"blue\"\nshade = 2\n\
                    [values.n]\nvalu = 1\n[values.m]\nvalue = 2\nsource = 3\n";
        let mut got: Vec<(String, &str)> = parse(text)
            .err()
            .unwrap()
            .into_iter()
            .map(|(msg, span)| (msg, &text[span.unwrap()]))
            .collect();
        got.sort();
        let unknown_top = "expected one of `name`, `generation`, `label`, `aliases`, `inherits`, \
                           `geometry`, `source`, `confidence`, `doc`, `values`";
        let want = [
            ("invalid type: integer `3`, expected a string or an array of strings".into(), "3"),
            ("invalid type: string \"three\", expected u32".into(), "\"three\""),
            // At the start of the file, as deserializing says it.
            ("missing field `label`".into(), ""),
            ("missing field `value`".into(), "[values.n]"),
            (format!("unknown field `colour`, {unknown_top}"), "colour"),
            (format!("unknown field `shade`, {unknown_top}"), "shade"),
            (
                "unknown field `valu`, expected one of `value`, `source`, `confidence`, `doc`"
                    .into(),
                "valu",
            ),
        ];
        assert_eq!(got, want);
        let syntax = "name = \"a\"\ngeneration =\ncolour = 1\n";
        assert_eq!(parse(syntax).err().map(|e| e.len()), Some(1));
    }

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
