//! `tpb asm`: text to a raw stream; every line's error is counted, the first
//! [`SHOWN`] are shown with their line, and nothing is written unless all assemble.

use std::io::{self, BufWriter, IsTerminal, StderrLock, Write};
use std::path::{Path, PathBuf};
use std::str::Lines;

use anyhow::{bail, Context, Result};
use tpb_isa::disasm::desc::{target, Target};
use tpb_isa::disasm::{self, AsmError, AsmErrorKind};
use tpb_isa::Arch;

use crate::output::{self, Special};
use crate::records::{self, parse_arch, DEFAULT_ARCH, RECORD_SIZE};
use crate::text::count;
use crate::Reported;

/// The errors shown in full: a text of many bad lines (a binary file, the wrong
/// listing) would otherwise bury the first, which usually explains the rest.
const SHOWN: usize = 100;

/// UTF-8's byte-order mark, skipped at the start of the text.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The most columns of a source line echoed under an error: a line of a million list
/// items is cut to a window around the error.
const WIDTH: usize = 200;

#[derive(clap::Args)]
pub struct Args {
    /// The text, or `-` for standard input.
    file: PathBuf,
    /// Where to write the records; `-` for standard output (not a terminal, unless
    /// `--hex`). For a NEFF's listing of several streams, the folder to write each
    /// stream into, as DIR/sg00/PE.bin and so on.
    #[arg(short, long, required_unless_present = "hex")]
    output: Option<PathBuf>,
    /// Write each record as a line of 128 hex digits (what `--hex` of the other
    /// commands reads back) instead of binary; to standard output when `-o` is absent.
    #[arg(long)]
    hex: bool,
    /// The generation whose layouts the text is in (a name, label or alias: cayman, V3, trn2); cayman when absent.
    #[arg(long)]
    arch: Option<String>,
}

impl Args {
    pub fn run(self) -> Result<bool> {
        let given = self.arch.as_deref().map(parse_arch).transpose()?;
        let output = self.output.unwrap_or_else(|| PathBuf::from("-"));
        if !self.hex {
            check_output(&output)?;
        }
        output::refuse_same_file(&self.file, &output)?;
        let (name, bytes) = read(&self.file)?;
        let mut report = Report::new(&name);
        // A byte-order mark is no text, as editors and text tools take it.
        let body = bytes.strip_prefix(BOM).unwrap_or(&bytes);
        let source = match std::str::from_utf8(body) {
            Ok(text) => text,
            Err(e) => {
                report.not_utf8(body, e.valid_up_to())?;
                return Err(Reported.into());
            }
        };
        // `tpb disasm A B` heads each input's listing with a line naming it: their
        // records are no one stream, and their streams may share labels.
        if let Some((line, input)) = crate::listing::file_heading(source) {
            bail!(
                "{name}:{line}: the heading of {}'s listing, one of several inputs that \
                 `tpb disasm` listed together; assemble each input's listing alone (`tpb \
                 disasm FILE > FILE.lst`)",
                esc_cut(input)
            );
        }
        // A NEFF's listing reads as its streams' raw listings, each in the generation its
        // heading names unless --arch says otherwise; errors show the file's own lines.
        let streams = crate::listing::streams(source);
        // Its rows have an index column: no hint that they lack their heading.
        report.listing = !streams.is_empty();
        if streams.len() > 1 {
            return several(&mut report, source, &streams, given, &output, self.hex);
        }
        let one = streams.first();
        let text = one.map_or(source, |o| o.text.as_str());
        let arch = match one {
            Some(o) => stream_arch(&name, o, given)?,
            None => given.unwrap_or(DEFAULT_ARCH),
        };
        if let Some(o) = one {
            eprintln!("note: {name}: read as the listing of {} ({})", esc(&o.label), arch.name());
        }
        // Checked whole before anything is written, then assembled again as it is
        // written: the records (64 bytes a line of a few) are never held.
        let mut lines = source.lines();
        let checked = check(&mut report, &mut lines, arch, text, 0)?;
        if report.errors > 0 {
            report.summary()?;
            return Err(Reported.into());
        }
        checked.notes(&name, None);
        if let Some(o) = one {
            checked.count_note(&name, &esc(&o.label), o.records);
        }
        let n = write(&output, arch, text, self.hex)?;
        eprintln!(
            "wrote {} ({}{}) to {}",
            count(n, "record"),
            count(n * RECORD_SIZE, "byte"),
            if self.hex { ", as hex text" } else { "" },
            if output == Path::new("-") {
                "standard output".to_owned()
            } else {
                output::shown(&output)
            }
        );
        Ok(true)
    }
}

