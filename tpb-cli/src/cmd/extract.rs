//! `tpb extract`: a NEFF's engine streams as `DIR/sgNN/Engine.bin`, the layout of the
//! corpus's `streams/` folders.
//!
//! Nothing is written outside DIR: the subgraph name must be one plain path component
//! (the reader already refuses others), the engine names are fixed, and a link found in
//! the way is refused rather than written through.

use std::fs;
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
        let filter = Filter::new(self.subgraph, self.engine.as_deref())?;
        // Before DIR is made: a filter that matches nothing writes nothing.
        let units = filter.select(&input)?;
        let dir = &self.output;
        // create_dir_all would say only "File exists".
        if fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
            bail!("{} exists and is not a folder; -o names the folder to write into", shown(dir));
        }
        fs::create_dir_all(dir).with_context(|| format!("creating {}", shown(dir)))?;
        for unit in &units {
            let (Some(graph), Some(engine)) = (unit.subgraph, unit.engine) else { continue };
            let sub = dir.join(one_component(graph)?);
            refuse_link(&sub)?;
            fs::create_dir_all(&sub).with_context(|| format!("creating {}", shown(&sub)))?;
            let file = sub.join(format!("{}.bin", engine.name()));
            refuse_link(&file)?;
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

/// `name` as a path of exactly one plain component.
fn one_component(name: &str) -> Result<&Path> {
    let path = Path::new(name);
    let mut parts = path.components();
    match (parts.next(), parts.next()) {
        (Some(Component::Normal(_)), None) => Ok(path),
        _ => bail!(
            "subgraph name '{}' is not a plain folder name; refusing to write it",
            escape(name.as_bytes())
        ),
    }
}

/// An error when `path` exists as a symbolic link (writing would follow it out of DIR).
fn refuse_link(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            bail!("{} is a symbolic link; refusing to write through it", shown(path))
        }
        _ => Ok(()),
    }
}
