//! One test per check of the spec checker: a small broken spec from
//! `tests/fixtures/errors/`, and its rendered diagnostic (message, `path:line:col`,
//! source line and caret) as an insta snapshot.
//!
//! A fixture is `NAME.isa` (loaded as `isa/NAME.isa`) or a folder `NAME/` whose `*.isa`
//! files load as `isa/FILE` and whose `arch/*.toml` files load as `isa/arch/FILE`.
//! `_base.isa` is a minimal valid record (16 bytes, a 4-byte preamble, `OPCODE` with
//! `A = 1`, `B = 2`) that the layout and binding fixtures are loaded after; `_archs/`
//! holds two generations, `old` (1) and `new` (2), for the per-generation fixtures.
//! Fixtures named `ok_*` are valid specs; every other fixture must fail to load.
//!
//! A spec has exactly one record, so a fixture that declares none (and is not loaded
//! after the base) is loaded with `_record.isa`, a one-byte record whose names no
//! fixture uses; its diagnostics are then the fixture's own.

use std::path::{Path, PathBuf};
use std::process::Command;

use codegen::{load, Failure, Model, Sources};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/errors")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The files of fixture `name` as `(spec path, text)`, sorted by path.
fn fixture_files(name: &str) -> Vec<(String, String)> {
    let root = fixtures();
    let single = root.join(format!("{name}.isa"));
    let mut out = Vec::new();
    if single.is_file() {
        out.push((format!("isa/{name}.isa"), read(&single)));
        return out;
    }
    let dir = root.join(name);
    assert!(dir.is_dir(), "no fixture '{name}' in {}", root.display());
    fn walk(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            let file = p.file_name().unwrap().to_str().unwrap().to_string();
            if p.is_dir() {
                walk(&p, &format!("{rel}{file}/"), out);
            } else {
                out.push((format!("isa/{rel}{file}"), read(&p)));
            }
        }
    }
    walk(&dir, "", &mut out);
    out.sort();
    out
}

/// Whether `.isa` text declares a record (a line that begins with `record`).
fn declares_record(text: &str) -> bool {
    text.lines().any(|l| l.starts_with("record ") || l.starts_with("record\t"))
}

/// `files` as sources, with `_record.isa` after them when none declares a record.
fn with_record(files: impl IntoIterator<Item = (String, String)>) -> Sources {
    let mut s = Sources::new();
    let mut has_record = false;
    for (path, text) in files {
        has_record |= path.ends_with(".isa") && declares_record(&text);
        s.add(path, text);
    }
    if !has_record {
        s.add("isa/_record.isa", read(&fixtures().join("_record.isa")));
    }
    s
}

/// The shared files a fixture is loaded after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    /// None.
    Nothing,
    /// `_base.isa`.
    Base,
    /// The two generations of `_archs/`.
    Archs,
}

fn sources(name: &str, after: After) -> Sources {
    let shared = match after {
        After::Nothing => Vec::new(),
        After::Base => vec![("isa/_base.isa".to_string(), read(&fixtures().join("_base.isa")))],
        After::Archs => fixture_files("_archs"),
    };
    with_record(shared.into_iter().chain(fixture_files(name)))
}

fn fail_with(name: &str, after: After) -> Failure {
    match load(sources(name, after)) {
        Ok(_) => panic!("fixture '{name}' loaded without errors"),
        Err(f) => f,
    }
}

/// The rendered diagnostics of a fixture loaded on its own.
fn render(name: &str) -> String {
    fail_with(name, After::Nothing).render()
}

/// The rendered diagnostics of a fixture loaded after `_base.isa`.
fn render_on_base(name: &str) -> String {
    fail_with(name, After::Base).render()
}

fn ok(name: &str, after: After) -> Model {
    match load(sources(name, after)) {
        Ok(m) => m,
        Err(f) => panic!("fixture '{name}' failed:\n{}", f.render()),
    }
}

/// Run `f` in a child process (this test binary, filtered to `name`) so that a stack
/// overflow or an abort fails this one test instead of killing the whole binary.
fn isolated(name: &str, f: impl FnOnce()) {
    if std::env::var("TPB_ISOLATED_TEST").as_deref() == Ok(name) {
        f();
        return;
    }
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("TPB_ISOLATED_TEST", name)
        .output()
        .expect("spawn the test binary");
    assert!(
        out.status.success(),
        "'{name}' failed or crashed in its child process ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The fixture has one problem, so exactly one diagnostic: no cascade (a field whose
/// type did not resolve is not also "not covered"; a value that failed its type check is
/// not also "missing").
fn assert_one(f: &Failure) {
    assert_eq!(f.diagnostics.len(), 1, "expected one diagnostic, got:\n{}", f.short());
}

/// Load a fixture that has one problem, assert one diagnostic, and snapshot its
/// rendering as `snapshot`.
fn one_snapshot(snapshot: &str, fixture: &str, after: After) -> Failure {
    let f = fail_with(fixture, after);
    assert_one(&f);
    insta::assert_snapshot!(snapshot, f.render());
    f
}

// ---------------------------------------------------------------------------------
// Harness self-checks
// ---------------------------------------------------------------------------------

#[test]
fn the_shared_fixtures_are_valid() {
    for base in ["_base.isa", "_record.isa"] {
        let mut s = Sources::new();
        s.add(format!("isa/{base}"), read(&fixtures().join(base)));
        if let Err(f) = load(s) {
            panic!("{base} does not load:\n{}", f.render());
        }
    }
    let m = match load(with_record(fixture_files("_archs"))) {
        Ok(m) => m,
        Err(f) => panic!("_archs does not load:\n{}", f.render()),
    };
    let names: Vec<&str> = m.archs.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["old", "new"]);
}

/// Every fixture except `ok_*` fails to load, on its own or after the base (so no
/// fixture is silently valid, and none is left unused by accident of a typo).
#[test]
fn every_error_fixture_fails() {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let stem = p.file_stem()?.to_str()?.to_string();
            (p.is_dir() || p.extension().is_some_and(|e| e == "isa")).then_some(stem)
        })
        .filter(|n| !n.starts_with('_') && !n.starts_with("ok_"))
        .collect();
    names.sort();
    // `no_record` is loaded without the fixture record (see `a_spec_without_a_record`).
    names.retain(|n| n != "no_record");
    for n in &names {
        for after in [After::Nothing, After::Base, After::Archs] {
            assert!(load(sources(n, after)).is_err(), "fixture '{n}' loads after {after:?}");
        }
    }
    assert!(names.len() >= 40, "only {} error fixtures found", names.len());
}

// ---------------------------------------------------------------------------------
// Syntax and names
// ---------------------------------------------------------------------------------

#[test]
fn syntax_error() {
    insta::assert_snapshot!("syntax_error", render("syntax"));
}

/// pest stops at the first error; recovery resumes at the next declaration, so every
/// broken declaration of a file is reported in one run, and the good ones are not.
#[test]
fn syntax_errors_of_several_declarations_at_once() {
    let f = fail_with("syntax_several", After::Nothing);
    assert_eq!(f.diagnostics.len(), 3, "{}", f.short());
    insta::assert_snapshot!("syntax_errors_of_several_declarations", render("syntax_several"));
}

