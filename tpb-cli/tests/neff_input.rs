//! How `tpb` takes its input: a NEFF told from a raw stream by its header whatever its
//! name or source, a read limit on every input, printable errors, NEFF warnings on
//! standard error, filters that match nothing or cannot apply, and the generation a
//! stream is decoded in, always stated.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `testdata/nkipy/<name>` at the workspace root.
fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/nkipy").join(name)
}

fn small() -> Vec<u8> {
    fs::read(corpus("matmul_small.neff")).unwrap()
}

/// A run's standard output, standard error and exit code.
struct Ran {
    out: String,
    err: String,
    code: i32,
}

fn ran(o: Output) -> Ran {
    Ran {
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
        code: o.status.code().unwrap_or(-1),
    }
}

fn tpb(dir: &Path, args: &[&str]) -> Ran {
    ran(Command::new(env!("CARGO_BIN_EXE_tpb")).args(args).current_dir(dir).output().unwrap())
}

/// `tpb args` with `bytes` on standard input.
fn tpb_stdin(args: &[&str], bytes: &[u8]) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // tpb may stop reading early (an error); a broken pipe here is then expected.
    let _ = child.stdin.take().unwrap().write_all(bytes);
    ran(child.wait_with_output().unwrap())
}

/// The small NEFF's tar members, in order.
fn small_members() -> Vec<(String, Vec<u8>)> {
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(&small()[1024..]).read_to_end(&mut tar).unwrap();
    let mut out = Vec::new();
    for e in tar::Archive::new(&tar[..]).entries().unwrap() {
        let mut e = e.unwrap();
        let path = e.path().unwrap().to_str().unwrap().to_owned();
        let mut data = Vec::new();
        e.read_to_end(&mut data).unwrap();
        out.push((path, data));
    }
    out
}

/// A NEFF of the small NEFF's header around `payload`, with the payload's MD5 (so that
/// only a test that means to sees a hash mismatch).
fn neff_with_payload(payload: &[u8]) -> Vec<u8> {
    use md5::Digest;
    let mut out = small()[..1024].to_vec();
    out[0x10..0x18].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    out[0xAC..0xAC + 16].copy_from_slice(&md5::Md5::digest(payload));
    out.extend_from_slice(payload);
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A NEFF holding `members`.
fn neff(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, data) in members {
        let mut h = tar::Header::new_ustar();
        h.set_path(path).unwrap();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append(&h, &data[..]).unwrap();
    }
    neff_with_payload(&gzip(&b.into_inner().unwrap()))
}

fn truncated() -> Vec<u8> {
    small()[..31232].to_vec()
}

fn gzip_magic_flipped() -> Vec<u8> {
    let mut b = small();
    b[1024] ^= 0xFF;
    b
}

#[test]
fn a_broken_neff_on_standard_input_is_an_error_not_a_raw_stream() {
    for (what, bytes) in [("truncated", truncated()), ("gzip magic", gzip_magic_flipped())] {
        for cmd in ["info", "disasm", "stats", "validate"] {
            let r = tpb_stdin(&[cmd, "-"], &bytes);
            assert_eq!(r.code, 2, "{what} {cmd}: {}", r.out);
            assert!(r.out.is_empty(), "{what} {cmd}: {}", r.out);
            assert!(
                r.err.starts_with(
                    "error: <stdin>: starts with a NEFF header but is not a readable NEFF: "
                ),
                "{what} {cmd}: {}",
                r.err
            );
        }
    }
    let r = tpb_stdin(&["info", "-"], &truncated());
    assert!(r.err.contains("data_size 61440 at offset 1024 ends past the end"), "{}", r.err);
    let r = tpb_stdin(&["info", "-"], &gzip_magic_flipped());
    assert!(r.err.contains("payload is not a valid gzip member"), "{}", r.err);
}

/// A NEFF whose payload inflated but whose tar or JSON is broken is said to be broken,
/// without the hint to read it as a raw stream, which it cannot be.
#[test]
fn a_neff_broken_past_its_gzip_member_is_not_offered_as_a_raw_stream() {
    let dir = tempfile::tempdir().unwrap();
    let mut members = small_members();
    let def = members.iter_mut().find(|(p, _)| p == "sg00/def.json").unwrap();
    def.1 = b"{\"pe_instr\": ".to_vec();
    fs::write(dir.path().join("bad_json.neff"), neff(&members)).unwrap();
    fs::write(dir.path().join("bad_tar.neff"), neff_with_payload(&gzip(&[1; 1024]))).unwrap();
    // A whole gzip member followed by what is not padding (a byte flipped there).
    let mut tail = small();
    let at = tail.len() - 100;
    tail[at] ^= 0xff;
    fs::write(dir.path().join("bad_tail.neff"), tail).unwrap();
    for (f, why) in [
        ("bad_json.neff", "sg00/def.json: malformed JSON"),
        ("bad_tar.neff", "payload is not a readable tar archive"),
        ("bad_tail.neff", "non-zero byte at payload offset"),
    ] {
        let r = tpb(dir.path(), &["info", f]);
        assert_eq!(r.code, 2, "{}", r.out);
        assert!(r.err.starts_with(&format!("error: {f}: not a readable NEFF: {why}")), "{}", r.err);
        assert!(!r.err.contains("--raw"), "{}", r.err);
    }
}

#[test]
fn a_broken_neff_under_another_name_is_an_error_not_a_raw_stream() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("model.bin"), truncated()).unwrap();
    fs::write(d.join("t.neff"), truncated()).unwrap();
    let r = tpb(d, &["info", "model.bin"]);
    assert_eq!(r.code, 2, "{}", r.out);
    assert!(r.err.starts_with("error: model.bin: starts with a NEFF header but"), "{}", r.err);
    let r = tpb(d, &["disasm", "t.neff"]);
    assert!(r.err.starts_with("error: t.neff: not a readable NEFF: data_size"), "{}", r.err);
    // Intact, it reads under any name.
    fs::write(d.join("model.bin"), small()).unwrap();
    let r = tpb(d, &["info", "model.bin"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("pkg_version"), "{}", r.out);
}

