//! `tpb stats`: opcode histograms per generation and engine over NEFFs and raw streams
//! mixed, the NEFF members that are not streams, and coverage against the spec both ways
//! (bindings never seen, records it cannot explain, reserved bytes and inferred fields in use).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;
use tpb_isa::disasm::desc::{ArmText, FieldDesc, Role};
use tpb_isa::inst::{binding_on, dispatch_on, Binding, BINDINGS};
use tpb_isa::Confidence;
use tpb_isa::{Arch, ArmKind, RECORD_SIZE};
use tpb_neff::Engine;

use crate::input::{self, Filter, Input, Others, Unit};
use crate::records;
use crate::row;
use crate::table::table;
use crate::text::count;

#[derive(clap::Args)]
pub struct Args {
    /// NEFF files, unpacked NEFF directories and raw record streams, in any mix. One that
    /// cannot be read is said and the rest counted (exit 2); with `--json`, it fails the run.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    format: input::Format,
    /// The generation every input is read in (a name, label or alias): opcode names,
    /// layouts and coverage. A NEFF's own target by default, cayman for a raw stream.
    #[arg(long)]
    arch: Option<String>,
    /// Write one JSON object instead of text (format `tpb-stats`, version 1):
    /// `{"format", "version", "files", "records", "streams_from_neffs", "streams",
    /// "histograms", "non_stream_members", "absent", "bindings_never_used", "unexplained", "opaque",
    /// "reserved_nonzero", "inferred_exercised"}`. `streams`: every stream read,
    /// `{"file", "label", "subgraph", "engine", "arch", "records", "trailing_partial"}`
    /// (`trailing_partial` null or `{"offset", "len", "message"}`); a histogram is
    /// `{"arch", "source" ("raw" or "neff"), "engine" (null for raw streams), "records",
    /// "opcodes": [{"opcode", "name", "records", "arms": [{"mnemonic", "arm", "sub",
    /// "records"}]}]}`
    /// (opcode an integer, `name` null where the spec names none, an arm entry with null
    /// `mnemonic` and `arm` counting the records no binding selects, `sub` null or the
    /// binding's sub-opcode `{"offset", "value"}`);
    /// `non_stream_members` per NEFF `{"neff", "members", "bytes", "bins": [{"path",
    /// "bytes"}]}`; `absent` the streams a NEFF's graphs name but it lacks, `[{"neff",
    /// "label"}]`; `bindings_never_used` `{"archs", "bindings": [{"opcode", "sub",
    /// "mnemonic", "arm"}]}` (`sub` null or `{"offset", "value"}`); `unexplained`
    /// `[{"opcode", "name", "sub_opcode", "records"}]` (`sub_opcode` null for an unknown
    /// opcode, else `{"offset", "value"}`); `opaque` `[{"opcode", "name", "records"}]`;
    /// `reserved_nonzero` `[{"arm", "offset", "records"}]`; `inferred_exercised`
    /// `[{"arm", "field", "records"}]`.
    #[arg(long)]
    json: bool,
}

/// The sub-opcode a binding reads, as the text shows it (` (byte 12 == 1)`); empty for
/// a binding of a plain opcode.
fn sub_text(b: &Binding) -> String {
    b.sub.map(|x| format!(" (byte {} == {})", x.offset, x.value)).unwrap_or_default()
}

/// What a NEFF holds besides the streams read: its other members, and the streams its
/// graphs name that no member holds (labels as the file has them, and escaped for text).
struct NeffExtra {
    name: String,
    others: Others,
    absent: Vec<String>,
    absent_text: Vec<String>,
}

/// Whose histogram a stream counts in: raw streams together (with the name of the
/// generation they are decoded in), NEFF streams by generation and engine.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Raw(&'static str),
    Neff(&'static str, Engine),
}

