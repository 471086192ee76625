//! Golden outputs of every `tpb` command, on streams the tests build and on the corpus
//! NEFFs in `testdata/`. Run with `TPB_BLESS=1` to rewrite the files in `tests/golden/`
//! after a deliberate change.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PROGRAM: &str = "\
# main: call a kernel, then stop
pseudo_function_begin function_name=\"main\" return_reset_semaphores=1 return_addr_reg_lo=4 return_addr_reg_hi=5
pseudo_function_call events.wait_mode=SEM_EQ_IMM events.semaphore_value=3 function_name=\"matmul_kernel\" args_table_var_id=7
pseudo_library_reload_index
pseudo_exit_execution
";

/// One run of the binary: its arguments (paths relative to `dir` are shown as given).
struct Run {
    name: &'static str,
    args: Vec<String>,
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// `testdata/nkipy/<name>` at the workspace root.
fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/nkipy").join(name)
}

fn run(dir: &Path, args: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("tpb runs");
    format!(
        "$ tpb {}\n{}{}exit: {}\n",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        out.status.code().unwrap_or(-1)
    )
}

/// A stream the spec cannot fully explain: an unknown opcode, an unknown sub-opcode,
/// non-zero reserved bytes and an inferred field in use, and no EXIT.
fn odd_stream() -> Vec<u8> {
    let mut s = Vec::new();
    let mut r = [0u8; 64];
    r[0] = 0x42;
    r[20] = 0x99;
    s.extend_from_slice(&r);
    let mut r = [0u8; 64];
    r[0] = 0xDF;
    r[12] = 9;
    s.extend_from_slice(&r);
    let mut r = [0u8; 64];
    r[0] = 0xDF;
    r[12] = 2;
    r[40] = 0x11;
    s.extend_from_slice(&r);
    s
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

#[test]
fn golden_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("prog.tpb"), PROGRAM).unwrap();
    fs::write(d.join("bad.tpb"), "pseudo_exit_execution bogus=1\nfrobnicate\npseudo_function_call args_table_var_id=0x1_0000_0000\n").unwrap();
    fs::write(d.join("odd.bin"), odd_stream()).unwrap();
    let mut partial = odd_stream();
    partial.truncate(64 + 20);
    fs::write(d.join("partial.bin"), partial).unwrap();
    // EXIT, then a final record whose wait_mode (+4) no generation names: one finding.
    let mut bad_final = vec![0u8; 128];
    bad_final[0] = 0xDF;
    bad_final[12] = 1;
    bad_final[64..68].copy_from_slice(&[0x01, 0, 0, 0]);
    bad_final[68] = 0xEE;
    fs::write(d.join("bad_final.bin"), bad_final).unwrap();

    // `asm` first: the later runs read what it wrote.
    let runs = [
        Run { name: "asm", args: args(&["asm", "prog.tpb", "-o", "prog.bin"]) },
        Run { name: "asm_errors", args: args(&["asm", "bad.tpb", "-o", "bad.bin"]) },
        Run { name: "disasm", args: args(&["disasm", "prog.bin"]) },
        Run { name: "disasm_odd", args: args(&["disasm", "odd.bin"]) },
        Run { name: "disasm_json", args: args(&["disasm", "--json", "prog.bin"]) },
        Run {
            name: "disasm_json_mariana",
            args: args(&["disasm", "--json", "--arch", "mariana", "odd.bin"]),
        },
        Run { name: "disasm_partial", args: args(&["disasm", "partial.bin"]) },
        Run { name: "validate", args: args(&["validate", "prog.bin", "--arch", "cayman"]) },
        Run { name: "validate_odd", args: args(&["validate", "odd.bin", "--arch", "trn3"]) },
        Run { name: "validate_bad_final", args: args(&["validate", "bad_final.bin"]) },
        Run { name: "geometry", args: args(&["geometry"]) },
        Run { name: "geometry_cayman", args: args(&["geometry", "cayman"]) },
        Run { name: "geometry_json", args: args(&["geometry", "--json"]) },
        Run { name: "layout", args: args(&["layout", "PSEUDO_FUNCTION_BEGIN"]) },
        Run { name: "layout_dma", args: args(&["layout", "dma_direct2d"]) },
        Run { name: "stats", args: args(&["stats", "prog.bin", "odd.bin"]) },
        Run { name: "stats_json", args: args(&["stats", "--json", "prog.bin", "odd.bin"]) },
        Run {
            name: "validate_json_odd",
            args: args(&["validate", "--json", "odd.bin", "--arch", "trn3"]),
        },
        Run {
            name: "validate_json_bad_final",
            args: args(&["validate", "--json", "bad_final.bin"]),
        },
    ];
    check_goldens(d, &runs);
    assert!(bad_bin_absent(d), "asm with errors must write nothing");
}

/// Run each of `runs` in `dir` and compare with (or, under `TPB_BLESS`, write) its golden
/// file; every mismatch is reported before failing.
fn check_goldens(dir: &Path, runs: &[Run]) {
    let bless = std::env::var_os("TPB_BLESS").is_some();
    let mut failures = Vec::new();
    for r in runs {
        let got = mask_spec_lists(&run(dir, &r.args));
        let path = golden_dir().join(format!("{}.txt", r.name));
        if bless {
            fs::create_dir_all(golden_dir()).unwrap();
            fs::write(&path, &got).unwrap();
            continue;
        }
        match fs::read_to_string(&path) {
            Ok(want) if want == got => {}
            Ok(want) => {
                failures.push(format!("{}: differs\n--- want\n{want}--- got\n{got}", r.name))
            }
            Err(_) => failures.push(format!("{}: no golden file {}", r.name, path.display())),
        }
    }
    assert!(failures.is_empty(), "{}\n(run with TPB_BLESS=1 to accept)", failures.join("\n"));
}

/// `tpb stats` lists every binding of the spec that no record selects: that list follows
/// the spec, so a golden would change with every arm added. The goldens hold a marker
/// instead, and `stats_lists_the_bindings_no_record_selects` checks the list against the
/// generated `BINDINGS`.
fn mask_spec_lists(out: &str) -> String {
    // `tpb stats --json`: the array `bindings_never_used.bindings`, when not empty.
    const KEY: &str = "\n    \"bindings\": [\n";
    if let Some(start) = out
        .find("\"bindings_never_used\": {")
        .and_then(|i| out[i..].find(KEY).map(|n| i + n + KEY.len()))
    {
        let end = out[start..].find("\n    ]").map(|n| start + n).unwrap();
        return format!(
            "{}      \"(the spec's bindings no record selects; see \
             stats_lists_the_bindings_no_record_selects)\"{}",
            &out[..start],
            &out[end..]
        );
    }
    const HEAD: &str = "\nbindings never used";
    let Some(start) = out.find(HEAD).and_then(|i| out[i..].find(":\n").map(|n| i + n + 2)) else {
        return out.to_owned();
    };
    let end = out[start..].find("\n\n").map_or(out.len(), |n| start + n + 1);
    format!("{}  (the spec's bindings no record selects; see stats_lists_the_bindings_no_record_selects)\n{}", &out[..start], &out[end..])
}

/// The records of every engine stream of `testdata/nkipy/streams/<neff>`.
fn corpus_records(neff: &str) -> Vec<[u8; 64]> {
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/nkipy/streams").join(neff);
    for sg in fs::read_dir(root).unwrap() {
        for f in fs::read_dir(sg.unwrap().path()).unwrap() {
            let bytes = fs::read(f.unwrap().path()).unwrap();
            out.extend(bytes.chunks_exact(64).map(|c| <[u8; 64]>::try_from(c).unwrap()));
        }
    }
    out
}

