//! One undecoded record, and the little-endian accessors generated code reads fields with.

use core::fmt;

use crate::generated::inst::RECORD_SIZE;

/// Any 64 bytes of a record stream, kept verbatim.
///
/// `Inst::Unknown` carries one, so a record the spec cannot explain still round-trips.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Raw(pub [u8; RECORD_SIZE]);

impl Raw {
    /// Wrap a record's bytes.
    #[must_use]
    #[inline]
    pub const fn new(bytes: [u8; RECORD_SIZE]) -> Raw {
        Raw(bytes)
    }

    /// The bytes.
    #[must_use]
    #[inline]
    pub const fn bytes(&self) -> &[u8; RECORD_SIZE] {
        &self.0
    }

    /// The discriminant byte (+0).
    #[must_use]
    #[inline]
    pub const fn opcode(&self) -> u8 {
        self.0[crate::generated::inst::DISCRIMINANT_OFFSET]
    }
}

impl Default for Raw {
    fn default() -> Raw {
        Raw([0; RECORD_SIZE])
    }
}

impl From<[u8; RECORD_SIZE]> for Raw {
    fn from(bytes: [u8; RECORD_SIZE]) -> Raw {
        Raw(bytes)
    }
}

impl From<Raw> for [u8; RECORD_SIZE] {
    fn from(raw: Raw) -> [u8; RECORD_SIZE] {
        raw.0
    }
}

impl fmt::Debug for Raw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Raw(")?;
        for (i, b) in self.0.iter().enumerate() {
            if i > 0 && i % 4 == 0 {
                f.write_str("_")?;
            }
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Raw {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Raw {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Raw, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Raw;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{RECORD_SIZE} bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Raw, E> {
                v.try_into().map(Raw).map_err(|_| E::invalid_length(v.len(), &self))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Raw, A::Error> {
                let mut out = [0u8; RECORD_SIZE];
                for (i, b) in out.iter_mut().enumerate() {
                    *b = a
                        .next_element()?
                        .ok_or_else(|| serde::de::Error::invalid_length(i, &self))?;
                }
                Ok(Raw(out))
            }
        }
        d.deserialize_bytes(V)
    }
}

/// Little-endian reads and writes at byte offsets; the generated accessors call these.
///
/// Offsets come from the checked spec, so they are always in range for the array
/// sizes the generated code passes.
///
/// # Panics
///
/// Every function panics when the bytes it reads or writes (`off` and the width) pass
/// the end of `b`: these are the generated code's tools, whose offsets are checked
/// once, in the spec. On bytes of unknown length, use the record types' `decode` and
/// the views, which take a `&[u8; 64]`, or test the length first.
pub mod le {
    macro_rules! accessors {
        ($($get:ident $set:ident $t:ty;)*) => {$(
            #[doc = concat!("Read a little-endian `", stringify!($t), "` at `off`.")]
            #[must_use]
            #[inline]
            pub const fn $get(b: &[u8], off: usize) -> $t {
                <$t>::from_le_bytes(*chunk::<{ core::mem::size_of::<$t>() }>(b, off))
            }

            #[doc = concat!("Write a little-endian `", stringify!($t), "` at `off`.")]
            #[inline]
            pub fn $set(b: &mut [u8], off: usize, v: $t) {
                b[off..off + core::mem::size_of::<$t>()].copy_from_slice(&v.to_le_bytes());
            }
        )*};
    }

    accessors! {
        u8_at set_u8 u8;
        u16_at set_u16 u16;
        u32_at set_u32 u32;
        u64_at set_u64 u64;
        i8_at set_i8 i8;
        i16_at set_i16 i16;
        i32_at set_i32 i32;
        i64_at set_i64 i64;
    }

    /// Copy `N` bytes starting at `off`.
    #[must_use]
    #[inline]
    pub const fn bytes_at<const N: usize>(b: &[u8], off: usize) -> [u8; N] {
        *chunk::<N>(b, off)
    }

    /// Copy `N` bytes starting at `off` as `i8`s (C `char` arrays).
    #[must_use]
    #[inline]
    pub const fn i8s_at<const N: usize>(b: &[u8], off: usize) -> [i8; N] {
        let a = chunk::<N>(b, off);
        let mut o = [0i8; N];
        let mut i = 0;
        while i < N {
            o[i] = a[i] as i8;
            i += 1;
        }
        o
    }

    /// The `N` bytes at `off`, as one fixed-size borrow: a single bounds check, and a
    /// plain copy once the caller's record size is known.
    #[inline]
    const fn chunk<const N: usize>(b: &[u8], off: usize) -> &[u8; N] {
        match b.split_at(off).1.first_chunk::<N>() {
            Some(a) => a,
            None => panic!("a field past the end of the record"),
        }
    }

    /// Write `v` at `off`.
    #[inline]
    pub fn set_bytes(b: &mut [u8], off: usize, v: &[u8]) {
        b[off..off + v.len()].copy_from_slice(v);
    }
}
