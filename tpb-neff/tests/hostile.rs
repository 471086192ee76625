//! Broken and hostile NEFFs, built here from corrupted copies of the small corpus NEFF:
//! each gets its typed error (or, where the format allows it, a warning), never a panic,
//! a hang or an unbounded allocation.

mod support;

use serde_json::{json, Value};
use support::{
    gzip, neff, neff_with_payload, small, small_members, tar, with_member, without_member, Kind,
};
use tpb_neff::{Engine, Error, Neff, ReadOptions, Warning};

fn read(bytes: &[u8]) -> Result<Neff, Error> {
    Neff::from_bytes(bytes, &ReadOptions::default())
}

fn set_u64(bytes: &mut [u8], at: usize, v: u64) {
    bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// The small NEFF's `sg00/def.json` with `edit` applied.
fn def_with(edit: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Vec<u8> {
    let m = small_members();
    let Some((_, Kind::File(def))) = m.iter().find(|(p, _)| p == "sg00/def.json") else { panic!() };
    let mut def: Value = serde_json::from_slice(def).unwrap();
    edit(def.as_object_mut().unwrap());
    neff(&with_member("sg00/def.json", &serde_json::to_vec(&def).unwrap()))
}

#[test]
fn a_truncated_header() {
    let bytes = small();
    assert!(matches!(read(&bytes[..500]), Err(Error::TruncatedHeader { len: 500 })));
    assert!(matches!(read(&[]), Err(Error::TruncatedHeader { len: 0 })));
}

#[test]
fn header_size_past_the_end_or_inside_the_header() {
    let mut bytes = small();
    let len = bytes.len() as u64;
    set_u64(&mut bytes, 8, len + 1);
    assert!(
        matches!(read(&bytes), Err(Error::HeaderSizePastEnd { header_size, .. }) if header_size == len + 1)
    );
    set_u64(&mut bytes, 8, u64::MAX);
    assert!(matches!(read(&bytes), Err(Error::HeaderSizePastEnd { .. })));
    set_u64(&mut bytes, 8, 16);
    assert!(matches!(read(&bytes), Err(Error::HeaderSizeTooSmall { header_size: 16 })));
}

#[test]
fn data_size_past_the_end() {
    let mut bytes = small();
    let len = bytes.len() as u64;
    set_u64(&mut bytes, 0x10, len);
    assert!(
        matches!(read(&bytes), Err(Error::DataSizePastEnd { data_size, .. }) if data_size == len)
    );
    // No overflow on the sum.
    set_u64(&mut bytes, 0x10, u64::MAX);
    assert!(matches!(read(&bytes), Err(Error::DataSizePastEnd { .. })));
}

#[test]
fn a_gzip_bomb_stops_at_the_configured_limit() {
    let bomb = gzip(&vec![0u8; 8 << 20]);
    assert!(bomb.len() < 64 << 10);
    let bytes = neff_with_payload(&bomb);
    let limit = 1 << 20;
    let err =
        Neff::from_bytes(&bytes, &ReadOptions::default().with_max_inflated(limit)).unwrap_err();
    assert!(matches!(err, Error::InflateLimit { limit: 1_048_576 }), "{err:?}");
    assert!(err.to_string().starts_with("payload inflates to more than 1048576 bytes"), "{err}");
}

#[test]
fn a_bomb_inside_a_valid_tar_member_stops_at_the_limit_too() {
    let bytes = neff(&with_member("sg00/weights.npy", &vec![0u8; 4 << 20]));
    let options = ReadOptions::default().with_max_inflated(1 << 20);
    assert!(matches!(
        Neff::from_bytes(&bytes, &options),
        Err(Error::InflateLimit { limit: 1_048_576 })
    ));
    assert!(read(&bytes).is_ok());
}

/// A tar builder holding the small NEFF's members, with GNU headers.
fn small_tar() -> tar::Builder<Vec<u8>> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, kind) in support::small_members() {
        let support::Kind::File(data) = kind else { unreachable!() };
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        b.append_data(&mut h, path, &data[..]).unwrap();
    }
    b
}

/// An empty member of `kind` whose path is the GNU long name `name` (NUL added), written
/// by hand: the builder refuses a name that is not UTF-8.
fn append_long_named(b: &mut tar::Builder<Vec<u8>>, name: &[u8], kind: tar::EntryType) {
    let mut name = name.to_vec();
    name.push(0);
    let mut long = tar::Header::new_gnu();
    long.set_entry_type(tar::EntryType::GNULongName);
    long.set_path("././@LongLink").unwrap();
    long.set_size(name.len() as u64);
    long.set_cksum();
    b.append(&long, &name[..]).unwrap();
    let mut h = tar::Header::new_gnu();
    h.set_path("x").unwrap();
    h.set_entry_type(kind);
    h.set_size(0);
    h.set_cksum();
    b.append(&h, &[][..]).unwrap();
}