/// An opcode that sub-dispatches (PSEUDO_INST, EXTENDED_INST) has its records counted
/// by sub-opcode under its row, each with its mnemonic, and those no binding selects
/// apart; an opcode without sub-opcodes has its row alone; the JSON's `arms` hold the
/// same counts.
#[test]
fn stats_counts_an_opcodes_records_by_sub_opcode() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = "pseudo_exit_execution\npseudo_library_reload_index\n\
                pseudo_library_reload_index\npseudo_inst payload=07\nnop\n\
                tensor_tensor_arith\nrdma_desc_gen\n";
    fs::write(d.join("sub.tpb"), text).unwrap();
    let (_, err, ok) = output(d, &["asm", "sub.tpb", "-o", "sub.bin"]);
    assert!(ok, "{err}");
    let (out, err, ok) = output(d, &["stats", "sub.bin"]);
    assert!(ok, "{err}");
    let out = String::from_utf8(out).unwrap();
    let table: Vec<&str> = out.split("\n\n").nth(1).unwrap().lines().skip(3).collect();
    let want = [
        "0xa4    NOP                                          1",
        "0xdf    PSEUDO_INST                                  4",
        "          pseudo_exit_execution (byte 12 == 1)       1",
        "          pseudo_library_reload_index (byte 12 == 2) 2",
        "          (no binding selects)                       1",
        "0xf0    EXTENDED_INST                                2",
        "          tensor_tensor_arith (byte 12 == 2)         1",
        "          rdma_desc_gen (byte 12 == 8)               1",
    ];
    let squeeze = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        table.iter().map(|l| squeeze(l)).collect::<Vec<_>>(),
        want.iter().map(|l| squeeze(l)).collect::<Vec<_>>(),
        "{out}"
    );
    assert!(table[2].starts_with("          pseudo_exit"), "{out}");
    let (out, _, ok) = output(d, &["stats", "--json", "sub.bin"]);
    assert!(ok);
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let pseudo = &json["histograms"][0]["opcodes"][1];
    assert_eq!(pseudo["opcode"], 0xdf);
    assert_eq!(
        pseudo["arms"],
        serde_json::json!([
            {"mnemonic": "pseudo_exit_execution", "arm": "PSEUDO_EXIT_EXECUTION",
             "sub": {"offset": 12, "value": 1}, "records": 1},
            {"mnemonic": "pseudo_library_reload_index", "arm": "PSEUDO_LIBRARY_RELOAD_INDEX",
             "sub": {"offset": 12, "value": 2}, "records": 2},
            {"mnemonic": null, "arm": null, "sub": null, "records": 1},
        ])
    );
}

#[test]
fn stats_lists_the_bindings_no_record_selects() {
    let out = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .arg("stats")
        .arg(corpus("matmul_small.neff"))
        .output()
        .expect("tpb runs");
    let text = String::from_utf8(out.stdout).unwrap();
    let listed: Vec<&str> = text
        .split("\nbindings never used (of cayman):\n")
        .nth(1)
        .and_then(|s| s.split("\n\n").next())
        .unwrap()
        .lines()
        .collect();
    let records = corpus_records("matmul_small");
    let want: Vec<String> = tpb_isa::inst::BINDINGS
        .iter()
        // Of the bindings cayman has (the NEFF's generation): another's could not be used.
        .filter(|b| tpb_isa::inst::binding_on(tpb_isa::Arch::Cayman, &b.record()))
        .filter(|b| !records.iter().any(|r| b.matches(r)))
        .map(|b| {
            let sub =
                b.sub.map(|x| format!(" (byte {} == {})", x.offset, x.value)).unwrap_or_default();
            format!("  {:#04x}{sub} {} ({})", b.opcode, b.mnemonic, b.arm.name())
        })
        .collect();
    assert_eq!(listed, want);
    // `--json` lists the same bindings (the JSON goldens mask them too).
    let out = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["stats", "--json"])
        .arg(corpus("matmul_small.neff"))
        .output()
        .expect("tpb runs");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["bindings_never_used"]["archs"], serde_json::json!(["cayman"]));
    let from_json: Vec<String> = json["bindings_never_used"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let sub = match &b["sub"] {
                serde_json::Value::Null => String::new(),
                x => format!(" (byte {} == {})", x["offset"], x["value"]),
            };
            let op = b["opcode"].as_u64().unwrap();
            format!(
                "  {op:#04x}{sub} {} ({})",
                b["mnemonic"].as_str().unwrap(),
                b["arm"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(from_json, want);
    // Opcodes that share a layout are told apart by their mnemonics.
    assert!(listed.contains(&"  0x43 tensor_scalar_arith_op (S3D3_TS)"), "{listed:?}");
    assert!(want.len() < tpb_isa::inst::BINDINGS.len(), "the corpus uses some bindings");
}

fn bad_bin_absent(d: &Path) -> bool {
    !d.join("bad.bin").exists()
}

#[test]
fn asm_then_disasm_gives_the_text_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("p.tpb"), PROGRAM).unwrap();
    run(d, &args(&["asm", "p.tpb", "-o", "p.bin"]));
    let out = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["disasm", "p.bin"])
        .current_dir(d)
        .output()
        .unwrap();
    let listing = String::from_utf8(out.stdout).unwrap();
    // A function's first record has its label line, as a NEFF's listing has.
    assert!(listing.starts_with("00000000 <main>:\n"), "{listing}");
    let text: Vec<String> = listing
        .lines()
        .filter(|l| !l.ends_with(">:"))
        .map(|l| l.splitn(3, "  ").nth(2).unwrap().to_owned())
        .collect();
    let want: Vec<&str> = PROGRAM.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(text, want);
}

#[test]
fn a_listing_from_disasm_assembles_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("p.tpb"), PROGRAM).unwrap();
    run(d, &args(&["asm", "p.tpb", "-o", "p.bin"]));
    let mut stream = fs::read(d.join("p.bin")).unwrap();
    stream.extend(odd_stream());
    // MATMUL_MX (0x0a) is mariana's and maverick's: on cayman the line says so, in a
    // comment the assembler passes over.
    let mut mx = [0u8; 64];
    mx[0] = 0x0a;
    mx[40] = 7;
    stream.extend(mx);
    fs::write(d.join("all.bin"), &stream).unwrap();
    // With the hex column and without it (`--no-hex`: offset and text).
    for extra in [None, Some("--no-hex")] {
        let listing = Command::new(env!("CARGO_BIN_EXE_tpb"))
            .args(["disasm", "all.bin"])
            .args(extra)
            .current_dir(d)
            .output()
            .unwrap();
        assert!(listing.status.success());
        let text = String::from_utf8(listing.stdout.clone()).unwrap();
        let last = text.lines().last().unwrap();
        assert!(last.ends_with("  # opcode 0x0a does not exist on cayman"), "{last}");
        fs::write(d.join("all.lst"), &listing.stdout).unwrap();
        let out = run(d, &args(&["asm", "all.lst", "-o", "again.bin"]));
        assert!(out.ends_with("exit: 0\n"), "{extra:?}: {out}");
        // Written as given, with a note.
        let last = stream.len() / 64 - 1;
        assert!(
            out.contains(&format!(
                "note: all.lst: 1 record has an opcode that does not exist on cayman (the \
                 first, record {last} at offset {:#x}, is matmul_mx)",
                last * 64
            )),
            "{out}"
        );
        assert_eq!(fs::read(d.join("again.bin")).unwrap(), stream, "{extra:?}");
    }
}

/// The small corpus NEFF's tar, unpacked into `dir` as `neuron-packager unpack` would.
fn unpack_small(dir: &Path) {
    let bytes = fs::read(corpus("matmul_small.neff")).unwrap();
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(&bytes[1024..]).read_to_end(&mut tar).unwrap();
    tar::Archive::new(&tar[..]).unpack(dir).unwrap();
}

/// A corrupted copy of the small NEFF.
fn corrupt(edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = fs::read(corpus("matmul_small.neff")).unwrap();
    edit(&mut b);
    b
}