/// A NEFF's listing of several streams: each written to `DIR/<label>.bin` (the path of
/// its stream in the NEFF, where `tpb extract` writes it), once every stream assembles.
fn several(
    report: &mut Report<'_>,
    source: &str,
    streams: &[crate::listing::OneStream],
    given: Option<Arch>,
    dir: &Path,
    hex: bool,
) -> Result<bool> {
    let name = report.name;
    let labels: Vec<&str> = streams.iter().map(|s| s.label.as_str()).collect();
    if hex || dir == Path::new("-") {
        // The first few, escaped: the labels are the file's.
        let mut shown: Vec<String> = labels.iter().take(10).map(|l| esc_cut(l)).collect();
        if labels.len() > shown.len() {
            shown.push("…".to_owned());
        }
        bail!(
            "{name}: the listing holds {} streams ({}); tpb asm writes each to \
             DIR/<stream>.bin: give -o DIR without --hex, or list one stream with \
             `tpb disasm FILE.neff --subgraph SG --engine ENGINE`",
            labels.len(),
            shown.join(", ")
        );
    }
    // Each label is a stream's, GRAPH/ENGINE, as `tpb disasm` prints it: a file of its
    // own at DIR/GRAPH/ENGINE.bin, two folders deep, so that no two labels name one
    // file (`sg00//PE` is `sg00/PE`) or a file where another needs a folder
    // (`sg00/PE.bin/x`), and no name is too long to write once others are written.
    let mut files: Vec<String> = Vec::with_capacity(labels.len());
    for l in &labels {
        files.push(stream_file(l).ok_or_else(|| {
            anyhow::anyhow!(
                "{name}: stream {} is not GRAPH/ENGINE (a graph name of at most {} \
                 bytes, no '/', '.' or '..'; an engine of PE, Activation, Pool, DVE, SP); \
                 refusing to write it",
                esc_cut(l),
                output::NAME_MAX
            )
        })?);
    }
    let mut seen = std::collections::HashSet::with_capacity(files.len());
    if let Some(i) = files.iter().position(|f| !seen.insert(f.as_str())) {
        bail!(
            "{name}: the listing holds stream {} twice; each stream is written to a file of its \
             own",
            esc(labels[i])
        );
    }
    // Every path is checked before any stream is written.
    for f in &files {
        let rel =
            output::plain_relative(f, "stream").map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        output::refuse_in_the_way(dir, rel)?;
    }
    let archs = streams.iter().map(|s| stream_arch(name, s, given)).collect::<Result<Vec<_>>>()?;
    eprintln!("note: {name}: read as the listing of {}", count(streams.len(), "stream"));
    let mut lines = source.lines();
    let mut checked = Vec::with_capacity(streams.len());
    for (s, &arch) in streams.iter().zip(&archs) {
        checked.push(check(report, &mut lines, arch, &s.text, s.first_line)?);
    }
    if report.errors > 0 {
        report.summary()?;
        return Err(Reported.into());
    }
    output::make_dir(dir)?;
    for ((s, c), f) in streams.iter().zip(&checked).zip(&files) {
        c.notes(name, Some(&esc(&s.label)));
        c.count_note(name, &esc(&s.label), s.records);
        let file = output::path_under(dir, f, "stream")?;
        let n = output::write_file(&file, Special::Refuse, |w| {
            write_records(w, c.arch, &s.text, false)
        })?;
        eprintln!(
            "{}: wrote {} ({}) to {}",
            esc(&s.label),
            count(n, "record"),
            count(n * RECORD_SIZE, "byte"),
            output::shown(&file)
        );
    }
    Ok(true)
}

