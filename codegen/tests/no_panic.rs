//! `codegen::load` never panics, whatever the text: arbitrary strings, grammar-token
//! soup, well-formed item shapes of every construct (unions, vocabularies,
//! per-generation members, preamble subsets, typed bit-fields, the opcode table's
//! attributes), arch-file soup, and mutated copies of the committed spec and of every
//! diagnostic fixture, as `.isa` and as `.toml` files; plus a list of hand-picked edge
//! cases (huge offsets and sizes, deep nesting, odd TOML values). Whatever loads is also
//! generated: `codegen::generate` never panics on a checked model either.
//!
//! The property tests run in a child process (this test binary, filtered to one test)
//! so that a stack overflow, which aborts instead of unwinding, fails that one test
//! and shows the input that caused it instead of killing the whole binary.
//!
//! The committed spec is read from `$TPB_SPEC_DIR` if set, else `isa/` next to this crate.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use codegen::{load, Sources};

const CHILD_ENV: &str = "TPB_NO_PANIC_CHILD";

fn spec_dir() -> PathBuf {
    match std::env::var_os("TPB_SPEC_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../isa")),
    }
}

/// The committed spec's files as `(isa/…, text)`, read as `cargo xtask` reads them.
fn spec_files() -> Vec<(String, String)> {
    let s = Sources::read_spec(&spec_dir(), "isa").unwrap_or_else(|e| panic!("{e}"));
    let out: Vec<(String, String)> =
        s.iter().map(|(_, f)| (f.path.clone(), f.text.clone())).collect();
    assert!(!out.is_empty(), "no spec files in {}", spec_dir().display());
    out
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/errors")
}

fn base_isa() -> String {
    let p = fixtures_dir().join("_base.isa");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// Every `.isa` and `.toml` file of the diagnostic fixtures, one spec file set per
/// fixture (a file, or a folder with its arch files), as `(isa/…, text)`.
fn fixture_specs() -> Vec<Vec<(String, String)>> {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(fixtures_dir()).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    entries
        .into_iter()
        .filter_map(|p| {
            if p.is_dir() {
                Some(spec_folder(&p))
            } else if p.extension().is_some_and(|e| e == "isa") {
                let text = std::fs::read_to_string(&p).unwrap();
                let name = p.file_name().unwrap().to_string_lossy();
                Some(vec![(format!("isa/{name}"), text)])
            } else {
                None
            }
        })
        .collect()
}

/// The spec files of a folder, as `(isa/…, text)`.
fn spec_folder(dir: &Path) -> Vec<(String, String)> {
    let s = Sources::read_spec(dir, "isa").unwrap_or_else(|e| panic!("{e}"));
    s.iter().map(|(_, f)| (f.path.clone(), f.text.clone())).collect()
}

/// The fixture that loads with every construct of the round-two language.
fn round_two() -> Vec<(String, String)> {
    spec_folder(&fixtures_dir().join("ok_round2"))
}

/// Two generations, for `@archs` in the item shapes.
const ARCHS: [(&str, &str); 2] = [
    ("isa/arch/old.toml", "name = \"old\"\ngeneration = 1\nlabel = \"V1\"\n"),
    ("isa/arch/new.toml", "name = \"new\"\ngeneration = 2\nlabel = \"V2\"\n"),
];

/// Load `files`; the result does not matter, only that it returns. A returned failure
/// is also rendered both ways, since rendering walks every span; a model is generated.
fn load_all(files: &[(String, String)]) {
    let mut s = Sources::new();
    for (p, t) in files {
        s.add(p.clone(), t.clone());
    }
    match load(s) {
        Ok(model) => {
            let _ = codegen::generate(&model);
        }
        Err(f) => {
            let _ = f.render();
            let _ = f.short();
        }
    }
}

/// Run `body` in a child process of this test binary filtered to `name`; in the child
/// (`CHILD_ENV` = `name`), run it directly. Panics and aborts both fail the test, and
/// the tail of the child's output (which names the failing input) is shown.
fn in_child(name: &str, body: impl FnOnce()) {
    if std::env::var(CHILD_ENV).as_deref() == Ok(name) {
        body();
        return;
    }
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, name)
        .output()
        .expect("spawn the test binary");
    if !out.status.success() {
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let tail: String = {
            let chars: Vec<char> = text.chars().collect();
            chars[chars.len().saturating_sub(6000)..].iter().collect()
        };
        panic!("'{name}' failed in its child process ({}); the output ends:\n{tail}", out.status);
    }
}

/// Show the input of the case about to run, so that an abort names it.
fn trace(what: &str, text: &str) {
    if std::env::var_os(CHILD_ENV).is_some() {
        eprintln!("--- case: {what} ---\n{text:?}");
    }
}

/// `cases` cases, or `$PROPTEST_CASES` if set (for a longer run).
fn runner(cases: u32) -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(cases);
    // No regression files: the failing input is printed instead.
    TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() })
}

