//! Telling a NEFF from a raw record stream by its header's markers, reading an input
//! within a limit, printable error texts, and duplicate members.

mod support;

use std::fs;
use std::path::Path;

use support::{corpus, gzip, neff, neff_with_payload, small, small_members, tar, Kind};
use tpb_neff::{read_file, read_input, sniff, Error, Neff, ReadOptions, Sniff, Warning};

fn read(bytes: &[u8]) -> Result<Neff, Error> {
    Neff::from_bytes(bytes, &ReadOptions::default())
}

/// Every engine stream the corpus holds, with its path.
fn corpus_streams() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for neff in fs::read_dir(corpus("streams")).unwrap() {
        for sg in fs::read_dir(neff.unwrap().path()).unwrap() {
            for f in fs::read_dir(sg.unwrap().path()).unwrap() {
                let path = f.unwrap().path();
                out.push((path.display().to_string(), fs::read(&path).unwrap()));
            }
        }
    }
    assert_eq!(out.len(), 20);
    out
}

#[test]
fn a_truncated_neff_is_still_a_neff_and_fails_as_one() {
    let bytes = small();
    assert_eq!(sniff(&bytes), Sniff::Neff);
    let cut = &bytes[..31232];
    assert_eq!(sniff(cut), Sniff::Neff);
    assert!(matches!(read(cut), Err(Error::DataSizePastEnd { len: 31232, .. })));
    // Shorter than the header, even than its version fields: the markers left decide.
    for len in [500, 20] {
        assert_eq!(sniff(&bytes[..len]), Sniff::Neff, "{len}");
        assert!(matches!(read(&bytes[..len]), Err(Error::TruncatedHeader { .. })));
    }
}

#[test]
fn a_neff_with_a_broken_gzip_magic_is_still_a_neff() {
    let mut bytes = small();
    bytes[1024] ^= 0xFF;
    assert_eq!(sniff(&bytes), Sniff::Neff);
    assert!(matches!(read(&bytes), Err(Error::Gzip { .. })));
}

#[test]
fn no_corpus_stream_nor_any_of_its_records_looks_like_a_neff() {
    for (path, bytes) in corpus_streams() {
        // From every record on, as if the stream started there.
        for at in (0..bytes.len()).step_by(64) {
            assert_eq!(sniff(&bytes[at..]), Sniff::Raw, "{path} from offset {at:#x}");
        }
    }
}

#[test]
fn records_that_hold_some_markers_are_raw() {
    // An assembled MATMUL with nothing set: pkg_version would read 2.
    let mut r = [0u8; 64];
    r[0] = 0x02;
    assert_eq!(sniff(&r), Sniff::Raw);
    // A compiled record (inst_word_len 16) can never be read as pkg_version 2.
    r[1] = 0x10;
    r[8..16].copy_from_slice(&1024u64.to_le_bytes());
    r[0x18] = 2;
    assert_eq!(sniff(&r), Sniff::Raw);
    assert_eq!(sniff(&[]), Sniff::Raw);
    assert_eq!(sniff(&[2, 0, 0, 0]), Sniff::Raw);
}

#[test]
fn a_header_one_marker_off_is_raw_with_the_reason() {
    let mut bytes = small();
    bytes[0x18] = 0; // neff_version_major 0
    bytes[1024] ^= 0xFF; // and not intact, so the gzip magic cannot vouch for it
    let Sniff::NearlyNeff(why) = sniff(&bytes) else { panic!("{:?}", sniff(&bytes)) };
    assert!(why.contains("neff_version_major 0x0 is not 1..=255"), "{why}");
    assert!(!tpb_neff::looks_like_neff(&bytes));
}

#[test]
fn an_intact_neff_of_another_pkg_version_is_found_by_its_gzip_magic() {
    let mut bytes = small();
    bytes[0] = 3;
    assert_eq!(sniff(&bytes), Sniff::Neff);
    assert_eq!(read(&bytes).unwrap().warnings(), [Warning::PkgVersion(3)]);
}

#[test]
fn an_endless_input_stops_at_the_limit() {
    let err = read_input(std::io::repeat(0), Path::new("standard input"), 1000).unwrap_err();
    assert!(matches!(err, Error::InputLimit { limit: 1000, .. }), "{err:?}");
    assert_eq!(err.to_string(), "standard input: more than 1000 bytes, the input limit");
    // Exactly the limit is read whole.
    let bytes = read_input(&[7u8; 1000][..], Path::new("x"), 1000).unwrap();
    assert_eq!(bytes, [7u8; 1000]);
    let bytes = read_input(&[7u8; 200_000][..], Path::new("x"), 1 << 20).unwrap();
    assert_eq!(bytes.len(), 200_000);
}

