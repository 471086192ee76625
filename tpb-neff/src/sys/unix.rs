//! The Unix calls: every folder is an open handle, and everything below it is opened
//! relative to that handle without following a link and without blocking.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{fstat, openat, readlinkat, statat, AtFlags, Dir, FileType, Mode, OFlags, CWD};
use rustix::io::Errno;

use super::Kind;
use crate::error::{Error, Result};

/// An open folder: what is below it is reached from the handle, never by path again.
pub(crate) type Handle = OwnedFd;

/// The flags every file and folder is opened with: read-only, and never blocking.
const BASE_FLAGS: OFlags =
    OFlags::RDONLY.union(OFlags::CLOEXEC).union(OFlags::NOCTTY).union(OFlags::NONBLOCK);

/// The flags every folder is opened with.
const DIR_FLAGS: OFlags = BASE_FLAGS.union(OFlags::DIRECTORY);

/// Open the top folder `root`, following a link (the caller named it).
pub(crate) fn open_top(root: &Path) -> io::Result<Handle> {
    Ok(openat(CWD, root, DIR_FLAGS, Mode::empty())?)
}

/// Open the subfolder `name` of `parent` without following a link: `None` when it is
/// not a folder now (a link, or something else).
pub(crate) fn open_folder(parent: &Handle, name: &str) -> io::Result<Option<Handle>> {
    match openat(parent, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty()) {
        Ok(fd) => Ok(Some(fd)),
        // Linux says ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW, others ELOOP.
        Err(Errno::LOOP | Errno::NOTDIR) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The entries of `dir` but `.` and `..`, each by name and whether the listing says it
/// is a folder. The outer error is the folder's failing to list, the inner ones an
/// entry's.
pub(crate) fn list(dir: &Handle) -> io::Result<impl Iterator<Item = io::Result<(OsString, bool)>>> {
    let listing = Dir::read_from(dir)?;
    Ok(listing.filter_map(|entry| {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => return Some(Err(e.into())),
        };
        let bytes = entry.file_name().to_bytes();
        if bytes == b"." || bytes == b".." {
            return None;
        }
        Some(Ok((OsStr::from_bytes(bytes).to_owned(), entry.file_type() == FileType::Directory)))
    }))
}

/// What is at `name` in `dir`, without following a link; `None` when nothing is.
pub(crate) fn look(dir: &Handle, name: &str) -> io::Result<Option<Kind>> {
    let st = match statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => st,
        Err(Errno::NOENT) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    Ok(Some(match FileType::from_raw_mode(st.st_mode) {
        FileType::Directory => Kind::Folder,
        FileType::RegularFile => Kind::File(u64::try_from(st.st_size).unwrap_or(0)),
        FileType::Symlink => {
            let target = readlinkat(dir, name, Vec::new())
                .map(|t| Path::new(OsStr::from_bytes(t.to_bytes())).display().to_string())
                .unwrap_or_default();
            Kind::Link(target)
        }
        other => Kind::Special(type_word(other)),
    }))
}

/// Open the regular file `path` (normalised, `/`-separated) below the folder `top` (the
/// handle of `root`, which only names it in errors), whatever has changed since the walk
/// listed it: each folder on the way is opened relative to the one before without
/// following a link, and the file itself without following a link and without blocking
/// (a FIFO swapped in opens at once), then refused unless the open file is a regular file.
///
/// # Errors
///
/// [`Error::Io`], and [`Error::NotAFile`] when what is at `path` now is not a regular
/// file, or is reached through a link or something that is not a folder.
pub(crate) fn open_member(top: &Handle, root: &Path, path: &str) -> Result<std::fs::File> {
    let io = |at: &str| {
        let full = if at.is_empty() { root.to_path_buf() } else { root.join(at) };
        move |e: Errno| Error::Io { path: full, source: e.into() }
    };
    let not = |at: &str, expected, found: &str| Error::NotAFile {
        path: at.to_owned(),
        expected,
        found: found.to_owned(),
    };
    let mut opened: Option<OwnedFd> = None;
    let (folders, name) = path.rsplit_once('/').unwrap_or(("", path));
    let mut walked = 0;
    for part in folders.split('/').filter(|p| !p.is_empty()) {
        walked += part.len() + usize::from(walked > 0);
        let at = &folders[..walked];
        let flags = DIR_FLAGS | OFlags::NOFOLLOW;
        let dir = opened.as_ref().map_or(top.as_fd(), AsFd::as_fd);
        opened = Some(match openat(dir, part, flags, Mode::empty()) {
            Ok(fd) => fd,
            // Linux says ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW, others ELOOP.
            Err(Errno::LOOP | Errno::NOTDIR) => {
                let found = statat(dir, part, AtFlags::SYMLINK_NOFOLLOW)
                    .map_or("something else", |st| type_word(FileType::from_raw_mode(st.st_mode)));
                return Err(not(at, "folder", found));
            }
            Err(e) => return Err(io(at)(e)),
        });
    }
    let dir = opened.as_ref().map_or(top.as_fd(), AsFd::as_fd);
    let fd = match openat(dir, name, BASE_FLAGS | OFlags::NOFOLLOW, Mode::empty()) {
        Ok(fd) => fd,
        Err(Errno::LOOP) => return Err(not(path, "regular file", "link")),
        Err(e) => return Err(io(path)(e)),
    };
    let kind = FileType::from_raw_mode(fstat(&fd).map_err(io(path))?.st_mode);
    if kind != FileType::RegularFile {
        return Err(not(path, "regular file", type_word(kind)));
    }
    Ok(std::fs::File::from(fd))
}

/// A file type in a word or two, as [`Error::NotAFile`] says it.
fn type_word(kind: FileType) -> &'static str {
    match kind {
        FileType::RegularFile => "regular file",
        FileType::Directory => "folder",
        FileType::Symlink => "link",
        FileType::Fifo => "fifo",
        FileType::Socket => "socket",
        FileType::CharacterDevice => "character device",
        FileType::BlockDevice => "block device",
        _ => "other",
    }
}
