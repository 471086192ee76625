//! Bench fixtures: the record streams and the measured kernels.
//!
//! Everything the criterion benches (`benches/`) and the `bench-report` binary time lives
//! here, so both time the same code. Each kernel takes a stream and returns a checksum
//! that the caller passes through `black_box`, so no kernel can be optimised away.
//!
//! Streams come from two sources, and nothing here names an arm: a uniform mix over
//! every arm bound on the generation that binds the most (`ArmKind::ALL`, `BINDINGS`,
//! [`UNIFORM_ARCH`]), in random order and in runs of 1..=64 records of one binding, and
//! the real compiler output in `testdata/nkipy/*.neff` (read with `tpb-neff`), per
//! engine and mixed, each repeated up to the stream length. [`check_round_trip`] proves every record of a
//! stream decodes and encodes back before anything is timed.
//!
//! The text kernels time the generated disassembler (`disasm::write_record`) and
//! assembler (`disasm::assemble_line`). [`hand`] holds hand-written comparators for the
//! opcodes of the corpus (decoder, one-field view, encoder, formatter); they run on the
//! corpus streams only, after [`hand::check`] has proved they agree with the generated
//! crate on every record.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use tpb_isa::inst::{dispatch, Inst, BINDINGS, EXIT, RECORD_SIZE};
use tpb_isa::stream;
use tpb_isa::validate::{opcode_valid, validate};
use tpb_isa::{Arch, ArmKind};

pub mod baseline;
pub mod hand;
pub mod neff;

/// Records in a bench stream: 64 MiB.
pub const RECORDS: usize = 1 << 20;

/// The seed every synthetic stream is drawn from.
pub const SEED: u64 = 0x7062_6973_6100_0007;

/// splitmix64: a tiny, fixed, dependency-free generator, so streams are the same everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A record of random bytes.
    pub fn record(&mut self) -> [u8; RECORD_SIZE] {
        let mut r = [0u8; RECORD_SIZE];
        for chunk in r.chunks_exact_mut(8) {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        r
    }
}

/// A named bench stream and the generation its records are decoded on.
#[derive(Clone, Debug)]
pub struct Stream {
    /// `uniform`, `nkipy/PE`, `nkipy/mixed`, ….
    pub name: String,
    /// The generation the stream is decoded and validated on.
    pub arch: Arch,
    /// Whole records.
    pub bytes: Vec<u8>,
}

impl Stream {
    /// Number of whole records.
    pub fn records(&self) -> usize {
        self.bytes.len() / RECORD_SIZE
    }
}

/// Every bench stream of `records` records: the uniform mix in both orders, then the
/// corpus streams per engine and mixed.
pub fn streams(records: usize) -> Vec<Stream> {
    let mut v = vec![uniform_stream(records), uniform_runs_stream(records)];
    v.extend(corpus_streams(records));
    v
}

/// The names of [`streams`], in its order, without building the streams.
pub fn stream_names() -> Vec<String> {
    let mut v = vec!["uniform".to_string(), "uniform/runs".to_string()];
    v.extend(corpus_once().into_iter().map(|s| s.name));
    v
}

/// The one stream of [`streams`] named `name`, built alone (`None` for no such name).
pub fn stream(name: &str, records: usize) -> Option<Stream> {
    match name {
        "uniform" => Some(uniform_stream(records)),
        "uniform/runs" => Some(uniform_runs_stream(records)),
        _ => corpus_once().into_iter().find(|s| s.name == name).map(|mut s| {
            s.bytes = repeat_to(&s.bytes, records);
            s
        }),
    }
}

/// How the records of the uniform mix follow one another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Each record's arm drawn at random.
    Random,
    /// Runs of 1..=64 records of one binding, as real streams are.
    Runs,
}

/// Every arm bound on [`UNIFORM_ARCH`] equally often: per record an arm drawn uniformly
/// from the arms of `ArmKind::ALL` that generation binds, then one of its bindings there,
/// with random payload bytes; the EXIT sentinel is only the last record, so the EXIT scan
/// walks the whole stream. Decoded on that generation, so that each record is read,
/// printed and validated by its arm (a binding of another generation only is printed as
/// an opaque payload).
pub fn uniform_stream(records: usize) -> Stream {
    uniform(records, Order::Random)
}

