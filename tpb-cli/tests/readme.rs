//! The README's `tpb` examples print what the README shows: the corpus NEFF's `info` and
//! `disasm`, and the hello.tpb walk-through (asm, a typo, disasm, validate).

use std::fs;
use std::path::Path;
use std::process::Command;

use tpb_isa_tests::readme::{block_starting, examples, Example};
use tpb_isa_tests::root;

/// What the command shows a user: its standard output, or its errors when it has none
/// (`tpb asm` reports on stderr).
fn run(dir: &Path, args: &[String]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_tpb")).args(args).current_dir(dir).output().unwrap();
    let pick = if o.stdout.is_empty() { o.stderr } else { o.stdout };
    String::from_utf8(pick).expect("tpb prints UTF-8")
}

/// The file a walk-through example reads that the README shows only through its error:
/// the source line echoed under the caret.
fn echoed_source(e: &Example) -> String {
    let line = e.output.iter().find_map(|l| l.strip_prefix("  | ")).expect("an echoed line");
    format!("{line}\n")
}

#[test]
fn tpb_examples_print_what_the_readme_shows() {
    let tmp = tempfile::tempdir().unwrap();
    let hello = block_starting(
        "# hello.tpb: one function that calls a kernel, then the end of the program",
    )
    .expect("README shows hello.tpb");
    fs::write(tmp.path().join("hello.tpb"), hello).unwrap();
    let mut ran = 0;
    for e in examples() {
        let (dir, args) = if let Some(args) = e.args_after("cargo run -p tpb-cli --") {
            (root(), args)
        } else if let Some(args) = e.args_after("tpb") {
            if args.iter().any(|a| a == "typo.tpb") {
                fs::write(tmp.path().join("typo.tpb"), echoed_source(&e)).unwrap();
            }
            (tmp.path().to_path_buf(), args)
        } else {
            continue;
        };
        let out = run(&dir, &args);
        e.check(&e.piped(&out)).unwrap_or_else(|m| panic!("{m}"));
        ran += 1;
    }
    assert!(ran >= 6, "the README has {ran} `tpb` examples run here");
}