#[test]
fn a_device_file_stops_at_the_limit() {
    let zero = Path::new("/dev/zero");
    let err = read_file(zero, 4096).unwrap_err();
    assert!(err.to_string().starts_with("/dev/zero: more than 4096 bytes"), "{err}");
    let err = Neff::open(zero, &ReadOptions::default().with_max_inflated(4096)).unwrap_err();
    assert!(matches!(err, Error::InputLimit { limit: 4096, .. }), "{err:?}");
    assert_eq!(read_file(&corpus("matmul_small.neff"), 1 << 20).unwrap(), small());
    assert!(matches!(
        Neff::open(corpus("matmul_small.neff"), &ReadOptions::default().with_max_inflated(1000)),
        Err(Error::InputLimit { limit: 1000, .. })
    ));
}

/// A regular file longer than the limit is refused by its length, before it is read:
/// a sparse file of 1 TiB is refused at once (reading up to a limit of 1 TiB would not
/// finish in a test).
#[test]
fn a_regular_file_past_the_limit_is_refused_by_its_length() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sparse.bin");
    let file = std::fs::File::create(&path).unwrap();
    if file.set_len(1 << 40).is_err() {
        return; // A file system without sparse files of that size.
    }
    let err = read_file(&path, (1 << 40) - 1).unwrap_err();
    assert!(matches!(err, Error::InputLimit { .. }), "{err:?}");
    // Exactly the limit is read whole.
    file.set_len(4096).unwrap();
    assert_eq!(read_file(&path, 4096).unwrap(), [0u8; 4096]);
    assert!(matches!(read_file(&path, 4095), Err(Error::InputLimit { limit: 4095, .. })));
}

#[test]
fn a_gzip_payload_that_is_not_a_tar_is_reported_in_printable_text() {
    // A tar header block of binary: the tar reader quotes it back in its message.
    let mut block = [0u8; 512];
    for (i, b) in block.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(97) | 0x80;
    }
    let err = read(&neff_with_payload(&gzip(&block))).unwrap_err();
    assert!(matches!(err, Error::TarHeader { offset: 0, .. }), "{err:?}");
    // The offset and the tar reader's first clause, not its quote of the raw bytes.
    assert_eq!(
        err.to_string(),
        "payload is not a readable tar archive: bad tar header at offset 0 of the inflated \
         payload (numeric field did not have utf-8 text (cksum))"
    );
}

#[test]
fn a_bad_tar_header_after_good_members_is_located() {
    let mut t = tar(&small_members());
    t.truncate(t.len() - 1024); // the end-of-archive blocks
    let at = t.len() as u64;
    let mut block = [0u8; 512];
    block[..4].copy_from_slice(b"junk");
    block[148..156].copy_from_slice(b"0000000\0");
    t.extend_from_slice(&block);
    t.extend_from_slice(&[0; 1024]);
    let err = read(&neff_with_payload(&gzip(&t))).unwrap_err();
    assert!(
        matches!(&err, Error::TarHeader { offset, reason } if *offset == at && reason == "archive header checksum mismatch"),
        "{err:?}"
    );
    // A header cut short by the end of the payload: the block it starts.
    let cut = &t[..at as usize + 100];
    let err = read(&neff_with_payload(&gzip(cut))).unwrap_err();
    assert!(matches!(&err, Error::TarHeader { offset, .. } if *offset == at), "{err:?}");
}

#[test]
fn a_duplicate_member_is_a_warning_and_the_last_copy_is_used() {
    let mut m = small_members();
    m.push(("sg00/PE.bin".into(), Kind::File(vec![0xB1; 128])));
    let n = read(&neff(&m)).unwrap();
    assert_eq!(n.warnings(), [Warning::Duplicate("sg00/PE.bin".into())]);
    assert_eq!(
        n.warnings()[0].to_string(),
        "member 'sg00/PE.bin' appears more than once; the last copy is used"
    );
    assert_eq!(n.member("sg00/PE.bin"), Some(&[0xB1; 128][..]));
    let pe = &n.graphs()[0].streams[0];
    assert_eq!(n.stream_data(pe), Some(&[0xB1; 128][..]));
    assert_eq!(n.members().filter(|m| m.path == "sg00/PE.bin").count(), 1);
    // The archive really holds both.
    assert!(tar(&m).len() > tar(&small_members()).len());
}