#[test]
fn golden_outputs_on_neffs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::copy(corpus("matmul_small.neff"), d.join("matmul_small.neff")).unwrap();
    fs::write(d.join("prog.tpb"), PROGRAM).unwrap();
    run(d, &args(&["asm", "prog.tpb", "-o", "prog.bin"]));
    // An unpacked copy whose sg00 PE stream is `PROGRAM`, which opens a function.
    unpack_small(&d.join("unpacked"));
    fs::copy(d.join("prog.bin"), d.join("unpacked/sg00/PE.bin")).unwrap();
    fs::write(d.join("truncated.neff"), corrupt(|b| b.truncate(1000))).unwrap();
    fs::write(
        d.join("past_end.neff"),
        corrupt(|b| b[0x10..0x18].copy_from_slice(&u64::MAX.to_le_bytes())),
    )
    .unwrap();
    fs::write(d.join("not_gzip.neff"), corrupt(|b| b[1024] = b'P')).unwrap();
    // A corpus stream as a raw stream: read as an assembled image, it has no EXIT.
    fs::copy(corpus("streams/matmul_small/sg00/SP.bin"), d.join("sp.bin")).unwrap();

    let runs = [
        Run { name: "neff_info", args: args(&["info", "matmul_small.neff"]) },
        Run { name: "neff_info_json", args: args(&["info", "--json", "matmul_small.neff"]) },
        Run {
            name: "neff_disasm_no_hex",
            args: args(&["disasm", "--no-hex", "matmul_small.neff"]),
        },
        Run {
            name: "neff_disasm_act",
            args: args(&["disasm", "matmul_small.neff", "--subgraph", "sg01", "--engine", "act"]),
        },
        Run {
            name: "neff_disasm_json",
            args: args(&[
                "disasm",
                "--json",
                "matmul_small.neff",
                "--subgraph",
                "sg00",
                "--engine",
                "sp",
            ]),
        },
        Run { name: "neff_stats", args: args(&["stats", "matmul_small.neff", "prog.bin"]) },
        Run { name: "neff_validate", args: args(&["validate", "matmul_small.neff"]) },
        Run {
            name: "neff_stats_json",
            args: args(&["stats", "--json", "matmul_small.neff", "sp.bin"]),
        },
        Run {
            name: "neff_validate_json",
            args: args(&["validate", "--json", "matmul_small.neff"]),
        },
        Run {
            name: "neff_validate_json_sp_raw",
            args: args(&["validate", "--json", "sp.bin", "--engine", "sp"]),
        },
        Run { name: "neff_extract", args: args(&["extract", "matmul_small.neff", "-o", "out"]) },
        Run { name: "neff_dir_info", args: args(&["info", "unpacked"]) },
        Run {
            name: "neff_dir_disasm",
            args: args(&["disasm", "--no-hex", "unpacked", "--subgraph", "sg00", "--engine", "pe"]),
        },
        Run { name: "neff_truncated", args: args(&["info", "truncated.neff"]) },
        Run { name: "neff_past_end", args: args(&["disasm", "past_end.neff"]) },
        Run { name: "neff_not_gzip", args: args(&["stats", "not_gzip.neff"]) },
        Run {
            name: "neff_no_such_engine",
            args: args(&["disasm", "matmul_small.neff", "--engine", "gpu"]),
        },
    ];
    check_goldens(d, &runs);
}

#[test]
fn extract_writes_the_streams_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in ["matmul_small", "matmul_large"] {
        let out = run(
            d,
            &args(&["extract", corpus(&format!("{name}.neff")).to_str().unwrap(), "-o", name]),
        );
        assert!(out.ends_with("exit: 0\n"), "{out}");
        for sg in ["sg00", "sg01"] {
            for engine in ["PE", "Activation", "Pool", "DVE", "SP"] {
                let got = fs::read(d.join(format!("{name}/{sg}/{engine}.bin"))).unwrap();
                let want = fs::read(corpus(&format!("streams/{name}/{sg}/{engine}.bin"))).unwrap();
                assert!(got == want, "{name}/{sg}/{engine}.bin differs");
            }
        }
    }
}

/// `extract --all` writes every member as the payload's tar holds it (what
/// `neuron-packager unpack` writes), a folder `tpb` reads back to the same listing.
#[test]
fn extract_all_unpacks_every_member() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let neff = corpus("matmul_small.neff");
    let out = run(d, &args(&["extract", "--all", neff.to_str().unwrap(), "-o", "unp"]));
    assert!(out.ends_with("exit: 0\n"), "{out}");
    // The members as the payload's tar holds them.
    let bytes = fs::read(&neff).unwrap();
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[1024..]));
    let mut files = 0;
    for e in tar.entries().unwrap() {
        let mut e = e.unwrap();
        if e.header().entry_type().is_dir() {
            continue;
        }
        let path = e.path().unwrap().into_owned();
        let mut want = Vec::new();
        e.read_to_end(&mut want).unwrap();
        let got = fs::read(d.join("unp").join(&path)).unwrap();
        assert!(got == want, "{} differs", path.display());
        files += 1;
    }
    assert!(files > 50, "{files} members");
    assert_eq!(out.lines().count(), files + 2, "one line a member:\n{out}");
    let listing = |input: &str| run(d, &args(&["disasm", "--no-hex", input]));
    let (a, b) = (listing("unp"), listing(neff.to_str().unwrap()));
    assert_eq!(a.lines().skip(1).collect::<Vec<_>>(), b.lines().skip(1).collect::<Vec<_>>());
    let out =
        run(d, &args(&["extract", "--all", "--engine", "pe", neff.to_str().unwrap(), "-o", "x"]));
    assert!(out.contains("cannot be used with"), "{out}");
}

#[cfg(unix)]
#[test]
fn extract_never_writes_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let outside = tempfile::tempdir().unwrap();
    fs::create_dir(d.join("out")).unwrap();
    std::os::unix::fs::symlink(outside.path(), d.join("out/sg00")).unwrap();
    let small = corpus("matmul_small.neff");
    for all in [None, Some("--all")] {
        let mut a = vec!["extract", small.to_str().unwrap(), "-o", "out"];
        a.extend(all);
        let out = run(d, &args(&a));
        assert!(
            out.contains("is a symbolic link; refusing to write through it")
                && out.ends_with("exit: 2\n"),
            "{out}"
        );
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}

#[cfg(unix)]
#[test]
fn extract_refuses_a_fifo_in_the_way_rather_than_blocking_on_it() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir_all(d.join("out/sg00")).unwrap();
    let fifo = d.join("out/sg00/PE.bin");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let small = corpus("matmul_small.neff");
    let out = run(d, &args(&["extract", small.to_str().unwrap(), "-o", "out", "--engine", "pe"]));
    assert!(
        out.contains("is not a regular file; refusing to write it") && out.ends_with("exit: 2\n"),
        "{out}"
    );
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn standard_input_reads_raw_streams_and_neffs() {
    let feed = |bytes: &[u8], args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tpb"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(bytes).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let pe = fs::read(corpus("streams/matmul_small/sg00/PE.bin")).unwrap();
    let listing = feed(&pe, &["disasm", "-"]);
    assert_eq!(listing.lines().count(), 12);
    assert!(listing.starts_with("00000000  b110"), "{listing}");
    let neff = fs::read(corpus("matmul_small.neff")).unwrap();
    let listing = feed(&neff, &["disasm", "--no-hex", "--engine", "pe", "--subgraph", "sg00", "-"]);
    assert!(listing.starts_with("sg00/PE: cayman, 12 records\n"), "{listing}");
}

