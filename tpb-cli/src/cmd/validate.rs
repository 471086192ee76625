//! `tpb validate`: the generation's validator on every record, one line per finding.
//!
//! A raw stream is taken for an assembled engine image: it must hold EXIT and end in a
//! valid final record. The final-record check runs the record rules (the spec knows no
//! per-engine terminator rule), so a final record that fails them is one finding, its
//! record's, not two. A NEFF stream is pre-relocation: the runtime rewrites its
//! pseudo-ops and appends the postamble and EXIT at load, so pseudo records are legal
//! (their fields are still validated, as every record's are) and the EXIT and
//! final-record checks do not apply.
//!
//! The checks fill a [`Report`], which is printed as text or, with `--json`, written as
//! one JSON object (format `tpb-validate`, version 1): both forms say the same things.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use tpb_isa::{Arch, FinalCheckError};

use crate::input::{self, Filter, Input, Unit, ENGINES};
use crate::records::{self, parse_arch, RECORD_SIZE};
use crate::text::count;

#[derive(clap::Args)]
pub struct Args {
    /// Raw record streams, NEFF files, unpacked NEFF directories, or `-`, in any mix:
    /// each is reported in turn, and the exit status is 1 when any has a finding.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    format: input::Format,
    /// The generation (name, label or alias: cayman, V3, trn2); a NEFF's own target by
    /// default, cayman for a raw stream or a NEFF that names none (with a warning).
    #[arg(long)]
    arch: Option<String>,
    /// The engine whose program a raw stream is, named in the report (PE by default; the
    /// final-record check takes it as the runtime's does, but the spec knows no
    /// per-engine rule, so every engine's final record meets the record rules); for a
    /// NEFF, only that engine's streams.
    #[arg(long)]
    engine: Option<String>,
    /// Only this subgraph of a NEFF (`sg00`), as `tpb disasm` and `tpb extract` pick one.
    #[arg(long)]
    subgraph: Option<String>,
    /// Take a raw stream as a NEFF's engine stream before relocation (what `tpb extract`
    /// writes), not an assembled image: pseudo records are legal (their fields are
    /// validated as every record's are), and the EXIT and final-record checks are
    /// skipped, as for a NEFF's own streams.
    #[arg(long)]
    pre_relocation: bool,
    /// Write one JSON object instead of text (format `tpb-validate`, version 1), of one
    /// input; the exit status is the same. `{"format", "version", "input", "kind" ("raw" or "neff"),
    /// "pre_relocation" (true for a NEFF, and for a raw stream with `--pre-relocation`:
    /// pseudo records are legal, their fields validated as every record's are, and the
    /// EXIT and final-record checks are skipped), "hash" (a NEFF file's header hash: "match", "match_word_swapped" or
    /// "mismatch", which is said and is no finding; null otherwise), "streams", "absent" (the labels of the
    /// streams a NEFF's graphs name but it lacks), "totals": {"streams", "records",
    /// "findings", "absent"}}`. A stream is `{"label", "subgraph", "engine", "path",
    /// "arch", "records", "pseudo" (how many of the records are pseudo records; null for
    /// a raw stream), "findings", "exit_scan" (null when skipped, else `{"found"}`),
    /// "final_record_check" (null when skipped, else `{"record", "offset", "passed",
    /// "kind", "message", "same_as_record_finding"}`)}`; a finding is `{"check"
    /// ("record", "trailing_partial", "exit" or "final_record"), "record", "offset",
    /// "kind", "message"}`, `kind` one of `opcode_not_valid`, `not_on_arch`, `bad_enum`,
    /// `trailing_partial`, `no_exit`, `empty` (`record` and `offset` null where there is
    /// no record).
    #[arg(long)]
    json: bool,
}

impl Args {
    pub fn run(self, out: &mut dyn Write) -> Result<bool> {
        let arch = self.arch.as_deref().map(parse_arch).transpose()?;
        let [file] = &self.files[..] else { return self.several(out, arch) };
        let report = self.report(file, arch)?;
        if self.json {
            serde_json::to_writer_pretty(&mut *out, &report)?;
            writeln!(out)?;
        } else {
            report.write(out)?;
        }
        Ok(report.totals.findings == 0)
    }

