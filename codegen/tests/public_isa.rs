//! The imported public ISA (`isa/`) against the public-ISA notes.
//!
//! Each test loads the committed spec through the codegen crate's public `load` API and
//! compares what the checked [`Model`] says with what the project's copy of the public
//! RE notes says (`testdata/public-isa/`: `opcodes.tsv`, `structs.md`, `enums.md`,
//! copied verbatim from `shared/facts/public-isa/`). The expected values are read from
//! those files by `public_isa/notes.rs`; none is written here from the spec.
//!
//! The record seed (`shared/seeds/000_f391f18c730f0f92.txt`) is the primary source.
//! Where the spec follows it (or another source) against the notes, the test lists the
//! difference as a known exception with the reason; an exception that no longer occurs is
//! an error too, so the lists stay exact.
//!
//! The spec directory is `$TPB_SPEC_DIR` if set, else `isa/` next to this crate.

// The notes' tables are tuples indexed by generation (0..4 = sunda..maverick).
#![allow(clippy::type_complexity, clippy::needless_range_loop)]

#[path = "public_isa/notes.rs"]
mod notes;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use codegen::model::*;
use codegen::{load, Model, Sources};

use notes::{Fact, What, GENS};

fn spec_dir() -> PathBuf {
    match std::env::var_os("TPB_SPEC_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../isa")),
    }
}

fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        let s = Sources::read_spec(&spec_dir(), "isa").unwrap_or_else(|e| panic!("{e}"));
        load(s).unwrap_or_else(|f| panic!("the committed spec does not check:\n{}", f.render()))
    })
}

fn structs_md() -> &'static str {
    static T: OnceLock<String> = OnceLock::new();
    T.get_or_init(|| notes::read("structs.md"))
}

fn enums_md() -> &'static str {
    static T: OnceLock<String> = OnceLock::new();
    T.get_or_init(|| notes::read("enums.md"))
}

/// The model's arch for `GENS[g]`.
fn arch(m: &Model, g: usize) -> ArchId {
    m.arch_named(GENS[g]).unwrap_or_else(|| panic!("arch {}", GENS[g]))
}

fn opcode_enum(m: &Model) -> &Enum {
    &m[m.opcode_enum()]
}

/// Compare a set of observed differences with the listed exceptions (`table`, a const
/// of this file): both ways. The failure says what to do, for a user who edited the spec.
fn assert_exceptions<T: Ord + std::fmt::Debug + Clone>(
    what: &str,
    found: &BTreeSet<T>,
    known: &BTreeSet<T>,
    table: &str,
) {
    let unexpected: Vec<&T> = found.difference(known).collect();
    let stale: Vec<&T> = known.difference(found).collect();
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "{what}: the spec and the public-ISA notes (testdata/public-isa/) differ\n  \
         differences not listed as known exceptions: {unexpected:#?}\n  \
         listed exceptions that no longer occur: {stale:#?}\n\
         (\"-\" means none: the notes give no struct, or the spec has no binding.) Where the \
         spec is right against the notes (a seed or another source says so), add the \
         difference with its reason to `{table}` in codegen/tests/public_isa.rs; an opcode \
         value the notes never list is not compared; otherwise correct the spec."
    );
}

// =================================================================================
// Opcodes
// =================================================================================