/// [`uniform_stream`] in runs: each draw of an arm and binding holds for 1..=64
/// records (each with its own random payload).
pub fn uniform_runs_stream(records: usize) -> Stream {
    uniform(records, Order::Runs)
}

/// The generation of the uniform mix: the one that binds the most arms (the newest of
/// equals), so that the mix reaches as many arms as one generation can.
pub static UNIFORM_ARCH: std::sync::LazyLock<Arch> = std::sync::LazyLock::new(|| {
    let arms = |arch: Arch| bound_on(arch).len();
    Arch::ALL.iter().copied().max_by_key(|&a| (arms(a), a as u8)).expect("a generation")
});

/// The arms bound on `arch`, each with the indices in `BINDINGS` of its bindings there.
pub fn bound_on(arch: Arch) -> Vec<(ArmKind, Vec<usize>)> {
    ArmKind::ALL
        .iter()
        .map(|&k| {
            let on = |i: &usize| {
                BINDINGS[*i].arm == k
                    && tpb_isa::inst::dispatch_on(arch, &BINDINGS[*i].record()) == Some(k)
            };
            (k, (0..BINDINGS.len()).filter(on).collect::<Vec<_>>())
        })
        .filter(|(_, b)| !b.is_empty())
        .collect()
}

fn uniform(records: usize, order: Order) -> Stream {
    uniform_on(*UNIFORM_ARCH, records, order)
}

/// The uniform mix over the arms bound on `arch`, decoded on it.
pub fn uniform_on(arch: Arch, records: usize, order: Order) -> Stream {
    let bound = bound_on(arch);
    let mut rng = Rng::new(SEED);
    let mut out = Vec::with_capacity(records * RECORD_SIZE);
    let (mut binding, mut run_left) = (0usize, 0u64);
    while out.len() < records.saturating_sub(1) * RECORD_SIZE {
        if run_left == 0 {
            let (_, bindings) = &bound[rng.below(bound.len() as u64) as usize];
            binding = bindings[rng.below(bindings.len() as u64) as usize];
            run_left = match order {
                Order::Random => 1,
                Order::Runs => 1 + rng.below(64),
            };
        }
        run_left -= 1;
        let b = &BINDINGS[binding];
        let mut r = rng.record();
        r[0] = b.opcode;
        if let Some(s) = b.sub {
            r[s.offset] = s.value;
        }
        // EXIT ends a program: only the last record is one, so the EXIT scan walks the
        // whole stream (its arm is drawn and skipped here).
        if !EXIT.matches(&r) {
            out.extend_from_slice(&r);
        }
    }
    if records > 0 {
        let mut r = rng.record();
        r[0] = EXIT.opcode;
        if let Some(s) = EXIT.sub {
            r[s.offset] = s.value;
        }
        out.extend_from_slice(&r);
    }
    let name = match order {
        Order::Random => "uniform",
        Order::Runs => "uniform/runs",
    };
    Stream { name: name.into(), arch, bytes: out }
}

/// The corpus folder: `testdata/nkipy/`.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/nkipy")
}

/// The engine streams of every corpus NEFF, concatenated per engine (`nkipy/PE`, …) and
/// all together (`nkipy/mixed`), each repeated up to `records` records. The generation
/// is the NEFFs' target (cayman when they do not name one).
pub fn corpus_streams(records: usize) -> Vec<Stream> {
    let mut out = corpus_once();
    for s in &mut out {
        s.bytes = repeat_to(&s.bytes, records);
    }
    out
}

