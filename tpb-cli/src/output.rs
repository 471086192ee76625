//! The files `tpb` writes, so that nothing the user had is lost: a file is replaced
//! whole or not at all (a temporary file in its folder, renamed onto it once written
//! and flushed), a device or FIFO (`-o /dev/null`) is written in place and never
//! removed, and the text being assembled is never its own output.

use std::fs::{self, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};
use tempfile::NamedTempFile;

use crate::text::escape;

/// A path as `tpb`'s messages show it: escaped as the record text escapes a name, so
/// that a name from a file cannot drive the terminal.
pub fn shown(path: &Path) -> String {
    escape(path.as_os_str().as_encoded_bytes())
}

/// Whether a path that is not a regular file may be written in place.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// A device or FIFO is written in place (`-o /dev/null`).
    InPlace,
    /// Anything but a regular file is refused (a FIFO would block the writer).
    Refuse,
}

/// Where the bytes for a path go.
enum Dest {
    /// A regular file (the target of a link) replaced whole, keeping its permissions,
    /// or a new file (`None`).
    Replace(PathBuf, Option<fs::Permissions>),
    /// A device or FIFO, opened for writing.
    InPlace,
}

fn dest(path: &Path, special: Special) -> Result<Dest> {
    // Follows links: a link to a file writes the file, as `>` does.
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(Dest::Replace(
            fs::canonicalize(path).with_context(|| shown(path))?,
            Some(m.permissions()),
        )),
        Ok(m) if m.is_dir() => bail!("{} is a folder", shown(path)),
        Ok(_) if special == Special::InPlace => Ok(Dest::InPlace),
        Ok(_) => bail!("{} is not a regular file; refusing to write it", shown(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if fs::symlink_metadata(path).is_ok() {
                bail!("{} is a link to nothing; refusing to write through it", shown(path));
            }
            Ok(Dest::Replace(path.to_owned(), None))
        }
        Err(e) => Err(e).with_context(|| format!("writing {}", shown(path))),
    }
}

/// Write `path` with `fill`, which gets a buffered writer. On any error the path is as
/// it was: an old file keeps its bytes, no new file appears, nothing is removed.
pub fn write_file<T>(
    path: &Path,
    special: Special,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> Result<T> {
    let what = || format!("writing {}", shown(path));
    match dest(path, special)? {
        Dest::InPlace => {
            let file = OpenOptions::new().write(true).open(path).with_context(what)?;
            let mut w = BufWriter::with_capacity(64 << 10, file);
            let t = fill(&mut w).with_context(what)?;
            w.flush().with_context(what)?;
            Ok(t)
        }
        Dest::Replace(target, old) => {
            let dir = match target.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            // Said plainly: the temporary file's error would name that file, not the
            // folder the user gave.
            if fs::metadata(dir).is_err_and(|e| e.kind() == io::ErrorKind::NotFound) {
                bail!("{}: no folder {}", what(), shown(dir));
            }
            let mut tmp =
                temp_file(old, dir).map_err(|e| without_temp_path(e, dir)).with_context(what)?;
            let t = {
                let mut w = BufWriter::with_capacity(64 << 10, tmp.as_file_mut());
                let t = fill(&mut w).with_context(what)?;
                w.flush().with_context(what)?;
                t
            };
            tmp.as_file().sync_all().with_context(what)?;
            tmp.persist(&target).map_err(|e| e.error).with_context(what)?;
            Ok(t)
        }
    }
}

/// The error of making a temporary file in `dir` with the folder named, not the
/// temporary file (whose name the user never gave, and which never came to be).
fn without_temp_path(e: io::Error, dir: &Path) -> io::Error {
    // tempfile's error is the system's text then ` at path "…"`, and keeps no other
    // copy of the system's error (its `source` is that error's, none for an OS error).
    let text = e.to_string();
    let cause = text.rsplit_once(" at path \"").map_or(text.as_str(), |(c, _)| c);
    io::Error::new(e.kind(), format!("creating a file in {}: {cause}", shown(dir)))
}

/// A temporary file in `dir` with the mode the file it replaces should keep: the old
/// file's permissions, else (a new file) 0666 less the umask, as for any file the user
/// creates; not the 0600 of a plain temporary file.
fn temp_file(old: Option<fs::Permissions>, dir: &Path) -> io::Result<NamedTempFile> {
    match old {
        Some(p) => {
            let tmp = NamedTempFile::new_in(dir)?;
            tmp.as_file().set_permissions(p)?;
            Ok(tmp)
        }
        None => new_file_in(dir),
    }
}

/// A temporary file in `dir` that the kernel gives the umask's mode (asked for 0666).
#[cfg(unix)]
fn new_file_in(dir: &Path) -> io::Result<NamedTempFile> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new().permissions(fs::Permissions::from_mode(0o666)).tempfile_in(dir)
}