/// Every value of opcodes.tsv is an OPCODE variant with the same name, and nothing else
/// is; the row count is the notes' stated union (enums.md section 14: 172 values).
#[test]
fn every_opcode_value_and_name_matches_the_table() {
    let m = model();
    let rows = notes::opcodes();
    let e = opcode_enum(m);

    let stated = stated_union(enums_md());
    assert_eq!(rows.len(), stated, "opcodes.tsv rows vs the stated union of all generations");

    let mut bad = Vec::new();
    for r in &rows {
        match e.variant_of(r.value) {
            None => bad.push(format!(
                "0x{:02X} {} (opcodes.tsv:{}) is not in OPCODE",
                r.value, r.name, r.line
            )),
            Some(v) if v.name != r.name => {
                bad.push(format!("0x{:02X}: notes {} vs spec {}", r.value, r.name, v.name))
            }
            Some(_) => {}
        }
    }
    let tsv_values: BTreeSet<u64> = rows.iter().map(|r| r.value).collect();
    for v in &e.variants {
        if !tsv_values.contains(&v.value) && !opcode_exception(v.value) {
            bad.push(format!(
                "spec OPCODE {} = 0x{:02X} is not in opcodes.tsv (a value another source \
                 names goes in OPCODE_EXCEPTIONS with its reason)",
                v.name, v.value
            ));
        }
    }
    for (v, why) in OPCODE_EXCEPTIONS {
        if tsv_values.contains(v) || e.variant_of(*v).is_none() {
            bad.push(format!("stale OPCODE_EXCEPTIONS entry 0x{v:02X} ({why}): the notes list it or the spec names it not"));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
    assert_eq!(e.variants.len(), rows.len() + OPCODE_EXCEPTIONS.len());
    assert_eq!(e.width, Prim::U8, "OPCODE is a 1-byte enum (enums.md section 12 / structs.md 1.1)");
}

/// "| union of all gens | 172 values = ..." (enums.md section 14).
fn stated_union(text: &str) -> usize {
    let sec = notes::section(text, "## 14.");
    let row = sec.iter().find(|l| l.starts_with("| union of all gens")).expect("union row");
    let c = notes::cells(row).unwrap();
    c[1].split_whitespace().next().unwrap().parse().unwrap()
}

/// The OPCODE row of enums.md section 14 ("| `NEURON_ISA_TPB_OPCODE` enumerators ... |
/// 145 | 150 | 159 | 165 |") and the step row ("| step diff | — | +12 / −7 | ...").
fn stated_opcode_counts(text: &str) -> ([usize; 4], [(usize, usize); 3]) {
    let sec = notes::section(text, "## 14.");
    let row = sec
        .iter()
        .find(|l| l.contains("`NEURON_ISA_TPB_OPCODE` enumerators"))
        .expect("OPCODE count row");
    let c = notes::cells(row).unwrap();
    let mut counts = [0; 4];
    for g in 0..4 {
        counts[g] = c[1 + g].parse().unwrap();
    }
    let row = sec.iter().find(|l| l.starts_with("| step diff")).expect("step row");
    let c = notes::cells(row).unwrap();
    let mut steps = [(0, 0); 3];
    for s in 0..3 {
        let (a, r) = c[2 + s].split_once('/').unwrap();
        let num =
            |x: &str| -> usize { x.trim().trim_start_matches(['+', '−', '-']).parse().unwrap() };
        steps[s] = (num(a), num(r));
    }
    (counts, steps)
}

/// The values each generation has, from the model's per-variant availability.
/// The values of `OPCODE` on generation `g`, but for the [`OPCODE_EXCEPTIONS`].
fn model_values_on(m: &Model, g: usize) -> BTreeSet<u64> {
    let a = arch(m, g);
    let on = opcode_enum(m).variants.iter().filter(|v| v.meta.available_on(a));
    on.map(|v| v.value).filter(|&v| !opcode_exception(v)).collect()
}

/// Opcode values the spec names and the notes do not list (their enumerator lists are
/// complete for the four generations they read, so such a value comes from another
/// source: a newer runtime), each with that source and reason. They are left out of the
/// comparisons of values; an entry the notes list, or the spec does not name, fails.
const OPCODE_EXCEPTIONS: &[(u64, &str)] = &[];

fn opcode_exception(v: u64) -> bool {
    OPCODE_EXCEPTIONS.iter().any(|(x, _)| *x == v)
}

fn tsv_values_on(rows: &[notes::OpRow], g: usize) -> BTreeSet<u64> {
    rows.iter().filter(|r| r.present_on(g)).map(|r| r.value).collect()
}

/// Per-generation counts (INVALID included): the model's availability, the table's
/// presence columns and the notes' stated 145/150/159/165 agree.
#[test]
fn per_generation_opcode_counts() {
    let m = model();
    let rows = notes::opcodes();
    let (stated, _) = stated_opcode_counts(enums_md());
    for g in 0..4 {
        let tsv = tsv_values_on(&rows, g);
        let spec = model_values_on(m, g);
        assert_eq!(tsv.len(), stated[g], "{}: opcodes.tsv presence vs the stated count", GENS[g]);
        assert_eq!(
            spec,
            tsv,
            "{}: spec-only {:02X?}, notes-only {:02X?}",
            GENS[g],
            spec.difference(&tsv).collect::<Vec<_>>(),
            tsv.difference(&spec).collect::<Vec<_>>()
        );
    }
}

/// The steps sunda→cayman (+12/−7), cayman→mariana (+9/−0), mariana→maverick (+6/−0):
/// the values added and removed per step agree between the model and the table, and the
/// counts with the stated ones.
#[test]
fn generation_steps() {
    let m = model();
    let rows = notes::opcodes();
    let (_, stated) = stated_opcode_counts(enums_md());
    for s in 0..3 {
        let (a, b) = (tsv_values_on(&rows, s), tsv_values_on(&rows, s + 1));
        let added: BTreeSet<u64> = b.difference(&a).copied().collect();
        let removed: BTreeSet<u64> = a.difference(&b).copied().collect();
        assert_eq!(
            (added.len(), removed.len()),
            stated[s],
            "{}→{}: table vs stated step",
            GENS[s],
            GENS[s + 1]
        );
        let (ma, mb) = (model_values_on(m, s), model_values_on(m, s + 1));
        let m_added: BTreeSet<u64> = mb.difference(&ma).copied().collect();
        let m_removed: BTreeSet<u64> = ma.difference(&mb).copied().collect();
        assert_eq!(m_added, added, "{}→{}: values added", GENS[s], GENS[s + 1]);
        assert_eq!(m_removed, removed, "{}→{}: values removed", GENS[s], GENS[s + 1]);
    }
}

fn status_of_glyph(c: char) -> Status {
    match c {
        'Y' => Status::Maintained,
        'n' => Status::Dormant,
        '.' => Status::Unflagged,
        '?' => Status::Unstated,
        other => panic!("glyph {other:?}"),
    }
}

/// The `// Y` / `// n` flag: the spec's one status per opcode equals the glyph of every
/// generation the value exists on (the table never flips a flag between generations).
#[test]
fn opcode_status_matches_the_flags() {
    let m = model();
    let e = opcode_enum(m);
    let mut bad = Vec::new();
    for r in notes::opcodes() {
        let glyphs: BTreeSet<char> = r.presence.iter().copied().filter(|c| *c != '-').collect();
        assert_eq!(
            glyphs.len(),
            1,
            "0x{:02X}: the table's flag changes between generations: {:?}",
            r.value,
            r.presence
        );
        let want = status_of_glyph(*glyphs.iter().next().unwrap());
        let v = e.variant_of(r.value).unwrap();
        if v.status != Some(want) {
            bad.push(format!("0x{:02X} {}: notes {want:?}, spec {:?}", r.value, r.name, v.status));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// The engine column (`POOL/DVE`, `NX/DMA`, `host (NRT-lowered)`, `-`) equals the
/// spec's `@engine` list, in order.
#[test]
fn opcode_engines_match_the_table() {
    let m = model();
    let e = opcode_enum(m);
    let vocab = &m[m.record.engines.expect("the record names its engines vocabulary")];
    let mut bad = Vec::new();
    let mut compared = 0;
    for r in notes::opcodes() {
        let want: Vec<String> = match r.engine.as_str() {
            "-" => Vec::new(),
            s if s.starts_with("host") => vec!["HOST".to_string()],
            s => s.split('/').map(|x| x.trim().to_string()).collect(),
        };
        let v = e.variant_of(r.value).unwrap();
        let got: Vec<String> =
            v.engines.iter().map(|i| vocab.words[*i as usize].name.clone()).collect();
        compared += 1;
        if got != want {
            bad.push(format!("0x{:02X} {}: notes {want:?}, spec {got:?}", r.value, r.name));
        }
    }
    assert_eq!(compared, 172);
    assert!(bad.is_empty(), "{bad:#?}");
}

// =================================================================================
// Bindings
// =================================================================================

/// The notes' struct for each opcode: opcodes.tsv's arm_struct column, overridden by
/// structs.md section 2.12 (binding corrections; `None` where it calls the binding
/// unresolved), and by the opcode lists of the section-2 struct headings.
fn notes_bindings() -> BTreeMap<u64, BTreeSet<Option<String>>> {
    let rows = notes::opcodes();
    let mut out: BTreeMap<u64, BTreeSet<Option<String>>> = BTreeMap::new();
    for r in &rows {
        let s = r.arm_struct.as_str();
        // "(escape)" and "PSEUDO_EXIT_EXECUTION (sub-op 1)" are sub-dispatched prefixes,
        // checked by `sub_opcode_bindings`.
        if s.is_empty() || s.contains('(') {
            continue;
        }
        out.entry(r.value).or_default().insert(Some(s.to_string()));
    }
    for (v, (arm, _gens)) in notes::binding_corrections(structs_md()) {
        out.insert(v, [arm].into_iter().collect());
    }
    out
}

/// Opcodes of the section-2 struct headings ("**S4D4_PL**. Opcodes 0x45 POOL and 0x58
/// MAX_POOL_SELECT."): the values on the heading's first sentence(s) up to "hdr:" or the
/// first source key, skipping "(raw 0x..)" and sub-opcode phrases.
fn heading_bindings() -> BTreeMap<u64, BTreeSet<String>> {
    let mut out: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    for s in notes::struct_notes(structs_md()) {
        let h = &s.heading;
        let Some(i) = h.find("Opcode") else { continue };
        let mut phrase = &h[i..];
        for stop in [
            " hdr:",
            " Gens",
            " Same offsets",
            " Identical",
            " Sources",
            " Source",
            ". Per-gen",
            ". MV has",
            ". Rec",
            ". Bar",
            ". RDMA",
            ". DGE",
            ". TT",
            ". BNGA",
            ". ACT",
            ". PE",
            ". Move",
            ". Search",
            ". BN ",
            ". Lower",
        ] {
            if let Some(j) = phrase.find(stop) {
                phrase = &phrase[..j];
            }
        }
        if phrase.contains("with pseudo_opcode") || phrase.contains("with extended_opcode") {
            continue; // sub-opcode bindings
        }
        // "(raw 0x79)", "(common.h CA:298 ...)": parentheticals are not bound values.
        let mut clean = String::new();
        let mut depth = 0;
        for ch in phrase.chars() {
            match ch {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ if depth == 0 => clean.push(ch),
                _ => {}
            }
        }
        let values = notes::hex_values(&clean);
        let members: Vec<&str> = s.name.split(" / ").collect();
        if members.len() > 1 {
            // "**MODIFY_POOL_CONFIG / CUSTOM_OP_PAYLOAD**. Opcodes 0x95 and 0x86": in order.
            assert_eq!(members.len(), values.len(), "{}", s.name);
            for (m, v) in members.iter().zip(values) {
                out.entry(v).or_default().insert(m.to_string());
            }
            continue;
        }
        for v in values {
            out.entry(v).or_default().insert(s.name.clone());
        }
    }
    for (name, values) in notes::named_only_bindings(structs_md()) {
        for v in values {
            out.entry(v).or_default().insert(name.clone());
        }
    }
    out
}

/// Opcode → arm bindings (without a sub-opcode) of the model: value → arms.
fn model_bindings(m: &Model) -> BTreeMap<u64, BTreeSet<String>> {
    let mut out: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    for b in m.bindings.iter().filter(|b| b.sub.is_none()) {
        out.entry(b.opcode).or_default().insert(m[b.arm].name.clone());
    }
    out
}

/// Known differences between the notes' bindings and the spec's, as (value, notes arm or
/// "-", spec arm or "-").
const BINDING_EXCEPTIONS: &[(u64, &str, &str, &str)] = &[
    (0x4C, "-", "CTRL_RS",
     "no struct2opcode entry binds REG_SHUFFLE; the spec infers CTRL_RS on sunda only from the \
      RangeSelect page naming the sunda header ctrl_rs.h as REG_SHUFFLE's (@confidence(inferred))"),
    (0xF2, "S3D3_NONZERO_WC", "S3D3_NONZERO_WITH_COUNT",
     "the same struct: opcodes.tsv copies the Matrix's abbreviation; structs.md section 2.9 and \
      section 4 spell it S3D3_NONZERO_WITH_COUNT, which the spec uses"),
    // The opcodes.tsv arm_struct column is empty for these, but the struct headings of
    // structs.md section 2 name the opcode: CTRL_MS "Opcode 0xB2 MOVE_SHAPE",
    // PSEUDO_SYNC_BARRIER "Opcode 0xD5", PSEUDO_DMABARRIER "Opcode 0xC3",
    // PSEUDO_DMA_DIRECT2D "Opcode 0xD4". The spec binds them (checked against the
    // headings by `struct_headings_bind_their_opcodes`).
];

/// The spec binds what the notes bind: opcodes.tsv's struct column with section 2.12's
/// corrections; where section 2.12 calls a binding unresolved the spec leaves it unbound.
/// Every value the table lists is compared.
#[test]
fn opcode_bindings_match_the_notes() {
    let m = model();
    let want = notes_bindings();
    let heads = heading_bindings();
    let got = model_bindings(m);
    let mut diffs: BTreeSet<(u64, String, String)> = BTreeSet::new();
    // Only the values the table lists: a spec binding on a value the notes never name
    // (a user's own opcode) is outside what they can confirm or contradict.
    let listed: BTreeSet<u64> = notes::opcodes().iter().map(|r| r.value).collect();
    let values: BTreeSet<u64> =
        want.keys().chain(got.keys()).copied().filter(|v| listed.contains(v)).collect();
    for v in values {
        let w: BTreeSet<String> =
            want.get(&v).map(|s| s.iter().flatten().cloned().collect()).unwrap_or_default();
        let g: BTreeSet<String> = got.get(&v).cloned().unwrap_or_default();
        if w == g {
            continue;
        }
        // An empty tsv cell filled by the struct heading's opcode list is agreement too.
        if w.is_empty() && !want.contains_key(&v) && heads.get(&v) == Some(&g) {
            continue;
        }
        let fmt = |s: &BTreeSet<String>| {
            if s.is_empty() {
                "-".to_string()
            } else {
                s.iter().cloned().collect::<Vec<_>>().join("+")
            }
        };
        diffs.insert((v, fmt(&w), fmt(&g)));
    }
    let known: BTreeSet<(u64, String, String)> =
        BINDING_EXCEPTIONS.iter().map(|(v, w, g, _)| (*v, w.to_string(), g.to_string())).collect();
    assert_exceptions("opcode bindings (value, notes, spec)", &diffs, &known, "BINDING_EXCEPTIONS");
}

/// Every opcode a section-2 struct heading names is bound to that struct, unless section
/// 2.12 says otherwise (a correction or an unresolved binding).
#[test]
fn struct_headings_bind_their_opcodes() {
    let m = model();
    let got = model_bindings(m);
    let corr = notes::binding_corrections(structs_md());
    let mut bad = BTreeSet::new();
    let mut compared = 0;
    for (v, arms) in heading_bindings() {
        for a in arms {
            compared += 1;
            let overridden = corr.get(&v).is_some_and(|(c, _)| c.as_deref() != Some(a.as_str()));
            let bound = got.get(&v).is_some_and(|s| s.contains(&a));
            if !bound && !overridden {
                bad.insert((v, a));
            }
        }
    }
    assert!(compared > 100, "only {compared} heading bindings read");
    let known: BTreeSet<(u64, String)> =
        HEADING_EXCEPTIONS.iter().map(|(v, a, _)| (*v, a.to_string())).collect();
    assert_exceptions(
        "struct-heading opcodes the spec does not bind to that struct",
        &bad,
        &known,
        "HEADING_EXCEPTIONS",
    );
}

/// (value, struct, why) where the spec does not bind a heading's opcode to its struct.
const HEADING_EXCEPTIONS: &[(u64, &str, &str)] = &[(
    0xDA,
    "TRIGGER_COLLECTIVE2_EXT",
    "0xDA is resolved by position: after 0xD9 it carries TRIGGER_COLLECTIVE2_EXT, after the \
     INDIRECT1D/transpose forms of 0xD4 PSEUDO_DMA_EXT (structs.md 2.2); a binding selects one \
     arm per opcode, so the spec binds PSEUDO_DMA_EXT and keeps TRIGGER_COLLECTIVE2_EXT for \
     explicit decoding",
)];

/// The per-generation restriction of section 2.12 ("SU only: 0x8A, ... → S3S3D3_TT"):
/// the spec's binding (or the opcode itself) exists on exactly those generations.
#[test]
fn restricted_bindings_hold_on_their_generations() {
    let m = model();
    let e = opcode_enum(m);
    let mut checked = 0;
    for (v, (arm, gens)) in notes::binding_corrections(structs_md()) {
        let (Some(arm), Some(gens)) = (arm, gens) else { continue };
        let b = m
            .bindings
            .iter()
            .find(|b| b.opcode == v && b.sub.is_none() && m[b.arm].name == arm)
            .unwrap_or_else(|| panic!("0x{v:02X} is not bound to {arm}"));
        let var = e.variant_of(v).unwrap();
        let on: Vec<usize> = (0..4)
            .filter(|g| b.meta.available_on(arch(m, *g)) && var.meta.available_on(arch(m, *g)))
            .collect();
        assert_eq!(on, gens, "0x{v:02X} => {arm}: generations");
        checked += 1;
    }
    assert_eq!(checked, 5, "section 2.12 restricts five SUNDA-only bindings");
}

/// The two prefixes: 0xDF sub-dispatches on byte 12 to PSEUDO_EXIT_EXECUTION (1)
/// (opcodes.tsv: "PSEUDO_EXIT_EXECUTION (sub-op 1)"; structs.md 2.10: "Opcode 0xDF with
/// pseudo_opcode 1"), and 0xF0 on byte 12 to EXTENDED_TTA (2), EXTENDED_RDMA_DESC_GEN (8)
/// and EXTENDED_RDMA_DESC_START (9) (structs.md 2.3 extended_opcode values).
#[test]
fn sub_opcode_bindings() {
    let m = model();
    let sub = |op: u64, v: u64| -> Option<String> {
        m.bindings
            .iter()
            .find(|b| {
                b.opcode == op && b.sub.as_ref().is_some_and(|s| s.offset == 12 && s.value == v)
            })
            .map(|b| m[b.arm].name.clone())
    };
    let rows = notes::opcodes();
    let df = rows.iter().find(|r| r.value == 0xDF).unwrap();
    let (name, rest) = df.arm_struct.split_once(" (sub-op ").expect("0xDF sub-op cell");
    let n: u64 = rest.trim_end_matches(')').parse().unwrap();
    assert_eq!(sub(0xDF, n).as_deref(), Some(name));

    let text = structs_md();
    let mut seen = 0;
    for s in notes::struct_notes(text) {
        let Some(i) = s.heading.find("with extended_opcode ") else { continue };
        let n: u64 = s.heading[i + 21..]
            .split_whitespace()
            .next()
            .unwrap()
            .trim_end_matches('.')
            .parse()
            .unwrap();
        assert_eq!(sub(0xF0, n).as_deref(), Some(s.name.as_str()), "0xF0 sub {n}");
        seen += 1;
    }
    // EXTENDED_RDMA_DESC_START's heading says "Extended_opcode 9" (capitalised).
    let start = notes::struct_notes(text)
        .into_iter()
        .find(|s| s.name == "EXTENDED_RDMA_DESC_START")
        .unwrap();
    let i = start.heading.find("Extended_opcode ").expect("EXTENDED_RDMA_DESC_START heading");
    let n: u64 = start.heading[i + 16..].split(['.', ' ']).next().unwrap().parse().unwrap();
    assert_eq!(sub(0xF0, n).as_deref(), Some("EXTENDED_RDMA_DESC_START"));
    assert_eq!(seen, 2);
}

// =================================================================================
// Layouts
// =================================================================================

/// Whether a spec field name is the notes' name for the same bytes: equal, or the notes'
/// abbreviation of a mem-pattern field (`src` for `src_mem_pattern` in the S3D3_MM
/// per-generation table).
fn same_name(notes: &str, spec: &Field) -> bool {
    notes == spec.name
        || spec.name == format!("{notes}_mem_pattern")
        // A struct's only reserved run: the notes write "reserved", the spec numbers its
        // reserved runs (reserved0).
        || (notes == "reserved" && spec.is_reserved() && spec.name.strip_prefix("reserved").is_some_and(|d| d.parse::<u32>().is_ok()))
}

/// Check one fact against fields; `Err` describes the difference.
fn check_fields(m: &Model, fields: &[Field], f: &Fact) -> Result<(), String> {
    match &f.what {
        What::NotGiven => {
            let Some(x) = fields.iter().find(|x| x.range().contains(&f.offset)) else {
                return Err(format!("no field covers byte {}", f.offset));
            };
            if m.has_unknown(&x.ty) {
                Ok(())
            } else {
                Err(format!(
                    "byte {} is not given, but the spec reads it as {} {:?}",
                    f.offset, x.name, x.ty
                ))
            }
        }
        What::Field(n) => {
            let Some(x) = fields.iter().find(|x| x.offset == f.offset) else {
                let cover = fields.iter().find(|x| x.range().contains(&f.offset));
                return Err(format!(
                    "{n}: no field starts at {} (covered by {:?})",
                    f.offset,
                    cover.map(|c| (&c.name, c.offset, c.size))
                ));
            };
            let mut why = Vec::new();
            if !same_name(n, x) {
                why.push(format!("name {n} vs {}", x.name));
            }
            if let Some(s) = f.size {
                if s != x.size {
                    why.push(format!("{n} size {s} vs {}", x.size));
                }
            }
            if why.is_empty() {
                Ok(())
            } else {
                Err(why.join("; "))
            }
        }
    }
}

/// A difference found: (struct, generation or "*", offset, description).
type Diff = (String, String, u32, String);

/// Check a fact against an arm on each generation it applies to.
fn check_arm_fact(m: &Model, arm: &Arm, f: &Fact, out: &mut BTreeSet<Diff>) -> usize {
    let gens: Vec<usize> = match &f.gens {
        Some(g) => g.clone(),
        None => (0..4).filter(|g| arm.meta.available_on(arch(m, *g))).collect(),
    };
    assert!(!gens.is_empty(), "{} (structs.md:{}): no generation to check on", f.strukt, f.line);
    let mut compared = 0;
    for g in gens {
        let a = arch(m, g);
        let Some(l) = arm.layouts.iter().find(|l| l.archs.contains(&a)) else {
            out.insert((
                f.strukt.clone(),
                GENS[g].to_string(),
                f.offset,
                "the arm has no layout on this generation".into(),
            ));
            continue;
        };
        compared += 1;
        if let Err(e) = check_fields(m, &l.fields, f) {
            out.insert((f.strukt.clone(), GENS[g].to_string(), f.offset, e));
        }
    }
    compared
}

/// Known differences between structs.md's full layouts and the spec:
/// (struct, generation or "*", offset, why).
const LAYOUT_EXCEPTIONS: &[(&str, &str, u32, &str)] = &[];

/// Every struct structs.md lists with a full layout (section 4) is an arm of the spec
/// whose fields sit at the notes' offsets with the notes' sizes and names, on every
/// generation the notes give the layout for (per generation for S3D3_MM's table). Every
/// layout fact of those structs is compared: the count of compared facts equals the
/// count of facts in the file, and the fact parser saw every table row and offset bullet
/// of those blocks.
#[test]
fn full_layouts_match_structs_md() {
    let m = model();
    let text = structs_md();
    let census = notes::census(text);
    let blocks = notes::struct_notes(text);
    assert_eq!(
        census.full.1.len(),
        census.full.0,
        "section 4 full-layout list vs its stated count"
    );

    let mut diffs: BTreeSet<Diff> = BTreeSet::new();
    let mut facts_in_file = 0;
    let mut facts_compared = 0;
    let mut rows_in_file = 0;
    let mut rows_parsed = 0;
    for (name, only) in &census.full.1 {
        let b = blocks
            .iter()
            .find(|b| &b.name == name)
            .unwrap_or_else(|| panic!("no section-2 block for {name}"));
        let arm_id = m
            .arm_named(name)
            .unwrap_or_else(|| panic!("{name} has a full layout in structs.md but is not an arm"));
        let arm = &m[arm_id];
        assert!(!b.facts.is_empty(), "{name}: no layout facts read");
        assert!(b.errors.is_empty(), "{name}: {:?}", b.errors);
        let in_file = count_offset_lines(text, name);
        assert_eq!(b.raw_rows, in_file, "{name}: table rows / offset bullets read vs in the file");
        rows_in_file += in_file;
        rows_parsed += b.raw_rows;
        for f in &b.facts {
            let mut f = f.clone();
            if let (None, Some(g)) = (&f.gens, only) {
                f.gens = Some(g.clone());
            }
            facts_in_file += 1;
            if check_arm_fact(m, arm, &f, &mut diffs) > 0 {
                facts_compared += 1;
            }
        }
    }
    assert_eq!(rows_parsed, rows_in_file, "table rows / offset bullets of the full-layout blocks");
    assert_eq!(facts_compared, facts_in_file, "layout facts compared vs facts in structs.md");
    println!("structs.md full layouts: {} structs, {facts_in_file} facts compared", census.full.0);
    let known: BTreeSet<Diff> = LAYOUT_EXCEPTIONS
        .iter()
        .map(|(s, g, o, w)| (s.to_string(), g.to_string(), *o, w.to_string()))
        .collect();
    assert_exceptions(
        "full layouts (struct, gen, offset, difference)",
        &diffs,
        &known,
        "LAYOUT_EXCEPTIONS",
    );
}

/// Table rows and `- <offset> ...` bullets of a section-2 block, counted by a plain line
/// scan of the file (independent of the fact parser).
fn count_offset_lines(text: &str, name: &str) -> usize {
    let mut inside = false;
    let mut n = 0;
    let start = format!("**{name}**");
    for l in text.lines() {
        if l.starts_with(&start) {
            inside = true;
            continue;
        }
        let bold_ident =
            l.strip_prefix("**").and_then(|r| r.split_once("**")).is_some_and(|(n, _)| {
                !n.is_empty()
                    && n.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            });
        if inside
            && (bold_ident
                || l.starts_with("### ")
                || l.starts_with("## ")
                || l.starts_with("Named only"))
        {
            break;
        }
        if !inside {
            continue;
        }
        let t = l.trim();
        let first = t.trim_start_matches('|').trim_start_matches('-').trim_start();
        let is_row = t.starts_with('|') && first.chars().next().is_some_and(|c| c.is_ascii_digit());
        let is_bullet = t.starts_with("- ")
            && (notes::starts_with_offset(first) || first.starts_with("The same bytes as "));
        if is_row || is_bullet {
            n += 1;
        }
    }
    n
}

/// The operand types with an `| off | sz | field |` table in section 1 (HEADER, EVENTS,
/// EVENTS_EXTENDED, IMM_REG) are structs of the spec with the same fields, and the
/// tensor descriptors of section 1.15 have the stated sizes and field offsets.
#[test]
fn operand_types_match_structs_md() {
    let m = model();
    let text = structs_md();
    let mut diffs: BTreeSet<Diff> = BTreeSet::new();
    let mut compared = 0;
    let tables = notes::operand_tables(text);
    let names: Vec<&str> = tables.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(names, ["HEADER", "EVENTS", "EVENTS_EXTENDED", "IMM_REG"], "section-1 field tables");
    for (name, facts, rows) in &tables {
        assert_eq!(facts.len(), *rows);
        let s = &m
            [m.struct_named(name).unwrap_or_else(|| panic!("operand type {name} is not a struct"))];
        let covered: u32 = facts.iter().map(|f| f.size.unwrap()).sum();
        assert_eq!(covered, s.size, "{name}: the notes' table covers the struct");
        for f in facts {
            compared += 1;
            if let Err(e) = check_fields(m, &s.fields, f) {
                diffs.insert((name.clone(), "*".into(), f.offset, e));
            }
        }
    }
    for (name, size, parts) in notes::tensor_descriptors(text) {
        let s = &m[m.struct_named(&name).unwrap_or_else(|| panic!("{name} is not a struct"))];
        assert_eq!(s.size, size, "{name} size");
        let got: Vec<(u32, u32)> = s.fields.iter().map(|f| (f.offset, f.size)).collect();
        compared += parts.len();
        assert_eq!(got, parts, "{name}: (offset, size) of its fields");
    }
    println!("operand types: {compared} facts compared");
    assert!(diffs.is_empty(), "{diffs:#?}");
}

/// Classification of an arm by how much of its payload the spec names (structs.md's
/// census counts named fields: a field whose type has no inner layout, such as
/// TENSOR_SHAPE_DATA, still counts as given).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Known {
    /// Every byte is in a field with a reading, on every generation.
    Complete,
    /// Some bytes are `unknown[N]` fields.
    Partial,
    /// The payload (after the shared preamble, or after the opcode byte of an arm
    /// without one) is one `unknown[N]` run on every generation.
    NameOnly,
}

/// A field declared `unknown[N]` (or an array of unknowns) at the top level of a layout.
fn raw(f: &Field) -> bool {
    matches!(f.ty.leaf(), FieldType::Unknown(_))
}

fn payload(l: &Layout) -> impl Iterator<Item = &Field> {
    l.fields.iter().filter(|f| !(f.inherited || f.offset == 0 && f.name == "opcode"))
}

fn known(arm: &Arm) -> Known {
    if arm.layouts.iter().all(|l| l.fields.iter().all(|f| !raw(f))) {
        Known::Complete
    } else if arm.layouts.iter().all(|l| {
        let p: Vec<&Field> = payload(l).collect();
        p.len() == 1 && raw(p[0])
    }) {
        Known::NameOnly
    } else {
        Known::Partial
    }
}

/// structs.md's "full": every payload byte is in a named field on at least one of `gens`.
fn full_on(m: &Model, arm: &Arm, gens: &[usize]) -> bool {
    let layouts: Vec<&Layout> = gens
        .iter()
        .filter_map(|g| arm.layouts.iter().find(|l| l.archs.contains(&arch(m, *g))))
        .collect();
    let start = if arm.full_preamble { m.record.preamble_size } else { 0 };
    (start..m.record.size)
        .all(|b| layouts.iter().any(|l| l.fields.iter().any(|f| f.range().contains(&b) && !raw(f))))
}

/// (arm, notes class, spec class, why) where the spec knows more or less than structs.md.
const CLASS_EXCEPTIONS: &[(&str, Known, Known, &str)] = &[
    ("CUSTOM_OP_HEADER", Known::NameOnly, Known::Partial,
     "fields from the POOL/ACT Compute Gap-Cluster page (60172155822) §14, which structs.md did not re-read"),
    ("S2D2_ADDR", Known::NameOnly, Known::Partial,
     "fields from the POOL/ACT Compute Gap-Cluster page (60172155822) §10"),
    ("S4_PB", Known::NameOnly, Known::Partial,
     "fields from the POOL/ACT Compute Gap-Cluster page (60172155822) §6"),
    ("S3DMX1_QUANT", Known::NameOnly, Known::Complete,
     "full layout from the Byte-Decode of the MX Device Bodies page (59776809812) §2.5 (mariana header)"),
    ("EXTENDED_RDMA_DESC_START", Known::Partial, Known::Complete,
     "structs.md gives the field order and the transcriber's offsets (12, 13, 14, 16, marked (mine)); \
      the spec lays them out, the two typed bytes at @confidence(inferred)"),
];

/// The census of section 4 against the spec: the full-layout structs are complete arms in
/// the notes' sense (every payload byte named on some generation; S3_LW on maverick), the
/// names-only structs have a raw payload and the partial ones a partial payload, except
/// where the spec uses a page structs.md did not read, listed in [`CLASS_EXCEPTIONS`].
/// Prints the spec's own counts.
#[test]
fn layout_census_matches_structs_md() {
    let m = model();
    let c = notes::census(structs_md());
    assert_eq!(c.partial.1.len(), c.partial.0, "partial list vs its count");
    assert_eq!(c.names_only.1.len(), c.names_only.0, "names-only list vs its count");
    assert_eq!(c.full.0 + c.partial.0 + c.names_only.0, c.total, "section 4 total");

    let mut counts: BTreeMap<Known, Vec<&str>> = BTreeMap::new();
    for a in &m.arms {
        counts.entry(known(a)).or_default().push(&a.name);
    }
    let deep = m.arm_ids().filter(|a| m.is_complete(*a)).count();
    for (k, v) in &counts {
        println!("{k:?}: {} {v:?}", v.len());
    }
    println!("{} arms; {deep} complete down to every sub-type (Model::is_complete)", m.arms.len());

    let mut diffs = BTreeSet::new();
    let mut missing = Vec::new();
    let classes = c
        .full
        .1
        .iter()
        .map(|(n, g)| (n.clone(), g.clone(), Known::Complete))
        .chain(c.partial.1.iter().map(|n| (n.clone(), None, Known::Partial)))
        .chain(c.names_only.1.iter().map(|n| (n.clone(), None, Known::NameOnly)));
    for (name, gens, want) in classes {
        let Some(id) = m.arm_named(&name) else {
            missing.push(name);
            continue;
        };
        let arm = &m[id];
        let got = if want == Known::Complete {
            let gens = gens
                .unwrap_or_else(|| (0..4).filter(|g| arm.meta.available_on(arch(m, *g))).collect());
            if full_on(m, arm, &gens) {
                Known::Complete
            } else {
                known(arm)
            }
        } else {
            known(arm)
        };
        if got != want {
            diffs.insert((name, want, got));
        }
    }
    assert!(
        missing.is_empty(),
        "structs.md names these structs; the spec has no such arm: {missing:?}"
    );
    let known_set: BTreeSet<(String, Known, Known)> =
        CLASS_EXCEPTIONS.iter().map(|(n, w, g, _)| (n.to_string(), *w, *g)).collect();
    assert_exceptions("census class (arm, notes, spec)", &diffs, &known_set, "CLASS_EXCEPTIONS");
}

// =================================================================================
// Enums
// =================================================================================

fn enum_named<'m>(m: &'m Model, name: &str) -> &'m Enum {
    &m[m.enum_named(name).unwrap_or_else(|| panic!("enum {name}"))]
}

/// Check a per-generation enum table: values, names and per-generation availability;
/// the stated counts from the table's "Counts:" line.
fn check_gen_enum(m: &Model, e: &Enum, table: &notes::EnumTable, stated: [usize; 4]) {
    let mut bad = Vec::new();
    for (code, name, gens) in table {
        let Some(v) = e.variant_of(*code) else {
            bad.push(format!("{} 0x{code:02X} {name}: missing", e.name));
            continue;
        };
        if v.name != *name {
            bad.push(format!("{} 0x{code:02X}: notes {name}, spec {}", e.name, v.name));
        }
        if let Some(gens) = gens {
            for g in 0..4 {
                if v.meta.available_on(arch(m, g)) != gens[g] {
                    bad.push(format!(
                        "{} {name}: on {} notes {}, spec {}",
                        e.name, GENS[g], gens[g], !gens[g]
                    ));
                }
            }
        }
    }
    let values: BTreeSet<u64> = table.iter().map(|x| x.0).collect();
    for v in &e.variants {
        if !values.contains(&v.value) {
            bad.push(format!(
                "{}: spec {} = 0x{:02X} is not in the notes",
                e.name, v.name, v.value
            ));
        }
    }
    for g in 0..4 {
        let a = arch(m, g);
        let n = e.variants.iter().filter(|v| v.meta.available_on(a)).count();
        let t = table.iter().filter(|x| x.2.is_some_and(|p| p[g])).count();
        if n != stated[g] || t != stated[g] {
            bad.push(format!(
                "{} on {}: stated {}, table {t}, spec {n}",
                e.name, GENS[g], stated[g]
            ));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// DTYPE (enums.md section 1): 31 codes, counts SU 16, CA 16, MA 24, MV 30.
#[test]
fn dtype_matches_enums_md() {
    let m = model();
    let text = enums_md();
    let t = notes::dtype_table(text);
    let stated = notes::stated_counts(text, "## 1. `NEURON_ISA_TPB_DTYPE`");
    let e = enum_named(m, "DTYPE");
    assert_eq!(e.width, Prim::U8, "DTYPE is 1 byte (NEURON_ISA_PACKED)");
    check_gen_enum(m, e, &t, stated);
}

/// ALU_OP (enums.md section 2): counts SU 33, CA 60, MA 64, MV 65.
#[test]
fn alu_op_matches_enums_md() {
    let m = model();
    let text = enums_md();
    let t = notes::alu_op_table(text);
    let stated = notes::stated_counts(text, "## 2. `NEURON_ISA_TPB_ALU_OP`");
    check_gen_enum(m, enum_named(m, "ALU_OP"), &t, stated);
}

/// Map from the notes' enum names to the spec's, where they differ.
const ENUM_NAMES: &[(&str, &str)] = &[
    // enums.md writes the sparsity page's C++ spelling; the spec uses the header style.
    ("TagWgtMode", "TAG_WGT_MODE"),
];

/// The notes' enums with a `| enum | values |` row whose values are plain numbers: every
/// value the notes give is the spec's enum's value of the same name. Rows naming an enum
/// the spec does not have, or values that are not plain numbers, are listed.
#[test]
fn small_enums_match_enums_md() {
    let m = model();
    let mut bad = Vec::new();
    let mut compared = 0;
    let mut absent = BTreeSet::new();
    let mut skipped_items = 0;
    for (name, values, line) in notes::enum_rows(enums_md()) {
        let spec_name = ENUM_NAMES.iter().find(|x| x.0 == name).map(|x| x.1).unwrap_or(&name);
        let (pairs, skipped) = notes::value_list(&values);
        skipped_items += skipped.len();
        if pairs.is_empty() {
            continue;
        }
        let Some(id) = m.enum_named(spec_name) else {
            absent.insert(name.clone());
            continue;
        };
        let e = &m[id];
        for (n, v) in pairs {
            compared += 1;
            match e.variant_of(v) {
                // The Gap page writes CamelCase (LoadLib); the spec the header's LOAD_LIB.
                Some(x) if x.name.replace('_', "").eq_ignore_ascii_case(&n.replace('_', "")) => {}
                Some(x) => {
                    bad.push(format!("enums.md:{line} {name}::{n} = {v}: spec names it {}", x.name))
                }
                None => bad
                    .push(format!("enums.md:{line} {name}::{n} = {v}: no such value in the spec")),
            }
        }
    }
    println!("small enums: {compared} values compared, {skipped_items} non-numeric items, absent: {absent:?}");
    assert!(compared > 50, "{compared}");
    let known: BTreeSet<String> = ENUMS_ABSENT.iter().map(|x| x.0.to_string()).collect();
    assert_exceptions("enums of enums.md the spec does not have", &absent, &known, "ENUMS_ABSENT");
    let known_bad: BTreeSet<String> =
        ENUM_VALUE_EXCEPTIONS.iter().map(|x| x.0.to_string()).collect();
    let bad: BTreeSet<String> = bad.into_iter().collect();
    assert_exceptions("enum values", &bad, &known_bad, "ENUM_VALUE_EXCEPTIONS");
}

/// (enum, why) for enums.md enums the spec has no enum for.
const ENUMS_ABSENT: &[(&str, &str)] = &[];

/// (difference, why).
const ENUM_VALUE_EXCEPTIONS: &[(&str, &str)] = &[];

// =================================================================================
// Field types
// =================================================================================

/// The spec's spelling of a field type for comparison with the notes: the type's name
/// (`DTYPE`, `TENSOR3D`, `u8`) and the array length, `—` for reserved bytes.
fn spec_type(m: &Model, t: &FieldType) -> (String, Option<u32>) {
    match t {
        FieldType::Prim(p) => (p.as_str().to_string(), None),
        FieldType::Array(e, n) => (spec_type(m, e).0, Some(*n)),
        FieldType::Struct(s) => (m[*s].name.clone(), None),
        FieldType::Union(u) => (m[*u].name.clone(), None),
        FieldType::Bits(b) => (m[*b].name.clone(), None),
        FieldType::Enum(e) => (m[*e].name.clone(), None),
        FieldType::Reserved(_) => ("—".to_string(), None),
        FieldType::Unknown(_) => ("unknown".to_string(), None),
    }
}

/// The notes' type cell as (name, array length), or `None` when the cell states no
/// single type (`as src`, `(ALU_OP; Lower)`, a per-generation `A (CA) / B (MA, MV)`).
fn notes_type(cell: &str) -> Option<(String, Option<u32>)> {
    let c = cell.trim();
    if c.is_empty() || c.starts_with('(') || c.starts_with("as ") || c.contains(" / ") {
        return None;
    }
    if c.starts_with('—') {
        return Some(("—".to_string(), None));
    }
    let w = c.split_whitespace().next().unwrap();
    let (base, n) = match w.split_once('[') {
        Some((b, r)) => (b, r.trim_end_matches(']').parse().ok()),
        None => (w, None),
    };
    let prim = match base {
        "u8" | "uint8" => "u8",
        "u16" | "uint16" => "u16",
        "u32" | "uint32" => "u32",
        "u64" | "uint64" | "NEURON_ADDR" => "u64",
        "int8" => "i8",
        "int16" => "i16",
        "int32" => "i32",
        "float" => "f32",
        other => other,
    };
    Some((prim.to_string(), n))
}

/// Whether the spec's type is the notes' type: the same name (CamelCase and snake_case
/// spellings compared without underscores), or a union with a view of that name.
fn same_type(m: &Model, spec: &FieldType, notes: &(String, Option<u32>)) -> bool {
    let norm = |s: &str| s.replace('_', "").to_ascii_uppercase();
    let (name, n) = spec_type(m, spec);
    if n == notes.1 && norm(&name) == norm(&notes.0) {
        return true;
    }
    // A union the notes name by one of its views (TENSOR3D for MEM_PATTERN3D on a
    // generation whose header still says TENSOR3D is not this case: the layouts differ
    // per generation in the spec).
    if let FieldType::Union(u) = spec {
        return m[*u].views.iter().any(|v| same_type(m, &v.ty, notes));
    }
    false
}

/// Known type differences: (struct, offset, notes type, spec type, why).
const TYPE_EXCEPTIONS: &[(&str, u32, &str, &str, &str)] = &[
    ("S3D3_MM.psum_accumulate_flags", 43, "u8", "MATMUL_PSUM_ACCUMULATE_FLAGS",
     "the header declares a u8; enums.md section 4 gives its values as the \
      MATMUL_PSUM_ACCUMULATE_FLAGS bits (common.h:1335-1349), which the spec types it as (same byte)"),
    ("S4D3_MM.psum_accumulate_flags", 43, "u8", "MATMUL_PSUM_ACCUMULATE_FLAGS",
     "as for S3D3_MM.psum_accumulate_flags"),
];

/// The types of the full layouts' fields: where the notes' type cell names one type, the
/// spec's field has it (or a union with it as a view).
#[test]
fn full_layout_types_match_structs_md() {
    let m = model();
    let text = structs_md();
    let census = notes::census(text);
    let blocks = notes::struct_notes(text);
    let mut diffs: BTreeSet<(String, u32, String, String)> = BTreeSet::new();
    let (mut compared, mut untyped) = (0, 0);
    for (name, only) in &census.full.1 {
        let b = blocks.iter().find(|b| &b.name == name).unwrap();
        let arm = &m[m.arm_named(name).unwrap()];
        for f in &b.facts {
            let What::Field(fname) = &f.what else { continue };
            let Some(want) = notes_type(&f.ty) else {
                untyped += 1;
                continue;
            };
            let gens: Vec<usize> =
                f.gens.clone().or_else(|| only.clone()).unwrap_or_else(|| {
                    (0..4).filter(|g| arm.meta.available_on(arch(m, *g))).collect()
                });
            compared += 1;
            for g in gens {
                let a = arch(m, g);
                let Some(l) = arm.layouts.iter().find(|l| l.archs.contains(&a)) else { continue };
                let Some(x) = l.fields.iter().find(|x| x.offset == f.offset) else { continue };
                if !same_type(m, &x.ty, &want) {
                    let got = spec_type(m, &x.ty);
                    let fmt = |t: &(String, Option<u32>)| match t.1 {
                        Some(n) => format!("{}[{n}]", t.0),
                        None => t.0.clone(),
                    };
                    diffs.insert((format!("{name}.{fname}"), f.offset, fmt(&want), fmt(&got)));
                }
            }
        }
    }
    println!("field types: {compared} typed facts compared, {untyped} without a single type");
    let known: BTreeSet<(String, u32, String, String)> = TYPE_EXCEPTIONS
        .iter()
        .map(|(s, o, w, g, _)| (s.to_string(), *o, w.to_string(), g.to_string()))
        .collect();
    assert_exceptions(
        "field types (struct.field, offset, notes, spec)",
        &diffs,
        &known,
        "TYPE_EXCEPTIONS",
    );
}

// =================================================================================
// Bands, preamble and the seed-vs-notes disagreements
// =================================================================================

fn band<'m>(m: &'m Model, name: &str) -> &'m Band {
    let e = m.opcode_enum();
    m.bands
        .iter()
        .find(|b| b.enum_id == e && b.name == name)
        .unwrap_or_else(|| panic!("band OPCODE.{name}"))
}

fn docs(meta: &Meta) -> String {
    meta.docs.join(" ")
}

/// The record seed's host-only stragglers, quoted: "The pseudo band: 0xC1..0xDF (plus 0xA9
/// COMPARE_BRANCH, 0xB5/0xDD branch-hint) is host-only" (seed section 1). The notes'
/// header view classes 0xA9 and 0xB5 as real; the spec keeps the seed's band and says so.
const SEED_HOST_ONLY_STRAGGLERS: [(u64, &str); 2] =
    [(0xA9, "COMPARE_BRANCH"), (0xB5, "BRANCH_PREFETCH_HINT")];

/// opcodes.tsv's band column (real / pseudo / invalid) against the spec's bands: the
/// pseudo rows are exactly OPCODE.pseudo; host_only is the pseudo band plus the seed's
/// stragglers, which the notes call real (a seed-vs-notes disagreement the spec keeps
/// the seed's side of and states in the value's docs).
#[test]
fn opcode_bands_match_the_table() {
    let m = model();
    let rows = notes::opcodes();
    let (pseudo, host, real) = (band(m, "pseudo"), band(m, "host_only"), band(m, "real"));
    let mut host_not_pseudo = BTreeSet::new();
    for r in &rows {
        match r.band.as_str() {
            "pseudo" => {
                assert!(
                    pseudo.contains(r.value),
                    "0x{:02X} {} is pseudo in the notes",
                    r.value,
                    r.name
                );
                assert!(host.contains(r.value), "0x{:02X}: the pseudo band is host-only", r.value);
            }
            "real" => {
                assert!(
                    !pseudo.contains(r.value),
                    "0x{:02X} {} is real in the notes",
                    r.value,
                    r.name
                );
                assert!(
                    real.contains(r.value),
                    "0x{:02X} {} is in the seed's 0x01..0xFF real band",
                    r.value,
                    r.name
                );
                if host.contains(r.value) {
                    host_not_pseudo.insert(r.value);
                }
            }
            "invalid" => assert_eq!(opcode_enum(m).variant_of(r.value).unwrap().name, "INVALID"),
            other => panic!("opcodes.tsv:{}: band {other:?}", r.line),
        }
    }
    // Every value of the pseudo band is a pseudo row (0xC1..0xDF all assigned).
    let pseudo_rows: BTreeSet<u64> =
        rows.iter().filter(|r| r.band == "pseudo").map(|r| r.value).collect();
    for &(lo, hi) in &pseudo.ranges {
        for v in lo..=hi {
            assert!(pseudo_rows.contains(&v), "0x{v:02X} is in OPCODE.pseudo but not a pseudo row");
        }
    }
    let seed: BTreeSet<u64> = SEED_HOST_ONLY_STRAGGLERS.iter().map(|x| x.0).collect();
    assert_eq!(host_not_pseudo, seed, "real (notes) values in the spec's host_only band");
    for (v, name) in SEED_HOST_ONLY_STRAGGLERS {
        let var = opcode_enum(m).variant_of(v).unwrap();
        assert_eq!(var.name, name);
        assert!(docs(&var.meta).contains("DISAGREE"), "0x{v:02X}: the docs state the disagreement");
        let r = rows.iter().find(|r| r.value == v).unwrap();
        assert_eq!(r.presence, ['Y'; 4], "the notes flag 0x{v:02X} maintained on every generation");
    }
    assert!(docs(&host.meta).contains("DISAGREE"), "the host_only band states the disagreement");
}

/// The opcode count: the seed's "120 defined opcode values (70 real + 50 pseudo)" against
/// the notes' per-generation counts and union (enums.md section 14). The spec models the
/// notes' values (the seed lost its table) and states both counts on OPCODE.
#[test]
fn opcode_count_disagreement_is_stated() {
    let m = model();
    let d = docs(&opcode_enum(m).meta);
    let (counts, _) = stated_opcode_counts(enums_md());
    // Seed section 2: "There are 120 defined opcode values across two bands"; the
    // summary: "the 70 real + 50 pseudo opcode values".
    for seed in ["120", "70 real", "50 pseudo"] {
        assert!(d.contains(seed), "OPCODE docs quote the seed's {seed:?}");
    }
    for c in counts.iter().map(|c| c.to_string()).chain([stated_union(enums_md()).to_string()]) {
        assert!(d.contains(&c), "OPCODE docs quote the notes' count {c}");
    }
    assert!(
        d.contains("DIFFERENTLY") || d.contains("DISAGREE"),
        "OPCODE docs say the counts disagree"
    );
}

/// The arm count: the seed's 118 DWARF arms against the notes' struct2opcode keys per
/// generation (enums.md section 14); the record states both.
#[test]
fn arm_count_disagreement_is_stated() {
    let m = model();
    let d = docs(&m.record.meta);
    let sec = notes::section(enums_md(), "## 14.");
    let row =
        sec.iter().find(|l| l.starts_with("| `struct2opcode` keys")).expect("struct2opcode row");
    let c = notes::cells(row).unwrap();
    // Seed section 1: "one of 118 distinct C structs selected by the opcode byte".
    assert!(d.contains("118"), "record docs quote the seed's 118 arms");
    for g in 0..4 {
        assert!(
            d.contains(&c[1 + g]),
            "record docs quote the notes' {} struct2opcode count {}",
            GENS[g],
            c[1 + g]
        );
    }
    assert!(d.contains("DISAGREE"));
}

/// The shared preamble: the seed says every arm begins with HEADER + EVENTS; structs.md
/// section 3.1 names four structs that do not. Exactly those arms (and the other 0xDA
/// extension word, see below) give up part of the preamble, each saying so.
#[test]
fn preamble_exceptions_match_structs_md() {
    let m = model();
    let sec = notes::section(structs_md(), "### 3.1");
    let start = sec
        .iter()
        .position(|l| l.contains("Contradicts \"every arm begins with HEADER + EVENTS\""))
        .expect("3.1 bullet");
    let mut named = BTreeSet::new();
    for l in &sec[start + 1..] {
        let t = l.trim();
        if !t.starts_with("- ") || t.starts_with("- The checker") {
            if t.starts_with("- The checker") || t.starts_with("**") {
                break;
            }
            continue;
        }
        // "- DMA_COPY2D (0xB9, MV) and DMA_IMMEDIATE (0xBA, MV): ..."
        let head = t[2..].split(':').next().unwrap();
        for w in notes::upper_idents(head) {
            if w.contains('_') {
                named.insert(w);
            }
        }
    }
    assert_eq!(named.len(), 4, "structs.md 3.1 names four structs: {named:?}");
    let partial: BTreeSet<String> =
        m.arms.iter().filter(|a| !a.full_preamble).map(|a| a.name.clone()).collect();
    // TRIGGER_COLLECTIVE2_EXT: the notes name it only; it is the other 0xDA extension
    // word (structs.md 2.2: "the same opcode also carries TRIGGER_COLLECTIVE2_EXT_STRUCT
    // after 0xD9"), so the spec does not assume the preamble there either and declares
    // only the opcode byte.
    let mut want = named.clone();
    want.insert("TRIGGER_COLLECTIVE2_EXT".to_string());
    assert_eq!(partial, want, "arms without the whole preamble");
    for n in &named {
        let a = &m[m.arm_named(n).unwrap()];
        assert!(
            docs(&a.meta).contains("DISAGREE"),
            "{n}: the docs state the disagreement with the seed"
        );
    }
    assert!(docs(&m.record.meta).contains("DISAGREE"));
}

/// ADDR4's immediate form: the seed reads `& 0x1FFFFFFF` as the 29-bit address and
/// `& 0x1E000000` as the quadrant bits (seed section 3); the notes' PARTITION_OFFSET
/// (structs.md 1.4: "[17:0] byte offset ...; [22:18] must be zero; [24:23] SBUF quadrant;
/// [25] 0 = SBUF, 1 = PSUM") places the quadrant at bits 23..25. The spec keeps both
/// readings and says they disagree; PARTITION_OFFSET is the notes' layout.
#[test]
fn addr4_aperture_disagreement_is_kept() {
    let m = model();
    let text = structs_md();
    let sec = notes::section(text, "### 1.4");
    let line = sec.iter().find(|l| l.contains("PARTITION_OFFSET bits")).expect("1.4 bits line");
    let mut para = line.to_string();
    for l in sec.iter().skip_while(|l| *l != line).skip(1).take_while(|l| l.starts_with("  ")) {
        para.push(' ');
        para.push_str(l.trim());
    }
    // "[hi:lo] name" → (lo, hi + 1).
    let mut notes_fields = Vec::new();
    for part in para.split('[').skip(1) {
        let (range, _) = part.split_once(']').unwrap();
        let (hi, lo) = range.split_once(':').unwrap_or((range, range));
        notes_fields.push((lo.parse::<u32>().unwrap(), hi.parse::<u32>().unwrap() + 1));
    }
    assert_eq!(
        notes_fields,
        [(0, 18), (18, 23), (23, 25), (25, 26)],
        "structs.md 1.4 PARTITION_OFFSET bits"
    );

    let po = &m[m.bits_named("PARTITION_OFFSET").unwrap()];
    let got: Vec<(u32, u32)> = po.fields.iter().map(|f| (f.lo, f.hi)).collect();
    assert_eq!(got, notes_fields, "PARTITION_OFFSET is the notes' layout");

    let a4 = &m[m.bits_named("ADDR4").unwrap()];
    let imm = a4.alts.iter().find(|a| a.name == "immediate").expect("ADDR4 immediate view");
    let masks: BTreeMap<&str, u64> =
        imm.fields.iter().map(|f| (f.name.as_str(), f.mask())).collect();
    // Seed section 3: "addr_immediate & 0x1FFFFFFF is the 29-bit address; quadrant bits
    // & 0x1E000000 select the SBUF/PSUM aperture."
    assert_eq!(masks.get("immediate"), Some(&0x1FFF_FFFF), "the seed's 29-bit immediate");
    assert_eq!(masks.get("quadrant"), Some(&0x1E00_0000), "the seed's quadrant bits");
    let notes_masks: BTreeSet<u64> =
        notes_fields.iter().map(|(lo, hi)| ((1u64 << (hi - lo)) - 1) << lo).collect();
    let spec_masks: BTreeSet<u64> = masks.values().copied().collect();
    assert!(
        notes_masks.is_subset(&spec_masks),
        "the notes' PARTITION_OFFSET fields are views of ADDR4's immediate too"
    );
    assert!(
        docs(&imm.meta).contains("DISAGREE"),
        "ADDR4 immediate: the docs state the disagreement"
    );

    // The indirect form. Seed section 3: "ADDR4.marker & 0x60 == 0x20 → indirect
    // addressing (a data_addr field participates)". structs.md 1.4/3.2: the data_addr is
    // the descriptor's next ADDR4 (INDIRECT16B/20B), not part of ADDR4. The spec keeps
    // the seed's predicate with no bits of its own and says where data_addr is.
    let ind = a4.alts.iter().find(|a| a.name == "indirect").expect("ADDR4 indirect view");
    let p = ind.when.as_ref().expect("a predicate");
    assert_eq!((p.mask, p.value), (0x60, 0x20));
    assert!(ind.fields.is_empty());
    let d = docs(&ind.meta);
    assert!(d.contains("data_addr") && d.contains("INDIRECT16B"), "{d}");
    let i16 = &m[m.struct_named("INDIRECT").unwrap()];
    let names: Vec<&str> = i16.fields.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"data_addr"), "the notes' INDIRECT holds data_addr: {names:?}");
}

/// ADDR8: the seed reads it like ADDR4 (a 29-bit address in the low bits, a marker at the
/// top, indirect when `marker & 0x60 == 0x20`); the notes (structs.md 1.5) make the
/// immediate a 64-bit NEURON_ADDR, the register view reg_lo/reg_hi at bytes 0/1, and
/// markers 0x20/0x60 table addressing. The spec keeps both and states the disagreement.
#[test]
fn addr8_disagreement_is_kept() {
    let m = model();
    let sec = notes::section(structs_md(), "### 1.5");
    let reg = sec.iter().find(|l| l.starts_with("| register")).expect("1.5 register row");
    let c = notes::cells(reg).unwrap();
    assert_eq!(c[1], "0 / 1 / 2..6 / 7");
    let names: Vec<&str> = c[2].split('/').map(str::trim).collect();
    let a8 = &m[m.bits_named("ADDR8").unwrap()];
    let r = a8.alts.iter().find(|a| a.name == "register").expect("ADDR8 register view");
    let got: Vec<(&str, u32, u32)> =
        r.fields.iter().map(|f| (f.name.as_str(), f.lo, f.hi)).collect();
    assert_eq!(got[0], (names[0], 0, 8), "reg_lo at byte 0");
    assert_eq!(got[1], (names[1], 8, 16), "reg_hi at byte 1");
    let marker = a8.fields.iter().find(|f| f.name == "marker").expect("ADDR8 marker");
    assert_eq!(
        (marker.lo, marker.hi),
        (56, 64),
        "the marker is the high byte (1.5: 'Marker = the high byte')"
    );
    let imm = a8.alts.iter().find(|a| a.name == "immediate").expect("ADDR8 immediate view");
    let masks: BTreeMap<&str, u64> =
        imm.fields.iter().map(|f| (f.name.as_str(), f.mask())).collect();
    assert_eq!(masks.get("immediate"), Some(&0x1FFF_FFFF), "the seed's 29-bit reading is kept");
    assert!(
        imm.fields.iter().any(|f| f.lo == 0 && f.hi == 56),
        "the notes' 64-bit address below the marker"
    );
    assert!(a8.alts.iter().any(|a| a.name == "table"), "the notes' table addressing view");
    assert!(docs(&a8.meta).contains("DISAGREE"));
}

/// OPCODE_VALID (the seed's four validator words): under the inferred bit mapping it has
/// as many set bits as sunda has opcodes in the notes, but it is no generation's opcode
/// set; the spec keeps it at inferred confidence and says why.
#[test]
fn opcode_valid_bitmask_is_no_generations_set() {
    let m = model();
    let b = m.bitmasks.iter().find(|b| b.name == "OPCODE_VALID").expect("bitmask OPCODE_VALID");
    // Seed section 4: "the four OPCODE bitmasks 0x400082F07FBFFFFF / 0x024BC3FFFFDF3F7F /
    // 0x7FEFFFFFE08F7FFF / 0x1001E0000003E".
    assert_eq!(
        b.words,
        [0x400082F07FBFFFFF, 0x024BC3FFFFDF3F7F, 0x7FEFFFFFE08F7FFF, 0x1001E0000003E]
    );
    let set: BTreeSet<u64> = (0..b.words.len() as u64 * 64)
        .filter(|v| b.words[(*v >> 6) as usize] >> (v & 63) & 1 == 1)
        .collect();
    let rows = notes::opcodes();
    let (counts, _) = stated_opcode_counts(enums_md());
    assert_eq!(set.len(), counts[0], "popcount equals the notes' sunda count");
    for g in 0..4 {
        assert_ne!(set, tsv_values_on(&rows, g), "OPCODE_VALID is {}'s opcode set", GENS[g]);
    }
    assert_eq!(b.meta.confidence, Confidence::Inferred);
    assert!(
        docs(&b.meta).contains("does not hold"),
        "the docs say the notes do not confirm the mapping"
    );
}

// =================================================================================
// S3_LW in_dtype (sunda, cayman) against real compiler output
// =================================================================================

/// Every LDWEIGHTS (0x01) record of the cayman corpus (testdata/nkipy, neuronx-cc
/// 2.23.6484.0, target cayman) has at +32 the same named cayman DTYPE as the MATMUL
/// records of its stream, the byte the spec reads as S3_LW.in_dtype on cayman.
#[test]
fn ldweights_in_dtype_reads_the_cayman_corpus() {
    let m = model();
    let ca = arch(m, 1);
    let lw = &m[m.arm_named("S3_LW").unwrap()];
    let l = lw.layouts.iter().find(|l| l.archs.contains(&ca)).unwrap();
    let f = l.fields.iter().find(|f| f.name == "in_dtype").expect("S3_LW.in_dtype on cayman");
    let FieldType::Enum(e) = f.ty else { panic!("S3_LW.in_dtype is {:?}", f.ty) };
    assert_eq!((f.offset, f.size, m[e].name.as_str()), (32, 1, "DTYPE"));
    let mm = &m[m.arm_named("S3D3_MM").unwrap()];
    let mm_dtype = mm
        .layouts
        .iter()
        .find(|l| l.archs.contains(&ca))
        .unwrap()
        .fields
        .iter()
        .find(|f| f.name == "in_dtype")
        .unwrap();
    assert_eq!(mm_dtype.offset, f.offset, "MATMUL's in_dtype is at the same offset");

    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/nkipy/streams"));
    let mut files = Vec::new();
    for neff in std::fs::read_dir(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display())) {
        for sg in std::fs::read_dir(neff.unwrap().path()).unwrap() {
            files.push(sg.unwrap().path().join("PE.bin"));
        }
    }
    let mut lw_records = 0;
    for p in files {
        let b = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(b.len() % 64, 0);
        let mut seen: BTreeMap<u8, BTreeSet<u8>> = BTreeMap::new();
        for r in b.chunks(64) {
            if r[0] == 0x01 || r[0] == 0x02 {
                seen.entry(r[0]).or_default().insert(r[32]);
            }
        }
        let lw_vals = seen.get(&0x01).cloned().unwrap_or_default();
        for v in &lw_vals {
            let var = m[e].variant_of(u64::from(*v)).unwrap_or_else(|| {
                panic!("{}: LDWEIGHTS byte 32 = {v:#x} is no DTYPE", p.display())
            });
            assert!(var.meta.available_on(ca), "{} is not a cayman DTYPE", var.name);
        }
        if let (Some(a), Some(b)) = (seen.get(&0x01), seen.get(&0x02)) {
            assert_eq!(a, b, "{}: LDWEIGHTS and MATMUL dtypes", p.display());
        }
        lw_records += b.chunks(64).filter(|r| r[0] == 0x01).count();
    }
    assert!(lw_records > 8000, "LDWEIGHTS records read: {lw_records}");
}

