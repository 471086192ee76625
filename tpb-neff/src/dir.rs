//! An unpacked NEFF: a directory holding `kelf-0.json`, `sg00/`, … as `neuron-packager
//! unpack` writes it, listed into the same [`Store`] as a tar.
//!
//! The walk only lists: every regular file by path and size, read later only if the
//! reader needs it ([`Store::load`]), so weights and tables beside the streams cost
//! nothing. A directory without a top-level `kelf-*.json` is refused before the walk.
//! Links inside the directory are never followed (they are listed as warnings, and an
//! error if a JSON member names one); devices and FIFOs are skipped without being
//! opened, so reading cannot hang; the bytes read are capped like an inflated payload,
//! and the entries listed like a tar's headers. The folder is opened once, and both the
//! walk and every later read start from that handle: a subfolder is opened relative to
//! its parent without following a link and listed through its own handle (at most
//! [`MAX_DEPTH`] deep), and a member is read by opening each folder on its path, then the
//! file, without following a link and without blocking, and only if the open file is a
//! regular file. So a folder (the top one or any below it) that is renamed, or replaced
//! by a link, while it is listed or after cannot make the reader list or read anything
//! outside the folder it opened, nor block on a FIFO. An entry that vanishes while the
//! folder is listed is skipped with a warning.
//!
//! That is on Unix. Elsewhere (see [`crate::sys`]) a folder is held by its path and
//! each entry is looked at without following a link before it is opened: links are
//! still never followed nor special files read, but a folder that changes while it is
//! read is not guarded against.

use std::io;
use std::path::Path;

use crate::error::{Error, Result, Warning};
use crate::members::Store;
use crate::sys::{self, Handle, Kind};

/// The bytes of a tar header: a directory may list as many entries as a payload of the
/// limit could hold headers, so the listing's memory is bounded by the limit too.
const ENTRY_COST: u64 = 512;

/// The entries a directory may always list, however small the limit: a small limit
/// caps the bytes read, not a real NEFF's few hundred files.
const MIN_ENTRIES: u64 = 10_000;

/// How deep the walk goes below the top folder: each level holds a folder handle open
/// while the levels below it are listed, so the depth bounds the handles. A deeper
/// subfolder is listed as one that could not be listed. A real NEFF is two deep.
pub(crate) const MAX_DEPTH: usize = 64;

/// List every regular file below `root` into a store, paths relative to `root`.
///
/// `root` is opened once (following a link, since the caller named it), and everything
/// below it is reached from that handle: each subfolder is opened relative to its parent
/// without following a link and listed through its own handle, and the store keeps the
/// top handle to read members from. A folder renamed or replaced by a link while it is
/// walked or read cannot lead the reader outside the folder that was opened.
///
/// # Errors
///
/// [`Error::Io`] when `root` cannot be opened or listed, [`Error::NoKelf`] when it has no
/// top-level `kelf-*.json` entry, [`Error::DirectoryEntries`] past the entry limit or
/// its paths' bytes past the same budget.
pub(crate) fn read(root: &Path, max_bytes: u64, warnings: &mut Vec<Warning>) -> Result<Store> {
    let max_entries = (max_bytes / ENTRY_COST).max(MIN_ENTRIES);
    let top = sys::open_top(root).map_err(|e| Error::Io { path: root.to_path_buf(), source: e })?;
    let mut walk =
        Walk { root, max_entries, listed: 0, path_bytes: 0, found: Vec::new(), warnings };
    let subfolders =
        walk.list(&top, "")?.map_err(|e| Error::Io { path: root.to_path_buf(), source: e })?;
    if !walk.found.iter().any(|(p, f)| is_kelf_name(p) && !matches!(f, Found::Vanished)) {
        return Err(Error::NoKelf);
    }
    for (name, path) in subfolders {
        walk.folder(&top, &name, path, 1)?;
    }
    let Walk { mut found, warnings, .. } = walk;
    // Directory order is the file system's; sort so that nothing depends on it.
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let mut store = Store::for_folder(root.to_path_buf(), top, max_bytes);
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

/// The state of one walk: what it found, and how many entries it has listed.
struct Walk<'a> {
    root: &'a Path,
    max_entries: u64,
    listed: u64,
    /// The bytes of the paths listed, which the walk keeps: bounded as the entries are
    /// (`max_entries` × [`ENTRY_COST`]), so that deep paths cannot hold more.
    path_bytes: u64,
    found: Vec<(String, Found)>,
    warnings: &'a mut Vec<Warning>,
}

