//! `tpb asm` on texts that do not assemble: many bad lines, long lines, tabs and
//! control characters, text that is not UTF-8, standard input, and a NEFF's listing.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `testdata/nkipy/<name>` at the workspace root.
fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/nkipy").join(name)
}

/// `tpb` with `args` in `dir`, `stdin` fed to it.
fn tpb(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tpb runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// `tpb asm` of `text` (written to `t.tpb`): whether it succeeded, and its standard error.
fn asm(dir: &Path, text: &[u8]) -> (bool, String) {
    fs::write(dir.join("t.tpb"), text).unwrap();
    let _ = fs::remove_file(dir.join("t.bin"));
    let out = tpb(dir, &["asm", "t.tpb", "-o", "t.bin"], b"");
    assert_eq!(out.status.success(), dir.join("t.bin").exists(), "written only on success");
    (out.status.success(), String::from_utf8(out.stderr).unwrap())
}

/// Each echoed source line and the character its caret points at (`None` past its end).
fn carets(stderr: &str) -> Vec<(String, Option<char>)> {
    let lines: Vec<&str> = stderr.lines().collect();
    lines
        .windows(2)
        .filter_map(|w| {
            let echo = w[0].strip_prefix("  | ")?;
            let caret = w[1].strip_prefix("  | ")?;
            let at = caret.strip_suffix('^').filter(|s| s.bytes().all(|b| b == b' '))?.len();
            Some((echo.to_owned(), echo.chars().nth(at)))
        })
        .collect()
}

#[test]
fn many_bad_lines_show_the_first_hundred_and_count_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, err) = asm(dir.path(), "x\n".repeat(20_000).as_bytes());
    assert!(!ok);
    assert_eq!(carets(&err).len(), 100, "{err}");
    assert_eq!(err.lines().filter(|l| l.starts_with("t.tpb:")).count(), 100);
    assert!(err.contains("t.tpb:100:1: unknown mnemonic 'x'") && !err.contains("t.tpb:101:"));
    assert!(err.ends_with(
        "error: 20000 line(s) could not be assembled (the first 100 shown); nothing was written\n"
    ));
}

#[test]
fn a_long_line_is_cut_to_a_window_around_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let blank = " ".repeat(5_000);
    let line = format!("matmul{blank}num_active_rows=zz{blank}# {}\n", "c".repeat(5_000));
    let (ok, err) = asm(dir.path(), line.as_bytes());
    assert!(!ok);
    let col = line.find("zz").unwrap() + 1;
    assert!(err.starts_with(&format!("t.tpb:1:{col}: ")), "{err}");
    let shown = carets(&err);
    let (echo, at) = &shown[0];
    assert_eq!(*at, Some('z'), "{echo}");
    assert!(echo.starts_with('…') && echo.ends_with('…'), "{echo}");
    assert!(echo.chars().count() <= 202, "{echo}");
}

#[test]
fn carets_line_up_under_tabs_and_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let text = "nop\tevents.wait_idx=zz\n\
                pseudo_function_begin function_name=\"a\u{1}\tb\" return_reset_semaphores=zz\n\
                \0nop\n";
    let (ok, err) = asm(dir.path(), text.as_bytes());
    assert!(!ok);
    // Columns count characters, a tab as one.
    assert!(err.contains("t.tpb:1:21: field 'events.wait_idx'"), "{err}");
    assert!(err.contains("t.tpb:2:68: field 'return_reset_semaphores'"), "{err}");
    assert!(err.contains("t.tpb:3:1: unknown mnemonic '\\0nop'"), "{err}");
    let shown = carets(&err);
    assert_eq!(shown.len(), 3, "{err}");
    assert_eq!(shown[0], ("nop events.wait_idx=zz".to_owned(), Some('z')));
    assert!(shown[1].0.contains("\"a\\x01 b\""), "{}", shown[1].0);
    assert_eq!(shown[1].1, Some('z'));
    assert_eq!(shown[2], ("\\0nop".to_owned(), Some('\\')));
    assert!(!err.contains('\t') && !err.contains('\u{1}') && !err.contains('\0'));
}

/// An invisible formatting character in the echoed line is shown as its escape, and the
/// caret counts it so: a right-to-left override reversed the rest of the echo.
#[test]
fn an_invisible_formatting_character_is_echoed_as_its_escape() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, err) = asm(dir.path(), "nop \u{202e}events.wait_idx=zz\n".as_bytes());
    assert!(!ok);
    assert!(!err.contains('\u{202e}'), "{err}");
    let shown = carets(&err);
    assert_eq!(shown, [("nop \\u{202e}events.wait_idx=zz".to_owned(), Some('\\'))], "{err}");
}

