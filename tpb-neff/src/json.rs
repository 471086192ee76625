//! Streaming reads of the JSON members: only the fields the reader uses are kept, and
//! everything else is skipped as it is parsed, so a long list of anything (in a `kelf`,
//! a `def.json`, an engine JSON) costs time in proportion to its bytes and no memory.
//! A `kelf`'s graph list is handed over entry by entry, so the reader can refuse a bad
//! entry before the rest is parsed.
//!
//! Skipped values are parsed as strictly as kept ones ([`Strict`]): serde_json's
//! `IgnoredAny` scans a string without checking its UTF-8 or its `\u` escapes, so a
//! lone surrogate or invalid UTF-8 would pass where a read field refuses it. A key the
//! reader uses that appears twice in one object is refused (`duplicate field`, as
//! serde's derived readers say): which copy counts is not something a NEFF should leave
//! to the reader, and a graph list is checked as it is parsed, so a second one could
//! not replace the first.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::error::Error;

/// A field the reader uses, as the JSON has it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) enum Field {
    /// Absent, or `null`.
    #[default]
    Absent,
    /// A string.
    Str(String),
    /// Any other type (skipped, not kept).
    Other,
}

impl Field {
    /// The string; `None` when absent or `null`, `Err` for another type.
    pub(crate) fn as_str(&self) -> Result<Option<&str>, ()> {
        match self {
            Field::Absent => Ok(None),
            Field::Str(s) => Ok(Some(s)),
            Field::Other => Err(()),
        }
    }
}

impl<'de> de::Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Field, D::Error> {
        d.deserialize_any(FieldVisitor)
    }
}

struct FieldVisitor;

