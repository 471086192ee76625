//! What the commands read: a NEFF file, an unpacked NEFF directory, a raw record stream
//! (or, with `--hex`, hex text spelling one), or `-` for standard input; each yields the
//! record streams it holds as [`Unit`]s.
//!
//! A file is a NEFF when it is named `*.neff` or its first bytes are a NEFF header
//! ([`tpb_neff::sniff`]); then a NEFF that cannot be read is an error, never a raw stream.
//! Anything else is a raw stream, as before NEFFs. Every input is read up to a limit
//! ([`READ_LIMIT_VAR`]), so an endless one (`/dev/zero`) is refused, not exhausted.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use tpb_isa::Arch;
use tpb_neff::{Engine, Neff, ReadOptions, Sniff};

use crate::hex_text;
use crate::records::DEFAULT_ARCH;
use crate::row;
use crate::text::escape;

/// The environment variable that sets the most bytes read from one input (and inflated
/// from one NEFF's payload): [`ReadOptions::max_inflated`], 1 GiB by default.
pub const READ_LIMIT_VAR: &str = "TPB_READ_LIMIT";

/// The engine names `--engine` takes, as every command lists them.
pub const ENGINES: &str = "pe, act, pool, dve, sp";

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
        /// Why it was not read as a NEFF, when its first bytes resemble a NEFF header.
        nearly_neff: Option<String>,
        /// Whether the input was hex text spelling the stream (`--hex`).
        hex: bool,
    },
}

/// One record stream of an input.
pub struct Unit<'a> {
    /// `sg00/PE` for a NEFF stream (escaped as the record text escapes a name); the
    /// input's name for a raw stream.
    pub label: String,
    /// The NEFF graph's name (`sg00`); `None` for a raw stream.
    pub subgraph: Option<&'a str>,
    /// The generation it is decoded in: `--arch`, else a NEFF's target, else (a NEFF
    /// that names none) [`DEFAULT_ARCH`]; `None` for a raw stream without `--arch`,
    /// which [`records`](crate::records) decodes in [`DEFAULT_ARCH`] too.
    pub arch: Option<Arch>,
    /// Whether `arch` is [`DEFAULT_ARCH`] only because the NEFF names no known generation.
    pub arch_assumed: bool,
    /// The engine; `None` for a raw stream.
    pub engine: Option<Engine>,
    /// The member path of a NEFF stream.
    pub path: Option<&'a str>,
    /// The records.
    pub bytes: &'a [u8],
}

/// How to take an input whose kind its name and first bytes decide otherwise: the
/// `--raw` and `--neff` of every command that reads one.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct Format {
    /// Read the input as a raw record stream, even if it is named *.neff or its first
    /// bytes look like a NEFF header (as an assembled MATMUL's can).
    #[arg(long, conflicts_with = "neff")]
    pub raw: bool,
    /// Read the input as a NEFF, whatever its name or first bytes.
    #[arg(long)]
    pub neff: bool,
    /// Read the input as hex text spelling a raw record stream: two digits a byte in
    /// memory order, in runs separated by spaces or commas, each run optionally
    /// prefixed `0x` (a listing's hex column, `0a 00 0c`); `#` and `;` begin a comment.
    #[arg(long, conflicts_with_all = ["raw", "neff"])]
    pub hex: bool,
    /// The command takes NEFFs only (`tpb extract`, which offers none of the flags): a
    /// NEFF that does not read gets no hint of `--raw`.
    #[arg(skip)]
    pub neff_only: bool,
}

impl Unit<'_> {
    /// The label as JSON gives it: `sg00/PE` as the file has it (JSON escapes by
    /// itself; [`Unit::label`] is escaped for text), the input's name for a raw stream.
    pub fn json_label(&self) -> String {
        match (self.subgraph, self.engine) {
            (Some(g), Some(e)) => format!("{g}/{}", e.name()),
            _ => self.label.clone(),
        }
    }
}

/// An error when `-` (standard input) is among `files` more than once: the first read
/// takes all of it, so a second would be an empty stream counted as an input.
pub fn refuse_stdin_twice(files: &[std::path::PathBuf]) -> Result<()> {
    if files.iter().filter(|f| f.as_path() == Path::new("-")).count() > 1 {
        anyhow::bail!("`-` (standard input) is named more than once; it can be read once");
    }
    Ok(())
}

