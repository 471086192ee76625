//! `tpb`: disassemble, assemble, validate and survey TPB instruction-record streams,
//! and show the spec's layouts and geometry. Everything it knows comes from `tpb_isa`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use tpb_isa::disasm::{self, ArmDesc, Confidence, Kind, Role};
use tpb_isa::generated::disasm::{desc, ARMS, GEOMETRY};
use tpb_isa::inst::BINDINGS;
use tpb_isa::{stream, validate, Arch, Inst, Opcode, StreamError, TpbEngType, RECORD_SIZE};

#[derive(Parser)]
#[command(
    name = "tpb",
    version,
    about = "Disassemble, assemble and check AWS Neuron TPB instruction streams"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print every record of a raw stream: offset, the 64 bytes in hex, and its text.
    Disasm {
        /// The raw record stream.
        file: PathBuf,
        /// One JSON array of records instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Assemble text (one record per line, `#` or `;` comments) into a raw stream.
    ///
    /// A `disasm` listing is read by its text column, so an edited listing assembles
    /// to the edit.
    Asm {
        /// The text.
        file: PathBuf,
        /// Where to write the records.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Validate every record for a generation, the EXIT scan and the final record.
    Validate {
        /// The raw record stream.
        file: PathBuf,
        /// The generation (name, label or alias: cayman, V3, trn2).
        #[arg(long, default_value = "cayman")]
        arch: String,
        /// The engine whose program the stream is (for the final-record check).
        #[arg(long, default_value = "PE")]
        engine: String,
    },
    /// The geometry of one generation, or of all side by side.
    Geometry {
        /// The generation; all when absent.
        arch: Option<String>,
    },
    /// The byte layout of an arm: an offset table and a byte diagram.
    Layout {
        /// The arm (spec name or mnemonic: PSEUDO_FUNCTION_BEGIN, pseudo_function_begin).
        arm: String,
    },
    /// Coverage of streams against the spec, both ways.
    Stats {
        /// Raw record streams.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = String::new();
    let result = match cli.command {
        Command::Disasm { file, json } => cmd_disasm(&mut out, &file, json),
        Command::Asm { file, output } => cmd_asm(&file, &output),
        Command::Validate { file, arch, engine } => cmd_validate(&mut out, &file, &arch, &engine),
        Command::Geometry { arch } => cmd_geometry(&mut out, arch.as_deref()),
        Command::Layout { arm } => cmd_layout(&mut out, &arm),
        Command::Stats { files } => cmd_stats(&mut out, &files),
    };
    print!("{out}");
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn read(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).with_context(|| format!("reading {}", path.display()))
}

fn parse_arch(s: &str) -> Result<Arch> {
    s.parse::<Arch>().map_err(|e| anyhow::anyhow!("'{s}': {e}"))
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::with_capacity(2 * b.len()), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

/// The stream's whole records; the trailing partial record, if any, as an error.
fn whole_records(bytes: &[u8]) -> (Vec<(usize, &[u8; RECORD_SIZE])>, Option<StreamError>) {
    let mut recs = Vec::new();
    for r in stream::records(bytes) {
        match r {
            Ok(x) => recs.push(x),
            Err(e) => return (recs, Some(e)),
        }
    }
    (recs, None)
}

fn cmd_disasm(out: &mut String, file: &Path, json: bool) -> Result<bool> {
    let bytes = read(file)?;
    let (recs, partial) = whole_records(&bytes);
    if json {
        let items: Vec<serde_json::Value> = recs
            .iter()
            .enumerate()
            .map(|(i, (off, r))| {
                let inst = Inst::decode(r);
                serde_json::json!({
                    "index": i,
                    "offset": off,
                    "opcode": r[0],
                    "arm": inst.arm().map(|a| a.name()),
                    "bytes": hex(&r[..]),
                    "text": inst.to_string(),
                })
            })
            .collect();
        let mut doc = serde_json::json!({ "records": items });
        if let Some(StreamError::TrailingPartial { offset, len }) = partial {
            doc["trailing_partial"] = serde_json::json!({ "offset": offset, "len": len });
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        for (off, r) in &recs {
            writeln!(out, "{off:08x}  {}  {}", hex(&r[..]), Inst::decode(r))?;
        }
    }
    match partial {
        Some(e) => bail!("{}: {e}", file.display()),
        None => Ok(true),
    }
}

fn cmd_asm(file: &Path, output: &Path) -> Result<bool> {
    let text = fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut bytes = Vec::new();
    let mut errors = 0;
    for r in disasm::assemble(&text) {
        match r {
            Ok(rec) => bytes.extend_from_slice(&rec),
            Err(e) => {
                errors += 1;
                let line = text.lines().nth(e.line - 1).unwrap_or("");
                eprintln!("{}:{e}", file.display());
                eprintln!("  | {line}");
                eprintln!("  | {}^", " ".repeat(e.col - 1));
            }
        }
    }
    if errors > 0 {
        eprintln!("error: {errors} line(s) could not be assembled; nothing was written");
        return Ok(false);
    }
    fs::write(output, &bytes).with_context(|| format!("writing {}", output.display()))?;
    eprintln!(
        "wrote {} records ({} bytes) to {}",
        bytes.len() / RECORD_SIZE,
        bytes.len(),
        output.display()
    );
    Ok(true)
}

fn cmd_validate(out: &mut String, file: &Path, arch: &str, engine: &str) -> Result<bool> {
    let arch = parse_arch(arch)?;
    let engine = TpbEngType::from_name(&engine.to_ascii_uppercase()).with_context(|| {
        format!("unknown engine '{engine}' (expected one of PE, ACT, POOL, DVE, SP)")
    })?;
    let bytes = read(file)?;
    let (recs, partial) = whole_records(&bytes);
    let mut findings = 0;
    for (i, (off, r)) in recs.iter().enumerate() {
        if let Err(e) = validate::validate(arch, r) {
            findings += 1;
            writeln!(out, "record {i} (offset {off:#x}): {e}")?;
        }
    }
    if let Some(e) = partial {
        findings += 1;
        writeln!(out, "stream: {e}")?;
    }
    if !stream::has_pseudo_exit(&bytes) {
        findings += 1;
        writeln!(out, "stream: no EXIT record (PSEUDO_INST 0xdf with pseudo_opcode 1)")?;
    }
    if let Err(e) = stream::final_inst_validity_check(arch, engine, &bytes) {
        findings += 1;
        let index = if recs.is_empty() {
            String::from("stream")
        } else {
            format!("record {}", recs.len() - 1)
        };
        writeln!(out, "{index}: final-record check ({arch}, {}): {e}", engine.name())?;
    }
    writeln!(out, "{}: {} records, {findings} finding(s) on {arch}", file.display(), recs.len())?;
    Ok(findings == 0)
}

fn cmd_geometry(out: &mut String, arch: Option<&str>) -> Result<bool> {
    let archs: Vec<Arch> = match arch {
        Some(a) => vec![parse_arch(a)?],
        None => Arch::ALL.to_vec(),
    };
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut head = vec![String::from("value")];
    head.extend(archs.iter().map(|a| format!("{} ({})", a.name(), a.label())));
    rows.push(head);
    for g in GEOMETRY {
        let mut row = vec![g.name.to_owned()];
        for &a in &archs {
            let mut s = String::new();
            (g.show)(a, &mut s)?;
            row.push(s);
        }
        rows.push(row);
    }
    table(out, &rows)?;
    Ok(true)
}

/// Left-aligned columns, two spaces apart, a rule under the header.
fn table(out: &mut String, rows: &[Vec<String>]) -> std::fmt::Result {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|c| rows.iter().map(|r| r.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0))
        .collect();
    for (i, r) in rows.iter().enumerate() {
        let line: Vec<String> =
            r.iter().enumerate().map(|(c, s)| format!("{s:<w$}", w = widths[c])).collect();
        writeln!(out, "{}", line.join("  ").trim_end())?;
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            writeln!(out, "{}", rule.join("  "))?;
        }
    }
    Ok(())
}

fn kind_name(k: &Kind) -> String {
    match k {
        Kind::Uint(w) => format!("u{}", 8 * w),
        Kind::Int(w) => format!("i{}", 8 * w),
        Kind::Enum(e) => e.name.to_owned(),
        Kind::Bits(b) => b.name.to_owned(),
        Kind::Array(k, n) => format!("[{}; {n}]", kind_name(k)),
        Kind::Str(n) => format!("[i8; {n}] (name)"),
        Kind::Bytes(n) => format!("reserved[{n}]"),
    }
}

fn find_arm(name: &str) -> Option<&'static ArmDesc> {
    ARMS.iter().copied().find(|a| a.name.eq_ignore_ascii_case(name) || a.mnemonic == name)
}

fn cmd_layout(out: &mut String, arm: &str) -> Result<bool> {
    let Some(d) = find_arm(arm) else {
        let names: Vec<&str> = ARMS.iter().map(|a| a.name).collect();
        bail!("unknown arm '{arm}'; the spec has {}", names.join(", "));
    };
    let opcodes: Vec<String> = BINDINGS
        .iter()
        .filter(|b| b.arm == d.kind)
        .map(|b| match b.sub {
            Some(s) => format!("{:#04x} with byte {} == {}", b.opcode, s.offset, s.value),
            None => format!("{:#04x}", b.opcode),
        })
        .collect();
    writeln!(out, "{} (mnemonic {})", d.name, d.mnemonic)?;
    if opcodes.is_empty() {
        writeln!(out, "opcode: not bound (decoded only explicitly)")?;
    } else {
        writeln!(out, "opcode: {}", opcodes.join(", "))?;
    }
    writeln!(out)?;
    let mut rows =
        vec![["key", "offset", "size", "field", "type", "confidence"].map(String::from).to_vec()];
    for (i, f) in d.fields.iter().enumerate() {
        rows.push(vec![
            key(i).to_string(),
            format!("+{}", f.offset),
            f.kind.size().to_string(),
            f.name.to_owned(),
            kind_name(&f.kind),
            f.confidence.as_str().to_owned(),
        ]);
    }
    table(out, &rows)?;
    writeln!(out)?;
    // One cell per byte, 16 to a row, holding the key of the field that covers it.
    let mut owner = [' '; RECORD_SIZE];
    for (i, f) in d.fields.iter().enumerate() {
        for b in f.range() {
            owner[b] = key(i);
        }
    }
    write!(out, "     ")?;
    for c in 0..16 {
        write!(out, " {c:x}")?;
    }
    writeln!(out)?;
    for row in 0..RECORD_SIZE / 16 {
        write!(out, "+{:02} |", row * 16)?;
        for c in 0..16 {
            let b = row * 16 + c;
            let sep = if c == 15 || owner[b] != owner[b + 1] { '|' } else { ' ' };
            write!(out, "{}{sep}", owner[b])?;
        }
        writeln!(out)?;
    }
    Ok(true)
}

/// The one-character key of field `i` in a byte diagram.
fn key(i: usize) -> char {
    const KEYS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    KEYS.get(i).map_or('?', |&c| c as char)
}

#[derive(Default)]
struct Stats {
    records: usize,
    opcodes: BTreeMap<u8, usize>,
    bound_seen: Vec<bool>,
    unknown: BTreeMap<(u8, Option<u8>), usize>,
    reserved: BTreeMap<(&'static str, usize), usize>,
    inferred: BTreeMap<(&'static str, &'static str), usize>,
    partial: Vec<String>,
}

fn cmd_stats(out: &mut String, files: &[PathBuf]) -> Result<bool> {
    let mut s = Stats { bound_seen: vec![false; BINDINGS.len()], ..Stats::default() };
    // Opcodes that sub-dispatch: an unknown record there is an unknown sub-opcode.
    let sub_at =
        |op: u8| BINDINGS.iter().find(|b| b.opcode == op).and_then(|b| b.sub).map(|s| s.offset);
    for file in files {
        let bytes = read(file)?;
        let (recs, partial) = whole_records(&bytes);
        if let Some(e) = partial {
            s.partial.push(format!("{}: {e}", file.display()));
        }
        for (_, r) in recs {
            s.records += 1;
            *s.opcodes.entry(r[0]).or_default() += 1;
            for (i, b) in BINDINGS.iter().enumerate() {
                if b.matches(r) {
                    s.bound_seen[i] = true;
                }
            }
            let inst = Inst::decode(r);
            let Some(kind) = inst.arm() else {
                *s.unknown.entry((r[0], sub_at(r[0]).map(|o| r[o]))).or_default() += 1;
                continue;
            };
            let d = desc(kind);
            for f in d.fields {
                let b = &r[f.range()];
                if f.role == Role::Reserved {
                    for (k, &x) in b.iter().enumerate() {
                        if x != 0 {
                            *s.reserved.entry((d.name, f.offset as usize + k)).or_default() += 1;
                        }
                    }
                }
                if f.confidence == Confidence::Inferred && b.iter().any(|&x| x != 0) {
                    *s.inferred.entry((d.name, f.name)).or_default() += 1;
                }
            }
        }
    }
    writeln!(out, "{} records in {} file(s)", s.records, files.len())?;
    for p in &s.partial {
        writeln!(out, "warning: {p}")?;
    }
    writeln!(out, "\nopcode histogram:")?;
    let mut rows = vec![["opcode", "name", "records"].map(String::from).to_vec()];
    for (op, n) in &s.opcodes {
        let name = Opcode::from_value(*op).map_or("?", Opcode::name);
        rows.push(vec![format!("{op:#04x}"), name.to_owned(), n.to_string()]);
    }
    table(out, &rows)?;
    writeln!(out, "\nbindings never used:")?;
    let mut none = true;
    for (b, seen) in BINDINGS.iter().zip(&s.bound_seen) {
        if !seen {
            none = false;
            let sub =
                b.sub.map(|x| format!(" (byte {} == {})", x.offset, x.value)).unwrap_or_default();
            writeln!(out, "  {:#04x}{sub} {}", b.opcode, b.arm.name())?;
        }
    }
    if none {
        writeln!(out, "  (none)")?;
    }
    writeln!(out, "\nrecords the spec cannot explain:")?;
    if s.unknown.is_empty() {
        writeln!(out, "  (none)")?;
    }
    for ((op, sub), n) in &s.unknown {
        match sub {
            Some(v) => writeln!(out, "  {op:#04x} unknown sub-opcode {v}: {n}")?,
            None => writeln!(out, "  {op:#04x} unknown opcode: {n}")?,
        }
    }
    writeln!(out, "\nnon-zero reserved bytes:")?;
    if s.reserved.is_empty() {
        writeln!(out, "  (none)")?;
    }
    for ((arm, off), n) in &s.reserved {
        writeln!(out, "  {arm} +{off}: {n}")?;
    }
    writeln!(out, "\ninferred fields exercised (non-zero):")?;
    if s.inferred.is_empty() {
        writeln!(out, "  (none)")?;
    }
    for ((arm, field), n) in &s.inferred {
        writeln!(out, "  {arm}.{field}: {n}")?;
    }
    Ok(true)
}