/// [`corpus_streams`] as the corpus has them, each record once (`nkipy/mixed` last).
pub fn corpus_once() -> Vec<Stream> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == "neff"));
    paths.sort();
    let mut per_engine: BTreeMap<tpb_neff::Engine, Vec<u8>> = BTreeMap::new();
    let mut mixed = Vec::new();
    let mut arch = None;
    for p in &paths {
        let neff = tpb_neff::Neff::open(p, &tpb_neff::ReadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        for s in neff.streams() {
            let Some(data) = s.data else { continue };
            let whole = &data[..data.len() / RECORD_SIZE * RECORD_SIZE];
            arch = arch.or_else(|| s.graph.arch().and_then(Arch::from_name));
            per_engine.entry(s.stream.engine).or_default().extend_from_slice(whole);
            mixed.extend_from_slice(whole);
        }
    }
    let arch = arch.unwrap_or(Arch::Cayman);
    let mut out: Vec<Stream> = per_engine
        .into_iter()
        .map(|(e, bytes)| Stream { name: format!("nkipy/{}", e.name()), arch, bytes })
        .collect();
    out.push(Stream { name: "nkipy/mixed".into(), arch, bytes: mixed });
    out.retain(|s| !s.bytes.is_empty());
    out
}

/// `bytes` (whole records) repeated and cut to `records` records.
pub fn repeat_to(bytes: &[u8], records: usize) -> Vec<u8> {
    bytes.iter().copied().cycle().take(records * RECORD_SIZE).collect()
}

/// Check that every record of a stream decodes on its generation and encodes back to
/// the same 64 bytes, and that `decode_all` agrees with decoding record by record.
/// Returns the first disagreement.
pub fn check_round_trip(s: &Stream) -> Result<(), String> {
    for (i, r) in recs(&s.bytes).enumerate() {
        let inst = Inst::decode(s.arch, r);
        if inst.encode() != *r {
            return Err(format!("{}: record {i} ({:?}) does not encode back", s.name, inst.kind()));
        }
    }
    let walked = stream::decode_all(s.arch, &s.bytes).count();
    if walked != s.records() {
        return Err(format!("{}: decode_all gives {walked} items", s.name));
    }
    Ok(())
}

/// How many records of a stream decode to each arm on its generation (`None`: opaque
/// or unknown there).
pub fn arm_histogram(s: &Stream) -> BTreeMap<Option<ArmKind>, usize> {
    let mut h = BTreeMap::new();
    for r in recs(&s.bytes) {
        *h.entry(tpb_isa::inst::dispatch_on(s.arch, r)).or_insert(0) += 1;
    }
    h
}

/// The whole records of a stream as arrays.
#[inline]
pub fn recs(bytes: &[u8]) -> impl Iterator<Item = &[u8; RECORD_SIZE]> {
    bytes.chunks_exact(RECORD_SIZE).map(|c| c.try_into().unwrap())
}

fn fold(acc: u64, v: u64) -> u64 {
    acc.rotate_left(5) ^ v
}

// ---------------------------------------------------------------------------------
// Limits.

/// The stride-scan limit: bytes 0 and 12 of each record, as a plain loop.
#[inline(never)]
pub fn stride_scan(bytes: &[u8]) -> u64 {
    bytes.chunks_exact(RECORD_SIZE).any(|r| r[0] == 0xDF && r[12] == 1) as u64
}

/// The full-read limit: every u64 of the stream, xor-folded.
#[inline(never)]
pub fn full_read(bytes: &[u8]) -> u64 {
    bytes.chunks_exact(8).fold(0u64, |a, c| a ^ u64::from_le_bytes(c.try_into().unwrap()))
}

