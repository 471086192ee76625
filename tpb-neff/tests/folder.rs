//! An unpacked NEFF folder that changes while it is read, or whose named members are
//! links, special files or in folders that cannot be listed: each gets an error that
//! names the real cause, nothing outside the folder is read, and nothing blocks.

mod support;

use std::fs;
#[cfg(unix)]
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;

use support::{small_members, tar};
use tpb_neff::{Error, Neff, ReadOptions, Warning};

/// The small NEFF unpacked into a new temporary directory.
fn unpacked() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    tar::Archive::new(&tar(&small_members())[..]).unpack(dir.path()).unwrap();
    dir
}

fn open(d: &Path) -> Result<Neff, Error> {
    Neff::open(d, &ReadOptions::default())
}

/// Make a FIFO at `path`; false when this system has no `mkfifo`.
#[cfg(unix)]
fn mkfifo(path: &Path) -> bool {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    made.is_ok_and(|s| s.success())
}

#[cfg(unix)]
#[test]
fn a_member_swapped_for_a_fifo_or_a_link_after_the_listing_is_refused() {
    let dir = unpacked();
    let d = dir.path();
    fs::write(d.join("sg00/weights.npy"), [1; 64]).unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("weights.npy"), [0xEE; 64]).unwrap();
    let n = open(d).unwrap();
    assert_eq!(n.read_member("sg00/weights.npy").unwrap().unwrap()[..], [1; 64]);

    // The file itself becomes a link.
    fs::remove_file(d.join("sg00/weights.npy")).unwrap();
    symlink(outside.path().join("weights.npy"), d.join("sg00/weights.npy")).unwrap();
    let err = n.read_member("sg00/weights.npy").unwrap_err();
    assert!(
        matches!(&err, Error::NotAFile { path, expected: "regular file", found } if path == "sg00/weights.npy" && found == "link"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "'sg00/weights.npy' is not a regular file but a link (links are never followed, special files never read)"
    );

    // A FIFO: opened without blocking, then refused.
    fs::remove_file(d.join("sg00/weights.npy")).unwrap();
    if mkfifo(&d.join("sg00/weights.npy")) {
        let err = n.read_member("sg00/weights.npy").unwrap_err();
        assert!(matches!(&err, Error::NotAFile { found, .. } if found == "fifo"), "{err:?}");
    }

    // A folder on the way becomes a link to a folder outside holding the same name.
    fs::rename(d.join("sg00"), d.join("moved")).unwrap();
    symlink(outside.path(), d.join("sg00")).unwrap();
    let err = n.read_member("sg00/weights.npy").unwrap_err();
    assert!(
        matches!(&err, Error::NotAFile { path, expected: "folder", found } if path == "sg00" && found == "link"),
        "{err:?}"
    );
    // Or a file.
    fs::remove_file(d.join("sg00")).unwrap();
    fs::write(d.join("sg00"), b"x").unwrap();
    let err = n.read_member("sg00/weights.npy").unwrap_err();
    assert!(
        matches!(&err, Error::NotAFile { path, expected: "folder", .. } if path == "sg00"),
        "{err:?}"
    );
    // Gone: an I/O error naming it.
    fs::remove_file(d.join("sg00")).unwrap();
    let err = n.read_member("sg00/weights.npy").unwrap_err();
    assert!(
        matches!(&err, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
        "{err:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_subfolder_that_is_a_link_is_the_named_link() {
    let dir = unpacked();
    let d = dir.path();
    fs::rename(d.join("sg00"), d.join("real")).unwrap();
    symlink("real", d.join("sg00")).unwrap();
    let err = open(d).unwrap_err();
    assert!(
        matches!(&err, Error::NamedLink { path, named_by } if path == "sg00" && named_by == "kelf-0.json"),
        "{err:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_named_member_that_is_a_fifo_is_named_as_one() {
    let dir = unpacked();
    let d = dir.path();
    fs::remove_file(d.join("kelf-0.json")).unwrap();
    if !mkfifo(&d.join("kelf-0.json")) {
        return; // no mkfifo here
    }
    let err = open(d).unwrap_err();
    assert!(
        matches!(&err, Error::NotAFile { path, expected: "regular file", found } if path == "kelf-0.json" && found == "fifo"),
        "{err:?}"
    );

    let dir = unpacked();
    let d = dir.path();
    fs::remove_file(d.join("sg00/PE.bin")).unwrap();
    assert!(mkfifo(&d.join("sg00/PE.bin")));
    let err = open(d).unwrap_err();
    assert!(
        matches!(&err, Error::NotAFile { path, found, .. } if path == "sg00/PE.bin" && found == "fifo"),
        "{err:?}"
    );
}

#[test]
fn a_named_special_member_of_a_tar_is_named_as_one() {
    let mut t = tar(&support::without_member("sg00/PE.bin"));
    t.truncate(t.len() - 1024);
    let mut h = tar::Header::new_ustar();
    h.set_path("sg00/PE.bin").unwrap();
    h.set_entry_type(tar::EntryType::Fifo);
    h.set_size(0);
    h.set_cksum();
    t.extend_from_slice(h.as_bytes());
    t.extend_from_slice(&[0; 1024]);
    let bytes = support::neff_with_payload(&support::gzip(&t));
    let err = Neff::from_bytes(&bytes, &ReadOptions::default()).unwrap_err();
    assert!(
        matches!(&err, Error::NotAFile { path, found, .. } if path == "sg00/PE.bin" && found == "fifo"),
        "{err:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_named_member_in_a_folder_that_cannot_be_listed_says_so() {
    let dir = unpacked();
    let d = dir.path();
    fs::set_permissions(d.join("sg01"), fs::Permissions::from_mode(0o000)).unwrap();
    let listable = fs::read_dir(d.join("sg01")).is_ok(); // as root it is
    let got = open(d);
    fs::set_permissions(d.join("sg01"), fs::Permissions::from_mode(0o755)).unwrap();
    if listable {
        assert!(got.is_ok());
        return;
    }
    let err = got.unwrap_err();
    assert!(
        matches!(&err, Error::Unlisted { path, named_by, folder, .. } if path == "sg01/def.json" && named_by == "kelf-0.json" && folder == "sg01"),
        "{err:?}"
    );
}

#[test]
fn files_that_vanish_while_the_folder_is_listed_are_skipped() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = unpacked();
    let d = dir.path().to_path_buf();
    let churn = d.join("tmp");
    fs::create_dir(&churn).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let churner = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                for i in 0..50 {
                    let _ = fs::write(churn.join(format!("f{i}")), b"x");
                }
                for i in 0..50 {
                    let _ = fs::remove_file(churn.join(format!("f{i}")));
                }
                let _ = fs::remove_dir(&churn);
                let _ = fs::create_dir(&churn);
            }
        })
    };
    let mut results = Vec::new();
    for _ in 0..300 {
        results.push(open(&d).map(|n| n.warnings().to_vec()));
    }
    stop.store(true, Ordering::Relaxed);
    churner.join().unwrap();
    for r in results {
        let warnings = r.unwrap();
        for w in warnings {
            assert!(
                matches!(&w, Warning::Vanished(p) if p.starts_with("tmp/"))
                    || matches!(&w, Warning::Unreadable { path, .. } if path == "tmp"),
                "{w:?}"
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn a_folder_swapped_after_its_listing_is_not_read_from() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("neff");
    tar::Archive::new(&tar(&small_members())[..]).unpack(&d).unwrap();
    fs::write(d.join("sg00/weights.npy"), [1; 64]).unwrap();
    let n = open(&d).unwrap();

    // The folder is renamed away and another one put at its path: members still come
    // from the folder that was listed.
    let other = dir.path().join("other");
    tar::Archive::new(&tar(&small_members())[..]).unpack(&other).unwrap();
    fs::write(other.join("sg00/weights.npy"), [0xEE; 64]).unwrap();
    fs::rename(&d, dir.path().join("moved")).unwrap();
    fs::rename(&other, &d).unwrap();
    assert_eq!(n.read_member("sg00/weights.npy").unwrap().unwrap()[..], [1; 64]);

    // Or a link to it.
    fs::remove_dir_all(&d).unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::create_dir(outside.path().join("sg00")).unwrap();
    fs::write(outside.path().join("sg00/weights.npy"), [0xEE; 64]).unwrap();
    symlink(outside.path(), &d).unwrap();
    assert_eq!(n.read_member("sg00/weights.npy").unwrap().unwrap()[..], [1; 64]);
}

#[cfg(unix)]
#[test]
fn the_folder_named_may_be_a_link() {
    let dir = unpacked();
    let links = tempfile::tempdir().unwrap();
    let link = links.path().join("neff");
    symlink(dir.path(), &link).unwrap();
    let n = open(&link).unwrap();
    assert!(n.warnings().is_empty(), "{:?}", n.warnings());
    assert_eq!(
        n.read_member("sg00/PE.bin").unwrap().unwrap(),
        open(dir.path()).unwrap().read_member("sg00/PE.bin").unwrap().unwrap()
    );
}

#[test]
fn folders_nested_too_deep_are_unlisted() {
    let dir = unpacked();
    let d = dir.path();
    let mut deep = d.join("deep");
    for _ in 0..70 {
        deep.push("d");
    }
    fs::create_dir_all(&deep).unwrap();
    fs::write(deep.join("f"), b"x").unwrap();
    let n = open(d).unwrap();
    let too_deep = format!("deep{}", "/d".repeat(64));
    assert!(
        n.warnings().iter().any(|w| matches!(w, Warning::Unreadable { path, detail } if *path == too_deep && detail.contains("deep"))),
        "{:?}",
        n.warnings()
    );
    assert!(n.members().all(|m| !m.path.ends_with("/f")));
}

/// A subfolder swapped for a link to a folder outside, again and again, while the
/// folder is listed: the listing never holds a name from outside.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[test]
fn a_subfolder_swapped_for_a_link_while_listed_is_not_followed() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = unpacked();
    let d = dir.path().to_path_buf();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("OUTSIDE"), b"secret").unwrap();
    for i in 0..8 {
        fs::create_dir(d.join(format!("x{i}"))).unwrap();
        fs::write(d.join(format!("x{i}/inside")), b"x").unwrap();
        symlink(outside.path(), d.join(format!("l{i}"))).unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = Arc::clone(&stop);
        let d = d.clone();
        std::thread::spawn(move || {
            use rustix::fs::{renameat_with, RenameFlags, CWD};
            while !stop.load(Ordering::Relaxed) {
                for i in 0..8 {
                    let (x, l) = (d.join(format!("x{i}")), d.join(format!("l{i}")));
                    renameat_with(CWD, &x, CWD, &l, RenameFlags::EXCHANGE).unwrap();
                }
            }
        })
    };
    let mut results = Vec::new();
    for _ in 0..300 {
        results.push(open(&d));
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    for r in results {
        let n = r.unwrap();
        assert!(n.members().all(|m| !m.path.contains("OUTSIDE")), "read outside the folder");
        // A link, or a folder that became a link and a folder again while it was looked at.
        for w in n.warnings() {
            assert!(matches!(w, Warning::Link { .. } | Warning::Unreadable { .. }), "{w:?}");
        }
    }
}

/// A folder may list as many entries as a payload of the limit holds tar headers (at
/// least 10,000), and paths of as many bytes: past either it is an error, so that what
/// the walk keeps stays within the limit however deep or long its names.
#[test]
fn a_folder_past_the_entry_budget_is_an_error() {
    let dir = unpacked();
    let d = dir.path();
    // 4 MiB: room for the small NEFF's members, and the least entry budget (10,000).
    let options = ReadOptions::default().with_max_inflated(4 << 20);
    let outcome = |d: &Path| match Neff::open(d, &options) {
        Ok(n) => Ok(n.members().count()),
        Err(e) => Err(e),
    };
    let within = outcome(d).expect("the small NEFF reads at 4 MiB");
    let past = |d: &Path| match outcome(d) {
        Err(e @ Error::DirectoryEntries { limit: 10_000 }) => e.to_string(),
        other => panic!("{:?}", other.map_err(|e| e.to_string())),
    };
    // Entries: 10,000 more files in one folder.
    let many = d.join("many");
    fs::create_dir(&many).unwrap();
    for i in 0..10_000 {
        fs::write(many.join(i.to_string()), b"").unwrap();
    }
    past(d);
    fs::remove_dir_all(&many).unwrap();
    assert_eq!(outcome(d).unwrap(), within);
    // Paths: 2,100 entries 40 folders deep, each path over 2,400 bytes (5 MB in all, past
    // the 10,000 × 512 bytes), with far fewer entries than the limit.
    let mut deep = d.join("deep");
    for _ in 0..40 {
        deep.push("x".repeat(60));
    }
    fs::create_dir_all(&deep).unwrap();
    for i in 0..2_100 {
        fs::write(deep.join(i.to_string()), b"").unwrap();
    }
    let e = past(d);
    assert!(e.contains("paths of more than 512 bytes"), "{e}");
}
