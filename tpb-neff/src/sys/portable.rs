//! The calls on `std::fs` alone, for hosts without Unix's `openat`: every folder is its
//! path, and each entry is looked at without following a link before it is used. Links
//! (and Windows junctions) are never followed, and nothing but a regular file is read,
//! but a folder that changes between the look and the use is not guarded against.

use std::ffi::OsString;
use std::fs::{self, FileType};
use std::io;
use std::path::{Path, PathBuf};

use super::Kind;
use crate::error::{Error, Result};

/// A folder, by its path.
pub(crate) type Handle = PathBuf;

/// The top folder `root`, following a link (the caller named it): refused, as a Unix
/// host refuses to open it, unless it is a folder.
pub(crate) fn open_top(root: &Path) -> io::Result<Handle> {
    if fs::metadata(root)?.is_dir() {
        Ok(root.to_path_buf())
    } else {
        Err(io::Error::new(io::ErrorKind::NotADirectory, "not a directory"))
    }
}

/// The subfolder `name` of `parent`, without following a link: `None` when it is not a
/// folder now (a link, or something else).
pub(crate) fn open_folder(parent: &Handle, name: &str) -> io::Result<Option<Handle>> {
    let path = parent.join(name);
    Ok(fs::symlink_metadata(&path)?.is_dir().then_some(path))
}

/// The entries of `dir`, each by name and whether the listing says it is a folder (not
/// a link to one). The outer error is the folder's failing to list, the inner ones an
/// entry's.
pub(crate) fn list(dir: &Handle) -> io::Result<impl Iterator<Item = io::Result<(OsString, bool)>>> {
    Ok(fs::read_dir(dir)?.map(|entry| {
        let entry = entry?;
        let folder = entry.file_type()?.is_dir();
        Ok((entry.file_name(), folder))
    }))
}

/// What is at `name` in `dir`, without following a link; `None` when nothing is.
pub(crate) fn look(dir: &Handle, name: &str) -> io::Result<Option<Kind>> {
    let path = dir.join(name);
    let meta = match fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let kind = meta.file_type();
    Ok(Some(if kind.is_dir() {
        Kind::Folder
    } else if kind.is_file() {
        Kind::File(meta.len())
    } else if kind.is_symlink() {
        Kind::Link(fs::read_link(&path).map(|t| t.display().to_string()).unwrap_or_default())
    } else {
        Kind::Special(type_word(kind))
    }))
}

/// Open the regular file `path` (normalised, `/`-separated) below the folder `top` (at
/// `root`, which names it in errors): each folder on the way, then the file, is looked
/// at without following a link and refused unless it is a folder (a regular file), and
/// the open file is refused unless it is a regular file.
///
/// # Errors
///
/// [`Error::Io`], and [`Error::NotAFile`] when what is at `path` is not a regular file,
/// or is reached through a link or something that is not a folder.
pub(crate) fn open_member(top: &Handle, root: &Path, path: &str) -> Result<fs::File> {
    let io = |at: &str| {
        let full = if at.is_empty() { root.to_path_buf() } else { root.join(at) };
        move |source| Error::Io { path: full, source }
    };
    let not = |at: &str, expected, found: &str| Error::NotAFile {
        path: at.to_owned(),
        expected,
        found: found.to_owned(),
    };
    let (folders, name) = path.rsplit_once('/').unwrap_or(("", path));
    let mut dir = top.clone();
    let mut walked = 0;
    for part in folders.split('/').filter(|p| !p.is_empty()) {
        walked += part.len() + usize::from(walked > 0);
        let at = &folders[..walked];
        dir.push(part);
        let kind = fs::symlink_metadata(&dir).map_err(io(at))?.file_type();
        if !kind.is_dir() {
            return Err(not(at, "folder", type_word(kind)));
        }
    }
    let file = dir.join(name);
    let kind = fs::symlink_metadata(&file).map_err(io(path))?.file_type();
    if !kind.is_file() {
        return Err(not(path, "regular file", type_word(kind)));
    }
    let opened = fs::File::open(&file).map_err(io(path))?;
    let kind = opened.metadata().map_err(io(path))?.file_type();
    if !kind.is_file() {
        return Err(not(path, "regular file", type_word(kind)));
    }
    Ok(opened)
}