/// A missing `}` is one error, not one per declaration after it, and it names the item
/// whose block is left open.
#[test]
fn an_unclosed_block_is_one_syntax_error() {
    let f = fail_with("syntax_unclosed", After::Nothing);
    assert_one(&f);
    let open = &f.diagnostics.0[0].secondary;
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(f.sources.text(open[0].0), "{");
    assert_eq!(open[0].1, "the block of struct 'A' opened here is not closed");
    insta::assert_snapshot!("an_unclosed_block", f.render());
}

/// A block left open at the end of the file is named too.
#[test]
fn an_unclosed_block_at_the_end_of_the_file() {
    one_snapshot("an_unclosed_block_at_the_end", "syntax_unclosed_at_end", After::Nothing);
}

/// A token missing after a declaration's name (`:`, an attribute's `(`) or a character
/// that is not ASCII is reported where it is, not at the declaration's keyword with the
/// good declaration before it blamed as unfinished.
#[test]
fn a_missing_token_is_reported_where_it_is_missing() {
    let f = fail_with("syntax_missing_token", After::Nothing);
    let found: Vec<(&str, &str)> = f
        .diagnostics
        .0
        .iter()
        .map(|d| (d.message.as_str(), &f.sources.file(d.span.file).text[d.span.start as usize..]))
        .map(|(m, rest)| (m, rest.lines().next().unwrap_or("")))
        .collect();
    assert_eq!(
        found,
        [
            ("expected ':', found 'TPB_INST'", "TPB_INST {"),
            // Right after `@source`, not at the next line's `struct`.
            ("expected '(', found the end of the line", ""),
            ("expected ':', found 'Ä'", "Ä : 1 {"),
        ]
    );
    assert!(f.diagnostics.0.iter().all(|d| d.secondary.is_empty()), "{}", f.render());
    insta::assert_snapshot!("a_missing_token", f.render());
}

/// A union's block left open before a record: named by its keyword and name.
#[test]
fn an_unclosed_union_block() {
    let f = fail_with("syntax_unclosed_union", After::Nothing);
    assert_one(&f);
    assert!(f.render().contains("the block of union 'U' opened here is not closed"));
    insta::assert_snapshot!("an_unclosed_union_block", f.render());
}

#[test]
fn unknown_type() {
    one_snapshot("unknown_type", "unknown_type", After::Nothing);
}

/// A member whose type does not resolve leaves its bytes' coverage unknown (no gap is
/// reported), but the overlap of two other members is still found: one mistake does not
/// hide another.
#[test]
fn an_unknown_type_does_not_hide_an_overlap() {
    let f = fail_with("unknown_type_and_overlap", After::Nothing);
    let short = f.short();
    assert_eq!(f.diagnostics.len(), 2, "{short}");
    assert!(short.contains("2:9: unknown type 'DTYPEX'"), "{short}");
    assert!(short.contains("field 'c' (4..6) overlaps 'b' (2..6)"), "{short}");
    assert!(!short.contains("not covered"), "{short}");
}

#[test]
fn unknown_attribute() {
    insta::assert_snapshot!("unknown_attribute", render("unknown_attribute"));
}

#[test]
fn unknown_confidence() {
    insta::assert_snapshot!("unknown_confidence", render("unknown_confidence"));
}

#[test]
fn unknown_arch_in_archs() {
    insta::assert_snapshot!("unknown_arch_in_archs", render("unknown_arch"));
}

#[test]
fn duplicate_name() {
    insta::assert_snapshot!("duplicate_name", render("duplicate_name"));
}

#[test]
fn rust_name_collision() {
    insta::assert_snapshot!("rust_name_collision", render("rust_name_collision"));
}

#[test]
fn duplicate_field() {
    insta::assert_snapshot!("duplicate_field", render("duplicate_field"));
}

#[test]
fn duplicate_variant_name() {
    insta::assert_snapshot!("duplicate_variant_name", render("duplicate_variant_name"));
}

#[test]
fn duplicate_variant_value() {
    insta::assert_snapshot!("duplicate_variant_value", render("duplicate_variant_value"));
}

// ---------------------------------------------------------------------------------
// Layouts
// ---------------------------------------------------------------------------------

#[test]
fn field_outside_struct() {
    insta::assert_snapshot!("field_outside_struct", render("field_outside_struct"));
}

#[test]
fn overlapping_fields() {
    insta::assert_snapshot!("overlapping_fields", render("overlapping_fields"));
}

#[test]
fn waive_permits_an_overlap() {
    let m = ok("ok_overlap_waived", After::Nothing);
    let a = &m[m.struct_named("A").expect("struct A")];
    let b = a.fields.iter().find(|f| f.name == "b").expect("field b");
    assert_eq!(b.meta.waiver.as_deref(), Some("b is the high byte of a"));
    assert_eq!((b.offset, b.size), (1, 1));
}

/// A waiver no overlap needs is an error at it (in a struct and in an operand type);
/// the one an overlap needs is not.
#[test]
fn waive_that_excuses_nothing() {
    insta::assert_snapshot!("waive_that_excuses_nothing", render("waive_unneeded"));
}

#[test]
fn waive_without_reason() {
    insta::assert_snapshot!("waive_without_reason", render("waive_without_reason"));
}

#[test]
fn waive_with_blank_reason() {
    insta::assert_snapshot!("waive_with_blank_reason", render("waive_empty_reason"));
}

#[test]
fn bytes_not_covered_gap() {
    insta::assert_snapshot!("bytes_not_covered_gap", render("gap"));
}

#[test]
fn bytes_not_covered_trailing() {
    insta::assert_snapshot!("bytes_not_covered_trailing", render("trailing_gap"));
}

/// A field past the end of the record is outside it, and leaves no gap behind it: the
/// bytes between the end and the field are not part of the layout.
#[test]
fn offset_past_the_end_is_one_error() {
    let f = fail_with("offset_past_end", After::Base);
    assert_one(&f);
    assert!(!f.render().contains("not covered"), "{}", f.render());
    insta::assert_snapshot!("offset_past_the_end", f.render());
}

#[test]
fn arm_field_inside_preamble() {
    let out = render_on_base("arm_in_preamble");
    assert!(out.contains("is inside the inherited preamble member 'header'"), "{out}");
    insta::assert_snapshot!("arm_field_inside_preamble", out);
}

#[test]
fn group_as_field_type() {
    one_snapshot("group_as_field_type", "group_as_field_type", After::Nothing);
}

#[test]
fn struct_with_use() {
    one_snapshot("struct_with_use", "struct_with_use", After::Nothing);
}

