//! `tpb disasm`: an objdump-like listing of a NEFF per subgraph and engine, or of a raw
//! stream as before; or the same as one JSON object. Written as it is decoded, record
//! by record, so a large NEFF never becomes one string.

use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;

use anyhow::{bail, Result};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use tpb_isa::disasm::{split_line, Printer};
use tpb_isa::Arch;

use crate::hex_text;
use crate::input::{self, Filter, Input, Unit};
use crate::range::RecordRange;
use crate::records::{self, parse_arch, Record, RECORD_SIZE};

#[derive(clap::Args)]
pub struct Args {
    /// NEFF files, unpacked NEFF directories, raw record streams, or `-` for standard
    /// input, in any mix: several are listed in turn, each under a line naming it
    /// (`NAME:     file format neff`), as objdump takes several files; one that cannot be
    /// read is said and the rest listed (exit 2). `tpb asm` takes one input's listing.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    format: input::Format,
    /// Only this subgraph of a NEFF (`sg00`).
    #[arg(long)]
    subgraph: Option<String>,
    /// Only this engine of a NEFF (pe, act, pool, dve, sp).
    #[arg(long)]
    engine: Option<String>,
    /// Leave out the 64 bytes of hex (of the text listing; the JSON keeps `bytes`).
    #[arg(long)]
    no_hex: bool,
    /// One JSON object instead of text, of one input: `{"format": "tpb-disasm", "version":
    /// 1, "kind"}` and: `{"arch", "records": [...]}` for a raw stream (`kind` "raw"),
    /// `{"absent", "streams": [{"label", "subgraph", "engine", "arch", "path", "records": [...]}]}`
    /// for a NEFF (`absent`: the labels of the streams its graphs name but it lacks);
    /// a record is `{"index", "offset", "opcode", "arm", "bytes", "mnemonic", "fields", "text"}`
    /// (`arm` null where no binding selects one; `text` in the layouts of `arch`, as the
    /// listing prints it; `fields` its `name=value` pairs as `{name: value text}`, so
    /// without the fields at zero, which the text leaves out), and a
    /// stream that ends in part of a record has `"trailing_partial": {"offset", "len"}`.
    #[arg(long)]
    json: bool,
    /// The generation whose opcode names and layouts the records are read in (a name,
    /// label or alias: cayman, V3, trn2); a NEFF's own target by default, cayman for a raw
    /// stream.
    #[arg(long)]
    arch: Option<String>,
    /// Only these records of each stream, by index (the first column of a NEFF's listing;
    /// record i is at offset 64 × i): 7, 100..200, 100..=199, 100.. or ..50; a bound may
    /// be a byte offset, @ and a number (@0x1c0..@0x400): the record holding that byte.
    #[arg(long, value_name = "RANGE")]
    records: Option<RecordRange>,
}

/// Where an input's listing stands among several: whether it is headed by a line naming
/// the input, and whether a blank line comes before that.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Heading {
    /// The only input: no heading.
    None,
    First,
    Next,
}

impl Args {
    pub fn run(self, out: &mut dyn Write) -> Result<bool> {
        // Wrong arguments are said once, before any input is read.
        let filter = Filter::new(self.subgraph.clone(), self.engine.as_deref())?;
        let arch = self.arch.as_deref().map(parse_arch).transpose()?;
        let [file] = &self.files[..] else { return self.several(out, &filter, arch) };
        if let Some(partial) = self.one(out, file, Heading::None, &filter, arch)? {
            bail!("{partial}");
        }
        Ok(true)
    }

