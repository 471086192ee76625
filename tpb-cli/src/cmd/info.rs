//! `tpb info`: what a NEFF is: its header, the compiler that made it, its generation,
//! subgraphs and engine streams with record counts, the other members, the hash check.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde_json::{json, Value};
use tpb_isa::Arch;
use tpb_neff::{Graph, HashStatus, Header, Neff};

use crate::input::{self, Input, Others};
use crate::json_doc;
use crate::records::{self, RECORD_SIZE};
use crate::row;
use crate::table::table;
use crate::text::{self, escape};

#[derive(clap::Args)]
pub struct Args {
    /// NEFF files, unpacked NEFF directories, raw record streams, or `-`, in any mix:
    /// each is described in turn, as `readelf -h` takes several files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    format: input::Format,
    /// One JSON object instead of text, of one input: `{"format": "tpb-info", "version": 1, "file",
    /// "kind"}` and, for a raw stream (`kind` "raw"), `{"records",
    /// "trailing_partial_bytes", "warnings"}`; for a NEFF (`kind` "neff"), its header,
    /// hash, tool version, graphs (each engine stream's path, records and generation),
    /// members and warnings.
    #[arg(long)]
    json: bool,
}

impl Args {
    pub fn run(self, out: &mut dyn Write) -> Result<bool> {
        let [file] = &self.files[..] else { return self.several(out) };
        self.one(out, file)
    }

    /// Several inputs: each one's description in turn, a blank line between them. An
    /// input that cannot be read is said and the rest are described; the run then exits
    /// 2, as any error does.
    fn several(&self, out: &mut dyn Write) -> Result<bool> {
        if self.json {
            bail!(
                "--json describes one input; give one input (a shell loop writes one \
                 document each)"
            );
        }
        let failed =
            input::each_input(&self.files, out, |file, text| self.one(text, file).map(|_| ()))?;
        if failed > 0 {
            return Err(crate::Reported.into());
        }
        Ok(true)
    }

    /// The description of one input.
    fn one(&self, out: &mut dyn Write, file: &Path) -> Result<bool> {
        // Not `load`: the warnings are part of what `info` prints.
        let input = input::read(file, self.format)?;
        let (name, neff) = match &input {
            Input::Neff { name, neff } => (name.as_str(), &**neff),
            Input::Raw { name, bytes, .. } => {
                return raw(out, name, bytes, &input.warnings(), self.json)
            }
        };
        if self.json {
            json_doc::write(out, JSON_FORMAT, JSON_VERSION, &to_json(name, neff))?;
        } else {
            text(out, name, neff)?;
        }
        Ok(true)
    }
}

/// Not a NEFF: say so, with the record count, and why when it resembles one (on
/// standard error too, where a script reading the JSON would not look).
fn raw(
    out: &mut dyn Write,
    name: &str,
    bytes: &[u8],
    warnings: &[String],
    json: bool,
) -> Result<bool> {
    let partial = records::split(bytes).1;
    for w in warnings {
        eprintln!("warning: {name}: {w}");
    }
    if json {
        let doc = json!({
            "file": name,
            "kind": "raw",
            "records": bytes.len() / RECORD_SIZE,
            "trailing_partial_bytes": partial.map_or(0, |p| p.len),
            "warnings": warnings,
        });
        json_doc::write(out, JSON_FORMAT, JSON_VERSION, &doc)?;
    } else {
        let n = text::count(bytes.len() / RECORD_SIZE, "record");
        write!(out, "{name}: a raw record stream (not a NEFF), {n}")?;
        match partial {
            Some(p) => writeln!(out, " and {}", p)?,
            None => writeln!(out)?,
        }
    }
    Ok(true)
}

fn text(out: &mut dyn Write, name: &str, neff: &Neff) -> Result<()> {
    let mut rows = vec![row!["field", "value"], row!["file", name]];
    match neff.header() {
        Some(h) => header_rows(h, &mut rows),
        None => rows.push(row!["header", "none (an unpacked NEFF directory)"]),
    }
    rows.push(row!["hash", neff.hash().map_or_else(|| "none".to_owned(), |h| h.to_string())]);
    let tool = neff.info().and_then(|i| i.tool_version());
    rows.push(row!["tool_version", tool.map_or_else(|| "?".to_owned(), |t| escape(t.as_bytes()))]);
    let mut archs: Vec<String> = neff.graphs().iter().map(target).collect();
    archs.dedup();
    rows.push(row!["arch", archs.join(", ")]);
    rows.push(row!["subgraphs", neff.graphs().len()]);
    table(out, &rows)?;

    for g in neff.graphs() {
        let [name, definition, kelf] =
            [&g.name, &g.definition, &g.kelf].map(|s| escape(s.as_bytes()));
        writeln!(out, "\n{name} ({definition}, from {kelf}):")?;
        let mut rows = vec![row!["engine", "stream", "bytes", "records"]];
        for s in &g.streams {
            let path = s.path.as_deref().map_or_else(|| "-".to_owned(), |p| escape(p.as_bytes()));
            let row = match neff.stream_data(s) {
                None => row![s.engine, path, "-", "absent"],
                Some(d) => row![s.engine, path, d.len(), count(d)],
            };
            rows.push(row);
        }
        table(out, &rows)?;
    }

    let others = Others::of(neff);
    let (count, bytes) = neff.members().fold((0, 0), |(n, b), m| (n + 1, b + m.size as usize));
    writeln!(
        out,
        "\nmembers: {count} ({bytes} bytes), {} of them not engine streams ({} bytes)",
        others.count, others.bytes
    )?;
    others.write_bins(out)?;
    if !neff.warnings().is_empty() {
        writeln!(out, "\nwarnings:")?;
        for w in neff.warnings() {
            writeln!(out, "  {w}")?;
        }
    }
    Ok(())
}