/// `--hex` reads the bytes a listing's hex column spells (or any hex text) as the raw
/// stream it is: the listing it gives is the binary's, every command takes it, and text
/// that is not hex is an error at its line and column.
#[test]
fn hex_text_reads_as_the_stream_it_spells() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pool = corpus("streams/matmul_small/sg00/Pool.bin");
    let pool = pool.to_str().unwrap();
    let (listing, _, ok) = output(d, &["disasm", pool]);
    assert!(ok);
    let listing = String::from_utf8(listing).unwrap();
    // The hex column, one record a line, with a comment and a record split in two.
    let mut hex = String::from("# Pool, from its listing\n");
    for (i, line) in listing.lines().enumerate() {
        let column = line.split_whitespace().nth(1).unwrap();
        if i == 1 {
            hex.push_str(&format!("0x{} ; first half\n{}\n", &column[..64], &column[64..]));
        } else {
            hex.push_str(column);
            hex.push('\n');
        }
    }
    fs::write(d.join("pool.hex"), &hex).unwrap();
    let (from_hex, err, ok) = output(d, &["disasm", "--hex", "pool.hex"]);
    assert!(ok && err.is_empty(), "{err}");
    assert_eq!(String::from_utf8(from_hex).unwrap(), listing);
    let (stats, _, ok) = output(d, &["stats", "--hex", "pool.hex"]);
    let (want, _, _) = output(d, &["stats", pool]);
    assert!(ok);
    let body =
        |s: Vec<u8>| String::from_utf8(s).unwrap().lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(stats).replace("pool.hex", "X"), body(want).replace(pool, "X"));
    let (_, _, ok) = output(d, &["validate", "--hex", "--pre-relocation", "pool.hex"]);
    assert!(ok);
    // Without --hex the text is listed as bytes, with a word that --hex reads it.
    let (_, err, _) = output(d, &["disasm", "pool.hex"]);
    assert!(err.contains("it reads as hex digits, which --hex takes"), "{err}");
    // Not hex: where and why.
    fs::write(d.join("bad.hex"), "0a00\n0a0 ff\n").unwrap();
    let (out, err, ok) = output(d, &["disasm", "--hex", "bad.hex"]);
    assert!(!ok && out.is_empty());
    assert_eq!(
        err,
        "error: bad.hex:2:1: a run of 3 hex digits: bytes are two digits each, so a run has \
         an even number\n"
    );
    let (_, err, ok) = output(d, &["disasm", "--hex", "--raw", "bad.hex"]);
    assert!(!ok && err.contains("cannot be used with"), "{err}");
    // `tpb asm --hex` writes what --hex reads: the records of the listing, a line each.
    fs::write(d.join("pool.lst"), &listing).unwrap();
    let (hex_out, err, ok) = output(d, &["asm", "--hex", "pool.lst"]);
    assert!(ok, "{err}");
    let n = listing.lines().count();
    assert_eq!(
        err,
        format!("wrote {n} records ({} bytes, as hex text) to standard output\n", n * 64)
    );
    let columns: Vec<&str> =
        listing.lines().map(|l| l.split_whitespace().nth(1).unwrap()).collect();
    assert_eq!(String::from_utf8(hex_out).unwrap(), columns.join("\n") + "\n");
    let (_, _, ok) = output(d, &["asm", "--hex", "pool.lst", "-o", "pool2.hex"]);
    assert!(ok);
    let (again, _, _) = output(d, &["disasm", "--hex", "pool2.hex"]);
    assert_eq!(String::from_utf8(again).unwrap(), listing);
}

/// `--records` lists a window of each stream: the lines of the whole listing whose
/// index (a raw stream's offset ÷ 64) it holds, the headings and labels kept, the same
/// window in JSON; a window past every stream says so.
#[test]
fn records_picks_a_window_of_each_stream() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let neff = corpus("matmul_small.neff");
    let neff = neff.to_str().unwrap();
    let text = |a: &[&str]| String::from_utf8(output(d, a).0).unwrap();
    let whole = text(&["disasm", "--no-hex", neff]);
    let window = text(&["disasm", "--no-hex", neff, "--records", "2..=4"]);
    let kept: Vec<&str> = whole
        .lines()
        .filter(|l| match l.split_whitespace().next().map(str::parse::<usize>) {
            Some(Ok(i)) if l.starts_with(' ') => (2..=4).contains(&i),
            // Headings, blank lines; a label line starts with its offset.
            _ => !l.ends_with(">:"),
        })
        .collect();
    assert_eq!(window.lines().collect::<Vec<_>>(), kept);
    assert!(window.matches("  00000080  ").count() >= 2, "{window}");
    let pe = corpus("streams/matmul_small/sg00/PE.bin");
    let pe = pe.to_str().unwrap();
    let raw = text(&["disasm", pe]);
    assert_eq!(
        text(&["disasm", pe, "--records", "10.."]),
        raw.lines().skip(10).map(|l| format!("{l}\n")).collect::<String>()
    );
    assert_eq!(
        text(&["disasm", pe, "--records", "..1"]),
        raw.lines().take(1).map(|l| format!("{l}\n")).collect::<String>()
    );
    // By the offsets a raw listing shows: the records holding them.
    assert_eq!(
        text(&["disasm", pe, "--records", "@0x80..@0x100"]),
        raw.lines().skip(2).take(2).map(|l| format!("{l}\n")).collect::<String>()
    );
    assert_eq!(
        text(&["disasm", pe, "--records", "@0xc5"]),
        text(&["disasm", pe, "--records", "3"])
    );
    let json: serde_json::Value =
        serde_json::from_str(&text(&["disasm", "--json", pe, "--records", "3"])).unwrap();
    let records = json["records"].as_array().unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!((records[0]["index"].as_u64(), records[0]["offset"].as_u64()), (Some(3), Some(192)));
    let (out, err, ok) = output(d, &["disasm", pe, "--records", "12.."]);
    assert!(ok && out.is_empty());
    assert!(err.ends_with("--records 12.. lists nothing: the stream has 12 records\n"), "{err}");
    // A window given in bytes is said in bytes too.
    let (out, err, ok) = output(d, &["disasm", pe, "--records", "@0x400..@0x800"]);
    assert!(ok && out.is_empty());
    let want = "--records 16..32 (bytes @0x400..@0x800) lists nothing: \
                the stream has 12 records (0x300 bytes)\n";
    assert!(err.ends_with(want), "{err}");
    let (_, err, ok) = output(d, &["disasm", pe, "--records", "3..x"]);
    assert!(!ok && err.contains("'3..x': expected record indices"), "{err}");
}