    /// Several inputs: each one's listing in turn, under a line naming it, a blank line
    /// between; each written as it is decoded, as one input's is. An input that cannot
    /// be read (or ends in part of a record) is said on standard error, the rest are
    /// listed, and the run then exits 2, as any error does (also when a reader stops
    /// early, `| head`, after one was said). Each listing goes out before what is said
    /// after it, so that in one stream (a terminal, `2>&1`) a message follows the
    /// listing before it, as objdump's do.
    fn several(&self, out: &mut dyn Write, filter: &Filter, arch: Option<Arch>) -> Result<bool> {
        if self.json {
            bail!(
                "--json lists one input; give one input (a shell loop writes one document \
                 each)"
            );
        }
        input::refuse_stdin_twice(&self.files)?;
        let mut failed = 0;
        let mut heading = Heading::First;
        let mut out = Watched { out, failed: false };
        for file in &self.files {
            match self.one(&mut out, file, heading, filter, arch) {
                Ok(partial) => {
                    heading = Heading::Next;
                    if let Err(e) = out.flush() {
                        return Err(input::output_ended(e.into(), failed));
                    }
                    if let Some(partial) = partial {
                        failed += 1;
                        eprintln!("error: {partial}");
                    }
                }
                // The output's own error (a closed pipe) ends the run.
                Err(e) if out.failed => return Err(input::output_ended(e, failed)),
                Err(e) => {
                    failed += 1;
                    eprintln!("error: {e:#}");
                }
            }
        }
        if failed > 0 {
            return Err(crate::Reported.into());
        }
        Ok(true)
    }

    /// The listing of one input, under its heading when there are several; an error
    /// before anything of it is written, or, once it is, what is wrong at its end (a
    /// stream that ends in part of a record).
    fn one(
        &self,
        out: &mut dyn Write,
        file: &std::path::Path,
        heading: Heading,
        filter: &Filter,
        arch: Option<Arch>,
    ) -> Result<Option<String>> {
        let input = input::load(file, self.format)?;
        let mut units = filter.select(&input)?;
        input::set_arch(&input, &mut units, arch);
        let neff = matches!(input, Input::Neff { .. });
        // An empty raw stream lists nothing: said, so that no output is not taken for a
        // failure (a NEFF's empty stream has its header line).
        if !neff && units.iter().all(|u| u.bytes.is_empty()) {
            eprintln!("warning: {}: empty: no records to list", input.name());
        } else if let Some(range) = self.records {
            let most = units.iter().map(|u| u.bytes.len() / RECORD_SIZE).max().unwrap_or(0);
            if range.within(most).is_empty() {
                let streams =
                    if units.len() == 1 { "the stream has" } else { "no stream has more than" };
                // In the unit the window was given in too.
                let bytes = if range.by_offset {
                    format!(" ({:#x} bytes)", most * RECORD_SIZE)
                } else {
                    String::new()
                };
                eprintln!(
                    "warning: {}: --records {range} lists nothing: {streams} {}{bytes}",
                    input.name(),
                    crate::text::count(most, "record")
                );
            }
        }
        if heading != Heading::None {
            let gap = if heading == Heading::Next { "\n" } else { "" };
            let [neff_format, raw_format] = crate::listing::FILE_FORMATS;
            let format = if neff { neff_format } else { raw_format };
            // Escaped as a stream's label is: a name with a line break or a leading `#`
            // cannot break the listing.
            let name = crate::text::heading_label(&crate::text::escape(input.name().as_bytes()));
            writeln!(out, "{gap}{name}{}{format}\n", crate::listing::FILE_FORMAT)?;
        }
        let window = |u: &Unit<'_>| {
            let n = u.bytes.len() / RECORD_SIZE;
            self.records.map_or(0..n, |r| r.within(n))
        };
        if self.json {
            let mut ser = serde_json::Serializer::pretty(&mut *out);
            if neff {
                let mut map = ser.serialize_map(None)?;
                map.serialize_entry("format", JSON_FORMAT)?;
                map.serialize_entry("version", &JSON_VERSION)?;
                map.serialize_entry("kind", "neff")?;
                // As the listing names them: the streams a graph names but no member holds.
                map.serialize_entry("absent", &filter.absent(&input))?;
                let streams: Vec<StreamJson<'_>> = units
                    .iter()
                    .map(|unit| StreamJson { unit, neff: true, window: window(unit) })
                    .collect();
                map.serialize_entry("streams", &streams)?;
                map.end()?;
            } else {
                StreamJson { unit: &units[0], neff: false, window: window(&units[0]) }
                    .serialize(&mut ser)?;
            }
            writeln!(out)?;
        } else {
            for (i, unit) in units.iter().enumerate() {
                if neff {
                    if i > 0 {
                        writeln!(out)?;
                    }
                    listing(out, unit, window(unit), !self.no_hex)?;
                } else {
                    raw_listing(out, unit, window(unit), !self.no_hex)?;
                }
            }
            // A stream a graph names but no member holds is said, as `tpb validate` and
            // `tpb info` say it, not left out of the listing without a word.
            for label in filter.absent(&input) {
                writeln!(out, "\n{label}{}", crate::listing::ABSENT)?;
            }
        }
        // A NEFF stream's label (`sg00/PE`) does not say which file; a raw stream's is its name.
        let of = if neff { format!("{}: ", input.name()) } else { String::new() };
        let partial: Vec<String> = units
            .iter()
            .filter_map(|u| records::split(u.bytes).1.map(|e| format!("{of}{}: {e}", u.label)))
            .collect();
        // Said by the caller once the listing is written.
        Ok((!partial.is_empty()).then(|| partial.join("\nerror: ")))
    }
}