/// Several inputs, as objdump and readelf take several files: `each` writes one input's
/// text into a buffer, and the texts go to `out` in turn, a blank line between them,
/// each whole (an input that fails leaves nothing of itself). An input that fails is
/// said on standard error and the rest go on; how many failed.
pub fn each_input(
    files: &[std::path::PathBuf],
    out: &mut dyn std::io::Write,
    mut each: impl FnMut(&Path, &mut Vec<u8>) -> Result<()>,
) -> Result<usize> {
    refuse_stdin_twice(files)?;
    let (mut failed, mut written) = (0, false);
    for file in files {
        let mut text = Vec::new();
        match each(file, &mut text) {
            Ok(()) => {
                let sep = if std::mem::replace(&mut written, true) { &b"\n"[..] } else { b"" };
                let wrote = out.write_all(sep).and_then(|()| out.write_all(&text));
                wrote.map_err(|e| output_ended(e.into(), failed))?;
            }
            Err(e) => {
                failed += 1;
                eprintln!("error: {e:#}");
            }
        }
    }
    Ok(failed)
}

/// The error that ends a run of several inputs at an output error `e`: a closed pipe
/// ends it quietly (exit 0, as for one input), unless an input failed before it, which
/// was said and keeps the run's exit status 2.
pub fn output_ended(e: anyhow::Error, failed: usize) -> anyhow::Error {
    let closed = e
        .downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe);
    if closed && failed > 0 {
        crate::Reported.into()
    } else {
        e
    }
}

/// Read an input as [`read`] does, and say on standard error what was odd about it.
pub fn load(arg: &Path, format: Format) -> Result<Input> {
    let input = read(arg, format)?;
    input.warn();
    Ok(input)
}

/// How messages name standard input.
pub const STDIN: &str = "<stdin>";

/// Read an input: `-` is standard input, a directory an unpacked NEFF; `format` can
/// say which it is. Nothing is printed: the caller shows the warnings ([`Input::warn`])
/// or lists them.
pub fn read(arg: &Path, format: Format) -> Result<Input> {
    let stdin = arg == Path::new("-");
    // Standard input is `<stdin>` in every message, as `tpb asm` names it.
    let name = if stdin { STDIN.to_owned() } else { arg.display().to_string() };
    let options = options()?;
    if !stdin && is_dir(arg)? {
        if format.raw || format.hex {
            let flag = if format.raw {
                "--raw reads a file of records"
            } else {
                "--hex reads a file of hex text"
            };
            bail!("{name} is a directory; {flag}");
        }
        let neff = Neff::from_dir(arg, &options).map_err(|e| {
            let e = read_error(e, &format!("{name}: not a readable NEFF directory"));
            match neff_files_below(arg) {
                Some(hint) => anyhow!("{e:#}; {hint}"),
                None => e,
            }
        })?;
        return Ok(Input::Neff { name, neff: Box::new(neff) });
    }
    let bytes = bytes_under(arg, options.max_inflated)?;
    if format.hex {
        let bytes = hex_text::parse(&bytes).map_err(|e| anyhow!("{name}:{e}"))?;
        return Ok(Input::Raw { name, bytes, nearly_neff: None, hex: true });
    }
    if format.raw {
        return Ok(Input::Raw { name, bytes, nearly_neff: None, hex: false });
    }
    let named_neff = !stdin && arg.extension().is_some_and(|e| e.eq_ignore_ascii_case("neff"));
    from_bytes(name, bytes, named_neff || format.neff, format.neff || format.neff_only, &options)
}

/// Folders looked into, at most, for the hint of [`neff_files_below`]: it runs on an
/// error path and must not walk a large tree.
const HINT_DIRS: usize = 64;

