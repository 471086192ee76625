//! Read AWS Neuron NEFF executables: the header, the payload's members, and the TPB
//! instruction-record streams per subgraph and engine.
//!
//! A NEFF is a 1024-byte header ([`Header`]), then `data_size` bytes holding one gzip
//! member and zero padding; inside is a tar whose top-level `kelf-*.json` lists the
//! subgraphs, each with a `def.json` naming one stream per engine ([`Graph`], [`Stream`]).
//! The streams are pre-relocation: the runtime rewrites their pseudo-ops and adds the
//! EXIT when it loads them. An unpacked NEFF directory reads through the same API.
//!
//! ```
//! use std::error::Error;
//!
//! use tpb_neff::{Engine, Neff, ReadOptions};
//!
//! fn main() -> Result<(), Box<dyn Error>> {
//!     # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/nkipy/matmul_small.neff");
//!     # /*
//!     let path = "matmul_small.neff"; // or an unpacked NEFF folder
//!     # */
//!     let neff = Neff::open(path, &ReadOptions::default())?;
//!     if let (Some(header), Some(hash)) = (neff.header(), neff.hash()) {
//!         println!("NEFF {}.{}, {hash}", header.neff_version_major, header.neff_version_minor);
//!     }
//!     for s in neff.streams() {
//!         let n = s.data.map_or(0, |d| d.len() / 64);
//!         println!("{} ({}): {n} records", s.label(), s.graph.arch().unwrap_or("?"));
//!     }
//!     // The same from bytes in memory, and one stream by graph and engine.
//!     let neff = Neff::from_bytes(&std::fs::read(path)?, &ReadOptions::default())?;
//!     let sg00 = neff.graphs().iter().find(|g| g.name == "sg00").ok_or("no sg00")?;
//!     let pe = sg00.streams.iter().find(|s| s.engine == Engine::Pe).ok_or("no PE")?;
//!     assert_eq!(neff.stream_data(pe).map(<[u8]>::len), Some(12 * 64));
//!     Ok(())
//! }
//! ```
//!
//! Nothing in a file is trusted: sizes are checked against the input before anything is
//! allocated, the input read and its inflation are capped ([`ReadOptions::max_inflated`],
//! [`read_input`]), a NEFF is told from a raw stream by its header's markers ([`sniff`]),
//! text quoted from the file in messages is escaped, member and JSON paths
//! that are absolute or contain `..` are refused, links are never followed, and every
//! failure is a typed [`Error`]. The header's MD5 is checked and reported
//! ([`HashStatus`]), never fatal; for a payload of 256 KiB or more, on a thread of its
//! own while the payload inflates.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod dir;
pub mod error;
mod graph;
mod hash;
pub mod header;
mod json;
mod members;
mod payload;
mod short;
mod sys;

use std::borrow::Cow;
use std::path::Path;

use serde_json::{Map, Value};

pub use error::{Error, Result, Warning};
pub use graph::{Engine, Graph, Stream, Target, UnknownEngine};
pub use hash::HashStatus;
pub use header::{sniff, Header, Sniff, HEADER_LEN};
pub use members::Member;

/// Whether `bytes` start with a NEFF header ([`sniff`] says [`Sniff::Neff`]): read them
/// as a NEFF, and report its errors, rather than as a raw record stream.
#[must_use]
pub fn looks_like_neff(bytes: &[u8]) -> bool {
    sniff(bytes) == Sniff::Neff
}

/// Read all of `from` (a file, standard input), named `path` in errors, refusing more
/// than `limit` bytes: an endless source stops one byte past the limit, and the buffer
/// never grows past that byte.
///
/// # Errors
///
/// [`Error::Io`], [`Error::InputLimit`].
pub fn read_input(from: impl std::io::Read, path: &Path, limit: u64) -> Result<Vec<u8>> {
    read_bounded(from, path, limit, 0)
}

