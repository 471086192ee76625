//! File discovery, newline normalisation and atomic writes.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use codegen::Sources;
use tempfile::NamedTempFile;

/// The checkout `cargo xtask` runs in: the nearest folder at or above the current
/// directory whose `Cargo.toml` has `[workspace]` and which holds `isa/`. Found at run
/// time, not build time, so checkouts that share a target folder each work on their own.
pub fn project_root() -> Result<PathBuf> {
    let cwd = std::env::current_dir().context("reading the current directory")?;
    cwd.ancestors().find(|dir| is_checkout(dir)).map(Path::to_path_buf).with_context(|| {
        format!(
            "not inside a tpb-isa checkout: no folder from {} up holds a Cargo.toml with \
             [workspace] and an isa/ folder; run `cargo xtask` in the checkout",
            cwd.display()
        )
    })
}

/// Whether `dir` is a checkout: a `Cargo.toml` with `[workspace]` beside an `isa/` folder.
pub fn is_checkout(dir: &Path) -> bool {
    dir.join("isa").is_dir()
        && fs::read_to_string(dir.join("Cargo.toml"))
            .is_ok_and(|t| t.lines().any(|l| l.trim_start().starts_with("[workspace]")))
}

/// Every `*.isa` and `arch/*.toml` file under `spec`, sorted by path, with display
/// paths relative to `display_base` (so errors read `isa/arms.isa:41:9`).
pub fn load_spec(spec: &Path, display_base: &Path) -> Result<Sources> {
    let shown =
        spec.strip_prefix(display_base).unwrap_or(spec).to_string_lossy().replace('\\', "/");
    // The error names the file; the folder would only repeat it.
    Sources::read_spec(spec, &shown).context("reading the spec")
}

/// `\r\n` → `\n`, so a checkout with other line endings compares equal.
pub fn normalize(text: &str) -> String {
    text.replace("\r\n", "\n")
}

/// Write every `(path, contents)` through temporary files in the target folders, and
/// rename them into place only once all were written, so a failure part-way leaves the
/// tree as it was and a reader never sees half a file.
pub fn write_all_atomic(files: &[(PathBuf, &str)]) -> Result<()> {
    let mut staged = Vec::new();
    for (path, contents) in files {
        let stage = || -> Result<NamedTempFile> {
            let dir = path.parent().context("a generated file has a parent folder")?;
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            let mut tmp = temp_file_for(path, dir)
                .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
            tmp.write_all(contents.as_bytes())?;
            tmp.as_file().sync_all()?;
            Ok(tmp)
        };
        // The files staged so far are removed as they drop: the tree is as it was.
        let tmp = stage().context("nothing was written")?;
        staged.push((tmp, path));
    }
    let total = staged.len();
    for (done, (tmp, path)) in staged.into_iter().enumerate() {
        // The error alone: the temporary file it holds is removed now, not when the
        // message has been printed.
        tmp.persist(path).map_err(|e| e.error).with_context(|| {
            format!("writing {} ({done} of {total} files were replaced before it)", path.display())
        })?;
    }
    Ok(())
}

/// Write a file the user named (`export -o FILE`): a regular file (or the file a link
/// names) is replaced whole through [`write_all_atomic`]; a device or FIFO (`-o
/// /dev/null`) is written in place, never renamed over (that replaced `/dev/null` with a
/// regular file); a folder or a link to nothing is an error.
pub fn write_output(path: &Path, contents: &str) -> Result<()> {
    match fs::metadata(path) {
        Ok(m) if m.is_file() => {
            let target =
                fs::canonicalize(path).with_context(|| format!("writing {}", path.display()))?;
            write_all_atomic(&[(target, contents)])
        }
        Ok(m) if m.is_dir() => anyhow::bail!("{} is a folder", path.display()),
        Ok(_) => fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut f| f.write_all(contents.as_bytes()))
            .with_context(|| format!("writing {}", path.display())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if fs::symlink_metadata(path).is_ok() {
                anyhow::bail!(
                    "{} is a link to nothing; refusing to write through it",
                    path.display()
                );
            }
            write_all_atomic(&[(path.to_owned(), contents)])
        }
        Err(e) => Err(e).with_context(|| format!("writing {}", path.display())),
    }
}

