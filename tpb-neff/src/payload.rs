//! The payload: one gzip member, then zero padding up to `data_size`; inside, a tar.
//!
//! The tar (ustar, GNU or PAX, all read by the `tar` crate) is read straight from the
//! inflating reader, each member into its own buffer, so the inflated tar is never held
//! whole. The reader yields at most `max_inflated` bytes: a gzip bomb costs at most the
//! limit before it is refused. What is kept (the members' bytes, and their paths as
//! often as the store holds them) comes to at most the limit too. Once the tar ends, the rest of the gzip member is drained
//! (checking its CRC), and what follows the member must be zeros.

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

use flate2::bufread::GzDecoder;
use tar::EntryType;

use crate::error::{Error, Result, Warning};
use crate::members::{normalise, read_member, Store, MAX_PATH, TOO_LONG};

/// Inflate `window` (the payload) and read its tar's members.
///
/// # Errors
///
/// [`Error::Gzip`], [`Error::InflateLimit`], [`Error::TrailingData`], [`Error::Tar`],
/// [`Error::TarHeader`], [`Error::UnsafeMemberPath`].
pub(crate) fn read(window: &[u8], max_inflated: u64, warnings: &mut Vec<Warning>) -> Result<Store> {
    let inflate = Inflate::new(window, max_inflated);
    let delivered = Rc::clone(&inflate.delivered);
    let mut archive = tar::Archive::new(inflate);
    let read = members(&mut archive, max_inflated, &delivered, warnings);
    let mut inflate = archive.into_inner();
    // The tar's end-of-archive blocks and padding are still inside the gzip member.
    let store = read.and_then(|store| {
        io::copy(&mut inflate, &mut io::sink())
            .map_err(|e| Error::Gzip { detail: e.to_string() })?;
        Ok(store)
    });
    // A failure below the tar (a bad gzip member, the limit) explains any tar error.
    if inflate.over_limit {
        return Err(Error::InflateLimit { limit: max_inflated });
    }
    if let Some(detail) = inflate.gzip_error.take() {
        return Err(Error::Gzip { detail });
    }
    let store = store?;
    // `bufread` over a slice consumes exactly the member's bytes: the rest is padding.
    let rest = inflate.gz.into_inner();
    if let Some(i) = rest.iter().position(|&b| b != 0) {
        let consumed = (window.len() - rest.len()) as u64;
        return Err(Error::TrailingData { offset: consumed + i as u64, len: rest.len() as u64 });
    }
    Ok(store)
}

/// Every entry of the tar: regular files kept, links and special files reported.
/// `delivered` counts the inflated bytes the tar reader has taken, to locate a bad header.
fn members(
    archive: &mut tar::Archive<Inflate<'_>>,
    max_inflated: u64,
    delivered: &Cell<u64>,
    warnings: &mut Vec<Warning>,
) -> Result<Store> {
    let tar_err = |e: io::Error| Error::Tar { detail: e.to_string() };
    let header_err = |e: io::Error| bad_header(&e, delivered.get());
    let mut store = Store::default();
    let mut budget = max_inflated;
    for entry in archive.entries().map_err(header_err)? {
        let mut entry = entry.map_err(header_err)?;
        // Before any copy: a long name (GNU or PAX, up to the limit) would otherwise be
        // copied twice, each bad UTF-8 byte as three, before the budget saw it.
        too_long(&entry.path_bytes(), TOO_LONG)?;
        if let Some(target) = entry.link_name_bytes() {
            too_long(&target, "its link target is longer than 4096 bytes")?;
        }
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let path =
            normalise(&raw).map_err(|why| Error::UnsafeMemberPath { path: raw.clone(), why })?;
        let kind = entry.header().entry_type();
        // A file named `.`, `./` or nothing is no file `tpb extract` could write. (A
        // folder, link or special entry so named is skipped as any of its kind is: a PAX
        // global header, which the tar reader passes on as an entry, has no name.)
        let file = matches!(kind, EntryType::Regular | EntryType::Continuous);
        if path.is_empty() && file {
            return Err(Error::UnsafeMemberPath { path: raw, why: "names no file" });
        }
        if kind != EntryType::Directory {
            keep(&mut budget, PATH_COPIES * path.len() as u64, max_inflated)?;
        }
        match kind {
            EntryType::Regular | EntryType::Continuous => {
                let size = entry.size();
                let Some(data) = read_member(&mut entry, size, &mut budget).map_err(tar_err)?
                else {
                    return Err(Error::InflateLimit { limit: max_inflated });
                };
                if data.len() as u64 != size {
                    return Err(Error::Tar {
                        detail: format!(
                            "member '{raw}' is cut short: {} of {size} bytes",
                            data.len()
                        ),
                    });
                }
                store.add(path, data, warnings);
            }
            EntryType::Directory => {}
            EntryType::Symlink | EntryType::Link => {
                let target = entry
                    .link_name_bytes()
                    .map(|t| String::from_utf8_lossy(&t).into_owned())
                    .unwrap_or_default();
                keep(&mut budget, (path.len() + target.len()) as u64, max_inflated)?;
                store.add_link(path, target, warnings);
            }
            other => store.add_special(path, kind_word(other), warnings),
        }
    }
    Ok(store)
}

