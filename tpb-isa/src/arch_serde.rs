//! Serde for [`Arch`] and [`Geometry`] by name, as everything else spells them (the
//! spec, `Display`, `FromStr`, `tpb`, the exported JSON): `"cayman"`, and on reading
//! any name, label or alias `FromStr` takes (`"V3"`, `"trn2"`).

use core::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::generated::geometry::{Arch, Geometry};

impl Serialize for Arch {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl Serialize for Geometry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.arch().serialize(s)
    }
}

/// Reads a generation's name, label or alias.
struct ArchName;

impl Visitor<'_> for ArchName {
    type Value = Arch;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a generation's name, label or alias (\"cayman\", \"V3\", \"trn2\")")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Arch, E> {
        Arch::from_name(v).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}

impl<'de> Deserialize<'de> for Arch {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Arch, D::Error> {
        d.deserialize_str(ArchName)
    }
}

impl<'de> Deserialize<'de> for Geometry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Geometry, D::Error> {
        let arch = Arch::deserialize(d)?;
        arch.geometry().ok_or_else(|| {
            de::Error::custom(format_args!("no source gives the geometry of {}", arch.name()))
        })
    }
}