#[test]
fn every_corpus_stream_is_still_read_as_a_raw_stream_without_a_warning() {
    let root = corpus("streams");
    let mut n = 0;
    for neff in fs::read_dir(&root).unwrap() {
        for sg in fs::read_dir(neff.unwrap().path()).unwrap() {
            for f in fs::read_dir(sg.unwrap().path()).unwrap() {
                let path = f.unwrap().path();
                let r = tpb(&root, &["info", path.to_str().unwrap()]);
                assert!(r.out.contains("a raw record stream (not a NEFF)"), "{}", r.out);
                assert!(r.err.is_empty() && r.code == 0, "{}: {}", path.display(), r.err);
                n += 1;
            }
        }
    }
    assert_eq!(n, 20);
}

#[test]
fn a_stream_that_resembles_a_neff_header_says_why_it_is_read_raw() {
    // The small NEFF's header with neff_version_major 0: one marker off.
    let mut head = small()[..1024].to_vec();
    head[0x18] = 0;
    let r = tpb_stdin(&["info", "-"], &head);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out.starts_with("<stdin>: a raw record stream (not a NEFF), 16 records"),
        "{}",
        r.out
    );
    assert!(
        r.err.contains("warning: <stdin>: read as a raw record stream, not a NEFF: its first bytes match a NEFF header only in part (neff_version_major 0x0 is not 1..=255)"),
        "{}",
        r.err
    );
}

#[test]
fn an_endless_input_stops_at_the_read_limit() {
    let run = |stdin: Stdio, arg: &str| {
        ran(Command::new(env!("CARGO_BIN_EXE_tpb"))
            .args(["info", arg])
            .env("TPB_READ_LIMIT", "65536")
            .stdin(stdin)
            .output()
            .unwrap())
    };
    let r = run(Stdio::null(), "/dev/zero");
    assert_eq!(r.code, 2);
    assert_eq!(
        r.err,
        "error: /dev/zero: more than 65536 bytes, the input limit; set TPB_READ_LIMIT to raise it\n"
    );
    let r = run(Stdio::from(fs::File::open("/dev/zero").unwrap()), "-");
    assert_eq!(r.code, 2);
    assert!(r.err.starts_with("error: <stdin>: more than 65536 bytes"), "{}", r.err);
    // The small NEFF (62464 bytes) is within it, but not what it inflates to.
    let r = run(Stdio::null(), corpus("matmul_small.neff").to_str().unwrap());
    assert_eq!(r.code, 2);
    assert!(r.err.contains("payload inflates to more than 65536 bytes"), "{}", r.err);
    assert!(r.err.ends_with("; set TPB_READ_LIMIT to raise it\n"), "{}", r.err);
    // A limit that is no number is refused.
    let r = ran(Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["info", "/dev/zero"])
        .env("TPB_READ_LIMIT", "lots")
        .output()
        .unwrap());
    assert!(r.err.contains("TPB_READ_LIMIT='lots': expected a number of bytes"), "{}", r.err);
}

#[test]
fn an_error_quoting_the_file_is_printable() {
    let mut block = [0u8; 512];
    for (i, b) in block.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(97) | 0x80;
    }
    let r = tpb_stdin(&["info", "-"], &neff_with_payload(&gzip(&block)));
    assert_eq!(r.code, 2);
    assert!(r.err.contains("payload is not a readable tar archive"), "{}", r.err);
    assert!(r.err.trim_end().bytes().all(|b| (b' '..=b'~').contains(&b)), "{:?}", r.err);
}

#[test]
fn a_duplicate_member_is_reported_on_standard_error() {
    let mut m = small_members();
    m.push(("sg00/PE.bin".into(), vec![0xB1; 64]));
    let bytes = neff(&m);
    let warning =
        "warning: <stdin>: member 'sg00/PE.bin' appears more than once; the last copy is used\n";
    let r = tpb_stdin(&["disasm", "-", "--subgraph", "sg00", "--engine", "pe"], &bytes);
    assert_eq!((r.code, r.err.as_str()), (0, warning));
    assert!(r.out.starts_with("sg00/PE: cayman, 1 record\n"), "{}", r.out);
    let r = tpb_stdin(&["info", "-"], &bytes);
    assert!(r.out.contains("\nwarnings:\n  member 'sg00/PE.bin' appears more than once"));
    assert!(r.err.is_empty(), "info lists them, once: {}", r.err);
}

