//! Fuzz the NEFF reader on arbitrary bytes: it returns a NEFF or a typed error, never
//! panics, hangs or allocates past its limit, and what it returns is consistent.
//!
//! Each input is read twice: as a NEFF file, and as the tar inside a valid header and
//! gzip member, so that mutations reach the tar and JSON layers instead of dying on the
//! gzip CRC.
#![no_main]

use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;
use libfuzzer_sys::fuzz_target;
use tpb_neff::{Neff, ReadOptions, HEADER_LEN};

/// Small enough that a bomb is refused quickly; far above any seed.
const LIMIT: u64 = 8 << 20;

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions::default().with_max_inflated(LIMIT);
    check(Neff::from_bytes(data, &options));
    check(Neff::from_bytes(&wrap(data), &options));
});

/// `tar` as the payload of a NEFF: header (header_size 1024, data_size), one stored gzip member.
fn wrap(tar: &[u8]) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::none());
    gz.write_all(tar).unwrap();
    let payload = gz.finish().unwrap();
    let mut out = vec![0u8; HEADER_LEN];
    out[0] = 2;
    out[8..16].copy_from_slice(&(HEADER_LEN as u64).to_le_bytes());
    out[16..24].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

fn check(result: tpb_neff::Result<Neff>) {
    let Ok(neff) = result else {
        // Every error renders.
        let _ = result.map_err(|e| e.to_string());
        return;
    };
    let mut total = 0u64;
    for m in neff.members() {
        total += m.data.len() as u64;
        assert!(!m.path.starts_with('/') && !m.path.split('/').any(|c| c == ".."), "{}", m.path);
        assert_eq!(neff.member(m.path), Some(m.data));
    }
    assert!(total <= LIMIT);
    for s in neff.streams() {
        assert_eq!(s.data.is_some(), s.stream.is_present());
        if let (Some(path), Some(data)) = (&s.stream.path, s.data) {
            assert_eq!(neff.member(path), Some(data));
            assert!(neff.is_stream(path));
        }
        let _ = (s.label(), s.graph.arch());
    }
    for w in neff.warnings() {
        let _ = w.to_string();
    }
}