/// Read the file at `path` as [`read_input`] does; a regular file's length sizes the
/// buffer at once, but a device or FIFO (`/dev/zero`) is read only up to the limit.
///
/// # Errors
///
/// [`Error::Io`], [`Error::InputLimit`].
pub fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    // A regular file's length is known: one past the limit is refused before a byte
    // is read (a 3 GiB file would otherwise fill a buffer of the limit first).
    if meta.is_file() && meta.len() > limit {
        return Err(Error::InputLimit { path: path.to_path_buf(), limit });
    }
    read_bounded(file, path, limit, meta.len())
}

fn read_bounded(from: impl std::io::Read, path: &Path, limit: u64, hint: u64) -> Result<Vec<u8>> {
    let cap = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
    let hint = usize::try_from(hint.saturating_add(1)).unwrap_or(usize::MAX).min(cap);
    let bytes = read_capped(from, cap, hint)
        .map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    if bytes.len() as u64 > limit {
        return Err(Error::InputLimit { path: path.to_path_buf(), limit });
    }
    Ok(bytes)
}

/// Read `from` until its end or `cap` bytes, into a buffer of `hint` bytes first (one
/// more than a file's length, to see its end), then grown by doubling but never past
/// `cap` (`read_to_end` would double past it, to twice the limit).
fn read_capped(mut from: impl std::io::Read, cap: usize, hint: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(hint);
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            if filled == cap {
                return Ok(buf);
            }
            let grow = filled.max(64 << 10).max(buf.capacity() - filled).min(cap - filled);
            buf.reserve_exact(grow);
            buf.resize(filled + grow, 0);
        }
        match from.read(&mut buf[filled..]) {
            Ok(0) => {
                buf.truncate(filled);
                return Ok(buf);
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Limits for reading untrusted input: the defaults, or set field by field
/// (`ReadOptions::default().with_max_inflated(64 << 20)`, or assign the field). New
/// limits may be added, so the struct is not built with a literal outside this crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ReadOptions {
    /// The most bytes the payload may inflate to, and that the reader keeps of it (the
    /// members' bytes and their paths; see [`Error::InflateLimit`]), and the members
    /// read from an unpacked directory may come to, and a file read by [`Neff::open`]
    /// or [`read_input`] may be; more is [`Error::InflateLimit`]
    /// ([`Error::DirectoryLimit`], [`Error::InputLimit`]). One limit serves both because
    /// a gzip file is never much larger than what it inflates to. Memory use is bounded
    /// by about twice this (the file, and what is kept of its payload, with some bytes
    /// of bookkeeping per member).
    pub max_inflated: u64,
}

impl Default for ReadOptions {
    /// 1 GiB: far above any NEFF seen (the corpus inflates to under 4 MiB), far below a bomb.
    fn default() -> ReadOptions {
        ReadOptions { max_inflated: 1 << 30 }
    }
}

impl ReadOptions {
    /// These options with [`ReadOptions::max_inflated`] set to `bytes`.
    #[must_use]
    pub const fn with_max_inflated(mut self, bytes: u64) -> ReadOptions {
        self.max_inflated = bytes;
        self
    }
}

/// The most bytes of `info.json` parsed: it is a small object in every NEFF seen
/// (614 bytes), and a parsed JSON value costs many times its text.
const INFO_MAX: u64 = 1 << 20;

/// `info.json`, when present, an object and at most [`INFO_MAX`] bytes; anything else
/// about it is a warning.
fn info(store: &mut members::Store, warnings: &mut Vec<Warning>) -> Option<Info> {
    let size = store.get("info.json")?.size;
    if size > INFO_MAX {
        warnings.push(Warning::Info(format!("{size} bytes, more than the {INFO_MAX} read")));
        return None;
    }
    if let Err(e) = store.load("info.json") {
        warnings.push(Warning::Info(e.to_string()));
        return None;
    }
    let data = store.get("info.json")?.data;
    match serde_json::from_slice(data) {
        Ok(Value::Object(json)) => Some(Info { json }),
        Ok(_) => {
            warnings.push(Warning::Info("not a JSON object".into()));
            None
        }
        Err(e) => {
            warnings.push(Warning::Info(e.to_string()));
            None
        }
    }
}

/// A NEFF read into memory: header, members and graphs.
#[derive(Clone, Debug)]
pub struct Neff {
    header: Option<Header>,
    hash: Option<HashStatus>,
    store: members::Store,
    graphs: Vec<Graph>,
    info: Option<Info>,
    warnings: Vec<Warning>,
}

/// What `info.json` says about the compiler run, when the NEFF has one.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// The whole object.
    pub json: Map<String, Value>,
}