#[test]
fn extract_with_a_filter_that_matches_nothing_fails_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let small = corpus("matmul_small.neff");
    for filter in [["--subgraph", "sg07"], ["--engine", "gpu"]] {
        let r = tpb(d, &["extract", small.to_str().unwrap(), "-o", "out", filter[0], filter[1]]);
        assert_eq!(r.code, 2, "{}", r.out);
        assert!(!d.join("out").exists(), "{filter:?}");
        if filter[1] == "sg07" {
            assert!(
                r.err.ends_with(
                    ": no stream matches the --subgraph given (its subgraphs: sg00, sg01)\n"
                ),
                "{}",
                r.err
            );
        }
    }
    let r = tpb(d, &["extract", small.to_str().unwrap(), "-o", "out", "--subgraph", "sg01"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(fs::read_dir(d.join("out")).unwrap().count(), 1);
}

#[test]
fn a_subgraph_or_engine_filter_on_a_raw_stream_is_an_error() {
    let pe = corpus("streams/matmul_small/sg00/PE.bin");
    let pe = pe.to_str().unwrap();
    for filter in [["--subgraph", "sg00"], ["--engine", "pe"]] {
        for json in [None, Some("--json")] {
            let mut args = vec!["disasm", pe, filter[0], filter[1]];
            args.extend(json);
            let r = tpb(Path::new("."), &args);
            assert_eq!(r.code, 2, "{}", r.out);
            assert!(r.out.is_empty());
            assert!(
                r.err.contains("is a raw record stream, without subgraphs or engines: --subgraph and --engine apply to NEFFs only"),
                "{}",
                r.err
            );
        }
    }
    let r = tpb_stdin(&["disasm", "-", "--subgraph", "sg00"], &fs::read(pe).unwrap());
    assert_eq!(r.code, 2);
    let r = tpb(Path::new("."), &["extract", pe, "-o", "never", "--subgraph", "sg00"]);
    assert!(r.err.contains("is read as a raw record stream, not a NEFF"), "{}", r.err);
}

#[test]
fn stats_names_the_generation_of_raw_streams() {
    let pe = corpus("streams/matmul_small/sg00/PE.bin");
    let r = tpb(Path::new("."), &["stats", pe.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("\nopcode histogram, cayman (raw streams):\n"), "{}", r.out);
    assert!(!r.out.contains("\nopcode histogram:\n"), "{}", r.out);
}

/// `--arch` reads every input in one generation: a raw stream's histogram is that
/// generation's, its opcode names are those the generation has.
#[test]
fn stats_reads_raw_streams_in_the_generation_given() {
    let pe = corpus("streams/matmul_small/sg00/PE.bin");
    for (arch, name) in [("sunda", "sunda"), ("V4", "mariana"), ("maverick", "maverick")] {
        let r = tpb(Path::new("."), &["stats", "--arch", arch, pe.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{}", r.err);
        let head = format!("\nopcode histogram, {name} (raw streams):\n");
        assert!(r.out.contains(&head), "{}", r.out);
    }
    let r = tpb(Path::new("."), &["stats", "--arch", "nope", pe.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("unknown generation 'nope'"), "{}", r.err);
}

/// A NEFF stream's trailing partial record is said with the NEFF's name: `sg00/PE` is
/// in every NEFF.
#[test]
fn stats_names_the_neff_of_a_partial_stream() {
    let dir = tempfile::tempdir().unwrap();
    let mut members = small_members();
    let pe = members.iter_mut().find(|(p, _)| p == "sg00/PE.bin").unwrap();
    pe.1.truncate(100);
    fs::write(dir.path().join("cut.neff"), neff(&members)).unwrap();
    fs::write(dir.path().join("whole.neff"), small()).unwrap();
    let r = tpb(dir.path(), &["stats", "whole.neff", "cut.neff"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(
        r.err,
        "warning: cut.neff: sg00/PE: trailing partial record of 36 bytes at offset 0x40\n"
    );
    assert!(!r.out.contains("warning"), "{}", r.out);
    // The JSON keeps it; standard error says it as the text does.
    let r = tpb(dir.path(), &["stats", "--json", "cut.neff"]);
    assert!(r.err.contains("warning: cut.neff: sg00/PE: trailing partial record"), "{}", r.err);
    assert!(r.out.contains("\"trailing_partial\""), "{}", r.out);
}

/// A NEFF none of whose streams is there: said as that, not as a filter that matched
/// nothing when no filter was given.
#[test]
fn a_neff_without_any_stream_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let members: Vec<_> =
        small_members().into_iter().filter(|(p, _)| !p.ends_with(".bin")).collect();
    fs::write(dir.path().join("none.neff"), neff(&members)).unwrap();
    let r = tpb(dir.path(), &["disasm", "none.neff"]);
    assert_eq!(r.code, 2, "{}", r.out);
    assert!(r.err.contains("none.neff: no stream: sg00/PE, "), "{}", r.err);
    let r = tpb(dir.path(), &["disasm", "none.neff", "--subgraph", "sg00", "--engine", "pe"]);
    assert!(
        r.err.contains("no stream matches the --subgraph and --engine given: sg00/PE absent"),
        "{}",
        r.err
    );
}

/// `tpb validate --engine` that keeps no stream of a NEFF is an error, as for the other
/// commands, never "0 records, 0 finding(s)" and success.
#[test]
fn validate_with_an_engine_the_neff_has_no_stream_of_fails() {
    let dir = tempfile::tempdir().unwrap();
    let members: Vec<_> =
        small_members().into_iter().filter(|(p, _)| !p.ends_with("/PE.bin")).collect();
    fs::write(dir.path().join("no_pe.neff"), neff(&members)).unwrap();
    let r = tpb(dir.path(), &["validate", "no_pe.neff", "--engine", "pe"]);
    assert_eq!(r.code, 2, "{}", r.out);
    assert!(
        r.err.contains("no_pe.neff: no stream matches the --engine given: sg00/PE, sg01/PE absent"),
        "{}",
        r.err
    );
    let r = tpb(dir.path(), &["validate", "no_pe.neff", "--engine", "act"]);
    assert_eq!(r.code, 0, "{}{}", r.out, r.err);
    assert!(r.out.contains("in 2 streams, 0 finding(s)"), "{}", r.out);
}

/// The listing of a NEFF says which streams its graphs name but it lacks, rather than
/// leave them out without a word.
#[test]
fn disasm_names_the_streams_a_neff_names_but_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let members: Vec<_> = small_members().into_iter().filter(|(p, _)| p != "sg00/PE.bin").collect();
    fs::write(dir.path().join("no_pe.neff"), neff(&members)).unwrap();
    let r = tpb(dir.path(), &["disasm", "--no-hex", "no_pe.neff"]);
    assert_eq!(r.code, 0, "{}{}", r.out, r.err);
    assert!(
        r.out.ends_with("\n\nsg00/PE: absent (its graph names it, no member holds it)\n"),
        "{}",
        r.out
    );
    let r = tpb(dir.path(), &["disasm", "--no-hex", "no_pe.neff", "--engine", "act"]);
    assert!(!r.out.contains("absent"), "{}", r.out);
    let r = tpb(dir.path(), &["disasm", "--json", "no_pe.neff"]);
    let json: serde_json::Value = serde_json::from_str(&r.out).unwrap();
    assert_eq!(json["absent"], serde_json::json!(["sg00/PE"]));
    let r = tpb(dir.path(), &["disasm", "--json", "no_pe.neff", "--engine", "act"]);
    let json: serde_json::Value = serde_json::from_str(&r.out).unwrap();
    assert_eq!(json["absent"], serde_json::json!([]));
}

/// A NEFF stream that ends in part of a record is an error naming the NEFF, not only
/// the stream's label, which every NEFF has.
#[test]
fn disasm_names_the_neff_of_a_partial_stream() {
    let dir = tempfile::tempdir().unwrap();
    let mut members = small_members();
    let pe = members.iter_mut().find(|(p, _)| p == "sg00/PE.bin").unwrap();
    pe.1.truncate(pe.1.len() - 10);
    fs::write(dir.path().join("cut.neff"), neff(&members)).unwrap();
    for json in [false, true] {
        let mut a = vec!["disasm", "cut.neff"];
        if json {
            a.push("--json");
        }
        let r = tpb(dir.path(), &a);
        assert_eq!(r.code, 2, "{}", r.err);
        assert_eq!(
            r.err,
            "error: cut.neff: sg00/PE: trailing partial record of 54 bytes at offset 0x2c0\n"
        );
    }
}

/// `extract -o` onto a file says the file is not a folder, and leaves it alone.
#[test]
fn extract_onto_a_file_says_it_is_not_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("out"), b"mine").unwrap();
    let n = corpus("matmul_small.neff");
    let r = tpb(dir.path(), &["extract", n.to_str().unwrap(), "-o", "out"]);
    assert_eq!(r.code, 2, "{}", r.out);
    assert_eq!(r.err, "error: out exists and is not a folder; -o names the folder to write into\n");
    assert_eq!(fs::read(dir.path().join("out")).unwrap(), b"mine");
}

/// A filter that picks only streams the graphs name but the NEFF lacks says so, rather
/// than list the subgraphs, the one asked for among them.
#[test]
fn a_filter_that_picks_only_absent_streams_says_they_are_absent() {
    let dir = tempfile::tempdir().unwrap();
    let members: Vec<_> = small_members().into_iter().filter(|(p, _)| p != "sg00/PE.bin").collect();
    fs::write(dir.path().join("no_pe.neff"), neff(&members)).unwrap();
    for cmd in ["disasm", "extract"] {
        let mut a = vec![cmd, "no_pe.neff", "--engine", "pe", "--subgraph", "sg00"];
        if cmd == "extract" {
            a.extend(["-o", "out"]);
        }
        let r = tpb(dir.path(), &a);
        assert_eq!(r.code, 2, "{cmd}: {}", r.out);
        assert!(
            r.err.contains(
                "no_pe.neff: no stream matches the --subgraph and --engine given: sg00/PE \
                 absent (its graph names it, no member holds it)"
            ),
            "{cmd}: {}",
            r.err
        );
    }
}

/// A stream the NEFF names but does not hold is said to be unread, not silently left
/// out of the count.
#[test]
fn validate_names_the_streams_a_neff_names_but_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let members: Vec<_> =
        small_members().into_iter().filter(|(p, _)| !p.ends_with("/PE.bin")).collect();
    fs::write(dir.path().join("no_pe.neff"), neff(&members)).unwrap();
    let r = tpb(dir.path(), &["validate", "no_pe.neff"]);
    assert_eq!(r.code, 0, "{}{}", r.out, r.err);
    for sg in ["sg00", "sg01"] {
        let line =
            format!("{sg}/PE: absent (its graph names it, no member holds it): not validated");
        assert!(r.out.contains(&line), "{}", r.out);
    }
    assert!(r.out.contains(" (2 more absent), 0 finding(s)"), "{}", r.out);
    let r = tpb(dir.path(), &["validate", "no_pe.neff", "--engine", "act"]);
    assert!(!r.out.contains("absent"), "{}", r.out);
}

/// The small NEFF with its kelf's target replaced.
fn with_target(target: &str) -> Vec<u8> {
    let mut m = small_members();
    let kelf = m.iter_mut().find(|(p, _)| p == "kelf-0.json").unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(&kelf.1).unwrap();
    json["target"] = target.into();
    kelf.1 = serde_json::to_vec(&json).unwrap();
    neff(&m)
}

#[test]
fn a_neff_without_a_known_generation_is_decoded_in_the_stated_default() {
    let bytes = with_target("zebra");
    // One warning for the graphs of one target.
    let both = "warning: <stdin>: sg00 and sg01 name no known generation (target \"zebra\"); \
                decoding as cayman, the default; --arch picks another\n";
    let r = tpb_stdin(&["disasm", "--no-hex", "-"], &bytes);
    assert_eq!((r.code, r.err.as_str()), (0, both));
    assert!(
        r.out.starts_with(
            "sg00/PE: cayman (the NEFF names no known generation; --arch picks), 12 records\n"
        ),
        "{}",
        r.out
    );
    let r =
        tpb_stdin(&["disasm", "--no-hex", "--arch", "mariana", "--subgraph", "sg00", "-"], &bytes);
    assert_eq!((r.code, r.err.as_str()), (0, ""));
    assert!(r.out.starts_with("sg00/PE: mariana, 12 records\n"), "{}", r.out);

    let r = tpb_stdin(&["stats", "-"], &bytes);
    assert_eq!((r.code, r.err.as_str()), (0, both));
    assert!(r.out.contains("\nopcode histogram, cayman PE:\n"), "{}", r.out);

    // validate agrees: decodes in the default, with the same warning, where it refused.
    let r = tpb_stdin(&["validate", "-"], &bytes);
    assert_eq!(r.err, both);
    assert!(r.out.contains("sg00/PE: 12 records"), "{}", r.out);
    assert!(r.out.contains("finding(s) on cayman"), "{}", r.out);
    let want = tpb(Path::new("."), &["validate", corpus("matmul_small.neff").to_str().unwrap()]);
    assert_eq!(r.code, want.code);
}

/// A NEFF whose header hash does not match its payload is read, and every command that
/// reads it says so on standard error (`tpb info` in its hash row); `validate --json`
/// gives the hash status, and the exit status is the intact file's.
#[test]
fn a_hash_mismatch_is_said_by_every_command_and_never_fatal() {
    let mut bytes = small();
    bytes[0xAC] ^= 0xFF;
    let intact = tpb_stdin(&["validate", "-"], &small());
    for args in [
        &["disasm", "--no-hex", "-"][..],
        &["stats", "-"],
        &["validate", "-"],
        &["extract", "-", "-o", "/dev/null/never"],
    ] {
        let r = tpb_stdin(args, &bytes);
        assert!(
            r.err.starts_with("warning: <stdin>: MD5 mismatch: stored ")
                && r.err.contains("; the payload is read as it is\n"),
            "{args:?}: {}",
            r.err
        );
        if args[0] == "validate" {
            assert_eq!(r.code, intact.code);
        } else if args[0] != "extract" {
            assert_eq!(r.code, 0, "{args:?}: {}", r.err);
        }
    }
    let r = tpb_stdin(&["validate", "--json", "-"], &bytes);
    assert!(r.out.contains("\"hash\": \"mismatch\""), "{}", r.out);
    let r = tpb_stdin(&["validate", "--json", "-"], &small());
    assert!(r.out.contains("\"hash\": \"match_word_swapped\""), "{}", r.out);
    assert_eq!(tpb_stdin(&["disasm", "-"], &small()).err, "");
}

/// A target that is a label or alias `--arch` takes names that generation here too.
#[test]
fn a_neff_target_is_read_as_arch_reads_a_name() {
    for (target, arch) in [("trn2", "cayman"), ("V4", "mariana"), ("sunda", "sunda")] {
        let r = tpb_stdin(&["disasm", "--no-hex", "--subgraph", "sg00", "-"], &with_target(target));
        assert_eq!((r.code, r.err.as_str()), (0, ""), "{target}");
        assert!(r.out.starts_with(&format!("sg00/PE: {arch}, 12 records\n")), "{}", r.out);
    }
}

/// The small NEFF with hostile strings everywhere a file gives text: the header's name
/// (not UTF-8 either) and build version, `info.json`'s tool version, the kelf target, a
/// member's name, and a function name in sg00's PE stream.
fn hostile() -> Vec<u8> {
    let mut m = small_members();
    let edit_json = |m: &mut Vec<(String, Vec<u8>)>, path: &str, key: &str, value: &str| {
        let e = m.iter_mut().find(|(p, _)| p == path).unwrap();
        let mut json: serde_json::Value = serde_json::from_slice(&e.1).unwrap();
        json[key] = value.into();
        e.1 = serde_json::to_vec(&json).unwrap();
    };
    edit_json(&mut m, "info.json", "tool_version", "2.0\u{1b}[2J\nforged  row");
    edit_json(&mut m, "kelf-0.json", "target", "x\u{1b}[1m\ny");
    m.push(("odd\u{1b}[1m\n.bin".to_owned(), vec![0; 64]));
    let pe = m.iter_mut().find(|(p, _)| p == "sg00/PE.bin").unwrap();
    let mut record = [0u8; 64];
    record[0] = 0xD1;
    let name = b"x>:\n     9  fake\x1b[31m";
    record[12..12 + name.len()].copy_from_slice(name);
    pe.1 = record.to_vec();
    let mut bytes = neff(&m);
    let name = b"\xffake\x1b[1m\nname              forged";
    bytes[0xDC..0xDC + 256].fill(0);
    bytes[0xDC..0xDC + name.len()].copy_from_slice(name);
    bytes[0x28..0x28 + 5].copy_from_slice(b"v\x1b]0\n");
    bytes
}

#[test]
fn strings_from_the_file_are_printed_escaped_as_the_record_text_escapes_them() {
    let bytes = hostile();
    let r = tpb_stdin(&["info", "-"], &bytes);
    assert_eq!(r.code, 0, "{}", r.err);
    for want in [
        "name                 \\xffake\\x1b[1m\\x0aname              forged\n",
        "neff_build_version   v\\x1b]0\\x0a\n",
        "tool_version         2.0\\x1b[2J\\x0aforged  row\n",
        "\"x\\x1b[1m\\x0ay\" (no known generation)",
        "odd\\x1b[1m\\x0a.bin",
    ] {
        assert!(r.out.contains(want), "{want} not in\n{}", r.out);
    }
    let r = tpb_stdin(&["disasm", "--no-hex", "--arch", "cayman", "--engine", "pe", "-"], &bytes);
    assert_eq!(r.code, 0, "{}", r.err);
    let label = "00000000 <x>:\\x0a     9  fake\\x1b[31m>:\n";
    assert!(r.out.contains(label), "{}", r.out);
    // The record's own text escapes the name the same way.
    assert!(r.out.contains("function_name=\"x>:\\x0a     9  fake\\x1b[31m\""), "{}", r.out);
    for out in [&r.out, &r.err] {
        assert!(!out.contains('\u{1b}') && !out.contains("\n     9  fake"), "{out}");
    }

    // JSON escapes by itself; a name that is not UTF-8 keeps its bytes as escapes.
    let r = tpb_stdin(&["info", "--json", "-"], &bytes);
    let json: serde_json::Value = serde_json::from_str(&r.out).unwrap();
    assert_eq!(json["header"]["name"], "\\xffake\\x1b[1m\\x0aname              forged");
    assert_eq!(json["header"]["neff_build_version"], "v\u{1b}]0\n");
    assert_eq!(json["tool_version"], "2.0\u{1b}[2J\nforged  row");
    assert!(!r.out.contains('\u{1b}') && !r.out.contains('\u{fffd}'), "{}", r.out);
}

#[test]
fn a_graph_name_from_the_file_is_escaped_in_warnings_and_raw_in_json() {
    let mut m = small_members();
    let kelf = m.iter_mut().find(|(p, _)| p == "kelf-0.json").unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(&kelf.1).unwrap();
    json["graphs"][0]["name"] = "s\u{1b}[1mg".into();
    json["target"] = "zzz".into();
    kelf.1 = serde_json::to_vec(&json).unwrap();
    let bytes = neff(&m);
    let r = tpb_stdin(&["disasm", "--no-hex", "--engine", "pe", "-"], &bytes);
    assert!(
        r.err.contains("warning: <stdin>: s\\x1b[1mg and sg01 name no known generation"),
        "{}",
        r.err
    );
    assert!(!r.err.contains('\u{1b}') && !r.out.contains('\u{1b}'), "{}{}", r.out, r.err);
    // JSON escapes by itself: the label is the file's string, as the subgraph is.
    let r = tpb_stdin(&["disasm", "--json", "--engine", "pe", "-"], &bytes);
    let json: serde_json::Value = serde_json::from_str(&r.out).unwrap();
    let s = &json["streams"][0];
    assert_eq!(s["subgraph"], "s\u{1b}[1mg");
    assert_eq!(s["label"], "s\u{1b}[1mg/PE");
}

/// The small NEFF with its graphs `sg00` and `sg01` renamed `graphs`, in its member
/// paths and in every JSON string that names them.
fn with_graph_names(graphs: [&str; 2]) -> Vec<u8> {
    let mut m = small_members();
    for (path, data) in &mut m {
        for (old, new) in ["sg00", "sg01"].into_iter().zip(graphs) {
            if let Some(rest) = path.strip_prefix(old) {
                *path = format!("{new}{rest}");
            }
            if path.ends_with(".json") {
                // The name as a JSON string's text, without its quotes.
                let quoted = serde_json::to_string(new).unwrap();
                let text = String::from_utf8(data.clone()).unwrap();
                *data = text.replace(old, &quoted[1..quoted.len() - 1]).into_bytes();
            }
        }
    }
    neff(&m)
}

/// A graph name with blanks (a leading one too), `: `, `, `, a `#` or `;` after a blank,
/// a quote or a control character (a backslash is no plain path component, which the
/// NEFF reader refuses): the listing's heading shows it escaped, and `tpb asm` of the
/// listing writes each stream where `tpb extract` writes it, under the graph's own name.
#[test]
fn a_listing_of_graphs_with_odd_names_assembles_where_extract_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let graphs = [" my #graph: cayman, 3 records", "s\u{1b}g\"q ;x"];
    fs::write(d.join("odd.neff"), with_graph_names(graphs)).unwrap();
    let r = tpb(d, &["disasm", "odd.neff"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let heading = "\\x20my \\x23graph: cayman, 3 records/PE: cayman, 12 records\n";
    assert!(r.out.contains(heading), "{}", r.out);
    assert!(r.out.contains("s\\x1bg\\\"q \\x3bx/SP: cayman, 3 records\n"), "{}", r.out);
    fs::write(d.join("odd.lst"), r.out).unwrap();
    let r = tpb(d, &["asm", "odd.lst", "-o", "got"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.err.starts_with("note: odd.lst: read as the listing of 10 streams\n"), "{}", r.err);
    assert!(r.err.contains("s\\x1bg\\\"q ;x/SP: wrote 3 records"), "{}", r.err);
    assert!(!r.err.contains('\u{1b}'), "{}", r.err);
    assert_eq!(tpb(d, &["extract", "odd.neff", "-o", "want"]).code, 0);
    for graph in graphs {
        for engine in ["PE", "Activation", "Pool", "DVE", "SP"] {
            let path = Path::new(graph).join(format!("{engine}.bin"));
            let want = fs::read(d.join("want").join(&path)).unwrap();
            assert_eq!(fs::read(d.join("got").join(&path)).unwrap(), want, "{}", path.display());
        }
    }
}

#[test]
fn raw_and_neff_override_what_the_first_bytes_say() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // An assembled MATMUL whose first bytes pass for a NEFF header's markers.
    let text = "matmul events.semaphore_value=1024 src_mem_pattern.step_elem=[0,0,1]\n";
    fs::write(d.join("m2.tpb"), text).unwrap();
    assert_eq!(tpb(d, &["asm", "m2.tpb", "-o", "m2.bin"]).code, 0);
    let bytes = fs::read(d.join("m2.bin")).unwrap();
    let r = tpb(d, &["disasm", "m2.bin"]);
    assert_eq!(r.code, 2);
    assert!(r.err.ends_with("; if it is a raw record stream, pass --raw\n"), "{}", r.err);
    let r = tpb_stdin(&["disasm", "-"], &bytes);
    assert!(r.err.contains("pass --raw"), "{}", r.err);
    for cmd in ["disasm", "validate", "stats", "info"] {
        let r = tpb(d, &[cmd, "--raw", "m2.bin"]);
        assert!(r.err.is_empty() && !r.out.is_empty(), "{cmd}: {}", r.err);
        let r = tpb_stdin(&[cmd, "--raw", "-"], &bytes);
        assert!(r.err.is_empty() && !r.out.is_empty(), "{cmd}: {}", r.err);
    }
    let r = tpb(d, &["disasm", "--raw", "m2.bin"]);
    assert!(r.out.contains("  matmul events.semaphore_value=0x400"), "{}", r.out);
    // --neff insists, with no hint to take it back; the two do not go together.
    let r = tpb(d, &["info", "--neff", "m2.bin"]);
    assert_eq!(
        r.err,
        "error: m2.bin: not a readable NEFF: truncated header: 64 bytes, a NEFF header is 1024\n"
    );
    assert_eq!(tpb(d, &["disasm", "--raw", "--neff", "m2.bin"]).code, 2);
    fs::write(d.join("corpus.bin"), small()).unwrap();
    let r = tpb(d, &["info", "--neff", "corpus.bin"]);
    assert!(r.out.contains("subgraphs            2"), "{}", r.out);
    let r = tpb(d, &["info", "--raw", "corpus.bin"]);
    assert!(r.out.starts_with("corpus.bin: a raw record stream (not a NEFF)"), "{}", r.out);
    // extract reads NEFFs only: a stream that starts as a NEFF does is an error with no
    // hint of --raw, which it does not offer.
    let r = tpb(d, &["extract", "m2.bin", "-o", "out"]);
    assert_eq!(
        r.err,
        "error: m2.bin: starts with a NEFF header but is not a readable NEFF: truncated \
         header: 64 bytes, a NEFF header is 1024\n"
    );
    for flag in ["--raw", "--hex"] {
        let r = tpb(d, &["extract", flag, "m2.bin", "-o", "out"]);
        assert!(r.err.contains(&format!("unexpected argument '{flag}'")), "{}", r.err);
    }
    let r = tpb(d, &["extract", "--neff", "corpus.bin", "-o", "out"]);
    assert_eq!(r.code, 0, "{}", r.err);
}

#[test]
fn a_read_error_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("folder")).unwrap();
    let commands: [&[&str]; 6] = [
        &["asm", "nonexist.tpb", "-o", "x.bin"],
        &["disasm", "nonexist.tpb"],
        &["info", "nonexist.tpb"],
        &["stats", "nonexist.tpb"],
        &["validate", "nonexist.tpb"],
        &["extract", "nonexist.tpb", "-o", "out"],
    ];
    for args in commands {
        let r = tpb(d, args);
        assert_eq!(
            r.err, "error: reading nonexist.tpb: No such file or directory (os error 2)\n",
            "{args:?}"
        );
    }
    let r = tpb(d, &["asm", "folder", "-o", "x.bin"]);
    assert_eq!(r.err, "error: reading folder: Is a directory (os error 21)\n");
}

#[test]
fn a_folder_of_too_many_entries_says_how_to_raise_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("kelf-0.json"), b"{}").unwrap();
    // 10 000 entries is the least limit, whatever TPB_READ_LIMIT says.
    for i in 0..10_000 {
        fs::File::create(d.join(format!("f{i}"))).unwrap();
    }
    let r = ran(Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["info", d.to_str().unwrap()])
        .env("TPB_READ_LIMIT", "65536")
        .output()
        .unwrap());
    assert_eq!(r.code, 2);
    assert!(r.err.contains("directory holds more than 10000 entries"), "{}", r.err);
    assert!(r.err.ends_with("; set TPB_READ_LIMIT to raise it\n"), "{}", r.err);
}

