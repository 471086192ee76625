//! The 1024-byte little-endian header AWS documents ("Work with NEFF Files"): every field
//! typed, in struct order. There is no magic number; the payload starts at `header_size`.

use crate::error::{Error, Result};

/// The size of the header struct; `header_size` may be larger, never smaller.
pub const HEADER_LEN: usize = 1024;

/// The NEFF header, field by field (offsets in the field docs).
#[derive(Clone, Debug, PartialEq, Eq)]
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
    #[must_use]
    pub fn payload_range(&self) -> std::ops::Range<usize> {
        // `parse` checked both against the length of an in-memory slice, so they fit usize.
        let start = self.header_size as usize;
        start..start + self.data_size as usize
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
        let h: String = self.uuid.iter().map(|b| format!("{b:02x}")).collect();
        format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
    }
}

fn u64_at(h: &[u8; HEADER_LEN], at: usize) -> u64 {
    u64::from_le_bytes(array_at(h, at))
}

fn array_at<const N: usize>(h: &[u8; HEADER_LEN], at: usize) -> [u8; N] {
    let mut a = [0; N];
    a.copy_from_slice(&h[at..at + N]);
    a
}

fn c_string(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}