/// Member names cost the reader little (a long GNU name is one more header, a byte that
/// is not UTF-8 is read as three): the paths kept count against the limit, so a tar of
/// many long bad names cannot hold several times the limit in memory.
#[test]
fn member_paths_count_against_the_limit() {
    let tar_of = |byte: u8| {
        let mut b = small_tar();
        for i in 0..200u32 {
            let mut name = vec![byte; 1000];
            name.extend_from_slice(format!("{i}").as_bytes());
            append_long_named(&mut b, &name, tar::EntryType::Regular);
        }
        b.into_inner().unwrap()
    };
    // 1000 bytes of 0xFF are kept as 3000 of U+FFFD, twice: 1.2 MB of paths from a tar
    // a third of that size.
    let bad = tar_of(0xFF);
    let limit = bad.len() as u64;
    let options = ReadOptions::default().with_max_inflated(limit);
    let err = Neff::from_bytes(&neff_with_payload(&gzip(&bad)), &options).unwrap_err();
    assert!(matches!(err, Error::InflateLimit { limit: l } if l == limit), "{err:?}");
    assert!(err.to_string().contains("or its members and their paths come to more"), "{err}");
    let roomy = ReadOptions::default().with_max_inflated(8 * limit);
    assert!(Neff::from_bytes(&neff_with_payload(&gzip(&bad)), &roomy).is_ok());
    // Long names in UTF-8, kept twice, fit in what their headers inflate to.
    let good = tar_of(b'a');
    let options = ReadOptions::default().with_max_inflated(good.len() as u64);
    let neff = Neff::from_bytes(&neff_with_payload(&gzip(&good)), &options).unwrap();
    assert_eq!(neff.members().filter(|m| m.path.starts_with("aaa")).count(), 200);
}

#[test]
fn a_tar_cut_inside_a_member() {
    let mut t = tar(&with_member("zz_last.bin", &[7u8; 5000]));
    t.truncate(t.len() - 1024 - 3000);
    let err = read(&neff_with_payload(&gzip(&t))).unwrap_err();
    assert!(matches!(&err, Error::Tar { detail } if detail.contains("zz_last.bin")), "{err:?}");
}

#[test]
fn tar_members_that_climb_out_or_are_absolute() {
    let mut m = small_members();
    m.push(("sg00/../../x".into(), Kind::File(b"x".to_vec())));
    let err = read(&neff(&m)).unwrap_err();
    assert!(
        matches!(&err, Error::UnsafeMemberPath { path, why: "contains .." } if path == "sg00/../../x"),
        "{err:?}"
    );
    assert!(err.to_string().contains("sg00/../../x"), "{err}");

    let mut m = small_members();
    m.push(("/x".into(), Kind::File(b"x".to_vec())));
    assert!(
        matches!(read(&neff(&m)), Err(Error::UnsafeMemberPath { path, why: "absolute" }) if path == "/x")
    );
}

/// A file member named `.` (or `./`) is no file: refused, as `tpb extract --all` could
/// not write it (it was read, then refused there alone). A link so named is skipped with
/// a warning, as any link is.
#[test]
fn a_file_member_that_names_no_file() {
    for name in [".", "./", "./."] {
        let mut m = small_members();
        m.push((name.into(), Kind::File(b"x".to_vec())));
        let err = read(&neff(&m)).unwrap_err();
        assert!(
            matches!(&err, Error::UnsafeMemberPath { path, why: "names no file" } if path == name),
            "{name:?}: {err:?}"
        );
        let mut m = small_members();
        m.push((name.into(), Kind::Symlink("x".into())));
        let read_ = read(&neff(&m)).unwrap_or_else(|e| panic!("{name:?}: {e}"));
        assert_eq!(read_.warnings().len(), 1, "{name:?}: {:?}", read_.warnings());
    }
}

#[test]
fn a_symlink_member_is_never_followed() {
    // Not named by any JSON: skipped and reported.
    let mut m = small_members();
    m.push(("evil".into(), Kind::Symlink("/etc/passwd".into())));
    let neff_ = read(&neff(&m)).unwrap();
    assert_eq!(
        neff_.warnings(),
        [Warning::Link { path: "evil".into(), target: "/etc/passwd".into() }]
    );
    assert_eq!(neff_.member("evil"), None);

    // Named as a stream: an error naming both.
    let mut m = without_member("sg00/PE.bin");
    m.push(("sg00/PE.bin".into(), Kind::Symlink("/etc/passwd".into())));
    let err = read(&neff(&m)).unwrap_err();
    assert!(
        matches!(&err, Error::NamedLink { path, named_by } if path == "sg00/PE.bin" && named_by == "sg00/def.json"),
        "{err:?}"
    );
}

#[test]
fn no_kelf() {
    assert!(matches!(read(&neff(&without_member("kelf-0.json"))), Err(Error::NoKelf)));
}