/// The generation a listing's stream is read in: `--arch`, else the one its heading
/// names, else (a heading of `?`, where `tpb disasm` knew none) the default. A heading
/// naming one `tpb` does not know is an error, never read in another silently.
fn stream_arch(name: &str, s: &crate::listing::OneStream, given: Option<Arch>) -> Result<Arch> {
    match (given, s.arch) {
        (Some(arch), Some(heading)) if arch != heading => {
            // Its fields are printed in the heading's layouts: say so before the errors
            // reading them in another's would give.
            eprintln!(
                "note: {name}:{}: the heading of {} says {}; read as {} (--arch)",
                s.heading_line,
                esc_cut(&s.label),
                heading.name(),
                arch.name()
            );
            Ok(arch)
        }
        (Some(arch), _) | (None, Some(arch)) => Ok(arch),
        (None, None) if s.arch_text == "?" => Ok(DEFAULT_ARCH),
        (None, None) => bail!(
            "{name}:{}: the heading of {} names generation '{}', not one tpb knows; give \
             --arch (a name, label or alias: cayman, V3, trn2) to read it",
            s.heading_line,
            esc_cut(&s.label),
            esc_cut(&s.arch_text)
        ),
    }
}

/// A stream's label as messages show it: as `tpb disasm` showed it, where the heading's
/// text reads back as a name; else the file's text, escaped.
fn esc(label: &str) -> String {
    crate::text::escape(&label_bytes(label))
}

/// The bytes [`esc`] shows of `label`: the graph's own, where the heading's text reads
/// back as a name; else the file's text.
fn label_bytes(label: &str) -> std::borrow::Cow<'_, [u8]> {
    crate::text::unescape(label).map_or(label.as_bytes().into(), Into::into)
}

/// [`esc`] of the label's first 64 bytes: a label refused may be a line of megabytes.
/// Cut after it is read back, so that no escape (`\x1b`) is cut in half and shown as
/// the file's text.
fn esc_cut(label: &str) -> String {
    const MOST: usize = 64;
    let raw = label_bytes(label);
    let shown = crate::text::escape(&raw[..raw.len().min(MOST)]);
    if raw.len() > MOST {
        format!("{shown}…")
    } else {
        shown
    }
}

/// The file of the stream labelled `label` (`sg00/PE`) under DIR, `sg00/PE.bin`: a
/// graph name that is one plain path component, and an engine's name (in any case,
/// written as `tpb extract` writes it). The graph's own name, not the heading's
/// escaped text: `s\x1bg/PE` is written where `tpb extract` writes that stream.
fn stream_file(label: &str) -> Option<String> {
    let raw = String::from_utf8(crate::text::unescape(label)?).ok()?;
    let (graph, engine) = raw.split_once('/')?;
    let engine = tpb_neff::Engine::from_name(engine)?;
    let plain = matches!(
        Path::new(graph).components().collect::<Vec<_>>()[..],
        [std::path::Component::Normal(c)] if c == std::ffi::OsStr::new(graph)
    );
    // A longer name would fail only when written, after the streams before it.
    (plain && !graph.contains('\0') && graph.len() <= output::NAME_MAX)
        .then(|| format!("{graph}/{}.bin", engine.name()))
}

/// What checking a text found besides its errors, for the notes before it is written.
struct Checked {
    arch: Arch,
    /// Records of an opcode the spec names on other generations: how many, and the
    /// first one's index and opcode.
    absent: usize,
    first: Option<(usize, u8)>,
    /// The first line (from 1) whose mnemonic names an arm no binding selects (the
    /// sub-forms of an extended opcode whose sub-opcode values the sources do not give),
    /// and the arm: the assembler keeps such a line's fields, but no opcode selects it.
    unselected: Option<(usize, String)>,
    /// Lines whose record reads back under another mnemonic (a field given that sets a
    /// byte the mnemonic implies: `header.opcode=`, a sub-opcode): how many, and the
    /// first one's line, mnemonic and the mnemonic its record prints under.
    renamed: usize,
    first_renamed: Option<(usize, String, String)>,
    /// The records it holds.
    records: usize,
}