#[derive(Default)]
struct Stats {
    records: usize,
    streams_from_neffs: usize,
    /// Records by opcode byte, per group.
    opcodes: BTreeMap<Group, Box<[usize; 256]>>,
    /// Records by the binding that selects them (index into `BINDINGS`), per group.
    by_binding: BTreeMap<Group, Vec<usize>>,
    arch_of: BTreeMap<Group, Arch>,
    /// Indices into `BINDINGS` by opcode byte (a record is matched against its own).
    bindings_of: Vec<Vec<usize>>,
    unknown: BTreeMap<(u8, Option<u8>), usize>,
    /// Records of an opcode the spec names but gives no layout for, by opcode.
    opaque: BTreeMap<u8, usize>,
    reserved: BTreeMap<(&'static str, usize), usize>,
    inferred: BTreeMap<(&'static str, &'static str), usize>,
    partial: Vec<String>,
    /// Every stream read, in order, for the JSON.
    streams: Vec<StreamJson>,
}

impl Args {
    pub fn run(self, out: &mut dyn Write) -> Result<bool> {
        let mut bindings_of = vec![Vec::new(); 256];
        for (i, b) in BINDINGS.iter().enumerate() {
            bindings_of[b.opcode as usize].push(i);
        }
        let mut s = Stats { bindings_of, ..Stats::default() };
        let arch = self.arch.as_deref().map(records::parse_arch).transpose()?;
        input::refuse_stdin_twice(&self.files)?;
        let mut others = Vec::new();
        let (mut read, mut failed) = (0, 0);
        for file in &self.files {
            let input = match input::load(file, self.format) {
                Ok(input) => input,
                // The JSON is one document of every input: a script would take one
                // without an input for the whole.
                Err(e) if self.json => return Err(e),
                // The text counts the rest and says how many could not be read, as
                // `tpb validate` totals them; the run then exits 2.
                Err(e) => {
                    failed += 1;
                    eprintln!("error: {e:#}");
                    continue;
                }
            };
            read += 1;
            let mut units = input.units();
            input::set_arch(&input, &mut units, arch);
            // A NEFF's stream labels (`sg00/PE`) repeat across NEFFs: say whose.
            let of = matches!(input, Input::Neff { .. }).then(|| input.name());
            for unit in &units {
                s.add(unit, of);
            }
            if let Input::Neff { name, neff } = &input {
                let f = Filter::default();
                others.push(NeffExtra {
                    name: name.clone(),
                    others: Others::of(neff),
                    absent: f.absent_unescaped(&input),
                    absent_text: f.absent(&input),
                });
            }
        }
        // Nothing read: no report of nothing, only the errors said.
        if read == 0 && failed > 0 {
            return Err(crate::Reported.into());
        }
        // On standard error, as every command says a stream's trailing partial record
        // (the JSON has it too): the report on standard output stays the counts.
        for p in &s.partial {
            eprintln!("warning: {p}");
        }
        if self.json {
            let doc = s.json(self.files.len(), &others);
            serde_json::to_writer_pretty(&mut *out, &doc)?;
            writeln!(out)?;
        } else {
            s.write(out, read, failed, &others)?;
        }
        if failed > 0 {
            return Err(crate::Reported.into());
        }
        Ok(true)
    }
}

impl Stats {
    /// Count `unit`'s records; `neff` is the name of the NEFF it is a stream of.
    fn add(&mut self, unit: &Unit<'_>, neff: Option<&str>) {
        // Opcodes that sub-dispatch: an unknown record there is an unknown sub-opcode.
        let sub_at = sub_offset;
        let group = match unit.engine {
            Some(e) => {
                self.streams_from_neffs += 1;
                Group::Neff(unit.arch.map_or("?", Arch::name), e)
            }
            None => Group::Raw(unit.arch.unwrap_or(records::DEFAULT_ARCH).name()),
        };
        // The generation the records are read in: a raw stream without `--arch` is read
        // as cayman, and counted as cayman's, as it is with `--arch cayman`.
        let arch = unit.arch.unwrap_or(records::DEFAULT_ARCH);
        self.arch_of.insert(group, arch);
        let (recs, partial) = records::split(unit.bytes);
        if let Some(p) = partial {
            let of = neff.map(|n| format!("{n}: ")).unwrap_or_default();
            self.partial.push(format!("{of}{}: {p}", unit.label));
        }
        let mut arms = ArmCounts::default();
        let histogram = self.opcodes.entry(group).or_insert_with(|| Box::new([0; 256]));
        let by_binding = self.by_binding.entry(group).or_insert_with(|| vec![0; BINDINGS.len()]);
        let mut n = 0;
        for (_, r) in recs {
            n += 1;
            histogram[usize::from(r[0])] += 1;
            for &i in &self.bindings_of[usize::from(r[0])] {
                if BINDINGS[i].matches(r) && binding_on(arch, r) {
                    by_binding[i] += 1;
                }
            }
            match dispatch_on(arch, r) {
                Some(kind) => arms.count(kind, arch, r),
                None if records::opcode_name(Some(arch), r[0]).is_some()
                    && sub_at(r[0]).is_none() =>
                {
                    *self.opaque.entry(r[0]).or_default() += 1;
                }
                None => *self.unknown.entry((r[0], sub_at(r[0]).map(|o| r[o]))).or_default() += 1,
            }
        }
        arms.merge_into(&mut self.reserved, &mut self.inferred);
        self.records += n;
        self.streams.push(StreamJson {
            file: neff.map_or_else(|| unit.label.clone(), str::to_owned),
            label: unit.json_label(),
            subgraph: unit.subgraph.map(str::to_owned),
            engine: unit.engine.map(|e| e.name()),
            arch: arch.name(),
            records: n,
            trailing_partial: partial.map(|p| PartialJson {
                offset: p.offset,
                len: p.len,
                message: p.to_string(),
            }),
        });
    }