/// An error inside a group placed with `use` points at the use line and at the
/// group's own field.
#[test]
fn error_through_group_names_use_and_group() {
    let f = fail_with("error_through_group", After::Nothing);
    let d =
        f.diagnostics.0.iter().find(|d| d.message.contains("overlaps")).expect("an overlap error");
    assert_eq!(f.sources.text(d.span), "1 use G", "primary span is the use line");
    assert!(
        d.secondary.iter().any(|(s, _)| f.sources.text(*s) == "lo"),
        "a secondary label points at the group's field: {:?}",
        d.secondary
    );
    insta::assert_snapshot!("error_through_group", f.render());
}

/// The same overlap the other way round: the field overlapped came through the group,
/// and the label on the use line is joined by one on the group's field.
#[test]
fn error_through_group_first_names_the_group_field_overlapped() {
    let f = fail_with("error_through_group_first", After::Nothing);
    let d =
        f.diagnostics.0.iter().find(|d| d.message.contains("overlaps")).expect("an overlap error");
    assert_eq!(f.sources.text(d.span), "1 x u16", "primary span is the later field");
    assert!(
        d.secondary.iter().any(|(s, l)| f.sources.text(*s) == "hi" && l.contains("'hi'")),
        "a secondary label points at the group's field: {:?}",
        d.secondary
    );
    insta::assert_snapshot!("error_through_group_first", f.render());
}

// ---------------------------------------------------------------------------------
// Enums and bit-fields
// ---------------------------------------------------------------------------------

#[test]
fn enum_value_too_wide() {
    insta::assert_snapshot!("enum_value_too_wide", render("enum_value_too_wide"));
}

#[test]
fn bit_field_outside_integer() {
    insta::assert_snapshot!("bit_field_outside_integer", render("bit_field_outside"));
}

#[test]
fn overlapping_bit_fields() {
    insta::assert_snapshot!("overlapping_bit_fields", render("overlapping_bit_fields"));
}

#[test]
fn alt_field_overlaps_selector_bits() {
    let f = fail_with("alt_overlaps_selector", After::Nothing);
    // Only regnum (0..8, covering the tested bit 7) is wrong; value (0..4) is fine.
    assert_eq!(f.diagnostics.len(), 1, "{}", f.short());
    insta::assert_snapshot!("alt_field_overlaps_selector_bits", f.render());
}

// ---------------------------------------------------------------------------------
// Bindings, sentinels, bitmasks, apertures
// ---------------------------------------------------------------------------------

#[test]
fn binding_to_unknown_arm() {
    insta::assert_snapshot!("binding_to_unknown_arm", render_on_base("bind_unknown_arm"));
}

#[test]
fn binding_value_outside_opcode_width() {
    insta::assert_snapshot!(
        "binding_value_outside_opcode_width",
        render_on_base("bind_value_too_wide")
    );
}

#[test]
fn opcode_bound_twice() {
    insta::assert_snapshot!("opcode_bound_twice", render_on_base("opcode_bound_twice"));
}

#[test]
fn sub_opcode_variant_unknown() {
    insta::assert_snapshot!("sub_opcode_variant_unknown", render_on_base("sub_opcode_unknown"));
}

#[test]
fn sentinel_on_unbound_arm() {
    insta::assert_snapshot!("sentinel_on_unbound_arm", render_on_base("sentinel_unbound"));
}

#[test]
fn bitmask_wrong_word_count() {
    insta::assert_snapshot!("bitmask_wrong_word_count", render_on_base("bitmask_word_count"));
}

#[test]
fn aperture_regions_overlap() {
    insta::assert_snapshot!("aperture_regions_overlap", render("aperture_overlap"));
}

// ---------------------------------------------------------------------------------
// Geometry
// ---------------------------------------------------------------------------------

#[test]
fn geometry_unknown_key() {
    let out = render("geom_unknown_key");
    assert!(out.contains("did you mean 'num_tpb'?"), "{out}");
    insta::assert_snapshot!("geometry_unknown_key", out);
}

#[test]
fn geometry_inheritance_cycle() {
    insta::assert_snapshot!("geometry_inheritance_cycle", render("geom_inherit_cycle"));
}

#[test]
fn geometry_unknown_parent() {
    insta::assert_snapshot!("geometry_unknown_parent", render("geom_unknown_parent"));
}

#[test]
fn geometry_missing_required_value() {
    insta::assert_snapshot!("geometry_missing_required_value", render("geom_missing_value"));
}

#[test]
fn geometry_value_without_source() {
    insta::assert_snapshot!("geometry_value_without_source", render("geom_no_source"));
}

#[test]
fn geometry_value_with_blank_source() {
    insta::assert_snapshot!("geometry_value_with_blank_source", render("geom_empty_source"));
}

#[test]
fn geometry_wrong_value_type() {
    one_snapshot("geometry_wrong_value_type", "geom_wrong_type", After::Nothing);
}

#[test]
fn geometry_value_does_not_fit() {
    one_snapshot("geometry_value_does_not_fit", "geom_value_too_wide", After::Nothing);
}

#[test]
fn geometry_unknown_entry_where_not_optional() {
    one_snapshot(
        "geometry_unknown_entry_where_not_optional",
        "geom_unknown_not_optional",
        After::Nothing,
    );
}

#[test]
fn geometry_derived_disagrees_with_stated() {
    let out = render("geom_derived_disagrees");
    // 2 * 16 + 2 = 34, stated as 36: the message spells the expression and its numbers.
    assert!(out.contains("num_tpb * num_dma_per_tpb"), "{out}");
    assert!(out.contains("2 * 16"), "{out}");
    assert!(out.contains("34"), "{out}");
    assert!(out.contains("36"), "{out}");
    insta::assert_snapshot!("geometry_derived_disagrees_with_stated", out);
}

#[test]
fn geometry_derived_cycle() {
    insta::assert_snapshot!("geometry_derived_cycle", render("geom_derived_cycle"));
}

/// The same cycle with an arch file, so that the checker also computes the values: the
/// cycle is the one error, not also each value it leaves uncomputed. (It once overflowed
/// the stack; run in a child process in case it does again.)
#[test]
fn geometry_derived_cycle_with_arch() {
    isolated("geometry_derived_cycle_with_arch", || {
        let f = fail_with("geom_derived_cycle_arch", After::Nothing);
        assert_one(&f);
        assert_eq!(f.diagnostics.0[0].message, "derived 'a' depends on itself: a -> b -> a");
    });
}

#[test]
fn geometry_value_outside_archs() {
    insta::assert_snapshot!("geometry_value_outside_archs", render("geom_outside_archs"));
}

// ---------------------------------------------------------------------------------
// Several errors at once
// ---------------------------------------------------------------------------------

/// Every check runs: a file with six problems reports six diagnostics, in source
/// order although the checks run in another order (apertures last, enums first).
#[test]
fn all_errors_reported_and_sorted() {
    let f = fail_with("many_errors", After::Nothing);
    let short = f.short();
    insta::assert_snapshot!("many_errors_short", short);
    assert_eq!(f.diagnostics.len(), 6, "{short}");
    let positions: Vec<(u32, u32)> =
        f.diagnostics.0.iter().map(|d| (d.span.file.0, d.span.start)).collect();
    let mut sorted = positions.clone();
    sorted.sort();
    assert_eq!(positions, sorted, "diagnostics are sorted by position:\n{short}");
    // The rendered form carries all six and the count line.
    let rendered = f.render();
    assert_eq!(
        rendered.matches("\nerror").count() + usize::from(rendered.starts_with("error")),
        7,
        "{rendered}"
    );
    assert!(rendered.ends_with("error: the spec has 6 errors\n"), "{rendered}");
}