    /// Several inputs, as objdump takes several files: each one's report in turn, a blank
    /// line between them, then their totals. An input that cannot be read is said and
    /// the rest are validated; the run then exits 2, as any error does.
    fn several(&self, out: &mut dyn Write, arch: Option<Arch>) -> Result<bool> {
        if self.json {
            bail!(
                "--json writes one input's report; give one input (a shell loop writes one \
                 document each)"
            );
        }
        let mut totals = Totals::default();
        let failed = input::each_input(&self.files, out, |file, text| {
            let report = self.report(file, arch)?;
            report.write(text)?;
            let t = &report.totals;
            totals.streams += t.streams;
            totals.records += t.records;
            totals.findings += t.findings;
            totals.absent += t.absent;
            Ok(())
        })?;
        writeln!(
            out,
            "\n{} validated: {} in {}, {} finding(s){}",
            count(self.files.len() - failed, "input"),
            count(totals.records, "record"),
            count(totals.streams, "stream"),
            totals.findings,
            match failed {
                0 => String::new(),
                n => format!("; {} could not be read", count(n, "input")),
            }
        )?;
        if failed > 0 {
            return Err(crate::Reported.into());
        }
        Ok(totals.findings == 0)
    }

    /// The checks of one input.
    fn report(&self, file: &std::path::Path, arch: Option<Arch>) -> Result<Report> {
        let input = input::load(file, self.format)?;
        let report = match &input {
            Input::Raw { name, .. } => {
                // Ignored, it would look as if the subgraph had been found and validated.
                if self.subgraph.is_some() {
                    bail!(
                        "{name} is a raw record stream, without subgraphs: --subgraph applies \
                         to NEFFs only"
                    );
                }
                let units = input.units();
                let engine = self.engine.as_deref().unwrap_or("PE");
                let engine = records::engine(engine).with_context(|| {
                    format!("unknown engine '{engine}' (expected one of {ENGINES})")
                })?;
                let arch = arch.unwrap_or(records::DEFAULT_ARCH);
                let stream = if self.pre_relocation {
                    let mut s = pre_relocation(&units[0], arch);
                    s.engine = self.engine.is_some().then(|| engine.name()).flatten();
                    s
                } else {
                    raw(&units[0], arch, engine)
                };
                Report {
                    format: "tpb-validate",
                    version: 1,
                    input: name.clone(),
                    kind: "raw",
                    pre_relocation: self.pre_relocation,
                    hash: None,
                    streams: vec![stream],
                    absent: Vec::new(),
                    absent_text: Vec::new(),
                    totals: Totals::default(),
                }
            }
            Input::Neff { name, neff } => {
                // An engine with no stream is an error, as for every command: "0 records,
                // 0 findings" would pass a check that looked at nothing.
                let filter = Filter::new(self.subgraph.clone(), self.engine.as_deref())?;
                let mut units: Vec<Unit<'_>> = filter.select(&input)?;
                input::set_arch(&input, &mut units, arch);
                Report {
                    format: "tpb-validate",
                    version: 1,
                    input: name.clone(),
                    kind: "neff",
                    pre_relocation: true,
                    hash: neff.hash().as_ref().map(input::hash_word),
                    streams: units
                        .iter()
                        .map(|u| pre_relocation(u, u.arch.unwrap_or(records::DEFAULT_ARCH)))
                        .collect(),
                    absent: filter.absent_unescaped(&input),
                    absent_text: filter.absent(&input),
                    totals: Totals::default(),
                }
            }
        }
        .totalled();
        Ok(report)
    }
}

/// What `tpb validate` found in one input: the document of `--json`, and what the text
/// is printed from.
#[derive(Serialize)]
struct Report {
    format: &'static str,
    version: u32,
    /// The input as given.
    input: String,
    /// `raw` or `neff`.
    kind: &'static str,
    /// NEFF streams are pre-relocation: pseudo records are legal (their fields are
    /// validated), and the EXIT and final-record checks are skipped.
    pre_relocation: bool,
    /// A NEFF file's header hash against its payload (`match`, `match_word_swapped`,
    /// `mismatch`: said, never a finding); null for a raw stream or an unpacked folder.
    hash: Option<&'static str>,
    streams: Vec<Stream>,
    /// NEFF streams a graph names but no member holds (`sg00/PE`, as the file has it).
    absent: Vec<String>,
    /// The same labels as the text prints them (escaped).
    #[serde(skip)]
    absent_text: Vec<String>,
    totals: Totals,
}

#[derive(Default, Serialize)]
struct Totals {
    streams: usize,
    records: usize,
    findings: usize,
    absent: usize,
}