impl Info {
    /// `tool_version`: the compiler's version (`2.23.6484.0+3b612583`).
    #[must_use]
    pub fn tool_version(&self) -> Option<&str> {
        self.json.get("tool_version").and_then(Value::as_str)
    }
}

/// One engine stream with its graph and bytes, as [`Neff::streams`] yields it.
#[derive(Clone, Copy)]
pub struct StreamView<'a> {
    /// The graph it belongs to.
    pub graph: &'a Graph,
    /// The stream entry.
    pub stream: &'a Stream,
    /// Its bytes, `None` when the stream is absent.
    pub data: Option<&'a [u8]>,
}

/// The graph's name and the stream, its bytes by length (a stream is megabytes).
impl std::fmt::Debug for StreamView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamView")
            .field("graph", &self.graph.name)
            .field("stream", self.stream)
            .field("data", &self.data.map(short::Short))
            .finish()
    }
}

impl StreamView<'_> {
    /// `sg00/PE`: the graph and the engine's display name.
    #[must_use]
    pub fn label(&self) -> String {
        format!("{}/{}", self.graph.name, self.stream.engine.name())
    }
}

impl Neff {
    /// Read a NEFF file, or an unpacked NEFF directory.
    ///
    /// # Errors
    ///
    /// [`Error::Io`], [`Error::InputLimit`], and as [`Neff::from_bytes`] or [`Neff::from_dir`].
    pub fn open(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Neff> {
        let path = path.as_ref();
        let io = |source| Error::Io { path: path.to_path_buf(), source };
        if std::fs::metadata(path).map_err(io)?.is_dir() {
            Neff::from_dir(path, options)
        } else {
            Neff::from_bytes(&read_file(path, options.max_inflated)?, options)
        }
    }

    /// Read a NEFF from its bytes.
    ///
    /// # Errors
    ///
    /// Header errors ([`Error::TruncatedHeader`], [`Error::HeaderSizeTooSmall`],
    /// [`Error::HeaderSizePastEnd`], [`Error::DataSizePastEnd`]), payload errors
    /// ([`Error::Gzip`], [`Error::InflateLimit`], [`Error::TrailingData`],
    /// [`Error::Tar`], [`Error::UnsafeMemberPath`]), and graph errors as
    /// [`Neff::from_dir`].
    pub fn from_bytes(bytes: &[u8], options: &ReadOptions) -> Result<Neff> {
        let header = Header::parse(bytes)?;
        let mut warnings = Vec::new();
        if header.pkg_version != 2 {
            warnings.push(Warning::PkgVersion(header.pkg_version));
        }
        let window = &bytes[header.payload_range()];
        let after = bytes.len() - header.payload_range().end;
        if after > 0 {
            warnings.push(Warning::TrailingFileBytes(after as u64));
        }
        let (hash, store) = hash::check_while(&header.hash, window, || {
            payload::read(window, options.max_inflated, &mut warnings)
        });
        Neff::finish(Some(header), Some(hash), store?, warnings, options.max_inflated)
    }

    /// Read an unpacked NEFF directory (a folder holding `kelf-0.json`, `sg00/`, …).
    /// Every file is listed with its size, but only those the reader needs are read:
    /// the `kelf-*.json`, the JSON members they and the `def.json`s name, the streams
    /// and `info.json` (see [`Neff::read_member`] for the others).
    ///
    /// # Errors
    ///
    /// [`Error::Io`], [`Error::DirectoryLimit`], [`Error::DirectoryEntries`], and graph
    /// errors: [`Error::NoKelf`] (before anything below the top level is listed),
    /// [`Error::MissingMember`], [`Error::Json`], [`Error::Schema`],
    /// [`Error::UnsafeReference`], [`Error::NamedLink`], [`Error::DuplicateGraph`],
    /// [`Error::StreamsLimit`],
    /// [`Error::NotAFile`] (a named member that is special, or not a regular file in the
    /// folder when read: links are not followed on any component of its path), and
    /// [`Error::Unlisted`] (a named member in a subfolder that could not be listed).
    pub fn from_dir(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Neff> {
        let mut warnings = Vec::new();
        let store = dir::read(path.as_ref(), options.max_inflated, &mut warnings)?;
        Neff::finish(None, None, store, warnings, options.max_inflated)
    }

    fn finish(
        header: Option<Header>,
        hash: Option<HashStatus>,
        mut store: members::Store,
        mut warnings: Vec<Warning>,
        limit: u64,
    ) -> Result<Neff> {
        let graphs = graph::graphs(&mut store, limit)?;
        let info = info(&mut store, &mut warnings);
        Ok(Neff { header, hash, store, graphs, info, warnings })
    }

    /// The header; `None` for an unpacked directory, which has none.
    #[must_use]
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// The hash check; `None` for an unpacked directory.
    #[must_use]
    pub fn hash(&self) -> Option<HashStatus> {
        self.hash
    }

    /// Every member in archive order (a repeated path only once, its last copy), with
    /// its size. From an unpacked directory, only the members the reader needs hold
    /// their bytes ([`Member::loaded`]); read the others with [`Neff::read_member`].
    pub fn members(&self) -> impl Iterator<Item = Member<'_>> + '_ {
        self.store.iter()
    }

    /// The bytes of the member at a normalised path (`sg00/def.json`); `None` when there
    /// is none, or when it is a member of an unpacked directory that the reader did not
    /// need (see [`Neff::read_member`]).
    #[must_use]
    pub fn member(&self, path: &str) -> Option<&[u8]> {
        self.store.get(path).filter(|m| m.loaded).map(|m| m.data)
    }

    /// The bytes of the member at a normalised path, `None` when there is none: the
    /// bytes held, or (a member of an unpacked directory the reader did not need) read
    /// from its file now, within [`ReadOptions::max_inflated`], and not kept.
    ///
    /// # Errors
    ///
    /// [`Error::Io`], [`Error::DirectoryLimit`], [`Error::NotAFile`].
    pub fn read_member(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>> {
        self.store.read(path)
    }

    /// The graphs (subgraphs) of every `kelf`, in order.
    #[must_use]
    pub fn graphs(&self) -> &[Graph] {
        &self.graphs
    }

    /// The bytes of a stream of one of this NEFF's graphs; `None` when it is absent, or
    /// when `stream` comes from another NEFF whose member this one does not hold at that path.
    #[must_use]
    pub fn stream_data(&self, stream: &Stream) -> Option<&[u8]> {
        let path = stream.path.as_deref()?;
        stream.member.and_then(|i| self.store.at_path(i, path)).map(|m| m.data)
    }

    /// Every engine stream of every graph, absent ones included.
    pub fn streams(&self) -> impl Iterator<Item = StreamView<'_>> + '_ {
        self.graphs.iter().flat_map(move |graph| {
            graph.streams.iter().map(move |stream| StreamView {
                graph,
                stream,
                data: self.stream_data(stream),
            })
        })
    }

    /// Whether the member at `path` is some graph's engine stream (other `.bin` members,
    /// such as `default_*_table.bin`, are data even when their length is a multiple of 64).
    #[must_use]
    pub fn is_stream(&self, path: &str) -> bool {
        self.graphs
            .iter()
            .flat_map(|g| &g.streams)
            .any(|s| s.member.is_some() && s.path.as_deref() == Some(path))
    }

    /// `info.json`, when present and an object.
    #[must_use]
    pub fn info(&self) -> Option<&Info> {
        self.info.as_ref()
    }

    /// What was odd but not fatal: skipped links and special members, duplicates,
    /// unlistable subdirectories, entries that vanished while a folder was listed,
    /// trailing file bytes, an unknown `pkg_version`, a
    /// malformed or oversized `info.json`.
    #[must_use]
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
}