#[test]
fn a_malformed_kelf() {
    let err = read(&neff(&with_member("kelf-0.json", b"{\"graphs\": [}"))).unwrap_err();
    assert!(matches!(&err, Error::Json { member, .. } if member == "kelf-0.json"), "{err:?}");
    let err = read(&neff(&with_member("kelf-0.json", b"{\"target\": \"cayman\"}"))).unwrap_err();
    assert!(matches!(&err, Error::Schema { member, .. } if member == "kelf-0.json"), "{err:?}");
    let err = read(&neff(&with_member("kelf-0.json", b"[1, 2]"))).unwrap_err();
    assert!(matches!(&err, Error::Schema { member, .. } if member == "kelf-0.json"), "{err:?}");
    let kelf = json!({"graphs": [{"name": "..", "definition": "sg00/def.json"}]});
    let err = read(&neff(&with_member("kelf-0.json", kelf.to_string().as_bytes()))).unwrap_err();
    assert!(matches!(&err, Error::UnsafeReference { path, .. } if path == ".."), "{err:?}");
}

#[test]
fn a_missing_def_json() {
    let err = read(&neff(&without_member("sg00/def.json"))).unwrap_err();
    assert!(
        matches!(&err, Error::MissingMember { path, named_by } if path == "sg00/def.json" && named_by == "kelf-0.json"),
        "{err:?}"
    );
}

#[test]
fn a_def_json_that_names_a_path_outside() {
    let bytes = def_with(|d| {
        d.insert("pe_instr".into(), "../../etc/passwd".into());
    });
    let err = read(&bytes).unwrap_err();
    assert!(
        matches!(&err, Error::UnsafeReference { path, named_by, why: "contains .." } if path == "../../etc/passwd" && named_by == "sg00/def.json"),
        "{err:?}"
    );
    let bytes = def_with(|d| {
        d.insert("sp_instr".into(), "/etc/passwd".into());
    });
    assert!(matches!(read(&bytes), Err(Error::UnsafeReference { why: "absolute", .. })));
    let bytes = def_with(|d| {
        d.insert("sp_instr".into(), 7.into());
    });
    assert!(matches!(read(&bytes), Err(Error::Schema { member, .. }) if member == "sg00/def.json"));
}

#[test]
fn a_stream_that_is_not_a_multiple_of_64_is_returned_whole() {
    let neff_ = read(&neff(&with_member("sg00/PE.bin", &[0xB1; 100]))).unwrap();
    let pe = &neff_.graphs()[0].streams[0];
    assert_eq!(neff_.stream_data(pe).map(<[u8]>::len), Some(100));
}

#[test]
fn missing_and_empty_streams_are_legal() {
    let mut m = with_member("sg00/SP.bin", &[]);
    m.retain(|(p, _)| p != "sg00/Pool.bin");
    let neff_ = read(&neff(&m)).unwrap();
    let s = &neff_.graphs()[0].streams;
    assert_eq!(
        (s[2].engine, s[2].is_present(), s[2].path.as_deref()),
        (Engine::Pool, false, Some("sg00/Pool.bin"))
    );
    assert_eq!(neff_.stream_data(&s[2]), None);
    assert_eq!(neff_.stream_data(&s[4]), Some(&[][..]));
}

#[test]
fn the_engine_json_and_the_legacy_name_are_fallbacks() {
    // No `pe_instr`: the engine JSON's "instr". No `dve_instr` nor `dve`: legacy `dve.bin`.
    let mut m = with_member("sg00/dve.bin", &[0xB1; 64]);
    let Some((_, Kind::File(def))) = m.iter().find(|(p, _)| p == "sg00/def.json") else { panic!() };
    let mut def: Value = serde_json::from_slice(def).unwrap();
    let d = def.as_object_mut().unwrap();
    d.remove("pe_instr");
    d.remove("dve_instr");
    d.remove("dve");
    d.remove("sp_instr");
    d.remove("sp");
    let def = serde_json::to_vec(&def).unwrap();
    m.retain(|(p, _)| p != "sg00/def.json");
    m.push(("sg00/def.json".into(), Kind::File(def)));
    let neff_ = read(&neff(&m)).unwrap();
    let s = &neff_.graphs()[0].streams;
    assert_eq!(s[0].path.as_deref(), Some("sg00/PE.bin"));
    assert_eq!(neff_.stream_data(&s[0]).map(<[u8]>::len), Some(768));
    assert_eq!(s[3].path.as_deref(), Some("sg00/dve.bin"));
    assert_eq!((s[4].path.as_deref(), s[4].is_present()), (None, false));
}

#[test]
fn a_payload_that_is_not_gzip() {
    let mut bytes = small();
    bytes[1024] = b'P';
    assert!(matches!(read(&bytes), Err(Error::Gzip { .. })));
    let bytes = neff_with_payload(&[]);
    assert!(matches!(read(&bytes), Err(Error::Gzip { .. })));
    // A valid gzip member whose content is not a tar.
    let bytes = neff_with_payload(&gzip(b"not a tar archive at all"));
    let err = read(&bytes).unwrap_err();
    assert!(matches!(&err, Error::TarHeader { offset: 0, .. }), "{err:?}");
}