/// A writer that remembers whether a write to it failed: an error of the output (a closed
/// pipe) ends a run of several inputs, where an input's own error is said and the next
/// input listed.
struct Watched<'a> {
    out: &'a mut dyn Write,
    failed: bool,
}

impl Watched<'_> {
    fn watch<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        if r.as_ref().is_err_and(|e| e.kind() != std::io::ErrorKind::Interrupted) {
            self.failed = true;
        }
        r
    }
}

impl Write for Watched<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.out.write(buf);
        self.watch(r)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let r = self.out.write_all(buf);
        self.watch(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.out.flush();
        self.watch(r)
    }
}

/// What the JSON document says it is (`format`, `version`), as every command's does.
const JSON_FORMAT: &str = "tpb-disasm";
const JSON_VERSION: u32 = 1;

/// A raw stream, as `tpb asm` reads it back: `offset  hex  text` per record, with a
/// label line where a function begins, as a NEFF stream's listing has.
fn raw_listing(
    out: &mut dyn Write,
    unit: &Unit<'_>,
    window: Range<usize>,
    hex: bool,
) -> Result<()> {
    let mut chunk = Vec::with_capacity(CHUNK + 4096);
    let mut printer = Printer::new();
    for (off, r) in in_window(unit, window) {
        if let Some(name) = records::function_label(unit.arch, r) {
            writeln!(chunk, "{off:08x} <{name}>:")?;
        }
        record_line(&mut chunk, &mut printer, None, off, unit.arch, r, hex);
        hand_on(out, &mut chunk, CHUNK)?;
    }
    hand_on(out, &mut chunk, 0)
}

