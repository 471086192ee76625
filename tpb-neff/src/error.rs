//! Why a NEFF could not be read ([`Error`]), and what was odd about one that could ([`Warning`]).

use std::path::PathBuf;

use crate::header::HEADER_LEN;

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A NEFF (file, bytes or unpacked directory) that cannot be read. Every hostile or
/// broken input maps to one variant, with the member path or numbers that locate it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file or directory could not be read. The message names the path; the
    /// operating system's reason is the [`source`](std::error::Error::source), not
    /// repeated in the message (a report that prints the chain, as `anyhow`'s `{:#}`
    /// does, would say it twice).
    #[error("reading {}", shown_path(path))]
    Io {
        /// The path being read.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The input holds more bytes than the limit ([`ReadOptions::max_inflated`](crate::ReadOptions::max_inflated)):
    /// an endless source (`/dev/zero`, a pipe) is refused once it passes the limit.
    #[error("{}: more than {limit} bytes, the input limit", shown_path(path))]
    InputLimit {
        /// The path being read (or `standard input`).
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
    },
    /// The input is shorter than the 1024-byte header.
    #[error("truncated header: {len} bytes, a NEFF header is {HEADER_LEN}")]
    TruncatedHeader {
        /// The input's length.
        len: u64,
    },
    /// `header_size` is smaller than the header struct it follows.
    #[error("header_size {header_size} is smaller than the {HEADER_LEN}-byte header")]
    HeaderSizeTooSmall {
        /// The header's `header_size`.
        header_size: u64,
    },
    /// `header_size` points past the end of the input.
    #[error("header_size {header_size} is past the end of the {len}-byte file")]
    HeaderSizePastEnd {
        /// The header's `header_size`.
        header_size: u64,
        /// The input's length.
        len: u64,
    },
    /// The payload window `header_size + data_size` ends past the end of the input.
    #[error(
        "data_size {data_size} at offset {header_size} ends past the end of the {len}-byte file"
    )]
    DataSizePastEnd {
        /// The header's `header_size`.
        header_size: u64,
        /// The header's `data_size`.
        data_size: u64,
        /// The input's length.
        len: u64,
    },
    /// The payload is not one valid gzip member.
    #[error("payload is not a valid gzip member: {}", said(detail))]
    Gzip {
        /// What the decompressor said.
        detail: String,
    },
    /// The payload inflates to more than the configured limit ([`ReadOptions::max_inflated`](crate::ReadOptions::max_inflated)),
    /// or what the reader would keep of it does: the members' bytes, and twice each
    /// member's path (three times a link's, with its target) as read, a byte that is
    /// not UTF-8 as three.
    #[error(
        "payload inflates to more than {limit} bytes, or its members and their paths come to more (the limit)"
    )]
    InflateLimit {
        /// The limit in bytes.
        limit: u64,
    },
    /// Non-zero bytes follow the gzip member inside the payload window.
    #[error("non-zero byte at payload offset {offset} after the gzip member ({len} bytes follow it; only zero padding may)")]
    TrailingData {
        /// Offset of the first non-zero byte, from the start of the payload.
        offset: u64,
        /// How many bytes follow the gzip member.
        len: u64,
    },
    /// The inflated payload is not a readable tar archive.
    #[error("payload is not a readable tar archive: {}", said(detail))]
    Tar {
        /// What went wrong, with the member when known.
        detail: String,
    },
    /// A tar header block of the inflated payload is malformed.
    #[error("payload is not a readable tar archive: bad tar header at offset {offset} of the inflated payload ({})", shown(reason))]
    TarHeader {
        /// Offset of the header block in the inflated payload.
        offset: u64,
        /// What is wrong with it, in a few words.
        reason: String,
    },
    /// A tar member's path is absolute, climbs out with `..`, is too long, or (a file
    /// member) names no file (`.`, empty).
    #[error("member '{}' has an unsafe path ({why})", shown(path))]
    UnsafeMemberPath {
        /// The member's path as stored.
        path: String,
        /// `absolute`, `contains ..`, `longer than 4096 bytes` or `names no file`.
        why: &'static str,
    },
    /// The engine streams the graphs name come to more than the configured limit
    /// ([`ReadOptions::max_inflated`](crate::ReadOptions::max_inflated)), a member
    /// counted each time a graph names it: a small NEFF whose many graphs all name one
    /// large member would otherwise give its readers more records than any NEFF within
    /// the limit holds.
    #[error(
        "the engine streams the graphs name come to more than {limit} bytes (the limit), a member counted each time a graph names it"
    )]
    StreamsLimit {
        /// The limit in bytes.
        limit: u64,
    },
    /// The members read from an unpacked directory (its JSON members and streams) come
    /// to more than the configured limit.
    #[error("the directory's members to read come to more than {limit} bytes (the limit)")]
    DirectoryLimit {
        /// The limit in bytes.
        limit: u64,
    },
    /// An unpacked directory holds more entries than a payload of the limit could hold
    /// tar headers (one per 512 bytes of [`ReadOptions::max_inflated`](crate::ReadOptions::max_inflated),
    /// and at least 10 000), or paths whose bytes come to more than 512 per entry allowed.
    #[error("directory holds more than {limit} entries, or paths of more than 512 bytes each on average (one entry per 512 bytes of the limit, at least 10000)")]
    DirectoryEntries {
        /// The most entries allowed.
        limit: u64,
    },
    /// No top-level `kelf-*.json` member: nothing says where the subgraphs are.
    #[error("no top-level kelf-*.json member: this is not a NEFF, or its graph list is missing")]
    NoKelf,
    /// A member that a JSON member names does not exist.
    #[error("'{}' (named by {}) is not a member", shown(path), shown(named_by))]
    MissingMember {
        /// The path that was looked up.
        path: String,
        /// The member (or `kelf`'s graph entry) that named it.
        named_by: String,
    },
    /// A JSON member does not parse.
    #[error("{}: malformed JSON: {}", shown(member), said(detail))]
    Json {
        /// The member.
        member: String,
        /// What serde_json said.
        detail: String,
    },
    /// A JSON member parses but lacks a field this reader needs, or has it with the wrong type.
    #[error("{}: {}", shown(member), said(detail))]
    Schema {
        /// The member.
        member: String,
        /// What is wrong.
        detail: String,
    },
    /// A JSON member names a path that is absolute or climbs out with `..`, or a graph
    /// name that is not one plain path component.
    #[error("{} names '{}', an unsafe path ({why})", shown(named_by), shown(path))]
    UnsafeReference {
        /// The path as named.
        path: String,
        /// The member that named it.
        named_by: String,
        /// `absolute`, `contains ..`, or why a graph name is refused.
        why: &'static str,
    },
    /// A `kelf` lists a graph name or a definition a second time, or two `kelf`s list
    /// the same one: a NEFF names each subgraph once, and a repeated one would be read
    /// (and extracted) twice.
    #[error("{}", duplicate_text(first, kelf, what, value))]
    DuplicateGraph {
        /// The `kelf` member whose list repeats it.
        kelf: String,
        /// The `kelf` member that listed it first: `kelf` itself, or an earlier one.
        first: String,
        /// `name` or `definition`.
        what: &'static str,
        /// The repeated name or definition path.
        value: String,
    },
    /// A JSON member names a member that is a link (links are never followed).
    #[error(
        "{} names '{}', which is a link (links are never followed)",
        shown(named_by),
        shown(path)
    )]
    NamedLink {
        /// The path as named.
        path: String,
        /// The member that named it.
        named_by: String,
    },
    /// A member of an unpacked directory that is not a regular file when it is read, or
    /// a member (of a directory or a tar) a JSON member names that is special: a FIFO, a
    /// device, a folder, or a link or something else where a folder on its path should
    /// be (as when the directory changes while it is read). Nothing special is opened
    /// for reading, and links are never followed.
    #[error(
        "'{}' is not a {expected} but a {} (links are never followed, special files never read)",
        shown(path),
        shown(found)
    )]
    NotAFile {
        /// The path of what was found, in the NEFF: the member, or a folder on its path.
        path: String,
        /// `regular file` or `folder`.
        expected: &'static str,
        /// What is there instead, in a word or two (`fifo`, `link`, `character device`).
        found: String,
    },
    /// A member a JSON member names is below a subfolder of an unpacked NEFF that could
    /// not be listed (as [`Warning::Unreadable`] said).
    #[error(
        "'{}' (named by {}) is in folder '{}', which could not be listed: {}",
        shown(path),
        shown(named_by),
        shown(folder),
        said(detail)
    )]
    Unlisted {
        /// The path that was looked up.
        path: String,
        /// The member that named it.
        named_by: String,
        /// The folder that could not be listed.
        folder: String,
        /// What the operating system said.
        detail: String,
    },
}