    fn write(
        &self,
        out: &mut dyn Write,
        files: usize,
        failed: usize,
        others: &[NeffExtra],
    ) -> Result<()> {
        write!(out, "{} in {}", count(self.records, "record"), count(files, "file"))?;
        if self.streams_from_neffs > 0 {
            write!(out, ", {} from NEFFs", count(self.streams_from_neffs, "stream"))?;
        }
        if failed > 0 {
            write!(out, "; {} could not be read", count(failed, "input"))?;
        }
        writeln!(out)?;
        if self.records == 0 {
            writeln!(out, "\nno records: every stream given is empty, so no histogram")?;
        }
        for (group, histogram) in self.opcodes.iter().filter(|(_, h)| h.iter().any(|&n| n > 0)) {
            match group {
                Group::Raw(arch) => writeln!(out, "\nopcode histogram, {arch} (raw streams):")?,
                Group::Neff(arch, engine) => writeln!(out, "\nopcode histogram, {arch} {engine}:")?,
            }
            let arch = self.arch_of.get(group).copied();
            let by_binding = &self.by_binding[group];
            let mut rows = vec![row!["opcode", "name", "records"]];
            for (op, &n) in (0..=u8::MAX).zip(histogram.iter()).filter(|(_, &n)| n > 0) {
                rows.push(row![
                    format!("{op:#04x}"),
                    records::opcode_name(arch, op).unwrap_or("?"),
                    n
                ]);
                // An opcode that sub-dispatches (PSEUDO_INST, EXTENDED_INST): its records
                // by sub-opcode, each with the mnemonic its records list under, once a
                // binding of a sub-opcode selects some (the rest are unexplained, below).
                let arms = self.by_binding_of(by_binding, op, n);
                if !arms.iter().any(|&(i, _)| i.is_some_and(|i| BINDINGS[i].sub.is_some())) {
                    continue;
                }
                for (i, records) in arms {
                    let name = match i.map(|i| &BINDINGS[i]) {
                        Some(b) => format!("  {}{}", b.mnemonic, sub_text(b)),
                        None => "  (no binding selects)".to_owned(),
                    };
                    rows.push(row!["", name, records]);
                }
            }
            table(out, &rows)?;
        }
        for n in others {
            write_others(out, &n.name, &n.others)?;
            // A stream a graph names but no member holds is said, as the other commands
            // say it, not left out of the counts without a word.
            for label in &n.absent_text {
                writeln!(out, "{}: {label}{}", n.name, crate::listing::ABSENT)?;
            }
        }
        let (archs, never) = self.never_used();
        let names: Vec<&str> = archs.iter().map(|a| a.name()).collect();
        let of =
            if names.is_empty() { String::new() } else { format!(" (of {})", names.join(", ")) };
        if self.records == 0 {
            // Every binding, said once: a list of them all would be the spec's, not
            // the input's.
            writeln!(out, "\nbindings never used{of}: all {} (no records)", never.len())?;
        } else {
            writeln!(out, "\nbindings never used{of}:")?;
            for b in &never {
                // The mnemonic the listing prints: an arm's name alone would not tell
                // apart the opcodes that share its layout (eight share S3D3_TS).
                let sub = sub_text(b);
                writeln!(out, "  {:#04x}{sub} {} ({})", b.opcode, b.mnemonic, b.arm.name())?;
            }
            if never.is_empty() {
                writeln!(out, "  (none)")?;
            }
        }
        writeln!(out, "\nrecords the spec cannot explain:")?;
        if self.unknown.is_empty() {
            writeln!(out, "  (none)")?;
        }
        for ((op, sub), n) in &self.unknown {
            match sub {
                Some(v) => writeln!(out, "  {op:#04x} unknown sub-opcode {v}: {n}")?,
                // An opcode the spec names only on other generations is named, as the
                // JSON names it: "unknown" would say the spec does not know it.
                None => match records::opcode_name(None, *op) {
                    Some(name) => {
                        writeln!(out, "  {op:#04x} {name}, not on the generation read: {n}")?
                    }
                    None => writeln!(out, "  {op:#04x} unknown opcode: {n}")?,
                },
            }
        }
        writeln!(out, "\nrecords of opcodes the spec names but gives no layout for:")?;
        if self.opaque.is_empty() {
            writeln!(out, "  (none)")?;
        }
        for (op, n) in &self.opaque {
            let name = records::opcode_name(None, *op).unwrap_or("?");
            writeln!(out, "  {op:#04x} {name}: {n}")?;
        }
        writeln!(out, "\nnon-zero reserved or unknown bytes:")?;
        if self.reserved.is_empty() {
            writeln!(out, "  (none)")?;
        }
        for ((arm, off), n) in &self.reserved {
            writeln!(out, "  {arm} +{off}: {n}")?;
        }
        writeln!(out, "\ninferred fields exercised (non-zero):")?;
        if self.inferred.is_empty() {
            writeln!(out, "  (none)")?;
        }
        for ((arm, field), n) in &self.inferred {
            writeln!(out, "  {arm}.{field}: {n}")?;
        }
        Ok(())
    }