#[test]
fn text_that_is_not_utf8_is_reported_at_its_first_bad_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, err) = asm(dir.path(), b"nop\r\nnop\nnop events.wait_idx=\xff1\nbogus\n");
    assert!(!ok);
    assert!(err.starts_with("t.tpb:3:21: the text is not UTF-8 (byte 0xFF)\n"), "{err}");
    assert_eq!(carets(&err)[0].1, Some('\u{fffd}'), "{err}");
    assert!(err.ends_with("error: t.tpb is not UTF-8 text; nothing was written\n"), "{err}");
    let (_, err) = asm(
        dir.path(),
        "é\u{e9}".as_bytes().iter().chain(b"\xc3").copied().collect::<Vec<_>>().as_slice(),
    );
    assert!(err.starts_with("t.tpb:1:3: the text is not UTF-8 (byte 0xC3)"), "{err}");
}

#[test]
fn a_dash_reads_the_text_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = b"pseudo_function_begin function_name=\"main\"\npseudo_exit_execution\n";
    let out = tpb(d, &["asm", "-", "-o", "in.bin"], text);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (ok, _) = asm(d, text);
    assert!(ok);
    assert_eq!(fs::read(d.join("in.bin")).unwrap(), fs::read(d.join("t.bin")).unwrap());
    let out = tpb(d, &["asm", "-", "-o", "bad.bin"], b"nop\nfrobnicate\n");
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("<stdin>:2:1: unknown mnemonic 'frobnicate'"), "{err}");
}

/// A NEFF's listing of one stream reads back to the stream's bytes, with and without
/// its hex column, in the generation its heading names; rows of a listing without their
/// heading get a hint, once, and the hint's way gives the stream's bytes back.
#[test]
fn a_neff_listing_of_one_stream_assembles_and_others_get_a_hint_that_works() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let neff = corpus("matmul_small.neff");
    let neff = neff.to_str().unwrap();
    let want = fs::read(corpus("streams/matmul_small/sg01/Pool.bin")).unwrap();
    for hex in [&[][..], &["--no-hex"][..]] {
        let args = [&["disasm", neff, "--subgraph", "sg01", "--engine", "pool"][..], hex].concat();
        let listing = tpb(d, &args, b"");
        assert!(listing.status.success());
        let (ok, err) = asm(d, &listing.stdout);
        assert!(ok, "{err}");
        assert!(
            err.starts_with("note: t.tpb: read as the listing of sg01/Pool (cayman)\n"),
            "{err}"
        );
        assert_eq!(fs::read(d.join("t.bin")).unwrap(), want);
    }
    let (_, err) = asm(d, b"     3  000000c0  nop\n");
    assert!(
        err.contains("hint: this looks like rows of a NEFF's listing (an index column)"),
        "{err}"
    );
    assert_eq!(err.matches("hint: ").count(), 1, "{err}");
    // What the hint says to do.
    assert!(tpb(d, &["extract", neff, "-o", "dir"], b"").status.success());
    let listing = tpb(d, &["disasm", "--no-hex", "dir/sg00/PE.bin"], b"");
    let (ok, err) = asm(d, &listing.stdout);
    assert!(ok, "{err}");
    assert_eq!(fs::read(d.join("t.bin")).unwrap(), fs::read(d.join("dir/sg00/PE.bin")).unwrap());
    // Text that merely fails gets no hint.
    let (_, err) = asm(d, b"frobnicate\n12 words\n");
    assert!(!err.contains("hint"), "{err}");
}