/// For a directory that is not an unpacked NEFF: the NEFF files (`*.neff`) in it or in
/// folders below it, as a hint that a directory is read as one unpacked NEFF and files
/// are named one by one. `None` when there are none (within [`HINT_DIRS`] folders).
fn neff_files_below(dir: &Path) -> Option<String> {
    let mut found: Vec<PathBuf> = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    let mut seen = 0;
    while let Some(folder) = folders.pop() {
        seen += 1;
        if seen > HINT_DIRS {
            break;
        }
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.file_name()));
        for entry in entries {
            let path = entry.path();
            // Not through links: a loop of them would be walked until the limit.
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                folders.push(path);
            } else if kind.is_file()
                && path.extension().is_some_and(|e| e.eq_ignore_ascii_case("neff"))
            {
                found.push(path);
            }
        }
    }
    let first = found.iter().min()?;
    let others = found.len() - 1;
    let more = match others {
        0 => String::new(),
        1 => " and 1 more".to_owned(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "a directory is read as one unpacked NEFF, and this one holds NEFF files: name them \
         one by one ({}{more})",
        first.display()
    ))
}

/// Whether `arg` is a directory; an error (once: `io::Error` names no path) when it
/// cannot be looked at.
fn is_dir(arg: &Path) -> Result<bool> {
    match std::fs::metadata(arg) {
        Ok(m) => Ok(m.is_dir()),
        Err(e) => bail!("reading {}: {e}", arg.display()),
    }
}

/// The bytes of `arg` (`-` for standard input) under the read limit, as they are: what
/// a command that reads text (`tpb asm`) takes.
pub fn read_bytes(arg: &Path) -> Result<Vec<u8>> {
    bytes_under(arg, options()?.max_inflated)
}

/// The bytes of `arg` (`-` for standard input), refusing more than `limit`.
fn bytes_under(arg: &Path, limit: u64) -> Result<Vec<u8>> {
    if arg == Path::new("-") {
        return tpb_neff::read_input(std::io::stdin().lock(), Path::new(STDIN), limit)
            .map_err(|e| read_error(e, "reading standard input"));
    }
    tpb_neff::read_file(arg, limit)
        .map_err(|e| read_error(e, &format!("reading {}", arg.display())))
}

/// The read limits: the defaults, or [`READ_LIMIT_VAR`]'s byte count.
fn options() -> Result<ReadOptions> {
    let mut options = ReadOptions::default();
    if let Some(v) = std::env::var_os(READ_LIMIT_VAR) {
        let v = v.to_string_lossy();
        options.max_inflated = v
            .trim()
            .parse()
            .with_context(|| format!("{READ_LIMIT_VAR}='{v}': expected a number of bytes"))?;
    }
    Ok(options)
}

/// A NEFF library error in `context`, as one message: its text and its sources' (an I/O
/// error names the path, and its source the system's reason), and a limit's says how to
/// raise the limit.
fn read_error(e: tpb_neff::Error, context: &str) -> anyhow::Error {
    use tpb_neff::Error::{
        DirectoryEntries, DirectoryLimit, InflateLimit, InputLimit, Io, StreamsLimit,
    };
    let text = with_sources(&e);
    match e {
        // It names the input itself.
        InputLimit { .. } => anyhow!("{text}; set {READ_LIMIT_VAR} to raise it"),
        InflateLimit { .. }
        | DirectoryLimit { .. }
        | DirectoryEntries { .. }
        | StreamsLimit { .. } => {
            anyhow!("{context}: {text}; set {READ_LIMIT_VAR} to raise it")
        }
        Io { .. } if context.starts_with("reading ") => anyhow!("{text}"),
        _ => anyhow!("{context}: {text}"),
    }
}

/// An error's text, then each of its sources', after `: `.
fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}

/// Whether `bytes` are text (UTF-8 without control characters but tabs and line ends, at
/// least a record's worth): a listing or a note given where a stream was meant. A real
/// record holds small values and zero bytes in its preamble, so no stream of them is text.
fn looks_like_text(bytes: &[u8]) -> bool {
    let text = |s: &str| !s.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'));
    bytes.len() >= tpb_isa::RECORD_SIZE && std::str::from_utf8(bytes).is_ok_and(text)
}

