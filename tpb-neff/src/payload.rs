//! The payload: one gzip member, then zero padding up to `data_size`; inside, a tar.
//!
//! Inflation goes through a reader capped at `max_inflated + 1` bytes, so a gzip bomb
//! costs at most the limit in memory before it is refused. The tar (ustar, GNU or PAX,
//! all read by the `tar` crate) is indexed in place: each regular member is a range of
//! the inflated buffer.

use std::io::{Cursor, Read};

use flate2::bufread::GzDecoder;
use tar::EntryType;

use crate::error::{Error, Result, Warning};
use crate::members::{normalise, Found, Store};

/// Inflate `window` (the payload) and index its tar.
///
/// # Errors
///
/// [`Error::Gzip`], [`Error::InflateLimit`], [`Error::TrailingData`], [`Error::Tar`],
/// [`Error::UnsafeMemberPath`].
pub(crate) fn read(window: &[u8], max_inflated: u64, warnings: &mut Vec<Warning>) -> Result<Store> {
    let tar = inflate(window, max_inflated)?;
    index_tar(tar, warnings)
}

/// The first gzip member of `window`, inflated; what follows it must be zeros.
pub(crate) fn inflate(window: &[u8], max_inflated: u64) -> Result<Vec<u8>> {
    // `bufread` over a slice consumes exactly the member's bytes, so the slice left
    // afterwards is the padding.
    let mut capped = GzDecoder::new(window).take(max_inflated.saturating_add(1));
    let mut out = Vec::new();
    capped.read_to_end(&mut out).map_err(|e| Error::Gzip { detail: e.to_string() })?;
    if out.len() as u64 > max_inflated {
        return Err(Error::InflateLimit { limit: max_inflated });
    }
    let rest = capped.into_inner().into_inner();
    if let Some(i) = rest.iter().position(|&b| b != 0) {
        let consumed = (window.len() - rest.len()) as u64;
        return Err(Error::TrailingData { offset: consumed + i as u64, len: rest.len() as u64 });
    }
    Ok(out)
}

/// Index the members of `tar` in place.
fn index_tar(tar: Vec<u8>, warnings: &mut Vec<Warning>) -> Result<Store> {
    let tar_err = |e: std::io::Error| Error::Tar { detail: e.to_string() };
    let len = tar.len() as u64;
    let mut found = Vec::new();
    {
        let mut archive = tar::Archive::new(Cursor::new(&tar[..]));
        for entry in archive.entries_with_seek().map_err(tar_err)? {
            let entry = entry.map_err(tar_err)?;
            let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let path = normalise(&raw)
                .map_err(|why| Error::UnsafeMemberPath { path: raw.clone(), why })?;
            let kind = entry.header().entry_type();
            match kind {
                EntryType::Regular | EntryType::Continuous => {
                    let (start, size) = (entry.raw_file_position(), entry.size());
                    if start.checked_add(size).is_none_or(|end| end > len) {
                        return Err(Error::Tar {
                            detail: format!(
                                "member '{raw}' ({size} bytes) runs past the end of the archive"
                            ),
                        });
                    }
                    found.push(Found::File(path, start as usize..(start + size) as usize));
                }
                EntryType::Directory => {}
                EntryType::Symlink | EntryType::Link => {
                    let target = entry
                        .link_name_bytes()
                        .map(|t| String::from_utf8_lossy(&t).into_owned())
                        .unwrap_or_default();
                    found.push(Found::Link(path, target));
                }
                other => {
                    found.push(Found::Special(path, format!("{other:?}")));
                }
            }
        }
    }
    let mut store = Store::new(tar);
    for f in found {
        match f {
            Found::File(path, range) => store.add(path, range, warnings),
            Found::Link(path, target) => store.add_link(path, target, warnings),
            Found::Special(path, kind) => warnings.push(Warning::Special { path, kind }),
        }
    }
    Ok(store)
}
