//! `tpb extract`: a NEFF's engine streams as `DIR/sgNN/Engine.bin`, the layout of the
//! corpus's `streams/` folders; with `--all`, every member at its own path (an unpacked
//! NEFF, which `tpb` and the runtime read as a folder).
//!
//! Nothing is written outside DIR: the subgraph name must be one plain path component
//! (the reader already refuses others), the engine names are fixed, and a link found in
//! the way is refused rather than written through.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::input::{self, Filter, Input};
use crate::output::{self, shown, Special};
use crate::records::RECORD_SIZE;
use crate::text::{count, escape};

#[derive(clap::Args)]
pub struct Args {
    /// A NEFF file or an unpacked NEFF directory.
    input: PathBuf,
    /// Read the input as a NEFF, whatever its name or first bytes.
    #[arg(long)]
    neff: bool,
    /// The folder to write into (created if needed).
    #[arg(short, long)]
    output: PathBuf,
    /// Only this subgraph (`sg00`).
    #[arg(long)]
    subgraph: Option<String>,
    /// Only this engine (pe, act, pool, dve, sp).
    #[arg(long)]
    engine: Option<String>,
    /// Every member of the NEFF at its own path under DIR (the JSON, the tables, the
    /// streams), as `neuron-packager unpack` lays them out: a folder `tpb` and the
    /// runtime read back.
    #[arg(long, conflicts_with_all = ["subgraph", "engine"])]
    all: bool,
}

impl Args {
    pub fn run(self, out: &mut dyn Write) -> Result<bool> {
        // A raw stream has no streams to extract: neither `--raw` nor `--hex` is offered,
        // and a NEFF that does not read gets no hint of them.
        let format = input::Format { neff: self.neff, neff_only: true, ..Default::default() };
        let input = input::load(&self.input, format)?;
        if let Input::Raw { name, .. } = &input {
            bail!("{name} is read as a raw record stream, not a NEFF: nothing to extract");
        }
        if self.all {
            return all_members(&input, &self.output, out);
        }
        let filter = Filter::new(self.subgraph, self.engine.as_deref())?;
        // Before DIR is made: a filter that matches nothing writes nothing.
        let units = filter.select(&input)?;
        let dir = &self.output;
        // Every stream's path, before anything is written: a graph name that cannot be
        // a folder (too long, a NUL) or a link in the way of a later stream would
        // otherwise stop the extraction part way, the streams before it written.
        let mut files = Vec::with_capacity(units.len());
        for unit in &units {
            let (Some(graph), Some(engine)) = (unit.subgraph, unit.engine) else { continue };
            one_component(graph)?;
            let file = format!("{graph}/{}.bin", engine.name());
            output::refuse_in_the_way(dir, output::plain_relative(&file, "stream")?)?;
            files.push((unit, file));
        }
        output::make_dir(dir)?;
        for (unit, file) in files {
            let file = output::path_under(dir, &file, "stream")?;
            // Replaced whole; a FIFO or device in the way is refused (it would block).
            output::write_file(&file, Special::Refuse, |w| w.write_all(unit.bytes))?;
            writeln!(
                out,
                "{}: {} ({}) to {}",
                unit.label,
                count(unit.bytes.len() / RECORD_SIZE, "record"),
                count(unit.bytes.len(), "byte"),
                shown(&file)
            )?;
        }
        Ok(true)
    }
}

/// Every member of `input` (a NEFF) under `dir` at its own path, each folder on the way
/// made and none a link; a member of an unpacked folder the reader did not keep is read
/// now. One line a member.
fn all_members(input: &Input, dir: &Path, out: &mut dyn Write) -> Result<bool> {
    let Input::Neff { neff, .. } = input else { return Ok(false) };
    vet_paths(neff, dir)?;
    output::make_dir(dir)?;
    for m in neff.members() {
        let file = output::path_under(dir, m.path, "member")?;
        let bytes = neff
            .read_member(m.path)
            .with_context(|| format!("reading member {}", escape(m.path.as_bytes())))?
            .unwrap_or_default();
        output::write_file(&file, Special::Refuse, |w| w.write_all(&bytes))?;
        writeln!(
            out,
            "{} ({}) to {}",
            escape(m.path.as_bytes()),
            count(bytes.len(), "byte"),
            shown(&file)
        )?;
    }
    Ok(true)
}

/// Every member's path, before anything is written: each plain, none a folder on
/// another's way (`x` beside `x/y`), and nothing already under `dir` in the way (a link,
/// a folder or FIFO where a file goes), any of which would stop the unpacking part way.
fn vet_paths(neff: &tpb_neff::Neff, dir: &Path) -> Result<()> {
    let paths: std::collections::BTreeSet<&str> = neff.members().map(|m| m.path).collect();
    for m in neff.members() {
        let rel = output::plain_relative(m.path, "member")?;
        output::refuse_in_the_way(dir, rel)?;
        let folders = m.path.match_indices('/').map(|(i, _)| &m.path[..i]);
        if let Some(file) = folders.into_iter().find(|f| paths.contains(f)) {
            bail!(
                "member '{}' is a file where member '{}' needs a folder; refusing to unpack \
                 either",
                escape(file.as_bytes()),
                escape(m.path.as_bytes())
            );
        }
    }
    Ok(())
}

/// An error unless `name` is a path of exactly one plain component (a subgraph's folder).
fn one_component(name: &str) -> Result<()> {
    let path = Path::new(name);
    let mut parts = path.components();
    match (parts.next(), parts.next()) {
        (Some(Component::Normal(_)), None) => Ok(()),
        _ => bail!(
            "subgraph name '{}' is not a plain folder name; refusing to write it",
            escape(name.as_bytes())
        ),
    }
}
