//! `tpb stats --json` and `tpb validate --json` say everything their text says: each
//! text output is rebuilt from the JSON of the same run and must be the text, line for
//! line (counts, names, findings); the JSON parses, names its format and version, and its
//! counts add up. A corrupted record is a finding in both forms, with exit status 1.

use std::fmt::Write as _;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// `testdata/nkipy/<name>` at the workspace root.
fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/nkipy").join(name)
}

/// `tpb args` in `dir`: standard output, standard error and exit status.
fn tpb(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let o = Command::new(env!("CARGO_BIN_EXE_tpb")).args(args).current_dir(dir).output().unwrap();
    (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code().unwrap_or(-1),
    )
}

/// The text and the JSON of one run's arguments, which must exit alike and say the same
/// on standard error.
fn both(dir: &Path, args: &[&str]) -> (String, Value, i32) {
    let (text, _, json, code) = both_and_stderr(dir, args);
    (text, json, code)
}

/// [`both`], and the standard error the two runs share.
fn both_and_stderr(dir: &Path, args: &[&str]) -> (String, String, Value, i32) {
    let (text, text_err, text_code) = tpb(dir, args);
    let mut with = args.to_vec();
    with.insert(1, "--json");
    let (json, json_err, json_code) = tpb(dir, &with);
    assert_eq!(text_code, json_code, "{args:?}: exit status");
    assert_eq!(text_err, json_err, "{args:?}: standard error");
    let json: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    (text, text_err, json, json_code)
}

fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A table as `tpb` prints one: left-aligned columns two spaces apart, a rule under the
/// header, no trailing spaces.
fn table(out: &mut String, rows: &[Vec<String>]) {
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap())
        .collect();
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r.iter().zip(&widths).map(|(s, &w)| format!("{s:<w$}")).collect();
        writeln!(out, "{}", cells.join("  ").trim_end()).unwrap();
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
            writeln!(out, "{}", rule.join("  ")).unwrap();
        }
    }
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

fn arr(v: &Value) -> &Vec<Value> {
    v.as_array().unwrap_or_else(|| panic!("not an array: {v}"))
}

/// The warnings `tpb stats` gives on standard error (a stream's trailing partial
/// record), from its JSON alone.
fn stats_warnings(j: &Value) -> String {
    let mut o = String::new();
    for st in arr(&j["streams"]).iter().filter(|x| !x["trailing_partial"].is_null()) {
        let of =
            if st["subgraph"].is_null() { String::new() } else { format!("{}: ", s(&st["file"])) };
        let p = &st["trailing_partial"];
        assert_eq!(
            s(&p["message"]),
            format!(
                "trailing partial record of {} at offset {:#x}",
                count(u(&p["len"]), "byte"),
                u(&p["offset"])
            )
        );
        writeln!(o, "warning: {of}{}: {}", s(&st["label"]), s(&p["message"])).unwrap();
    }
    o
}