#[cfg(not(unix))]
fn new_file_in(dir: &Path) -> io::Result<NamedTempFile> {
    NamedTempFile::new_in(dir)
}

/// DIR, made if needed (`create_dir_all` would say only "File exists" of a file).
pub fn make_dir(dir: &Path) -> Result<()> {
    if fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        bail!("{} exists and is not a folder; -o names the folder to write into", shown(dir));
    }
    fs::create_dir_all(dir).with_context(|| format!("creating {}", shown(dir)))
}

/// Where the file `path` (a name from the input: `sg00/PE.bin`) goes under `dir`, its
/// folders made: every component plain (no root, `.` or `..`), and nothing in the way
/// ([`refuse_in_the_way`]: no link, which writing would follow out of `dir`).
/// `what` names the path in the error (`member`, `stream`).
pub fn path_under(dir: &Path, path: &str, what: &str) -> Result<PathBuf> {
    let rel = plain_relative(path, what)?;
    refuse_in_the_way(dir, rel)?;
    if let Some(parent) = rel.parent() {
        let parent = dir.join(parent);
        fs::create_dir_all(&parent).with_context(|| format!("creating {}", shown(&parent)))?;
    }
    Ok(dir.join(rel))
}

/// An error when something already under `dir` would stop `dir/rel` from being written
/// as a regular file, checked from DIR down before any is entered: a symbolic link on
/// the way or at the file (writing would follow it out of DIR), something on the way
/// that is not a folder, a folder, FIFO or device at the file's place ([`write_file`]
/// would refuse it once the files before it are written).
pub fn refuse_in_the_way(dir: &Path, rel: &Path) -> Result<()> {
    let file = dir.join(rel);
    let last = rel.components().count();
    let mut at = dir.to_path_buf();
    for (i, part) in rel.components().enumerate() {
        at.push(part);
        // Nothing there: nothing below it either.
        let Ok(m) = fs::symlink_metadata(&at) else { return Ok(()) };
        if m.file_type().is_symlink() {
            bail!("{} is a symbolic link; refusing to write through it", shown(&at));
        }
        if i + 1 < last && !m.is_dir() {
            bail!("{} exists and is not a folder; refusing to write {}", shown(&at), shown(&file));
        }
        if i + 1 == last && m.is_dir() {
            bail!("{} is a folder", shown(&file));
        }
        if i + 1 == last && !m.is_file() {
            bail!("{} is not a regular file; refusing to write it", shown(&file));
        }
    }
    Ok(())
}

/// The longest name of one path component: `NAME_MAX` of common file systems.
pub const NAME_MAX: usize = 255;

/// `path` when every component is plain (no root, `.` or `..`): a path that stays
/// under the folder it is joined to; and one the system can create (no NUL, no
/// component longer than [`NAME_MAX`] bytes), so that checking every path before any
/// is written finds the one that would fail part way. `what` names it in the error.
pub fn plain_relative<'a>(path: &'a str, what: &str) -> Result<&'a Path> {
    let rel = Path::new(path);
    let shown = || escape(path.as_bytes());
    if path.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        bail!("{what} '{}' is not a plain relative path; refusing to write it", shown());
    }
    if path.contains('\0') {
        bail!(
            "{what} '{}' holds a NUL byte, which no file name may; refusing to write it",
            shown()
        );
    }
    if rel.components().any(|c| c.as_os_str().len() > NAME_MAX) {
        let cut: String = shown().chars().take(80).collect();
        bail!(
            "{what} '{cut}…' has a name longer than {NAME_MAX} bytes, more than file systems \
             take; refusing to write it"
        );
    }
    Ok(rel)
}

/// An error when `output` is the file `input` names (or a link to it, or standard
/// input redirected from it): assembling a text onto itself would replace the text with
/// its records.
pub fn refuse_same_file(input: &Path, output: &Path) -> Result<()> {
    if output == Path::new("-") {
        return Ok(());
    }
    if same_file(input, output) {
        let input =
            if input == Path::new("-") { crate::input::STDIN.to_owned() } else { shown(input) };
        bail!("{} is the input {input}; refusing to write over it", shown(output));
    }
    Ok(())
}