/// The input as a NEFF when `neff` (its name or `--neff` says so) or its first bytes are a
/// NEFF header, else as a raw stream. A sniffed NEFF that does not read is an error whose
/// text says how to read the bytes as a stream; `forced` (`--neff`, or a command that
/// reads NEFFs only) needs no such hint.
fn from_bytes(
    name: String,
    bytes: Vec<u8>,
    neff: bool,
    forced: bool,
    options: &ReadOptions,
) -> Result<Input> {
    let why = match tpb_neff::sniff(&bytes) {
        Sniff::Neff if neff => "not a readable NEFF",
        Sniff::Neff => "starts with a NEFF header but is not a readable NEFF",
        _ if neff => "not a readable NEFF",
        Sniff::Raw => return Ok(Input::Raw { name, bytes, nearly_neff: None, hex: false }),
        Sniff::NearlyNeff(why) => {
            return Ok(Input::Raw { name, bytes, nearly_neff: Some(why), hex: false })
        }
    };
    let neff = Neff::from_bytes(&bytes, options).map_err(|e| {
        // Only an error of the header or the gzip member can be a raw stream's: a
        // payload that inflated (to a tar, JSON, ...) is a NEFF, and one over the limit
        // is too (the limit, not --raw, is the way on); so is one whose gzip member was
        // read whole and followed by bytes that are not padding.
        use tpb_neff::Error as E;
        let header = matches!(
            e,
            E::TruncatedHeader { .. }
                | E::HeaderSizeTooSmall { .. }
                | E::HeaderSizePastEnd { .. }
                | E::DataSizePastEnd { .. }
                | E::Gzip { .. }
        );
        let hint =
            if forced || !header { "" } else { "; if it is a raw record stream, pass --raw" };
        anyhow!("{}{hint}", read_error(e, &format!("{name}: {why}")))
    })?;
    Ok(Input::Neff { name, neff: Box::new(neff) })
}

impl Input {
    /// The name the input was given by.
    pub fn name(&self) -> &str {
        match self {
            Input::Neff { name, .. } | Input::Raw { name, .. } => name,
        }
    }

    /// What was odd but not fatal, one line each: the NEFF's warnings, or why a raw
    /// stream that resembles a NEFF was not read as one.
    pub fn warnings(&self) -> Vec<String> {
        match self {
            Input::Neff { neff, .. } => {
                let mut w: Vec<String> = neff.warnings().iter().map(ToString::to_string).collect();
                // Never fatal: the header's hash is the packager's; the payload is read
                // as it is (`tpb info` shows both digests).
                if let Some(h @ tpb_neff::HashStatus::Mismatch { .. }) = neff.hash() {
                    w.push(format!("{h}; the payload is read as it is"));
                }
                w
            }
            Input::Raw { bytes, nearly_neff, hex, .. } => {
                let mut w: Vec<String> = nearly_neff
                    .iter()
                    .map(|why| format!("read as a raw record stream, not a NEFF: {why}"))
                    .collect();
                if !hex && looks_like_text(bytes) {
                    let hint = if hex_text::parse(bytes).is_ok() {
                        "; it reads as hex digits, which --hex takes as the bytes they spell"
                    } else {
                        "; a listing is read back with `tpb asm`"
                    };
                    w.push(format!(
                        "it reads as text, which no record stream does (records hold \
                         small binary values){hint}"
                    ));
                }
                w
            }
        }
    }

    /// Print [`Input::warnings`] on standard error, each with the input's name.
    pub fn warn(&self) {
        for w in self.warnings() {
            eprintln!("warning: {}: {w}", self.name());
        }
    }

    /// The input's streams: the one raw stream, or every present stream of a NEFF in
    /// graph then engine order.
    pub fn units(&self) -> Vec<Unit<'_>> {
        match self {
            Input::Raw { name, bytes, .. } => vec![Unit {
                label: name.clone(),
                subgraph: None,
                arch: None,
                arch_assumed: false,
                engine: None,
                path: None,
                bytes,
            }],
            Input::Neff { neff, .. } => neff
                .streams()
                .filter_map(|s| {
                    let arch = graph_arch(s.graph);
                    Some(Unit {
                        // The graph's name is the file's: escaped once, here, for every
                        // line and message that names the stream.
                        label: escape(s.label().as_bytes()),
                        subgraph: Some(&s.graph.name),
                        arch: arch.or(Some(DEFAULT_ARCH)),
                        arch_assumed: arch.is_none(),
                        engine: Some(s.stream.engine),
                        path: s.stream.path.as_deref(),
                        bytes: s.data?,
                    })
                })
                .collect(),
        }
    }
}