impl<'de> Visitor<'de> for FieldVisitor {
    type Value = Field;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
        Ok(Field::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Field, E> {
        Ok(Field::Str(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Field, E> {
        Ok(Field::Absent)
    }
    fn visit_none<E: de::Error>(self) -> Result<Field, E> {
        Ok(Field::Absent)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Field, E> {
        Ok(Field::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Field, E> {
        Ok(Field::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Field, E> {
        Ok(Field::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Field, E> {
        Ok(Field::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Field, A::Error> {
        drain_seq(seq).map(|()| Field::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Field, A::Error> {
        drain_map(map).map(|()| Field::Other)
    }
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Strict>()?.is_some() {}
    Ok(())
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<Strict, Strict>()?.is_some() {}
    Ok(())
}

/// A skipped value, parsed as a kept one is: its strings decoded (so invalid UTF-8 and
/// lone surrogates are refused), its lists and objects walked, nothing kept. The
/// parser's nesting limit bounds the recursion.
struct Strict;

impl<'de> de::Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Strict, A::Error> {
        drain_seq(seq).map(|()| Strict)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Strict, A::Error> {
        drain_map(map).map(|()| Strict)
    }
}

/// The error for a key the reader uses that an object repeats.
fn duplicate<E: de::Error>(key: &str) -> E {
    E::custom(format_args!("duplicate field \"{key}\""))
}

/// Why a JSON member could not be read: its syntax, or an error the reader raised
/// while it was being parsed.
#[derive(Debug)]
pub(crate) enum Fail {
    /// serde_json's message.
    Syntax(String),
    /// The reader's error, raised on a `kelf` graph entry.
    Reader(Error),
}

/// The fields `keys` of the JSON object in `bytes`, in `keys` order; `None` when the
/// document is not an object.
pub(crate) fn fields(bytes: &[u8], keys: &[&str]) -> Result<Option<Vec<Field>>, Fail> {
    let mut no_stop = None;
    parse(bytes, Fields { keys, graphs: None }, &mut no_stop).map(|o| o.map(|(f, _)| f))
}

/// An object's kept fields, in `keys` order, and what its `graphs` was: `None` absent,
/// `Some(true)` an array (its entries handed over), `Some(false)` anything else.
pub(crate) type Object = (Vec<Field>, Option<bool>);

/// A `kelf`'s fields `keys`, with each entry of its `graphs` array handed to `on_graph`
/// as it is parsed; `None` when the document is not an object.
///
/// # Errors
///
/// [`Fail::Reader`] with the first error `on_graph` returns (parsing stops there).
pub(crate) fn kelf(
    bytes: &[u8],
    keys: &[&str],
    on_graph: &mut dyn FnMut(GraphEntry) -> Result<(), Error>,
) -> Result<Option<Object>, Fail> {
    let mut stop = None;
    parse(bytes, Fields { keys, graphs: Some(on_graph) }, &mut stop)
}

fn parse(
    bytes: &[u8],
    fields: Fields<'_, '_>,
    stop: &mut Option<Error>,
) -> Result<Option<Object>, Fail> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let got = Top { fields, stop }.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    got.map_err(|e| match stop.take() {
        Some(reader) => Fail::Reader(reader),
        None => Fail::Syntax(e.to_string()),
    })
}

/// One entry of a `kelf`'s `graphs` array: its `name` and `definition`; an entry that is
/// not an object has neither.
#[derive(Debug, Default)]
pub(crate) struct GraphEntry {
    pub(crate) name: Field,
    pub(crate) definition: Field,
}

impl<'de> de::Deserialize<'de> for GraphEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GraphEntry, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = GraphEntry;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a graph entry")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<GraphEntry, A::Error> {
                let mut e = GraphEntry::default();
                let (mut name, mut definition) = (false, false);
                while let Some(key) = map.next_key::<Field>()? {
                    let Field::Str(key) = key else {
                        map.next_value::<Strict>()?;
                        continue;
                    };
                    let (seen, field) = match key.as_str() {
                        "name" => (&mut name, &mut e.name),
                        "definition" => (&mut definition, &mut e.definition),
                        _ => {
                            map.next_value::<Strict>()?;
                            continue;
                        }
                    };
                    if std::mem::replace(seen, true) {
                        return Err(duplicate(&key));
                    }
                    *field = map.next_value()?;
                }
                Ok(e)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<GraphEntry, A::Error> {
                drain_seq(seq).map(|()| GraphEntry::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<GraphEntry, E> {
                Ok(GraphEntry::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<GraphEntry, E> {
                Ok(GraphEntry::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<GraphEntry, E> {
                Ok(GraphEntry::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<GraphEntry, E> {
                Ok(GraphEntry::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<GraphEntry, E> {
                Ok(GraphEntry::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<GraphEntry, E> {
                Ok(GraphEntry::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// Which fields to keep, and where a `kelf`'s graph entries go (`None`: `graphs` is
/// skipped like any other field).
struct Fields<'k, 'f> {
    keys: &'k [&'k str],
    graphs: Option<&'f mut dyn FnMut(GraphEntry) -> Result<(), Error>>,
}

/// The document: an object whose fields are kept or skipped, or anything else (skipped).
struct Top<'k, 'f, 's> {
    fields: Fields<'k, 'f>,
    stop: &'s mut Option<Error>,
}

impl<'de> DeserializeSeed<'de> for Top<'_, '_, '_> {
    type Value = Option<Object>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top<'_, '_, '_> {
    type Value = Option<Object>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Fields { keys, mut graphs } = self.fields;
        let mut out: Vec<Field> = keys.iter().map(|_| Field::Absent).collect();
        let mut seen = vec![false; keys.len()];
        let mut graphs_seen = None;
        while let Some(key) = map.next_key::<Field>()? {
            let Field::Str(key) = key else {
                map.next_value::<Strict>()?;
                continue;
            };
            if let Some(i) = keys.iter().position(|k| *k == key) {
                if std::mem::replace(&mut seen[i], true) {
                    return Err(duplicate(&key));
                }
                out[i] = map.next_value()?;
            } else if let (true, Some(on_graph)) = (key == "graphs", graphs.as_mut()) {
                if graphs_seen.is_some() {
                    return Err(duplicate(&key));
                }
                let seed = Graphs { on_graph: &mut **on_graph, stop: &mut *self.stop };
                graphs_seen = Some(map.next_value_seed(seed)?);
            } else {
                map.next_value::<Strict>()?;
            }
        }
        Ok(Some((out, graphs_seen)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        drain_seq(seq).map(|()| None)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// A `kelf`'s `graphs` value: each entry of an array handed over as it is parsed
/// (`true`), or anything else skipped (`false`).
struct Graphs<'f, 's> {
    on_graph: &'f mut dyn FnMut(GraphEntry) -> Result<(), Error>,
    stop: &'s mut Option<Error>,
}

impl<'de> DeserializeSeed<'de> for Graphs<'_, '_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Graphs<'_, '_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a graph list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while let Some(entry) = seq.next_element::<GraphEntry>()? {
            if let Err(e) = (self.on_graph)(entry) {
                *self.stop = Some(e);
                return Err(de::Error::custom("stopped"));
            }
        }
        Ok(true)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        drain_map(map).map(|()| false)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
}
