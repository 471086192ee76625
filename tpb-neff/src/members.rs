//! The members of a NEFF, from its tar or from an unpacked directory.
//!
//! Each member's bytes are read straight into a `Vec` of the size its tar header (or
//! file) gives, capped by what is left of
//! [`ReadOptions::max_inflated`](crate::ReadOptions::max_inflated): the inflated tar
//! itself is never held, so memory is the members' size and no more. From a directory,
//! only the members the reader needs are read ([`Store::load`]); the others are listed
//! by path and size.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::{Error, Result, Warning};
use crate::sys::{self, Handle};

/// One member: its normalised path (`sg00/PE.bin`), its size and, when read, its bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Member<'a> {
    /// The path inside the NEFF, `/`-separated, without `./` or a leading `/`.
    pub path: &'a str,
    /// The member's bytes when [`loaded`](Member::loaded), else empty: a NEFF file's
    /// members are all read; of an unpacked directory, only the `kelf-*.json`, the JSON
    /// members they and the `def.json`s name, the streams and `info.json` are (read
    /// another with [`Neff::read_member`](crate::Neff::read_member)).
    pub data: &'a [u8],
    /// The member's length in bytes, read or not.
    pub size: u64,
    /// Whether `data` holds the member's bytes.
    pub loaded: bool,
}

/// Path, size and its bytes by length and prefix (a member is up to megabytes).
impl std::fmt::Debug for Member<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Member")
            .field("path", &self.path)
            .field("data", &crate::short::Short(self.data))
            .field("size", &self.size)
            .field("loaded", &self.loaded)
            .finish()
    }
}

/// One member as stored: its bytes, or (from a directory, until needed) only its size.
#[derive(Clone)]
struct Entry {
    path: String,
    size: u64,
    data: Option<Vec<u8>>,
}

/// Path, size and whether the bytes are held, not the bytes: a NEFF's `Debug` would
/// otherwise print every member, megabytes for a real one.
impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("path", &self.path)
            .field("size", &self.size)
            .field("loaded", &self.data.is_some())
            .finish()
    }
}

/// Where a directory's members are read from when needed, and what is left of the limit.
/// Members are opened relative to `handle`, the folder opened once when it was listed,
/// never by `root`'s path again: a folder swapped in at that path is not read (on Unix;
/// elsewhere the handle is the path, see [`crate::sys`]).
#[derive(Clone, Debug)]
struct Folder {
    /// The folder's path as the caller named it, for errors.
    root: PathBuf,
    handle: Arc<Handle>,
    limit: u64,
    budget: u64,
}

/// The members in archive (or directory walk) order, with a path index and the skipped links.
#[derive(Clone, Debug, Default)]
pub(crate) struct Store {
    list: Vec<Entry>,
    by_path: BTreeMap<String, usize>,
    links: BTreeSet<String>,
    /// Special members (FIFOs, devices, …) by path, with their kind in a word.
    specials: BTreeMap<String, String>,
    /// The subfolders of an unpacked NEFF that could not be listed, with the reason.
    unlisted: BTreeMap<String, String>,
    folder: Option<Folder>,
}

impl Store {
    /// A store of the directory `root`'s members, listed with [`Store::add_unread`] and
    /// read by [`Store::load`] within `limit` bytes in all, relative to `handle` (the
    /// folder `root` opened).
    pub(crate) fn for_folder(root: PathBuf, handle: Handle, limit: u64) -> Store {
        let folder = Folder { root, handle: Arc::new(handle), limit, budget: limit };
        Store { folder: Some(folder), ..Store::default() }
    }

    /// Add a member; a repeated path (of a member or a link) replaces the earlier one,
    /// with a warning.
    pub(crate) fn add(&mut self, path: String, data: Vec<u8>, warnings: &mut Vec<Warning>) {
        let size = data.len() as u64;
        self.push(Entry { path, size, data: Some(data) }, warnings);
    }

    /// Add a directory member of `size` bytes without reading it.
    pub(crate) fn add_unread(&mut self, path: String, size: u64, warnings: &mut Vec<Warning>) {
        self.push(Entry { path, size, data: None }, warnings);
    }

    fn push(&mut self, entry: Entry, warnings: &mut Vec<Warning>) {
        let i = self.list.len();
        let path = entry.path.clone();
        if self.links.remove(&path) {
            warnings.push(Warning::Duplicate(path.clone()));
        }
        if let Some(old) = self.by_path.insert(path.clone(), i) {
            warnings.push(Warning::Duplicate(path));
            self.list[old].data = Some(Vec::new());
        }
        self.list.push(entry);
    }

    /// Note a link member (with a warning): never followed, and an error when named. A
    /// link that repeats a member's path replaces it, as a later member replaces a link.
    pub(crate) fn add_link(&mut self, path: String, target: String, warnings: &mut Vec<Warning>) {
        warnings.push(Warning::Link { path: path.clone(), target });
        if let Some(old) = self.by_path.remove(&path) {
            warnings.push(Warning::Duplicate(path.clone()));
            self.list[old].data = Some(Vec::new());
        } else if self.links.contains(&path) {
            warnings.push(Warning::Duplicate(path.clone()));
        }
        self.links.insert(path);
    }