/// `tpb asm` of the file `name` in `dir` under an address-space limit of `mib` MiB
/// (`ulimit -v`): whether it succeeded, and its standard error.
#[cfg(target_os = "linux")]
fn asm_within(dir: &Path, name: &str, mib: usize) -> (bool, String) {
    let script = format!("ulimit -v {}; exec \"$0\" asm {name} -o out.bin", mib << 10);
    let out = Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_tpb")])
        .current_dir(dir)
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Memory stays near the text's size: the records are written as they are assembled,
/// not gathered (64 bytes for a 4-byte `nop` line), and an error's echo copies only its
/// window of a huge line (it made a `char` of every byte, four times the line).
#[cfg(target_os = "linux")]
#[test]
fn memory_stays_near_the_size_of_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("nops.tpb"), "nop\n".repeat(10 << 20 >> 2)).unwrap();
    let (ok, err) = asm_within(d, "nops.tpb", 100);
    assert!(ok, "{err}");
    assert_eq!(fs::metadata(d.join("out.bin")).unwrap().len(), 160 << 20);
    assert!(err.starts_with("wrote 2621440 records"), "{err}");

    fs::write(d.join("long.tpb"), "a".repeat(40 << 20)).unwrap();
    let (ok, err) = asm_within(d, "long.tpb", 100);
    assert!(!ok);
    assert!(err.starts_with("long.tpb:1:1: unknown mnemonic"), "{err}");
    assert!(err.contains("error: 1 line(s) could not be assembled"), "{err}");
    let mut bad = "a".repeat(40 << 20).into_bytes();
    bad[20 << 20] = 0xFF;
    fs::write(d.join("bad.tpb"), bad).unwrap();
    let (ok, err) = asm_within(d, "bad.tpb", 100);
    assert!(!ok);
    assert!(err.starts_with("bad.tpb:1:20971521: the text is not UTF-8 (byte 0xFF)"), "{err}");
    let echo = carets(&err);
    assert_eq!(echo[0].1, Some('\u{fffd}'), "{err}");
    assert!(echo[0].0.starts_with('…') && echo[0].0.ends_with('…'), "{err}");
}

#[test]
fn an_escape_the_text_form_does_not_use_is_named_with_the_ones_it_does() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, err) = asm(dir.path(), b"pseudo_function_begin function_name=\"a\\nb\"\n");
    assert!(!ok);
    assert!(err.contains("t.tpb:1:37: field 'function_name' takes a quoted string"), "{err}");
    assert!(
        err.contains(
            "note: '\\n' is not an escape of the text form: a quoted name takes \\\", \\\\ and \
             \\xNN (as tpb disasm prints it); for \\n write \\x0a\n"
        ),
        "{err}"
    );
    // The escapes it names are the ones that assemble.
    let (ok, err) = asm(dir.path(), b"pseudo_function_begin function_name=\"a\\x0a\\\"\\\\b\"\n");
    assert!(ok, "{err}");
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, err) = asm(dir.path(), b"\xEF\xBB\xBFnop\nnop\n");
    assert!(ok, "{err}");
    assert_eq!(fs::metadata(dir.path().join("t.bin")).unwrap().len(), 128);
    // Only at the start.
    let (ok, err) = asm(dir.path(), "nop\n\u{feff}nop\n".as_bytes());
    assert!(!ok && err.starts_with("t.tpb:2:1: unknown mnemonic"), "{err}");
}

#[test]
fn cr_line_endings_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, err) = asm(dir.path(), b"nop\rnop\rnop\r");
    assert!(!ok);
    assert_eq!(err.matches("note: the text has CR (\\r) line endings").count(), 1, "{err}");
    assert!(err.contains("it reads LF or CRLF"), "{err}");
    let (ok, err) = asm(dir.path(), b"nop\r\nnop\r\n");
    assert!(ok, "{err}");
}