#[test]
fn a_folder_of_neff_files_is_named_in_the_error_with_the_way_to_read_them() {
    let dir = tempfile::tempdir().unwrap();
    let below = dir.path().join("cache/model");
    fs::create_dir_all(&below).unwrap();
    fs::write(below.join("b.neff"), small()).unwrap();
    fs::write(below.join("a.NEFF"), small()).unwrap();
    fs::write(dir.path().join("notes.txt"), "not a NEFF").unwrap();
    for cmd in ["disasm", "stats", "info"] {
        let r = tpb(dir.path(), &[cmd, "."]);
        assert_eq!(r.code, 2, "{cmd}: {}", r.err);
        assert!(r.err.contains("not a readable NEFF directory"), "{cmd}: {}", r.err);
        let first = Path::new(".").join("cache/model/a.NEFF");
        let hint = format!("name them one by one ({} and 1 more)", first.display());
        assert!(r.err.contains(&hint), "{cmd}: {}", r.err);
    }
    // Named one by one, as the hint says, they read.
    let r = tpb(dir.path(), &["stats", "cache/model/a.NEFF", "cache/model/b.neff"]);
    assert_eq!(r.code, 0, "{}", r.err);
    // A folder with no NEFF file in it gets no hint.
    let empty = tempfile::tempdir().unwrap();
    let r = tpb(empty.path(), &["stats", "."]);
    assert_eq!(r.code, 2);
    assert!(!r.err.contains("name them"), "{}", r.err);
}