/// Whether `a` and `b` are one regular file (both exist): the same device and inode,
/// so a link or a hard link to the input is caught too. `-` is standard input,
/// whatever it was redirected from.
#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let a = if a == Path::new("-") {
        io::stdin().as_fd().try_clone_to_owned().map(fs::File::from).and_then(|f| f.metadata())
    } else {
        fs::metadata(a)
    };
    let (Ok(a), Ok(b)) = (a, fs::metadata(b)) else { return false };
    // A device (`/dev/null` in and out) loses nothing.
    b.is_file() && a.dev() == b.dev() && a.ino() == b.ino()
}

/// Whether `a` and `b` are one file (both exist): the same path once links are
/// resolved, where the standard library gives no file identity (a hard link to the
/// input, or standard input redirected from the file, is not caught).
#[cfg(not(unix))]
fn same_file(a: &Path, b: &Path) -> bool {
    if a == Path::new("-") {
        return false;
    }
    matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(a), Ok(b)) if a == b)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::{symlink, PermissionsExt};

    use super::*;

    fn write(path: &Path, bytes: &[u8], special: Special) -> Result<()> {
        write_file(path, special, |w| w.write_all(bytes))
    }

    #[test]
    fn a_file_is_replaced_whole_or_kept() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("out.bin");
        write(&p, b"old", Special::Refuse).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        // A failing writer leaves the old bytes and no temporary file.
        let e = write_file(&p, Special::Refuse, |w| {
            w.write_all(b"half")?;
            Err::<(), _>(io::Error::other("disk full"))
        });
        assert!(e.is_err());
        assert_eq!(fs::read(&p).unwrap(), b"old");
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 1);
        write(&p, b"new", Special::Refuse).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o640);
    }

    #[test]
    fn a_missing_folder_is_named_not_the_temporary_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("none/out.bin");
        let e = format!("{:#}", write(&p, b"x", Special::Refuse).unwrap_err());
        assert_eq!(
            e,
            format!("writing {}: no folder {}", p.display(), d.path().join("none").display())
        );
        // A file where a folder should be: the system's reason, and the path given.
        fs::write(d.path().join("file"), b"").unwrap();
        let p = d.path().join("file/out.bin");
        let e = format!("{:#}", write(&p, b"x", Special::Refuse).unwrap_err());
        assert_eq!(e, format!("writing {}: Not a directory (os error 20)", p.display()));
    }

    #[test]
    fn a_folder_that_cannot_be_written_is_named_not_the_temporary_file() {
        let d = tempfile::tempdir().unwrap();
        let e = without_temp_path(
            tempfile::NamedTempFile::new_in(d.path().join("none")).unwrap_err(),
            Path::new("out"),
        );
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert_eq!(e.to_string(), "creating a file in out: No such file or directory (os error 2)");
    }

    #[test]
    fn a_link_writes_its_file_and_stays_a_link() {
        let d = tempfile::tempdir().unwrap();
        let (file, link) = (d.path().join("f"), d.path().join("l"));
        fs::write(&file, b"old").unwrap();
        symlink(&file, &link).unwrap();
        write(&link, b"new", Special::Refuse).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&file).unwrap(), b"new");
        // A link to nothing is refused, and kept.
        let dangling = d.path().join("dangling");
        symlink(d.path().join("none"), &dangling).unwrap();
        assert!(write(&dangling, b"x", Special::Refuse).is_err());
        assert!(fs::symlink_metadata(&dangling).is_ok());
    }

    #[test]
    fn a_device_is_written_in_place_and_never_removed() {
        let null = Path::new("/dev/null");
        write(null, b"x", Special::InPlace).unwrap();
        assert!(write(null, b"x", Special::Refuse).is_err());
        let full = Path::new("/dev/full");
        if full.exists() {
            assert!(write(full, &[0; 1 << 17], Special::InPlace).is_err());
            assert!(full.exists());
        }
    }

    #[test]
    fn the_input_is_never_the_output() {
        let d = tempfile::tempdir().unwrap();
        let (text, link) = (d.path().join("t.txt"), d.path().join("l"));
        fs::write(&text, b"nop\n").unwrap();
        symlink(&text, &link).unwrap();
        assert!(refuse_same_file(&text, &text).is_err());
        assert!(refuse_same_file(&text, &link).is_err());
        assert!(refuse_same_file(&text, &d.path().join("new.bin")).is_ok());
        assert!(refuse_same_file(Path::new("-"), &text).is_ok());
    }
}
