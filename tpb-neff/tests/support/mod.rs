//! Test NEFFs: the corpus files, and copies of the small one rebuilt with changed members.

#![allow(dead_code)] // each test file uses part of it

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;

/// `testdata/nkipy/<name>` at the workspace root.
pub fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/nkipy").join(name)
}

pub fn small() -> Vec<u8> {
    std::fs::read(corpus("matmul_small.neff")).unwrap()
}

/// A tar member to write: a file, or a symbolic link to `target`.
pub enum Kind {
    File(Vec<u8>),
    Symlink(String),
}

/// The members of the small NEFF's tar, in order, decoded with flate2 and tar directly.
pub fn small_members() -> Vec<(String, Kind)> {
    let bytes = small();
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(&bytes[1024..]).read_to_end(&mut tar).unwrap();
    let mut archive = tar::Archive::new(&tar[..]);
    let mut out = Vec::new();
    for e in archive.entries().unwrap() {
        let mut e = e.unwrap();
        let path = e.path().unwrap().to_str().unwrap().to_owned();
        let mut data = Vec::new();
        e.read_to_end(&mut data).unwrap();
        out.push((path, Kind::File(data)));
    }
    out
}

/// A tar of `members`, with names written verbatim (the `tar` builder would refuse `..`).
pub fn tar(members: &[(String, Kind)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, kind) in members {
        let mut h = tar::Header::new_ustar();
        let name = &mut h.as_ustar_mut().unwrap().name;
        name[..path.len()].copy_from_slice(path.as_bytes());
        h.set_mode(0o644);
        match kind {
            Kind::File(data) => {
                h.set_size(data.len() as u64);
                h.set_entry_type(tar::EntryType::Regular);
                h.set_cksum();
                b.append(&h, &data[..]).unwrap();
            }
            Kind::Symlink(target) => {
                h.set_size(0);
                h.set_entry_type(tar::EntryType::Symlink);
                h.set_link_name(target).unwrap();
                h.set_cksum();
                b.append(&h, &[][..]).unwrap();
            }
        }
    }
    b.into_inner().unwrap()
}

/// One gzip member of `data`, at the default level: zlib-rs's fastest level compresses
/// runs of zeros too little for a bomb to stay small.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A NEFF file: the small NEFF's header with `data_size` set to the payload's length.
pub fn neff_with_payload(payload: &[u8]) -> Vec<u8> {
    let mut out = small()[..1024].to_vec();
    out[0x10..0x18].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The small NEFF rebuilt from `members`.
pub fn neff(members: &[(String, Kind)]) -> Vec<u8> {
    neff_with_payload(&gzip(&tar(members)))
}

/// The small NEFF's members with `path` replaced by `data` (added when absent).
pub fn with_member(path: &str, data: &[u8]) -> Vec<(String, Kind)> {
    let mut m = small_members();
    m.retain(|(p, _)| p != path);
    m.push((path.to_owned(), Kind::File(data.to_vec())));
    m
}

/// The small NEFF's members without `path`.
pub fn without_member(path: &str) -> Vec<(String, Kind)> {
    let mut m = small_members();
    m.retain(|(p, _)| p != path);
    m
}