/// A temporary file in `dir` to be renamed onto `path`, with the mode `path` should keep:
/// the old file's when there is one, else 0666 less the umask (0644 as a rule), as for any
/// file the user creates; not the 0600 of a plain temporary file.
#[cfg(unix)]
fn temp_file_for(path: &Path, dir: &Path) -> io::Result<NamedTempFile> {
    use std::os::unix::fs::PermissionsExt;
    match fs::metadata(path) {
        Ok(old) => {
            let tmp = NamedTempFile::new_in(dir)?;
            tmp.as_file().set_permissions(old.permissions())?;
            Ok(tmp)
        }
        // The kernel applies the umask to the mode asked for at creation.
        Err(_) => {
            tempfile::Builder::new().permissions(fs::Permissions::from_mode(0o666)).tempfile_in(dir)
        }
    }
}

#[cfg(not(unix))]
fn temp_file_for(_path: &Path, dir: &Path) -> io::Result<NamedTempFile> {
    NamedTempFile::new_in(dir)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).expect("the file exists").permissions().mode() & 0o777
    }

    #[test]
    fn a_fifo_is_written_in_place_and_a_link_through_to_its_file() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        // A FIFO stands for any special file (`-o /dev/null`, which a rename replaced
        // with a regular file); a test on /dev/null itself would break the machine.
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let reader = {
                let fifo = fifo.clone();
                std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
            };
            write_output(&fifo, "x\n").unwrap();
            let kind = fs::symlink_metadata(&fifo).unwrap().file_type();
            assert!(kind.is_fifo(), "the FIFO was replaced by {kind:?}");
            assert_eq!(reader.join().unwrap(), "x\n");
        }
        let file = dir.path().join("model.json");
        fs::write(&file, "old\n").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        write_output(&link, "new\n").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays");
        assert_eq!(fs::read_to_string(&file).unwrap(), "new\n");
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink(dir.path().join("nothing"), &dangling).unwrap();
        assert!(write_output(&dangling, "x").is_err());
        assert!(write_output(dir.path(), "x").is_err());
    }

    /// A failure says how far the write got: before any file was replaced, nothing was
    /// written; after, how many were.
    #[test]
    fn a_failed_write_says_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.rs");
        fs::write(&a, "old\n").unwrap();
        fs::write(dir.path().join("file"), "").unwrap();
        // A folder where a file's folder should be: it cannot be staged.
        let e = write_all_atomic(&[(a.clone(), "new\n"), (dir.path().join("file/b.rs"), "b\n")])
            .unwrap_err();
        assert!(format!("{e:#}").starts_with("nothing was written: creating "), "{e:#}");
        assert_eq!(fs::read_to_string(&a).unwrap(), "old\n");
        // A folder where the file should be: staged, but it cannot be renamed over.
        fs::create_dir(dir.path().join("c.rs")).unwrap();
        fs::write(dir.path().join("c.rs/x"), "").unwrap();
        let e = write_all_atomic(&[(a.clone(), "new\n"), (dir.path().join("c.rs"), "c\n")])
            .unwrap_err();
        assert!(format!("{e:#}").contains("(1 of 2 files were replaced before it)"), "{e:#}");
        let left: Vec<_> =
            fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left.len(), 3, "no temporary file is left behind: {left:?}");
    }

    #[test]
    fn a_new_file_gets_the_mode_of_any_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let probe = dir.path().join("probe");
        fs::write(&probe, "").unwrap(); // 0666 less the umask
        let new = dir.path().join("sub/new.rs");
        write_all_atomic(&[(new.clone(), "new\n")]).unwrap();
        assert_eq!(fs::read_to_string(&new).unwrap(), "new\n");
        assert_eq!(format!("{:o}", mode(&new)), format!("{:o}", mode(&probe)));
    }

    #[test]
    fn an_existing_file_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        // 0666 is wider than the umask usually lets a new file be: kept, not masked.
        for wanted in [0o640, 0o666] {
            let old = dir.path().join(format!("old{wanted:o}.rs"));
            fs::write(&old, "old\n").unwrap();
            fs::set_permissions(&old, fs::Permissions::from_mode(wanted)).unwrap();
            write_all_atomic(&[(old.clone(), "new\n")]).unwrap();
            assert_eq!(fs::read_to_string(&old).unwrap(), "new\n");
            assert_eq!(format!("{:o}", mode(&old)), format!("{wanted:o}"));
        }
    }
}
