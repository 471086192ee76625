//! The 1024-byte little-endian header AWS documents ("Work with NEFF Files"): every field
//! typed, in struct order. There is no magic number; the payload starts at `header_size`.

use crate::error::{Error, Result};

/// The size of the header struct; `header_size` may be larger, never smaller.
pub const HEADER_LEN: usize = 1024;

/// The NEFF header, field by field (offsets in the field docs).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Header {
    /// +0x000: packaging version; 2 is a gzip tar with an MD5 hash.
    pub pkg_version: u64,
    /// +0x008: where the payload starts (0x400 in every file seen, but read, not assumed).
    pub header_size: u64,
    /// +0x010: payload bytes after the header (the gzip member and its zero padding).
    pub data_size: u64,
    /// +0x018: NEFF major version (1 from neuronx-cc 2.18 for trn1, 2 from 2.23 for trn2).
    pub neff_version_major: u64,
    /// +0x020: NEFF minor version.
    pub neff_version_minor: u64,
    /// +0x028: build version, NUL-terminated text or empty; see [`Header::build_version`].
    pub neff_build_version: [u8; 128],
    /// +0x0A8: number of TPBs.
    pub num_tpb: u32,
    /// +0x0AC: MD5 of the payload window in bytes 0..16 (see [`HashStatus`](crate::HashStatus)); the rest zero or ASCII '0'.
    pub hash: [u8; 32],
    /// +0x0CC: a random UUID.
    pub uuid: [u8; 16],
    /// +0x0DC: NUL-terminated name (`file.neff`); see [`Header::name`].
    pub name: [u8; 256],
    /// +0x1DC: TPBs the NEFF asks for.
    pub requested_tpb_count: u32,
    /// +0x1E0: TPBs per node.
    pub tpb_per_node: [u8; 64],
    /// +0x220: feature bits; the runtime rejects bits it does not know.
    pub feature_bits: u64,
    /// +0x228: logical NeuronCore size (1 on trn1, 2 on trn2: subgraphs sg00 and sg01).
    pub lnc_size: u32,
}

/// The numbers as numbers, the texts up to their NUL, the hash and UUID in hex: the
/// byte arrays (480 bytes, mostly zero) are not printed a decimal number at a time.
impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hash = crate::short::hex(&self.hash);
        f.debug_struct("Header")
            .field("pkg_version", &self.pkg_version)
            .field("header_size", &self.header_size)
            .field("data_size", &self.data_size)
            .field("neff_version_major", &self.neff_version_major)
            .field("neff_version_minor", &self.neff_version_minor)
            .field("neff_build_version", &self.build_version())
            .field("num_tpb", &self.num_tpb)
            .field("hash", &hash)
            .field("uuid", &self.uuid_string())
            .field("name", &self.name())
            .field("requested_tpb_count", &self.requested_tpb_count)
            .field("tpb_per_node", &crate::short::Short(&self.tpb_per_node))
            .field("feature_bits", &format_args!("{:#x}", self.feature_bits))
            .field("lnc_size", &self.lnc_size)
            .finish()
    }
}

impl Header {
    /// Parse the header of a NEFF file of `bytes`, checking that the payload window lies
    /// within them.
    ///
    /// # Errors
    ///
    /// [`Error::TruncatedHeader`], [`Error::HeaderSizeTooSmall`],
    /// [`Error::HeaderSizePastEnd`], [`Error::DataSizePastEnd`].
    pub fn parse(bytes: &[u8]) -> Result<Header> {
        let len = bytes.len() as u64;
        let Some(h) = bytes.first_chunk::<HEADER_LEN>() else {
            return Err(Error::TruncatedHeader { len });
        };
        let header = Header {
            pkg_version: u64_at(h, 0x000),
            header_size: u64_at(h, 0x008),
            data_size: u64_at(h, 0x010),
            neff_version_major: u64_at(h, 0x018),
            neff_version_minor: u64_at(h, 0x020),
            neff_build_version: array_at(h, 0x028),
            num_tpb: u32::from_le_bytes(array_at(h, 0x0A8)),
            hash: array_at(h, 0x0AC),
            uuid: array_at(h, 0x0CC),
            name: array_at(h, 0x0DC),
            requested_tpb_count: u32::from_le_bytes(array_at(h, 0x1DC)),
            tpb_per_node: array_at(h, 0x1E0),
            feature_bits: u64_at(h, 0x220),
            lnc_size: u32::from_le_bytes(array_at(h, 0x228)),
        };
        let (header_size, data_size) = (header.header_size, header.data_size);
        if header_size < HEADER_LEN as u64 {
            return Err(Error::HeaderSizeTooSmall { header_size });
        }
        if header_size > len {
            return Err(Error::HeaderSizePastEnd { header_size, len });
        }
        if data_size > len - header_size {
            return Err(Error::DataSizePastEnd { header_size, data_size, len });
        }
        Ok(header)
    }