/// `extract --all` of a NEFF with a member `x` beside a member `x/y` (a file where the
/// other needs a folder) is refused before anything is written, naming both: it stopped
/// part way, on a bare "File exists".
#[test]
fn extract_all_refuses_members_that_cannot_both_be_unpacked_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let mut members = small_members();
    members.push(("x".to_owned(), b"file".to_vec()));
    members.push(("x/y".to_owned(), b"nested".to_vec()));
    fs::write(dir.path().join("c.neff"), neff(&members)).unwrap();
    fs::write(dir.path().join("small.neff"), small()).unwrap();
    let r = tpb(dir.path(), &["extract", "--all", "c.neff", "-o", "out"]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(
        r.err.contains(
            "member 'x' is a file where member 'x/y' needs a folder; refusing to unpack either"
        ),
        "{}",
        r.err
    );
    assert!(!dir.path().join("out").exists());
    // A folder already where a member goes: refused before any member is written.
    fs::create_dir_all(dir.path().join("out2/sg01/PE.bin")).unwrap();
    let r = tpb(dir.path(), &["extract", "--all", "small.neff", "-o", "out2"]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("out2/sg01/PE.bin is a folder"), "{}", r.err);
    assert_eq!(fs::read_dir(dir.path().join("out2")).unwrap().count(), 1);
}