/// `tpb stats`'s text, from its JSON alone; and the JSON's counts checked to add up.
fn stats_text(j: &Value) -> String {
    assert_eq!((&j["format"], &j["version"]), (&Value::from("tpb-stats"), &Value::from(1)));
    let mut o = String::new();
    write!(o, "{} in {}", count(u(&j["records"]), "record"), count(u(&j["files"]), "file"))
        .unwrap();
    if u(&j["streams_from_neffs"]) > 0 {
        write!(o, ", {} from NEFFs", count(u(&j["streams_from_neffs"]), "stream")).unwrap();
    }
    o.push('\n');
    let streams = arr(&j["streams"]);
    assert_eq!(streams.iter().map(|x| u(&x["records"])).sum::<u64>(), u(&j["records"]));
    let from_neffs = streams.iter().filter(|x| !x["subgraph"].is_null()).count() as u64;
    assert_eq!(from_neffs, u(&j["streams_from_neffs"]));
    if u(&j["records"]) == 0 {
        writeln!(o, "\nno records: every stream given is empty, so no histogram").unwrap();
    }
    let mut in_histograms = 0;
    for h in arr(&j["histograms"]) {
        match s(&h["source"]) {
            "raw" => writeln!(o, "\nopcode histogram, {} (raw streams):", s(&h["arch"])).unwrap(),
            "neff" => {
                writeln!(o, "\nopcode histogram, {} {}:", s(&h["arch"]), s(&h["engine"])).unwrap()
            }
            other => panic!("source {other}"),
        }
        let mut rows = vec![vec!["opcode".into(), "name".into(), "records".into()]];
        let mut sum = 0;
        for op in arr(&h["opcodes"]) {
            let n = u(&op["records"]);
            sum += n;
            // Each opcode's records, by the binding that selects them (or none).
            let arms: u64 = arr(&op["arms"]).iter().map(|a| u(&a["records"])).sum();
            assert_eq!(arms, n, "{op}");
            for a in arr(&op["arms"]) {
                assert_eq!(a["mnemonic"].is_null(), a["arm"].is_null(), "{a}");
            }
            rows.push(vec![
                format!("{:#04x}", u(&op["opcode"])),
                op["name"].as_str().unwrap_or("?").into(),
                n.to_string(),
            ]);
            // Once a sub-opcode's binding selects some, every entry is a row of its own.
            if arr(&op["arms"]).iter().any(|a| !a["sub"].is_null()) {
                for a in arr(&op["arms"]) {
                    let name = match (&a["mnemonic"], &a["sub"]) {
                        (Value::Null, _) => "  (no binding selects)".to_owned(),
                        (m, Value::Null) => format!("  {}", s(m)),
                        (m, x) => format!("  {} (byte {} == {})", s(m), x["offset"], x["value"]),
                    };
                    rows.push(vec![String::new(), name, u(&a["records"]).to_string()]);
                }
            }
        }
        assert_eq!(sum, u(&h["records"]));
        in_histograms += sum;
        table(&mut o, &rows);
    }
    assert_eq!(in_histograms, u(&j["records"]));
    for m in arr(&j["non_stream_members"]) {
        let name = s(&m["neff"]);
        writeln!(
            o,
            "\n{name}: {} members that are not record streams ({} bytes)",
            u(&m["members"]),
            u(&m["bytes"])
        )
        .unwrap();
        let bins = arr(&m["bins"]);
        if !bins.is_empty() {
            let mut rows =
                vec![vec![".bin member (not a record stream)".to_owned(), "bytes".to_owned()]];
            rows.extend(
                bins.iter().map(|b| vec![s(&b["path"]).into(), u(&b["bytes"]).to_string()]),
            );
            table(&mut o, &rows);
        }
        for a in arr(&j["absent"]).iter().filter(|a| s(&a["neff"]) == name) {
            writeln!(
                o,
                "{name}: {}: absent (its graph names it, no member holds it)",
                s(&a["label"])
            )
            .unwrap();
        }
    }
    let never = &j["bindings_never_used"];
    let archs: Vec<&str> = arr(&never["archs"]).iter().map(s).collect();
    let of = if archs.is_empty() { String::new() } else { format!(" (of {})", archs.join(", ")) };
    let list = |o: &mut String, items: &[Value], line: &dyn Fn(&Value) -> String| {
        if items.is_empty() {
            writeln!(o, "  (none)").unwrap();
        }
        for x in items {
            writeln!(o, "  {}", line(x)).unwrap();
        }
    };
    // With no records, every binding is never used: counted, not listed.
    let bindings = arr(&never["bindings"]);
    if u(&j["records"]) == 0 {
        writeln!(o, "\nbindings never used{of}: all {} (no records)", bindings.len()).unwrap();
    } else {
        writeln!(o, "\nbindings never used{of}:").unwrap();
        list(&mut o, bindings, &|b| {
            let sub = match &b["sub"] {
                Value::Null => String::new(),
                x => format!(" (byte {} == {})", u(&x["offset"]), u(&x["value"])),
            };
            format!("{:#04x}{sub} {} ({})", u(&b["opcode"]), s(&b["mnemonic"]), s(&b["arm"]))
        });
    }
    writeln!(o, "\nrecords the spec cannot explain:").unwrap();
    list(&mut o, arr(&j["unexplained"]), &|x| match &x["sub_opcode"] {
        Value::Null => match x["name"].as_str() {
            Some(name) => format!(
                "{:#04x} {name}, not on the generation read: {}",
                u(&x["opcode"]),
                u(&x["records"])
            ),
            None => format!("{:#04x} unknown opcode: {}", u(&x["opcode"]), u(&x["records"])),
        },
        sub => format!(
            "{:#04x} unknown sub-opcode {}: {}",
            u(&x["opcode"]),
            u(&sub["value"]),
            u(&x["records"])
        ),
    });
    writeln!(o, "\nrecords of opcodes the spec names but gives no layout for:").unwrap();
    list(&mut o, arr(&j["opaque"]), &|x| {
        format!(
            "{:#04x} {}: {}",
            u(&x["opcode"]),
            x["name"].as_str().unwrap_or("?"),
            u(&x["records"])
        )
    });
    writeln!(o, "\nnon-zero reserved or unknown bytes:").unwrap();
    list(&mut o, arr(&j["reserved_nonzero"]), &|x| {
        format!("{} +{}: {}", s(&x["arm"]), u(&x["offset"]), u(&x["records"]))
    });
    writeln!(o, "\ninferred fields exercised (non-zero):").unwrap();
    list(&mut o, arr(&j["inferred_exercised"]), &|x| {
        format!("{}.{}: {}", s(&x["arm"]), s(&x["field"]), u(&x["records"]))
    });
    o
}