/// Decode every unit in `given` (`--arch`) when there is one; otherwise warn, once per
/// subgraph, of the NEFF streams decoded in [`DEFAULT_ARCH`] because their NEFF names no
/// known generation (as objdump decodes with a stated default rather than refusing).
pub fn set_arch(input: &Input, units: &mut [Unit<'_>], given: Option<Arch>) {
    if let Some(a) = given {
        for u in units.iter_mut() {
            u.arch = Some(a);
            u.arch_assumed = false;
        }
        return;
    }
    let mut graphs: Vec<&str> =
        units.iter().filter(|u| u.arch_assumed).filter_map(|u| u.subgraph).collect();
    graphs.dedup();
    // Each graph by name once: a search of the graphs per warning is graphs².
    let by_name: std::collections::BTreeMap<&str, &tpb_neff::Graph> = match input {
        Input::Neff { neff, .. } => neff.graphs().iter().map(|g| (g.name.as_str(), g)).collect(),
        Input::Raw { .. } => std::collections::BTreeMap::new(),
    };
    // One warning per target said, naming its graphs (a NEFF of thousands of graphs
    // gets a line, not thousands), in the order the graphs come.
    let mut by_target: Vec<(String, Vec<&str>)> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for g in graphs {
        let target = target_of(by_name.get(g).copied());
        let i = *index.entry(target.clone()).or_insert_with(|| {
            by_target.push((target, Vec::new()));
            by_target.len() - 1
        });
        by_target[i].1.push(g);
    }
    for (target, graphs) in by_target {
        let which = match graphs.as_slice() {
            [one] => format!("{} names", escape(one.as_bytes())),
            [first, second, third] => format!(
                "{}, {} and {} name",
                escape(first.as_bytes()),
                escape(second.as_bytes()),
                escape(third.as_bytes())
            ),
            [first, second] => {
                format!("{} and {} name", escape(first.as_bytes()), escape(second.as_bytes()))
            }
            [first, ..] => {
                format!("{} graphs ({}, …) name", graphs.len(), escape(first.as_bytes()))
            }
            [] => continue,
        };
        eprintln!(
            "warning: {}: {which} no known generation ({target}); decoding as {}, the default; \
             --arch picks another",
            input.name(),
            DEFAULT_ARCH.name()
        );
    }
}

/// The generation a NEFF graph's kelf target names: one the NEFF reader knows, or a
/// name `--arch` takes (a label or alias: `V3`, `trn2`), read alike.
pub fn graph_arch(g: &tpb_neff::Graph) -> Option<Arch> {
    let name = g.arch().or(g.target.as_ref().map(tpb_neff::Target::as_str))?;
    name.parse().ok()
}

/// The word the JSON gives a NEFF's hash check (`tpb info`, `tpb validate`).
pub fn hash_word(h: &tpb_neff::HashStatus) -> &'static str {
    match h {
        tpb_neff::HashStatus::Match => "match",
        tpb_neff::HashStatus::MatchWordSwapped => "match_word_swapped",
        tpb_neff::HashStatus::Mismatch { .. } => "mismatch",
    }
}

/// What a NEFF graph's kelf says its target is, for a warning.
fn target_of(graph: Option<&tpb_neff::Graph>) -> String {
    let Some(graph) = graph else { return String::new() };
    match graph.target.as_ref() {
        Some(t) => format!("target \"{}\"", escape(t.as_str().as_bytes())),
        None => "its kelf has no target".to_owned(),
    }
}

