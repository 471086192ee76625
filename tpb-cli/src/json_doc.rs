//! The JSON document a command writes with `--json`: `"format"` and `"version"` first,
//! then the body's keys (which a `serde_json` map keeps sorted), so that every command's
//! JSON opens by saying what it is, as the README promises.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;
use serde_json::Value;

/// The document: the two keys that name it, then the body's.
#[derive(Serialize)]
struct Doc<'a> {
    format: &'a str,
    version: u32,
    #[serde(flatten)]
    body: &'a Value,
}

/// Write `{"format": format, "version": version, …body}` pretty-printed, then a newline.
/// `body` is an object that holds neither key.
pub fn write(out: &mut dyn Write, format: &str, version: u32, body: &Value) -> Result<()> {
    debug_assert!(
        body.is_object() && body.get("format").is_none() && body.get("version").is_none()
    );
    serde_json::to_writer_pretty(&mut *out, &Doc { format, version, body })?;
    writeln!(out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The format and version open the document, before keys that sort ahead of them.
    #[test]
    fn the_format_and_version_come_first() {
        let mut out = Vec::new();
        let body = serde_json::json!({ "arch": "cayman", "file": "x.neff", "zeta": [1] });
        write(&mut out, "tpb-x", 3, &body).unwrap();
        let text = String::from_utf8(out).unwrap();
        let keys: Vec<&str> =
            text.lines().filter_map(|l| l.strip_prefix("  \"")?.split('"').next()).collect();
        assert_eq!(keys, ["format", "version", "arch", "file", "zeta"], "{text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["version"], 3);
        assert_eq!(back["zeta"], serde_json::json!([1]));
    }
}
