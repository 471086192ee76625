//! What the commands read: a NEFF file, an unpacked NEFF directory, a raw record stream,
//! or `-` for standard input; each yields the record streams it holds as [`Unit`]s.
//!
//! A file is a NEFF when it is named `*.neff` or its first bytes are a NEFF header whose
//! payload starts with the gzip magic; anything else is a raw stream, as before NEFFs.

use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context, Result};
use tpb_isa::Arch;
use tpb_neff::{Engine, Neff, ReadOptions};

use crate::row;

/// One input, read whole.
pub enum Input {
    /// A NEFF file or unpacked directory.
    Neff {
        /// The path as given.
        name: String,
        /// The NEFF.
        neff: Box<Neff>,
    },
    /// A raw stream of 64-byte records (an assembled image or an extracted `.bin`).
    Raw {
        /// The path as given, or `-`.
        name: String,
        /// The stream.
        bytes: Vec<u8>,
    },
}

/// One record stream of an input.
pub struct Unit<'a> {
    /// `sg00/PE` for a NEFF stream; the input's name for a raw stream.
    pub label: String,
    /// The NEFF graph's name (`sg00`); `None` for a raw stream.
    pub subgraph: Option<&'a str>,
    /// The generation the NEFF was compiled for; `None` for a raw stream or an unknown target.
    pub arch: Option<Arch>,
    /// The engine; `None` for a raw stream.
    pub engine: Option<Engine>,
    /// The member path of a NEFF stream.
    pub path: Option<&'a str>,
    /// The records.
    pub bytes: &'a [u8],
}

/// Read an input: `-` is standard input, a directory an unpacked NEFF.
pub fn load(arg: &Path) -> Result<Input> {
    let name = arg.display().to_string();
    let options = ReadOptions::default();
    if arg == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).context("reading standard input")?;
        return from_bytes(name, bytes, false, &options);
    }
    let meta = std::fs::metadata(arg).with_context(|| format!("reading {name}"))?;
    if meta.is_dir() {
        let neff = Neff::from_dir(arg, &options)
            .with_context(|| format!("{name}: not a readable NEFF directory"))?;
        return Ok(Input::Neff { name, neff: Box::new(neff) });
    }
    let bytes = std::fs::read(arg).with_context(|| format!("reading {name}"))?;
    let named_neff = arg.extension().is_some_and(|e| e.eq_ignore_ascii_case("neff"));
    from_bytes(name, bytes, named_neff, &options)
}

fn from_bytes(
    name: String,
    bytes: Vec<u8>,
    named_neff: bool,
    options: &ReadOptions,
) -> Result<Input> {
    if !named_neff && !tpb_neff::looks_like_neff(&bytes) {
        return Ok(Input::Raw { name, bytes });
    }
    let neff = Neff::from_bytes(&bytes, options)
        .with_context(|| format!("{name}: not a readable NEFF"))?;
    Ok(Input::Neff { name, neff: Box::new(neff) })
}

impl Input {
    /// The name the input was given by.
    pub fn name(&self) -> &str {
        match self {
            Input::Neff { name, .. } | Input::Raw { name, .. } => name,
        }
    }

    /// The input's streams: the one raw stream, or every present stream of a NEFF in
    /// graph then engine order.
    pub fn units(&self) -> Vec<Unit<'_>> {
        match self {
            Input::Raw { name, bytes } => vec![Unit {
                label: name.clone(),
                subgraph: None,
                arch: None,
                engine: None,
                path: None,
                bytes,
            }],
            Input::Neff { neff, .. } => neff
                .streams()
                .filter_map(|s| {
                    Some(Unit {
                        label: s.label(),
                        subgraph: Some(&s.graph.name),
                        arch: s.graph.arch().and_then(|a| a.parse().ok()),
                        engine: Some(s.stream.engine),
                        path: s.stream.path.as_deref(),
                        bytes: s.data?,
                    })
                })
                .collect(),
        }
    }
}

/// Which NEFF streams a command looks at (`--subgraph`, `--engine`); raw streams always pass.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Only this graph (`sg00`).
    pub subgraph: Option<String>,
    /// Only this engine.
    pub engine: Option<Engine>,
}

impl Filter {
    /// A filter from the command-line values; an unknown engine name is an error.
    pub fn new(subgraph: Option<String>, engine: Option<&str>) -> Result<Filter> {
        let engine = match engine {
            None => None,
            Some(e) => match Engine::from_name(e) {
                Some(e) => Some(e),
                None => bail!("unknown engine '{e}' (expected one of pe, act, pool, dve, sp)"),
            },
        };
        Ok(Filter { subgraph, engine })
    }

    /// Whether the unit passes.
    pub fn keeps(&self, unit: &Unit<'_>) -> bool {
        let graph_ok =
            self.subgraph.as_deref().is_none_or(|g| unit.subgraph.is_none_or(|s| s == g));
        let engine_ok = self.engine.is_none_or(|e| unit.engine.is_none_or(|u| u == e));
        graph_ok && engine_ok
    }
}

/// A NEFF's members that are not engine streams: how many and how large, and the `.bin`
/// ones by name (data tables, some of them multiples of 64 bytes, never decoded).
pub struct Others {
    /// Members that are not streams.
    pub count: usize,
    /// Their bytes.
    pub bytes: usize,
    /// The `.bin` members among them: path and length.
    pub bins: Vec<(String, usize)>,
}

impl Others {
    /// The members of `neff` that no graph names as an engine stream.
    pub fn of(neff: &tpb_neff::Neff) -> Others {
        let mut o = Others { count: 0, bytes: 0, bins: Vec::new() };
        for m in neff.members().filter(|m| !neff.is_stream(m.path)) {
            o.count += 1;
            o.bytes += m.data.len();
            if m.path.ends_with(".bin") {
                o.bins.push((m.path.to_owned(), m.data.len()));
            }
        }
        o
    }

    /// The `.bin` members that are not streams, as a table (nothing when there are none).
    pub fn write_bins(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        if self.bins.is_empty() {
            return Ok(());
        }
        let mut rows = vec![row![".bin member (not a record stream)", "bytes"]];
        rows.extend(self.bins.iter().map(|(path, len)| row![path, len]));
        crate::table::table(out, &rows)
    }
}