    /// Note a special member (a FIFO, a device, …), skipped with a warning: never read,
    /// and an error when named.
    pub(crate) fn add_special(&mut self, path: String, kind: String, warnings: &mut Vec<Warning>) {
        warnings.push(Warning::Special { path: path.clone(), kind: kind.clone() });
        self.specials.insert(path, kind);
    }

    /// Note a subfolder that could not be listed (with a warning): an error when a member
    /// below it is named.
    pub(crate) fn add_unlisted(
        &mut self,
        path: String,
        detail: String,
        warnings: &mut Vec<Warning>,
    ) {
        warnings.push(Warning::Unreadable { path: path.clone(), detail: detail.clone() });
        self.unlisted.insert(path, detail);
    }

    /// Why `path`, named by `named_by`, is not a member when the reason is known: it is
    /// a special member, or a folder on its way is a link, a special member, or could not
    /// be listed. `None` when it is simply missing (or is a member).
    pub(crate) fn why_absent(&self, path: &str, named_by: &str) -> Option<Error> {
        if self.by_path.contains_key(path) {
            return None;
        }
        if let Some(kind) = self.specials.get(path) {
            return Some(Error::NotAFile {
                path: path.to_owned(),
                expected: "regular file",
                found: kind.clone(),
            });
        }
        let folders = path.match_indices('/').map(|(i, _)| &path[..i]);
        for folder in folders {
            if self.links.contains(folder) {
                return Some(Error::NamedLink {
                    path: folder.to_owned(),
                    named_by: named_by.to_owned(),
                });
            }
            if let Some(kind) = self.specials.get(folder) {
                return Some(Error::NotAFile {
                    path: folder.to_owned(),
                    expected: "folder",
                    found: kind.clone(),
                });
            }
            if let Some(detail) = self.unlisted.get(folder) {
                return Some(Error::Unlisted {
                    path: path.to_owned(),
                    named_by: named_by.to_owned(),
                    folder: folder.to_owned(),
                    detail: detail.clone(),
                });
            }
        }
        None
    }

    /// The paths of the special members, with their kinds, in path order.
    pub(crate) fn specials(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.specials.iter().map(|(p, k)| (p.as_str(), k.as_str()))
    }

    /// Whether `path` names a link member.
    pub(crate) fn is_link(&self, path: &str) -> bool {
        self.links.contains(path)
    }

    /// The paths of the link members, in path order.
    pub(crate) fn link_paths(&self) -> impl Iterator<Item = &str> + '_ {
        self.links.iter().map(String::as_str)
    }

    /// Read the member at `path` if it is one and is not read yet (a directory's member,
    /// from its file); whether it is a member.
    ///
    /// # Errors
    ///
    /// [`Error::Io`], and [`Error::DirectoryLimit`] when the members read so far and
    /// this one come to more than the limit.
    pub(crate) fn load(&mut self, path: &str) -> Result<bool> {
        let Some(&i) = self.by_path.get(path) else { return Ok(false) };
        if self.list[i].data.is_some() {
            return Ok(true);
        }
        let Some(folder) = self.folder.as_mut() else { return Ok(true) };
        let mut budget = folder.budget;
        let data = read_file_member(folder, path, self.list[i].size, &mut budget)?
            .ok_or(Error::DirectoryLimit { limit: folder.limit })?;
        folder.budget = budget;
        self.list[i].size = data.len() as u64;
        self.list[i].data = Some(data);
        Ok(true)
    }

    /// The bytes of the member at `path`: the stored ones, or (from a directory) read
    /// now within the limit without keeping them; `None` when it is not a member.
    ///
    /// # Errors
    ///
    /// As [`Store::load`].
    pub(crate) fn read(&self, path: &str) -> Result<Option<std::borrow::Cow<'_, [u8]>>> {
        let Some(&i) = self.by_path.get(path) else { return Ok(None) };
        let entry = &self.list[i];
        match (&entry.data, &self.folder) {
            (Some(data), _) => Ok(Some(data.as_slice().into())),
            (None, Some(f)) => {
                let mut budget = f.limit;
                let data = read_file_member(f, path, entry.size, &mut budget)?
                    .ok_or(Error::DirectoryLimit { limit: f.limit })?;
                Ok(Some(data.into()))
            }
            (None, None) => Ok(Some(Vec::new().into())),
        }
    }

    /// The member at `path`.
    pub(crate) fn get(&self, path: &str) -> Option<Member<'_>> {
        self.by_path.get(path).map(|&i| self.at(i))
    }

    /// Index of the member at `path` (the last copy of a repeated path).
    pub(crate) fn index_of(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    /// The `i`th member when it is at `path` (and is that path's member): `None` for an
    /// index and path that another store handed out.
    pub(crate) fn at_path(&self, i: usize, path: &str) -> Option<Member<'_>> {
        (self.by_path.get(path) == Some(&i)).then(|| self.at(i))
    }

    /// The `i`th member in archive (or directory walk) order.
    pub(crate) fn at(&self, i: usize) -> Member<'_> {
        let e = &self.list[i];
        Member {
            path: &e.path,
            data: e.data.as_deref().unwrap_or_default(),
            size: e.size,
            loaded: e.data.is_some(),
        }
    }

    /// Every member in order, except the copies that a later member of the same path replaces.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Member<'_>> + '_ {
        (0..self.list.len())
            .filter(|&i| self.by_path.get(&self.list[i].path) == Some(&i))
            .map(|i| self.at(i))
    }

    /// The normalised paths of every member, in path order.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> + '_ {
        self.by_path.keys().map(String::as_str)
    }
}