/// Lowercase hex digits' values; 0xFF for every other byte.
static NIBBLE: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut i = 0;
    while i < 16 {
        t[b"0123456789abcdef"[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// The text-scan limit for the assembler: every byte of the printed text read once, in
/// order, through one table lookup and without a branch on its value; each run of hex
/// digits read as a number (so every digit of every value is used), the runs
/// xor-folded. A reader that takes the text a byte at a time does at least this much
/// and has branches besides; only one that takes several bytes a step (the assembler
/// does for names) can be faster.
#[inline(never)]
pub fn text_scan(text: &str) -> u64 {
    let (mut acc, mut v) = (0u64, 0u64);
    for &c in text.as_bytes() {
        let d = NIBBLE[usize::from(c)];
        let digit = d < 16;
        acc ^= if digit { 0 } else { v };
        v = if digit { v << 4 | u64::from(d) } else { 0 };
    }
    acc ^ v
}

// ---------------------------------------------------------------------------------
// The generated crate.

/// `stream::has_pseudo_exit`.
#[inline(never)]
pub fn gen_has_pseudo_exit(bytes: &[u8]) -> u64 {
    stream::has_pseudo_exit(bytes) as u64
}

/// `inst::dispatch` alone: which arm each record is, without decoding it.
#[inline(never)]
pub fn gen_dispatch(bytes: &[u8]) -> u64 {
    recs(bytes).fold(0, |acc, r| fold(acc, dispatch(r).map_or(0xFFFF, |k| k as u64)))
}

/// `decode` of every record into a `black_box` slot (every field materialised): the
/// loop every owned-decode kernel shares; returns the records decoded.
#[inline(always)]
fn decode_each<T>(bytes: &[u8], decode: impl Fn(&[u8; RECORD_SIZE]) -> T) -> u64 {
    let mut n = 0u64;
    for r in recs(bytes) {
        black_box(&decode(r));
        n += 1;
    }
    n
}

/// Owned `Inst::decode` of every record (every field materialised).
#[inline(never)]
pub fn gen_decode(arch: Arch, bytes: &[u8]) -> u64 {
    decode_each(bytes, |r| Inst::decode(arch, r))
}

/// Decode every record, kept for the encode kernel.
pub fn gen_decoded(arch: Arch, bytes: &[u8]) -> Vec<Inst> {
    recs(bytes).map(|r| Inst::decode(arch, r)).collect()
}

/// `Inst::encode` of every decoded record.
#[inline(never)]
pub fn gen_encode(insts: &[Inst]) -> u64 {
    let mut n = 0u64;
    for i in insts {
        black_box(&i.encode());
        n += 1;
    }
    n
}

/// The validator bitmask alone: `opcode_valid(byte 0)`.
#[inline(never)]
pub fn gen_validate_bitmask(bytes: &[u8]) -> u64 {
    recs(bytes).filter(|r| opcode_valid(r[0])).count() as u64
}

/// The full per-generation `validate`.
#[inline(never)]
pub fn gen_validate_full(arch: Arch, bytes: &[u8]) -> u64 {
    recs(bytes).filter(|r| validate(arch, r).is_ok()).count() as u64
}

/// `stream::records`: walk the stream, reading each record's opcode.
#[inline(never)]
pub fn gen_walk(bytes: &[u8]) -> u64 {
    stream::records(bytes).fold(0, |acc, item| match item {
        Ok((_, r)) => acc.wrapping_add(r[0] as u64),
        Err(_) => acc ^ 1,
    })
}

/// `stream::decode_all`: walk and decode every record.
#[inline(never)]
pub fn gen_walk_decode(arch: Arch, bytes: &[u8]) -> u64 {
    let mut n = 0u64;
    for item in stream::decode_all(arch, bytes) {
        black_box(&item);
        n += 1;
    }
    n
}

/// The one-field view through the generated crate: `dispatch`, then the arm's view and
/// one accessor (the first address operand; see [`hand::gen_first_addr`]).
#[inline(never)]
pub fn gen_view(arch: Arch, bytes: &[u8]) -> u64 {
    recs(bytes).fold(0, |acc, r| fold(acc, hand::gen_first_addr(arch, r)))
}

/// The one-field view through the generated crate, selected by opcode name: a `match`
/// on `Opcode`, then the arm's view and one accessor (see
/// [`hand::gen_first_addr_by_opcode`]).
#[inline(never)]
pub fn gen_view_by_opcode(arch: Arch, bytes: &[u8]) -> u64 {
    recs(bytes).fold(0, |acc, r| fold(acc, hand::gen_first_addr_by_opcode(arch, r)))
}

/// The generated disassembler: `disasm::write_record` of every record into one reused
/// `String`, cleared per record; returns the bytes written.
#[inline(never)]
pub fn gen_disasm(arch: Arch, bytes: &[u8]) -> u64 {
    let mut s = String::with_capacity(1024);
    let mut n = 0u64;
    for r in recs(bytes) {
        s.clear();
        let _ = tpb_isa::disasm::write_record(&mut s, arch, r);
        n += black_box(&s).len() as u64;
    }
    n
}

/// The generated disassembler into bytes: `disasm::write_record_bytes` of every record
/// into one reused `Vec<u8>`, cleared per record (no UTF-8 check: what a listing to a
/// file or a pipe uses); returns the bytes written.
#[inline(never)]
pub fn gen_disasm_bytes(arch: Arch, bytes: &[u8]) -> u64 {
    let mut v: Vec<u8> = Vec::with_capacity(1024);
    let mut n = 0u64;
    for r in recs(bytes) {
        v.clear();
        let _ = tpb_isa::disasm::write_record_bytes(
            |b| {
                v.extend_from_slice(b);
                Ok::<(), core::convert::Infallible>(())
            },
            arch,
            r,
        );
        n += black_box(&v).len() as u64;
    }
    n
}

/// The generated disassembler as a listing runs it (`tpb disasm`): one
/// `disasm::Printer` for the stream, each record's line borrowed from it; returns the
/// bytes printed.
#[inline(never)]
pub fn gen_disasm_printer(arch: Arch, bytes: &[u8]) -> u64 {
    let mut p = tpb_isa::disasm::Printer::new();
    let mut n = 0u64;
    for r in recs(bytes) {
        n += black_box(p.record_bytes(arch, r)).len() as u64;
    }
    n
}

/// Every record's generated text, one line each, for the assembler kernel.
pub fn text_lines(arch: Arch, bytes: &[u8]) -> String {
    let mut s = String::new();
    for r in recs(bytes) {
        let _ = tpb_isa::disasm::write_record(&mut s, arch, r);
        s.push('\n');
    }
    s
}

/// The generated assembler: `disasm::assemble(arch, text)`, one record per line;
/// returns a checksum of the records (panics on a line that does not assemble).
#[inline(never)]
pub fn gen_assemble(arch: Arch, text: &str) -> u64 {
    tpb_isa::disasm::assemble(arch, text).fold(0, |acc, r| {
        let r = r.expect("a line assembles");
        fold(acc, u64::from(r[0]) ^ u64::from(r[63]))
    })
}

// ---------------------------------------------------------------------------------
// The hand-written comparators (corpus streams only).

/// Hand owned decode of every record.
#[inline(never)]
pub fn hand_decode(bytes: &[u8]) -> u64 {
    decode_each(bytes, hand::decode)
}

/// binrw decode of every record (`hand::binrw_decode`: the hand structs' `BinRead`
/// derives behind the hand decoder's match).
#[inline(never)]
pub fn binrw_decode(bytes: &[u8]) -> u64 {
    decode_each(bytes, hand::binrw_decode)
}

/// The one-field view through zerocopy (`hand::zc::first_addr`): the same match on
/// byte 0, then a `FromBytes` view of the record and its field.
#[inline(never)]
pub fn zerocopy_view(bytes: &[u8]) -> u64 {
    recs(bytes).fold(0, |acc, r| fold(acc, hand::zc::first_addr(r)))
}

/// deku decode of every record (`hand::deku_decode`: the hand structs' `DekuRead`
/// derives behind the hand decoder's match).
#[inline(never)]
pub fn deku_decode(bytes: &[u8]) -> u64 {
    decode_each(bytes, hand::deku_decode)
}

/// Hand-decode every record, kept for the encode kernel.
pub fn hand_decoded(bytes: &[u8]) -> Vec<hand::HandInst> {
    recs(bytes).map(hand::decode).collect()
}

/// Hand encode of every hand-decoded record.
#[inline(never)]
pub fn hand_encode(insts: &[hand::HandInst]) -> u64 {
    let mut n = 0u64;
    for i in insts {
        black_box(&i.encode());
        n += 1;
    }
    n
}

/// The hand one-field view: a single match on byte 0.
#[inline(never)]
pub fn hand_view(bytes: &[u8]) -> u64 {
    recs(bytes).fold(0, |acc, r| fold(acc, hand::first_addr(r)))
}

/// The hand one-field view with an arm per layout ([`hand::first_addr_per_layout`]).
#[inline(never)]
pub fn hand_view_per_layout(bytes: &[u8]) -> u64 {
    recs(bytes).fold(0, |acc, r| fold(acc, hand::first_addr_per_layout(r)))
}

/// The hand formatter, into one reused `String` cleared per record; returns the bytes written.
#[inline(never)]
pub fn hand_disasm(bytes: &[u8]) -> u64 {
    let mut s = String::with_capacity(1024);
    let mut n = 0u64;
    for r in recs(bytes) {
        s.clear();
        hand::write_text(&mut s, r);
        n += black_box(&s).len() as u64;
    }
    n
}

// ---------------------------------------------------------------------------------
// Codegen.

/// The committed spec: every `*.isa` and `arch/*.toml` under `dir`, sorted by path,
/// shown under the folder's name (`isa/arms.isa`) as `cargo xtask` reads it.
pub fn spec_files(dir: &std::path::Path) -> Vec<(String, String)> {
    let name = dir.file_name().map_or("isa".into(), |n| n.to_string_lossy());
    let sources = codegen::Sources::read_spec(dir, &name).expect("reading the spec folder");
    sources.iter().map(|(_, f)| (f.path.clone(), f.text.clone())).collect()
}

/// The folder of the committed spec (`isa/` beside this crate).
pub fn spec_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../isa")
}

/// The spec with `factor` times its arms: every `arm NAME : …` block of `arms/*.isa` is
/// copied `factor - 1` more times as `NAME_Sk` (unbound, as the spec allows).
pub fn scaled_spec(files: &[(String, String)], factor: usize) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(path, text)| {
            if !is_arms_file(path) || factor <= 1 {
                return (path.clone(), text.clone());
            }
            // Each block is the arm with the attribute and doc lines just above it
            // (its `@archs` among them).
            let lines: Vec<&str> = text.lines().collect();
            let mut blocks = Vec::new();
            for (i, line) in lines.iter().enumerate() {
                if !line.starts_with("arm ") {
                    continue;
                }
                let mut start = i;
                while start > 0 && {
                    let prev = lines[start - 1].trim_start();
                    prev.starts_with('@') || prev.starts_with("///")
                } {
                    start -= 1;
                }
                let Some(len) = lines[i..].iter().position(|l| *l == "}") else { continue };
                blocks.push(lines[start..=i + len].join("\n") + "\n");
            }
            let mut out = text.clone();
            for k in 1..factor {
                for b in &blocks {
                    let at = b.find("\narm ").map_or(0, |i| i + 1);
                    let (head, rest) = b[at..].split_once(" :").expect("an arm header");
                    let head = format!("{}{head}", &b[..at]);
                    out.push('\n');
                    out.push_str(&format!("{head}_S{k} :{rest}"));
                }
            }
            (path.clone(), out)
        })
        .collect()
}