fn run<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value))
where
    S::Value: std::fmt::Debug,
{
    let result = runner(cases).run(&strategy, |v| {
        test(v);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// ---------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------

/// Tokens of the `.isa` grammar, names of the committed spec, and odd numbers.
const ISA_TOKENS: &[&str] = &[
    "record",
    "struct",
    "group",
    "arm",
    "bits",
    "enum",
    "union",
    "engines",
    "unknown",
    "byte",
    "unknown[3]",
    "unknown[0]",
    "f32",
    "ENGINE",
    "@status(dormant)",
    "@status(x)",
    "@status()",
    "@engine(PE)",
    "@engine(PE, ACT)",
    "@engine()",
    "@archs(old)",
    "@archs(new..)",
    "band",
    "bind",
    "sentinel",
    "bitmask",
    "aperture",
    "geometry",
    "derived",
    "rule",
    "discriminant",
    "use",
    "as",
    "alt",
    "when",
    "otherwise",
    "sub",
    "requires",
    "reserved",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ":",
    ";",
    ",",
    "=",
    "=>",
    "..",
    "..=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<<",
    ">>",
    "&",
    "^",
    "|",
    "<",
    "<=",
    "==",
    "!=",
    ">",
    ">=",
    "?",
    "@",
    ".",
    "@source(\"s\")",
    "@confidence(medium)",
    "@confidence(x)",
    "@archs(a..)",
    "@archs(..b)",
    "@archs(a, b)",
    "@archs(..)",
    "@archs()",
    "@waive(\"w\")",
    "@waive()",
    "@x()",
    "/// doc",
    "// comment",
    "\n",
    "0",
    "1",
    "2",
    "4",
    "8",
    "12",
    "16",
    "64",
    "255",
    "256",
    "0x7F",
    "0xFF",
    "0x100",
    "0xFFFFFFFF",
    "4294967295",
    "4294967296",
    "0xFFFFFFFFFFFFFFFF",
    "0x10000000000000000",
    "340282366920938463463374607431768211455",
    "340282366920938463463374607431768211456",
    "0x",
    "0b",
    "0b102",
    "1_000",
    "u8",
    "u16",
    "u32",
    "u64",
    "i8",
    "i32",
    "i64",
    "bool",
    "u128",
    "A",
    "B",
    "R",
    "X",
    "G",
    "S",
    "OPCODE",
    "HEADER",
    "opcode",
    "a",
    "b",
    "x",
    "n",
    "m",
    "\"str\"",
    "\"",
    "\\",
];

fn isa_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (prop::sample::select(ISA_TOKENS), prop::sample::select(&[" ", " ", "\n", ""][..])),
        0..80,
    )
    .prop_map(|v| v.into_iter().map(|(t, sep)| format!("{t}{sep}")).collect())
}

/// Plausible-looking `.isa` items: well-formed shapes with random numbers and names,
/// which get past the parser and exercise the checks.
fn isa_items() -> impl Strategy<Value = String> {
    let num = prop_oneof![
        0u128..70,
        Just(255u128),
        Just(256),
        Just(u32::MAX as u128),
        Just(u32::MAX as u128 + 1),
        Just(u64::MAX as u128),
        Just(u64::MAX as u128 + 1),
        Just(u128::MAX),
    ];
    let name = prop::sample::select(
        &["A", "B", "G", "R", "X", "OPCODE", "HEADER", "a", "b", "x", "n"][..],
    );
    let prim = prop::sample::select(
        &["u8", "u16", "u32", "u64", "i8", "i64", "bool", "A", "G", "OPCODE"][..],
    );
    let item = (0..20u8, name.clone(), name, prim.clone(), prim, num.clone(), num.clone(), num).prop_map(
        |(k, n1, n2, p1, p2, a, b, c)| match k {
            0 => format!("struct {n1} : {a} {{\n    {b} {n2} {p1}\n    {c} y [{p2}; {a}]\n}}\n"),
            1 => format!("group {n1} : {a} {{\n    {b} {n2} {p1}\n}}\nstruct S{n2} : {c} {{\n    {b} use {n1}\n}}\n"),
            2 => format!("arm {n1} : R {{\n    {a} {n2} {p1}\n    {b} use {n2} as p\n    {c} r reserved[{a}]\n}}\n"),
            3 => format!("bits {n1} : {p1} {{\n    {a}..{b} {n2}\n    alt v when {n2} & {c} == {a} {{\n        {b}..{c} q\n    }}\n    alt w otherwise {{\n        {a}..{c} z\n    }}\n}}\n"),
            4 => format!("enum {n1} : {p1} {{\n    {n2} = {a}\n    Z = {b}\n}}\n"),
            5 => format!("band {n1}.{n2} = {a}..={b} | {c} | {n2}\n"),
            6 => format!("bind {n1}, sub @{a} = {n2} => {n1}\nbind {b} => {n2}\nsentinel {n1} = {n2}\n"),
            7 => format!("bitmask {n1} : {n2} = [{a}, {b}, {c}]\n"),
            8 => format!("aperture {n1} {{\n    {n2} = {a} + {b}\n    q = {b} ..= {c}\n}}\n"),
            9 => format!("geometry {n2} : [{p1}?; {n1}]\nderived d{n2} : {p2} = {a} * {n2} + {b} / {c}\n"),
            10 => format!("rule {n2}(x, {n2}) = x << {a} >> {b} requires x < {c}, {n2} == x\n"),
            11 => format!("union {n1} : {a} {{\n    {n2} {p1} when byte {b} & {c} == {a}\n    v {p2} otherwise\n    w [{p1}; {b}] @archs(new)\n}}\n"),
            12 => format!("enum {n1} {{ {n2} PE ACT {n2} }}\nrecord {n2} : {a} {{\n    discriminant {b} OPCODE\n    engines {n1}\n    0 header HEADER\n}}\n"),
            13 => format!("arm {n1} : R({n2}) {{\n    {a} {n2} {p1}  @archs(old)\n    {a} {n2} {p2}  @archs(new..)\n    {b} r unknown[{c}]\n}}\n"),
            14 => format!("arm {n1} : R() {{\n    0 opcode {p1}\n    {a} {n2} {p2}\n    {b} r reserved[{c}]\n}}\n"),
            15 => format!("bits {n1} : {p1} {{\n    {a}..{b} {n2} bool\n    {b}..{c} k {p2}\n}}\n"),
            16 => format!("@status(maintained)\nenum {n1} : {p1} {{\n    {n2} = {a} => {n1} @engine(PE) @status(dormant)\n    Y = {b} => {n2} @archs(old)\n}}\n"),
            17 => format!("struct {n1} : {a} {{\n    {b} {n2} f32\n    {c} u unknown[{a}]\n    0 v {p1} @archs(new)\n}}\n"),
            18 => format!("enum ENGINE {{ PE ACT }}\nrecord Q : {a} {{\n    discriminant 0 {n1}\n    engines ENGINE\n    0 h {n1}\n    {b} e {p1}\n}}\n"),
            _ => format!("record {n1} : {a} {{\n    discriminant {b} {n2}\n    {c} h {p1}\n}}\n"),
        },
    );
    prop::collection::vec(item, 0..6).prop_map(|v| v.concat())
}

/// Lines of an arch file: known keys, values of every TOML type, odd numbers.
fn toml_soup() -> impl Strategy<Value = String> {
    let line = prop::sample::select(
        &[
            "name = \"a\"",
            "name = \"b\"",
            "name = 1",
            "generation = 1",
            "generation = 2",
            "generation = -1",
            "generation = 99999999999",
            "label = \"V1\"",
            "label = \"a\"",
            "aliases = [\"a\", \"b\", \"V1\"]",
            "inherits = \"a\"",
            "inherits = \"b\"",
            "inherits = \"zz\"",
            "source = [\"s\"]",
            "source = \"s\"",
            "source = []",
            "source = [1]",
            "confidence = \"medium\"",
            "confidence = \"sure\"",
            "doc = \"d\"",
            "unknown = 1",
            "[values.n]",
            "[values.t]",
            "[values.d]",
            "[values.r]",
            "[values.o]",
            "[values.zz]",
            "[values]",
            "[other]",
            "value = 1",
            "value = 0",
            "value = -1",
            "value = 9223372036854775807",
            "value = -9223372036854775808",
            "value = 0x100",
            "value = 1.5",
            "value = true",
            "value = \"?\"",
            "value = \"x\"",
            "value = [1, 2]",
            "value = [1, \"?\"]",
            "value = [[1, 2], [3]]",
            "value = []",
            "value = {a = 1}",
            "value = 1979-05-27",
            "value = [1, 2.5, true]",
            "=",
            "[",
            "\"",
        ][..],
    );
    prop::collection::vec(line, 0..30).prop_map(|v| v.join("\n"))
}

/// A schema the arch-file soup is checked against: every kind of geometry type.
const SOUP_SCHEMA: &str = "enum E : u8 {\n    P = 0\n    Q = 1\n}\n\
geometry n : u32\n\
geometry t : [i64?; E]\n\
geometry o : [[u8; 2]]?\n\
geometry b : bool?\n\
@archs(b..)\n\
geometry w : u16?\n\
derived d : u32 = n * 2 - 1 + (n >> 1) / n % 3\n\
derived e : i8? = d << 7\n\
rule r(x) = x / n requires x < d\n";

/// One edit of one file of the committed spec.
#[derive(Clone, Debug)]
enum Mutation {
    /// Delete `len` bytes at `at`.
    Delete { at: usize, len: usize },
    /// Insert a token at `at`.
    Insert { at: usize, token: String },
    /// Replace the `n`-th number with another.
    Number { n: usize, with: String },
    /// Replace the `n`-th name with the `m`-th name of the same file.
    Name { n: usize, m: usize },
    /// Duplicate line `line`.
    DupLine { line: usize },
    /// Swap lines `a` and `b`.
    SwapLines { a: usize, b: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let token = prop::sample::select(ISA_TOKENS).prop_map(str::to_string);
    let number = prop::sample::select(
        &[
            "0",
            "1",
            "3",
            "12",
            "13",
            "63",
            "64",
            "65",
            "255",
            "256",
            "0xFFFFFFFF",
            "4294967296",
            "0x10000000000000000",
            "-1",
            "1.5",
            "\"?\"",
        ][..],
    )
    .prop_map(str::to_string);
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), token).prop_map(|(at, token)| Mutation::Insert { at, token }),
        (any::<usize>(), number).prop_map(|(n, with)| Mutation::Number { n, with }),
        (any::<usize>(), any::<usize>()).prop_map(|(n, m)| Mutation::Name { n, m }),
        any::<usize>().prop_map(|line| Mutation::DupLine { line }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines { a, b }),
    ]
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Byte ranges of the words (names and numbers) of `s`.
fn words(s: &str) -> Vec<(usize, usize)> {
    runs(s, |c| c.is_ascii_alphanumeric() || c == '_')
}

