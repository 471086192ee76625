//! `tpb stats`: opcode histograms per generation and engine over NEFFs and raw streams
//! mixed, the NEFF members that are not streams, and coverage against the spec both ways
//! (bindings never seen, records it cannot explain, reserved bytes and inferred fields in use).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use tpb_isa::disasm::desc::Role;
use tpb_isa::inst::BINDINGS;
use tpb_isa::Arch;
use tpb_isa::Confidence;
use tpb_neff::Engine;

use crate::input::{self, Input, Others, Unit};
use crate::records;
use crate::row;
use crate::table::table;

#[derive(clap::Args)]
pub struct Args {
    /// NEFF files, unpacked NEFF directories and raw record streams, in any mix.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// Whose histogram a stream counts in: raw streams together, NEFF streams by generation
/// (its name, `?` when unknown) and engine.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Raw,
    Neff(&'static str, Engine),
}

#[derive(Default)]
struct Stats {
    records: usize,
    streams_from_neffs: usize,
    opcodes: BTreeMap<Group, BTreeMap<u8, usize>>,
    arch_of: BTreeMap<Group, Option<Arch>>,
    bound_seen: Vec<bool>,
    /// Indices into `BINDINGS` by opcode byte (a record is matched against its own).
    bindings_of: Vec<Vec<usize>>,
    unknown: BTreeMap<(u8, Option<u8>), usize>,
    /// Records of an opcode the spec names but gives no layout for, by opcode.
    opaque: BTreeMap<u8, usize>,
    reserved: BTreeMap<(&'static str, usize), usize>,
    inferred: BTreeMap<(&'static str, &'static str), usize>,
    partial: Vec<String>,
}

impl Args {
    pub fn run(self, out: &mut dyn Write) -> Result<bool> {
        let mut bindings_of = vec![Vec::new(); 256];
        for (i, b) in BINDINGS.iter().enumerate() {
            bindings_of[b.opcode as usize].push(i);
        }
        let mut s =
            Stats { bound_seen: vec![false; BINDINGS.len()], bindings_of, ..Stats::default() };
        let mut others = Vec::new();
        for file in &self.files {
            let input = input::load(file)?;
            for unit in input.units() {
                s.add(&unit);
            }
            if let Input::Neff { name, neff } = &input {
                others.push((name.clone(), Others::of(neff)));
            }
        }
        s.write(out, self.files.len(), &others)?;
        Ok(true)
    }
}

impl Stats {
    fn add(&mut self, unit: &Unit<'_>) {
        // Opcodes that sub-dispatch: an unknown record there is an unknown sub-opcode.
        let sub_at =
            |op: u8| BINDINGS.iter().find(|b| b.opcode == op).and_then(|b| b.sub).map(|s| s.offset);
        let group = match unit.engine {
            Some(e) => {
                self.streams_from_neffs += 1;
                Group::Neff(unit.arch.map_or("?", Arch::name), e)
            }
            None => Group::Raw,
        };
        self.arch_of.insert(group, unit.arch);
        let (recs, partial) = records::split(unit.bytes);
        if let Some(p) = partial {
            self.partial.push(format!("{}: {p}", unit.label));
        }
        let histogram = self.opcodes.entry(group).or_default();
        for (_, r) in recs {
            self.records += 1;
            *histogram.entry(r[0]).or_default() += 1;
            for &i in &self.bindings_of[usize::from(r[0])] {
                if BINDINGS[i].matches(r) {
                    self.bound_seen[i] = true;
                }
            }
            let dec = records::decode(unit.arch, r);
            let (Some(name), Some(d)) = (dec.arm_name(), dec.arm_layout()) else {
                if records::opcode_name(unit.arch, r[0]).is_some() && sub_at(r[0]).is_none() {
                    *self.opaque.entry(r[0]).or_default() += 1;
                    continue;
                }
                *self.unknown.entry((r[0], sub_at(r[0]).map(|o| r[o]))).or_default() += 1;
                continue;
            };
            for f in d.leaves() {
                let b = &r[f.range()];
                if f.role == Role::Reserved {
                    for (k, &x) in b.iter().enumerate() {
                        if x != 0 {
                            *self.reserved.entry((name, f.offset as usize + k)).or_default() += 1;
                        }
                    }
                }
                if f.confidence == Confidence::Inferred && b.iter().any(|&x| x != 0) {
                    *self.inferred.entry((name, f.name)).or_default() += 1;
                }
            }
        }
    }

    fn write(&self, out: &mut dyn Write, files: usize, others: &[(String, Others)]) -> Result<()> {
        write!(out, "{} records in {files} file(s)", self.records)?;
        if self.streams_from_neffs > 0 {
            write!(out, ", {} of the streams from NEFFs", self.streams_from_neffs)?;
        }
        writeln!(out)?;
        for p in &self.partial {
            writeln!(out, "warning: {p}")?;
        }
        for (group, histogram) in &self.opcodes {
            match group {
                Group::Raw => writeln!(out, "\nopcode histogram:")?,
                Group::Neff(arch, engine) => writeln!(out, "\nopcode histogram, {arch} {engine}:")?,
            }
            let arch = self.arch_of.get(group).copied().flatten();
            let mut rows = vec![row!["opcode", "name", "records"]];
            for (op, n) in histogram {
                rows.push(row![
                    format!("{op:#04x}"),
                    records::opcode_name(arch, *op).unwrap_or("?"),
                    n
                ]);
            }
            table(out, &rows)?;
        }
        for (name, o) in others {
            write_others(out, name, o)?;
        }
        writeln!(out, "\nbindings never used:")?;
        let mut none = true;
        for (b, seen) in BINDINGS.iter().zip(&self.bound_seen) {
            if !seen {
                none = false;
                let sub = b
                    .sub
                    .map(|x| format!(" (byte {} == {})", x.offset, x.value))
                    .unwrap_or_default();
                writeln!(out, "  {:#04x}{sub} {}", b.opcode, b.arm.name())?;
            }
        }
        if none {
            writeln!(out, "  (none)")?;
        }
        writeln!(out, "\nrecords the spec cannot explain:")?;
        if self.unknown.is_empty() {
            writeln!(out, "  (none)")?;
        }
        for ((op, sub), n) in &self.unknown {
            match sub {
                Some(v) => writeln!(out, "  {op:#04x} unknown sub-opcode {v}: {n}")?,
                None => writeln!(out, "  {op:#04x} unknown opcode: {n}")?,
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
}

/// The members of a NEFF that are not streams, apart from the histograms.
fn write_others(out: &mut dyn Write, name: &str, o: &Others) -> std::io::Result<()> {
    writeln!(out, "\n{name}: {} members that are not record streams ({} bytes)", o.count, o.bytes)?;
    o.write_bins(out)
}