/// Something odd about a NEFF that was still read; listed by [`Neff::warnings`](crate::Neff::warnings).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Warning {
    /// `pkg_version` is not 2 (gzip tar with MD5), the only packaging seen; read as 2 anyway.
    #[error("pkg_version {0} is not 2 (gzip tar with MD5); read as if it were")]
    PkgVersion(u64),
    /// The file goes on after the `header_size + data_size` window.
    #[error("{0} bytes after the payload window are ignored")]
    TrailingFileBytes(u64),
    /// A symbolic or hard link member, skipped and never followed.
    #[error(
        "link member '{}' -> '{}' skipped (links are never followed)",
        shown(path),
        shown(target)
    )]
    Link {
        /// The link's path.
        path: String,
        /// Where it points, as stored.
        target: String,
    },
    /// A member that is neither a regular file, a directory nor a link, skipped; `kind`
    /// is a word or two: `fifo`, `socket`, `block device`, `character device`, `sparse
    /// file`, `pax global header`, or `other (type 'X')` for another tar type byte.
    #[error("member '{}' of kind {} skipped", shown(path), shown(kind))]
    Special {
        /// The member's path.
        path: String,
        /// Its kind in plain words.
        kind: String,
    },
    /// Two members with the same path; the later one is used.
    #[error("member '{}' appears more than once; the last copy is used", shown(.0))]
    Duplicate(String),
    /// A subdirectory of an unpacked NEFF that cannot be listed: its members are missing.
    #[error("directory '{}' cannot be listed and was skipped: {}", shown(path), said(detail))]
    Unreadable {
        /// The subdirectory's path in the NEFF.
        path: String,
        /// What the operating system said.
        detail: String,
    },
    /// An entry of an unpacked NEFF that was gone by the time the walk looked at it
    /// (the folder changed while it was listed), skipped.
    #[error("entry '{}' vanished while the folder was listed and was skipped", shown(.0))]
    Vanished(String),
    /// A directory entry whose name is not UTF-8, skipped.
    #[error("entry '{}' has a name that is not UTF-8 and was skipped", shown(.0))]
    NonUtf8(String),
    /// `info.json` is present but not a JSON object.
    #[error("info.json: {}", said(.0))]
    Info(String),
}

