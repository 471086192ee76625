//! Serde for the spec's enums by value name in human-readable formats (`"FP16"`, as the
//! text form and `Display` spell it), so that a record dumped as JSON reads like its
//! text. A value the spec does not name, and every value in a binary format, stays an
//! integer of the enum's width: nothing is lost either way, and reading takes a name or
//! an integer.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What a generated enum gives the shared code ([`named_serde!`] implements it).
pub(crate) trait Named: Sized + Copy {
    /// The spec's name of the type (`DTYPE`), for errors.
    const SPEC: &'static str;
    /// The value's spec name, if the spec names it.
    fn name(self) -> Option<&'static str>;
    /// The value the spec names `name`.
    fn from_name(name: &str) -> Option<Self>;
    /// The value of the integer `v`, if it fits the enum's width.
    fn from_int(v: u64) -> Option<Self>;
}

/// A name where the format is human-readable and the spec names the value, else `raw`.
pub(crate) fn serialize<T: Named, W: Serialize, S: Serializer>(
    v: T,
    raw: W,
    s: S,
) -> Result<S::Ok, S::Error> {
    match v.name() {
        Some(name) if s.is_human_readable() => s.serialize_str(name),
        _ => raw.serialize(s),
    }
}

/// A name or an integer where the format is human-readable, else an integer of width `W`.
pub(crate) fn deserialize<'de, T, W, D>(d: D) -> Result<T, D::Error>
where
    T: Named,
    W: Deserialize<'de> + Into<u64>,
    D: Deserializer<'de>,
{
    if d.is_human_readable() {
        d.deserialize_any(NameOrInt::<T>(PhantomData))
    } else {
        let w = W::deserialize(d)?.into();
        T::from_int(w).ok_or_else(|| {
            de::Error::invalid_value(de::Unexpected::Unsigned(w), &NameOrInt::<T>(PhantomData))
        })
    }
}

/// Reads a value's spec name or its integer.
struct NameOrInt<T>(PhantomData<T>);

impl<T: Named> Visitor<'_> for NameOrInt<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the name of a value of {} or an integer of its width", T::SPEC)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        T::from_name(v).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::from_int(v).ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
        }
    }
}

/// `Serialize` and `Deserialize` of a generated enum `$t(pub $w)` whose spec name is
/// `$spec`, through [`serialize`] and [`deserialize`].
macro_rules! named_serde {
    ($t:ident, $w:ty, $spec:literal) => {
        impl $crate::enum_serde::Named for $t {
            const SPEC: &'static str = $spec;

            fn name(self) -> Option<&'static str> {
                $t::name(self)
            }

            fn from_name(name: &str) -> Option<Self> {
                $t::from_name(name)
            }

            fn from_int(v: u64) -> Option<Self> {
                <$w>::try_from(v).ok().map($t)
            }
        }

        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $crate::enum_serde::serialize(*self, self.0, s)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                $crate::enum_serde::deserialize::<$t, $w, D>(d)
            }
        }
    };
}

pub(crate) use named_serde;
