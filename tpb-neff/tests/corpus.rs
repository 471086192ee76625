//! The reader on the two real NEFFs of the corpus, and on an unpacked copy of one.

mod support;

use std::fs;

use support::corpus;
use tpb_neff::{Engine, HashStatus, Neff, ReadOptions, Target};

/// The NEFF's streams equal the independently extracted ones, byte for byte, and every
/// graph has `records` records in all.
fn check(name: &str, records: usize) -> Neff {
    let neff = Neff::open(corpus(&format!("{name}.neff")), &ReadOptions::default()).unwrap();
    assert_eq!(neff.graphs().len(), 2);
    for g in neff.graphs() {
        assert_eq!(g.target, Some(Target::Cayman));
        assert_eq!(g.arch(), Some("cayman"));
        assert_eq!(g.streams.len(), 5);
        let mut total = 0;
        for s in &g.streams {
            let data = neff.stream_data(s).expect("every engine has a stream");
            assert_eq!(data.len() % 64, 0);
            total += data.len() / 64;
            let want =
                fs::read(corpus(&format!("streams/{name}/{}/{}.bin", g.name, s.engine.name())))
                    .unwrap();
            assert!(data == want, "{}/{} differs from the extracted stream", g.name, s.engine);
            assert_eq!(s.path.as_deref(), Some(&*format!("{}/{}.bin", g.name, s.engine.name())));
        }
        assert_eq!(total, records, "{}", g.name);
    }
    neff
}

#[test]
fn matmul_large_has_two_subgraphs_of_29795_records_for_cayman() {
    let neff = check("matmul_large", 29_795);
    assert_eq!(neff.hash(), Some(HashStatus::MatchWordSwapped));
    assert_eq!(neff.graphs().iter().map(|g| g.name.as_str()).collect::<Vec<_>>(), ["sg00", "sg01"]);
}

#[test]
fn matmul_small_has_two_subgraphs_of_29_records_and_every_header_field() {
    let neff = check("matmul_small", 29);
    assert_eq!(neff.hash(), Some(HashStatus::MatchWordSwapped));
    let h = neff.header().unwrap();
    assert_eq!((h.pkg_version, h.header_size, h.data_size), (2, 1024, 61_440));
    assert_eq!((h.neff_version_major, h.neff_version_minor), (2, 0));
    assert_eq!(h.build_version(), "");
    assert_eq!(h.name(), "file.neff");
    assert_eq!(h.uuid_string(), "00a04c53-5fd9-4f07-bffd-d5eacdefc852");
    assert_eq!((h.num_tpb, h.requested_tpb_count, h.lnc_size), (1, 1, 2));
    assert_eq!(h.tpb_per_node[..2], [1, 0]);
    assert_eq!(h.feature_bits, 0x20_9c00);
    assert_eq!(neff.info().and_then(|i| i.tool_version()), Some("2.23.6484.0+3b612583"));
    assert!(neff.warnings().is_empty(), "{:?}", neff.warnings());
    let g = &neff.graphs()[0];
    assert_eq!(
        (g.kelf.as_str(), g.kelf_version.as_deref(), g.definition.as_str()),
        ("kelf-0.json", Some("0.5"), "sg00/def.json")
    );
    // Data tables that happen to be multiples of 64 bytes are members, not streams.
    let table = "sg00/default_opcode_table.bin";
    assert_eq!(neff.member(table).map(<[u8]>::len), Some(1024));
    assert!(!neff.is_stream(table));
    assert!(neff.is_stream("sg00/PE.bin"));
    assert_eq!(neff.members().count(), 72);
}

#[test]
fn a_hash_in_canonical_order_matches_and_a_wrong_one_is_reported_not_fatal() {
    let mut bytes = support::small();
    // Undo the word swap: canonical order, as older files store it.
    for w in bytes[0xAC..0xBC].chunks_exact_mut(4) {
        w.reverse();
    }
    let neff = Neff::from_bytes(&bytes, &ReadOptions::default()).unwrap();
    assert_eq!(neff.hash(), Some(HashStatus::Match));
    bytes[0xAC] ^= 1;
    let neff = Neff::from_bytes(&bytes, &ReadOptions::default()).unwrap();
    assert!(matches!(neff.hash(), Some(HashStatus::Mismatch { .. })));
    assert_eq!(neff.graphs().len(), 2);
}

#[test]
fn an_unpacked_directory_reads_like_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let tar = support::tar(&support::small_members());
    tar::Archive::new(&tar[..]).unpack(dir.path()).unwrap();
    let file = Neff::open(corpus("matmul_small.neff"), &ReadOptions::default()).unwrap();
    let unpacked = Neff::open(dir.path(), &ReadOptions::default()).unwrap();
    assert!(unpacked.header().is_none() && unpacked.hash().is_none());
    assert_eq!(unpacked.graphs().len(), 2);
    assert_eq!(unpacked.streams().count(), 10);
    for (a, b) in file.streams().zip(unpacked.streams()) {
        assert_eq!(a.label(), b.label());
        assert_eq!(a.data, b.data);
    }
    // Every member is listed with its size; only the needed ones are read, the others
    // read on demand to the same bytes.
    let mut want: Vec<_> = file.members().map(|m| (m.path, m.size)).collect();
    let mut got: Vec<_> = unpacked.members().map(|m| (m.path, m.size)).collect();
    want.sort();
    got.sort();
    assert_eq!(want, got);
    assert!(file.members().all(|m| m.loaded && m.data.len() as u64 == m.size));
    for m in unpacked.members() {
        let bytes = unpacked.read_member(m.path).unwrap().unwrap();
        assert_eq!(Some(&*bytes), file.member(m.path), "{}", m.path);
        assert_eq!(unpacked.member(m.path).is_some(), m.loaded, "{}", m.path);
    }
    let read: Vec<_> = unpacked.members().filter(|m| m.loaded).map(|m| m.path).collect();
    // kelf-0.json, info.json; per graph its def.json (which names the streams) and 5 streams.
    assert_eq!(read.len(), 2 + 2 * (1 + 5), "{read:?}");
    assert!(!unpacked.members().any(|m| m.loaded && m.path.ends_with(".npy")), "{read:?}");
    assert_eq!(unpacked.read_member("nothing").unwrap(), None);
    assert_eq!(unpacked.info().and_then(|i| i.tool_version()), Some("2.23.6484.0+3b612583"));
}

#[test]
fn engines_are_named_as_in_real_neffs() {
    let names: Vec<_> = Engine::ALL.iter().map(|e| e.name()).collect();
    assert_eq!(names, ["PE", "Activation", "Pool", "DVE", "SP"]);
    assert_eq!(Engine::from_name("act"), Some(Engine::Act));
    assert_eq!(Engine::from_name("dve"), Some(Engine::Dve));
    assert_eq!(Engine::from_name("activation"), Some(Engine::Act));
    assert_eq!(Engine::from_name("gpsimd"), None);
}

#[test]
fn neff_files_are_told_from_raw_streams() {
    assert!(tpb_neff::looks_like_neff(&support::small()));
    let pe = fs::read(corpus("streams/matmul_large/sg00/PE.bin")).unwrap();
    assert!(!tpb_neff::looks_like_neff(&pe));
    assert!(!tpb_neff::looks_like_neff(&[]));
}
