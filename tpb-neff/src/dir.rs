//! An unpacked NEFF: a directory holding `kelf-0.json`, `sg00/`, … as `neuron-packager
//! unpack` writes it, listed into the same [`Store`] as a tar.
//!
//! The walk only lists: every regular file by path and size, read later only if the
//! reader needs it ([`Store::load`]), so weights and tables beside the streams cost
//! nothing. A directory without a top-level `kelf-*.json` is refused before the walk.
//! Links inside the directory are never followed (they are listed as warnings, and an
//! error if a JSON member names one); devices and FIFOs are skipped without being
//! opened, so reading cannot hang; the bytes read are capped like an inflated payload,
//! and the entries listed like a tar's headers. A member is read by opening each folder
//! on its path, then the file, without following a link and without blocking, and only
//! if the open file is a regular file, so a folder that changes after its listing cannot
//! make the reader follow a link out of it or block on a FIFO. An entry that vanishes
//! while the folder is listed is skipped with a warning.

use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use crate::error::{Error, Result, Warning};
use crate::members::Store;

/// The bytes of a tar header: a directory may list as many entries as a payload of the
/// limit could hold headers, so the listing's memory is bounded by the limit too.
const ENTRY_COST: u64 = 512;

/// The entries a directory may always list, however small the limit: a small limit
/// caps the bytes read, not a real NEFF's few hundred files.
const MIN_ENTRIES: u64 = 10_000;

/// List every regular file below `root` into a store, paths relative to `root`.
///
/// # Errors
///
/// [`Error::Io`] when `root` cannot be listed, [`Error::NoKelf`] when it has no
/// top-level `kelf-*.json` entry, [`Error::DirectoryEntries`] past the entry limit.
pub(crate) fn read(root: &Path, max_bytes: u64, warnings: &mut Vec<Warning>) -> Result<Store> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let max_entries = (max_bytes / ENTRY_COST).max(MIN_ENTRIES);
    let mut found = Vec::new();
    let mut pending = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = pending.pop() {
        let listing = match fs::read_dir(&dir) {
            Ok(listing) => listing,
            Err(e) if !rel.is_empty() => {
                found.push((rel, Found::Unlisted(e.to_string())));
                continue;
            }
            Err(e) => return Err(io(&dir)(e)),
        };
        for entry in listing {
            let entry = entry.map_err(io(&dir))?;
            if found.len() as u64 + pending.len() as u64 >= max_entries {
                return Err(Error::DirectoryEntries { limit: max_entries });
            }
            let full = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                warnings.push(Warning::NonUtf8(full.display().to_string()));
                continue;
            };
            let path = if rel.is_empty() { name } else { format!("{rel}/{name}") };
            // `DirEntry::file_type` and `DirEntry::metadata` do not follow links. An entry
            // that is gone by the time it is looked at is skipped, with a warning.
            let kind = match entry.file_type() {
                Ok(kind) => kind,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    found.push((path, Found::Vanished));
                    continue;
                }
                Err(e) => return Err(io(&full)(e)),
            };
            if kind.is_symlink() {
                let target =
                    fs::read_link(&full).map(|t| t.display().to_string()).unwrap_or_default();
                found.push((path, Found::Link(target)));
            } else if kind.is_dir() {
                pending.push((full, path));
            } else if kind.is_file() {
                match entry.metadata() {
                    Ok(m) => found.push((path, Found::File(m.len()))),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        found.push((path, Found::Vanished));
                    }
                    Err(e) => return Err(io(&full)(e)),
                }
            } else {
                found.push((path, Found::Special(kind_word(kind))));
            }
        }
        if rel.is_empty()
            && !found.iter().any(|(p, f)| is_kelf_name(p) && !matches!(f, Found::Vanished))
        {
            return Err(Error::NoKelf);
        }
    }
    // Directory order is the file system's; sort so that nothing depends on it.
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let mut store = Store::for_folder(root.to_path_buf(), max_bytes);
    for (path, f) in found {
        match f {
            Found::File(size) => store.add_unread(path, size, warnings),
            Found::Link(target) => store.add_link(path, target, warnings),
            Found::Special(kind) => store.add_special(path, kind, warnings),
            Found::Unlisted(detail) => store.add_unlisted(path, detail, warnings),
            Found::Vanished => warnings.push(Warning::Vanished(path)),
        }
    }
    Ok(store)
}

/// Whether a top-level path is a `kelf-*.json` graph list.
pub(crate) fn is_kelf_name(path: &str) -> bool {
    !path.contains('/') && path.starts_with("kelf-") && path.ends_with(".json")
}

/// The kind of a directory entry that is neither a file, a directory nor a link, in a word.
fn kind_word(kind: fs::FileType) -> String {
    let word = if kind.is_fifo() {
        "fifo"
    } else if kind.is_socket() {
        "socket"
    } else if kind.is_block_device() {
        "block device"
    } else if kind.is_char_device() {
        "character device"
    } else {
        "other"
    };
    word.to_owned()
}

/// A directory entry as the walk finds it.
enum Found {
    /// A regular file and its size, read only when needed.
    File(u64),
    /// A link and its target, never followed.
    Link(String),
    /// A device, FIFO or socket, never opened.
    Special(String),
    /// A subfolder that could not be listed, and why.
    Unlisted(String),
    /// An entry that was gone when it was looked at.
    Vanished,
}