/// One stream's checks.
#[derive(Serialize)]
struct Stream {
    /// `sg00/PE` (as the file has it) for a NEFF stream, the input's name for a raw one.
    label: String,
    /// The label as the text prints it (escaped); not in the JSON, which escapes itself.
    #[serde(skip)]
    text_label: String,
    subgraph: Option<String>,
    /// The stream's engine (a NEFF's), or the one a raw stream's final record is
    /// checked for.
    engine: Option<&'static str>,
    path: Option<String>,
    arch: &'static str,
    records: usize,
    /// Pseudo records, legal in a NEFF stream (and validated as the others are); `None`
    /// for a raw one.
    pseudo: Option<usize>,
    findings: Vec<Finding>,
    /// Whether EXIT was found; `None` where the scan does not apply (a NEFF stream).
    exit_scan: Option<ExitScan>,
    /// `None` where the check does not apply (a NEFF stream).
    final_record_check: Option<FinalRecord>,
}

#[derive(Serialize)]
struct ExitScan {
    found: bool,
}

/// One finding: what check made it, where, its kind as a stable name, and its message.
#[derive(Serialize)]
struct Finding {
    /// `record`, `trailing_partial`, `exit` or `final_record`.
    check: &'static str,
    record: Option<usize>,
    offset: Option<usize>,
    kind: &'static str,
    message: String,
}

/// The final-record check of a raw image.
#[derive(Serialize)]
struct FinalRecord {
    /// The last whole record's index, `None` when there is none.
    record: Option<usize>,
    offset: Option<usize>,
    passed: bool,
    kind: Option<&'static str>,
    message: Option<String>,
    /// The failure is the last record's own finding, counted once (as a `record`
    /// finding, not again as a `final_record` one).
    same_as_record_finding: bool,
}

impl Finding {
    /// A record's own finding.
    fn record(index: usize, offset: usize, e: &tpb_isa::ValidateError) -> Finding {
        Finding {
            check: "record",
            record: Some(index),
            offset: Some(offset),
            kind: records::validate_kind(e),
            message: e.to_string(),
        }
    }

    /// A stream that ends in part of a record.
    fn partial(p: &records::Partial) -> Finding {
        Finding {
            check: "trailing_partial",
            record: None,
            offset: Some(p.offset),
            kind: "trailing_partial",
            message: p.to_string(),
        }
    }
}

const NO_EXIT: &str = "no EXIT record (PSEUDO_INST 0xdf with pseudo_opcode 1)";

/// An assembled image: every record, the trailing partial record, EXIT, the final record.
fn raw(unit: &Unit<'_>, arch: Arch, engine: tpb_isa::TpbEngType) -> Stream {
    let (recs, partial) = records::split(unit.bytes);
    let mut findings = Vec::new();
    let mut n: usize = 0;
    // The last record's finding, which the final-record check would repeat.
    let mut last = None;
    for (i, (off, r)) in recs.enumerate() {
        n += 1;
        last = records::validate(arch, r).err();
        if let Some(e) = last {
            findings.push(Finding::record(i, off, &e));
        }
    }
    if let Some(p) = partial {
        findings.push(Finding::partial(&p));
    }
    let found = records::has_exit(unit.bytes);
    if !found {
        findings.push(Finding {
            check: "exit",
            record: None,
            offset: None,
            kind: "no_exit",
            message: NO_EXIT.to_owned(),
        });
    }
    // The trailing partial record is a finding above; the final-record check looks at
    // the last whole record, rather than report it again.
    let whole = &unit.bytes[..partial.map_or(unit.bytes.len(), |p| p.offset)];
    let check = records::final_check(arch, engine, whole);
    let repeated =
        matches!(check, Err(FinalCheckError::Invalid { error, .. }) if Some(error) == last);
    let index = n.checked_sub(1);
    let offset = index.map(|i| i * RECORD_SIZE);
    if let (Err(e), false) = (check, repeated) {
        findings.push(Finding {
            check: "final_record",
            record: index,
            offset,
            kind: records::final_check_kind(&e),
            message: e.to_string(),
        });
    }
    Stream {
        label: unit.json_label(),
        text_label: unit.label.clone(),
        subgraph: None,
        engine: engine.name(),
        path: None,
        arch: arch.name(),
        records: n,
        pseudo: None,
        findings,
        exit_scan: Some(ExitScan { found }),
        final_record_check: Some(FinalRecord {
            record: index,
            offset,
            passed: check.is_ok(),
            kind: check.err().map(|e| records::final_check_kind(&e)),
            message: check.err().map(|e| e.to_string()),
            same_as_record_finding: repeated,
        }),
    }
}

