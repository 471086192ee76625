//! `F32`: an IEEE single kept as its bits, so that every record byte round-trips (NaN
//! payloads and signed zeros included) and records stay `Eq` and `Hash`.

use core::fmt;

/// A little-endian `f32` field, held as its bit pattern.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(transparent)]
pub struct F32(pub u32);

impl F32 {
    /// The float with these bits.
    #[must_use]
    #[inline]
    pub const fn from_bits(bits: u32) -> F32 {
        F32(bits)
    }

    /// The bits.
    #[must_use]
    #[inline]
    pub const fn to_bits(self) -> u32 {
        self.0
    }

    /// The value as a float.
    #[must_use]
    #[inline]
    pub const fn get(self) -> f32 {
        f32::from_bits(self.0)
    }

    /// The bits of `v`.
    #[must_use]
    #[inline]
    pub const fn new(v: f32) -> F32 {
        F32(v.to_bits())
    }
}

impl From<f32> for F32 {
    fn from(v: f32) -> F32 {
        F32::new(v)
    }
}

impl From<F32> for f32 {
    fn from(v: F32) -> f32 {
        v.get()
    }
}

impl fmt::Debug for F32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for F32 {
    /// The shortest decimal that reads back to the same bits; a NaN as `nan:0x…` with
    /// its bits, so the text stays lossless.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.get();
        if v.is_nan() {
            write!(f, "nan:{:#010x}", self.0)
        } else {
            // `{:?}` of f32 is the shortest round-tripping form, with `-0.0`, `inf`.
            write!(f, "{v:?}")
        }
    }
}