/// `tpb validate`'s text, from its JSON alone; and the JSON's totals checked.
fn validate_text(j: &Value) -> String {
    assert_eq!((&j["format"], &j["version"]), (&Value::from("tpb-validate"), &Value::from(1)));
    let neff = s(&j["kind"]) == "neff";
    // A NEFF's streams are pre-relocation; a raw stream is with `--pre-relocation`.
    let pre = j["pre_relocation"].as_bool().unwrap();
    assert!(pre || !neff);
    let name = s(&j["input"]);
    let mut o = String::new();
    if pre {
        let what = if neff {
            "NEFF streams are pre-relocation"
        } else {
            "taken as a NEFF stream before relocation (--pre-relocation)"
        };
        writeln!(
            o,
            "{name}: {what}: pseudo opcodes (0xc1..=0xdf) are legal (their fields are \
             validated), and no EXIT is expected, so the EXIT and final-record checks are \
             skipped"
        )
        .unwrap();
    }
    let streams = arr(&j["streams"]);
    for st in streams {
        let label = s(&st["label"]);
        let arch = s(&st["arch"]);
        for f in arr(&st["findings"]) {
            let msg = s(&f["message"]);
            match s(&f["check"]) {
                "record" => {
                    let (i, off) = (u(&f["record"]), u(&f["offset"]));
                    assert_eq!(off, i * 64);
                    let colon = if neff { "" } else { ":" };
                    writeln!(o, "{label}{colon} record {i} (offset {off:#x}): {msg}").unwrap();
                }
                "final_record" => {
                    let index = match &f["record"] {
                        Value::Null => String::new(),
                        i => format!(": record {}", u(i)),
                    };
                    let engine = s(&st["engine"]);
                    writeln!(o, "{label}{index}: final-record check ({arch}, {engine}): {msg}")
                        .unwrap();
                }
                "trailing_partial" | "exit" => writeln!(o, "{label}: {msg}").unwrap(),
                other => panic!("check {other}"),
            }
        }
        // The EXIT scan and the final-record check: skipped in a NEFF, and each failure
        // a finding (the final record's once, where it is the last record's own).
        let findings = arr(&st["findings"]);
        let has = |check: &str| findings.iter().any(|f| f["check"] == check);
        if pre {
            assert!(st["exit_scan"].is_null() && st["final_record_check"].is_null(), "{st}");
        } else {
            assert_eq!(st["exit_scan"]["found"], Value::from(!has("exit")), "{st}");
            let fc = &st["final_record_check"];
            let counted = !fc["passed"].as_bool().unwrap()
                && !fc["same_as_record_finding"].as_bool().unwrap();
            assert_eq!(counted, has("final_record"), "{st}");
        }
        let recs = count(u(&st["records"]), "record");
        let found = findings.len();
        match &st["pseudo"] {
            Value::Null => writeln!(o, "{label}: {recs}, {found} finding(s) on {arch}").unwrap(),
            p => writeln!(o, "{label}: {recs} ({} pseudo), {found} finding(s) on {arch}", u(p))
                .unwrap(),
        }
    }
    let t = &j["totals"];
    let findings: usize = streams.iter().map(|x| arr(&x["findings"]).len()).sum();
    assert_eq!(u(&t["findings"]), findings as u64);
    assert_eq!(u(&t["streams"]), streams.len() as u64);
    assert_eq!(u(&t["records"]), streams.iter().map(|x| u(&x["records"])).sum::<u64>());
    assert_eq!(u(&t["absent"]), arr(&j["absent"]).len() as u64);
    if neff {
        for a in arr(&j["absent"]) {
            writeln!(o, "{}: absent (its graph names it, no member holds it): not validated", s(a))
                .unwrap();
        }
        let absent = match u(&t["absent"]) {
            0 => String::new(),
            n => format!(" ({n} more absent)"),
        };
        writeln!(
            o,
            "{name}: {} in {}{absent}, {} finding(s)",
            count(u(&t["records"]), "record"),
            count(u(&t["streams"]), "stream"),
            u(&t["findings"])
        )
        .unwrap();
    }
    o
}