/// Byte ranges of the maximal runs of characters matching `f`.
fn runs(s: &str, f: impl Fn(char) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (f(c), start) {
            (true, None) => start = Some(i),
            (false, Some(st)) => {
                out.push((st, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(st) = start {
        out.push((st, s.len()));
    }
    out
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut t = text.to_string();
    match m {
        Mutation::Delete { at, len } => {
            let a = floor_char_boundary(&t, at % (t.len() + 1));
            let b = floor_char_boundary(&t, a + len);
            t.replace_range(a..b, "");
        }
        Mutation::Insert { at, token } => {
            let a = floor_char_boundary(&t, at % (t.len() + 1));
            t.insert_str(a, &format!(" {token} "));
        }
        Mutation::Number { n, .. } | Mutation::Name { n, .. } => {
            let numeric = matches!(m, Mutation::Number { .. });
            let rs: Vec<(usize, usize)> = words(&t)
                .into_iter()
                .filter(|&(a, _)| t.as_bytes()[a].is_ascii_digit() == numeric)
                .collect();
            if !rs.is_empty() {
                let (a, b) = rs[n % rs.len()];
                let with = match m {
                    Mutation::Number { with, .. } => with.clone(),
                    Mutation::Name { m, .. } => {
                        let (c, d) = rs[m % rs.len()];
                        t[c..d].to_string()
                    }
                    _ => unreachable!("a number or a name"),
                };
                t.replace_range(a..b, &with);
            }
        }
        Mutation::DupLine { line } => {
            let mut lines: Vec<&str> = t.split('\n').collect();
            let i = line % lines.len();
            lines.insert(i, lines[i]);
            t = lines.join("\n");
        }
        Mutation::SwapLines { a, b } => {
            let mut lines: Vec<&str> = t.split('\n').collect();
            let n = lines.len();
            lines.swap(a % n, b % n);
            t = lines.join("\n");
        }
    }
    t
}

/// Apply `muts` to file `which` (modulo their number) of `files` and load them, after
/// `base` as `_base.isa` if given.
fn load_mutated(
    mut files: Vec<(String, String)>,
    which: usize,
    muts: &[Mutation],
    base: Option<&String>,
) {
    let f = which % files.len();
    for m in muts {
        files[f].1 = apply(&files[f].1, m);
    }
    trace(&format!("{} after {muts:?}", files[f].0), &files[f].1);
    if let Some(base) = base {
        files.insert(0, ("isa/_base.isa".into(), base.clone()));
    }
    load_all(&files);
}

// ---------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------

#[test]
fn arbitrary_text_as_isa() {
    in_child("arbitrary_text_as_isa", || {
        run(512, any::<String>(), |text| {
            trace("isa", &text);
            load_all(&[("isa/x.isa".into(), text)]);
        });
    });
}

#[test]
fn arbitrary_text_as_toml() {
    in_child("arbitrary_text_as_toml", || {
        run(512, any::<String>(), |text| {
            trace("toml", &text);
            load_all(&[("isa/g.isa".into(), SOUP_SCHEMA.into()), ("isa/arch/a.toml".into(), text)]);
        });
    });
}

#[test]
fn isa_token_soup() {
    in_child("isa_token_soup", || {
        let base = base_isa();
        run(1024, (isa_soup(), any::<bool>()), |(text, with_base)| {
            trace("isa soup", &text);
            let mut files = vec![("isa/x.isa".to_string(), text)];
            if with_base {
                files.insert(0, ("isa/_base.isa".into(), base.clone()));
            }
            load_all(&files);
        });
    });
}

#[test]
fn isa_item_shapes() {
    in_child("isa_item_shapes", || {
        let base = base_isa();
        run(1024, (isa_items(), any::<bool>()), |(text, with_archs)| {
            trace("isa items", &text);
            let mut files =
                vec![("isa/_base.isa".into(), base.clone()), ("isa/x.isa".into(), text)];
            if with_archs {
                files.extend(ARCHS.iter().map(|(p, t)| (p.to_string(), t.to_string())));
            }
            load_all(&files);
        });
    });
}

#[test]
fn toml_soup_against_a_schema() {
    in_child("toml_soup_against_a_schema", || {
        run(1024, (toml_soup(), toml_soup()), |(a, b)| {
            trace("toml soup a", &a);
            trace("toml soup b", &b);
            load_all(&[
                ("isa/g.isa".into(), SOUP_SCHEMA.into()),
                ("isa/arch/a.toml".into(), a),
                ("isa/arch/b.toml".into(), b),
            ]);
        });
    });
}

#[test]
fn mutated_committed_spec() {
    in_child("mutated_committed_spec", || {
        let files = spec_files();
        let n = files.len();
        run(64, (0..n, prop::collection::vec(mutation(), 1..4)), |(which, muts)| {
            load_mutated(files.clone(), which, &muts, None);
        });
    });
}

/// Every diagnostic fixture (they hold every construct of the language, the new ones
/// included), mutated, alone or after the base.
#[test]
fn mutated_fixtures() {
    in_child("mutated_fixtures", || {
        let specs = fixture_specs();
        let base = base_isa();
        let n = specs.len();
        run(
            256,
            (0..n, any::<usize>(), prop::collection::vec(mutation(), 1..4), any::<bool>()),
            |(which, file, muts, with_base)| {
                load_mutated(specs[which].clone(), file, &muts, with_base.then_some(&base));
            },
        );
    });
}

/// The fixture that loads with every construct of the round-two language (opcode
/// table with bindings and attributes, a vocabulary, a union, typed bit-fields, a
/// per-generation arm, a preamble subset, an unknown geometry), mutated: most mutants
/// still load, so this drives the emitters over unusual valid models.
#[test]
fn mutated_round_two_spec() {
    in_child("mutated_round_two_spec", || {
        let files = round_two();
        let n = files.len();
        run(256, (0..n, prop::collection::vec(mutation(), 1..3)), |(which, muts)| {
            load_mutated(files.clone(), which, &muts, None);
        });
    });
}

/// Every name of a type in the round-two fixture, where it is declared and where it is
/// used, replaced by each name the fixture declares: types that contain themselves, and
/// two declarations of one name, every one of them. Random renames reach these once in
/// thousands of cases; one (a struct renamed to the opcode enum's name) overflowed the
/// stack in 1 of 40,000.
#[test]
fn every_type_name_renamed_to_every_declared_name() {
    in_child("every_type_name_renamed_to_every_declared_name", || {
        let files = round_two();
        let mut cases = 0;
        for (which, (path, text)) in files.iter().enumerate() {
            let words = words(text);
            let word = |&(a, b): &(usize, usize)| &text[a..b];
            let declared: Vec<&str> = words
                .windows(2)
                .filter(|w| DECLARATIONS.contains(&word(&w[0])))
                .map(|w| word(&w[1]))
                .collect();
            for &(a, b) in words.iter().filter(|w| declared.contains(&word(w))) {
                for name in &declared {
                    let mut files = files.clone();
                    files[which].1.replace_range(a..b, name);
                    trace(&format!("{path}: {}..{} renamed {name}", a, b), &files[which].1);
                    load_all(&files);
                    cases += 1;
                }
            }
        }
        assert!(cases > 200, "{cases} renames");
    });
}

/// The keywords a declared name follows.
const DECLARATIONS: [&str; 7] = ["enum", "struct", "union", "bits", "group", "record", "arm"];

/// Every fixture loads or fails without a panic, unmutated, and what loads generates.
#[test]
fn every_fixture_as_it_is() {
    in_child("every_fixture_as_it_is", || {
        for files in fixture_specs() {
            trace(&files[0].0, "");
            load_all(&files);
        }
    });
}

/// The same spec text under a `.toml` path and the arch files under `.isa` paths.
#[test]
fn committed_files_under_the_wrong_extension() {
    in_child("committed_files_under_the_wrong_extension", || {
        let files: Vec<(String, String)> = spec_files()
            .into_iter()
            .map(|(p, t)| {
                let p = if let Some(s) = p.strip_suffix(".isa") {
                    format!("{s}.toml")
                } else {
                    p.replace(".toml", ".isa")
                };
                (p, t)
            })
            .collect();
        load_all(&files);
    });
}

// ---------------------------------------------------------------------------------
// Hand-picked edge cases
// ---------------------------------------------------------------------------------

const ARCH: &str = "name = \"a\"\ngeneration = 1\nlabel = \"V1\"\n";

/// Edge cases that must come back as diagnostics (or a model), never as a panic. All
/// are run; the test lists every one that panicked.
#[test]
fn edge_cases() {
    let base = base_isa();
    let isa = |t: &str| vec![("isa/x.isa".to_string(), t.to_string())];
    let on_base = |t: &str| {
        vec![("isa/_base.isa".to_string(), base.clone()), ("isa/x.isa".to_string(), t.to_string())]
    };
    let geo = |schema: &str, arch: &str| {
        vec![
            ("isa/g.isa".to_string(), schema.to_string()),
            ("isa/arch/a.toml".to_string(), arch.to_string()),
        ]
    };
    let cases: Vec<(&str, Vec<(String, String)>)> = vec![
        ("empty sources", vec![]),
        ("empty isa", isa("")),
        ("empty toml", vec![("isa/arch/a.toml".into(), String::new())]),
        ("non-spec path", vec![("isa/README.md".into(), "# x".into())]),
        ("field at u32::MAX", isa("struct A : 4 {\n    4294967295 a u16\n}\n")),
        ("field at u32::MAX in an arm", on_base("arm X : R {\n    4294967295 a u8\n}\n")),
        ("u8 field at u32::MAX", isa("struct A : 4 {\n    4294967295 a u8\n}\n")),
        ("array of u32::MAX bytes at 1", isa("struct A : 4 {\n    1 a [u8; 4294967295]\n}\n")),
        ("nested array overflowing u32", isa("struct A : 4 {\n    1 a [[u32; 65536]; 65536]\n}\n")),
        ("reserved[u32::MAX] at 1", isa("struct A : 4 {\n    1 a reserved[4294967295]\n}\n")),
        (
            "use at u32::MAX",
            isa("group G : 2 {\n    0 a u8\n    1 b u8\n}\nstruct S : 2 {\n    4294967295 use G\n}\n"),
        ),
        (
            "use in an arm at u32::MAX",
            {
                let mut f = on_base("group G : 2 {\n    0 a u8\n    1 b u8\n}\narm X : R {\n    4294967295 use G\n}\n");
                f.truncate(2);
                f
            },
        ),
        (
            "discriminant at u32::MAX",
            isa("enum E : u8 {\n    A = 0\n}\nrecord R : 4 {\n    discriminant 4294967295 E\n    0 a E\n    1 b reserved[3]\n}\n"),
        ),
        (
            "discriminant at u32::MAX with a u16 enum",
            isa("enum E : u16 {\n    A = 0\n}\nrecord R : 4 {\n    discriminant 4294967294 E\n    0 a E\n    2 b reserved[2]\n}\n"),
        ),
        ("record of u32::MAX bytes", isa("enum E : u8 {\n    A = 0\n}\nrecord R : 4294967295 {\n    discriminant 0 E\n    0 a E\n}\n")),
        ("struct of size u32::MAX + 1", isa("struct A : 4294967296 {\n    0 a u8\n}\n")),
        ("struct of size 0", isa("struct A : 0 {\n}\n")),
        ("struct containing itself", isa("struct A : 1 {\n    0 a A\n}\n")),
        ("group using itself", isa("group G : 1 {\n    0 use G\n}\n")),
        ("groups using each other", isa("group G : 1 {\n    0 use H\n}\ngroup H : 1 {\n    0 use G\n}\nstruct S : 1 {\n    0 use G\n}\n")),
        ("record as a field type", on_base("struct S : 16 {\n    0 r R\n}\n")),
        ("arm of an unknown record", isa("arm X : NOPE {\n    12 a u8\n}\n")),
        ("bits over u64, full width", isa("bits B : u64 {\n    0..64 m\n    alt a when m & 0xFFFFFFFFFFFFFFFF == 0xFFFFFFFFFFFFFFFF {\n        0..64 v\n    }\n}\n")),
        ("bits at 63..64 with a wide mask", isa("bits B : u64 {\n    63..64 m\n    alt a when m & 0xFFFFFFFFFFFFFFFF == 1 {\n    }\n}\n")),
        ("bits with lo above 64", isa("bits B : u64 {\n    100..200 m\n}\n")),
        ("bits with a u128 bound", isa("bits B : u64 {\n    0..340282366920938463463374607431768211455 m\n}\n")),
        ("bits with an unknown selector", isa("bits B : u8 {\n    alt a when nope & 1 == 1 {\n    }\n}\n")),
        ("bits over a signed type", isa("bits B : i8 {\n    0..8 m\n}\n")),
        ("enum over u64 at the maximum", isa("enum E : u64 {\n    A = 0xFFFFFFFFFFFFFFFF\n}\n")),
        ("enum value above u64", isa("enum E : u64 {\n    A = 0x10000000000000000\n}\n")),
        ("enum over bool", isa("enum E : bool {\n    A = 0\n}\n")),
        ("integer literal above u128", isa("struct A : 340282366920938463463374607431768211456 {\n}\n")),
        ("empty hex literal", isa("struct A : 0x_ {\n}\n")),
        ("band above u64", on_base("band OPCODE.x = 0..=0xFFFFFFFFFFFFFFFFFFFF\n")),
        ("band above u128", on_base("band OPCODE.x = 0..=340282366920938463463374607431768211455\n")),
        ("band including itself", on_base("band OPCODE.x = x\n")),
        ("bands including each other", on_base("band OPCODE.x = y\nband OPCODE.y = x | 1\n")),
        ("band of an unknown enum", isa("band NOPE.x = 1\n")),
        ("bitmask over u64", isa("enum E : u64 {\n    A = 0\n}\nbitmask M : E = [0]\n")),
        ("bitmask over u16", isa("enum E : u16 {\n    A = 0\n}\nbitmask M : E = [0]\n")),
        ("bitmask word above u64", on_base("bitmask M : OPCODE = [0x10000000000000000, 0, 0, 0]\n")),
        ("region at the top of u64", isa("aperture P {\n    a = 0xFFFFFFFFFFFFFFFF ..= 0xFFFFFFFFFFFFFFFF\n}\n")),
        ("region wrapping", isa("aperture P {\n    a = 0xFFFFFFFFFFFFFFFF + 2\n}\n")),
        ("region of size 0", isa("aperture P {\n    a = 0 + 0\n}\n")),
        ("region ending before it starts", isa("aperture P {\n    a = 2 ..= 1\n}\n")),
        ("bind with sub at u32::MAX", on_base("arm X : R {\n    4 r reserved[12]\n}\nbind A, sub @4294967295 = 1 => X\n")),
        ("bind with sub at an array field", on_base("arm X : R {\n    4 r [u8; 12]\n}\nbind A, sub @4 = 1 => X\n")),
        ("bind with sub value above u64", on_base("arm X : R {\n    4 k u8\n    5 r reserved[11]\n}\nbind A, sub @4 = 0x10000000000000000 => X\n")),
        ("sentinel with two bindings", on_base("arm X : R {\n    4 r reserved[12]\n}\nbind A => X\nbind B => X\nsentinel S = X\n")),
        ("dangling doc comment", isa("/// nothing follows\n")),
        ("dangling attribute", isa("@source(\"x\")\n")),
        ("CRLF line endings", on_base("arm X : R {\r\n    4 r reserved[12]\r\n}\r\nbind A => X\r\n")),
        ("unicode everywhere", isa("/// é ü 漢字\nstruct Ä : 1 {\n    0 é u8\n}\n")),
        ("tabs and unicode before an error", isa("\t/// 漢字\n\tstruct A : 2 {\n\t\t0 a u8 // ü\n}\n")),
        ("geometry array of length 0", geo("geometry t : [u32; 0]\n", ARCH)),
        ("geometry array of length above u32", geo("geometry t : [u32; 4294967296]\n", ARCH)),
        ("geometry array over a gapped enum", geo("enum E : u8 {\n    A = 1\n}\ngeometry t : [u32; E]\n", ARCH)),
        ("geometry array over an empty enum", geo("enum E : u8 {\n}\ngeometry t : [u32; E]\n", ARCH)),
        ("derived over an array", geo("geometry t : [u32; 2]?\nderived d : u32? = t + 1\n", ARCH)),
        ("derived bool", geo("derived d : bool = 1\n", ARCH)),
        ("derived literal above i128", geo("derived d : u64 = 340282366920938463463374607431768211455\n", ARCH)),
        ("derived divides by zero", geo("derived d : u32 = 1 / 0\n", ARCH)),
        ("derived remainder by zero", geo("derived d : u32 = 1 % 0\n", ARCH)),
        ("derived shifts far left", geo("derived d : u64 = 1 << 200\n", ARCH)),
        ("derived shifts by a negative amount", geo("derived d : i64 = 1 << (0 - 1)\n", ARCH)),
        ("derived shifts far right", geo("derived d : i64 = (0 - 1) >> 1000\n", ARCH)),
        ("derived overflows i128", geo("derived d : u64 = 170141183460469231731687303715884105727 * 2\n", ARCH)),
        ("derived negative into u32", geo("derived d : u32 = 0 - 1\n", ARCH)),
        ("derived i128::MIN / -1", geo("derived d : i64 = (0 - 170141183460469231731687303715884105727 - 1) / (0 - 1)\n", ARCH)),
        ("derived referring to itself", geo("derived d : u32 = d + 1\n", ARCH)),
        ("derived referring to a rule", geo("rule r(x) = x\nderived d : u32 = r + 1\n", ARCH)),
        ("rule with five parameters", geo("rule r(a, b, c, d, e) = a\n", ARCH)),
        ("rule with a duplicate parameter", geo("rule r(a, a) = a\n", ARCH)),
        ("rule parameter shadowing a value", geo("geometry n : u32?\nrule r(n) = n\n", ARCH)),
        ("rule given a value in the arch file", geo("rule r(x) = x\n", &format!("{ARCH}\n[values.r]\nvalue = 1\nsource = [\"s\"]\n"))),
        ("value: float", geo("geometry n : u32\n", &format!("{ARCH}\n[values.n]\nvalue = 1.5\nsource = [\"s\"]\n"))),
        ("value: date", geo("geometry n : u32\n", &format!("{ARCH}\n[values.n]\nvalue = 1979-05-27\nsource = [\"s\"]\n"))),
        ("value: table", geo("geometry n : u32\n", &format!("{ARCH}\n[values.n]\nvalue = {{a = 1}}\nsource = [\"s\"]\n"))),
        ("value: negative into u64", geo("geometry n : u64\n", &format!("{ARCH}\n[values.n]\nvalue = -1\nsource = [\"s\"]\n"))),
        ("value: i64::MIN into i64", geo("geometry n : i64\n", &format!("{ARCH}\n[values.n]\nvalue = -9223372036854775808\nsource = [\"s\"]\n"))),
        ("value: too deep", geo("geometry n : [u8; 2]\n", &format!("{ARCH}\n[values.n]\nvalue = [[1], [2]]\nsource = [\"s\"]\n"))),
        ("value: not deep enough", geo("geometry n : [[u8; 1]; 2]\n", &format!("{ARCH}\n[values.n]\nvalue = [1, 2]\nsource = [\"s\"]\n"))),
        ("value: unsized list", geo("geometry n : [u8]\n", &format!("{ARCH}\n[values.n]\nvalue = []\nsource = [\"s\"]\n"))),
        ("value: bool", geo("geometry n : bool\n", &format!("{ARCH}\n[values.n]\nvalue = 1\nsource = [\"s\"]\n"))),
        ("value: \"?\" for an optional table", geo("geometry n : [u8; 2]?\n", &format!("{ARCH}\n[values.n]\nvalue = \"?\"\nsource = [\"s\"]\n"))),
        ("value: derived stated as \"?\"", geo("derived d : u32? = 1\n", &format!("{ARCH}\n[values.d]\nvalue = \"?\"\nsource = [\"s\"]\n"))),
        ("value: source of the wrong type", geo("geometry n : u32\n", &format!("{ARCH}\n[values.n]\nvalue = 1\nsource = 3\n"))),
        ("value: unknown field", geo("geometry n : u32\n", &format!("{ARCH}\n[values.n]\nvalue = 1\nsource = [\"s\"]\nvalu = 2\n"))),
        ("value: not a table", geo("geometry n : u32\n", &format!("{ARCH}\nvalues = 3\n"))),
        ("arch: generation negative", geo("", "name = \"a\"\ngeneration = -1\nlabel = \"V1\"\n")),
        ("arch: generation above u32", geo("", "name = \"a\"\ngeneration = 4294967296\nlabel = \"V1\"\n")),
        ("arch: missing name", geo("", "generation = 1\nlabel = \"V1\"\n")),
        ("arch: inherits itself", geo("", "name = \"a\"\ngeneration = 1\nlabel = \"V1\"\ninherits = \"a\"\n")),
        ("arch: unknown confidence", geo("", "name = \"a\"\ngeneration = 1\nlabel = \"V1\"\nconfidence = \"x\"\n")),
        ("arch: toml syntax error at the end", geo("", "name = \"a\"\ngeneration = ")),
        ("arch: toml error in a multi-byte string", geo("", "name = \"漢字\ngeneration = 1\n")),
        (
            "archs: same generation and names",
            vec![
                ("isa/arch/a.toml".into(), "name = \"a\"\ngeneration = 1\nlabel = \"V1\"\naliases = [\"b\", \"a\", \"V1\"]\n".into()),
                ("isa/arch/b.toml".into(), "name = \"b\"\ngeneration = 1\nlabel = \"V1\"\n".into()),
            ],
        ),
        (
            "archs: inheritance chain into a cycle",
            vec![
                ("isa/g.isa".into(), "geometry n : u32\n".into()),
                ("isa/arch/a.toml".into(), "name = \"a\"\ngeneration = 1\nlabel = \"V1\"\ninherits = \"b\"\n".into()),
                ("isa/arch/b.toml".into(), "name = \"b\"\ngeneration = 2\nlabel = \"V2\"\ninherits = \"c\"\n".into()),
                ("isa/arch/c.toml".into(), "name = \"c\"\ngeneration = 3\nlabel = \"V3\"\ninherits = \"b\"\n".into()),
            ],
        ),
        ("@archs(..) with no arch files", isa("@archs(..)\nstruct A : 1 {\n    0 a u8\n}\n")),
        ("@archs with a reversed range", geo("@archs(a..a)\ngeometry n : u32?\n", ARCH)),
        ("@archs with a string", isa("@archs(\"a\")\nstruct A : 1 {\n    0 a u8\n}\n")),
        ("@source with a word", isa("@source(x)\nstruct A : 1 {\n    0 a u8\n}\n")),
        ("@confidence twice", isa("@confidence(medium)\n@confidence(x, y)\nstruct A : 1 {\n    0 a u8\n}\n")),
        ("string escapes at the end", isa("@source(\"\\\")\n")),
    ];
    let mut panicked = Vec::new();
    for (what, files) in &cases {
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| load_all(files))) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panicked.push(format!("{what}: {msg}"));
        }
    }
    assert!(
        panicked.is_empty(),
        "{} of {} edge cases panicked:\n{}",
        panicked.len(),
        cases.len(),
        panicked.join("\n")
    );
}

/// Deep nesting is bounded by the stack only if every recursive pass is; these run in a
/// child process because a stack overflow aborts.
#[test]
fn deeply_nested_parentheses() {
    in_child("deeply_nested_parentheses", || {
        let depth = 5000;
        let expr = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
        load_all(&[
            ("isa/g.isa".into(), format!("derived d : u32 = {expr}\n")),
            ("isa/arch/a.toml".into(), ARCH.into()),
        ]);
    });
}

#[test]
fn deeply_nested_array_types() {
    in_child("deeply_nested_array_types", || {
        let depth = 5000;
        let ty = format!("{}u8{}", "[".repeat(depth), "; 1]".repeat(depth));
        load_all(&[("isa/x.isa".into(), format!("struct A : 1 {{\n    0 a {ty}\n}}\n"))]);
    });
}

/// As deep as the parser takes (`MAX_NESTING`): the whole pipeline, parse to
/// generated text, on the test thread's stack.
#[test]
fn nested_to_the_limit() {
    in_child("nested_to_the_limit", || {
        let depth = codegen::MAX_NESTING;
        let expr = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
        // The struct's braces are one level.
        let ty = format!("{}u8{}", "[".repeat(depth - 1), "; 1]".repeat(depth - 1));
        load_all(&[
            ("isa/g.isa".into(), format!("derived d : u32 = {expr}\n")),
            ("isa/x.isa".into(), format!("struct A : 1 {{\n    0 a {ty}\n}}\n")),
            ("isa/arch/a.toml".into(), ARCH.into()),
        ]);
    });
}

#[test]
fn long_derived_chain() {
    in_child("long_derived_chain", || {
        let n = 2000;
        let mut schema = String::from("geometry v0 : u32\n");
        for i in 1..n {
            schema.push_str(&format!("derived v{i} : u64 = v{} + 1\n", i - 1));
        }
        load_all(&[
            ("isa/g.isa".into(), schema),
            (
                "isa/arch/a.toml".into(),
                format!("{ARCH}\n[values.v0]\nvalue = 1\nsource = [\"s\"]\n"),
            ),
        ]);
    });
}

#[test]
fn derived_cycle_with_an_arch_file() {
    in_child("derived_cycle_with_an_arch_file", || {
        load_all(&[
            ("isa/g.isa".into(), "derived a : u32 = b + 1\nderived b : u32 = a + 1\n".into()),
            ("isa/arch/a.toml".into(), ARCH.into()),
        ]);
    });
}
