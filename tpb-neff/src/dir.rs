//! An unpacked NEFF: a directory holding `kelf-0.json`, `sg00/`, … as `neuron-packager
//! unpack` writes it, read into the same [`Store`] as a tar.
//!
//! Links inside the directory are never followed (they are listed as warnings, and an
//! error if a JSON member names one); devices and FIFOs are skipped without being opened,
//! so reading cannot hang; the bytes read are capped like an inflated payload.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result, Warning};
use crate::members::{read_member, Store};

/// Read every regular file below `root` into a store, paths relative to `root`.
pub(crate) fn read(root: &Path, max_bytes: u64, warnings: &mut Vec<Warning>) -> Result<Store> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let mut found = Vec::new();
    let mut pending = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = pending.pop() {
        for entry in fs::read_dir(&dir).map_err(io(&dir))? {
            let entry = entry.map_err(io(&dir))?;
            let full = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                warnings.push(Warning::NonUtf8(full.display().to_string()));
                continue;
            };
            let path = if rel.is_empty() { name } else { format!("{rel}/{name}") };
            // `DirEntry::file_type` does not follow links.
            let kind = entry.file_type().map_err(io(&full))?;
            if kind.is_symlink() {
                let target =
                    fs::read_link(&full).map(|t| t.display().to_string()).unwrap_or_default();
                found.push((path, Found::Link(target)));
            } else if kind.is_dir() {
                pending.push((full, path));
            } else if kind.is_file() {
                found.push((path, Found::File(full)));
            } else {
                found.push((path, Found::Special(format!("{kind:?}"))));
            }
        }
    }
    // Directory order is the file system's; sort so that nothing depends on it.
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let mut store = Store::default();
    let mut budget = max_bytes;
    for (path, f) in found {
        match f {
            Found::File(full) => {
                let mut file = fs::File::open(&full).map_err(io(&full))?;
                let size = file.metadata().map_err(io(&full))?.len();
                let Some(data) = read_member(&mut file, size, &mut budget).map_err(io(&full))?
                else {
                    return Err(Error::DirectoryLimit { limit: max_bytes });
                };
                store.add(path, data, warnings);
            }
            Found::Link(target) => store.add_link(path, target, warnings),
            Found::Special(kind) => warnings.push(Warning::Special { path, kind }),
        }
    }
    Ok(store)
}

/// A directory entry as the walk finds it.
enum Found {
    /// A regular file, read after the walk.
    File(PathBuf),
    /// A link and its target, never followed.
    Link(String),
    /// A device, FIFO or socket, never opened.
    Special(String),
}