/// Assemble `text` (a file's lines from `first_line` on), every error counted in `report`
/// at the file's line; what else it found.
fn check(
    report: &mut Report<'_>,
    lines: &mut Lines<'_>,
    arch: Arch,
    text: &str,
    first_line: usize,
) -> io::Result<Checked> {
    let (mut absent, mut first, mut records) = (0, None, 0);
    // One scan of the lines finds each record's mnemonic and the first line that names
    // an arm no binding selects.
    let mut unselected: Option<(usize, &str)> = None;
    let mut said = record_lines(text).inspect(|&(n, m)| {
        if let (None, Some((word, Target::Arm(_)))) = (unselected, m) {
            unselected = Some((n, word));
        }
    });
    let (mut renamed, mut first_renamed, mut aligned) = (0, None, true);
    for (i, r) in disasm::assemble(arch, text).enumerate() {
        records += 1;
        let line = said.next();
        aligned &= line.is_some();
        match r {
            Err(mut e) => {
                e.line += first_line;
                report.error(&e, lines)?;
            }
            Ok(r) => {
                if records::not_on_arch(arch, &r) {
                    absent += 1;
                    first.get_or_insert((i, r[0]));
                }
                // An arm no binding selects has a note of its own.
                let Some((n, Some((word, t)))) = line else { continue };
                if matches!(t, Target::Arm(_)) {
                    continue;
                }
                let printed = disasm::mnemonic(arch, &r);
                if printed != word {
                    renamed += 1;
                    first_renamed.get_or_insert((n + first_line, word.to_owned(), printed.into()));
                }
            }
        }
    }
    // The lines and the records did not pair up (the line scan's reading of a line
    // differs from the assembler's): no note rather than a wrong one.
    // The lines past the last record are scanned too, for an arm's line.
    if said.count() > 0 || !aligned {
        (renamed, first_renamed) = (0, None);
    }
    let unselected = unselected.map(|(line, arm)| (line + first_line, arm.to_owned()));
    Ok(Checked { arch, absent, first, unselected, renamed, first_renamed, records })
}

/// The lines of `text` that hold a record (not blank, not a comment alone, not a label
/// line), each with its line number (1-based) and its mnemonic and what it names.
fn record_lines(text: &str) -> impl Iterator<Item = (usize, Option<(&str, Target)>)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        // Blank before any comment: its first other character begins one (or none is).
        let code = line.trim_start();
        if code.is_empty() || code.starts_with(['#', ';']) || disasm::is_label_line(line) {
            return None;
        }
        Some((i + 1, mnemonic(line)))
    })
}

/// A line's mnemonic and what it names: its first word that is one, before any comment
/// or quoted name (an offset or hex column before it is no mnemonic). Not for a label
/// line, whose function name (`00000000 <do extended_copy>:`) names nothing: the
/// callers have left those out.
fn mnemonic(line: &str) -> Option<(&str, Target)> {
    // Its words before any comment or quote (found by `memchr3`, not a walk of the
    // line's hundreds of bytes), up to the first that is a mnemonic: a word that starts
    // with a digit (an offset or hex column) or is longer than any mnemonic (a hex
    // column) is none.
    let code = memchr::memchr3(b'#', b';', b'"', line.as_bytes()).map_or(line, |at| &line[..at]);
    code.split_ascii_whitespace()
        .filter(|w| w.len() <= longest_mnemonic() && !w.starts_with(|c: char| c.is_ascii_digit()))
        .find_map(|w| target(w).map(|t| (w, t)))
}

/// The length of the spec's longest mnemonic.
fn longest_mnemonic() -> usize {
    static LONGEST: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *LONGEST.get_or_init(|| {
        tpb_isa::generated::disasm::MNEMONICS.iter().map(|(m, _)| m.len()).max().unwrap_or(0)
    })
}

impl Checked {
    /// A note when a listing's stream holds other than the records its heading counts:
    /// a `--records` window, or lines added or taken out, which the written stream
    /// then has too.
    fn count_note(&self, name: &str, label: &str, heading: Option<usize>) {
        match heading {
            Some(n) if n != self.records => eprintln!(
                "note: {name}: {label} holds {} where its heading counts {n} (a --records \
                 window, or an edit); written as listed",
                count(self.records, "record"),
            ),
            _ => {}
        }
    }

    /// The notes on a text that assembles: records of an opcode absent on its
    /// generation, an arm no binding selects. `name` names the file, `stream` the
    /// stream of a listing of several.
    fn notes(&self, name: &str, stream: Option<&str>) {
        let of = stream.map_or(String::new(), |s| format!(" of {s}"));
        if let Some((i, op)) = self.first {
            let what = if self.absent == 1 {
                "1 record has".to_owned()
            } else {
                format!("{} records have", self.absent)
            };
            eprintln!(
                "note: {name}: {what} an opcode that does not exist on {} (the first, \
                 record {i}{of} at offset {:#x}, is {}): written as given; tpb validate \
                 reports them",
                self.arch.name(),
                i * RECORD_SIZE,
                records::opcode_name(None, op).unwrap_or("?").to_ascii_lowercase(),
            );
        }
        if let Some((line, word, printed)) = &self.first_renamed {
            let more = match self.renamed {
                1 => String::new(),
                n => format!("; {} do so", count(n, "line")),
            };
            eprintln!(
                "note: {name}:{line}: the record of '{word}' reads back as '{printed}': a field \
                 given sets a byte its mnemonic implies (header.opcode, a sub-opcode){more}"
            );
        }
        if let Some((line, arm)) = &self.unselected {
            eprintln!(
                "note: {name}:{line}: '{arm}' is an arm no binding selects (the spec does not \
                 give the opcode value that selects it): its record has the opcode its \
                 header.opcode gives (0 when not given) and does not read back as '{arm}'"
            );
        }
    }
}