/// Every record of every stream of the corpus is explained: its opcode is in the spec
/// (issue: the whole public ISA imported), and the records without a layout are only
/// the opcodes no source gives a layout for.
#[test]
fn stats_over_the_whole_corpus_finds_nothing_the_spec_cannot_explain() {
    let out = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .arg("stats")
        .arg(corpus("matmul_small.neff"))
        .arg(corpus("matmul_large.neff"))
        .output()
        .expect("tpb runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("59648 records in 2 files, 20 streams from NEFFs"), "{text}");
    assert!(text.contains("records the spec cannot explain:\n  (none)\n"), "{text}");
    let opaque = text
        .split("records of opcodes the spec names but gives no layout for:\n")
        .nth(1)
        .and_then(|s| s.split("\n\n").next())
        .unwrap();
    assert_eq!(opaque, "  0xb1 SET_ORDERING_MODE: 20\n  0xcc PSEUDO_BRANCH_LABEL: 20");
}

#[test]
fn layout_of_an_opcode_without_one_says_so() {
    let d = Path::new(".");
    for name in ["set_ordering_mode", "SET_ORDERING_MODE", "0xb1"] {
        let out = run(d, &args(&["layout", name]));
        assert_eq!(
            out,
            format!(
                "$ tpb layout {name}\nSET_ORDERING_MODE (mnemonic set_ordering_mode, opcode \
                 0xb1) is named in the spec but has no layout: no arm reads its records, which \
                 print and assemble as the preamble's fields and the payload's bytes\nexit: 0\n"
            )
        );
    }
    let out = run(d, &args(&["layout", "frob"]));
    assert_eq!(
        out,
        "$ tpb layout frob\nerror: 'frob' is neither an arm nor a mnemonic (tpb layout takes an \
         arm's spec name (S3D3_MM), a mnemonic tpb asm reads (matmul, pseudo_exit_execution) or \
         an opcode value (0x02))\nexit: 2\n"
    );
    let out = run(d, &args(&["layout", "matmull"]));
    assert!(out.contains("; did you mean 'matmul'?\nexit: 2\n"), "{out}");
    assert!(run(d, &args(&["layout", "matmul"])).starts_with("$ tpb layout matmul\nS3D3_MM"));
    // An opcode value as `tpb stats` prints it.
    assert!(run(d, &args(&["layout", "0x02"])).starts_with("$ tpb layout 0x02\nS3D3_MM"));
}

/// Without an arm, `tpb layout` is the generation's opcode map: a row for every opcode it
/// names, one per binding of an opcode that reads another byte, each binding's mnemonic
/// and arm as `tpb asm` and `tpb layout ARM` take them.
#[test]
fn layout_without_an_arm_is_the_opcode_map() {
    let d = Path::new(".");
    for arch in tpb_isa::Arch::ALL {
        let (out, err, ok) = output(d, &["layout", "--arch", arch.name()]);
        let out = String::from_utf8(out).unwrap();
        assert!(ok && err.is_empty(), "{err}");
        let rows: Vec<&str> = out.lines().skip(4).collect();
        let named =
            (0..=u8::MAX).map(tpb_isa::Opcode).filter(|o| o.is_known() && o.available_on(*arch));
        // A binding of an opcode the generation does not name (JPEG_DECODE on sunda) is
        // none of its map's.
        let bound: Vec<&tpb_isa::Binding> = tpb_isa::BINDINGS
            .iter()
            .filter(|b| tpb_isa::inst::binding_on(*arch, &b.record()))
            .filter(|b| {
                let op = tpb_isa::Opcode(b.opcode);
                op.available_on(*arch) || !op.is_known()
            })
            .collect();
        let unbound = named.clone().filter(|o| !bound.iter().any(|b| b.opcode == o.0)).count();
        assert!(
            out.starts_with(&format!(
                "opcodes of {}: {} named, {} bindings with a layout",
                arch.name(),
                named.count(),
                bound.len()
            )),
            "{out}"
        );
        assert_eq!(rows.len(), bound.len() + unbound, "{arch}");
        for b in &bound {
            let words = |l: &&str| l.split_whitespace().any(|w| w == b.mnemonic);
            assert!(rows.iter().any(words), "{arch}: {} not in\n{out}", b.mnemonic);
        }
    }
    let (out, _, _) = output(d, &["layout"]);
    let out = String::from_utf8(out).unwrap();
    assert!(out.starts_with("opcodes of cayman: "), "{out}");
    let row = |op: &str| {
        out.lines().find(|l| l.starts_with(op)).unwrap().split_whitespace().collect::<Vec<_>>()
    };
    assert_eq!(row("0x02 "), ["0x02", "MATMUL", "matmul", "S3D3_MM", "PE", "maintained"]);
    assert_eq!(
        row("0xb1 "),
        ["0xb1", "SET_ORDERING_MODE", "-", "(no", "layout)", "NX", "maintained"]
    );
    assert!(out.contains("0xdf (byte 12 == 1)  PSEUDO_INST"), "{out}");
}

/// `tpb args` in `dir`: standard output (bytes), standard error, and success.
fn output(dir: &Path, a: &[&str]) -> (Vec<u8>, String, bool) {
    let (out, err, code) = exit(dir, a);
    (out, err, code == Some(0))
}

/// `tpb args` in `dir`: standard output (bytes), standard error, and the exit status.
fn exit(dir: &Path, a: &[&str]) -> (Vec<u8>, String, Option<i32>) {
    let o = Command::new(env!("CARGO_BIN_EXE_tpb")).args(a).current_dir(dir).output().unwrap();
    (o.stdout, String::from_utf8_lossy(&o.stderr).into_owned(), o.status.code())
}

/// `tpb args` in `dir`, its standard output read for one chunk and then closed, as `head`
/// does: its exit status and standard error.
fn closed_early<I, S>(dir: &Path, args: I) -> (Option<i32>, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    assert!(out.read(&mut [0u8; 4096]).unwrap() > 0, "no output before the pipe closes");
    drop(out);
    let o = child.wait_with_output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// Two inputs of the two kinds, for the commands that take several: the small corpus
/// NEFF and its first PE stream, raw.
fn neff_and_raw() -> (String, String) {
    let path = |p: &str| corpus(p).to_str().unwrap().to_owned();
    (path("matmul_small.neff"), path("streams/matmul_small/sg00/PE.bin"))
}

/// The start of a test of `cmd` on several inputs: a scratch folder, [`neff_and_raw`]'s
/// paths, and `cmd`'s output of each of them alone.
fn each_alone(cmd: &str) -> (tempfile::TempDir, String, String, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let (small, pe) = neff_and_raw();
    let alone = |p: &str| String::from_utf8(output(dir.path(), &[cmd, p]).0).unwrap();
    let (one, two) = (alone(&small), alone(&pe));
    (dir, small, pe, one, two)
}

#[test]
fn asm_dash_o_dash_writes_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("one.tpb"), "nop\n").unwrap();
    let (out, err, ok) = output(d, &["asm", "one.tpb", "-o", "-"]);
    assert!(ok, "{err}");
    assert_eq!(out.len(), 64);
    assert_eq!(err, "wrote 1 record (64 bytes) to standard output\n");
    assert!(!d.join("-").exists());
}

/// A line whose record reads back under another mnemonic (a field given sets a byte the
/// mnemonic implies) is noted, the first with its line and the rest counted; a listing
/// `tpb disasm` wrote draws no such note.
#[test]
fn asm_notes_a_record_that_reads_back_under_another_mnemonic() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = "# edited\nmatmul\n\nmatmul header.opcode=0x01 # now ldweights\n\
                tensor_tensor_arith extended_opcode=COPY\n";
    fs::write(d.join("e.tpb"), text).unwrap();
    let (out, err, ok) = output(d, &["asm", "e.tpb", "-o", "-"]);
    assert!(ok, "{err}");
    assert_eq!(out.len(), 3 * 64);
    assert_eq!(
        err,
        "note: e.tpb:4: the record of 'matmul' reads back as 'ldweights': a field given sets a \
         byte its mnemonic implies (header.opcode, a sub-opcode); 2 lines do so\n\
         wrote 3 records (192 bytes) to standard output\n"
    );
    let pe = corpus("streams/matmul_large/sg00/PE.bin");
    let (listing, _, ok) = output(d, &["disasm", pe.to_str().unwrap()]);
    assert!(ok);
    fs::write(d.join("pe.lst"), listing).unwrap();
    let (out, err, ok) = output(d, &["asm", "pe.lst", "-o", "-"]);
    assert!(ok && !err.contains("note"), "{err}");
    assert_eq!(out, fs::read(&pe).unwrap());
}

/// Standard input redirected from the output file is the input too: the text is kept.
/// A device in and out (`/dev/null`) loses nothing and is written.
#[test]
fn asm_refuses_to_write_over_the_file_standard_input_reads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = d.join("y.tpb");
    fs::write(&text, "nop\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["asm", "-", "-o", "y.tpb"])
        .current_dir(d)
        .stdin(fs::File::open(&text).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: y.tpb is the input <stdin>; refusing to write over it\n"
    );
    assert_eq!(fs::read_to_string(&text).unwrap(), "nop\n");
    let o = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["asm", "-", "-o", "/dev/null"])
        .stdin(fs::File::open("/dev/null").unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn small_things_read_right() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A trailing partial record is one finding, not three.
    let mut mis = odd_stream();
    mis.truncate(64 + 36);
    fs::write(d.join("mis.bin"), &mis).unwrap();
    let (out, _, _) = output(d, &["validate", "mis.bin"]);
    let out = String::from_utf8(out).unwrap();
    assert_eq!(out.matches("trailing partial record").count(), 1, "{out}");
    assert!(out.ends_with("mis.bin: 1 record, 2 finding(s) on cayman\n"), "{out}");
    // One list of engine names, in one case.
    let (_, a, _) = output(d, &["validate", "--engine", "xx", "mis.bin"]);
    let small = corpus("matmul_small.neff");
    let small = small.to_str().unwrap();
    let (_, b, _) = output(d, &["disasm", "--engine", "xx", small]);
    assert_eq!(a, "error: unknown engine 'xx' (expected one of pe, act, pool, dve, sp)\n");
    assert_eq!(a, b);
    // Singular nouns for one.
    fs::write(d.join("one.bin"), [0u8; 65]).unwrap();
    let (out, _, _) = output(d, &["info", "one.bin"]);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "one.bin: a raw record stream (not a NEFF), 1 record and trailing partial record of \
         1 byte at offset 0x40\n"
    );
    // No records: said, not an empty table.
    fs::write(d.join("empty.bin"), []).unwrap();
    let (out, _, ok) = output(d, &["stats", "empty.bin"]);
    let out = String::from_utf8(out).unwrap();
    assert!(ok);
    assert!(out.starts_with("0 records in 1 file\n\nno records: every stream given is empty"));
    assert!(!out.contains("opcode histogram"), "{out}");
    // Nor a list of every binding as never used: a count.
    let cayman = tpb_isa::inst::BINDINGS
        .iter()
        .filter(|b| tpb_isa::inst::binding_on(tpb_isa::Arch::Cayman, &b.record()))
        .count();
    let line = format!("\nbindings never used (of cayman): all {cayman} (no records)\n\n");
    assert!(out.contains(&line), "{out}");
    assert!(!out.contains("ldweights"), "{out}");
    // A subgraph that is not there: the ones that are.
    let (_, err, _) = output(d, &["disasm", "--subgraph", "sg99", small]);
    assert!(err.ends_with("(its subgraphs: sg00, sg01)\n"), "{err}");
    // Text given where a stream was meant is listed, with a word that it is text; a real
    // stream gets none.
    let mut notes = "a note — given where records were meant\n".repeat(4);
    while !notes.len().is_multiple_of(64) {
        notes.push(' ');
    }
    fs::write(d.join("notes.bin"), notes).unwrap();
    let (_, err, ok) = output(d, &["disasm", "notes.bin"]);
    assert!(ok);
    assert!(err.starts_with("warning: notes.bin: it reads as text, which no record"), "{err}");
    // An empty stream lists nothing, and says so.
    let (out, err, ok) = output(d, &["disasm", "empty.bin"]);
    assert!(ok && out.is_empty());
    assert_eq!(err, "warning: empty.bin: empty: no records to list\n");
    let pe = corpus("streams/matmul_small/sg00/PE.bin");
    let (_, err, ok) = output(d, &["disasm", pe.to_str().unwrap()]);
    assert!(ok && err.is_empty(), "{err}");
}