/// Read the member `path` of `folder` (whose walk found `size` bytes) within `budget`;
/// `None` when it passes the budget.
///
/// # Errors
///
/// [`Error::Io`], and [`Error::NotAFile`] when what is at `path` now is not a regular
/// file, or is reached through a link or something that is not a folder.
fn read_file_member(
    folder: &Folder,
    path: &str,
    size: u64,
    budget: &mut u64,
) -> Result<Option<Vec<u8>>> {
    let root = &folder.root;
    let mut file = sys::open_member(&folder.handle, root, path)?;
    let io = |source| Error::Io { path: root.join(path), source };
    // The open file's length is known: one past the budget is refused before a byte is
    // read (a sparse file of gigabytes would otherwise fill a buffer of the limit first).
    if file.metadata().map_err(io)?.len() > *budget {
        return Ok(None);
    }
    read_member(&mut file, size, budget).map_err(io)
}

/// Read a member of `size` bytes (as its header or file system says) from `from`, within
/// `budget`: the allocation is capped by the budget (and grows only as real bytes
/// arrive), so a header that lies about its size costs nothing.
///
/// Returns the bytes, or `None` when they would pass the budget.
pub(crate) fn read_member(
    from: &mut impl std::io::Read,
    size: u64,
    budget: &mut u64,
) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    /// The most a header's size can make us reserve before the bytes are there.
    const MAX_RESERVE: u64 = 64 << 20;
    let mut data = Vec::with_capacity(size.min(*budget).min(MAX_RESERVE) as usize);
    // One byte past the budget tells a member that fits from one that does not.
    from.take(budget.saturating_add(1)).read_to_end(&mut data)?;
    let len = data.len() as u64;
    if len > *budget {
        return Ok(None);
    }
    *budget -= len;
    Ok(Some(data))
}

/// The longest member path, or path a JSON member names, in bytes: Linux's `PATH_MAX`
/// (no such member could be unpacked). A longer one would cost the reader far more
/// than its bytes: copies made before the budget sees it, and a look-up per folder on
/// its way, each comparing up to its whole length ([`Store::why_absent`]).
pub(crate) const MAX_PATH: usize = 4096;

/// Why a path longer than [`MAX_PATH`] is refused.
pub(crate) const TOO_LONG: &str = "longer than 4096 bytes";

/// Normalise a `/`-separated relative path: drop `.` and empty components.
///
/// # Errors
///
/// `"absolute"` for a path starting with `/`, `"contains .."` for any `..` component:
/// neither can name a member of this NEFF; [`TOO_LONG`] past [`MAX_PATH`] bytes.
pub(crate) fn normalise(path: &str) -> Result<String, &'static str> {
    if path.len() > MAX_PATH {
        return Err(TOO_LONG);
    }
    if path.starts_with('/') {
        return Err("absolute");
    }
    let mut out = String::with_capacity(path.len());
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err("contains .."),
            p => {
                if !out.is_empty() {
                    out.push('/');
                }
                out.push_str(p);
            }
        }
    }
    Ok(out)
}

/// `name` (as a JSON member gives it) relative to the directory `dir`, normalised.
///
/// # Errors
///
/// As [`normalise`], for `name` alone: the JSON may not climb out of its directory.
pub(crate) fn join(dir: &str, name: &str) -> Result<String, &'static str> {
    let name = normalise(name)?;
    Ok(if dir.is_empty() { name } else { format!("{dir}/{name}") })
}

/// The directory part of a normalised path (`sg00` for `sg00/def.json`, empty for a top-level member).
pub(crate) fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised_and_unsafe_ones_refused() {
        assert_eq!(normalise("./sg00//PE.bin"), Ok("sg00/PE.bin".into()));
        assert_eq!(normalise("./"), Ok(String::new()));
        assert_eq!(normalise("/etc/passwd"), Err("absolute"));
        assert_eq!(normalise("sg00/../../x"), Err("contains .."));
        assert_eq!(join("sg00", "./PE.bin"), Ok("sg00/PE.bin".into()));
        assert_eq!(join("", "kelf-0.json"), Ok("kelf-0.json".into()));
        assert_eq!(parent("sg00/def.json"), "sg00");
        assert_eq!(parent("def.json"), "");
        assert_eq!(normalise(&"a/".repeat(2048)).map(|p| p.len()), Ok(4095));
        assert_eq!(normalise(&"a/".repeat(2049)), Err(TOO_LONG));
        assert_eq!(join("sg00", &"x".repeat(MAX_PATH + 1)), Err(TOO_LONG));
    }
}