    /// The generations the streams were read in, and the bindings they have that no
    /// record selects (only bindings the generations read have: another's could not
    /// have been used).
    fn never_used(&self) -> (Vec<Arch>, Vec<&'static Binding>) {
        let mut archs: Vec<Arch> = self.arch_of.values().copied().collect();
        archs.sort_unstable();
        archs.dedup();
        let seen = |i: usize| self.by_binding.values().any(|counts| counts[i] > 0);
        let never = BINDINGS
            .iter()
            .enumerate()
            .filter(|&(i, b)| !seen(i) && archs.iter().any(|&a| binding_on(a, &b.record())))
            .map(|(_, b)| b)
            .collect();
        (archs, never)
    }

    /// The `n` records of opcode `op` in a group, by the binding that selects them (an
    /// index into `BINDINGS`; `None` for those no binding selects), as `by_binding`
    /// counts the group's.
    fn by_binding_of(&self, by_binding: &[usize], op: u8, n: usize) -> Vec<(Option<usize>, usize)> {
        let mut rows: Vec<(Option<usize>, usize)> = self.bindings_of[usize::from(op)]
            .iter()
            .filter(|&&i| by_binding[i] > 0)
            .map(|&i| (Some(i), by_binding[i]))
            .collect();
        let bound: usize = rows.iter().map(|r| r.1).sum();
        if bound < n {
            rows.push((None, n - bound));
        }
        rows
    }