/// `tpb validate` is a CI gate: its help says what its exit status means.
#[test]
fn validate_help_states_the_exit_status() {
    let out = run(Path::new("."), &args(&["validate", "--help"]));
    assert!(
        out.contains(
            "Exit status: 0 when nothing is found, 1 on any finding, 2 when the input cannot be read"
        ),
        "{out}"
    );
}

/// A raw stream's JSON names the generation its text is in (`--arch`, else cayman), and
/// each record's fields are the listing's columns, on every generation.
#[test]
fn raw_json_names_its_arch_and_agrees_with_the_listing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut stream = odd_stream();
    // A custom-op header: an arm on sunda, the opaque form elsewhere.
    let mut r = [0u8; 64];
    r[0] = 0x85;
    r[12] = 7;
    stream.extend_from_slice(&r);
    fs::write(d.join("s.bin"), stream).unwrap();
    let tpb = |a: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_tpb")).args(a).current_dir(d).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    for arch in [None, Some("sunda"), Some("cayman"), Some("mariana"), Some("maverick")] {
        let with = |mut a: Vec<&'static str>| {
            if let Some(x) = arch {
                a.extend(["--arch", x]);
            }
            a
        };
        let json: serde_json::Value =
            serde_json::from_str(&tpb(&with(vec!["disasm", "--json", "s.bin"]))).unwrap();
        assert_eq!(json["arch"], arch.unwrap_or("cayman"), "{arch:?}");
        let listing = tpb(&with(vec!["disasm", "s.bin"]));
        let records = json["records"].as_array().unwrap();
        assert_eq!(records.len(), listing.lines().count());
        for (rec, line) in records.iter().zip(listing.lines()) {
            let cols: Vec<&str> = line.splitn(3, "  ").collect();
            let off = u64::from_str_radix(cols[0], 16).unwrap();
            assert_eq!((rec["offset"].as_u64(), rec["bytes"].as_str()), (Some(off), Some(cols[1])));
            assert_eq!(rec["text"].as_str(), Some(cols[2]), "{arch:?}");
            // The mnemonic and fields are the text's words.
            let mut words: Vec<String> = cols[2].split(' ').skip(1).map(String::from).collect();
            let mut fields: Vec<String> = rec["fields"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap()))
                .collect();
            words.sort();
            fields.sort();
            assert_eq!(rec["mnemonic"].as_str(), cols[2].split(' ').next());
            assert_eq!(fields, words, "{arch:?}");
        }
    }
}

/// A write to standard output that fails says it was standard output that failed.
#[test]
fn a_failed_write_to_standard_output_says_so() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    for a in [vec!["geometry"], vec!["layout", "matmul"]] {
        let o = Command::new(env!("CARGO_BIN_EXE_tpb"))
            .args(&a)
            .stdout(fs::File::options().write(true).open(full).unwrap())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{a:?}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "error: writing standard output: No space left on device (os error 28)\n",
            "{a:?}"
        );
    }
}

/// A reader that stops early (`tpb validate x | head`) leaves `validate`'s verdict as it
/// is (1: findings), where a listing just stops (0); nothing is said on standard error.
#[test]
fn a_closed_pipe_keeps_validates_verdict_and_ends_a_listing_quietly() {
    let dir = tempfile::tempdir().unwrap();
    // Random records: hundreds of KiB of findings, more than a pipe holds.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let bytes: Vec<u8> = (0..64 * 4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let file = dir.path().join("rand.bin");
    fs::write(&file, bytes).unwrap();
    for (a, code) in [("validate", 1), ("disasm", 0)] {
        let (status, err) = closed_early(dir.path(), [std::ffi::OsStr::new(a), file.as_os_str()]);
        assert_eq!(status, Some(code), "{a}");
        assert_eq!(err, "", "{a}");
    }
}
/// Every option that takes a generation says which names it takes, and what it is when
/// absent.
#[test]
fn every_arch_option_says_what_it_takes() {
    for cmd in ["disasm", "asm", "validate", "stats", "layout"] {
        let out = run(Path::new("."), &args(&[cmd, "--help"]));
        let arch = out.split("--arch <ARCH>").nth(1).expect(cmd);
        let arch = arch.split("\n  -").next().unwrap();
        assert!(arch.contains("alias"), "{cmd}: {arch}");
        assert!(arch.contains("cayman"), "{cmd}: {arch}");
    }
    let out = run(Path::new("."), &args(&["geometry", "--help"]));
    assert!(out.contains("[ARCH]  The generation (a name, label or alias"), "{out}");
}

/// Each finding of a raw stream starts with the input's name, so that it reads alone.
#[test]
fn validate_findings_name_the_input() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("empty.bin"), b"").unwrap();
    let out = run(d.path(), &args(&["validate", "empty.bin"]));
    assert_eq!(
        out,
        "$ tpb validate empty.bin\n\
         empty.bin: no EXIT record (PSEUDO_INST 0xdf with pseudo_opcode 1)\n\
         empty.bin: final-record check (cayman, PE): the stream holds no record\n\
         empty.bin: 0 records, 2 finding(s) on cayman\n\
         exit: 1\n"
    );
}

/// A record whose opcode value the spec names on no generation (and no binding reads)
/// is a finding of `tpb validate`, as one named on other generations only is: a gate
/// built on its exit status or `--json` kinds does not pass a record the spec does not
/// know.
#[test]
fn validate_reports_an_opcode_the_spec_names_nowhere() {
    let d = tempfile::tempdir().unwrap();
    // Not 0x00, which the spec does not name either (a zeroed record is a finding too);
    // nor a value the spec binds without naming it (the README's `bind 0x0b => MY_OP`).
    let unnamed = (1..=255u8)
        .find(|&v| {
            !tpb_isa::Opcode(v).is_known() && !tpb_isa::inst::BINDINGS.iter().any(|b| b.opcode == v)
        })
        .unwrap();
    let mut s = vec![0u8; 64];
    s[0] = unnamed;
    let mut exit = [0u8; 64];
    exit[0] = 0xDF;
    exit[12] = 1;
    s.extend_from_slice(&exit);
    fs::write(d.path().join("s.bin"), &s).unwrap();
    let out = run(d.path(), &args(&["validate", "--pre-relocation", "s.bin"]));
    assert!(
        out.contains(&format!(
            "s.bin: record 0 (offset 0x0): opcode {unnamed:#04x} is not one the spec names (on \
             cayman or any generation)\n"
        )) && out.ends_with("s.bin: 2 records (1 pseudo), 1 finding(s) on cayman\nexit: 1\n"),
        "{out}"
    );
    let json = run(d.path(), &args(&["validate", "--pre-relocation", "--json", "s.bin"]));
    assert!(json.contains("\"kind\": \"not_on_arch\""), "{json}");
}