/// Write the records of `text`, which assembles without error, to `output` (`-`:
/// standard output); how many. A file is replaced whole or kept as it was
/// ([`output::write_file`]); a device is written in place.
fn write(output: &Path, arch: Arch, text: &str, hex: bool) -> Result<usize> {
    if output == Path::new("-") {
        let out = BufWriter::with_capacity(64 << 10, io::stdout().lock());
        return write_records(out, arch, text, hex).context("writing standard output");
    }
    output::write_file(output, Special::InPlace, |w| write_records(w, arch, text, hex))
}

/// Assemble `text` into `out`, flushed, as binary or (`hex`) a line of hex digits a
/// record; how many records.
fn write_records(mut out: impl Write, arch: Arch, text: &str, hex: bool) -> io::Result<usize> {
    let mut n = 0;
    for r in disasm::assemble(arch, text).filter_map(Result::ok) {
        if hex {
            out.write_all(&crate::hex_text::record_digits(&r))?;
            out.write_all(b"\n")?;
        } else {
            out.write_all(&r)?;
        }
        n += 1;
    }
    out.flush()?;
    Ok(n)
}

/// `-o -` writes standard output, as `-` reads standard input; an error when that is a
/// terminal, which 64-byte binary records would garble.
fn check_output(output: &Path) -> Result<()> {
    if output == Path::new("-") && io::stdout().is_terminal() {
        bail!("-o -: standard output is a terminal; redirect it or give -o FILE");
    }
    Ok(())
}

/// The text's bytes (under the read limit every input has) and the name its errors
/// give it: standard input for `-`, as every command reads it.
fn read(file: &Path) -> Result<(String, Vec<u8>)> {
    let bytes = crate::input::read_bytes(file)?;
    let name = if file == Path::new("-") {
        crate::input::STDIN.to_owned()
    } else {
        file.display().to_string()
    };
    Ok((name, bytes))
}

/// The errors of one text on standard error, buffered: the first [`SHOWN`] in full,
/// the rest counted.
struct Report<'a> {
    name: &'a str,
    out: BufWriter<StderrLock<'static>>,
    errors: usize,
    /// The errors shown in full.
    shown: usize,
    /// The line the text's lines iterator is at (the next it yields is `line + 1`).
    line: usize,
    /// What the text is, when a hint said it (a NEFF's listing, JSON): then every
    /// other line fails too, for the same reason, and is only counted.
    hinted: Option<&'static str>,
    /// Whether the note on CR line endings was given.
    cr_noted: bool,
    /// Whether the text was read as a NEFF's listing, with its headings.
    listing: bool,
}