/// A stream the spec cannot fully explain: an unknown opcode's record, an unknown
/// sub-opcode, non-zero reserved bytes, and no EXIT (as `cli.rs` builds it).
fn odd_stream() -> Vec<u8> {
    let mut s = vec![0u8; 3 * 64];
    s[0] = 0x42;
    s[20] = 0x99;
    s[64] = 0xDF;
    s[64 + 12] = 9;
    s[128] = 0xDF;
    s[128 + 12] = 2;
    s[128 + 40] = 0x11;
    s
}

/// The small corpus NEFF's tar, unpacked into `dir` as `neuron-packager unpack` would.
fn unpack_small(dir: &Path) {
    let bytes = fs::read(corpus("matmul_small.neff")).unwrap();
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(&bytes[1024..]).read_to_end(&mut tar).unwrap();
    tar::Archive::new(&tar[..]).unpack(dir).unwrap();
}

/// The corpus's sg00 PE stream with record 3 (LDWEIGHTS) given an `events.wait_mode`
/// (+4) no generation names.
fn corrupted_pe() -> Vec<u8> {
    let mut pe = fs::read(corpus("streams/matmul_small/sg00/PE.bin")).unwrap();
    assert_eq!(pe[3 * 64], 0x01, "record 3 is LDWEIGHTS");
    pe[3 * 64 + 4] = 0xEE;
    pe
}

/// Inputs of every kind: both corpus NEFFs, an unpacked NEFF lacking a stream and with a
/// corrupted one, raw streams odd, partial, empty, corrupted and clean.
fn inputs(d: &Path) {
    fs::copy(corpus("matmul_small.neff"), d.join("small.neff")).unwrap();
    fs::copy(corpus("matmul_large.neff"), d.join("large.neff")).unwrap();
    fs::write(d.join("odd.bin"), odd_stream()).unwrap();
    let mut partial = odd_stream();
    partial.truncate(64 + 20);
    fs::write(d.join("partial.bin"), partial).unwrap();
    fs::write(d.join("empty.bin"), []).unwrap();
    fs::write(d.join("bad_pe.bin"), corrupted_pe()).unwrap();
    fs::copy(corpus("streams/matmul_small/sg01/Pool.bin"), d.join("pool.bin")).unwrap();
    // MATMUL_MX (0x0a): an opcode of mariana and maverick, not of cayman.
    let mut mx = [0u8; 64];
    mx[0] = 0x0a;
    fs::write(d.join("mx.bin"), mx).unwrap();
    unpack_small(&d.join("unpacked"));
    fs::remove_file(d.join("unpacked/sg01/DVE.bin")).unwrap();
    fs::write(d.join("unpacked/sg00/PE.bin"), corrupted_pe()).unwrap();
}

#[test]
fn stats_json_says_what_the_text_says() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    inputs(d);
    let runs: &[&[&str]] = &[
        &["stats", "small.neff", "large.neff"],
        &["stats", "small.neff", "odd.bin", "partial.bin", "pool.bin", "empty.bin"],
        &["stats", "odd.bin", "--arch", "sunda"],
        &["stats", "mx.bin", "odd.bin"],
        &["stats", "empty.bin"],
        &["stats", "unpacked", "bad_pe.bin", "large.neff"],
    ];
    for args in runs {
        let (text, err, json, code) = both_and_stderr(d, args);
        assert_eq!(code, 0, "{args:?}");
        assert_eq!(stats_text(&json), text, "{args:?}");
        assert_eq!(stats_warnings(&json), err, "{args:?}");
    }
    // The whole corpus: everything explained, as the text says.
    let (_, json, _) = both(d, &["stats", "small.neff", "large.neff"]);
    assert_eq!(json["records"], 59648);
    assert_eq!(json["unexplained"], serde_json::json!([]));
    assert_eq!(
        json["opaque"],
        serde_json::json!([
            {"opcode": 0xb1, "name": "SET_ORDERING_MODE", "records": 20},
            {"opcode": 0xcc, "name": "PSEUDO_BRANCH_LABEL", "records": 20},
        ])
    );
}