/// A pseudo record of a NEFF stream is legal before relocation, but its fields are
/// the spec's to check as every record's are: a dtype the spec does not name in a
/// PSEUDO_DMA_DIRECT2D is a finding with `--pre-relocation` as in an assembled image.
#[test]
fn validate_checks_the_fields_of_pseudo_records_before_relocation() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("p.txt"), "pseudo_dma_direct2d in_dtype=0x3f\n").unwrap();
    run(d.path(), &args(&["asm", "p.txt", "-o", "p.bin"]));
    let pre = run(d.path(), &args(&["validate", "--pre-relocation", "p.bin"]));
    let raw = run(d.path(), &args(&["validate", "p.bin"]));
    let finding = "p.bin: record 0 (offset 0x0): field 'in_dtype' at +62 holds 0x3f";
    assert!(pre.contains(finding) && raw.contains(finding), "{pre}\n{raw}");
    assert!(
        pre.ends_with("p.bin: 1 record (1 pseudo), 1 finding(s) on cayman\nexit: 1\n"),
        "{pre}"
    );
}

/// Standard error that cannot be written (`2>/dev/full`) loses the messages, not the
/// exit status (std's `eprintln!` panicked: 101); help that cannot be written is an
/// error (2), as any output that cannot be written is.
#[cfg(target_os = "linux")]
#[test]
fn unwritable_standard_error_or_help_keeps_the_exit_status() {
    use std::process::{Command, Stdio};
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("bad.txt"), "bogus\n").unwrap();
    let full = || fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let status = |args: &[&str], out: Stdio, err: Stdio| {
        Command::new(env!("CARGO_BIN_EXE_tpb"))
            .args(args)
            .current_dir(d.path())
            .stdout(out)
            .stderr(err)
            .status()
            .unwrap()
            .code()
    };
    assert_eq!(status(&["asm", "bad.txt", "-o", "x.bin"], Stdio::null(), full().into()), Some(2));
    assert_eq!(status(&["disasm", "missing.bin"], Stdio::null(), full().into()), Some(2));
    assert_eq!(status(&["--help"], full().into(), Stdio::null()), Some(2));
    assert_eq!(status(&["--version"], Stdio::null(), Stdio::null()), Some(0));
    assert_eq!(status(&["--bogus"], Stdio::null(), Stdio::null()), Some(2));
}

/// `tpb layout` tells reserved bytes (declared to carry nothing) from unknown ones (no
/// source says what they hold), as the spec and `docs/isa.md` do.
#[test]
fn layout_tells_reserved_bytes_from_unknown_ones() {
    let out = run(Path::new("."), &args(&["layout", "ldweights"]));
    let types: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().nth(4))
        .filter(|t| t.contains('['))
        .collect();
    assert!(types.contains(&"reserved[4]") && types.contains(&"unknown[18]"), "{out}");
    assert!(!out.contains("bytes["), "{out}");
}

/// A raw stream is read as cayman whether `--arch cayman` is given or not, so `tpb stats`
/// counts it the same way: an opcode the spec names only on other generations (MATMUL_MX,
/// 0x0a) is one the generation read cannot explain, named in the text as the JSON names
/// it, and not an opcode "the spec names but gives no layout for" (it has one, elsewhere).
#[test]
fn stats_reads_a_raw_stream_in_cayman_with_or_without_arch() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut r = [0u8; 64];
    r[0] = 0x0a;
    fs::write(d.join("mx.bin"), r).unwrap();
    let (plain, _, ok) = output(d, &["stats", "mx.bin"]);
    assert!(ok);
    let (given, _, ok) = output(d, &["stats", "--arch", "cayman", "mx.bin"]);
    assert!(ok);
    let plain = String::from_utf8(plain).unwrap();
    assert_eq!(plain, String::from_utf8(given).unwrap());
    assert!(
        plain.contains(
            "records the spec cannot explain:\n  0x0a MATMUL_MX, not on the generation read: 1\n"
        ),
        "{plain}"
    );
    assert!(
        plain.contains("records of opcodes the spec names but gives no layout for:\n  (none)\n"),
        "{plain}"
    );
    let (plain, _, _) = output(d, &["stats", "--json", "mx.bin"]);
    let (given, _, _) = output(d, &["stats", "--json", "--arch", "cayman", "mx.bin"]);
    assert_eq!(String::from_utf8(plain).unwrap(), String::from_utf8(given).unwrap());
}

/// `tpb validate` picks a NEFF's subgraph as `disasm` and `extract` do (`--subgraph`),
/// beside `--engine`; one that is not there is an error, as is the option on a raw
/// stream, which has no subgraphs.
#[test]
fn validate_takes_a_subgraph_as_disasm_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let small = corpus("matmul_small.neff");
    let small = small.to_str().unwrap();
    let (out, err, ok) = output(d, &["validate", "--subgraph", "sg01", small]);
    assert!(ok, "{err}");
    let out = String::from_utf8(out).unwrap();
    assert!(!out.contains("sg00/"), "{out}");
    assert!(out.contains("sg01/PE: 12 records (1 pseudo), 0 finding(s) on cayman\n"), "{out}");
    assert!(out.ends_with(": 29 records in 5 streams, 0 finding(s)\n"), "{out}");
    let (out, _, ok) = output(d, &["validate", "--subgraph", "sg01", "--engine", "pe", small]);
    assert!(ok);
    assert_eq!(String::from_utf8(out).unwrap().matches(" finding(s) on ").count(), 1);
    let (_, err, ok) = output(d, &["validate", "--subgraph", "sg99", small]);
    assert!(!ok);
    assert!(err.ends_with("(its subgraphs: sg00, sg01)\n"), "{err}");
    let pe = corpus("streams/matmul_small/sg00/PE.bin");
    let (_, err, ok) = output(d, &["validate", "--subgraph", "sg00", pe.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("--subgraph applies to NEFFs only"), "{err}");
}

/// Several inputs, as objdump takes several files: each one's report as alone, a blank
/// line between, then the totals; a finding in any exits 1, an input that cannot be read
/// is said and the rest validated, and exits 2; `--json` takes one input.
#[test]
fn validate_takes_several_inputs() {
    let (dir, small, pe, one, two) = each_alone("validate");
    let (d, small, pe) = (dir.path(), small.as_str(), pe.as_str());
    let (out, _, code) = exit(d, &["validate", small, pe]);
    // The raw stream is an image without EXIT: one finding.
    assert_eq!(code, Some(1));
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("{one}\n{two}\n2 inputs validated: 70 records in 11 streams, 1 finding(s)\n")
    );
    let (out, _, ok) = output(d, &["validate", "--pre-relocation", small, pe]);
    assert!(ok);
    assert!(String::from_utf8(out).unwrap().ends_with(", 0 finding(s)\n"));
    let (out, err, code) = exit(d, &["validate", "--pre-relocation", small, "missing.bin", pe]);
    assert_eq!(code, Some(2));
    let out = String::from_utf8(out).unwrap();
    assert!(err.starts_with("error: reading missing.bin: "), "{err}");
    assert!(!out.contains("\n\n\n"), "{out}");
    assert!(out.ends_with("; 1 input could not be read\n"), "{out}");
    let (out, err, ok) = output(d, &["validate", "--json", small, pe]);
    assert!(!ok && out.is_empty() && err.contains("give one input"), "{err}");
    let (_, err, ok) = output(d, &["validate", "-", "-"]);
    assert!(!ok && err.contains("named more than once"), "{err}");
}