/// [`Error::UnsafeMemberPath`] (quoting the start of the path) when `bytes`, a
/// member's path or link target, is longer than [`MAX_PATH`].
fn too_long(bytes: &[u8], why: &'static str) -> Result<()> {
    if bytes.len() <= MAX_PATH {
        return Ok(());
    }
    let head = String::from_utf8_lossy(&bytes[..64]);
    Err(Error::UnsafeMemberPath { path: format!("{head}..."), why })
}

/// The copies of a member's path the store may keep (its entry, and the index or a
/// duplicate's warning; a link's warning holds one more, with its target).
const PATH_COPIES: u64 = 2;

/// Take `bytes` of what the store keeps besides the members' bytes (their paths) from
/// `budget`: a path costs the reader little (a long name is one tar header; a name that
/// is not UTF-8 is read with each bad byte as three), so paths count against the limit
/// as the members' bytes do, and the memory held stays within it.
fn keep(budget: &mut u64, bytes: u64, limit: u64) -> Result<()> {
    *budget = budget.checked_sub(bytes).ok_or(Error::InflateLimit { limit })?;
    Ok(())
}

/// The tar entry kinds that are skipped, in a word or two.
fn kind_word(kind: EntryType) -> String {
    match kind {
        EntryType::Fifo => "fifo".into(),
        EntryType::Char => "character device".into(),
        EntryType::Block => "block device".into(),
        EntryType::GNUSparse => "sparse file".into(),
        EntryType::XGlobalHeader => "pax global header".into(),
        other => format!("other (type '{}')", other.as_byte().escape_ascii()),
    }
}

/// The tar reader's failure on a header block, as [`Error::TarHeader`]: the block is the
/// one that ends at (or holds, when cut short) the `delivered`th inflated byte, since
/// the reader takes each header whole and reads nothing ahead. The reader's text quotes
/// the header's raw bytes; only its first clause is kept, with the field it names.
fn bad_header(e: &io::Error, delivered: u64) -> Error {
    let text = e.to_string();
    let head = text.split(':').next().unwrap_or_default().trim();
    let field = text
        .split_once(" when getting ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .filter(|f| f.len() <= 16);
    let reason = match field {
        Some(field) => format!("{head} ({field})"),
        None => head.to_owned(),
    };
    let offset = delivered.saturating_sub(1) / 512 * 512;
    Error::TarHeader { offset, reason: reason.chars().take(80).collect() }
}

/// The inflating reader under the tar: yields at most `left` bytes, counts the bytes it
/// yields, and remembers why it stopped, so that a tar error can be traced to a bomb or
/// a bad gzip member.
struct Inflate<'a> {
    gz: GzDecoder<&'a [u8]>,
    left: u64,
    delivered: Rc<Cell<u64>>,
    over_limit: bool,
    gzip_error: Option<String>,
}

impl<'a> Inflate<'a> {
    fn new(window: &'a [u8], limit: u64) -> Inflate<'a> {
        Inflate {
            gz: GzDecoder::new(window),
            left: limit,
            delivered: Rc::default(),
            over_limit: false,
            gzip_error: None,
        }
    }
}

impl Read for Inflate<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // At the limit, one more byte decides between the end of the member and a bomb.
        let want = (buf.len() as u64).min(self.left.max(1)) as usize;
        match self.gz.read(&mut buf[..want]) {
            Ok(0) => Ok(0),
            Ok(_) if self.left == 0 => {
                self.over_limit = true;
                Err(io::Error::other("inflate limit reached"))
            }
            Ok(n) => {
                self.left -= n as u64;
                self.delivered.set(self.delivered.get() + n as u64);
                Ok(n)
            }
            Err(e) => {
                self.gzip_error.get_or_insert_with(|| e.to_string());
                Err(e)
            }
        }
    }
}