/// Errors of several files come back together, ordered by file then position.
#[test]
fn errors_of_several_files_sorted() {
    let f = fail_with("two_files", After::Nothing);
    let short = f.short();
    let lines: Vec<&str> = short.lines().collect();
    assert_eq!(lines.len(), 2, "{short}");
    assert!(lines[0].starts_with("isa/a.isa:1:8: "), "{short}");
    assert!(lines[1].starts_with("isa/b.isa:2:9: "), "{short}");
}

/// `short()` is one `path:line:col: message` line per diagnostic.
#[test]
fn short_form_is_path_line_col_message() {
    let f = fail_with("overlapping_fields", After::Nothing);
    assert_eq!(f.short(), "isa/overlapping_fields.isa:3:5: field 'b' (1..2) overlaps 'a' (0..2)\n");
}

// ---------------------------------------------------------------------------------
// Model-level behaviour of checks (no diagnostic expected)
// ---------------------------------------------------------------------------------

fn inline(files: &[(&str, &str)]) -> Result<Model, Failure> {
    load(with_record(files.iter().map(|(p, t)| (p.to_string(), t.to_string()))))
}

const ARCH_A: &str =
    "name = \"a\"\ngeneration = 1\nlabel = \"V1\"\n\n[values.n]\nvalue = 1\nsource = [\"x\"]\n";
const ARCH_B: &str = "name = \"b\"\ngeneration = 2\nlabel = \"V2\"\ninherits = \"a\"\n\n[values.n]\nvalue = 5\nsource = [\"y\"]\n";

/// A derived value nobody states is computed per arch: an arch that inherits and
/// overrides an input gets its own result, not its parent's.
#[test]
fn derived_values_recomputed_on_inheriting_arch() {
    let m = inline(&[
        ("isa/g.isa", "geometry n : u32\nderived d : u32 = n * 2\n"),
        ("isa/arch/a.toml", ARCH_A),
        ("isa/arch/b.toml", ARCH_B),
    ])
    .unwrap_or_else(|f| panic!("{}", f.render()));
    let d = m.geom_named("d").unwrap();
    let a = &m[m.arch_named("a").unwrap()];
    let b = &m[m.arch_named("b").unwrap()];
    assert_eq!(a.value(d).map(|v| v.value.clone()), Some(codegen::model::Value::Int(2)));
    assert_eq!(
        b.value(d).map(|v| v.value.clone()),
        Some(codegen::model::Value::Int(10)),
        "b has n = 5"
    );
}

/// A value is not inherited onto an arch outside the item's `@archs`.
#[test]
fn inherited_value_respects_archs() {
    let m = inline(&[
        // `only_a` first: its `?` ends the item, so the attribute cannot attach backwards.
        ("isa/g.isa", "@archs(a)\ngeometry only_a : u32?\ngeometry n : u32\n"),
        (
            "isa/arch/a.toml",
            "name = \"a\"\ngeneration = 1\nlabel = \"V1\"\n\n[values.n]\nvalue = 1\nsource = [\"x\"]\n\n[values.only_a]\nvalue = 7\nsource = [\"x\"]\n",
        ),
        ("isa/arch/b.toml", ARCH_B),
    ])
    .unwrap_or_else(|f| panic!("{}", f.render()));
    let g = m.geom_named("only_a").unwrap();
    assert!(m[m.arch_named("a").unwrap()].value(g).is_some());
    assert!(
        m[m.arch_named("b").unwrap()].value(g).is_none(),
        "'only_a' is @archs(a) but b carries a value for it"
    );
}

/// A group placed inside another group is flattened all the way down.
#[test]
fn nested_groups_flatten() {
    let m = inline(&[(
        "isa/g.isa",
        "group G1 : 1 {\n    0 a u8\n}\ngroup G2 : 2 {\n    0 use G1\n    1 b u8\n}\ngroup G3 : 3 {\n    0 use G2\n    2 c u8\n}\nstruct S : 3 {\n    0 use G3\n}\n",
    )])
    .unwrap_or_else(|f| panic!("{}", f.render()));
    let s = &m[m.struct_named("S").unwrap()];
    let names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
}

// ---------------------------------------------------------------------------------
// Attachment of docs and attributes, and member spans
// ---------------------------------------------------------------------------------

/// A doc comment and an attribute on the lines before an item belong to that item,
/// whatever construct ends the previous one (README: "one on the lines before a member
/// or item belongs to the next member or item").
#[test]
fn docs_and_attributes_attach_to_the_next_item() {
    let base = read(&fixtures().join("_base.isa"));
    // (what ends the previous item, spec text; the item `b` must get the doc and source)
    let cases: [(&str, String); 6] = [
        ("geometry with a plain type", "geometry a : u32\n/// Doc of b.\n@source(\"b\")\ngeometry b : u32?\n".into()),
        ("geometry with an array type", "geometry a : [u32; 2]\n/// Doc of b.\n@source(\"b\")\ngeometry b : u32?\n".into()),
        ("derived", "geometry a : u32?\nderived d : u32? = a + 1\n/// Doc of b.\n@source(\"b\")\ngeometry b : u32?\n".into()),
        ("rule", "rule r(x) = x + 1\n/// Doc of b.\n@source(\"b\")\ngeometry b : u32?\n".into()),
        ("band", format!("{base}band OPCODE.a = 1\n/// Doc of b.\n@source(\"b\")\nband OPCODE.b = 2\n")),
        (
            "use without 'as'",
            "group G : 1 {\n    0 a u8\n}\nstruct S : 2 {\n    0 use G\n    /// Doc of b.\n    @source(\"b\")\n    1 b u8\n}\n".into(),
        ),
    ];
    let mut wrong = Vec::new();
    for (what, text) in &cases {
        let m = match inline(&[("isa/x.isa", text)]) {
            Ok(m) => m,
            Err(f) => {
                wrong.push(format!("{what}: does not load:\n{}", f.render()));
                continue;
            }
        };
        let meta = if let Some(g) = m.geom_named("b") {
            m[g].meta.clone()
        } else if let Some(b) = m.bands.iter().find(|b| b.name == "b") {
            b.meta.clone()
        } else {
            let s = &m[m.struct_named("S").expect("S")];
            s.fields.iter().find(|f| f.name == "b").expect("field b").meta.clone()
        };
        if meta.docs != ["Doc of b."] || meta.sources != ["b"] {
            wrong
                .push(format!("{what}: b has docs {:?} and sources {:?}", meta.docs, meta.sources));
        }
    }
    assert!(wrong.is_empty(), "docs/attributes attached to the wrong item:\n{}", wrong.join("\n"));
}

