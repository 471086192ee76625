//! `tpb validate`: the generation's validator on every record, one line per finding.
//!
//! A raw stream is taken for an assembled engine image: it must hold EXIT and end in a
//! valid final record. The final-record check runs the record rules (the spec knows no
//! per-engine terminator rule), so a final record that fails them is one finding, its
//! record's, not two. A NEFF stream is pre-relocation: the runtime rewrites its
//! pseudo-ops and appends the postamble and EXIT at load, so pseudo records are legal
//! (not validated) and the EXIT and final-record checks do not apply.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use tpb_isa::{Arch, FinalCheckError};

use crate::input::{self, Filter, Input, Unit, ENGINES};
use crate::records::{self, parse_arch};
use crate::text::count;

#[derive(clap::Args)]
pub struct Args {
    /// A raw record stream, a NEFF file, an unpacked NEFF directory, or `-`.
    file: PathBuf,
    #[command(flatten)]
    format: input::Format,
    /// The generation (name, label or alias: cayman, V3, trn2); a NEFF's own target by
    /// default, cayman for a raw stream or a NEFF that names none (with a warning).
    #[arg(long)]
    arch: Option<String>,
    /// The engine whose program a raw stream is (for the final-record check; PE by
    /// default); for a NEFF, only that engine's streams.
    #[arg(long)]
    engine: Option<String>,
}

impl Args {
    pub fn run(self, out: &mut dyn Write) -> Result<bool> {
        let input = input::load(&self.file, self.format)?;
        let arch = self.arch.as_deref().map(parse_arch).transpose()?;
        match &input {
            Input::Raw { .. } => {
                let units = input.units();
                raw(
                    out,
                    &units[0],
                    arch.unwrap_or(records::DEFAULT_ARCH),
                    self.engine.as_deref().unwrap_or("PE"),
                )
            }
            Input::Neff { name, .. } => {
                // An engine with no stream is an error, as for every command: "0 records,
                // 0 findings" would pass a check that looked at nothing.
                let filter = Filter::new(None, self.engine.as_deref())?;
                let mut units: Vec<Unit<'_>> = filter.select(&input)?;
                input::set_arch(&input, &mut units, arch);
                neff(out, name, &units, &filter.absent(&input))
            }
        }
    }
}

/// An assembled image: every record, the trailing partial record, EXIT, the final record;
/// each finding on a line of its own that starts with the input's name, as a compiler's
/// do, so that it reads alone (in a log, through grep).
fn raw(out: &mut dyn Write, unit: &Unit<'_>, arch: Arch, engine: &str) -> Result<bool> {
    let engine = records::engine(engine)
        .with_context(|| format!("unknown engine '{engine}' (expected one of {ENGINES})"))?;
    let (recs, partial) = records::split(unit.bytes);
    let mut findings = 0;
    let mut n = 0;
    // The last record's finding, which the final-record check would repeat.
    let mut last = None;
    for (i, (off, r)) in recs.enumerate() {
        n += 1;
        last = records::validate(arch, r).err();
        if let Some(e) = last {
            findings += 1;
            writeln!(out, "{}: record {i} (offset {off:#x}): {e}", unit.label)?;
        }
    }
    if let Some(p) = partial {
        findings += 1;
        writeln!(out, "{}: {p}", unit.label)?;
    }
    if !records::has_exit(unit.bytes) {
        findings += 1;
        writeln!(out, "{}: no EXIT record (PSEUDO_INST 0xdf with pseudo_opcode 1)", unit.label)?;
    }
    // The trailing partial record is a finding above; the final-record check looks at
    // the last whole record, rather than report it again.
    let whole = &unit.bytes[..partial.map_or(unit.bytes.len(), |p| p.offset)];
    let check = records::final_check(arch, engine, whole);
    let repeated =
        matches!(check, Err(FinalCheckError::Invalid { error, .. }) if Some(error) == last);
    if let (Err(e), false) = (check, repeated) {
        findings += 1;
        let index = if n == 0 { String::new() } else { format!(": record {}", n - 1) };
        writeln!(
            out,
            "{}{index}: final-record check ({arch}, {}): {e}",
            unit.label,
            engine.name().unwrap_or("?")
        )?;
    }
    writeln!(out, "{}: {}, {findings} finding(s) on {arch}", unit.label, count(n, "record"))?;
    Ok(findings == 0)
}

/// NEFF streams: every record outside the pseudo band, and trailing partial records;
/// a stream the NEFF names but does not hold (`absent`) is said to be unread, not a
/// finding.
fn neff(out: &mut dyn Write, name: &str, units: &[Unit<'_>], absent: &[String]) -> Result<bool> {
    writeln!(
        out,
        "{name}: NEFF streams are pre-relocation: pseudo opcodes (0xc1..=0xdf) are legal and not \
         validated, and no EXIT is expected, so the EXIT and final-record checks are skipped"
    )?;
    let (mut total, mut findings) = (0, 0);
    for u in units {
        let arch = u.arch.unwrap_or(records::DEFAULT_ARCH);
        let (recs, partial) = records::split(u.bytes);
        let (mut n, mut pseudo, mut found) = (0, 0, 0);
        for (i, (off, r)) in recs.enumerate() {
            n += 1;
            if records::is_pseudo(r[0]) {
                pseudo += 1;
            } else if let Err(e) = records::validate(arch, r) {
                found += 1;
                writeln!(out, "{} record {i} (offset {off:#x}): {e}", u.label)?;
            }
        }
        if let Some(p) = partial {
            found += 1;
            writeln!(out, "{}: {p}", u.label)?;
        }
        let recs = count(n, "record");
        writeln!(out, "{}: {recs} ({pseudo} pseudo), {found} finding(s) on {arch}", u.label)?;
        total += n;
        findings += found;
    }
    for label in absent {
        writeln!(out, "{label}: absent (its graph names it, no member holds it): not validated")?;
    }
    let (total, streams) = (count(total, "record"), count(units.len(), "stream"));
    let absent = match absent.len() {
        0 => String::new(),
        n => format!(" ({n} more absent)"),
    };
    writeln!(out, "{name}: {total} in {streams}{absent}, {findings} finding(s)")?;
    Ok(findings == 0)
}