    /// The document of `--json` (format `tpb-stats`, version 1): what [`Stats::write`]
    /// prints, as data.
    fn json<'a>(&'a self, files: usize, others: &'a [NeffExtra]) -> StatsJson<'a> {
        let histograms = self
            .opcodes
            .iter()
            .filter(|(_, h)| h.iter().any(|&n| n > 0))
            .map(|(group, histogram)| {
                let arch = self.arch_of.get(group).copied();
                let by_binding = &self.by_binding[group];
                let (arch_name, source, engine) = match group {
                    Group::Raw(a) => (*a, "raw", None),
                    Group::Neff(a, e) => (*a, "neff", Some(e.name())),
                };
                let opcodes = (0..=u8::MAX)
                    .zip(histogram.iter())
                    .filter(|(_, &n)| n > 0)
                    .map(|(op, &n)| {
                        let arms = self
                            .by_binding_of(by_binding, op, n)
                            .into_iter()
                            .map(|(i, records)| ArmJson {
                                mnemonic: i.map(|i| BINDINGS[i].mnemonic),
                                arm: i.map(|i| BINDINGS[i].arm.name()),
                                sub: i.and_then(|i| BINDINGS[i].sub).map(SubJson::of),
                                records,
                            })
                            .collect();
                        OpcodeJson {
                            opcode: op,
                            name: records::opcode_name(arch, op),
                            records: n,
                            arms,
                        }
                    })
                    .collect();
                HistogramJson {
                    arch: arch_name,
                    source,
                    engine,
                    records: histogram.iter().sum(),
                    opcodes,
                }
            })
            .collect();
        let (archs, never) = self.never_used();
        StatsJson {
            format: "tpb-stats",
            version: 1,
            files,
            records: self.records,
            streams_from_neffs: self.streams_from_neffs,
            streams: &self.streams,
            histograms,
            non_stream_members: others
                .iter()
                .map(|n| OthersJson {
                    neff: &n.name,
                    members: n.others.count,
                    bytes: n.others.bytes,
                    bins: n
                        .others
                        .bins
                        .iter()
                        .map(|(path, bytes)| BinJson { path, bytes: *bytes })
                        .collect(),
                })
                .collect(),
            absent: others
                .iter()
                .flat_map(|n| n.absent.iter().map(|label| AbsentJson { neff: &n.name, label }))
                .collect(),
            bindings_never_used: NeverUsedJson {
                archs: archs.iter().map(|a| a.name()).collect(),
                bindings: never
                    .iter()
                    .map(|b| BindingJson {
                        opcode: b.opcode,
                        sub: b.sub.map(SubJson::of),
                        mnemonic: b.mnemonic,
                        arm: b.arm.name(),
                    })
                    .collect(),
            },
            unexplained: self
                .unknown
                .iter()
                .map(|(&(opcode, sub), &records)| UnexplainedJson {
                    opcode,
                    name: records::opcode_name(None, opcode),
                    sub_opcode: sub.map(|value| SubJson {
                        offset: sub_offset(opcode).unwrap_or_default(),
                        value,
                    }),
                    records,
                })
                .collect(),
            opaque: self
                .opaque
                .iter()
                .map(|(&opcode, &records)| OpaqueJson {
                    opcode,
                    name: records::opcode_name(None, opcode),
                    records,
                })
                .collect(),
            reserved_nonzero: self
                .reserved
                .iter()
                .map(|(&(arm, offset), &records)| ReservedJson { arm, offset, records })
                .collect(),
            inferred_exercised: self
                .inferred
                .iter()
                .map(|(&(arm, field), &records)| InferredJson { arm, field, records })
                .collect(),
        }
    }
}

/// The offset of the sub-opcode byte of an opcode that sub-dispatches (PSEUDO_INST's +12).
fn sub_offset(op: u8) -> Option<usize> {
    BINDINGS.iter().find(|b| b.opcode == op).and_then(|b| b.sub).map(|s| s.offset)
}

/// `tpb stats --json`: format `tpb-stats`, version 1 (the option's help gives the shape).
#[derive(Serialize)]
struct StatsJson<'a> {
    format: &'static str,
    version: u32,
    files: usize,
    records: usize,
    streams_from_neffs: usize,
    streams: &'a [StreamJson],
    histograms: Vec<HistogramJson>,
    non_stream_members: Vec<OthersJson<'a>>,
    absent: Vec<AbsentJson<'a>>,
    bindings_never_used: NeverUsedJson,
    unexplained: Vec<UnexplainedJson>,
    opaque: Vec<OpaqueJson>,
    reserved_nonzero: Vec<ReservedJson>,
    inferred_exercised: Vec<InferredJson>,
}

