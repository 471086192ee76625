//! An unpacked NEFF: a directory holding `kelf-0.json`, `sg00/`, … as `neuron-packager
//! unpack` writes it, read into the same [`Store`] as a tar.
//!
//! Links inside the directory are never followed (they are listed as warnings, and an
//! error if a JSON member names one); devices and FIFOs are skipped without being opened,
//! so reading cannot hang; the bytes read are capped like an inflated payload.

use std::fs;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result, Warning};
use crate::members::{Found, Store};

/// Read every regular file below `root` into a store, paths relative to `root`.
pub(crate) fn read(root: &Path, max_bytes: u64, warnings: &mut Vec<Warning>) -> Result<Store> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let mut files = Vec::new();
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
                files.push(Found::Link(path, target));
            } else if kind.is_dir() {
                pending.push((full, path));
            } else if kind.is_file() {
                files.push(Found::File(path, full));
            } else {
                files.push(Found::Special(path, format!("{kind:?}")));
            }
        }
    }
    // Directory order is the file system's; sort so that output never depends on it.
    files.sort_by(|a, b| a.path().cmp(b.path()));
    let mut store = Store::new(Vec::new());
    for f in files {
        match f {
            Found::File(path, full) => {
                let start = store.data_mut().len();
                let room = max_bytes - start as u64;
                let file = fs::File::open(&full).map_err(io(&full))?;
                // One byte over the room tells a file that grew past the limit from one that fits.
                file.take(room + 1).read_to_end(store.data_mut()).map_err(io(&full))?;
                if store.data_mut().len() as u64 > max_bytes {
                    return Err(Error::DirectoryLimit { limit: max_bytes });
                }
                let end = store.data_mut().len();
                store.add(path, start..end, warnings);
            }
            Found::Link(path, target) => store.add_link(path, target, warnings),
            Found::Special(path, kind) => warnings.push(Warning::Special { path, kind }),
        }
    }
    Ok(store)
}