/// A NEFF's whole listing assembles to a folder of its streams, byte for byte what
/// `tpb extract` writes, with and without hex; a bad line anywhere is reported at the
/// file's line and nothing is written; a folder is needed, and a stream's label that
/// would leave it, or a link on the way, is refused before anything is written.
#[test]
fn a_neff_listing_of_several_streams_assembles_to_a_folder_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let neff = corpus("matmul_small.neff");
    let neff = neff.to_str().unwrap();
    assert!(tpb(d, &["extract", neff, "-o", "want"], b"").status.success());
    let names = ["PE", "Activation", "Pool", "DVE", "SP"];
    for (k, hex) in [&[][..], &["--no-hex"][..]].into_iter().enumerate() {
        let listing = tpb(d, &[&["disasm", neff][..], hex].concat(), b"");
        fs::write(d.join("all.lst"), &listing.stdout).unwrap();
        let out = format!("got{k}");
        let run = tpb(d, &["asm", "all.lst", "-o", &out], b"");
        let err = String::from_utf8(run.stderr).unwrap();
        assert!(run.status.success(), "{err}");
        assert!(
            err.starts_with(
                "note: all.lst: read as the listing of 10 streams
"
            ),
            "{err}"
        );
        assert!(err.contains(&format!("sg01/SP: wrote 3 records (192 bytes) to {out}/sg01/SP.bin")));
        for sg in ["sg00", "sg01"] {
            for e in names {
                let path = format!("{sg}/{e}.bin");
                let got = fs::read(d.join(&out).join(&path)).unwrap();
                assert_eq!(got, fs::read(d.join("want").join(&path)).unwrap(), "{path}");
            }
        }
        // A bad line in the seventh stream: its own line, nothing written.
        let mut text = String::from_utf8(listing.stdout).unwrap();
        let at = text.find("sg01/Activation: ").unwrap();
        let row = at + text[at..].find("\n     1  00000040  ").unwrap() + 1;
        let line = 1 + text[..row].matches('\n').count();
        text.insert_str(row + "     1  00000040  ".len(), "frob ");
        fs::write(d.join("bad.lst"), text).unwrap();
        let run = tpb(d, &["asm", "bad.lst", "-o", "bad"], b"");
        let err = String::from_utf8(run.stderr).unwrap();
        assert!(!run.status.success() && !d.join("bad").exists(), "{err}");
        assert_eq!(err.lines().filter(|l| l.starts_with("bad.lst:")).count(), 1, "{err}");
        assert!(err.contains(&format!("bad.lst:{line}:")), "{line}: {err}");
        assert!(!err.contains("hint"), "{err}");
    }
    // A window of each stream (`--records`): written as listed, with a note per stream.
    let listing = tpb(d, &["disasm", neff, "--records", "2..4"], b"");
    fs::write(d.join("win.lst"), &listing.stdout).unwrap();
    let run = tpb(d, &["asm", "win.lst", "-o", "win"], b"");
    let err = String::from_utf8(run.stderr).unwrap();
    assert!(run.status.success(), "{err}");
    assert!(
        err.contains(
            "note: win.lst: sg00/PE holds 2 records where its heading counts 12 (a --records \
             window, or an edit); written as listed\n"
        ),
        "{err}"
    );
    let want = fs::read(d.join("want/sg00/PE.bin")).unwrap();
    assert_eq!(fs::read(d.join("win/sg00/PE.bin")).unwrap(), &want[2 * 64..4 * 64]);
    for args in [&["-o", "-"][..], &["--hex"][..]] {
        let run = tpb(d, &[&["asm", "all.lst"][..], args].concat(), b"");
        let err = String::from_utf8(run.stderr).unwrap();
        assert!(!run.status.success() && run.stdout.is_empty(), "{err}");
        assert!(
            err.starts_with("error: all.lst: the listing holds 10 streams (sg00/PE, ")
                && err.contains("give -o DIR without --hex"),
            "{err}"
        );
    }
    let two = "sg00/PE: cayman, 1 record\n     0  00000000  nop\n\
               ../x/PE: cayman, 1 record\n     0  00000000  nop\n";
    fs::write(d.join("two.lst"), two).unwrap();
    let run = tpb(d, &["asm", "two.lst", "-o", "o"], b"");
    let err = String::from_utf8(run.stderr).unwrap();
    assert!(err.contains("stream ../x/PE is not GRAPH/ENGINE"), "{err}");
    assert!(!d.join("o").exists() && !d.join("x").exists());
    // Two labels of one file, a file where another needs a folder, a name too long to
    // write, a label that is no stream's: refused before anything is written (each was
    // written in part, or over the other).
    let long = format!("{}/PE", "g".repeat(300));
    for (second, want) in [
        ("sg00//PE", "is not GRAPH/ENGINE"),
        ("sg00/./PE", "is not GRAPH/ENGINE"),
        ("sg00/PE.bin/x", "is not GRAPH/ENGINE"),
        ("a/b", "stream a/b is not GRAPH/ENGINE"),
        (long.as_str(), "stream gggg"),
        ("sg00/pe", "holds stream sg00/pe twice"),
    ] {
        let text = format!("sg00/PE: cayman, 1 record\n     0  00000000  nop\n{second}: cayman, 1 record\n     0  00000000  nop\n");
        fs::write(d.join("two.lst"), text).unwrap();
        let run = tpb(d, &["asm", "two.lst", "-o", "p"], b"");
        let err = String::from_utf8(run.stderr).unwrap();
        assert!(!run.status.success() && err.contains(want), "{second}: {err}");
        assert!(err.len() < 600, "{err}");
        assert!(!d.join("p").exists(), "{second}: {err}");
    }
    #[cfg(unix)]
    {
        fs::write(d.join("two.lst"), two.replace("../x", "sg01")).unwrap();
        fs::create_dir(d.join("o")).unwrap();
        std::os::unix::fs::symlink(d.join("want"), d.join("o/sg01")).unwrap();
        let run = tpb(d, &["asm", "two.lst", "-o", "o"], b"");
        let err = String::from_utf8(run.stderr).unwrap();
        assert!(err.contains("o/sg01 is a symbolic link; refusing to write through it"), "{err}");
        assert!(!d.join("o/sg00").exists());
        // A folder or a FIFO where a stream goes: refused before any stream is written
        // (the streams before it were).
        fs::remove_file(d.join("o/sg01")).unwrap();
        fs::create_dir_all(d.join("o/sg01/PE.bin")).unwrap();
        let run = tpb(d, &["asm", "two.lst", "-o", "o"], b"");
        let err = String::from_utf8(run.stderr).unwrap();
        assert!(!run.status.success() && err.contains("o/sg01/PE.bin is a folder"), "{err}");
        assert!(!d.join("o/sg00").exists(), "{err}");
        fs::remove_dir(d.join("o/sg01/PE.bin")).unwrap();
        assert!(Command::new("mkfifo").arg(d.join("o/sg01/PE.bin")).status().unwrap().success());
        let run = tpb(d, &["asm", "two.lst", "-o", "o"], b"");
        let err = String::from_utf8(run.stderr).unwrap();
        assert!(!run.status.success() && err.contains("is not a regular file"), "{err}");
        assert!(!d.join("o/sg00").exists(), "{err}");
    }
}