/// The graphs of one unknown target get one warning, naming how many (a NEFF of
/// thousands of graphs printed a line each).
#[test]
fn many_graphs_of_an_unknown_target_get_one_warning() {
    let mut m = small_members();
    let sg00: Vec<(String, Vec<u8>)> =
        m.iter().filter(|(p, _)| p.starts_with("sg00/")).cloned().collect();
    let kelf = m.iter().position(|(p, _)| p == "kelf-0.json").unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(&m[kelf].1).unwrap();
    for i in 2..6 {
        let g = format!("sg{i:02}");
        json["graphs"].as_array_mut().unwrap().push(serde_json::json!({
            "name": g, "definition": format!("{g}/def.json")
        }));
        m.extend(sg00.iter().map(|(p, d)| (p.replacen("sg00", &g, 1), d.clone())));
    }
    json["target"] = "zebra".into();
    m[kelf].1 = serde_json::to_vec(&json).unwrap();
    let r = tpb_stdin(&["stats", "-"], &neff(&m));
    assert_eq!(
        (r.code, r.err.as_str()),
        (
            0,
            "warning: <stdin>: 6 graphs (sg00, …) name no known generation (target \"zebra\"); \
             decoding as cayman, the default; --arch picks another\n"
        )
    );
}

/// A NEFF holding `members` in a GNU tar (long names as `././@LongLink` entries; a
/// PAX `path` record when `pax` names a member, so that the path may hold a NUL).
fn neff_gnu(members: &[(String, Vec<u8>)], pax: Option<(&str, &[u8])>) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, data) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        if let Some((name, raw)) = pax.filter(|(name, _)| name == path) {
            b.append_pax_extensions([("path", raw)]).unwrap();
            b.append_data(&mut h, name, &data[..]).unwrap();
        } else {
            b.append_data(&mut h, path, &data[..]).unwrap();
        }
    }
    neff_with_payload(&gzip(&b.into_inner().unwrap()))
}