fn header_rows(h: &Header, rows: &mut Vec<Vec<String>>) {
    let build = escape(text::c_bytes(&h.neff_build_version));
    rows.extend([
        row!["pkg_version", h.pkg_version],
        row!["header_size", h.header_size],
        row!["data_size", h.data_size],
        row!["neff_version", format!("{}.{}", h.neff_version_major, h.neff_version_minor)],
        row!["neff_build_version", if build.is_empty() { "(empty)".into() } else { build }],
        row!["num_tpb", h.num_tpb],
        row!["uuid", h.uuid_string()],
        row!["name", escape(text::c_bytes(&h.name))],
        row!["requested_tpb_count", h.requested_tpb_count],
        row!["tpb_per_node", tpb_per_node(h)],
        row!["feature_bits", format!("{:#x}", h.feature_bits)],
        row!["lnc_size", h.lnc_size],
    ]);
}

/// `tpb_per_node` without its trailing zeros (`[1]`, not 64 entries).
fn tpb_per_node(h: &Header) -> String {
    let end = h.tpb_per_node.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    format!("{:?}", &h.tpb_per_node[..end])
}

/// The graph's target, with the generation it means (`cayman`, or `"*" (any)`).
fn target(g: &Graph) -> String {
    match (&g.target, input::graph_arch(g)) {
        (None, _) => "? (the kelf names no target)".to_owned(),
        (Some(t), Some(a)) if t.as_str() == a.name() => a.name().to_owned(),
        (Some(t), Some(a)) => format!("\"{}\" ({})", escape(t.as_str().as_bytes()), a.name()),
        (Some(t), None) => format!("\"{}\" (no known generation)", escape(t.as_str().as_bytes())),
    }
}

/// Whole records, and the partial one if any (`12`, `12 + 20 bytes`).
fn count(d: &[u8]) -> String {
    match d.len() % RECORD_SIZE {
        0 => (d.len() / RECORD_SIZE).to_string(),
        rest => format!("{} + {rest} bytes", d.len() / RECORD_SIZE),
    }
}

/// The `--json` document's format and version.
const JSON_FORMAT: &str = "tpb-info";
const JSON_VERSION: u32 = 1;

/// The body of a NEFF's `--json` document (its format and version aside).
fn to_json(name: &str, neff: &Neff) -> Value {
    let header = neff.header().map(|h| {
        json!({
            "pkg_version": h.pkg_version,
            "header_size": h.header_size,
            "data_size": h.data_size,
            "neff_version_major": h.neff_version_major,
            "neff_version_minor": h.neff_version_minor,
            "neff_build_version": text::json(text::c_bytes(&h.neff_build_version)),
            "num_tpb": h.num_tpb,
            "hash": hex(&h.hash),
            "uuid": h.uuid_string(),
            "name": text::json(text::c_bytes(&h.name)),
            "requested_tpb_count": h.requested_tpb_count,
            "tpb_per_node": h.tpb_per_node.to_vec(),
            "feature_bits": h.feature_bits,
            "lnc_size": h.lnc_size,
        })
    });
    let hash = neff.hash().map(|h| match h {
        HashStatus::Mismatch { expected, actual } => json!({
            "status": input::hash_word(&h), "expected": hex(&expected), "actual": hex(&actual)
        }),
        _ => json!({ "status": input::hash_word(&h) }),
    });
    let graphs: Vec<Value> = neff
        .graphs()
        .iter()
        .map(|g| {
            let streams: Vec<Value> = g
                .streams
                .iter()
                .map(|s| {
                    let d = neff.stream_data(s);
                    json!({
                        "engine": s.engine.name(),
                        "path": s.path,
                        "present": d.is_some(),
                        "bytes": d.map(<[u8]>::len),
                        "records": d.map(|d| d.len() / RECORD_SIZE),
                        "trailing_partial_bytes": d.map(|d| d.len() % RECORD_SIZE),
                    })
                })
                .collect();
            json!({
                "name": g.name,
                "kelf": g.kelf,
                "kelf_version": g.kelf_version,
                "target": g.target.as_ref().map(|t| t.as_str()),
                "arch": input::graph_arch(g).map(Arch::name),
                "definition": g.definition,
                "streams": streams,
            })
        })
        .collect();
    let others = Others::of(neff);
    let bins: Vec<Value> =
        others.bins.iter().map(|(p, n)| json!({ "path": p, "bytes": n })).collect();
    json!({
        "file": name,
        "kind": "neff",
        "header": header,
        "hash": hash,
        "tool_version": neff.info().and_then(|i| i.tool_version()),
        "graphs": graphs,
        "members": {
            "count": neff.members().count(),
            "bytes": neff.members().map(|m| m.size as usize).sum::<usize>(),
            "not_streams": others.count,
            "not_streams_bytes": others.bytes,
            "bin_not_streams": bins,
        },
        "warnings": neff.warnings().iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