/// One stream read: where it comes from, its generation and its record count.
#[derive(Serialize)]
struct StreamJson {
    /// The input (a NEFF or a raw stream) as given.
    file: String,
    /// `sg00/PE` for a NEFF stream (as the file has it, unescaped), the file for a raw one.
    label: String,
    subgraph: Option<String>,
    engine: Option<&'static str>,
    arch: &'static str,
    records: usize,
    trailing_partial: Option<PartialJson>,
}

#[derive(Serialize)]
struct PartialJson {
    offset: usize,
    len: usize,
    message: String,
}

#[derive(Serialize)]
struct HistogramJson {
    arch: &'static str,
    source: &'static str,
    engine: Option<&'static str>,
    records: usize,
    opcodes: Vec<OpcodeJson>,
}

#[derive(Serialize)]
struct OpcodeJson {
    opcode: u8,
    name: Option<&'static str>,
    records: usize,
    arms: Vec<ArmJson>,
}

/// The records of one opcode that one binding selects (`mnemonic` and `arm` null: none).
#[derive(Serialize)]
struct ArmJson {
    mnemonic: Option<&'static str>,
    arm: Option<&'static str>,
    /// The sub-opcode the binding reads (null: none, or no binding).
    sub: Option<SubJson>,
    records: usize,
}

#[derive(Serialize)]
struct OthersJson<'a> {
    neff: &'a str,
    members: usize,
    bytes: usize,
    bins: Vec<BinJson<'a>>,
}

/// A stream a NEFF's graph names but no member holds.
#[derive(Serialize)]
struct AbsentJson<'a> {
    neff: &'a str,
    /// `sg00/PE`, as the file has it.
    label: &'a str,
}

#[derive(Serialize)]
struct BinJson<'a> {
    path: &'a str,
    bytes: usize,
}

#[derive(Serialize)]
struct NeverUsedJson {
    archs: Vec<&'static str>,
    bindings: Vec<BindingJson>,
}

#[derive(Serialize)]
struct BindingJson {
    opcode: u8,
    sub: Option<SubJson>,
    mnemonic: &'static str,
    arm: &'static str,
}

#[derive(Serialize)]
struct SubJson {
    offset: usize,
    value: u8,
}

impl SubJson {
    fn of(x: tpb_isa::inst::SubByte) -> SubJson {
        SubJson { offset: x.offset, value: x.value }
    }
}

#[derive(Serialize)]
struct UnexplainedJson {
    opcode: u8,
    name: Option<&'static str>,
    sub_opcode: Option<SubJson>,
    records: usize,
}

#[derive(Serialize)]
struct OpaqueJson {
    opcode: u8,
    name: Option<&'static str>,
    records: usize,
}

#[derive(Serialize)]
struct ReservedJson {
    arm: &'static str,
    offset: usize,
    records: usize,
}

#[derive(Serialize)]
struct InferredJson {
    arm: &'static str,
    field: &'static str,
    records: usize,
}

/// One unit's coverage counts by arm, in arrays while its records are read, so that a
/// record costs a few increments rather than lookups of names in ordered maps (which
/// took a third of `tpb stats` on a NEFF); merged into the maps by name at the unit's
/// end.
#[derive(Default)]
struct ArmCounts {
    /// Per arm (`ArmKind as usize`), once met: the leaves of its layout in the unit's
    /// generation that a record can count in (reserved, or inferred), with counters.
    arms: Vec<Option<Watched>>,
}