    /// The payload window, `header_size .. header_size + data_size`, as offsets into the file.
    /// `parse` checked both against the file's length; for a header whose fields were set
    /// by hand, an end past `usize::MAX` saturates (slicing a buffer with it then fails
    /// with `get`, rather than this panicking).
    #[must_use]
    pub fn payload_range(&self) -> std::ops::Range<usize> {
        let fit = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let start = fit(self.header_size);
        start..start.saturating_add(fit(self.data_size))
    }

    /// The build version text, up to its NUL (empty in neuronx-cc 2.23 output).
    #[must_use]
    pub fn build_version(&self) -> String {
        c_string(&self.neff_build_version)
    }

    /// The name text, up to its NUL.
    #[must_use]
    pub fn name(&self) -> String {
        c_string(&self.name)
    }

    /// The UUID in its usual 8-4-4-4-12 hex form.
    #[must_use]
    pub fn uuid_string(&self) -> String {
        let h = crate::short::hex(&self.uuid);
        format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
    }
}

/// What an input's first bytes say it is, before any of it is read as a NEFF.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sniff {
    /// A NEFF header: the input is a NEFF, and its read errors are the input's errors.
    Neff,
    /// No NEFF header: a raw record stream.
    Raw,
    /// No NEFF header, but some of one's markers: read as a raw stream, for the reason given.
    NearlyNeff(String),
}

/// Decide whether `bytes` start with a NEFF header. The header has no magic number, so
/// its markers stand in for one: `pkg_version` 2 and `header_size` 1024 (every NEFF
/// seen), `neff_version_major` 1..=255 and `neff_version_minor` 0..=255 (a version field
/// past a short input's end cannot disprove it). The sizes and the payload are not looked
/// at, so a truncated or corrupt NEFF is still told from a stream. Every marker but one
/// (with `pkg_version` under 0x100) is [`Sniff::NearlyNeff`].
///
/// A compiled record cannot pass: its byte 1 (`inst_word_len`) is 16, so `pkg_version`
/// is not 2. An assembled one could only as a MATMUL (0x02) with `inst_word_len` 0, no
/// events, `semaphore_value` 1024 and a small first `step_elem`. An intact NEFF with other
/// markers (a future `pkg_version`) is still found by its payload's gzip magic.
#[must_use]
pub fn sniff(bytes: &[u8]) -> Sniff {
    if intact(bytes) {
        return Sniff::Neff;
    }
    let Some(h) = bytes.first_chunk::<16>() else { return Sniff::Raw };
    let pkg = u64::from_le_bytes(array_at(h, 0));
    let size = u64::from_le_bytes(array_at(h, 8));
    let version = |at: usize| bytes.get(at..at + 8).map(|b| u64::from_le_bytes(array_at(b, 0)));
    let (major, minor) = (version(0x18), version(0x20));
    let misses: Vec<String> = [
        (pkg != 2).then(|| format!("pkg_version {pkg:#x} is not 2")),
        (size != HEADER_LEN as u64).then(|| format!("header_size {size:#x} is not 0x400")),
        major
            .filter(|m| !(1..=255).contains(m))
            .map(|m| format!("neff_version_major {m:#x} is not 1..=255")),
        minor.filter(|&m| m > 255).map(|m| format!("neff_version_minor {m:#x} is not 0..=255")),
    ]
    .into_iter()
    .flatten()
    .collect();
    // One marker off is a damaged header or a format to come; two off is a record that
    // happens to hold a 2 or a 1024 (an assembled MATMUL starts with 02 00 00 00 ...),
    // and so is any `pkg_version` over 0xFF (byte 1 of a compiled record is 0x10).
    match misses.len() {
        0 => Sniff::Neff,
        1 if pkg <= 0xFF => Sniff::NearlyNeff(format!(
            "its first bytes match a NEFF header only in part ({})",
            misses.join(", ")
        )),
        _ => Sniff::Raw,
    }
}

/// Whether `bytes` are a NEFF whose header parses and whose payload starts with the gzip
/// magic, whatever its markers say.
fn intact(bytes: &[u8]) -> bool {
    Header::parse(bytes).is_ok_and(|h| bytes[h.payload_range()].starts_with(&[0x1F, 0x8B]))
}

fn u64_at(h: &[u8; HEADER_LEN], at: usize) -> u64 {
    u64::from_le_bytes(array_at(h, at))
}

fn array_at<const N: usize>(h: &[u8], at: usize) -> [u8; N] {
    let mut a = [0; N];
    a.copy_from_slice(&h[at..at + N]);
    a
}

fn c_string(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}