impl<'a> Report<'a> {
    fn new(name: &'a str) -> Report<'a> {
        let out = BufWriter::new(io::stderr().lock());
        Report {
            name,
            out,
            errors: 0,
            shown: 0,
            line: 0,
            hinted: None,
            cr_noted: false,
            listing: false,
        }
    }

    /// Count `e`, and show it when it is among the first [`SHOWN`] and no hint has
    /// explained them all. `lines` are the text's, walked once: the errors come in line
    /// order.
    fn error(&mut self, e: &AsmError, lines: &mut Lines<'_>) -> io::Result<()> {
        self.errors += 1;
        if self.shown >= SHOWN || self.hinted.is_some() {
            return Ok(());
        }
        self.shown += 1;
        let skip = e.line.saturating_sub(self.line + 1);
        let source = lines.nth(skip).unwrap_or("");
        self.line = e.line;
        writeln!(self.out, "{}:{e}", self.name)?;
        self.echo(source, e.col)?;
        self.explain(e, source)
    }

    /// What the error's message cannot know: a NEFF's listing, CR line endings, an
    /// escape the text form does not use.
    fn explain(&mut self, e: &AsmError, source: &str) -> io::Result<()> {
        if self.hinted.is_none() && matches!(e.kind, AsmErrorKind::UnknownMnemonic { .. }) {
            if let Some(what) = crate::listing::stray_row(source).filter(|_| !self.listing) {
                self.hinted = Some("a NEFF's listing");
                writeln!(self.out, "{}", neff_hint(what))?;
            } else if e.line == 1 && json_start(source) {
                self.hinted = Some("JSON");
                writeln!(
                    self.out,
                    "hint: this looks like JSON (`tpb disasm --json`), which tpb asm does not \
                     read; it reads the text listing (`tpb disasm --no-hex FILE > FILE.txt`)"
                )?;
            }
        }
        if !self.cr_noted && source.contains('\r') {
            self.cr_noted = true;
            writeln!(
                self.out,
                "note: the text has CR (\\r) line endings, which tpb asm does not take for line \
                 ends: it reads LF or CRLF (convert with `tr '\\r' '\\n'`)"
            )?;
        }
        if let AsmErrorKind::BadValue { expected, .. } = e.kind {
            if let Some(c) =
                expected.contains("quoted").then(|| bad_escape(source, e.col)).flatten()
            {
                writeln!(
                    self.out,
                    "note: '\\{}' is not an escape of the text form: a quoted name takes \\\", \
                     \\\\ and \\xNN (as tpb disasm prints it){}",
                    shown(c),
                    instead(c)
                )?;
            }
        }
        Ok(())
    }

    /// The source line and a caret under column `col` (from 1, in characters).
    fn echo(&mut self, source: &str, col: usize) -> io::Result<()> {
        let (shown, caret) = echo(source, col);
        writeln!(self.out, "  | {shown}")?;
        writeln!(self.out, "  | {}^", " ".repeat(caret))
    }

    /// The place of the first byte of `bytes` that is not UTF-8 (at `at`). Only a
    /// window of its line is copied (8 × [`WIDTH`] bytes each side: more characters than
    /// the echo shows, so that [`echo`] marks the cut).
    fn not_utf8(&mut self, bytes: &[u8], at: usize) -> io::Result<()> {
        let start = bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let end = bytes[at..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| at + i);
        let line = 1 + bytes[..start].iter().filter(|&&b| b == b'\n').count();
        // The bytes before `at` are UTF-8: the first error is at `at`.
        let before = std::str::from_utf8(&bytes[start..at]).unwrap_or_default();
        let col = 1 + before.chars().count();
        let name = self.name;
        writeln!(self.out, "{name}:{line}:{col}: the text is not UTF-8 (byte {:#04X})", bytes[at])?;
        let mut lo = start.max(at.saturating_sub(8 * WIDTH));
        while !before.is_char_boundary(lo - start) {
            lo += 1;
        }
        let hi = end.min(at + 8 * WIDTH);
        let window = String::from_utf8_lossy(&bytes[lo..hi]);
        let window = if hi == end { window.strip_suffix('\r').unwrap_or(&window) } else { &window };
        let col_in = 1 + before[lo - start..].chars().count();
        let (mut shown, mut caret) = echo(window, col_in);
        if lo > start && !shown.starts_with('…') {
            shown.insert(0, '…');
            caret += 1;
        }
        if hi < end && !shown.ends_with('…') {
            shown.push('…');
        }
        writeln!(self.out, "  | {shown}")?;
        writeln!(self.out, "  | {}^", " ".repeat(caret))?;
        writeln!(self.out, "error: {name} is not UTF-8 text; nothing was written")?;
        self.out.flush()
    }

    /// How many lines failed, and that nothing was written.
    fn summary(&mut self) -> io::Result<()> {
        let (n, shown) = (self.errors, self.shown);
        let shown = match (n > shown, self.hinted) {
            (true, Some(what)) => format!(" (the first {shown} shown: the text is {what})"),
            (true, None) => format!(" (the first {shown} shown)"),
            _ => String::new(),
        };
        writeln!(
            self.out,
            "error: {n} line(s) could not be assembled{shown}; nothing was written"
        )?;
        self.out.flush()
    }
}

/// The character after the first backslash of the quoted string at column `col` of
/// `line` that is not one of the text form's escapes (`\"`, `\\`, `\xNN`).
fn bad_escape(line: &str, col: usize) -> Option<char> {
    let at = line.char_indices().nth(col.saturating_sub(1))?.0;
    let mut chars = line[at..].strip_prefix('"')?.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => match chars.next()? {
                '"' | '\\' | 'x' => {}
                other => return Some(other),
            },
            _ => {}
        }
    }
    None
}