#[test]
fn a_corrupt_deflate_stream_or_crc() {
    let mut bytes = small();
    let n = bytes.len();
    // The gzip trailer (CRC32, ISIZE) sits just before the zero padding.
    let end = bytes.iter().rposition(|&b| b != 0).unwrap();
    bytes[end] ^= 0xFF;
    assert!(matches!(read(&bytes), Err(Error::Gzip { .. })), "{n}");
}

#[test]
fn trailing_garbage_after_the_gzip_member() {
    let mut bytes = small();
    let n = bytes.len();
    bytes[n - 1] = 0x5A;
    assert!(matches!(read(&bytes), Err(Error::TrailingData { len, .. }) if len > 0));
    // Bytes past the payload window are not part of the NEFF: a warning.
    let mut bytes = small();
    bytes.extend_from_slice(b"extra");
    let neff_ = read(&bytes).unwrap();
    assert_eq!(neff_.warnings(), [Warning::TrailingFileBytes(5)]);
}

#[test]
fn an_unknown_pkg_version_is_a_warning() {
    let mut bytes = small();
    set_u64(&mut bytes, 0, 3);
    assert_eq!(read(&bytes).unwrap().warnings(), [Warning::PkgVersion(3)]);
}

#[cfg(unix)]
#[test]
fn a_directory_never_follows_links_and_refuses_unsafe_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tar::Archive::new(&tar(&small_members())[..]).unpack(d).unwrap();
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), [0xEE; 64]).unwrap();

    std::os::unix::fs::symlink(outside.path(), d.join("evil")).unwrap();
    let neff_ = Neff::open(d, &ReadOptions::default()).unwrap();
    assert!(matches!(neff_.warnings(), [Warning::Link { path, .. }] if path == "evil"));
    assert!(neff_.members().all(|m| m.data != [0xEE; 64]));

    std::fs::remove_file(d.join("sg00/PE.bin")).unwrap();
    std::os::unix::fs::symlink(outside.path(), d.join("sg00/PE.bin")).unwrap();
    assert!(
        matches!(Neff::open(d, &ReadOptions::default()), Err(Error::NamedLink { path, .. }) if path == "sg00/PE.bin")
    );
    std::fs::remove_file(d.join("sg00/PE.bin")).unwrap();

    let mut def: Value =
        serde_json::from_slice(&std::fs::read(d.join("sg00/def.json")).unwrap()).unwrap();
    def["pe_instr"] = "../../etc/passwd".into();
    std::fs::write(d.join("sg00/def.json"), def.to_string()).unwrap();
    assert!(matches!(Neff::open(d, &ReadOptions::default()), Err(Error::UnsafeReference { .. })));

    assert!(matches!(
        Neff::open(d, &ReadOptions::default().with_max_inflated(1000)),
        Err(Error::DirectoryLimit { limit: 1000 })
    ));
    assert!(matches!(
        Neff::open(d.join("nothing"), &ReadOptions::default()),
        Err(Error::Io { .. })
    ));
}

#[test]
fn a_stream_of_another_neff_has_no_data_here() {
    let small_ = read(&small()).unwrap();
    let large = Neff::open(support::corpus("matmul_large.neff"), &ReadOptions::default()).unwrap();
    // A NEFF of the small one's JSON members and one stream: fewer members than any
    // index of the large one's streams.
    let mut m = small_members();
    m.retain(|(p, _)| p.ends_with(".json") || p == "sg00/PE.bin");
    let few = read(&neff(&m)).unwrap();
    // What a NEFF gives for a stream of another: nothing, or its own member at that path.
    let own = |n: &Neff, s: &tpb_neff::Stream| {
        let got = n.stream_data(s);
        let mine = n.graphs().iter().flat_map(|g| &g.streams).find(|t| t.path == s.path);
        got.is_none()
            || got.map(<[u8]>::as_ptr) == mine.and_then(|t| n.stream_data(t)).map(<[u8]>::as_ptr)
    };
    for s in large.graphs().iter().flat_map(|g| &g.streams).filter(|s| s.is_present()) {
        assert!(own(&few, s), "{:?}", s.path);
        assert!(own(&small_, s), "{:?}", s.path);
    }
    for s in small_.graphs().iter().flat_map(|g| &g.streams).filter(|s| s.is_present()) {
        assert!(own(&large, s), "{:?}", s.path);
    }
    // A member index past the other NEFF's members gives nothing (it panicked).
    let last = large.graphs().iter().flat_map(|g| &g.streams).rfind(|s| s.is_present());
    assert!(few.stream_data(last.unwrap()).is_none());
}