/// [`Error::DuplicateGraph`]'s text: one `kelf` that lists a graph twice, or two that
/// both list it.
fn duplicate_text(first: &str, kelf: &str, what: &str, value: &str) -> String {
    if first == kelf {
        format!(
            "{} lists graph {what} '{}' twice (a NEFF names each subgraph once)",
            shown(kelf),
            shown(value)
        )
    } else {
        format!(
            "{} and {} both list graph {what} '{}' (a NEFF names each subgraph once)",
            shown(first),
            shown(kelf),
            shown(value)
        )
    }
}

/// The most characters of one piece of file text or inner message an error shows,
/// escapes included.
const SHOWN_MAX: usize = 240;

/// Text that comes from the file (member paths, JSON) or from a decoder's message about
/// its bytes, made safe for a terminal as the text form escapes a name: printable ASCII
/// as is, `"` and `\` after a backslash, any other byte `\xNN` (lower-case hex), and cut
/// with `...` after [`SHOWN_MAX`] characters.
fn shown(text: &str) -> Shown<'_> {
    Shown(text.as_bytes(), true)
}

/// A message about the file (what a decoder or this reader says is wrong with it,
/// which may quote the file's text) as [`shown`] shows text, but for `"`, which such a
/// message uses as a quote mark (`no "graphs" array`) and a terminal shows as it is.
fn said(text: &str) -> Shown<'_> {
    Shown(text.as_bytes(), false)
}

