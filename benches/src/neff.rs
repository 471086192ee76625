//! The NEFF kernels: inflating a NEFF's payload alone (the floor every reader pays) and
//! the full `tpb-neff` open (header, inflate, tar, JSON, MD5), on the large corpus NEFF.

use std::io::Read;
use std::path::{Path, PathBuf};

use tpb_neff::{Header, Neff, ReadOptions};

/// `testdata/nkipy/matmul_large.neff`: 2 subgraphs × 29,795 records.
pub fn large_neff() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/nkipy/matmul_large.neff")
}

/// Inflate the payload's gzip member with flate2, as a reader must; returns the inflated length.
pub fn inflate_only(file: &[u8]) -> usize {
    let header = Header::parse(file).expect("a NEFF");
    let mut out = Vec::new();
    flate2::bufread::GzDecoder::new(&file[header.payload_range()])
        .read_to_end(&mut out)
        .expect("one gzip member");
    out.len()
}

/// Read the NEFF with `tpb-neff`; returns the number of whole records in its streams.
pub fn open(file: &[u8]) -> usize {
    let neff = Neff::from_bytes(file, &ReadOptions::default()).expect("a readable NEFF");
    neff.streams().filter_map(|s| s.data).map(|d| d.len() / 64).sum()
}

/// The whole records of every stream of the NEFF, concatenated, and their generation
/// (cayman when the NEFF does not name one).
pub fn records(file: &[u8]) -> (tpb_isa::Arch, Vec<u8>) {
    let neff = Neff::from_bytes(file, &ReadOptions::default()).expect("a readable NEFF");
    let mut arch = None;
    let mut out = Vec::new();
    for s in neff.streams() {
        let Some(data) = s.data else { continue };
        arch = arch.or_else(|| s.graph.arch().and_then(tpb_isa::Arch::from_name));
        out.extend_from_slice(&data[..data.len() / 64 * 64]);
    }
    (arch.unwrap_or(tpb_isa::Arch::Cayman), out)
}