/// The files under `dir`, none when it is missing.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = fs::read_dir(&d) else { continue };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// A graph whose name no file system takes as a folder (longer than `NAME_MAX`), or a
/// link in the way of a later graph's stream, is refused before any stream is written:
/// `extract` wrote the streams of the graphs before it, then failed.
#[test]
fn extract_checks_every_stream_path_before_writing_any() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let long = "g".repeat(300);
    let members: Vec<_> = small_members()
        .into_iter()
        .map(|(path, data)| match path.strip_prefix("sg01") {
            Some(rest) => (format!("{long}{rest}"), data),
            None if path == "kelf-0.json" => {
                let text = String::from_utf8(data).unwrap().replace("sg01", &long);
                (path, text.into_bytes())
            }
            None => (path, data),
        })
        .collect();
    fs::write(d.join("long.neff"), neff_gnu(&members, None)).unwrap();
    let r = tpb(d, &["extract", "long.neff", "-o", "out"]);
    assert_eq!(r.code, 2, "{}{}", r.out, r.err);
    assert!(r.err.contains("has a name longer than 255 bytes"), "{}", r.err);
    assert_eq!(files_under(&d.join("out")), Vec::<PathBuf>::new());
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir(d.join("out2")).unwrap();
        std::os::unix::fs::symlink(outside.path(), d.join("out2/sg01")).unwrap();
        let small = corpus("matmul_small.neff");
        let r = tpb(d, &["extract", small.to_str().unwrap(), "-o", "out2"]);
        assert_eq!(r.code, 2, "{}{}", r.out, r.err);
        assert!(r.err.contains("is a symbolic link; refusing to write through it"), "{}", r.err);
        assert!(!d.join("out2/sg00").exists(), "{}", r.out);
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}