/// The span of a `use` member is the member's text, not the whitespace after it: an
/// error at a use line renders as one line with a caret under `0 use G`.
#[test]
fn use_member_span_ends_at_the_group_name() {
    let f = match inline(&[(
        "isa/x.isa",
        "group G : 1 {\n    0 a u8\n}\nstruct S : 2 {\n    0 use G\n}\n",
    )]) {
        Ok(_) => panic!("S has an uncovered byte"),
        Err(f) => f,
    };
    let d = &f.diagnostics.0[0];
    assert_eq!(d.message, "bytes 1..2 of struct 'S' are not covered by any field");
    // The trailing gap points at the struct name.
    assert_eq!(f.sources.text(d.span), "S");
    let f = match inline(&[(
        "isa/x.isa",
        "group G : 1 {\n    0 a u8\n}\nstruct S : 2 {\n    0 b u8\n    0 use G\n}\n",
    )]) {
        Ok(_) => panic!("a overlaps b"),
        Err(f) => f,
    };
    let spans: Vec<&str> = f.diagnostics.0.iter().map(|d| f.sources.text(d.span)).collect();
    assert!(spans.contains(&"0 use G"), "primary spans: {spans:?}");
}

// ---------------------------------------------------------------------------------
// Further checks of the checker (beyond the list)
// ---------------------------------------------------------------------------------

#[test]
fn struct_contains_itself() {
    insta::assert_snapshot!("struct_contains_itself", render("struct_cycle"));
}

#[test]
fn band_includes_itself() {
    insta::assert_snapshot!("band_includes_itself", render_on_base("band_cycle"));
}

#[test]
fn doc_comment_not_followed_by_anything() {
    insta::assert_snapshot!("doc_comment_not_followed_by_anything", render("dangling_doc"));
}

#[test]
fn record_without_discriminant() {
    insta::assert_snapshot!("record_without_discriminant", render("no_discriminant"));
}

/// The runtime indexes its tables by the opcode byte: a wider discriminant is an error
/// at the spec, not a crate that does not compile.
#[test]
fn discriminant_wider_than_a_byte() {
    let f = fail_with("discriminant_wider_than_a_byte", After::Nothing);
    assert_eq!(f.diagnostics.len(), 1, "{}", f.short());
    insta::assert_snapshot!("discriminant_wider_than_a_byte", f.render());
}

/// A record that fails to lower leaves no arms: a sentinel naming one is not a second
/// error.
#[test]
fn sentinel_after_a_broken_record() {
    let f = fail_with("sentinel_after_broken_record", After::Nothing);
    assert!(f.short().contains("unknown enum 'NOPE'"), "{}", f.short());
    assert!(!f.short().contains("unknown arm"), "{}", f.short());
    assert_eq!(f.diagnostics.len(), 1, "{}", f.short());
}

#[test]
fn sub_opcode_without_field() {
    insta::assert_snapshot!("sub_opcode_without_field", render_on_base("sub_opcode_no_field"));
}

#[test]
fn integer_literal_too_large() {
    insta::assert_snapshot!("integer_literal_too_large", render("literal_too_large"));
}

#[test]
fn geometry_duplicate_name() {
    insta::assert_snapshot!("geometry_duplicate_name", render("geom_duplicate_name"));
}

#[test]
fn geometry_rule_given_a_value() {
    insta::assert_snapshot!("geometry_rule_given_a_value", render("geom_rule_in_arch"));
}

/// A file that is not UTF-8 (which no fixture file can be: they are read as text) is
/// an error at its first bad byte, with its line shown as any error's.
#[test]
fn a_file_that_is_not_utf8() {
    let mut s = Sources::new();
    s.add_bytes("isa/a.isa", b"struct S : 1 {\n    /// caf\xe9 \xff\n    0 a u8\n}\n");
    s.add("isa/_record.isa", read(&fixtures().join("_record.isa")));
    let Err(f) = load(s) else { panic!("a file that is not UTF-8 loaded") };
    assert_one(&f);
    assert_eq!(f.short(), "isa/a.isa:2:12: the file is not UTF-8 (byte 0xe9)\n");
    insta::assert_snapshot!("a_file_that_is_not_utf8", f.render());
}

#[test]
fn arch_toml_syntax_error() {
    insta::assert_snapshot!("arch_toml_syntax_error", render("geom_toml_syntax"));
}

/// A value given twice (a table appended for a key the file already has) names the key
/// and where it was first given; toml's own message says only "duplicate key".
#[test]
fn arch_toml_duplicate_key() {
    let f = fail_with("geom_toml_duplicate_key", After::Nothing);
    assert_one(&f);
    let d = &f.diagnostics.0[0];
    assert_eq!(d.message, "'n' is given twice");
    assert_eq!(d.secondary.len(), 1, "{}", f.render());
    assert_eq!(f.sources.text(d.secondary[0].0), "[values.n]");
    insta::assert_snapshot!("arch_toml_duplicate_key", f.render());
}

#[test]
fn arch_toml_unknown_field() {
    insta::assert_snapshot!("arch_toml_unknown_field", render("geom_toml_unknown_field"));
}

/// Every misfit of an arch file to its schema (unknown keys, values of the wrong type,
/// missing keys), each at its own place, not only the first that deserializing meets.
#[test]
fn arch_toml_every_misfit_of_a_file() {
    let f = fail_with("geom_toml_many_misfits", After::Nothing);
    assert_eq!(f.diagnostics.len(), 8, "{}", f.short());
    insta::assert_snapshot!("arch_toml_many_misfits", f.render());
}

#[test]
fn arch_toml_unknown_confidence() {
    insta::assert_snapshot!("arch_toml_unknown_confidence", render("geom_toml_unknown_confidence"));
}

/// A `source` that is neither a string nor an array of strings says which it takes and
/// points at the wrong element (serde's untagged enums say only that nothing matched).
#[test]
fn arch_toml_source_of_the_wrong_type() {
    insta::assert_snapshot!("arch_toml_source_type", render("geom_toml_source_type"));
}

#[test]
fn two_archs_with_one_generation() {
    insta::assert_snapshot!("two_archs_with_one_generation", render("geom_same_generation"));
}

/// `@archs(..)` means every arch; with no arch files that is none, not a dangling id.
#[test]
fn open_archs_range_without_archs_has_no_dangling_id() {
    let m = inline(&[("isa/x.isa", "@archs(..)\nstruct A : 1 {\n    0 a u8\n}\n")])
        .unwrap_or_else(|f| panic!("{}", f.render()));
    let a = &m[m.struct_named("A").unwrap()];
    let ids = a.meta.archs.clone().unwrap_or_default();
    assert!(
        ids.iter().all(|id| (id.0 as usize) < m.archs.len()),
        "@archs ids {ids:?} with {} archs",
        m.archs.len()
    );
}

