//! `tpb stats`: opcode histograms per generation and engine over NEFFs and raw streams
//! mixed, the NEFF members that are not streams, and coverage against the spec both ways
//! (bindings never seen, records it cannot explain, reserved bytes and inferred fields in use).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use tpb_isa::disasm::desc::{ArmText, FieldDesc, Role};
use tpb_isa::inst::{binding_on, dispatch_on, BINDINGS};
use tpb_isa::Confidence;
use tpb_isa::{Arch, ArmKind, RECORD_SIZE};
use tpb_neff::Engine;

use crate::input::{self, Input, Others, Unit};
use crate::records;
use crate::row;
use crate::table::table;
use crate::text::count;

#[derive(clap::Args)]
pub struct Args {
    /// NEFF files, unpacked NEFF directories and raw record streams, in any mix.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    format: input::Format,
    /// The generation every input is read in (a name, label or alias): opcode names,
    /// layouts and coverage. A NEFF's own target by default, cayman for a raw stream.
    #[arg(long)]
    arch: Option<String>,
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
        let arch = self.arch.as_deref().map(records::parse_arch).transpose()?;
        let mut others = Vec::new();
        for file in &self.files {
            let input = input::load(file, self.format)?;
            let mut units = input.units();
            input::set_arch(&input, &mut units, arch);
            // A NEFF's stream labels (`sg00/PE`) repeat across NEFFs: say whose.
            let of = matches!(input, Input::Neff { .. }).then(|| input.name());
            for unit in &units {
                s.add(unit, of);
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
    /// Count `unit`'s records; `neff` is the name of the NEFF it is a stream of.
    fn add(&mut self, unit: &Unit<'_>, neff: Option<&str>) {
        // Opcodes that sub-dispatch: an unknown record there is an unknown sub-opcode.
        let sub_at =
            |op: u8| BINDINGS.iter().find(|b| b.opcode == op).and_then(|b| b.sub).map(|s| s.offset);
        let group = match unit.engine {
            Some(e) => {
                self.streams_from_neffs += 1;
                Group::Neff(unit.arch.map_or("?", Arch::name), e)
            }
            None => Group::Raw(unit.arch.unwrap_or(records::DEFAULT_ARCH).name()),
        };
        self.arch_of.insert(group, unit.arch);
        let (recs, partial) = records::split(unit.bytes);
        if let Some(p) = partial {
            let of = neff.map(|n| format!("{n}: ")).unwrap_or_default();
            self.partial.push(format!("{of}{}: {p}", unit.label));
        }
        let arch = unit.arch.unwrap_or(records::DEFAULT_ARCH);
        let mut arms = ArmCounts::default();
        let histogram = self.opcodes.entry(group).or_insert_with(|| Box::new([0; 256]));
        for (_, r) in recs {
            self.records += 1;
            histogram[usize::from(r[0])] += 1;
            for &i in &self.bindings_of[usize::from(r[0])] {
                if BINDINGS[i].matches(r) && binding_on(arch, r) {
                    self.bound_seen[i] = true;
                }
            }
            match dispatch_on(arch, r) {
                Some(kind) => arms.count(kind, arch, r),
                None if records::opcode_name(unit.arch, r[0]).is_some()
                    && sub_at(r[0]).is_none() =>
                {
                    *self.opaque.entry(r[0]).or_default() += 1;
                }
                None => *self.unknown.entry((r[0], sub_at(r[0]).map(|o| r[o]))).or_default() += 1,
            }
        }
        arms.merge_into(&mut self.reserved, &mut self.inferred);
    }

    fn write(&self, out: &mut dyn Write, files: usize, others: &[(String, Others)]) -> Result<()> {
        write!(out, "{} in {}", count(self.records, "record"), count(files, "file"))?;
        if self.streams_from_neffs > 0 {
            write!(out, ", {} from NEFFs", count(self.streams_from_neffs, "stream"))?;
        }
        writeln!(out)?;
        for p in &self.partial {
            writeln!(out, "warning: {p}")?;
        }
        if self.records == 0 {
            writeln!(out, "\nno records: every stream given is empty, so no histogram")?;
        }
        for (group, histogram) in self.opcodes.iter().filter(|(_, h)| h.iter().any(|&n| n > 0)) {
            match group {
                Group::Raw(arch) => writeln!(out, "\nopcode histogram, {arch} (raw streams):")?,
                Group::Neff(arch, engine) => writeln!(out, "\nopcode histogram, {arch} {engine}:")?,
            }
            let arch = self.arch_of.get(group).copied().flatten();
            let mut rows = vec![row!["opcode", "name", "records"]];
            for (op, n) in (0..=u8::MAX).zip(histogram.iter()).filter(|(_, &n)| n > 0) {
                rows.push(row![
                    format!("{op:#04x}"),
                    records::opcode_name(arch, op).unwrap_or("?"),
                    n
                ]);
            }
            table(out, &rows)?;
        }
        for (name, o) in others {
            write_others(out, name, o)?;
        }
        // Only bindings the generations read have: another's could not have been used.
        let mut archs: Vec<Arch> =
            self.arch_of.values().map(|a| a.unwrap_or(records::DEFAULT_ARCH)).collect();
        archs.sort_unstable();
        archs.dedup();
        let names: Vec<&str> = archs.iter().map(|a| a.name()).collect();
        let of =
            if names.is_empty() { String::new() } else { format!(" (of {})", names.join(", ")) };
        writeln!(out, "\nbindings never used{of}:")?;
        let mut none = true;
        for (b, seen) in BINDINGS.iter().zip(&self.bound_seen) {
            if !seen && archs.iter().any(|&a| binding_on(a, &b.record())) {
                none = false;
                let sub = b
                    .sub
                    .map(|x| format!(" (byte {} == {})", x.offset, x.value))
                    .unwrap_or_default();
                // The mnemonic the listing prints: an arm's name alone would not tell
                // apart the opcodes that share its layout (eight share S3D3_TS).
                writeln!(out, "  {:#04x}{sub} {} ({})", b.opcode, b.mnemonic, b.arm.name())?;
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
                    .filter(|f| f.role == Role::Reserved)
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
                if f.role == Role::Reserved {
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
        for arch in Arch::ALL {
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