/// The records of `unit` whose indices `window` holds, with their offsets.
fn in_window<'a>(
    unit: &'a Unit<'a>,
    window: Range<usize>,
) -> impl Iterator<Item = (usize, &'a Record)> + 'a {
    let bytes = &unit.bytes[window.start * RECORD_SIZE..window.end * RECORD_SIZE];
    records::split(bytes).0.map(move |(off, r)| (off + window.start * RECORD_SIZE, r))
}

/// Bytes of listing gathered before they are handed to the writer: the lines are
/// printed into one buffer and handed on in large writes (which a `BufWriter` passes
/// through), not copied once into a line and again into the writer's buffer.
const CHUNK: usize = 64 << 10;

/// Hand `chunk` to `out` once it holds at least `least` bytes (0: whatever it holds).
fn hand_on(out: &mut dyn Write, chunk: &mut Vec<u8>, least: usize) -> Result<()> {
    if chunk.len() >= least.max(1) {
        out.write_all(chunk)?;
        chunk.clear();
    }
    Ok(())
}

/// A NEFF stream: a header line, then `index  offset  hex  text` per record, with a
/// label line where a function begins.
fn listing(out: &mut dyn Write, unit: &Unit<'_>, window: Range<usize>, hex: bool) -> Result<()> {
    let arch = unit.arch.map_or("?", Arch::name);
    let assumed =
        if unit.arch_assumed { " (the NEFF names no known generation; --arch picks)" } else { "" };
    let n = unit.bytes.len() / RECORD_SIZE;
    let label = crate::text::heading_label(&unit.label);
    writeln!(out, "{label}: {arch}{assumed}, {}", crate::text::count(n, "record"))?;
    let mut chunk = Vec::with_capacity(CHUNK + 4096);
    let mut printer = Printer::new();
    for (off, r) in in_window(unit, window) {
        let i = off / RECORD_SIZE;
        if let Some(name) = records::function_label(unit.arch, r) {
            writeln!(chunk, "{off:08x} <{name}>:")?;
        }
        record_line(&mut chunk, &mut printer, Some(i), off, unit.arch, r, hex);
        hand_on(out, &mut chunk, CHUNK)?;
    }
    hand_on(out, &mut chunk, 0)
}

/// One record's line appended to `line`: its index (in a NEFF listing), offset and hex
/// (unless `--no-hex`) columns, its text, a note when its opcode does not exist on the
/// generation ([`records::not_on_arch_note`]), and the line end. Bytes, not a `String`: every
/// column is ASCII, and the output takes bytes, so no piece needs a UTF-8 check.
fn record_line(
    line: &mut Vec<u8>,
    printer: &mut Printer,
    index: Option<usize>,
    off: usize,
    arch: Option<Arch>,
    r: &Record,
    hex: bool,
) {
    if let Some(i) = index {
        push_index(line, i);
    }
    push_offset(line, off);
    if hex {
        push_hex(line, r);
        line.extend_from_slice(b"  ");
    }
    records::write_text(line, printer, arch, r);
    if let Some(note) = records::not_on_arch_note(arch, r) {
        line.extend_from_slice(note.as_bytes());
    }
    line.push(b'\n');
}

/// The record index right-aligned in six columns (wider when it needs more), and two
/// spaces: `format!("{i:6}  ")` without the formatting machinery, per record.
fn push_index(line: &mut Vec<u8>, i: usize) {
    let mut buf = [b' '; 22];
    let mut at = buf.len() - 2;
    let mut v = i;
    loop {
        at -= 1;
        buf[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    line.extend_from_slice(&buf[at.min(buf.len() - 8)..]);
}

/// The byte offset as eight hex digits (more when it needs them), and two spaces.
fn push_offset(line: &mut Vec<u8>, off: usize) {
    let digits = (usize::BITS - (off | 1).leading_zeros()).div_ceil(4).max(8) as usize;
    let mut buf = [b' '; 18];
    for (k, d) in buf[..digits].iter_mut().rev().enumerate() {
        *d = hex_text::DIGITS[(off >> (4 * k)) & 15];
    }
    line.extend_from_slice(&buf[..digits + 2]);
}

fn push_hex(line: &mut Vec<u8>, r: &Record) {
    line.extend_from_slice(&hex_text::record_digits(r));
}

/// One stream as JSON: its records in `window` (and for a NEFF, where it comes from),
/// keys sorted; serialised as the records are decoded.
struct StreamJson<'a> {
    unit: &'a Unit<'a>,
    neff: bool,
    window: Range<usize>,
}

impl Serialize for StreamJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let u = self.unit;
        let mut map = s.serialize_map(None)?;
        if !self.neff {
            // A raw stream's object is the document: it says what it is as the others do.
            map.serialize_entry("format", JSON_FORMAT)?;
            map.serialize_entry("version", &JSON_VERSION)?;
            map.serialize_entry("kind", "raw")?;
        }
        if self.neff {
            map.serialize_entry("arch", &u.arch.map(Arch::name))?;
        } else {
            // The generation the text is in: without it a raw stream's text is ambiguous.
            map.serialize_entry("arch", u.arch.unwrap_or(records::DEFAULT_ARCH).name())?;
        }
        if self.neff {
            map.serialize_entry("engine", &u.engine.map(|e| e.name()))?;
            // JSON escapes by itself: the label as the file has it (the text's is escaped).
            map.serialize_entry("label", &u.json_label())?;
            map.serialize_entry("path", &u.path)?;
        }
        map.serialize_entry("records", &RecordsJson(u, self.window.clone()))?;
        if self.neff {
            map.serialize_entry("subgraph", &u.subgraph)?;
        }
        if let Some(p) = records::split(u.bytes).1 {
            map.serialize_entry(
                "trailing_partial",
                &serde_json::json!({ "offset": p.offset, "len": p.len }),
            )?;
        }
        map.end()
    }
}