/// `tpb disasm` of several inputs, as objdump takes several files: each one's listing as
/// alone, under a line naming it, a blank line between; one that cannot be read is said,
/// the rest listed, and the run exits 2; `--json` takes one input; and the listing of
/// several is refused by `tpb asm` at its first heading, not read as one stream.
#[test]
fn disasm_takes_several_inputs() {
    let (dir, small, pe, one, two) = each_alone("disasm");
    let (d, small, pe) = (dir.path(), small.as_str(), pe.as_str());
    let want =
        format!("{small}:     file format neff\n\n{one}\n{pe}:     file format raw\n\n{two}");
    let (out, err, ok) = output(d, &["disasm", small, pe]);
    assert!(ok && err.is_empty(), "{err}");
    assert_eq!(String::from_utf8(out).unwrap(), want);
    let (out, err, code) = exit(d, &["disasm", small, "missing.bin", pe]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error: reading missing.bin: "), "{err}");
    assert_eq!(String::from_utf8(out).unwrap(), want);
    // An argument error is said once, before any input is read.
    let (out, err, code) = exit(d, &["disasm", "--engine", "gpu", small, pe]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty() && err.matches("error:").count() == 1, "{err}");
    // A stream that ends in part of a record is listed, then said.
    let mut partial = fs::read(pe).unwrap();
    partial.truncate(64 + 10);
    fs::write(d.join("partial.bin"), &partial).unwrap();
    let (out, err, code) = exit(d, &["disasm", "partial.bin", pe]);
    assert_eq!(code, Some(2));
    assert!(err.contains("partial.bin") && err.contains("10 bytes"), "{err}");
    let out = String::from_utf8(out).unwrap();
    assert!(out.starts_with("partial.bin:     file format raw\n\n00000000  "), "{out}");
    assert!(out.ends_with(&format!("\n\n{pe}:     file format raw\n\n{two}")), "{out}");
    // A name that would read as a comment, or break the line, is escaped as a label is.
    fs::copy(pe, d.join("#c\n.bin")).unwrap();
    let (out, _, ok) = output(d, &["disasm", "#c\n.bin", pe]);
    assert!(ok);
    assert!(String::from_utf8(out).unwrap().starts_with("\\x23c\\x0a.bin:     file format raw\n"));
    let (out, err, ok) = output(d, &["disasm", "--json", small, pe]);
    assert!(!ok && out.is_empty() && err.contains("give one input"), "{err}");
    let (_, err, ok) = output(d, &["disasm", "-", "-"]);
    assert!(!ok && err.contains("named more than once"), "{err}");
    fs::write(d.join("both.lst"), &want).unwrap();
    let (out, err, ok) = output(d, &["asm", "both.lst", "-o", "out"]);
    assert!(!ok && out.is_empty(), "{err}");
    assert!(
        err.starts_with(&format!("error: both.lst:1: the heading of {small}'s listing")),
        "{err}"
    );
    assert!(!d.join("out").exists());
}

/// `tpb disasm` of several inputs says what fails between the listings it falls between
/// (each listing goes out before the next input is read, as objdump's does), and a reader
/// that stops early (`| head`) leaves the exit status of an input that failed before it.
#[test]
fn disasm_of_several_says_failures_in_order_and_keeps_them_past_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, pe) = neff_and_raw();
    // Standard output and error into one file, as `2>&1` gives them.
    let both = fs::File::create(d.join("both.txt")).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["disasm", "--no-hex", &pe, "missing.bin", &pe])
        .current_dir(d)
        .stdout(both.try_clone().unwrap())
        .stderr(both)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
    let text = fs::read_to_string(d.join("both.txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let at = |p: &str| {
        lines.iter().position(|l| l.starts_with(p)).unwrap_or_else(|| panic!("{p}: {text}"))
    };
    let error = at("error: reading missing.bin");
    assert!(
        at(&format!("{pe}:")) < error
            && error < lines.iter().rposition(|l| l.starts_with(&format!("{pe}:"))).unwrap(),
        "{text}"
    );
    // Megabytes of listing after the inputs that failed (one unread, one listed and then
    // said to end in part of a record): the reader stops after one chunk.
    fs::write(d.join("partial.bin"), [0u8; 64 + 10]).unwrap();
    let large = corpus("matmul_large.neff");
    let large = large.to_str().unwrap();
    let (status, err) = closed_early(d, ["disasm", "missing.bin", "partial.bin", large]);
    assert_eq!(status, Some(2), "{err}");
    assert!(err.starts_with("error: reading missing.bin: ") && err.lines().count() == 2, "{err}");
    assert!(err.contains("\nerror: partial.bin: trailing partial record of 10 bytes"), "{err}");
}

/// `tpb info` of more inputs than one write of the output holds, read by a reader that
/// stops early (`| head`): an input that failed before keeps the exit status 2, and
/// without one the run ends quietly (0), as one input's does.
#[test]
fn info_of_many_inputs_keeps_a_failure_past_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let (_, pe) = neff_and_raw();
    for (first, want) in [(Some("missing.bin"), 2), (None, 0)] {
        // About 100 bytes each: 150 KiB, past the 64 KiB of one write.
        let args = ["info"].into_iter().chain(first).chain(std::iter::repeat_n(pe.as_str(), 1500));
        let (status, err) = closed_early(dir.path(), args);
        assert_eq!(status, Some(want), "{first:?}: {err}");
        assert_eq!(err.lines().count(), usize::from(first.is_some()), "{err}");
    }
}

/// `tpb info` of several inputs, as `readelf -h` takes several files: each one's
/// description as alone, a blank line between; one that cannot be read is said, the rest
/// described, and the run exits 2; `--json` takes one input.
#[test]
fn info_takes_several_inputs() {
    let (dir, small, pe, one, two) = each_alone("info");
    let (d, small, pe) = (dir.path(), small.as_str(), pe.as_str());
    let (out, _, ok) = output(d, &["info", small, pe]);
    assert!(ok);
    assert_eq!(String::from_utf8(out).unwrap(), format!("{one}\n{two}"));
    let (out, err, code) = exit(d, &["info", small, "missing.bin", pe]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error: reading missing.bin: "), "{err}");
    assert_eq!(String::from_utf8(out).unwrap(), format!("{one}\n{two}"));
    let (out, err, ok) = output(d, &["info", "--json", small, pe]);
    assert!(!ok && out.is_empty() && err.contains("give one input"), "{err}");
    let (_, err, ok) = output(d, &["info", "-", "-"]);
    assert!(!ok && err.contains("named more than once"), "{err}");
}

/// `tpb stats` of several inputs, one of which cannot be read: it is said, the rest are
/// counted as alone, the first line says how many could not be read, and the run exits
/// 2; `--json`, one document of every input, fails instead, writing nothing.
#[test]
fn stats_counts_the_inputs_that_read_and_says_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (small, pe) = neff_and_raw();
    let (small, pe) = (small.as_str(), pe.as_str());
    let alone = String::from_utf8(output(d, &["stats", small, pe]).0).unwrap();
    let (out, err, code) = exit(d, &["stats", small, "missing.bin", pe]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error: reading missing.bin: ") && err.lines().count() == 1, "{err}");
    let out = String::from_utf8(out).unwrap();
    let (first, rest) = alone.split_once('\n').unwrap();
    assert_eq!(out, format!("{first}; 1 input could not be read\n{rest}"));
    let (out, err, code) = exit(d, &["stats", "--json", small, "missing.bin", pe]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty() && err.starts_with("error: reading missing.bin: "), "{err}");
}

/// Standard input is read once: `tpb stats - -` would count a second, empty stream (the
/// first read took all), so naming it twice is an error, not a file of 0 records.
#[test]
fn stats_refuses_standard_input_named_twice() {
    let dir = tempfile::tempdir().unwrap();
    let small = corpus("matmul_small.neff");
    let o = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["stats", "-", "-"])
        .current_dir(dir.path())
        .stdin(fs::File::open(&small).unwrap())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(o.stdout.is_empty());
    assert_eq!(err, "error: `-` (standard input) is named more than once; it can be read once\n");
}
