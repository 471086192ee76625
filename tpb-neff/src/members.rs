//! The members of a NEFF, from its tar or from an unpacked directory.
//!
//! Each member's bytes are read straight into a `Vec` of the size its tar header (or
//! file) gives, capped by what is left of
//! [`ReadOptions::max_inflated`](crate::ReadOptions::max_inflated): the inflated tar
//! itself is never held, so memory is the members' size and no more.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::Warning;

/// One member: its normalised path (`sg00/PE.bin`) and its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member<'a> {
    /// The path inside the NEFF, `/`-separated, without `./` or a leading `/`.
    pub path: &'a str,
    /// The member's bytes.
    pub data: &'a [u8],
}

/// The members in archive (or directory walk) order, with a path index and the skipped links.
#[derive(Clone, Debug, Default)]
pub(crate) struct Store {
    list: Vec<(String, Vec<u8>)>,
    by_path: BTreeMap<String, usize>,
    links: BTreeSet<String>,
}

impl Store {
    /// Add a member; a repeated path replaces the earlier one (whose bytes are dropped).
    pub(crate) fn add(&mut self, path: String, data: Vec<u8>, warnings: &mut Vec<Warning>) {
        let i = self.list.len();
        if let Some(old) = self.by_path.insert(path.clone(), i) {
            warnings.push(Warning::Duplicate(path.clone()));
            self.list[old].1 = Vec::new();
        }
        self.links.remove(&path);
        self.list.push((path, data));
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

    /// The `i`th member when it is at `path` (and is that path's member): `None` for an
    /// index and path that another store handed out.
    pub(crate) fn at_path(&self, i: usize, path: &str) -> Option<Member<'_>> {
        (self.by_path.get(path) == Some(&i)).then(|| self.at(i))
    }

    /// The `i`th member in archive (or directory walk) order.
    pub(crate) fn at(&self, i: usize) -> Member<'_> {
        let (path, data) = &self.list[i];
        Member { path, data }
    }

    /// Every member in order, except the copies that a later member of the same path replaces.
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