/// The leaves of one arm's layout that coverage watches, and their counts.
struct Watched {
    name: &'static str,
    /// Reserved leaves: records with each byte non-zero, by offset in the record.
    reserved: Vec<(&'static FieldDesc, Vec<usize>)>,
    /// Inferred leaves: records with the leaf non-zero.
    inferred: Vec<(&'static FieldDesc, usize)>,
}

impl ArmCounts {
    /// Count record `r` of arm `kind` in the layout of `arch`.
    fn count(&mut self, kind: ArmKind, arch: Arch, r: &[u8; RECORD_SIZE]) {
        if self.arms.is_empty() {
            self.arms.resize_with(ArmKind::ALL.len(), || None);
        }
        let w = self.arms[kind as usize].get_or_insert_with(|| {
            let leaves = ArmText::of(kind).layout(arch).leaves();
            Watched {
                name: kind.name(),
                reserved: leaves
                    .clone()
                    .filter(|f| matches!(f.role, Role::Reserved | Role::Unknown))
                    .map(|f| (f, vec![0; f.range().len()]))
                    .collect(),
                inferred: leaves
                    .filter(|f| f.confidence == Confidence::Inferred)
                    .map(|f| (f, 0))
                    .collect(),
            }
        });
        for (f, counts) in &mut w.reserved {
            for (n, &x) in counts.iter_mut().zip(&r[f.range()]) {
                *n += usize::from(x != 0);
            }
        }
        for (f, n) in &mut w.inferred {
            *n += usize::from(r[f.range()].iter().any(|&x| x != 0));
        }
    }

    /// Add the non-zero counts to the maps by arm name (and offset, or field name).
    fn merge_into(
        self,
        reserved: &mut BTreeMap<(&'static str, usize), usize>,
        inferred: &mut BTreeMap<(&'static str, &'static str), usize>,
    ) {
        for w in self.arms.into_iter().flatten() {
            for (f, counts) in &w.reserved {
                for (k, &n) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
                    *reserved.entry((w.name, usize::from(f.offset) + k)).or_default() += n;
                }
            }
            for &(f, n) in w.inferred.iter().filter(|(_, n)| *n > 0) {
                *inferred.entry((w.name, f.name)).or_default() += n;
            }
        }
    }
}

/// The members of a NEFF that are not streams, apart from the histograms.
fn write_others(out: &mut dyn Write, name: &str, o: &Others) -> std::io::Result<()> {
    writeln!(out, "\n{name}: {} members that are not record streams ({} bytes)", o.count, o.bytes)?;
    o.write_bins(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    type Named =
        (BTreeMap<(&'static str, usize), usize>, BTreeMap<(&'static str, &'static str), usize>);

    /// The counts by name, record by record, straight from each record's leaves.
    fn reference(arch: Arch, recs: &[[u8; RECORD_SIZE]]) -> Named {
        let (mut reserved, mut inferred) = (BTreeMap::new(), BTreeMap::new());
        for r in recs {
            let Some(kind) = dispatch_on(arch, r) else { continue };
            for f in ArmText::of(kind).layout(arch).leaves() {
                let b = &r[f.range()];
                if matches!(f.role, Role::Reserved | Role::Unknown) {
                    for (k, _) in b.iter().enumerate().filter(|(_, &x)| x != 0) {
                        *reserved.entry((kind.name(), usize::from(f.offset) + k)).or_default() += 1;
                    }
                }
                if f.confidence == Confidence::Inferred && b.iter().any(|&x| x != 0) {
                    *inferred.entry((kind.name(), f.name)).or_default() += 1;
                }
            }
        }
        (reserved, inferred)
    }

    #[test]
    fn arm_counts_are_the_counts_by_name_of_each_record() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for &arch in Arch::ALL {
            // Records of every binding, each byte zero or not at random, so that every
            // watched leaf is counted in some records and not in others.
            let recs: Vec<[u8; RECORD_SIZE]> = (0..4 * BINDINGS.len())
                .map(|i| {
                    let b = &BINDINGS[i % BINDINGS.len()];
                    let mut r = [0u8; RECORD_SIZE];
                    for v in &mut r {
                        let n = next();
                        *v = if n & 3 == 0 { n.to_le_bytes()[1] | 1 } else { 0 };
                    }
                    r[0] = b.opcode;
                    if let Some(s) = b.sub {
                        r[s.offset] = s.value;
                    }
                    r
                })
                .collect();
            let mut counts = ArmCounts::default();
            for r in &recs {
                if let Some(kind) = dispatch_on(arch, r) {
                    counts.count(kind, arch, r);
                }
            }
            let (mut reserved, mut inferred) = (BTreeMap::new(), BTreeMap::new());
            counts.merge_into(&mut reserved, &mut inferred);
            let (want_reserved, want_inferred) = reference(arch, &recs);
            assert!(!want_reserved.is_empty() && !want_inferred.is_empty(), "{arch}");
            assert_eq!(reserved, want_reserved, "{arch}");
            assert_eq!(inferred, want_inferred, "{arch}");
        }
    }
}