/// A file type in a word or two, as [`Error::NotAFile`] says it: `std::fs` tells only
/// files, folders and links apart everywhere, and Unix's special files on Unix.
fn type_word(kind: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "fifo";
        } else if kind.is_socket() {
            return "socket";
        } else if kind.is_char_device() {
            return "character device";
        } else if kind.is_block_device() {
            return "block device";
        }
    }
    if kind.is_file() {
        "regular file"
    } else if kind.is_dir() {
        "folder"
    } else if kind.is_symlink() {
        "link"
    } else {
        "other"
    }
}

/// The calls as they behave on any host; run on Unix too, where the reader uses the
/// Unix ones.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_listed_and_looked_at_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        let top = open_top(dir.path()).unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("sub/f"), b"abc").unwrap();
        let mut names: Vec<_> = list(&top).unwrap().map(Result::unwrap).collect();
        names.sort();
        assert_eq!(names, [(OsString::from("sub"), true)]);
        let sub = open_folder(&top, "sub").unwrap().unwrap();
        assert_eq!(look(&sub, "f").unwrap(), Some(Kind::File(3)));
        assert_eq!(look(&top, "sub").unwrap(), Some(Kind::Folder));
        assert_eq!(look(&top, "gone").unwrap(), None);
        assert!(open_folder(&sub, "f").unwrap().is_none());
        assert!(open_folder(&top, "gone").is_err());
        assert_eq!(
            open_top(&dir.path().join("sub/f")).unwrap_err().kind(),
            io::ErrorKind::NotADirectory
        );
        let mut file = open_member(&top, dir.path(), "sub/f").unwrap();
        let mut text = String::new();
        io::Read::read_to_string(&mut file, &mut text).unwrap();
        assert_eq!(text, "abc");
        let err = open_member(&top, dir.path(), "sub/f/g").unwrap_err();
        assert!(
            matches!(&err, Error::NotAFile { path, expected: "folder", found } if path == "sub/f" && found == "regular file"),
            "{err:?}"
        );
        let err = open_member(&top, dir.path(), "sub").unwrap_err();
        assert!(
            matches!(&err, Error::NotAFile { path, expected: "regular file", found } if path == "sub" && found == "folder"),
            "{err:?}"
        );
        let err = open_member(&top, dir.path(), "sub/none").unwrap_err();
        assert!(
            matches!(&err, Error::Io { path, source } if path.ends_with("sub/none") && source.kind() == io::ErrorKind::NotFound),
            "{err:?}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_are_listed_as_links_and_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("f"), b"secret").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("f"), dir.path().join("f")).unwrap();
        let top = open_top(dir.path()).unwrap();
        let mut names: Vec<_> = list(&top).unwrap().map(Result::unwrap).collect();
        names.sort();
        assert_eq!(names, [(OsString::from("f"), false), (OsString::from("sub"), false)]);
        let target = outside.path().display().to_string();
        assert_eq!(look(&top, "sub").unwrap(), Some(Kind::Link(target)));
        assert!(open_folder(&top, "sub").unwrap().is_none());
        let err = open_member(&top, dir.path(), "sub/f").unwrap_err();
        assert!(
            matches!(&err, Error::NotAFile { path, expected: "folder", found } if path == "sub" && found == "link"),
            "{err:?}"
        );
        let err = open_member(&top, dir.path(), "f").unwrap_err();
        assert!(
            matches!(&err, Error::NotAFile { path, expected: "regular file", found } if path == "f" && found == "link"),
            "{err:?}"
        );
    }
}