/// A path as [`shown`] shows text, byte by byte (a path need not be UTF-8).
#[cfg(unix)]
fn shown_path(path: &std::path::Path) -> Shown<'_> {
    use std::os::unix::ffi::OsStrExt;
    Shown(path.as_os_str().as_bytes(), true)
}

/// A path as [`shown`] shows text, byte by byte of the form Rust keeps it in where a
/// path is not bytes (Windows keeps UTF-16, which Rust holds as WTF-8): what is not
/// Unicode shows as the bytes of that form (`\xed\xa0\x80` for a lone surrogate), as
/// `tpb` shows a path.
#[cfg(not(unix))]
fn shown_path(path: &std::path::Path) -> Shown<'_> {
    Shown(path.as_os_str().as_encoded_bytes(), true)
}

/// Bytes shown as [`shown`] says, `"` escaped when the flag is set ([`said`]).
struct Shown<'a>(&'a [u8], bool);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut written = 0;
        for &b in self.0 {
            let mut buf = [0u8; 4];
            let piece: &[u8] = match b {
                b'"' if !self.1 => {
                    buf[0] = b;
                    &buf[..1]
                }
                b'"' | b'\\' => {
                    buf[..2].copy_from_slice(&[b'\\', b]);
                    &buf[..2]
                }
                b' '..=b'~' => {
                    buf[0] = b;
                    &buf[..1]
                }
                _ => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    buf = [b'\\', b'x', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]];
                    &buf
                }
            };
            written += piece.len();
            if written > SHOWN_MAX {
                return f.write_str("...");
            }
            // Every piece is ASCII.
            f.write_str(std::str::from_utf8(piece).map_err(|_| std::fmt::Error)?)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message's own quote marks show as they are; a name from the file is escaped,
    /// and so is a control byte anywhere.
    #[test]
    fn a_message_keeps_its_quote_marks() {
        let e = Error::Schema { member: "k\"1".into(), detail: "no \"graphs\" array\x1b".into() };
        assert_eq!(e.to_string(), r#"k\"1: no "graphs" array\x1b"#);
    }

    /// An I/O error's reason is its source, said once by a report that prints the chain.
    #[test]
    fn an_io_reason_is_the_source_not_the_message() {
        use std::error::Error as _;
        let e = Error::Io { path: "x.neff".into(), source: std::io::Error::other("gone") };
        assert_eq!(e.to_string(), "reading x.neff");
        assert_eq!(e.source().map(ToString::to_string).as_deref(), Some("gone"));
    }

    #[test]
    fn file_text_in_messages_is_printable_and_capped() {
        let e = Error::Tar { detail: "numeric field: \u{fffd}2n\x1b[31m\0".into() };
        assert_eq!(
            e.to_string(),
            "payload is not a readable tar archive: numeric field: \\xef\\xbf\\xbd2n\\x1b[31m\\x00"
        );
        let long = Warning::Duplicate("a".repeat(1000)).to_string();
        assert!(long.contains(&format!("'{}...'", "a".repeat(SHOWN_MAX))), "{long}");
        assert!(long.len() < 400);
        let escaped = Error::Gzip { detail: "\u{fffd}".repeat(1000) }.to_string();
        assert!(escaped.ends_with("\\xbd..."), "{escaped}");
        assert!(escaped.len() <= "payload is not a valid gzip member: ...".len() + SHOWN_MAX);
    }
}