/// What to write for the C escape `\c`: its `\xNN`, when it is one (`\n`: `\x0a`).
fn instead(c: char) -> String {
    let byte = match c {
        'n' => 0x0a,
        't' => 0x09,
        'r' => 0x0d,
        '0' => 0x00,
        'a' => 0x07,
        'b' => 0x08,
        'f' => 0x0c,
        'v' => 0x0b,
        'e' => 0x1b,
        _ => return String::new(),
    };
    format!("; for \\{c} write \\x{byte:02x}")
}

/// `line` as echoed under an error, and the columns before column `col`'s character
/// there: each character as one column ([`shown`]), so that the caret lines up, and a
/// line wider than [`WIDTH`] cut to a window around `col`, with `…` where it is cut.
/// Only the window is copied: a line of a gigabyte costs its walk, not four copies.
fn echo(line: &str, col: usize) -> (String, usize) {
    let at = line.char_indices().nth(col.saturating_sub(1)).map_or(line.len(), |(i, _)| i);
    let (lo, hi) = window(line, at);
    let mut text = String::new();
    if lo > 0 {
        text.push('…');
    }
    text.extend(line[lo..hi].chars().map(shown));
    if hi < line.len() {
        text.push('…');
    }
    let caret = usize::from(lo > 0) + line[lo..at].chars().map(width).sum::<usize>();
    (text, caret)
}

/// The bytes `lo..hi` of `line` shown around byte `at`: up to half of [`WIDTH`] columns
/// before it, then as many after it as fit, then any room left before it.
fn window(line: &str, at: usize) -> (usize, usize) {
    let (mut lo, mut hi, mut used) = (at, at, 0);
    let grow_left = |lo: &mut usize, used: &mut usize, room: usize| {
        for c in line[..*lo].chars().rev() {
            if *used + width(c) > room {
                break;
            }
            *lo -= c.len_utf8();
            *used += width(c);
        }
    };
    grow_left(&mut lo, &mut used, WIDTH / 2);
    for c in line[at..].chars() {
        if used + width(c) > WIDTH {
            break;
        }
        used += width(c);
        hi += c.len_utf8();
    }
    grow_left(&mut lo, &mut used, WIDTH);
    (lo, hi)
}

/// A character as echoed: a tab as a space (a tab's width depends on the terminal,
/// the caret's would not), another control character or an invisible formatting one as
/// its escape (`\0`, `\x01`, `\u{85}`, `\u{202e}`), so that it is seen.
fn shown(c: char) -> String {
    match c {
        '\t' => " ".to_owned(),
        '\0' => "\\0".to_owned(),
        c if c.is_control() && c.is_ascii() => format!("\\x{:02x}", c as u32),
        // A right-to-left override would reverse the rest of the echo on a terminal.
        c if c.is_control() || disasm::is_invisible_format(c) => c.escape_unicode().to_string(),
        c => c.to_string(),
    }
}

/// The columns [`shown`] takes for `c`.
fn width(c: char) -> usize {
    shown(c).chars().count()
}

/// Whether `line`, a text's first, opens a JSON object or array (`tpb disasm --json`).
fn json_start(line: &str) -> bool {
    let t = line.trim();
    t == "{" || t == "[" || t.starts_with("{\"") || t.starts_with("[{")
}

/// The hint for a text that is a NEFF's listing (`what` shows it): how to get the
/// listing of one stream, which assembles. A NEFF's listing keeps its headings and
/// index columns with `--subgraph` and `--engine` too; a raw stream's does not.
fn neff_hint(what: &str) -> String {
    format!(
        "hint: this looks like rows of a NEFF's listing ({what}) without the heading of \
         their stream, which tpb asm reads: list one stream whole (`tpb disasm FILE.neff \
         --subgraph sg00 --engine pe > pe.txt`), or write the streams with `tpb extract \
         FILE.neff -o DIR` and list one (`tpb disasm DIR/sg00/PE.bin > pe.txt`)"
    )
}