/// A heading whose generation `tpb` does not know (a typo) is an error at its line
/// unless `--arch` says which; `?` (what `tpb disasm` prints where it knew none) reads in
/// the default.
#[test]
fn a_heading_of_an_unknown_generation_needs_arch() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (text, out) in [
        ("sg00/PE: caymen, 1 record\n     0  00000000  nop\n", "one.bin"),
        (
            "# x\nsg00/PE: cayman, 1 record\n     0  00000000  nop\nsg00/SP: caymen, 1 record\n",
            "dir",
        ),
    ] {
        fs::write(d.join("h.lst"), text).unwrap();
        let run = tpb(d, &["asm", "h.lst", "-o", out], b"");
        let err = String::from_utf8(run.stderr).unwrap();
        let line = 1 + text.split('\n').position(|l| l.contains("caymen")).unwrap();
        assert!(!run.status.success() && !d.join(out).exists(), "{err}");
        assert!(
            err.contains(&format!("error: h.lst:{line}: the heading of sg00/"))
                && err.contains("names generation 'caymen', not one tpb knows; give --arch"),
            "{err}"
        );
        let run = tpb(d, &["asm", "h.lst", "--arch", "mariana", "-o", out], b"");
        let err = String::from_utf8(run.stderr).unwrap();
        assert!(run.status.success(), "{err}");
        // A heading of a known generation that --arch overrides is noted, once.
        let noted = "the heading of sg00/PE says cayman; read as mariana (--arch)";
        assert_eq!(err.matches(noted).count(), usize::from(out == "dir"), "{err}");
    }
    fs::write(d.join("q.lst"), "sg00/PE: ?, 1 record\n     0  00000000  nop\n").unwrap();
    let run = tpb(d, &["asm", "q.lst", "-o", "q.bin"], b"");
    let err = String::from_utf8(run.stderr).unwrap();
    assert!(run.status.success() && err.contains("(cayman)"), "{err}");
}

/// A long label is cut in messages after its escapes are read back: an escape at the cut
/// is shown whole or not at all, never as the file's text (`\\x…`).
#[test]
fn a_long_label_is_cut_whole_escapes_and_all() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let label = format!("{}\\x1bz/PE", "a".repeat(62));
    fs::write(d.join("h.lst"), format!("{label}: zz, 1 record\n     0  00000000  nop\n")).unwrap();
    let run = tpb(d, &["asm", "h.lst", "-o", "h.bin"], b"");
    let err = String::from_utf8(run.stderr).unwrap();
    assert!(!run.status.success(), "{err}");
    let shown = format!("the heading of {}\\x1bz… names generation 'zz'", "a".repeat(62));
    assert!(err.contains(&shown), "{err}");
}

/// The heading of one input's listing among several (`tpb disasm A B`) names the input,
/// cut as a long label is: a line of the file may be of any length.
#[test]
fn a_long_inputs_heading_is_cut_in_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let name = "a".repeat(5000);
    let (ok, err) = asm(d, format!("nop\n{name}:     file format raw\n").as_bytes());
    assert!(!ok, "{err}");
    let shown =
        format!("error: t.tpb:2: the heading of {}…'s listing, one of several", &name[..64]);
    assert!(err.starts_with(&shown) && err.len() < 400, "{err}");
}