#[test]
fn validate_json_says_what_the_text_says() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    inputs(d);
    let runs: &[(&[&str], i32)] = &[
        (&["validate", "small.neff"], 0),
        (&["validate", "large.neff", "--engine", "pool"], 0),
        (&["validate", "unpacked"], 1),
        (&["validate", "odd.bin", "--arch", "trn3"], 1),
        (&["validate", "partial.bin"], 1),
        (&["validate", "empty.bin"], 1),
        (&["validate", "bad_pe.bin"], 1),
        (&["validate", "pool.bin", "--engine", "pool"], 1),
        // An extracted engine stream, taken as what it is: no EXIT needed.
        (&["validate", "pool.bin", "--pre-relocation"], 0),
        (&["validate", "partial.bin", "--pre-relocation"], 1),
        // Its pseudo record's sub-opcode 9, which the spec does not name, is a finding
        // before relocation too.
        (&["validate", "odd.bin", "--pre-relocation", "--arch", "trn3"], 1),
    ];
    for &(args, want) in runs {
        let (text, json, code) = both(d, args);
        assert_eq!(code, want, "{args:?}: {text}");
        assert_eq!(validate_text(&json), text, "{args:?}");
    }
}

/// A corrupted record: exit status 1 with `--json` as without, and the finding in the
/// JSON where the text puts it, in a raw stream and in a NEFF's stream.
#[test]
fn validate_json_reports_a_corrupted_record() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    inputs(d);
    let want = serde_json::json!({
        "check": "record",
        "record": 3,
        "offset": 192,
        "kind": "bad_enum",
        "message": "field 'events.wait_mode' at +4 holds 0xee, which the spec does not name on \
                    cayman",
    });
    let (out, err, code) = tpb(d, &["validate", "--json", "unpacked"]);
    assert_eq!(code, 1, "{out}{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["totals"]["findings"], 1);
    assert_eq!(json["absent"], serde_json::json!(["sg01/DVE"]));
    let pe = arr(&json["streams"]).iter().find(|x| x["label"] == "sg00/PE").unwrap();
    assert_eq!(pe["findings"], serde_json::json!([want]));
    assert_eq!(pe["path"], "sg00/PE.bin");

    // The same stream raw: read as an assembled PE image, it also lacks EXIT.
    let (out, _, code) = tpb(d, &["validate", "--json", "bad_pe.bin"]);
    assert_eq!(code, 1);
    let json: Value = serde_json::from_str(&out).unwrap();
    let st = &json["streams"][0];
    assert_eq!(st["findings"][0], want);
    assert_eq!(st["exit_scan"], serde_json::json!({"found": false}));
    let kinds: Vec<&str> = arr(&st["findings"]).iter().map(|f| s(&f["kind"])).collect();
    assert!(kinds.contains(&"no_exit"), "{kinds:?}");
    // An error is text on standard error, exit status 2, with --json too.
    let (out, err, code) = tpb(d, &["validate", "--json", "no_such.bin"]);
    assert_eq!((out.as_str(), code), ("", 2));
    assert!(err.starts_with("error: "), "{err}");
}

/// Every command's JSON says what it is, first: `{"format": "tpb-<command>", "version":
/// 1, …}`, and `kind` where the input may be a NEFF or a raw stream.
#[test]
fn every_json_document_names_its_format_and_version() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::copy(corpus("matmul_small.neff"), d.join("small.neff")).unwrap();
    fs::copy(corpus("streams/matmul_small/sg01/Pool.bin"), d.join("pool.bin")).unwrap();
    let runs: &[(&[&str], &str, Option<&str>)] = &[
        (&["info", "--json", "small.neff"], "tpb-info", Some("neff")),
        (&["info", "--json", "pool.bin"], "tpb-info", Some("raw")),
        (&["disasm", "--json", "small.neff"], "tpb-disasm", Some("neff")),
        (&["disasm", "--json", "pool.bin"], "tpb-disasm", Some("raw")),
        (&["validate", "--json", "small.neff"], "tpb-validate", Some("neff")),
        (&["validate", "--json", "pool.bin"], "tpb-validate", Some("raw")),
        (&["stats", "--json", "small.neff", "pool.bin"], "tpb-stats", None),
        (&["geometry", "--json"], "tpb-geometry", None),
    ];
    for (args, format, kind) in runs {
        let (out, err, code) = tpb(d, args);
        assert!(code == 0 || code == 1, "{args:?}: {err}");
        let j: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(
            (&j["format"], &j["version"]),
            (&Value::from(*format), &Value::from(1)),
            "{args:?}"
        );
        if let Some(kind) = kind {
            assert_eq!(j["kind"], *kind, "{args:?}");
        }
        // The README's promise: the document opens with them, in that order.
        let head: Vec<&str> = out.lines().skip(1).take(2).map(str::trim).collect();
        assert_eq!(
            head,
            [format!("\"format\": \"{format}\","), "\"version\": 1,".into()],
            "{args:?}"
        );
    }
}
