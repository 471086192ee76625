//! The members of a NEFF, from its tar or from an unpacked directory, in one buffer.
//!
//! Member data are ranges of one `Vec<u8>` (the inflated tar itself, or the directory's
//! files appended), so a NEFF costs one allocation bounded by
//! [`ReadOptions::max_inflated`](crate::ReadOptions::max_inflated), and no copies.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use crate::error::Warning;

/// One member: its normalised path (`sg00/PE.bin`) and its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member<'a> {
    /// The path inside the NEFF, `/`-separated, without `./` or a leading `/`.
    pub path: &'a str,
    /// The member's bytes.
    pub data: &'a [u8],
}

/// Members as ranges of one buffer, with a path index and the skipped links.
#[derive(Clone, Debug, Default)]
pub(crate) struct Store {
    data: Vec<u8>,
    list: Vec<(String, Range<usize>)>,
    by_path: BTreeMap<String, usize>,
    links: BTreeSet<String>,
}

impl Store {
    /// A store over `data`; members are added as ranges of it.
    pub(crate) fn new(data: Vec<u8>) -> Store {
        Store { data, ..Store::default() }
    }

    /// The buffer, for appending a directory's files before [`Store::add`].
    pub(crate) fn data_mut(&mut self) -> &mut Vec<u8> {
        &mut self.data
    }

    /// Add a member at `range` of the buffer; a repeated path replaces the earlier one.
    pub(crate) fn add(&mut self, path: String, range: Range<usize>, warnings: &mut Vec<Warning>) {
        let i = self.list.len();
        if self.by_path.insert(path.clone(), i).is_some() {
            warnings.push(Warning::Duplicate(path.clone()));
        }
        self.links.remove(&path);
        self.list.push((path, range));
    }

    /// Note a link member (with a warning): never followed, and an error when named;
    /// a later regular member of that path wins.
    pub(crate) fn add_link(&mut self, path: String, target: String, warnings: &mut Vec<Warning>) {
        warnings.push(Warning::Link { path: path.clone(), target });
        self.links.insert(path);
    }

    /// Whether `path` names a link member.
    pub(crate) fn is_link(&self, path: &str) -> bool {
        self.links.contains(path)
    }

    /// The member at `path`.
    pub(crate) fn get(&self, path: &str) -> Option<Member<'_>> {
        self.by_path.get(path).map(|&i| self.at(i))
    }

    /// Index of the member at `path` (the last copy of a repeated path).
    pub(crate) fn index_of(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    /// The `i`th member in archive (or directory walk) order.
    pub(crate) fn at(&self, i: usize) -> Member<'_> {
        let (path, range) = &self.list[i];
        Member { path, data: &self.data[range.clone()] }
    }

    /// Every member in order, repeated paths included, except the copies that a later
    /// member of the same path replaces.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Member<'_>> + '_ {
        (0..self.list.len())
            .filter(|&i| self.by_path.get(&self.list[i].0) == Some(&i))
            .map(|i| self.at(i))
    }

    /// The normalised paths of every member, in path order.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> + '_ {
        self.by_path.keys().map(String::as_str)
    }
}

/// A member as a walk over a tar or a directory finds it, before the store holds it.
pub(crate) enum Found<F> {
    /// A regular file: its path and where its bytes are (`F`).
    File(String, F),
    /// A link: its path and target, never followed.
    Link(String, String),
    /// Anything else (device, FIFO, sparse file): its path and kind, skipped.
    Special(String, String),
}

impl<F> Found<F> {
    /// The member's normalised path.
    pub(crate) fn path(&self) -> &str {
        match self {
            Found::File(p, _) | Found::Link(p, _) | Found::Special(p, _) => p,
        }
    }
}

/// Normalise a `/`-separated relative path: drop `.` and empty components.
///
/// # Errors
///
/// `"absolute"` for a path starting with `/`, `"contains .."` for any `..` component:
/// neither can name a member of this NEFF.
pub(crate) fn normalise(path: &str) -> Result<String, &'static str> {
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
    }
}
