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

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{openat, readlinkat, statat, AtFlags, Dir, FileType, Mode, OFlags, CWD};
use rustix::io::Errno;

use crate::error::{Error, Result, Warning};
use crate::members::{type_word, Store};

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

/// The flags every folder is opened with: read-only, and never blocking.
const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOCTTY)
    .union(OFlags::NONBLOCK)
    .union(OFlags::DIRECTORY);

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
    let top = openat(CWD, root, DIR_FLAGS, Mode::empty())
        .map_err(|e| Error::Io { path: root.to_path_buf(), source: e.into() })?;
    let mut walk =
        Walk { root, max_entries, listed: 0, path_bytes: 0, found: Vec::new(), warnings };
    let subfolders = walk
        .list(top.as_fd(), "")?
        .map_err(|e| Error::Io { path: root.to_path_buf(), source: e.into() })?;
    if !walk.found.iter().any(|(p, f)| is_kelf_name(p) && !matches!(f, Found::Vanished)) {
        return Err(Error::NoKelf);
    }
    for (name, path) in subfolders {
        walk.folder(top.as_fd(), &name, path, 1)?;
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
        dir: BorrowedFd<'_>,
        rel: &str,
    ) -> Result<std::result::Result<Vec<(String, String)>, Errno>> {
        let listing = match Dir::read_from(dir) {
            Ok(listing) => listing,
            Err(e) => return Ok(Err(e)),
        };
        let mut subfolders = Vec::new();
        for entry in listing {
            let entry = entry.map_err(|e| self.io(rel, e))?;
            let bytes = entry.file_name().to_bytes();
            if bytes == b"." || bytes == b".." {
                continue;
            }
            // The entry's path as kept: `rel/name`, or the name at the top.
            let path_len = (rel.len() + usize::from(!rel.is_empty()) + bytes.len()) as u64;
            self.path_bytes += path_len;
            if self.listed >= self.max_entries || self.path_bytes > self.max_entries * ENTRY_COST {
                return Err(Error::DirectoryEntries { limit: self.max_entries });
            }
            self.listed += 1;
            let Ok(name) = std::str::from_utf8(bytes) else {
                let full = self.root.join(rel).join(OsStr::from_bytes(bytes));
                self.warnings.push(Warning::NonUtf8(full.display().to_string()));
                continue;
            };
            let path = if rel.is_empty() { name.to_owned() } else { format!("{rel}/{name}") };
            // A folder as the listing says (opening it will tell whether it still is one,
            // and whether it is still there); anything else as it is now.
            let seen = if entry.file_type() == FileType::Directory {
                Seen::Folder
            } else {
                self.look(dir, name, &path)?
            };
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
    fn folder(
        &mut self,
        parent: BorrowedFd<'_>,
        name: &str,
        path: String,
        depth: usize,
    ) -> Result<()> {
        if depth > MAX_DEPTH {
            let detail = format!("more than {MAX_DEPTH} folders deep");
            self.found.push((path, Found::Unlisted(detail)));
            return Ok(());
        }
        let dir: OwnedFd = match openat(parent, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty()) {
            Ok(fd) => fd,
            // Linux says ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW, others ELOOP.
            Err(Errno::LOOP | Errno::NOTDIR) => {
                let found = match self.look(parent, name, &path)? {
                    Seen::Other(found) => found,
                    Seen::Folder => Found::Unlisted("changed while it was listed".to_owned()),
                };
                self.found.push((path, found));
                return Ok(());
            }
            Err(e) => {
                let detail = std::io::Error::from(e).to_string();
                self.found.push((path, Found::Unlisted(detail)));
                return Ok(());
            }
        };
        match self.list(dir.as_fd(), &path)? {
            Ok(subfolders) => {
                for (name, sub) in subfolders {
                    self.folder(dir.as_fd(), &name, sub, depth + 1)?;
                }
            }
            Err(e) => {
                let detail = std::io::Error::from(e).to_string();
                self.found.push((path, Found::Unlisted(detail)));
            }
        }
        Ok(())
    }

    /// What is at `name` in `dir` (at `path`), without following a link.
    fn look(&mut self, dir: BorrowedFd<'_>, name: &str, path: &str) -> Result<Seen> {
        let st = match statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => st,
            // An entry that is gone by the time it is looked at is skipped, with a warning.
            Err(Errno::NOENT) => return Ok(Seen::Other(Found::Vanished)),
            Err(e) => return Err(self.io(path, e)),
        };
        Ok(match FileType::from_raw_mode(st.st_mode) {
            FileType::Directory => Seen::Folder,
            FileType::RegularFile => {
                Seen::Other(Found::File(u64::try_from(st.st_size).unwrap_or(0)))
            }
            FileType::Symlink => {
                let target = readlinkat(dir, name, Vec::new())
                    .map(|t| Path::new(OsStr::from_bytes(t.to_bytes())).display().to_string())
                    .unwrap_or_default();
                Seen::Other(Found::Link(target))
            }
            other => Seen::Other(Found::Special(type_word(other).to_owned())),
        })
    }

    /// An I/O error at `path` below the root.
    fn io(&self, path: &str, e: Errno) -> Error {
        let full = if path.is_empty() { self.root.to_path_buf() } else { self.root.join(path) };
        Error::Io { path: full, source: e.into() }
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