/// `extract --all` checks that every member's path can be created (no NUL, no name
/// longer than `NAME_MAX`) before it writes any: it wrote the members before such a
/// path, then failed.
#[test]
fn extract_all_refuses_an_unwritable_member_path_before_writing_any() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut members = small_members();
    members.push((format!("zz/{}", "c".repeat(300)), b"1".to_vec()));
    fs::write(d.join("long.neff"), neff_gnu(&members, None)).unwrap();
    let r = tpb(d, &["extract", "--all", "long.neff", "-o", "out"]);
    assert_eq!(r.code, 2, "{}{}", r.out, r.err);
    assert!(r.err.contains("has a name longer than 255 bytes"), "{}", r.err);
    assert_eq!(files_under(&d.join("out")), Vec::<PathBuf>::new());
    let mut members = small_members();
    members.push(("zz/nul".to_owned(), b"1".to_vec()));
    fs::write(d.join("nul.neff"), neff_gnu(&members, Some(("zz/nul", b"zz/a\0b")))).unwrap();
    let r = tpb(d, &["extract", "--all", "nul.neff", "-o", "out"]);
    assert_eq!(r.code, 2, "{}{}", r.out, r.err);
    assert!(r.err.contains("member 'zz/a\\x00b' holds a NUL byte"), "{}", r.err);
    assert_eq!(files_under(&d.join("out")), Vec::<PathBuf>::new());
}

/// The listing of a NEFF that lacks a stream its graph names says so in a line of its
/// own, which `tpb asm` reads as a blank line: the listing assembles to the streams
/// `tpb extract` writes (it was an unknown mnemonic).
#[test]
fn a_listing_naming_absent_streams_assembles() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let members: Vec<_> = small_members().into_iter().filter(|(p, _)| p != "sg00/PE.bin").collect();
    fs::write(d.join("no_pe.neff"), neff(&members)).unwrap();
    let r = tpb(d, &["disasm", "no_pe.neff"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("sg00/PE: absent"), "{}", r.out);
    fs::write(d.join("no_pe.lst"), &r.out).unwrap();
    let r = tpb(d, &["asm", "no_pe.lst", "-o", "got"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(tpb(d, &["extract", "no_pe.neff", "-o", "want"]).code, 0);
    let mut want = files_under(&d.join("want"));
    want.sort();
    assert_eq!(want.len(), 9);
    for w in want {
        let got = d.join("got").join(w.strip_prefix(d.join("want")).unwrap());
        assert_eq!(fs::read(&got).unwrap(), fs::read(&w).unwrap(), "{}", got.display());
    }
    // One stream left, with the others absent: the listing of one stream, to a file.
    let members: Vec<_> = small_members()
        .into_iter()
        .filter(|(p, _)| !p.ends_with(".bin") || p == "sg00/PE.bin")
        .collect();
    let pe = members.iter().find(|(p, _)| p == "sg00/PE.bin").unwrap().1.clone();
    fs::write(d.join("pe_only.neff"), neff(&members)).unwrap();
    let r = tpb(d, &["disasm", "pe_only.neff"]);
    assert!(r.out.contains("sg00/SP: absent"), "{}", r.out);
    fs::write(d.join("pe_only.lst"), &r.out).unwrap();
    let r = tpb(d, &["asm", "pe_only.lst", "-o", "pe.bin"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(fs::read(d.join("pe.bin")).unwrap(), pe);
}