#[test]
fn the_payload_range_of_a_header_set_by_hand_saturates() {
    let n = read(&small()).unwrap();
    let mut h = n.header().unwrap().clone();
    assert_eq!(h.payload_range(), 1024..1024 + h.data_size as usize);
    h.header_size = u64::MAX;
    h.data_size = 2;
    assert_eq!(h.payload_range(), usize::MAX..usize::MAX);
    h.header_size = 10;
    h.data_size = u64::MAX;
    assert_eq!(h.payload_range(), 10..usize::MAX);
}

/// A `kelf-0.json` whose graph list is `entries`.
fn kelf_of(entries: &[Value]) -> Vec<u8> {
    json!({"graphs": entries, "version": "0.5", "target": "cayman"}).to_string().into_bytes()
}

#[test]
fn a_graph_listed_twice_is_refused_with_its_name_or_definition() {
    let g = |name: &str, def: &str| json!({"name": name, "definition": def});
    let kelf = kelf_of(&[g("sg00", "sg00/def.json"), g("sg00", "sg00/def.json")]);
    let err = read(&neff(&with_member("kelf-0.json", &kelf))).unwrap_err();
    assert!(
        matches!(&err, Error::DuplicateGraph { kelf, first, what: "name", value } if kelf == "kelf-0.json" && first == kelf && value == "sg00"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "kelf-0.json lists graph name 'sg00' twice (a NEFF names each subgraph once)"
    );
    let kelf = kelf_of(&[g("sg00", "sg00/def.json"), g("other", "./sg00//def.json")]);
    let err = read(&neff(&with_member("kelf-0.json", &kelf))).unwrap_err();
    assert!(
        matches!(&err, Error::DuplicateGraph { what: "definition", value, .. } if value == "sg00/def.json"),
        "{err:?}"
    );
    // Across two kelfs too: `tpb extract` would write one graph's files twice.
    let mut m = small_members();
    m.push(("kelf-1.json".into(), Kind::File(kelf_of(&[g("sg01", "sg01/def.json")]))));
    let err = read(&neff(&m)).unwrap_err();
    assert!(
        matches!(&err, Error::DuplicateGraph { kelf, first, what: "name", value } if kelf == "kelf-1.json" && first == "kelf-0.json" && value == "sg01"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "kelf-0.json and kelf-1.json both list graph name 'sg01' (a NEFF names each subgraph once)"
    );
}

#[test]
fn a_long_repeated_graph_list_is_refused() {
    // A 4M-entry list took 59 s and 5.9 GB; entries are checked as they are parsed, so
    // this one stops at its second (speed is the benches' to measure, not a test's).
    let entry = r#"{"name":"sg00","definition":"sg00/def.json"},"#;
    let mut kelf = String::from(r#"{"graphs":["#);
    kelf.push_str(&entry.repeat(500_000));
    kelf.push_str(r#"{"name":"sg01","definition":"sg01/def.json"}]}"#);
    let bytes = neff(&with_member("kelf-0.json", kelf.as_bytes()));
    assert!(matches!(read(&bytes), Err(Error::DuplicateGraph { what: "name", .. })));
}

#[test]
fn a_graph_entry_must_name_an_existing_definition_as_it_is_listed() {
    let kelf = kelf_of(&[json!({"name": "sg00", "definition": "sg07/def.json"}), json!(7)]);
    let err = read(&neff(&with_member("kelf-0.json", &kelf))).unwrap_err();
    assert!(
        matches!(&err, Error::MissingMember { path, named_by } if path == "sg07/def.json" && named_by == "kelf-0.json"),
        "{err:?}"
    );
    let kelf = kelf_of(&[json!({"name": "sg00", "definition": "sg00/def.json"}), json!(7)]);
    let err = read(&neff(&with_member("kelf-0.json", &kelf))).unwrap_err();
    assert!(
        matches!(&err, Error::Schema { detail, .. } if detail == "graphs[1] has no string \"name\""),
        "{err:?}"
    );
}

#[test]
fn fields_the_reader_does_not_use_may_hold_anything() {
    // Long lists and nested values beside the fields used are skipped, not kept.
    let junk = json!({"a": [1, 2.5, null, true, {"b": ["c"]}], "d": "e"});
    let bytes = def_with(|d| {
        d.insert("junk".into(), Value::Array(vec![junk.clone(); 1000]));
    });
    let n = read(&bytes).unwrap();
    assert_eq!(n.graphs().len(), 2);
    let m = small_members();
    let Some((_, Kind::File(kelf))) = m.iter().find(|(p, _)| p == "kelf-0.json") else { panic!() };
    let mut kelf: Value = serde_json::from_slice(kelf).unwrap();
    kelf["junk"] = Value::Array(vec![junk; 1000]);
    kelf["target"] = Value::Null;
    let n = read(&neff(&with_member("kelf-0.json", kelf.to_string().as_bytes()))).unwrap();
    assert_eq!((n.graphs().len(), n.graphs()[0].target.clone()), (2, None));
    // A used field of another type is still an error.
    let bytes = def_with(|d| {
        d.insert("pe_instr".into(), json!(["PE.bin"]));
    });
    assert!(
        matches!(read(&bytes), Err(Error::Schema { detail, .. }) if detail == "\"pe_instr\" is not a string")
    );
}

#[test]
fn a_kelf_that_is_a_link_is_named_as_one() {
    let mut m = without_member("kelf-0.json");
    m.push(("kelf-0.json".into(), Kind::Symlink("/etc/passwd".into())));
    let err = read(&neff(&m)).unwrap_err();
    assert!(matches!(&err, Error::NamedLink { path, .. } if path == "kelf-0.json"), "{err:?}");

    #[cfg(unix)]
    {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        tar::Archive::new(&tar(&small_members())[..]).unpack(d).unwrap();
        std::fs::rename(d.join("kelf-0.json"), d.join("real.json")).unwrap();
        std::os::unix::fs::symlink("real.json", d.join("kelf-0.json")).unwrap();
        let err = Neff::open(d, &ReadOptions::default()).unwrap_err();
        assert!(matches!(&err, Error::NamedLink { path, .. } if path == "kelf-0.json"), "{err:?}");
        assert_eq!(
            err.to_string(),
            "the NEFF names 'kelf-0.json', which is a link (links are never followed)"
        );
    }
}

#[test]
fn a_link_and_a_member_of_one_path_are_a_duplicate_and_the_last_wins() {
    let mut m = small_members();
    m.push(("sg00/PE.bin".into(), Kind::Symlink("/etc/passwd".into())));
    let err = read(&neff(&m)).unwrap_err();
    assert!(matches!(&err, Error::NamedLink { path, .. } if path == "sg00/PE.bin"), "{err:?}");
    let mut m = small_members();
    m.push(("extra".into(), Kind::File(b"1".to_vec())));
    m.push(("extra".into(), Kind::Symlink("x".into())));
    let n = read(&neff(&m)).unwrap();
    assert_eq!(
        n.warnings(),
        [
            Warning::Link { path: "extra".into(), target: "x".into() },
            Warning::Duplicate("extra".into())
        ]
    );
    assert_eq!(n.member("extra"), None);
}

/// The small NEFF unpacked into a new temporary directory.
fn unpacked() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    tar::Archive::new(&tar(&small_members())[..]).unpack(dir.path()).unwrap();
    dir
}

#[test]
fn a_directory_reads_only_what_the_reader_needs() {
    let dir = unpacked();
    let d = dir.path();
    // Other files past the limit, and one that cannot be read: listed, never read.
    let big = std::fs::File::create(d.join("sg00/weights.npy")).unwrap();
    big.set_len(3 << 20).unwrap();
    std::fs::write(d.join("secret"), b"x").unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(d.join("secret"), std::os::unix::fs::PermissionsExt::from_mode(0o000))
        .unwrap();
    let n = Neff::open(d, &ReadOptions::default().with_max_inflated(1 << 20)).unwrap();
    let w = n.members().find(|m| m.path == "sg00/weights.npy").unwrap();
    assert_eq!((w.size, w.loaded, w.data.len()), (3 << 20, false, 0));
    assert_eq!(n.member("sg00/weights.npy"), None);
    assert_eq!(n.streams().filter(|s| s.data.is_some()).count(), 10);
    // Read on demand, within the limit.
    assert!(matches!(n.read_member("sg00/weights.npy"), Err(Error::DirectoryLimit { .. })));
    let n = Neff::open(d, &ReadOptions::default()).unwrap();
    assert_eq!(n.read_member("sg00/weights.npy").unwrap().map(|b| b.len()), Some(3 << 20));
}

#[test]
fn a_directory_without_a_kelf_fails_before_its_walk() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("sub")).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(d.join("sub"), std::os::unix::fs::PermissionsExt::from_mode(0o000))
        .unwrap();
    std::fs::write(d.join("big"), vec![0; 4096]).unwrap();
    let err = Neff::open(d, &ReadOptions::default().with_max_inflated(1000)).unwrap_err();
    assert!(matches!(err, Error::NoKelf), "{err:?}");
}

#[cfg(unix)]
#[test]
fn an_unlistable_subdirectory_is_a_warning() {
    let dir = unpacked();
    let d = dir.path();
    std::fs::create_dir(d.join("locked")).unwrap();
    std::fs::set_permissions(d.join("locked"), std::os::unix::fs::PermissionsExt::from_mode(0o000))
        .unwrap();
    let n = Neff::open(d, &ReadOptions::default()).unwrap();
    let listable = std::fs::read_dir(d.join("locked")).is_ok(); // as root it is
    assert_eq!(
        n.warnings()
            .iter()
            .any(|w| matches!(w, Warning::Unreadable { path, .. } if path == "locked")),
        !listable
    );
}

#[cfg(unix)]
#[test]
fn a_special_file_is_named_in_a_plain_word() {
    let dir = unpacked();
    let d = dir.path();
    let fifo = d.join("sg00/zz.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo here
    }
    let n = Neff::open(d, &ReadOptions::default()).unwrap();
    assert_eq!(n.warnings()[0].to_string(), "member 'sg00/zz.fifo' of kind fifo skipped");

    let mut t = tar(&small_members());
    t.truncate(t.len() - 1024);
    let mut h = tar::Header::new_ustar();
    h.set_path("sg00/zz.fifo").unwrap();
    h.set_entry_type(tar::EntryType::Fifo);
    h.set_size(0);
    h.set_cksum();
    t.extend_from_slice(h.as_bytes());
    t.extend_from_slice(&[0; 1024]);
    let n = read(&neff_with_payload(&gzip(&t))).unwrap();
    assert_eq!(n.warnings()[0].to_string(), "member 'sg00/zz.fifo' of kind fifo skipped");
}

#[test]
fn malformed_json_in_a_skipped_value_is_refused_as_in_a_read_one() {
    let kelf = |junk: &[u8]| {
        let mut k = br#"{"version":"0.5","target":"cayman","junk":"#.to_vec();
        k.extend_from_slice(junk);
        k.extend_from_slice(
            br#","graphs":[{"name":"sg00","definition":"sg00/def.json","x":1},{"name":"sg01","definition":"sg01/def.json"}]}"#,
        );
        k
    };
    // Well-formed values there pass: only what is malformed is refused.
    let n = read(&neff(&with_member("kelf-0.json", &kelf(br#"["\udbff\udfff", {"k": 1}]"#))));
    assert_eq!(n.unwrap().graphs().len(), 2);
    for junk in [
        &br#""\ud800""#[..],
        br#"["a", {"b": "\udc00x"}]"#,
        b"\"\xff\xfe\"",
        b"{\"\xc3\": 1}",
        br#"{"\ud800": 1}"#,
    ] {
        let err = read(&neff(&with_member("kelf-0.json", &kelf(junk)))).unwrap_err();
        assert!(
            matches!(&err, Error::Json { member, .. } if member == "kelf-0.json"),
            "{}: {err:?}",
            String::from_utf8_lossy(junk)
        );
    }
    // In a def.json, and in a graph entry.
    let def = |junk: &[u8]| {
        let m = small_members();
        let Some((_, Kind::File(def))) = m.iter().find(|(p, _)| p == "sg00/def.json") else {
            panic!()
        };
        let mut d = b"{".to_vec();
        d.extend_from_slice(junk);
        d.push(b',');
        d.extend_from_slice(&def[1..]);
        neff(&with_member("sg00/def.json", &d))
    };
    assert!(read(&def(br#""x":"\udbff\udfff""#)).is_ok_and(|n| n.graphs().len() == 2));
    let err = read(&def(br#""x":"\udfff""#)).unwrap_err();
    assert!(matches!(&err, Error::Json { member, .. } if member == "sg00/def.json"), "{err:?}");
    let entry = br#"{"version":"0.5","graphs":[{"name":"sg00","definition":"sg00/def.json","x":["\ud800"]}]}"#;
    let err = read(&neff(&with_member("kelf-0.json", entry))).unwrap_err();
    assert!(matches!(&err, Error::Json { member, .. } if member == "kelf-0.json"), "{err:?}");
}

#[test]
fn a_used_key_repeated_in_one_object_is_refused() {
    let g = r#"{"name":"sg00","definition":"sg00/def.json"}"#;
    let h = r#"{"name":"sg01","definition":"sg01/def.json"}"#;
    for (kelf, key) in [
        (format!(r#"{{"graphs":[{g}],"graphs":[{h}]}}"#), "graphs"),
        (format!(r#"{{"graphs":[{g},{h}],"target":"cayman","target":"sunda"}}"#), "target"),
        (
            format!(
                r#"{{"graphs":[{g},{{"name":"sg01","name":"sg02","definition":"sg01/def.json"}}]}}"#
            ),
            "name",
        ),
        (
            r#"{"graphs":[{"definition":"sg00/def.json","name":"sg00","definition":"sg01/def.json"}]}"#
                .to_owned(),
            "definition",
        ),
    ] {
        let err = read(&neff(&with_member("kelf-0.json", kelf.as_bytes()))).unwrap_err();
        assert!(
            matches!(&err, Error::Json { member, detail } if member == "kelf-0.json" && detail.starts_with(&format!("duplicate field \"{key}\""))),
            "{kelf}: {err:?}"
        );
    }
    // An unused key may repeat, as it is skipped.
    let kelf = format!(r#"{{"graphs":[{g},{h}],"x":1,"x":2}}"#);
    assert!(read(&neff(&with_member("kelf-0.json", kelf.as_bytes()))).is_ok());
    let m = small_members();
    let Some((_, Kind::File(def))) = m.iter().find(|(p, _)| p == "sg00/def.json") else { panic!() };
    let mut d = br#"{"pe_instr":"PE.bin","#.to_vec();
    d.extend_from_slice(&def[1..]);
    let err = read(&neff(&with_member("sg00/def.json", &d))).unwrap_err();
    assert!(
        matches!(&err, Error::Json { member, detail } if member == "sg00/def.json" && detail.starts_with("duplicate field \"pe_instr\"")),
        "{err:?}"
    );
}

/// A tar whose last entry is a GNU long name of `name` for an empty member, after the
/// small NEFF's members.
fn with_long_name(name: &[u8], kind: tar::EntryType) -> Vec<u8> {
    let mut b = small_tar();
    append_long_named(&mut b, name, kind);
    b.into_inner().unwrap()
}

/// A member name longer than `PATH_MAX` is refused before it is copied: 1 MB of bytes
/// that are not UTF-8 would be 3 MB of U+FFFD, twice, before the budget saw them. Its
/// error quotes only the name's start.
#[test]
fn a_member_path_longer_than_path_max_is_refused_before_it_is_copied() {
    for kind in [tar::EntryType::Regular, tar::EntryType::Directory, tar::EntryType::Symlink] {
        let t = with_long_name(&vec![0xFF; 1 << 20], kind);
        let err = read(&neff_with_payload(&gzip(&t))).unwrap_err();
        assert!(
            matches!(&err, Error::UnsafeMemberPath { path, why: "longer than 4096 bytes" }
                if path.chars().count() == 67),
            "{kind:?}: {err:?}"
        );
        assert!(err.to_string().len() < 400, "{err}");
    }
    // At the bound, a name reads.
    let t = with_long_name(&vec![b'a'; 4096], tar::EntryType::Regular);
    let neff = read(&neff_with_payload(&gzip(&t))).unwrap();
    assert!(neff.members().any(|m| m.path.len() == 4096));
}

/// A path a JSON member names longer than `PATH_MAX` is refused, before each folder on
/// its way is looked up with a comparison of up to its whole length (quadratic in the
/// name: a name of 800 KB beside a link of one like it took seconds, of 80 MB hours).
#[test]
fn a_json_reference_longer_than_path_max_is_refused() {
    let long = format!("{}x", "a/".repeat(400_000));
    let mut m = support::small_members();
    m.retain(|(p, _)| p != "sg00/def.json");
    let mut def = serde_json::Map::new();
    def.insert("pe_instr".into(), Value::String(long.clone()));
    m.push(("sg00/def.json".into(), Kind::File(serde_json::to_vec(&def).unwrap())));
    let err = read(&neff(&m)).unwrap_err();
    assert!(
        matches!(&err, Error::UnsafeReference { why: "longer than 4096 bytes", .. }),
        "{err:?}"
    );
}

/// A NEFF of `graphs` graphs, each naming the one 64 KiB member `s.bin` for all five
/// engines.
fn one_stream_named_by(graphs: usize) -> Vec<u8> {
    let list: Vec<Value> = (0..graphs)
        .map(|i| json!({"name": format!("g{i}"), "definition": format!("d{i}.json")}))
        .collect();
    let mut m = vec![
        (
            "kelf-0.json".to_owned(),
            Kind::File(serde_json::to_vec(&json!({"graphs": list, "target": "cayman"})).unwrap()),
        ),
        ("s.bin".to_owned(), Kind::File(vec![0xB1; 64 << 10])),
    ];
    let def = json!({"pe_instr": "s.bin", "act_instr": "s.bin", "pool_instr": "s.bin", "dve_instr": "s.bin", "sp_instr": "s.bin"});
    for i in 0..graphs {
        m.push((format!("d{i}.json"), Kind::File(serde_json::to_vec(&def).unwrap())));
    }
    neff(&m)
}

/// The streams the graphs name count against the limit each time they are named: a
/// small NEFF whose graphs all name one member would otherwise hand its readers
/// (graphs × engines × the member) records, past what any NEFF within the limit holds.
#[test]
fn a_stream_named_by_many_graphs_counts_against_the_limit_each_time() {
    let options = ReadOptions::default().with_max_inflated(1 << 20);
    // 3 graphs × 5 engines × 64 KiB = 960 KiB: within the limit.
    let neff = Neff::from_bytes(&one_stream_named_by(3), &options).unwrap();
    assert_eq!(neff.streams().filter(|s| s.data.is_some_and(|d| d.len() == 64 << 10)).count(), 15);
    // 4 graphs: 1.25 MiB of streams from a payload of 64 KiB.
    let err = Neff::from_bytes(&one_stream_named_by(4), &options).unwrap_err();
    assert!(matches!(err, Error::StreamsLimit { limit: 1_048_576 }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("the engine streams the graphs name come to more than 1048576 bytes"),
        "{err}"
    );
}