/// Which NEFF streams a command looks at (`--subgraph`, `--engine`); a raw stream has
/// none to pick from ([`Filter::check`]).
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
                None => bail!("unknown engine '{e}' (expected one of {ENGINES})"),
            },
        };
        Ok(Filter { subgraph, engine })
    }

    /// An error when a filter is given for a raw stream: it has no subgraphs or engines
    /// to pick from, and ignoring the filter would look like the filter matched.
    pub fn check(&self, input: &Input) -> Result<()> {
        if let Input::Raw { name, .. } = input {
            if self.subgraph.is_some() || self.engine.is_some() {
                bail!(
                    "{name} is a raw record stream, without subgraphs or engines: \
                     --subgraph and --engine apply to NEFFs only"
                );
            }
        }
        Ok(())
    }

    /// The input's units the filter keeps; an error when it is given for a raw stream
    /// ([`Filter::check`]) or keeps none, so that a filter that matches nothing is
    /// never taken for an empty result.
    pub fn select<'a>(&self, input: &'a Input) -> Result<Vec<Unit<'a>>> {
        self.check(input)?;
        let units: Vec<Unit<'a>> = input.units().into_iter().filter(|u| self.keeps(u)).collect();
        if units.is_empty() {
            // Which options narrowed it, if any: with none, the NEFF has no stream at all.
            let given = match (&self.subgraph, &self.engine) {
                (None, None) => "no stream",
                (Some(_), None) => "no stream matches the --subgraph given",
                (None, Some(_)) => "no stream matches the --engine given",
                (Some(_), Some(_)) => "no stream matches the --subgraph and --engine given",
            };
            // The graphs name streams that pass but no member holds: listing the
            // subgraphs (among them the one asked for) would not say why.
            let absent = self.absent(input);
            if !absent.is_empty() {
                bail!(
                    "{}: {given}: {} absent (its graph names it, no member holds it)",
                    input.name(),
                    absent.join(", ")
                );
            }
            bail!("{}: {given} (its subgraphs: {})", input.name(), subgraphs(input));
        }
        Ok(units)
    }

    /// Whether the unit passes.
    pub fn keeps(&self, unit: &Unit<'_>) -> bool {
        self.passes(unit.subgraph, unit.engine)
    }

    /// Whether a stream of graph `subgraph` and engine `engine` passes (`None`: a raw
    /// stream, which has neither).
    fn passes(&self, subgraph: Option<&str>, engine: Option<Engine>) -> bool {
        let graph_ok = self.subgraph.as_deref().is_none_or(|g| subgraph.is_none_or(|s| s == g));
        let engine_ok = self.engine.is_none_or(|e| engine.is_none_or(|u| u == e));
        graph_ok && engine_ok
    }

    /// The labels (`sg00/PE`, escaped) of the streams of a NEFF input that pass and are
    /// absent: a graph names them but no member holds them (legal; `tpb info` lists them
    /// as absent), so a command that reads streams says it did not read them.
    pub fn absent(&self, input: &Input) -> Vec<String> {
        self.absent_unescaped(input).iter().map(|l| escape(l.as_bytes())).collect()
    }

    /// [`Filter::absent`] as the file has the labels, for JSON (which escapes by itself).
    pub fn absent_unescaped(&self, input: &Input) -> Vec<String> {
        let Input::Neff { neff, .. } = input else { return Vec::new() };
        neff.streams()
            .filter(|s| s.data.is_none() && self.passes(Some(&s.graph.name), Some(s.stream.engine)))
            .map(|s| s.label())
            .collect()
    }
}

/// The names of a NEFF's subgraphs, escaped, for an error that lists them.
fn subgraphs(input: &Input) -> String {
    let Input::Neff { neff, .. } = input else { return String::new() };
    let names: Vec<String> = neff.graphs().iter().map(|g| escape(g.name.as_bytes())).collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
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
        // The stream paths once, as `Neff::is_stream` would find them: asking it of each
        // member walks every graph's streams per member (members × graphs, minutes for
        // a NEFF of tens of thousands of tiny graphs).
        let streams: std::collections::BTreeSet<&str> = neff
            .streams()
            .filter(|s| s.stream.is_present())
            .filter_map(|s| s.stream.path.as_deref())
            .collect();
        for m in neff.members().filter(|m| !streams.contains(m.path)) {
            o.count += 1;
            o.bytes += m.size as usize;
            if m.path.ends_with(".bin") {
                o.bins.push((m.path.to_owned(), m.size as usize));
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
        rows.extend(self.bins.iter().map(|(path, len)| row![escape(path.as_bytes()), len]));
        crate::table::table(out, &rows)
    }
}
