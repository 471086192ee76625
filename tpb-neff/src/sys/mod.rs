//! The file-system calls an unpacked NEFF is listed and read with, one implementation
//! per kind of host behind the same few functions.
//!
//! On Unix (`unix.rs`) a folder is an open handle: subfolders and members are opened
//! relative to it without following a link, so a folder renamed or replaced by a link
//! while it is read cannot lead the reader outside the one it opened, and a FIFO
//! swapped in for a member opens without blocking and is refused. Elsewhere
//! (`portable.rs`, on `std::fs` alone) a folder is its path: each entry is looked at
//! without following a link before it is used, so links are still never followed and
//! special files never read, but a folder that changes between that look and its use
//! is not guarded against.

#[cfg(any(not(unix), test))]
mod portable;
#[cfg(unix)]
mod unix;

#[cfg(not(unix))]
pub(crate) use portable::{list, look, open_folder, open_member, open_top, Handle};
#[cfg(unix)]
pub(crate) use unix::{list, look, open_folder, open_member, open_top, Handle};

/// What is at a name in a folder, looked at without following a link.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A folder.
    Folder,
    /// A regular file and its size.
    File(u64),
    /// A link and its target (empty when it cannot be read), never followed.
    Link(String),
    /// Anything else, in a word or two as [`crate::Error::NotAFile`] says it.
    Special(&'static str),
}