// =================================================================================
// Partial layouts
// =================================================================================

/// Items of partial layouts that carry an offset but are not a fact the test can check,
/// with why: (struct, start of the item).
const PARTIAL_UNREAD: &[(&str, &str, &str)] = &[];
// (None at present: every item with an offset reads.)

/// Known differences between partial layouts and the spec: (struct, fact, why).
const PARTIAL_EXCEPTIONS: &[(&str, &str, &str)] = &[(
    "CTRL_BR",
    "Named { offset: 14, name: \"target\" }",
    "the notes write the prose \"14 target mode (BR_TARGET_MODE: ...)\"; the spec's field at +14 is \
     target_mode, typed BR_TARGET_MODE",
)];

/// What the partial layouts of structs.md (and the per-generation bullets of S3_LW) state (named fields at offsets, a typed byte,
/// bytes not given) holds in the spec on some generation the fact applies to: the field
/// is there under that name (or with that type), and a byte the notes do not give is
/// `unknown` unless another source gives it (listed).
#[test]
fn partial_layouts_match_structs_md() {
    let m = model();
    let text = structs_md();
    let census = notes::census(text);
    // The partial structs, and the structs whose full layout holds on some generations
    // only (S3_LW: maverick), whose other generations' bullets ("CA: ...") are partial.
    let mut names = census.partial.1.clone();
    names.extend(census.full.1.iter().filter(|(_, g)| g.is_some()).map(|(n, _)| n.clone()));
    let (facts, unread) = notes::partial_facts(text, &names);
    let unread: BTreeSet<String> = unread.into_iter().collect();
    let known_unread: BTreeSet<String> = unread
        .iter()
        .filter(|u| {
            PARTIAL_UNREAD
                .iter()
                .any(|(s, start, _)| u.starts_with(&format!("{s} ")) && u.contains(start))
        })
        .cloned()
        .collect();
    assert_eq!(
        unread, known_unread,
        "partial-layout items with an offset that the reader did not read"
    );
    assert_eq!(known_unread.len(), PARTIAL_UNREAD.len(), "stale PARTIAL_UNREAD entries");

    let mut per_struct: BTreeMap<&str, usize> = BTreeMap::new();
    let mut diffs = BTreeSet::new();
    for pf in &facts {
        *per_struct.entry(pf.strukt.as_str()).or_default() += 1;
        let arm =
            &m[m.arm_named(&pf.strukt).unwrap_or_else(|| panic!("{} is not an arm", pf.strukt))];
        let gens: Vec<usize> = pf
            .gens
            .clone()
            .unwrap_or_else(|| (0..4).filter(|g| arm.meta.available_on(arch(m, *g))).collect());
        let layouts: Vec<&Layout> = gens
            .iter()
            .filter_map(|g| arm.layouts.iter().find(|l| l.archs.contains(&arch(m, *g))))
            .collect();
        assert!(!layouts.is_empty(), "{}: no layout on {gens:?}", pf.strukt);
        let holds = |l: &&Layout| match &pf.fact {
            notes::Partial::Named { offset, name } => {
                l.fields.iter().any(|f| f.offset == *offset && same_name(name, f))
            }
            notes::Partial::Typed { offset, ty } => {
                l.fields.iter().any(|f| f.offset == *offset && spec_type(m, &f.ty).0 == *ty)
            }
            notes::Partial::NotGiven { lo, hi } => (*lo..*hi)
                .all(|b| l.fields.iter().any(|f| f.range().contains(&b) && m.has_unknown(&f.ty))),
        };
        if !layouts.iter().any(holds) {
            println!("structs.md:{}: {} {:?} does not hold", pf.line, pf.strukt, pf.fact);
            diffs.insert(format!("{} {:?}", pf.strukt, pf.fact));
        }
    }
    println!(
        "partial layouts: {} facts over {} structs: {per_struct:?}",
        facts.len(),
        per_struct.len()
    );
    // Every partial struct with a layout statement gave facts.
    for n in &census.partial.1 {
        assert!(per_struct.contains_key(n.as_str()), "{n}: no fact read from its partial layout");
    }
    let known: BTreeSet<String> =
        PARTIAL_EXCEPTIONS.iter().map(|(s, f, _)| format!("{s} {f}")).collect();
    assert_exceptions("partial layouts (struct, fact)", &diffs, &known, "PARTIAL_EXCEPTIONS");
}