#[test]
fn the_round_two_constructs_load() {
    let m = ok("ok_round2", After::Nothing);
    let arm = &m[m.arm_named("WIDE_ARM").unwrap()];
    assert_eq!(arm.layouts.len(), 2, "one layout per generation");
    assert_eq!(arm.layouts[0].rust, "WideArmOld");
    assert_eq!(arm.layouts[1].fields.iter().find(|f| f.name == "val").unwrap().size, 4);
    assert!(!m.is_complete(m.arm_named("WIDE_ARM").unwrap()));
    // Provenance is inherited from the arm; a field's own confidence wins.
    let f = arm.layouts[0].fields.iter().find(|f| f.name == "kind").unwrap();
    assert_eq!(f.meta.sources, ["arm page"]);
    let tail = arm.layouts[0].fields.iter().find(|f| f.name == "tail").unwrap();
    assert_eq!(tail.meta.confidence, codegen::model::Confidence::Inferred);
    let op = &m[m.opcode_enum()];
    let other = op.variant_named("OTHER").unwrap();
    assert_eq!(other.status, Some(codegen::model::Status::Dormant));
    assert_eq!(other.engines, [1, 2]);
    assert_eq!(op.variant_named("WIDE").unwrap().status, Some(codegen::model::Status::Maintained));
    assert_eq!(
        op.variant_named("WIDE").unwrap().meta.confidence,
        codegen::model::Confidence::Medium
    );
    let mn: Vec<&str> = m.bindings.iter().map(|b| b.mnemonic.as_str()).collect();
    assert_eq!(mn, ["wide", "other", "ext", "x"]);
    assert!(!m[m.arm_named("OWN").unwrap()].full_preamble);
    assert!(!m.archs[1].geometry_known);
    assert_eq!(m.vocabs[0].words.len(), 3);
    assert_eq!(m.unions[0].views.len(), 3);
}

/// The round-two model, construct by construct: what `lower` made of each.
#[test]
fn the_round_two_model_in_detail() {
    use codegen::model::*;
    let m = ok("ok_round2", After::Nothing);
    let (old, new) = (m.arch_named("old").unwrap(), m.arch_named("new").unwrap());
    // Generations: `new` has no geometry and so no values.
    assert!(m[old].geometry_known);
    assert!(m[new].values.iter().all(Option::is_none));
    // The per-generation arm: one layout per generation, named after it, each with the
    // inherited preamble first; `val` is T on old and the union U on new.
    let wide = &m[m.arm_named("WIDE_ARM").unwrap()];
    assert!(wide.is_per_generation() && wide.full_preamble);
    let on: Vec<(&[ArchId], &str)> =
        wide.layouts.iter().map(|l| (l.archs.as_slice(), l.rust.as_str())).collect();
    assert_eq!(on, [(&[old][..], "WideArmOld"), (&[new][..], "WideArmNew")]);
    assert_eq!(wide.layout_on(new).rust, "WideArmNew");
    for l in &wide.layouts {
        let names: Vec<(&str, bool)> =
            l.fields.iter().map(|f| (f.name.as_str(), f.inherited)).collect();
        assert_eq!(names[0], ("header", true));
        assert!(names[1..].iter().all(|(_, inherited)| !inherited), "{names:?}");
    }
    let val = |a: ArchId| &wide.layout_on(a).fields.iter().find(|f| f.name == "val").unwrap().ty;
    assert_eq!(val(old), &FieldType::Struct(m.struct_named("T").unwrap()));
    assert_eq!(val(new), &FieldType::Union(m.union_named("U").unwrap()));
    // The union: views in spec order, each of the union's size, with their selection;
    // one of its views holds unknown bytes, another not, so U itself is fully known.
    let u = &m[m.union_named("U").unwrap()];
    let views: Vec<(&str, Select)> = u.views.iter().map(|v| (v.name.as_str(), v.select)).collect();
    assert_eq!(
        views,
        [
            ("i", Select::When(ByteTest { offset: 0, mask: 0x80, value: 0x80 })),
            ("t", Select::Otherwise),
            ("f", Select::Never),
        ]
    );
    assert!(u.views.iter().all(|v| m.size_of(&v.ty) == u.size));
    assert_eq!(u.views[2].ty, FieldType::Prim(Prim::F32));
    assert!(m.has_unknown(&u.views[0].ty) && !m.has_unknown(&FieldType::Union(UnionId(0))));
    // Typed bit-fields: an enum, an unsigned integer, a flag.
    let pair = &m[m.bits_named("PAIR").unwrap()];
    let kind = m.enum_named("KIND").unwrap();
    let types: Vec<(&str, BitType)> = pair.fields.iter().map(|f| (f.name.as_str(), f.ty)).collect();
    assert_eq!(
        types,
        [("lo", BitType::Enum(kind)), ("hi", BitType::Uint), ("flag", BitType::Bool)]
    );
    // Enum values by generation.
    assert_eq!(m[kind].variant_named("Y").unwrap().meta.archs, Some(vec![new]));
    assert_eq!(m[kind].variant_named("X").unwrap().meta.archs, None);
    // The preamble subset: OWN inherits nothing and declares the discriminant itself.
    let own = &m[m.arm_named("OWN").unwrap()];
    let first = &own.layouts[0].fields[0];
    assert_eq!((first.name.as_str(), first.inherited), ("opcode", false));
    assert_eq!(first.ty, FieldType::Enum(m.opcode_enum()));
    assert!(m.is_complete(m.arm_named("OWN").unwrap()));
    // Bindings: from the table and from a `bind` with a sub-opcode, whose mnemonic is the
    // sub-opcode's name and whose byte is read as KIND; NAMED and PFX alone bind nothing.
    let sub = m.bindings.iter().find(|b| b.sub.is_some()).expect("the sub-opcode binding");
    assert_eq!((sub.opcode, sub.mnemonic.as_str()), (5, "x"));
    assert_eq!(sub.sub, Some(SubOpcode { offset: 4, value: 0, enum_id: Some(kind) }));
    assert_eq!(m[sub.arm].name, "SUB_ONE");
    assert!(!m.bindings.iter().any(|b| b.opcode == 3), "NAMED has no arm");
    let ext = m.bindings.iter().find(|b| b.opcode == 4).unwrap();
    assert_eq!(ext.meta.archs, Some(vec![new]), "a binding exists where its opcode does");
    // The vocabulary and the engines of opcodes, by index into it, in the order written.
    let engines = &m.vocabs[m.record.engines.unwrap().0 as usize];
    let words: Vec<&str> = engines.words.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(words, ["PE", "ACT", "POOL"]);
    let op = &m[m.opcode_enum()];
    assert_eq!(op.variant_named("WIDE").unwrap().engines, [0]);
    assert!(op.variant_named("PFX").unwrap().engines.is_empty());
    // A view by generation, and a group placed on one generation only.
    assert_eq!(u.views[2].meta.archs, Some(vec![new]));
    let grouped = &m[m.arm_named("GROUPED").unwrap()];
    let names = |a: ArchId| -> Vec<&str> {
        grouped
            .layout_on(a)
            .fields
            .iter()
            .filter(|f| !f.inherited)
            .map(|f| f.name.as_str())
            .collect()
    };
    assert_eq!(names(old), ["a_g0", "a_g1", "rest"]);
    assert_eq!(names(new), ["wide", "rest"]);
    assert_eq!(grouped.mnemonic, "grouped");
    // Rust names, computed once by the naming pass.
    assert_eq!((wide.rust.as_str(), wide.rust_ref.as_str()), ("WideArm", "WideArmRef"));
    assert_eq!(engines.words[1].rust, "Act");
    assert_eq!(u.views[0].rust, "i");
}