/// A stream's records in a window as a JSON array, decoded as they are written.
struct RecordsJson<'a>(&'a Unit<'a>, Range<usize>);

impl Serialize for RecordsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let arch = self.0.arch;
        s.collect_seq(in_window(self.0, self.1.clone()).map(|(off, r)| {
            let inst = records::decode(arch, r);
            RecordJson {
                arm: inst.arm_name(),
                bytes: hex_text::record_digits(r),
                text: inst.to_string(),
                index: off / RECORD_SIZE,
                offset: off,
                opcode: r[0],
            }
        }))
    }
}

/// A record of the JSON, written as its fields are split from the text, without a
/// `serde_json::Value` between (a map of every key and field allocated per record was a
/// third of `--json`'s time): the keys in sorted order, as a `Value`'s map writes them.
struct RecordJson {
    arm: Option<&'static str>,
    bytes: [u8; 2 * RECORD_SIZE],
    text: String,
    index: usize,
    offset: usize,
    opcode: u8,
}

impl Serialize for RecordJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (mnemonic, fields) = split_line(&self.text);
        let mut map = s.serialize_map(Some(8))?;
        map.serialize_entry("arm", &self.arm)?;
        // ASCII hex digits.
        map.serialize_entry("bytes", std::str::from_utf8(&self.bytes).unwrap_or_default())?;
        map.serialize_entry("fields", &FieldsJson(fields.map(|f| (f.name, f.value)).collect()))?;
        map.serialize_entry("index", &self.index)?;
        map.serialize_entry("mnemonic", mnemonic)?;
        map.serialize_entry("offset", &self.offset)?;
        map.serialize_entry("opcode", &self.opcode)?;
        map.serialize_entry("text", &self.text)?;
        map.end()
    }
}

/// A record's `name=value` pairs as a JSON object, keys sorted, the last of a name given
/// twice kept (as a map built from them keeps it).
struct FieldsJson<'a>(Vec<(&'a str, &'a str)>);

impl Serialize for FieldsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut pairs = self.0.clone();
        // Stable: of equal names, the last given stays last, and is the one kept.
        pairs.sort_by(|a, b| a.0.cmp(b.0));
        let kept = pairs
            .iter()
            .enumerate()
            .filter(|&(i, p)| pairs.get(i + 1).is_none_or(|next| next.0 != p.0))
            .map(|(_, p)| *p);
        s.collect_map(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record's fields are written as a sorted map built from them writes them: keys
    /// sorted, the last of a name given twice kept.
    #[test]
    fn fields_are_written_as_a_map_of_them() {
        let pairs = vec![("b", "1"), ("a", "2"), ("b", "3"), ("c.d", "[1,2]"), ("a", "4")];
        let map: std::collections::BTreeMap<&str, &str> = pairs.iter().copied().collect();
        let want = serde_json::to_string(&map).unwrap();
        assert_eq!(serde_json::to_string(&FieldsJson(pairs)).unwrap(), want);
        assert_eq!(want, r#"{"a":"4","b":"3","c.d":"[1,2]"}"#);
    }

    #[test]
    fn the_columns_are_what_format_gives() {
        for v in [0usize, 7, 99_999, 999_999, 1_000_000, 0xffff_ffff, 0x1_0000_0000, usize::MAX] {
            let mut line = Vec::new();
            push_index(&mut line, v);
            push_offset(&mut line, v);
            assert_eq!(line, format!("{v:6}  {v:08x}  ").as_bytes());
        }
        let r: Record = core::array::from_fn(|i| (i * 37) as u8);
        let want: String = r.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(std::str::from_utf8(&hex_text::record_digits(&r)).unwrap(), want);
    }
}