// =================================================================================
// Arm generations
// =================================================================================

/// (arm, why) where the spec's availability differs from the heading's "Gens ...".
const GENS_EXCEPTIONS: &[(&str, &str)] = &[];

/// Where a section-2 heading says which generations define the struct ("Gens CA, MA,
/// MV", "Gens: MV only", "Gens SU..MV", "Gens CA+"), the arm exists on exactly those.
#[test]
fn arm_generations_match_the_headings() {
    let m = model();
    let mut diffs = BTreeSet::new();
    let mut compared = 0;
    for b in notes::struct_notes(structs_md()) {
        let Some(want) = notes::heading_gens(&b.heading) else { continue };
        let Some(id) = m.arm_named(&b.name) else { continue };
        let arm = &m[id];
        let got: Vec<usize> = (0..4).filter(|g| arm.meta.available_on(arch(m, *g))).collect();
        compared += 1;
        if got != want {
            let f = |v: &[usize]| v.iter().map(|g| GENS[*g]).collect::<Vec<_>>().join(",");
            diffs.insert((b.name.clone(), f(&want), f(&got)));
        }
    }
    assert!(compared >= 20, "{compared} headings with generations");
    let known: BTreeSet<(String, String, String)> =
        diffs.iter().filter(|d| GENS_EXCEPTIONS.iter().any(|(n, _)| *n == d.0)).cloned().collect();
    assert_eq!(known.len(), GENS_EXCEPTIONS.len(), "stale GENS_EXCEPTIONS");
    let rest: Vec<_> = diffs.difference(&known).collect();
    assert!(rest.is_empty(), "(arm, notes gens, spec gens): {rest:#?}");
}