// ---------------------------------------------------------------------------------
// The opcode table: bindings, @status and @engine
// ---------------------------------------------------------------------------------

#[test]
fn status_unknown_word() {
    one_snapshot("status_unknown_word", "status_unknown_word", After::Nothing);
}

#[test]
fn engine_unknown_word() {
    one_snapshot("engine_unknown_word", "engine_unknown_word", After::Nothing);
}

/// `@status`/`@engine` on an enum that is not the opcode table, on one of its values,
/// and on a struct member: three diagnostics.
#[test]
fn opcode_attributes_outside_the_opcode_table() {
    let f = fail_with("opcode_attrs_elsewhere", After::Nothing);
    assert_eq!(f.diagnostics.len(), 3, "{}", f.short());
    insta::assert_snapshot!("opcode_attributes_outside_the_opcode_table", f.render());
}

/// `@status` twice, `@engine` without words or with a string: each reported.
#[test]
fn opcode_attributes_malformed() {
    let f = fail_with("opcode_attrs_malformed", After::Nothing);
    assert_eq!(f.diagnostics.len(), 3, "{}", f.short());
    insta::assert_snapshot!("opcode_attributes_malformed", f.render());
}

#[test]
fn record_engines_name_an_unknown_vocabulary() {
    one_snapshot(
        "record_engines_name_an_unknown_vocabulary",
        "record_engines_unknown",
        After::Nothing,
    );
}

#[test]
fn engine_without_a_vocabulary() {
    one_snapshot("engine_without_a_vocabulary", "engine_without_vocabulary", After::Nothing);
}

#[test]
fn arm_binding_on_another_enum() {
    one_snapshot("arm_binding_on_another_enum", "arm_binding_on_other_enum", After::Nothing);
}

#[test]
fn table_binding_to_unknown_arm() {
    one_snapshot("table_binding_to_unknown_arm", "table_binding_unknown_arm", After::Nothing);
}

/// `A` exists on every generation and its arm on `new` only; `B` and its arm both on
/// `new`, which is fine.
#[test]
fn binding_whose_arm_is_missing_on_a_generation() {
    let f = fail_with("binding_arm_missing_on_generation", After::Archs);
    assert_one(&f);
    assert!(f.short().contains("opcode 0x01 exists on old but its arm 'X' does not"));
    insta::assert_snapshot!("binding_whose_arm_is_missing_on_a_generation", f.render());
}

// ---------------------------------------------------------------------------------
// Layouts that differ by generation
// ---------------------------------------------------------------------------------

/// The message names the generation where the byte is missing.
#[test]
fn per_generation_byte_missing() {
    let f = fail_with("per_gen_byte_missing", After::Archs);
    assert_one(&f);
    assert!(f.diagnostics.0[0].message.ends_with("are not covered by any field on new"));
    // The fix it suggests is for that generation: on every one, the member would overlap.
    assert!(
        f.diagnostics.0[0].notes[0].contains("'4 reserved_4 reserved[2]  @archs(new)'"),
        "{}",
        f.render()
    );
    insta::assert_snapshot!("per_generation_byte_missing", f.render());
}

#[test]
fn per_generation_byte_covered_twice() {
    let f = fail_with("per_gen_byte_twice", After::Archs);
    assert_one(&f);
    assert_eq!(f.diagnostics.0[0].message, "field 'hi' (4..6) overlaps 'val' (2..6) on new");
    insta::assert_snapshot!("per_generation_byte_covered_twice", f.render());
}

#[test]
fn per_generation_duplicate_field() {
    one_snapshot("per_generation_duplicate_field", "per_gen_duplicate_field", After::Archs);
}

/// A sub-opcode byte is read as one type on every generation.
#[test]
fn sub_opcode_field_that_differs_by_generation() {
    one_snapshot(
        "sub_opcode_field_that_differs_by_generation",
        "sub_opcode_field_per_generation",
        After::Archs,
    );
}

/// A problem every generation has (a trailing gap; one field against each generation's
/// reading of its bytes) is reported once, naming no generation.
#[test]
fn per_generation_problem_on_every_generation_is_reported_once() {
    let f = fail_with("per_gen_problem_on_every_generation", After::Archs);
    assert_eq!(f.diagnostics.len(), 2, "{}", f.short());
    assert!(!f.short().contains(" on "), "{}", f.short());
    insta::assert_snapshot!("per_generation_problem_on_every_generation", f.render());
}

/// `@archs` selects per-generation members of an arm only; the members' overlap that
/// follows is not reported as well.
#[test]
fn archs_on_a_struct_member() {
    let f = fail_with("archs_on_struct_member", After::Archs);
    assert_eq!(f.diagnostics.len(), 2, "{}", f.short());
    insta::assert_snapshot!("archs_on_a_struct_member", f.render());
}

// ---------------------------------------------------------------------------------
// Unions
// ---------------------------------------------------------------------------------

#[test]
fn union_view_of_the_wrong_size() {
    one_snapshot("union_view_of_the_wrong_size", "union_view_wrong_size", After::Nothing);
}

#[test]
fn union_with_two_otherwise_views() {
    one_snapshot("union_with_two_otherwise_views", "union_two_otherwise", After::Nothing);
}

#[test]
fn union_byte_test_outside_the_union() {
    one_snapshot("union_byte_test_outside_the_union", "union_byte_test_outside", After::Nothing);
}

#[test]
fn union_test_value_outside_its_mask() {
    one_snapshot("union_test_value_outside_its_mask", "union_value_outside_mask", After::Nothing);
}

#[test]
fn union_without_views() {
    one_snapshot("union_without_views", "union_empty", After::Nothing);
}

// ---------------------------------------------------------------------------------
// Typed bit-fields, f32, unknown bytes
// ---------------------------------------------------------------------------------

#[test]
fn bit_field_of_unknown_type() {
    one_snapshot("bit_field_of_unknown_type", "bit_type_unknown", After::Nothing);
}

#[test]
fn bool_bit_field_wider_than_one_bit() {
    one_snapshot("bool_bit_field_wider_than_one_bit", "bit_bool_too_wide", After::Nothing);
}

/// A field narrower than its enum holds the values that fit; one that none fits is an
/// error.
#[test]
fn no_enum_value_fits_its_bit_field() {
    one_snapshot("no_enum_value_fits_its_bit_field", "bit_enum_no_value_fits", After::Nothing);
}