/// Whether a spec file holds arm layouts (`isa/arms/*.isa`).
fn is_arms_file(path: &str) -> bool {
    path.contains("/arms/") && path.ends_with(".isa")
}

/// The number of arms in a spec's `arms/*.isa`.
pub fn arm_count(files: &[(String, String)]) -> usize {
    files
        .iter()
        .filter(|(p, _)| is_arms_file(p))
        .map(|(_, t)| t.lines().filter(|l| l.starts_with("arm ")).count())
        .sum()
}

/// `codegen::load` then `codegen::generate`; returns the bytes generated.
pub fn run_codegen(files: &[(String, String)]) -> usize {
    run_codegen_timed(files).2
}

/// [`run_codegen`], timing its halves: (load, generate, bytes generated).
pub fn run_codegen_timed(
    files: &[(String, String)],
) -> (std::time::Duration, std::time::Duration, usize) {
    let sources = sources(files);
    let t0 = std::time::Instant::now();
    let model = load(sources);
    let t1 = std::time::Instant::now();
    let bytes = codegen::generate(&model).iter().map(|f| f.contents.len()).sum();
    (t1 - t0, t1.elapsed(), bytes)
}

/// The files `cargo xtask gen` would write for `files` (path, contents).
pub fn generated_files(files: &[(String, String)]) -> Vec<(String, String)> {
    let model = load(sources(files));
    codegen::generate(&model).into_iter().map(|f| (f.path.to_string(), f.contents)).collect()
}