/// A NEFF stream, or a raw one taken as such (`--pre-relocation`), read on `arch`:
/// every record (a pseudo record too: its opcode is legal before relocation, and its
/// fields are the spec's to check), and a trailing partial record.
fn pre_relocation(u: &Unit<'_>, arch: Arch) -> Stream {
    let (recs, partial) = records::split(u.bytes);
    let (mut n, mut pseudo, mut findings) = (0, 0, Vec::new());
    for (i, (off, r)) in recs.enumerate() {
        n += 1;
        pseudo += usize::from(records::is_pseudo(r[0]));
        if let Err(e) = records::validate(arch, r) {
            findings.push(Finding::record(i, off, &e));
        }
    }
    if let Some(p) = partial {
        findings.push(Finding::partial(&p));
    }
    Stream {
        label: u.json_label(),
        text_label: u.label.clone(),
        subgraph: u.subgraph.map(str::to_owned),
        engine: u.engine.map(|e| e.name()),
        path: u.path.map(str::to_owned),
        arch: arch.name(),
        records: n,
        pseudo: Some(pseudo),
        findings,
        exit_scan: None,
        final_record_check: None,
    }
}

impl Report {
    fn totalled(mut self) -> Report {
        self.totals = Totals {
            streams: self.streams.len(),
            records: self.streams.iter().map(|s| s.records).sum(),
            findings: self.streams.iter().map(|s| s.findings.len()).sum(),
            absent: self.absent.len(),
        };
        self
    }

    /// The text form: each finding on a line of its own that starts with the stream's
    /// label, as a compiler's do, so that it reads alone (in a log, through grep); a
    /// stream the NEFF names but does not hold is said to be unread, not a finding.
    fn write(&self, out: &mut dyn Write) -> Result<()> {
        let name = &self.input;
        if self.pre_relocation {
            let what = if self.kind == "neff" {
                "NEFF streams are pre-relocation"
            } else {
                "taken as a NEFF stream before relocation (--pre-relocation)"
            };
            writeln!(
                out,
                "{name}: {what}: pseudo opcodes (0xc1..=0xdf) are legal (their fields are \
                 validated), and no EXIT is expected, so the EXIT and final-record checks \
                 are skipped"
            )?;
        }
        for s in &self.streams {
            let label = &s.text_label;
            for f in &s.findings {
                match (f.check, f.record, f.offset) {
                    // A NEFF's labels (`sg00/PE`) are not file names: no colon after them.
                    ("record", Some(i), Some(off)) if self.kind == "neff" => {
                        writeln!(out, "{label} record {i} (offset {off:#x}): {}", f.message)?
                    }
                    ("record", Some(i), Some(off)) => {
                        writeln!(out, "{label}: record {i} (offset {off:#x}): {}", f.message)?
                    }
                    ("final_record", index, _) => {
                        let index = index.map(|i| format!(": record {i}")).unwrap_or_default();
                        writeln!(
                            out,
                            "{label}{index}: final-record check ({}, {}): {}",
                            s.arch,
                            s.engine.unwrap_or("?"),
                            f.message
                        )?
                    }
                    _ => writeln!(out, "{label}: {}", f.message)?,
                }
            }
            let recs = count(s.records, "record");
            let found = s.findings.len();
            match s.pseudo {
                Some(p) => {
                    writeln!(out, "{label}: {recs} ({p} pseudo), {found} finding(s) on {}", s.arch)?
                }
                None => writeln!(out, "{label}: {recs}, {found} finding(s) on {}", s.arch)?,
            }
        }
        if self.kind == "neff" {
            for label in &self.absent_text {
                writeln!(out, "{label}{}: not validated", crate::listing::ABSENT)?;
            }
            let t = &self.totals;
            let (total, streams) = (count(t.records, "record"), count(t.streams, "stream"));
            let absent = match t.absent {
                0 => String::new(),
                n => format!(" ({n} more absent)"),
            };
            writeln!(out, "{name}: {total} in {streams}{absent}, {} finding(s)", t.findings)?;
        }
        Ok(())
    }
}