/// `f32` is a field type, never the width of an enum or a bits type.
#[test]
fn f32_as_an_enum_or_bits_width() {
    let f = fail_with("f32_enum_width", After::Nothing);
    assert_eq!(f.diagnostics.len(), 2, "{}", f.short());
    insta::assert_snapshot!("f32_as_an_enum_or_bits_width", f.render());
}

#[test]
fn unknown_bytes_of_length_zero() {
    one_snapshot("unknown_bytes_of_length_zero", "unknown_zero", After::Nothing);
}

// ---------------------------------------------------------------------------------
// Preamble subsets
// ---------------------------------------------------------------------------------

/// A misspelt member is the one error: the bytes and the discriminant it would have
/// brought are not reported missing as well.
#[test]
fn preamble_subset_with_an_unknown_member() {
    one_snapshot("preamble_subset_with_an_unknown_member", "preamble_unknown_member", After::Base);
}

#[test]
fn preamble_subset_field_inside_an_inherited_member() {
    one_snapshot(
        "preamble_subset_field_inside_an_inherited_member",
        "preamble_field_inside_inherited",
        After::Nothing,
    );
}

/// `R()` inherits no discriminant; the arm must declare it. The missing byte is that
/// error alone, not also a gap to fill with reserved bytes.
#[test]
fn preamble_subset_without_the_discriminant() {
    one_snapshot(
        "preamble_subset_without_the_discriminant",
        "preamble_no_discriminant",
        After::Base,
    );
}

#[test]
fn preamble_subset_discriminant_of_the_wrong_type() {
    one_snapshot(
        "preamble_subset_discriminant_of_the_wrong_type",
        "preamble_discriminant_wrong_type",
        After::Base,
    );
}

// ---------------------------------------------------------------------------------
// Vocabularies
// ---------------------------------------------------------------------------------

#[test]
fn vocabulary_word_given_a_value() {
    one_snapshot("vocabulary_word_given_a_value", "vocab_word_with_value", After::Nothing);
}

#[test]
fn vocabulary_as_a_field_type() {
    one_snapshot("vocabulary_as_a_field_type", "vocab_as_field_type", After::Nothing);
}

#[test]
fn vocabulary_duplicate_word() {
    one_snapshot("vocabulary_duplicate_word", "vocab_duplicate_word", After::Nothing);
}

// ---------------------------------------------------------------------------------
// Unknown geometry
// ---------------------------------------------------------------------------------

#[test]
fn unknown_geometry_with_values() {
    one_snapshot("unknown_geometry_with_values", "geom_unknown_with_values", After::Nothing);
}

#[test]
fn unknown_geometry_that_inherits() {
    one_snapshot("unknown_geometry_that_inherits", "geom_unknown_with_inherits", After::Nothing);
}

#[test]
fn arch_inheriting_an_unknown_geometry() {
    one_snapshot("arch_inheriting_an_unknown_geometry", "geom_inherits_unknown", After::Nothing);
}

/// A misspelt state is the one error: the file, which gives no values, is not also
/// missing every value.
#[test]
fn geometry_state_misspelt() {
    one_snapshot("geometry_state_misspelt", "geom_unknown_state", After::Nothing);
}

// ---------------------------------------------------------------------------------
// One record
// ---------------------------------------------------------------------------------

#[test]
fn two_records() {
    one_snapshot("two_records", "two_records", After::Nothing);
}

/// Loaded without the fixture record: the diagnostic points at the start of the first
/// `.isa` file.
#[test]
fn a_spec_without_a_record() {
    let mut s = Sources::new();
    for (p, t) in fixture_files("no_record") {
        s.add(p, t);
    }
    let Err(f) = load(s) else { panic!("a spec without a record loads") };
    assert_one(&f);
    insta::assert_snapshot!("a_spec_without_a_record", f.render());
}

// ---------------------------------------------------------------------------------
// Rust names (the naming pass)
// ---------------------------------------------------------------------------------

#[test]
fn name_collision_by_case() {
    one_snapshot("name_collision_by_case", "name_case_collision", After::Nothing);
}

/// Arm `X` has the view `XRef`, which struct `X_REF` also becomes.
#[test]
fn name_collision_of_an_arm_view() {
    one_snapshot("name_collision_of_an_arm_view", "name_arm_vs_ref", After::Base);
}

#[test]
fn name_collision_of_fields_after_snake_case() {
    one_snapshot("name_collision_of_fields_after_snake_case", "name_fields_meet", After::Nothing);
}

#[test]
fn field_named_like_a_view_method() {
    one_snapshot("field_named_like_a_view_method", "name_reserved_view_method", After::Base);
}

/// Arm `X` has one layout per generation, `XOld` and `XNew`; struct `X_NEW` is `XNew`.
#[test]
fn name_collision_of_a_per_generation_layout() {
    one_snapshot(
        "name_collision_of_a_per_generation_layout",
        "name_layout_type_collision",
        After::Archs,
    );
}

/// Opcode `LOAD` binds `LOAD_ARM` (mnemonic `load`); arm `LOAD` is unbound, so its
/// mnemonic is its own name, `load`, too.
#[test]
fn mnemonic_collision() {
    one_snapshot("mnemonic_collision", "name_mnemonic_collision", After::Nothing);
}

/// A sub-opcode binding whose mnemonic (the sub-opcode's name) an opcode has too: the
/// caret is at the sub-opcode, the name to change, not at `bind`.
#[test]
fn mnemonic_of_a_sub_opcode_collision() {
    one_snapshot(
        "mnemonic_of_a_sub_opcode_collision",
        "name_mnemonic_of_a_sub_opcode",
        After::Nothing,
    );
}

#[test]
fn geometry_getter_named_like_a_generated_one() {
    one_snapshot(
        "geometry_getter_named_like_a_generated_one",
        "name_geometry_getter_reserved",
        After::Nothing,
    );
}

/// An error on a line of a megabyte (a generated spec) shows a window of the line around
/// its caret, not the line: the caret under the token, `…` where the line goes on, the
/// location still the whole line's column.
#[test]
fn an_error_on_a_very_long_line_shows_a_window_of_it() {
    let pad = " ".repeat(1 << 20);
    let text = format!("struct A : 2 {{\n{pad}0 a u9 {pad}\n}}\n");
    let mut s = Sources::new();
    s.add("isa/long.isa", text);
    let f = load(s).expect_err("u9 is no type");
    let r = f.render();
    assert!(r.len() < 2000, "{} bytes rendered", r.len());
    assert!(r.contains(&format!("--> isa/long.isa:2:{}", (1 << 20) + 5)), "{r}");
    let lines: Vec<&str> = r.lines().collect();
    let row = lines.iter().position(|l| l.starts_with("2 | …")).expect(&r);
    // In characters: `…` is one column and three bytes.
    let caret = lines[row + 1].chars().position(|c| c == '^').unwrap();
    let under: String = lines[row].chars().skip(caret).take(2).collect();
    assert_eq!(under, "u9", "{r}");
    assert!(lines[row].ends_with('…'), "{r}");
}