#[test]
fn after_the_neff_listing_hint_the_other_lines_are_only_counted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let neff = corpus("matmul_small.neff");
    let listing = tpb(d, &["disasm", "--no-hex", neff.to_str().unwrap()], b"");
    // The rows without their streams' headings (with them, the listing would assemble
    // to a folder of its streams).
    let text = String::from_utf8_lossy(&listing.stdout).into_owned();
    let rows: Vec<&str> =
        text.lines().filter(|l| !l.trim().is_empty() && !l.contains(" records")).collect();
    let (ok, err) = asm(d, (rows.join("\n") + "\n").as_bytes());
    assert!(!ok);
    assert_eq!(err.lines().filter(|l| l.starts_with("t.tpb:")).count(), 1, "{err}");
    assert!(
        err.ends_with(&format!(
            "error: {} line(s) could not be assembled (the first 1 shown: the text is a NEFF's \
             listing); nothing was written\n",
            rows.len()
        )),
        "{err}"
    );
}

#[test]
fn nothing_the_user_had_is_lost() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // The text as its own output: refused, the text kept.
    fs::write(dir.join("same.tpb"), b"nop\n").unwrap();
    let out = tpb(dir, &["asm", "same.tpb", "-o", "same.tpb"], b"");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is the input"), "{out:?}");
    assert_eq!(fs::read(dir.join("same.tpb")).unwrap(), b"nop\n");
    // A text with an error leaves an old output as it was.
    fs::write(dir.join("old.bin"), b"old").unwrap();
    fs::write(dir.join("bad.tpb"), b"nop\nnot_a_mnemonic\n").unwrap();
    assert!(!tpb(dir, &["asm", "bad.tpb", "-o", "old.bin"], b"").status.success());
    assert_eq!(fs::read(dir.join("old.bin")).unwrap(), b"old");
    // A device is written in place and stays (a failed write removed the path).
    let out = tpb(dir, &["asm", "same.tpb", "-o", "/dev/null"], b"");
    assert!(out.status.success(), "{out:?}");
    assert!(Path::new("/dev/null").exists());
    if Path::new("/dev/full").exists() {
        let big = "nop\n".repeat(1 << 16);
        fs::write(dir.join("big.tpb"), big).unwrap();
        let out = tpb(dir, &["asm", "big.tpb", "-o", "/dev/full"], b"");
        assert!(!out.status.success());
        assert!(Path::new("/dev/full").exists());
    }
}

/// `tpb disasm --json` fed back: one hint that the text is JSON and how to get the text
/// listing, then the other lines only counted.
#[test]
fn json_gets_a_hint_and_the_other_lines_are_only_counted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("e.tpb"), b"pseudo_exit_execution\n").unwrap();
    assert!(tpb(d, &["asm", "e.tpb", "-o", "e.bin"], b"").status.success());
    let json = tpb(d, &["disasm", "--json", "e.bin"], b"");
    let (ok, err) = asm(d, &json.stdout);
    assert!(!ok);
    assert_eq!(err.lines().filter(|l| l.starts_with("t.tpb:")).count(), 1, "{err}");
    assert!(err.contains("hint: this looks like JSON (`tpb disasm --json`)"), "{err}");
    assert!(err.ends_with("(the first 1 shown: the text is JSON); nothing was written\n"), "{err}");
    // A text whose first line is a mistake of another kind gets no such hint.
    let (_, err) = asm(d, b"frob\n{\n");
    assert!(!err.contains("JSON"), "{err}");
}

/// A line naming an arm no binding selects assembles as written, with a note that its
/// record does not read back as that arm; a comment, a label line or a bound arm gets
/// none.
#[test]
fn an_arm_no_binding_selects_gets_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, err) = asm(dir.path(), b"# extended_copy\nnop\n  extended_copy ; again\n");
    assert!(ok, "{err}");
    assert!(
        err.starts_with("note: t.tpb:3: 'extended_copy' is an arm no binding selects"),
        "{err}"
    );
    assert_eq!(err.lines().filter(|l| l.starts_with("note:")).count(), 1, "{err}");
    let (ok, err) = asm(dir.path(), b"# extended_copy\nnop\n");
    assert!(ok && !err.contains("note:"), "{err}");
    // Nor does a label line whose function name holds the arm's mnemonic.
    let (ok, err) = asm(dir.path(), b"00000000 <do extended_copy now>:\n00000000  nop\n");
    assert!(ok && !err.contains("note:"), "{err}");
}