/// What [`Walk::look`] finds at a name.
enum Seen {
    /// A folder, to walk.
    Folder,
    /// Anything else, as it is listed.
    Other(Found),
}

impl Walk<'_> {
    /// List the folder `dir` (at `rel`, empty for the top) through its handle: every
    /// entry but the subfolders goes to `found`; the subfolders are returned, by name and
    /// path, for the caller to walk. The inner error is the folder's failing to list.
    fn list(
        &mut self,
        dir: &Handle,
        rel: &str,
    ) -> Result<std::result::Result<Vec<(String, String)>, io::Error>> {
        let listing = match sys::list(dir) {
            Ok(listing) => listing,
            Err(e) => return Ok(Err(e)),
        };
        let mut subfolders = Vec::new();
        for entry in listing {
            let (file_name, is_folder) = entry.map_err(|e| self.io(rel, e))?;
            // The name's bytes as the host keeps them (on Unix, the bytes themselves).
            let bytes = file_name.as_encoded_bytes();
            // The entry's path as kept: `rel/name`, or the name at the top.
            let path_len = (rel.len() + usize::from(!rel.is_empty()) + bytes.len()) as u64;
            self.path_bytes += path_len;
            if self.listed >= self.max_entries || self.path_bytes > self.max_entries * ENTRY_COST {
                return Err(Error::DirectoryEntries { limit: self.max_entries });
            }
            self.listed += 1;
            let Some(name) = file_name.to_str() else {
                let full = self.root.join(rel).join(&file_name);
                self.warnings.push(Warning::NonUtf8(full.display().to_string()));
                continue;
            };
            let path = if rel.is_empty() { name.to_owned() } else { format!("{rel}/{name}") };
            // A folder as the listing says (opening it will tell whether it still is one,
            // and whether it is still there); anything else as it is now.
            let seen = if is_folder { Seen::Folder } else { self.look(dir, name, &path)? };
            match seen {
                Seen::Folder => subfolders.push((name.to_owned(), path)),
                Seen::Other(found) => self.found.push((path, found)),
            }
        }
        Ok(Ok(subfolders))
    }

    /// Walk the subfolder `name` of `parent` (at `path`, `depth` levels below the top):
    /// open it relative to `parent` without following a link, list it and walk its own
    /// subfolders. One that is no longer a folder is listed as what it is now; one that
    /// cannot be opened or listed, or is too deep, as unlisted.
    fn folder(&mut self, parent: &Handle, name: &str, path: String, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            let detail = format!("more than {MAX_DEPTH} folders deep");
            self.found.push((path, Found::Unlisted(detail)));
            return Ok(());
        }
        let dir = match sys::open_folder(parent, name) {
            Ok(Some(dir)) => dir,
            Ok(None) => {
                let found = match self.look(parent, name, &path)? {
                    Seen::Other(found) => found,
                    Seen::Folder => Found::Unlisted("changed while it was listed".to_owned()),
                };
                self.found.push((path, found));
                return Ok(());
            }
            Err(e) => {
                self.found.push((path, Found::Unlisted(e.to_string())));
                return Ok(());
            }
        };
        match self.list(&dir, &path)? {
            Ok(subfolders) => {
                for (name, sub) in subfolders {
                    self.folder(&dir, &name, sub, depth + 1)?;
                }
            }
            Err(e) => self.found.push((path, Found::Unlisted(e.to_string()))),
        }
        Ok(())
    }

    /// What is at `name` in `dir` (at `path`), without following a link.
    fn look(&mut self, dir: &Handle, name: &str, path: &str) -> Result<Seen> {
        Ok(match sys::look(dir, name) {
            Ok(Some(Kind::Folder)) => Seen::Folder,
            Ok(Some(Kind::File(size))) => Seen::Other(Found::File(size)),
            Ok(Some(Kind::Link(target))) => Seen::Other(Found::Link(target)),
            Ok(Some(Kind::Special(kind))) => Seen::Other(Found::Special(kind.to_owned())),
            // An entry that is gone by the time it is looked at is skipped, with a warning.
            Ok(None) => Seen::Other(Found::Vanished),
            Err(e) => return Err(self.io(path, e)),
        })
    }

    /// An I/O error at `path` below the root.
    fn io(&self, path: &str, e: io::Error) -> Error {
        let full = if path.is_empty() { self.root.to_path_buf() } else { self.root.join(path) };
        Error::Io { path: full, source: e }
    }
}

/// Whether a top-level path is a `kelf-*.json` graph list.
pub(crate) fn is_kelf_name(path: &str) -> bool {
    !path.contains('/') && path.starts_with("kelf-") && path.ends_with(".json")
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