fn sources(files: &[(String, String)]) -> codegen::Sources {
    let mut sources = codegen::Sources::new();
    for (p, t) in files {
        sources.add(p.clone(), t.clone());
    }
    sources
}

/// The model of a bench spec, which must check.
fn load(sources: codegen::Sources) -> codegen::model::Model {
    match codegen::load(sources) {
        Ok(m) => m,
        Err(f) => panic!("the bench spec does not check:\n{}", f.short()),
    }
}

/// A workspace at `to` holding only a copy of `tpb-isa` whose `src/generated/` is
/// `generated`'s (the workspace's manifest, lock file and README, which the crate's
/// doctest includes, beside it), to build the runtime crate of another spec.
pub fn runtime_workspace(
    root: &Path,
    to: &Path,
    generated: &[(String, String)],
) -> std::io::Result<()> {
    copy_dir(&root.join("tpb-isa"), &to.join("tpb-isa"))?;
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let members = manifest.lines().find(|l| l.starts_with("members")).unwrap_or_default();
    std::fs::write(to.join("Cargo.toml"), manifest.replace(members, "members = [\"tpb-isa\"]"))?;
    std::fs::copy(root.join("Cargo.lock"), to.join("Cargo.lock"))?;
    std::fs::copy(root.join("README.md"), to.join("README.md"))?;
    for (path, contents) in generated.iter().filter(|(p, _)| p.starts_with("tpb-isa/")) {
        std::fs::write(to.join(path), contents)?;
    }
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &dest)?;
        } else {
            std::fs::copy(entry.path(), dest)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scaled_spec_checks_with_twice_the_arms() {
        let base = spec_files(&spec_dir());
        let spec = scaled_spec(&base, 2);
        assert_eq!(arm_count(&spec), 2 * arm_count(&base));
        assert!(run_codegen(&spec) > run_codegen(&base));
    }

    #[test]
    fn the_text_scan_folds_every_run_of_hex_digits_as_a_number() {
        let text = "mm a=0x1f b=[3,-0x20] c=ff00\nz x=7";
        let want = text
            .split(|c: char| !matches!(c, '0'..='9' | 'a'..='f'))
            .filter(|w| !w.is_empty())
            .fold(0, |acc, w| acc ^ u64::from_str_radix(w, 16).unwrap());
        assert_eq!(text_scan(text), want);
        assert_ne!(want, 0);
    }

    #[test]
    fn the_uniform_streams_hold_every_arm_of_their_generation_and_end_with_exit() {
        for s in [uniform_stream(20_000), uniform_runs_stream(200_000)] {
            assert_eq!(s.records(), if s.name == "uniform" { 20_000 } else { 200_000 });
            check_round_trip(&s).unwrap();
            // Every record is read by an arm of the stream's generation, and every arm
            // that generation binds is there.
            let hist = arm_histogram(&s);
            assert_eq!(hist.get(&None), None, "{}: records opaque on {:?}", s.name, s.arch);
            let bound = bound_on(s.arch);
            assert_eq!(hist.len(), bound.len(), "{}", s.name);
            assert!(bound.len() >= ArmKind::ALL.iter().filter(|k| k.is_bound()).count() * 9 / 10);
            let exits = recs(&s.bytes).filter(|r| EXIT.matches(&r[..])).count();
            assert_eq!(exits, 1);
            assert!(EXIT.matches(&s.bytes[s.bytes.len() - RECORD_SIZE..]));
        }
    }

    /// In runs, a record's arm is most often its predecessor's (runs average 32.5
    /// records); in random order, seldom.
    #[test]
    fn the_runs_stream_repeats_arms_and_the_random_one_does_not() {
        let same_as_previous = |s: &Stream| {
            let kinds: Vec<_> = recs(&s.bytes).map(dispatch).collect();
            kinds.windows(2).filter(|w| w[0] == w[1]).count() as f64 / kinds.len() as f64
        };
        let (random, runs) = (uniform_stream(50_000), uniform_runs_stream(50_000));
        assert!(same_as_previous(&random) < 0.05, "{}", same_as_previous(&random));
        assert!(same_as_previous(&runs) > 0.9, "{}", same_as_previous(&runs));
    }

    #[test]
    fn the_hand_comparators_agree_with_the_generated_crate_on_every_corpus_record() {
        let corpus = corpus_once().pop().expect("a corpus");
        let mixed = corpus.bytes;
        let n = hand::check(corpus.arch, &mixed).unwrap_or_else(|e| panic!("{e}"));
        assert!(n > 1000, "{n} distinct records");
        for op in hand::OPCODES {
            assert!(recs(&mixed).any(|r| r[0] == op), "the corpus has no {op:#04x}");
        }
        // The kernels agree too, record for record.
        assert_eq!(hand_view(&mixed), gen_view(Arch::Cayman, &mixed));
        assert_eq!(hand_view(&mixed), gen_view_by_opcode(Arch::Cayman, &mixed));
        assert_eq!(hand_disasm(&mixed), gen_disasm(Arch::Cayman, &mixed));
        assert_eq!(gen_disasm_bytes(Arch::Cayman, &mixed), gen_disasm(Arch::Cayman, &mixed));
        let text = text_lines(Arch::Cayman, &mixed);
        let mut back = Vec::new();
        for l in text.lines() {
            back.extend_from_slice(
                &tpb_isa::disasm::assemble_line(Arch::Cayman, l, 1).unwrap().unwrap(),
            );
        }
        assert!(back == mixed, "the generated text assembles back");
    }

    #[test]
    fn the_hand_comparators_agree_on_random_payloads_of_their_opcodes() {
        // The uniform mix's records of the hand-covered opcodes, on the corpus's
        // generation: random payloads reach forms, flags and enum values the corpus does
        // not use.
        let s = uniform_on(Arch::Cayman, 100_000, Order::Random);
        let mut text = String::new();
        let mut n = 0;
        for (i, r) in recs(&s.bytes).enumerate() {
            if hand::OPCODES.contains(&r[0]) {
                hand::check_record(s.arch, r, &mut text)
                    .unwrap_or_else(|e| panic!("record {i}: {e}"));
                n += 1;
            }
        }
        assert!(n > 1000, "{n} records");
    }

    #[test]
    fn the_corpus_streams_are_per_engine_and_mixed_and_round_trip() {
        let streams = corpus_streams(5_000);
        assert!(streams.len() >= 2, "{:?}", streams.iter().map(|s| &s.name).collect::<Vec<_>>());
        assert_eq!(streams.last().map(|s| s.name.as_str()), Some("nkipy/mixed"));
        for s in &streams {
            assert_eq!(s.records(), 5_000, "{}", s.name);
            check_round_trip(s).unwrap();
        }
    }

    #[test]
    fn a_stream_built_alone_is_the_one_built_with_the_others() {
        let all = streams(3_000);
        let names = stream_names();
        assert_eq!(names, all.iter().map(|s| s.name.clone()).collect::<Vec<_>>());
        for s in &all {
            let one = stream(&s.name, 3_000).unwrap_or_else(|| panic!("{}", s.name));
            assert_eq!((one.arch, &one.bytes), (s.arch, &s.bytes), "{}", s.name);
        }
        assert!(stream("nkipy/none", 3_000).is_none());
    }
}
