//! Text from the file in error and warning messages is escaped as the text form escapes
//! a name: printable ASCII as is, `"` and `\` backslash-escaped, other bytes `\xNN`.

mod support;

use tpb_neff::Error;

/// The rule, stated byte by byte.
fn rule(b: u8) -> String {
    match b {
        b'"' => "\\\"".into(),
        b'\\' => "\\\\".into(),
        0x20..=0x7e => char::from(b).to_string(),
        _ => format!("\\x{b:02x}"),
    }
}

/// A Unix path is bytes, each escaped by the rule.
#[cfg(unix)]
#[test]
fn every_byte_of_a_path_is_escaped_by_the_rule() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use std::path::PathBuf;
    for b in 0..=255u8 {
        let path = PathBuf::from(OsStr::from_bytes(&[b'a', b, b'z']));
        let io = Error::Io { path: path.clone(), source: std::io::Error::other("gone") };
        assert_eq!(io.to_string(), format!("reading a{}z", rule(b)), "byte {b:#04x}");
        let limit = Error::InputLimit { path, limit: 1 };
        assert_eq!(
            limit.to_string(),
            format!("a{}z: more than 1 bytes, the input limit", rule(b)),
            "byte {b:#04x}"
        );
    }
}

/// A path that is text (as any path is on a host where paths are not bytes) is escaped
/// by the same rule, byte by byte of its UTF-8.
#[test]
fn every_character_of_a_text_path_is_escaped_by_the_rule() {
    for c in (0..0x80u8).map(char::from).chain(['é', '\u{fffd}']) {
        let path = std::path::PathBuf::from(format!("a{c}z"));
        let want: String = c.to_string().bytes().map(rule).collect();
        let io = Error::Io { path, source: std::io::Error::other("gone") };
        assert_eq!(io.to_string(), format!("reading a{want}z"), "{c:?}");
    }
    // Text fields (member paths, JSON values) follow the same rule, byte by byte.
    let e = Error::MissingMember { path: "\u{1b}[31m\"\\é".into(), named_by: "k".into() };
    assert_eq!(e.to_string(), r#"'\x1b[31m\"\\\xc3\xa9' (named by k) is not a member"#);
}

/// (Windows allows no control character in a name.)
#[cfg(unix)]
#[test]
fn a_member_path_that_cannot_be_read_is_escaped() {
    use tpb_neff::{Neff, ReadOptions};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tar::Archive::new(&support::tar(&support::small_members())[..]).unpack(d).unwrap();
    let name = "\u{1b}[31mRED";
    std::fs::write(d.join(name), b"x").unwrap();
    let n = Neff::open(d, &ReadOptions::default()).unwrap();
    std::fs::remove_file(d.join(name)).unwrap();
    let e = n.read_member(name).unwrap_err();
    let text = e.to_string();
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.ends_with("/\\x1b[31mRED"), "{text:?}");
    let reason = std::error::Error::source(&e).map(ToString::to_string);
    assert!(reason.is_some_and(|r| r.contains("No such file")), "{e:?}");
}
