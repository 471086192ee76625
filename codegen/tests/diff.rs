//! The model diff: one pair of small specs per change kind with the asserted diff, the
//! identity diff of the committed spec, the cayman/mariana arch diff, and a round trip
//! of random single mutations of the committed spec.

use std::path::{Path, PathBuf};

use codegen::diff::{Aspect, Kind, SegKind};
use codegen::{Class, Diff, Model, Sources};

// ---------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------

/// A small spec with one of everything: two enums, a struct, a record, a group, a bits
/// type, two arms, bindings, a sentinel, a band, a bitmask, an aperture, geometry and
/// two archs (beta inherits alpha).
const BASE: &str = r#"
/// The opcode byte.
@source("test opcodes")
enum OPCODE : u8 {
    NOP    = 0x01
    ADD    = 0x02
    /// The extension prefix.
    PSEUDO = 0xDF
}

enum SUB : u8 {
    NONE = 0
    EXIT = 1
}

band OPCODE.pseudo = 0xC1..=0xDF

struct HEADER : 4 {
    0 opcode     OPCODE
    1 len        u8
    2 reserved0  reserved[2]
}

record INST : 16 {
    discriminant 0 OPCODE
    0 header HEADER
}

/// Two bytes that travel together.
group PAIR : 2 {
    0 lo  u8
    1 hi  u8
}

bits ADDR : u32 {
    24..32 marker
    alt reg when marker & 0x80 == 0x80 {
        0..8 regnum
    }
    alt imm otherwise {
        0..24 immediate
    }
}

/// Does nothing.
arm NOP : INST {
    4  a          u8
    5  b          u16
    7  reserved1  reserved[5]
    12 use PAIR
    14 reserved2  reserved[2]
}

arm ADD : INST {
    4  x          ADDR
    8  use PAIR as p
    10 reserved0  reserved[6]
}

arm EXIT : INST {
    4 subop      SUB
    5 reserved0  reserved[11]
}

bind NOP => NOP
bind ADD => ADD
bind PSEUDO, sub @4 = EXIT => EXIT

sentinel STOP = EXIT

bitmask VALID : OPCODE = [0x6, 0x0, 0x0, 0x80000000]

aperture WINDOW {
    w0 = 0x0 + 0x100
    w1 = 0x1000 + 0x100
}

/// Cores per device.
geometry num_tpb : u32
geometry extra : u32?
derived twice : u32 = num_tpb * 2
@archs(beta)
geometry beta_only : [u32?; 2]
rule half(i) = i / 2 requires i < num_tpb
"#;

const ALPHA: &str = r#"
name = "alpha"
generation = 1
label = "V1"
aliases = ["v1"]
source = ["test"]

[values.num_tpb]
value = 2
source = ["alpha num_tpb"]
"#;

const BETA: &str = r#"
name = "beta"
generation = 2
label = "V2"
aliases = ["v2"]
inherits = "alpha"
source = ["test"]

[values.extra]
value = 9
source = ["beta extra"]

[values.beta_only]
value = [1, "?"]
source = ["beta table"]
"#;

/// An edit of the base spec: in the file whose path contains `.0` (`x`, `alpha`, `beta`),
/// replace the one occurrence of `.1` with `.2`.
type Edit<'a> = (&'a str, &'a str, &'a str);

/// The base spec with `edits` applied, plus `extra` files.
fn spec_files(edits: &[Edit<'_>], extra: &[(&str, &str)]) -> Model {
    let mut files = vec![
        ("isa/x.isa".to_string(), BASE.to_string()),
        ("isa/arch/alpha.toml".to_string(), ALPHA.to_string()),
        ("isa/arch/beta.toml".to_string(), BETA.to_string()),
    ];
    for (which, from, to) in edits {
        let f = files.iter_mut().find(|(p, _)| p.contains(which)).expect("a file of the base spec");
        assert_eq!(f.1.matches(from).count(), 1, "{from:?} must occur once in {}", f.0);
        f.1 = f.1.replacen(from, to, 1);
    }
    files.extend(extra.iter().map(|(p, t)| (p.to_string(), t.to_string())));
    let mut s = Sources::new();
    for (p, t) in files {
        s.add(p, t);
    }
    codegen::load(s).unwrap_or_else(|f| panic!("the edited spec does not check:\n{}", f.render()))
}

fn spec(edits: &[Edit<'_>]) -> Model {
    spec_files(edits, &[])
}

/// One line per change: `class kind path aspect: old -> new (note) [reaches]`.
fn summary(d: &Diff) -> Vec<String> {
    d.changes
        .iter()
        .map(|c| {
            let class = format!("{:?}", c.class).to_lowercase();
            let kind = format!("{:?}", c.kind).to_lowercase();
            let mut s = format!("{class} {kind} {}", c.path_text());
            if let Some(a) = c.aspect {
                s.push(' ');
                s.push_str(a.as_str());
            }
            match (&c.old, &c.new) {
                (Some(o), Some(n)) => s.push_str(&format!(
                    ": {} -> {}",
                    o.text.replace('\n', "|"),
                    n.text.replace('\n', "|")
                )),
                (Some(o), None) => s.push_str(&format!(": -{}", o.text)),
                (None, Some(n)) => s.push_str(&format!(": +{}", n.text)),
                (None, None) => {}
            }
            if let Some(n) = &c.note {
                s.push_str(&format!(" ({n})"));
            }
            if !c.reaches.is_empty() {
                s.push_str(&format!(" [{}]", c.reaches.join(", ")));
            }
            s
        })
        .collect()
}

/// The diff of the base spec against the base spec with `edits`.
fn check(edits: &[Edit<'_>], expected: &[&str]) {
    check_pair(&[], edits, expected);
}

/// The diff of the base spec with `old` edits against the base spec with `new` edits.
fn check_pair(old: &[Edit<'_>], new: &[Edit<'_>], expected: &[&str]) {
    assert_diff(&codegen::diff(&spec(old), &spec(new)), expected);
}

fn assert_diff(d: &Diff, expected: &[&str]) {
    assert_eq!(summary(d), expected, "\n{}", d.render(false));
}

#[test]
fn base_spec_checks_and_diffs_empty() {
    assert!(codegen::diff(&spec(&[]), &spec(&[])).is_empty());
}

// ---------------------------------------------------------------------------------
// Fields
// ---------------------------------------------------------------------------------

#[test]
fn field_moved() {
    check(
        &[(
            "x",
            "4  a          u8\n    5  b          u16",
            "4  b          u16\n    6  a          u8",
        )],
        &[
            "breaking changed arm NOP / field a offset: 4 -> 6",
            "breaking changed arm NOP / field b offset: 5 -> 4",
        ],
    );
}

#[test]
fn field_resized() {
    check(
        &[(
            "x",
            "5  b          u16\n    7  reserved1  reserved[5]",
            "5  b          u32\n    9  reserved1  reserved[3]",
        )],
        &["breaking changed arm NOP / field b size: 2 -> 4 (u16 → u32)"],
    );
    // Unknown bytes that shrink are resized, as an array is, not retyped.
    check_pair(
        &[(
            "x",
            "7  reserved1  reserved[5]",
            "7  gap        unknown[2]\n    9  reserved1  reserved[3]",
        )],
        &[(
            "x",
            "7  reserved1  reserved[5]",
            "7  gap        unknown[1]\n    8  reserved1  reserved[4]",
        )],
        &["breaking changed arm NOP / field gap size: 2 -> 1 (unknown[2] → unknown[1])"],
    );
}

#[test]
fn field_retyped() {
    check(
        &[("x", "4  a          u8", "4  a          i8")],
        &["breaking changed arm NOP / field a type: u8 -> i8"],
    );
    check(
        &[("x", "4  x          ADDR", "4  x          u32")],
        &["breaking changed arm ADD / field x type: ADDR -> u32"],
    );
}

#[test]
fn field_removed_into_reserved() {
    check(
        &[("x", "4  a          u8", "4  reserved3  reserved[1]")],
        &["breaking removed arm NOP / field a: -4..5 u8 (its bytes are reserved now)"],
    );
}

#[test]
fn field_carved_out_of_reserved_bytes() {
    check(
        &[("x", "7  reserved1  reserved[5]", "7  c          u8\n    8  reserved1  reserved[4]")],
        &["additive added arm NOP / field c: +7..8 u8 (carved out of reserved bytes)"],
    );
}

#[test]
fn field_renamed() {
    check(
        &[("x", "4  a          u8", "4  alpha      u8")],
        &["metadata renamed arm NOP / field alpha: a -> alpha"],
    );
}

#[test]
fn reserved_bytes_renamed_and_regrouped() {
    check(
        &[("x", "2 reserved0  reserved[2]", "2 pad        reserved[2]")],
        &["metadata renamed struct HEADER / field pad: reserved0 -> pad [ADD, EXIT, NOP]"],
    );
    check(
        &[("x", "7  reserved1  reserved[5]", "7  reserved1  reserved[2]\n    9  reserved3  reserved[3]")],
        &["metadata added arm NOP / field reserved3: +9..12 reserved[3] (the bytes were reserved already)"],
    );
}

#[test]
fn struct_renamed_is_not_a_retype() {
    check(
        &[
            ("x", "struct HEADER : 4 {", "struct HDR : 4 {"),
            ("x", "0 header HEADER", "0 header HDR"),
        ],
        &["metadata renamed struct HDR: HEADER -> HDR [ADD, EXIT, NOP]"],
    );
}

/// A struct renamed in the same edit that changes it is still that struct where the same
/// fields name it on both sides: its changes, not a removal, an addition and a retype.
#[test]
fn struct_renamed_and_changed() {
    check(
        &[
            ("x", "struct HEADER : 4 {", "struct HDR : 4 {"),
            ("x", "1 len        u8", "1 size       u8"),
            ("x", "0 header HEADER", "0 header HDR"),
        ],
        &[
            "metadata renamed struct HDR: HEADER -> HDR [ADD, EXIT, NOP]",
            "metadata renamed struct HDR / field size: len -> size [ADD, EXIT, NOP]",
        ],
    );
}

/// An enum renamed in the same edit that gains a variant is that enum, as a struct is.
#[test]
fn enum_renamed_and_changed() {
    check(
        &[
            ("x", "enum SUB : u8 {", "enum SUBOP : u8 {"),
            ("x", "    EXIT = 1\n}", "    EXIT = 1\n    MORE = 2\n}"),
            ("x", "4 subop      SUB", "4 subop      SUBOP"),
        ],
        &[
            "additive added enum SUBOP / variant MORE: +2 [EXIT]",
            "metadata renamed enum SUBOP: SUB -> SUBOP [EXIT]",
        ],
    );
}

/// A new enum of another width in the place of a removed one is not taken for it.
#[test]
fn enum_replaced_by_another_width_is_removed_and_added() {
    let d = codegen::diff(
        &spec(&[]),
        &spec(&[
            ("x", "enum SUB : u8 {", "enum WIDE : u16 {"),
            (
                "x",
                "4 subop      SUB\n    5 reserved0  reserved[11]",
                "4 subop      WIDE\n    6 reserved0  reserved[10]",
            ),
        ]),
    );
    let kinds: Vec<(Kind, &str)> =
        d.changes.iter().map(|c| (c.kind, c.path[0].name.as_str())).collect();
    assert!(kinds.contains(&(Kind::Removed, "SUB")), "\n{}", d.render(false));
    assert!(kinds.contains(&(Kind::Added, "WIDE")), "\n{}", d.render(false));
}

// ---------------------------------------------------------------------------------
// Records and preamble
// ---------------------------------------------------------------------------------

#[test]
fn record_size_changed() {
    check(
        &[
            ("x", "record INST : 16", "record INST : 32"),
            ("x", "14 reserved2  reserved[2]", "14 reserved2  reserved[18]"),
            ("x", "10 reserved0  reserved[6]", "10 reserved0  reserved[22]"),
            ("x", "5 reserved0  reserved[11]", "5 reserved0  reserved[27]"),
        ],
        &["breaking changed record INST size: 16 -> 32"],
    );
}

#[test]
fn preamble_retyped() {
    check(
        &[("x", "0 header HEADER", "0 header HEADER2\n}\nstruct HEADER2 : 4 {\n    0 opcode OPCODE\n    1 flags u8\n    2 len u16")],
        &[
            "breaking changed record INST / field header type: HEADER -> HEADER2",
            "additive added struct HEADER2: +size 4, 3 fields",
        ],
    );
}

#[test]
fn struct_field_changed_reaches_every_arm_through_the_preamble() {
    check(
        &[("x", "1 len        u8", "1 len        i8")],
        &["breaking changed struct HEADER / field len type: u8 -> i8 [ADD, EXIT, NOP]"],
    );
}

// ---------------------------------------------------------------------------------
// Groups
// ---------------------------------------------------------------------------------

#[test]
fn group_change_is_reported_once_with_the_arms_it_reaches() {
    check(
        &[("x", "1 hi  u8", "1 hi  i8")],
        &["breaking changed group PAIR / field hi type: u8 -> i8 [ADD, NOP]"],
    );
    check(
        &[("x", "/// Two bytes that travel together.", "/// Two bytes that always travel together.")],
        &["metadata changed group PAIR docs: Two bytes that travel together. -> Two bytes that always travel together. [ADD, NOP]"],
    );
}

#[test]
fn group_use_moved() {
    check(
        &[(
            "x",
            "12 use PAIR\n    14 reserved2  reserved[2]",
            "12 reserved2  reserved[2]\n    14 use PAIR",
        )],
        &["breaking changed arm NOP / use PAIR offset: 12 -> 14"],
    );
}

#[test]
fn group_use_prefix_changed() {
    check(
        &[("x", "8  use PAIR as p", "8  use PAIR as q")],
        &["metadata changed arm ADD / use PAIR as q prefix: p -> q (renames the group's fields; no byte moves)"],
    );
}

#[test]
fn group_use_written_inline_keeps_the_bytes() {
    check(
        &[("x", "8  use PAIR as p", "8  p_lo u8\n    9  p_hi u8")],
        &[
            "metadata changed arm ADD / field p_hi placement: use PAIR as p -> inline",
            "metadata changed arm ADD / field p_lo placement: use PAIR as p -> inline",
        ],
    );
}

// ---------------------------------------------------------------------------------
// Arms
// ---------------------------------------------------------------------------------

#[test]
fn arm_added() {
    check(
        &[(
            "x",
            "bind NOP => NOP",
            "arm NEW : INST {\n    4 reserved0 reserved[12]\n}\nbind NOP => NOP",
        )],
        &["additive added arm NEW: +1 field, unbound"],
    );
}

#[test]
fn arm_removed() {
    check(
        &[("x", "arm ADD : INST {\n    4  x          ADDR\n    8  use PAIR as p\n    10 reserved0  reserved[6]\n}", ""), ("x", "bind ADD => ADD", "")],
        &["breaking removed arm ADD: -4 fields, bound to ADD", "breaking removed bind ADD: -0x02 => ADD"],
    );
}

#[test]
fn arm_renamed() {
    check(
        &[("x", "arm ADD : INST", "arm PLUS : INST"), ("x", "bind ADD => ADD", "bind ADD => PLUS")],
        &["metadata renamed arm PLUS: ADD -> PLUS"],
    );
}

/// An arm renamed in the same edit that changes its layout is still that arm (the same
/// opcodes select it): its changes, not a removal, an addition and a re-pointed binding.
#[test]
fn arm_renamed_and_changed() {
    check(
        &[
            ("x", "arm ADD : INST", "arm PLUS : INST"),
            ("x", "bind ADD => ADD", "bind ADD => PLUS"),
            ("x", "10 reserved0  reserved[6]", "10 c          u8\n    11 reserved0  reserved[5]"),
        ],
        &[
            "additive added arm PLUS / field c: +10..11 u8 (carved out of reserved bytes)",
            "metadata renamed arm PLUS: ADD -> PLUS",
        ],
    );
}

// ---------------------------------------------------------------------------------
// Enums and opcodes
// ---------------------------------------------------------------------------------

#[test]
fn opcode_added() {
    check(
        &[("x", "ADD    = 0x02", "ADD    = 0x02\n    MUL    = 0x33")],
        &["additive added enum OPCODE / variant MUL: +0x33"],
    );
}

#[test]
fn enum_value_removed() {
    check(&[("x", "NONE = 0\n", "")], &["breaking removed enum SUB / variant NONE: -0 [EXIT]"]);
}

/// One line: the bindings and sentinels that follow the opcode are not reported again.
#[test]
fn opcode_value_changed_moves_its_binding() {
    check(
        &[("x", "NOP    = 0x01", "NOP    = 0x05")],
        &["breaking changed enum OPCODE / variant NOP value: 0x01 -> 0x05 (bound to NOP)"],
    );
    check(
        &[("x", "PSEUDO = 0xDF", "PSEUDO = 0xDE"), ("x", "0xC1..=0xDF", "0xC1..=0xDE")],
        &[
            "breaking changed enum OPCODE / variant PSEUDO value: 0xDF -> 0xDE (bound to EXIT)",
            "breaking changed band OPCODE.pseudo ranges: 0xC1..=0xDF -> 0xC1..=0xDE",
        ],
    );
}

/// A renumbered opcode is counted in the summary: by name nothing was added or
/// removed, by value one was each.
#[test]
fn a_renumbered_opcode_is_counted_in_the_summary() {
    let d = codegen::diff(&spec(&[]), &spec(&[("x", "NOP    = 0x01", "NOP    = 0x05")]));
    assert_eq!((d.opcode_steps(), d.opcodes_renumbered()), ((0, 0), 1));
    let title = d.render(false).lines().next().unwrap().to_owned();
    assert!(title.ends_with("; opcodes +0 -0, 1 renumbered"), "{title}");
    let json: serde_json::Value = serde_json::from_str(&d.to_json()).unwrap();
    assert_eq!(json["summary"]["opcodes"]["renumbered"], 1);
}

#[test]
fn opcode_renamed() {
    check(
        &[("x", "ADD    = 0x02", "PLUS   = 0x02"), ("x", "bind ADD => ADD", "bind PLUS => ADD")],
        &["metadata renamed enum OPCODE / variant PLUS: ADD -> PLUS"],
    );
}

/// An opcode renamed and renumbered in one edit is another opcode: one removed and one
/// added, each with its binding (`=> ADD`); the binding is not also reported as given
/// another opcode.
#[test]
fn opcode_renamed_and_renumbered() {
    check(
        &[("x", "ADD    = 0x02", "PLUS   = 0x03"), ("x", "bind ADD => ADD", "bind PLUS => ADD")],
        &[
            "breaking removed enum OPCODE / variant ADD: -0x02 => ADD",
            "additive added enum OPCODE / variant PLUS: +0x03 => ADD",
        ],
    );
}

/// A sub-opcode value renumbered is one change, at its enum, as an opcode's is: the
/// binding and the sentinel that name it follow it.
#[test]
fn sub_opcode_value_changed_moves_its_binding() {
    check(
        &[("x", "EXIT = 1", "EXIT = 2")],
        &["breaking changed enum SUB / variant EXIT value: 1 -> 2 [EXIT]"],
    );
}

#[test]
fn band_widened_and_narrowed() {
    check(
        &[("x", "0xC1..=0xDF", "0xC0..=0xDF")],
        &["additive changed band OPCODE.pseudo ranges: 0xC1..=0xDF -> 0xC0..=0xDF"],
    );
    check(
        &[("x", "0xC1..=0xDF", "0xC1..=0xDE")],
        &["breaking changed band OPCODE.pseudo ranges: 0xC1..=0xDF -> 0xC1..=0xDE"],
    );
}

// ---------------------------------------------------------------------------------
// Bindings, sentinels, validator tables, apertures
// ---------------------------------------------------------------------------------

/// A second opcode for arm NOP: a mnemonic is defined once, so an opcode left without a
/// binding may not share its name with an arm that lost its last one.
const MOV: Edit<'_> = ("x", "ADD    = 0x02", "ADD    = 0x02\n    MOV    = 0x10");

#[test]
fn binding_added() {
    check(
        &[MOV, ("x", "sentinel STOP", "bind MOV => NOP\nsentinel STOP")],
        &["additive added enum OPCODE / variant MOV: +0x10 => NOP"],
    );
    // A binding narrower than its new opcode is news of its own.
    check(
        &[MOV, ("x", "sentinel STOP", "bind MOV => NOP @archs(beta)\nsentinel STOP")],
        &[
            "additive added enum OPCODE / variant MOV: +0x10 => NOP",
            "additive added bind MOV: +0x10 => NOP (@archs(beta))",
        ],
    );
}

#[test]
fn binding_removed() {
    let bound: &[Edit<'_>] = &[MOV, ("x", "sentinel STOP", "bind MOV => NOP\nsentinel STOP")];
    check_pair(bound, &[MOV], &["breaking removed bind MOV: -0x10 => NOP"]);
}

#[test]
fn binding_re_pointed() {
    check_pair(
        &[MOV, ("x", "sentinel STOP", "bind MOV => NOP\nsentinel STOP")],
        &[MOV, ("x", "sentinel STOP", "bind MOV => ADD\nsentinel STOP")],
        &["breaking changed bind MOV arm: NOP -> ADD"],
    );
}

#[test]
fn binding_re_pointed_as_its_opcode_moves() {
    check_pair(
        &[MOV, ("x", "sentinel STOP", "bind MOV => NOP\nsentinel STOP")],
        &[
            ("x", "ADD    = 0x02", "ADD    = 0x02\n    MOV    = 0x11"),
            ("x", "sentinel STOP", "bind MOV => ADD\nsentinel STOP"),
        ],
        &[
            "breaking changed enum OPCODE / variant MOV value: 0x10 -> 0x11 (bound to ADD)",
            "breaking changed bind MOV arm: NOP -> ADD",
        ],
    );
}

/// A binding given another sub-opcode is found by its arm; the path names it by its new
/// opcode, the note by the arm it selects. The sentinel that follows the binding now
/// stands for other bytes.
#[test]
fn binding_given_another_sub_opcode() {
    check(
        &[
            ("x", "bind PSEUDO, sub @4 = EXIT => EXIT", "bind PSEUDO, sub @4 = NONE => EXIT"),
        ],
        &[
            "breaking changed bind PSEUDO, sub @4 = NONE opcode: 0xDF, sub @4 = 1 -> 0xDF, sub @4 = 0 (selects EXIT)",
            "breaking changed sentinel STOP binding: PSEUDO, sub @4 = EXIT -> PSEUDO, sub @4 = NONE",
        ],
    );
}

#[test]
fn sentinel_re_pointed() {
    check(
        &[("x", "sentinel STOP = EXIT", "sentinel STOP = NOP")],
        &["breaking changed sentinel STOP binding: PSEUDO, sub @4 = EXIT -> NOP"],
    );
}

#[test]
fn bitmask_words_changed() {
    check(
        &[("x", "[0x6, 0x0", "[0x7, 0x0")],
        &["breaking changed bitmask VALID words: [0x0000000000000006, 0x0000000000000000, 0x0000000000000000, 0x0000000080000000] -> [0x0000000000000007, 0x0000000000000000, 0x0000000000000000, 0x0000000080000000] (sets 0x00)"],
    );
    // The values are named where the enum names them, each on the side that sets it.
    check(
        &[("x", "[0x6, 0x0, 0x0, 0x80000000]", "[0x5, 0x0, 0x0, 0x8000000000000000]")],
        &["breaking changed bitmask VALID words: [0x0000000000000006, 0x0000000000000000, 0x0000000000000000, 0x0000000080000000] -> [0x0000000000000005, 0x0000000000000000, 0x0000000000000000, 0x8000000000000000] (sets 0x00, 0xFF; clears 0x01 (NOP), 0xDF (PSEUDO))"],
    );
}

#[test]
fn aperture_region_moved_and_added() {
    check(
        &[("x", "w1 = 0x1000", "w1 = 0x2000")],
        &["breaking changed aperture WINDOW / region w1 base: 0x1000 -> 0x2000"],
    );
    check(
        &[("x", "w1 = 0x1000 + 0x100", "w1 = 0x1000 + 0x100\n    w2 = 0x3000 + 0x100")],
        &["additive added aperture WINDOW / region w2: +0x3000 + 256"],
    );
}

// ---------------------------------------------------------------------------------
// Bits
// ---------------------------------------------------------------------------------

#[test]
fn bitfield_moved() {
    check(
        &[("x", "0..24 immediate", "0..20 immediate")],
        &["breaking changed bits ADDR / alt imm / bitfield immediate range: 0..24 -> 0..20 [ADD]"],
    );
}

#[test]
fn bitfield_added() {
    check(
        &[("x", "0..8 regnum", "0..8 regnum\n        8..12 bank")],
        &["additive added bits ADDR / alt reg / bitfield bank: +bits 8..12 [ADD]"],
    );
}

#[test]
fn alt_predicate_changed() {
    check(
        &[("x", "marker & 0x80 == 0x80", "marker & 0xC0 == 0x80")],
        &["breaking changed bits ADDR / alt reg predicate: marker & 0x80 == 0x80 -> marker & 0xC0 == 0x80 [ADD]"],
    );
    // Masks and tested values are bytes: hex of two digits, as the spec writes them.
    check(
        &[("x", "marker & 0x80 == 0x80", "marker & 0x0F == 0x01")],
        &["breaking changed bits ADDR / alt reg predicate: marker & 0x80 == 0x80 -> marker & 0x0F == 0x01 [ADD]"],
    );
}

/// Enum values are quoted as the spec writes them: the opcode table in hex (`0x01`, not
/// `1`), a decimal enum in decimal.
#[test]
fn enum_values_are_spelled_as_the_spec_writes_them() {
    check(
        &[("x", "ADD    = 0x02", "ADD    = 0x0A")],
        &["breaking changed enum OPCODE / variant ADD value: 0x02 -> 0x0A (bound to ADD)"],
    );
    check(
        &[("x", "EXIT = 1", "EXIT = 1\n    MORE = 12")],
        &["additive added enum SUB / variant MORE: +12 [EXIT]"],
    );
    check(
        &[("x", "0xC1..=0xDF", "0x01..=0xDF")],
        &["additive changed band OPCODE.pseudo ranges: 0xC1..=0xDF -> 0x01..=0xDF"],
    );
}

// ---------------------------------------------------------------------------------
// Geometry and archs
// ---------------------------------------------------------------------------------

#[test]
fn geometry_constant_changed_with_its_derived_values() {
    check(
        &[("alpha", "value = 2", "value = 3")],
        &[
            "breaking changed arch alpha / value num_tpb value: 2 -> 3 (sources unchanged: alpha num_tpb)",
            "breaking changed arch alpha / value twice value: 4 -> 6 (derived)",
            "breaking changed arch beta / value num_tpb value: 2 -> 3 (inherited from alpha)",
            "breaking changed arch beta / value twice value: 4 -> 6 (derived)",
        ],
    );
    // A value is quoted as its arch file writes it (hex below 0x1000 too); a computed one
    // as decimal below 0x1000.
    check(
        &[
            ("alpha", "value = 2", "value = 0x3"),
            ("beta", "value = [1, \"?\"]", "value = [0x1, \"?\"]"),
        ],
        &[
            "breaking changed arch alpha / value num_tpb value: 2 -> 0x3 (sources unchanged: alpha num_tpb)",
            "breaking changed arch alpha / value twice value: 4 -> 6 (derived)",
            "breaking changed arch beta / value num_tpb value: 2 -> 0x3 (inherited from alpha)",
            "breaking changed arch beta / value twice value: 4 -> 6 (derived)",
        ],
    );
    check(
        &[("beta", "value = [1, \"?\"]", "value = [0x1, 0x1_000] # learned")],
        &["additive changed arch beta / value beta_only value: [1, ?] -> [0x1, 0x1_000] (sources unchanged: beta table)"],
    );
    // A value whose sources changed with it: no note, the sources' own change.
    check(
        &[(
            "alpha",
            "value = 2\nsource = [\"alpha num_tpb\"]",
            "value = 3\nsource = [\"alpha v2\"]",
        )],
        &[
            "breaking changed arch alpha / value num_tpb value: 2 -> 3",
            "breaking changed arch alpha / value twice value: 4 -> 6 (derived)",
            "breaking changed arch beta / value num_tpb value: 2 -> 3 (inherited from alpha)",
            "breaking changed arch beta / value twice value: 4 -> 6 (derived)",
            "metadata changed arch alpha / value num_tpb sources: alpha num_tpb -> alpha v2",
        ],
    );
}

#[test]
fn value_given_on_the_parent_is_inherited_unless_overridden() {
    check(
        &[(
            "alpha",
            "source = [\"alpha num_tpb\"]",
            "source = [\"alpha num_tpb\"]\n\n[values.extra]\nvalue = 7\nsource = [\"x\"]",
        )],
        &["additive added arch alpha / value extra: +7"],
    );
}

#[test]
fn unknown_table_entry_learned() {
    check(
        &[("beta", "[1, \"?\"]", "[1, 5]")],
        &["additive changed arch beta / value beta_only value: [1, ?] -> [1, 5] (sources unchanged: beta table)"],
    );
    check_pair(
        &[("beta", "[1, \"?\"]", "[1, 5]")],
        &[],
        &["breaking changed arch beta / value beta_only value: [1, 5] -> [1, ?] (sources unchanged: beta table)"],
    );
}

#[test]
fn geometry_schema_changes() {
    // A derived value's expression rewritten: metadata where no generation's value
    // moves, breaking (with each moved value) where one does.
    check(
        &[("x", "num_tpb * 2", "num_tpb + num_tpb")],
        &["metadata changed geometry twice expr: num_tpb * 2 -> num_tpb + num_tpb"],
    );
    check(
        &[("x", "num_tpb * 2", "num_tpb * 3")],
        &[
            "breaking changed geometry twice expr: num_tpb * 2 -> num_tpb * 3",
            "breaking changed arch alpha / value twice value: 4 -> 6 (derived)",
            "breaking changed arch beta / value twice value: 4 -> 6 (derived)",
        ],
    );
    // Operands commuted.
    check(
        &[("x", "num_tpb * 2", "2 * num_tpb")],
        &["metadata changed geometry twice expr: num_tpb * 2 -> 2 * num_tpb"],
    );
    check(
        &[("x", "geometry extra : u32?", "geometry extra : u64?")],
        &["breaking changed geometry extra type: u32? -> u64?"],
    );
    let more: &[Edit<'_>] =
        &[("x", "geometry extra : u32?", "geometry extra : u32?\ngeometry more : u32?")];
    check(more, &["additive added geometry more: +geometry u32?"]);
    check_pair(more, &[], &["breaking removed geometry more: -geometry u32?"]);
    check(
        &[("x", "requires i < num_tpb", "requires i <= num_tpb")],
        &["breaking changed geometry half requires: i < num_tpb -> i <= num_tpb"],
    );
}

const GAMMA: &str = r#"
name = "gamma"
generation = 3
label = "V3"
inherits = "beta"
source = ["test"]
"#;

#[test]
fn arch_added_and_removed() {
    let (base, more) = (spec(&[]), spec_files(&[], &[("isa/arch/gamma.toml", GAMMA)]));
    assert_diff(&codegen::diff(&base, &more), &["additive added arch gamma: +generation 3 (V3)"]);
    assert_diff(&codegen::diff(&more, &base), &["breaking removed arch gamma: -generation 3 (V3)"]);
}

/// An arch whose geometry became unknown is one change, not one per value lost.
#[test]
fn arch_geometry_becomes_unknown_or_known() {
    let unknown = "name = \"gamma\"\ngeneration = 3\nlabel = \"V3\"\ngeometry = \"unknown\"\nsource = [\"test\"]\n";
    let known = spec_files(&[], &[("isa/arch/gamma.toml", GAMMA)]);
    let unknown = spec_files(&[], &[("isa/arch/gamma.toml", unknown)]);
    assert_diff(
        &codegen::diff(&known, &unknown),
        &[
            "breaking changed arch gamma geometry: known -> unknown",
            "metadata changed arch gamma inherits: beta -> none",
        ],
    );
    assert_diff(
        &codegen::diff(&unknown, &known),
        &[
            "additive changed arch gamma geometry: unknown -> known",
            "additive added arch gamma / value extra: +9 (inherited from beta)",
            "additive added arch gamma / value num_tpb: +2 (inherited from alpha)",
            "additive added arch gamma / value twice: +4 (derived)",
            "metadata changed arch gamma inherits: none -> beta",
        ],
    );
}

#[test]
fn arch_identity_changes() {
    check(
        &[("alpha", "aliases = [\"v1\"]", "aliases = [\"v1\", \"one\"]")],
        &["metadata changed arch alpha aliases: v1 -> v1, one"],
    );
    check(
        &[("beta", "generation = 2", "generation = 5")],
        &["breaking changed arch beta generation: 2 -> 5"],
    );
}

// ---------------------------------------------------------------------------------
// Metadata
// ---------------------------------------------------------------------------------

/// A binding's own mnemonic (`as NAME`) given, changed or taken away is one metadata
/// change at the binding; a mnemonic that follows a name is the name's rename.
#[test]
fn a_bindings_own_mnemonic() {
    let (plain, own) = ("=> EXIT\n", "=> EXIT as stop\n");
    check(
        &[("x", plain, own)],
        &["metadata changed bind PSEUDO, sub @4 = EXIT mnemonic: exit -> stop"],
    );
    check_pair(
        &[("x", plain, own)],
        &[("x", plain, "=> EXIT as halt\n")],
        &["metadata changed bind PSEUDO, sub @4 = EXIT mnemonic: stop -> halt"],
    );
    check_pair(&[("x", plain, own)], &[("x", plain, own)], &[]);
    check_pair(
        &[("x", plain, own)],
        &[],
        &["metadata changed bind PSEUDO, sub @4 = EXIT mnemonic: stop -> exit"],
    );
    // A binding added with one shows it, as the spec writes it.
    check(
        &[(
            "x",
            "bind ADD => ADD\n",
            "bind ADD => ADD\n@source(\"t\")\nbind 0x20 => NOP as nop2\n",
        )],
        &["additive added bind 0x20: +0x20 => NOP as nop2"],
    );
}

#[test]
fn docs_sources_confidence() {
    check(
        &[("x", "/// Does nothing.", "/// Does nothing at all.")],
        &["metadata changed arm NOP docs: Does nothing. -> Does nothing at all."],
    );
    // The same words wrapped otherwise are the same docs; a new paragraph is not.
    check(&[("x", "/// Does nothing.", "/// Does\n/// nothing.")], &[]);
    check(
        &[("x", "/// Does nothing.", "/// Does\n///\n/// nothing.")],
        &["metadata changed arm NOP docs: Does nothing. -> Does||nothing."],
    );
    check(
        &[("x", "@source(\"test opcodes\")", "@source(\"test opcodes v2\")")],
        &["metadata changed enum OPCODE sources: test opcodes -> test opcodes v2"],
    );
    check(
        &[("x", "4  a          u8", "4  a          u8  @confidence(inferred)")],
        &["metadata changed arm NOP / field a confidence: certain -> inferred"],
    );
    check(
        &[("alpha", "source = [\"alpha num_tpb\"]", "source = [\"alpha num_tpb v2\"]")],
        &["metadata changed arch alpha / value num_tpb sources: alpha num_tpb -> alpha num_tpb v2"],
    );
}

#[test]
fn archs_widened_is_additive_narrowed_is_breaking() {
    let narrow: &[Edit<'_>] = &[("x", "bind ADD => ADD", "bind ADD => ADD @archs(beta)")];
    let wide: &[Edit<'_>] = &[("x", "bind ADD => ADD", "bind ADD => ADD @archs(alpha..)")];
    check_pair(narrow, wide, &["additive changed bind ADD archs: beta -> alpha, beta"]);
    check_pair(&[], narrow, &["breaking changed bind ADD archs: all -> beta"]);
    // Spelling "all archs" explicitly is no change.
    check_pair(&[], wide, &[]);
    // A generation added is one change, at the arch: an open range that now reaches it
    // changes no item's availability on the generations both sides have.
    let open: &[Edit<'_>] = &[("x", "bind ADD => ADD", "bind ADD => ADD @archs(beta..)")];
    let gamma = [("isa/arch/gamma.toml", GAMMA)];
    assert_diff(
        &codegen::diff(&spec(open), &spec_files(open, &gamma)),
        &["additive added arch gamma: +generation 3 (V3)"],
    );
    assert_diff(
        &codegen::diff(&spec_files(open, &gamma), &spec(open)),
        &["breaking removed arch gamma: -generation 3 (V3)"],
    );
    // A change on a generation both have is still reported.
    assert_diff(
        &codegen::diff(
            &spec(narrow),
            &spec_files(&[("x", "bind ADD => ADD", "bind ADD => ADD @archs(alpha..)")], &gamma),
        ),
        &[
            "additive changed bind ADD archs: beta -> alpha, beta, gamma",
            "additive added arch gamma: +generation 3 (V3)",
        ],
    );
}

// ---------------------------------------------------------------------------------
// The committed spec
// ---------------------------------------------------------------------------------

/// The committed spec folder: `TPB_SPEC_DIR`, else `../isa` of this crate.
fn spec_dir() -> PathBuf {
    std::env::var_os("TPB_SPEC_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../isa"), PathBuf::from)
}

/// Every `*.isa` and `arch/*.toml` of the committed spec as `(isa/…, text)`, sorted.
fn committed() -> Vec<(String, String)> {
    let s = Sources::read_spec(&spec_dir(), "isa").expect("the spec folder reads");
    s.iter().map(|(_, f)| (f.path.clone(), f.text.clone())).collect()
}

fn load(files: &[(String, String)]) -> Result<Model, codegen::Failure> {
    let mut s = Sources::new();
    for (p, t) in files {
        s.add(p.clone(), t.clone());
    }
    codegen::load(s)
}

fn committed_model() -> Model {
    load(&committed())
        .unwrap_or_else(|f| panic!("the committed spec does not check:\n{}", f.render()))
}

#[test]
fn identity_diff_of_the_committed_spec_is_empty() {
    let d = codegen::diff(&committed_model(), &committed_model());
    assert!(d.is_empty(), "{}", d.render(false));
    assert_eq!(d.render(false), "old → new: no changes\n");
}

#[test]
fn cayman_vs_mariana_shows_exactly_what_the_spec_gives_differently() {
    let m = committed_model();
    let (c, v4) =
        (m.arch_named("cayman").expect("cayman"), m.arch_named("trn3").expect("mariana by alias"));
    let d = codegen::diff_archs(&m, c, v4);
    let geometry: Vec<String> = summary(&d)
        .into_iter()
        .filter(|l| l.split_whitespace().nth(2) == Some("geometry"))
        .collect();
    assert_eq!(
        geometry,
        [
            "breaking changed geometry hbm_active_size value: 0x600000000 -> 0x900000000",
            "breaking changed geometry npe_neighbor_eng_ids value: [[36, 68], [4, 100]] -> [[40, 72], [8, 104]]",
            "breaking changed geometry nx_core_type value: [10, 7, 9, 8, 11] -> [?, ?, ?, ?, ?]",
            "breaking changed geometry nx_core_type_block_base value: 7 -> 15",
            "breaking changed geometry pci_device_ids value: [0x7364] -> [0x7564, 0x7565]",
            "breaking changed geometry sbuf_capacity value: 0x1C00000 -> 0x2000000",
            "additive added geometry apb_se_bases: +[?, ?, ?, ?] (@archs(mariana))",
            "additive added geometry nc_map_seng_swap_pds_nd1: +[6, 7, 4, 5, 0, 1, 2, 3] (@archs(mariana))",
            "additive added geometry sdma_base: +[0x1002000000, 0x1003000000, 0x5004000000, 0x5005000000, \
             0x801002000000, 0x801003000000, 0x805004000000, 0x805005000000] (@archs(mariana))",
            "additive added geometry supports_hbm_7200: +0 (not given for cayman)",
        ],
        "\n{}",
        d.render(false)
    );
    // Every geometry value mariana.toml states differently from cayman is in the diff,
    // and the diff names nothing mariana.toml (or the @archs of the schema) does not.
    for ch in d.changes.iter().filter(|c| c.path[0].kind == SegKind::Geometry) {
        let at = ch.new_at.as_ref().or(ch.old_at.as_ref()).expect("a site");
        assert!(
            at.file.ends_with("mariana.toml") || at.file.ends_with("geometry.isa"),
            "{} is not from mariana.toml: {at}",
            ch.path_text()
        );
    }
    // An arm whose layout differs on mariana is compared field by field, bytes only.
    let lines = summary(&d);
    assert!(
        lines.iter().any(|l| l
            == "breaking changed arm S3D3_TS / field src_mem_pattern type: TENSOR3D -> MEM_PATTERN3D"),
        "{}",
        d.render(false)
    );
    assert!(lines.iter().all(|l| !l.contains(" archs:") && !l.contains(" sources:")));
    // An opcode new on mariana is added with its availability.
    assert!(lines.iter().any(|l| l
        == "additive added enum OPCODE / variant ACTIVATE2: \
         +0x25 => S2D2_AC @engine(ACT) (@archs(mariana..))"));
}

/// Opcodes per generation step, counted from the project's copy of the public-ISA opcode
/// table (`testdata/public-isa/opcodes.tsv`: a value exists on a generation unless its
/// column says `-`).
fn public_isa_steps() -> Vec<(String, String, usize, usize)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/public-isa/opcodes.tsv");
    let text = std::fs::read_to_string(&path).expect("opcodes.tsv reads");
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    let gens = ["sunda", "cayman", "mariana", "maverick"];
    let col = |g: &str| head.iter().position(|h| *h == g).expect("a generation column");
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 172, "the public ISA names 172 opcode values");
    gens.windows(2)
        .map(|w| {
            let (a, b) = (col(w[0]), col(w[1]));
            let added = rows.iter().filter(|r| r[a] == "-" && r[b] != "-").count();
            let removed = rows.iter().filter(|r| r[a] != "-" && r[b] == "-").count();
            (w[0].to_string(), w[1].to_string(), added, removed)
        })
        .collect()
}

#[test]
fn arch_diff_lists_the_opcode_steps_of_the_public_isa() {
    let m = committed_model();
    let steps = public_isa_steps();
    // The public notes' own counts: sunda→cayman +12/-7, cayman→mariana +9/-0,
    // mariana→maverick +6/-0.
    let counts: Vec<(usize, usize)> = steps.iter().map(|s| (s.2, s.3)).collect();
    assert_eq!(counts, [(12, 7), (9, 0), (6, 0)]);
    for (a, b, added, removed) in steps {
        let d = codegen::diff_archs(
            &m,
            m.arch_named(&a).expect("arch"),
            m.arch_named(&b).expect("arch"),
        );
        let opcode = |k: Kind, class: Class| {
            d.changes
                .iter()
                .filter(|c| {
                    c.kind == k
                        && c.class == class
                        && c.path.len() == 2
                        && c.path[0]
                            == codegen::diff::Segment { kind: SegKind::Enum, name: "OPCODE".into() }
                        && c.path[1].kind == SegKind::Variant
                })
                .count()
        };
        let text = d.render(false);
        assert_eq!(opcode(Kind::Added, Class::Additive), added, "{a} → {b}:\n{text}");
        assert_eq!(opcode(Kind::Removed, Class::Breaking), removed, "{a} → {b}:\n{text}");
        assert_eq!(d.opcode_steps(), (added, removed));
        let title = text.lines().next().expect("a title");
        assert!(title.ends_with(&format!("; opcodes +{added} -{removed}")), "{title}");
    }
}

#[test]
fn arch_diff_says_when_a_generation_has_no_known_geometry() {
    let m = committed_model();
    let (v4, v5) =
        (m.arch_named("mariana").expect("mariana"), m.arch_named("maverick").expect("maverick"));
    let d = codegen::diff_archs(&m, v4, v5);
    let geometry: Vec<String> = summary(&d)
        .into_iter()
        .filter(|l| l.contains(" arch ") || l.contains(" geometry "))
        .collect();
    assert_eq!(
        geometry,
        [
            "breaking removed geometry apb_se_bases: -geometry [u64?; 4] (@archs(mariana))",
            "breaking removed geometry nc_map_seng_swap_pds_nd1: -geometry [u32; 8] (@archs(mariana))",
            "breaking removed geometry sdma_base: -geometry [u64; 8] (@archs(mariana))",
            "breaking changed arch maverick geometry: known -> unknown \
             (no source gives maverick's geometry; no value is compared)",
        ],
        "\n{}",
        d.render(false)
    );
    // The other way round, the geometry becomes known: additive.
    let back = codegen::diff_archs(&m, v5, v4);
    assert!(summary(&back).iter().any(|l| l
        == "additive changed arch maverick geometry: unknown -> known \
            (no source gives maverick's geometry; no value is compared)"));
}

#[test]
fn arch_diff_of_the_small_spec() {
    let m = spec(&[]);
    let (a, b) = (m.arch_named("v1").expect("alpha"), m.arch_named("beta").expect("beta"));
    assert_diff(
        &codegen::diff_archs(&m, a, b),
        &[
            "additive added geometry beta_only: +[1, ?] (@archs(beta))",
            "additive added geometry extra: +9 (not given for alpha)",
        ],
    );
    let m = spec(&[("x", "bind ADD => ADD", "bind ADD => ADD @archs(alpha)")]);
    assert_diff(
        &codegen::diff_archs(&m, a, b),
        &[
            "breaking removed bind ADD: -0x02 => ADD (@archs(alpha))",
            "additive added geometry beta_only: +[1, ?] (@archs(beta))",
            "additive added geometry extra: +9 (not given for alpha)",
        ],
    );
}

// ---------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------

#[test]
fn text_output_is_grouped_by_class_then_item() {
    let d = codegen::diff(
        &spec(&[]),
        &spec(&[
            ("x", "4  a          u8", "4  alpha      u8"),
            ("x", "1 hi  u8", "1 hi  i8"),
            ("x", "7  reserved1  reserved[5]", "7  c          u8\n    8  reserved1  reserved[4]"),
            ("x", "/// Does nothing.", "/// Does nothing at all.\n/// Really."),
        ]),
    );
    let text = d.render(false);
    let expected = "\
old → new: 4 changes (1 breaking, 1 additive, 2 metadata)

breaking (1)
  group PAIR  (reaches ADD, NOP)
    field hi: type u8 → i8
      at isa/x.isa:32:7

additive (1)
  arm NOP
    field c: added: 7..8 u8 (carved out of reserved bytes)
      at isa/x.isa:50:8

metadata (2)
  arm NOP
    docs changed:
      - Does nothing.
      + Does nothing at all.
      + Really.
      at isa/x.isa:46:5 → isa/x.isa:47:5
    field alpha: renamed a → alpha
      at isa/x.isa:47:8 → isa/x.isa:48:8
";
    assert_eq!(text, expected, "\n{text}");
    assert!(d.render(true).contains("\x1b[1m\x1b[31mbreaking (1)\x1b[0m"));
    assert!(!text.contains('\x1b'));
}

#[test]
fn json_output_has_the_documented_fields() {
    let mut d = codegen::diff(
        &spec(&[]),
        &spec(&[
            ("x", "4  a          u8", "4  a          u8\n"),
            ("x", "NOP    = 0x01", "NOP    = 0x05"),
        ]),
    );
    d.old = "git:HEAD".into();
    d.new = "isa".into();
    let v: serde_json::Value = serde_json::from_str(&d.to_json()).expect("valid JSON");
    assert_eq!(v["format"], "tpb-isa-diff");
    assert_eq!(v["version"], 2);
    assert_eq!(v["old"], "git:HEAD");
    assert_eq!(
        v["summary"],
        serde_json::json!({
            "breaking": 1, "additive": 0, "metadata": 0,
            "opcodes": { "added": 0, "removed": 0, "renumbered": 1 },
        })
    );
    let c = &v["changes"][0];
    assert_eq!(c["class"], "breaking");
    assert_eq!(c["kind"], "changed");
    assert_eq!(
        c["path"],
        serde_json::json!([{ "kind": "enum", "name": "OPCODE" }, { "kind": "variant", "name": "NOP" }])
    );
    assert_eq!(c["path_text"], "enum OPCODE / variant NOP");
    assert_eq!(c["aspect"], "value");
    assert_eq!((c["old"].clone(), c["new"].clone()), (serde_json::json!(1), serde_json::json!(5)));
    assert_eq!(c["old_at"], serde_json::json!({ "file": "isa/x.isa", "line": 5, "col": 5 }));
    // The opcode table reaches every arm through the header: it names none.
    assert_eq!(c["reaches"], serde_json::json!([]));
    assert_eq!(c["note"], "bound to NOP");
    let keys: Vec<&str> = c.as_object().expect("an object").keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "aspect",
            "class",
            "kind",
            "new",
            "new_at",
            "note",
            "old",
            "old_at",
            "path",
            "path_text",
            "reaches"
        ]
    );
    // An added item carries the item itself, in the export vocabulary.
    let d = codegen::diff(
        &spec(&[]),
        &spec(&[(
            "x",
            "7  reserved1  reserved[5]",
            "7  c          u8\n    8  reserved1  reserved[4]",
        )]),
    );
    let v: serde_json::Value = serde_json::from_str(&d.to_json()).expect("valid JSON");
    let new = &v["changes"][0]["new"];
    assert_eq!(
        (new["name"].clone(), new["offset"].clone(), new["type"].clone()),
        ("c".into(), 7.into(), "u8".into())
    );
    assert!(v["changes"][0]["old"].is_null());
}

#[test]
fn export_is_the_checked_model_after_inheritance() {
    let m = committed_model();
    let v: serde_json::Value = serde_json::from_str(&codegen::export_json(&m)).expect("valid JSON");
    assert_eq!(v["format"], "tpb-isa-model");
    assert_eq!(v["version"], 2);
    assert_eq!(v["record"]["name"], "TPB_INST");
    assert_eq!(v["record"]["engines"], "ENGINE");
    // A bitmask word past 2^53 is given exactly as hex too (the seed's first word).
    let valid = v["bitmasks"].as_array().unwrap().iter().find(|b| b["name"] == "OPCODE_VALID");
    let valid = valid.expect("OPCODE_VALID");
    assert_eq!(valid["words"][0], 0x4000_82F0_7FBF_FFFF_u64);
    assert_eq!(valid["words_hex"][0], "0x400082f07fbfffff");
    let archs = v["archs"].as_array().expect("archs");
    let mariana = archs.iter().find(|a| a["name"] == "mariana").expect("mariana");
    assert_eq!(mariana["inherits"], "cayman");
    assert_eq!(mariana["values"]["hbm_active_size"]["value"], 0x9_0000_0000_u64);
    assert_eq!(mariana["values"]["hbm_active_size"]["defined_in"], "mariana");
    // Inherited from cayman, not written in mariana.toml.
    assert_eq!(mariana["values"]["hbm_stack_window"]["defined_in"], "cayman");
    assert_eq!(mariana["values"]["hbm_stack_window"]["value"], 0x10_0000_0000_u64);
    assert_eq!(mariana["values"]["top_dma_first"]["derived"], true);
    let arm = v["arms"]
        .as_array()
        .expect("arms")
        .iter()
        .find(|a| a["name"] == "CTRL_AL")
        .expect("CTRL_AL");
    assert_eq!(arm["full_preamble"], true);
    let layouts = arm["layouts"].as_array().expect("layouts");
    assert_eq!(layouts.len(), 1, "CTRL_AL is one layout on every generation");
    assert_eq!(layouts[0]["archs"], serde_json::json!(["sunda", "cayman", "mariana", "maverick"]));
    let fields = layouts[0]["fields"].as_array().expect("fields");
    assert_eq!(
        (fields[0]["name"].clone(), fields[0]["inherited"].clone()),
        ("header".into(), true.into())
    );
    let imm = fields.iter().find(|f| f["name"] == "immediate").expect("immediate");
    assert_eq!(
        (imm["offset"].clone(), imm["size"].clone(), imm["type"].clone()),
        (24.into(), 8.into(), "ALU_IMMEDIATE".into())
    );
    assert_eq!(imm["at"]["file"], "isa/arms/ctrl.isa");
    // A per-generation arm lists each layout with its generations.
    let ts = v["arms"]
        .as_array()
        .expect("arms")
        .iter()
        .find(|a| a["name"] == "S3D3_TS")
        .expect("S3D3_TS");
    let gens: Vec<serde_json::Value> =
        ts["layouts"].as_array().expect("layouts").iter().map(|l| l["archs"].clone()).collect();
    assert_eq!(
        gens,
        [serde_json::json!(["sunda", "cayman"]), serde_json::json!(["mariana", "maverick"])]
    );
    let maverick = archs.iter().find(|a| a["name"] == "maverick").expect("maverick");
    assert_eq!(maverick["geometry_known"], false);
    assert!(maverick["values"]
        .as_object()
        .expect("values")
        .values()
        .all(serde_json::Value::is_null));
    let unions = v["unions"].as_array().expect("unions");
    let mp = unions.iter().find(|u| u["name"] == "MEM_PATTERN3D").expect("MEM_PATTERN3D");
    assert_eq!(
        mp["views"][0]["select"],
        serde_json::json!({ "offset": 3, "mask": 0x60, "value": 0x20 })
    );
    assert_eq!(
        mp["views"].as_array().expect("views").last().expect("a view")["select"],
        "otherwise"
    );
    let op = v["enums"]
        .as_array()
        .expect("enums")
        .iter()
        .find(|e| e["name"] == "OPCODE")
        .expect("OPCODE");
    assert!(op["variants"]
        .as_array()
        .expect("variants")
        .iter()
        .any(|x| x["name"] == "JPEG_DECODE" && x["value"] == 0x81 && x["status"] == "dormant"));
    let matmul = op["variants"]
        .as_array()
        .expect("variants")
        .iter()
        .find(|x| x["name"] == "MATMUL")
        .expect("MATMUL");
    assert_eq!(
        (matmul["arm"].clone(), matmul["engines"].clone()),
        ("S3D3_MM".into(), serde_json::json!(["PE"]))
    );
    // Stable: the same model exports the same bytes.
    assert_eq!(codegen::export_json(&m), codegen::export_json(&committed_model()));
}

// ---------------------------------------------------------------------------------
// Round trip: a random single mutation of the committed spec is always reported
// ---------------------------------------------------------------------------------

/// What a mutation must show up as.
#[derive(Debug)]
enum Expect {
    /// Two fields swapped offsets: both moved (breaking).
    Moved(String, String),
    /// A field got a new offset: it moved (breaking).
    Offset(String),
    /// A field renamed (metadata).
    Renamed(String, String),
    /// An enum value's number changed (breaking).
    Value(String),
    /// A new enum value (additive).
    Added(String),
    /// A geometry value of an arch changed (breaking).
    Geometry(String, String),
    /// A doc line changed (metadata).
    Docs,
}

/// The kinds of mutation, in the order the strategy numbers them.
const KINDS: [&str; 7] = [
    "swap offsets",
    "change an offset",
    "rename a field",
    "change an enum value",
    "add a variant",
    "change a geometry value",
    "change a doc",
];

/// `(file index, line index, offset, name, type)` of every layout member line (`12 name type`).
fn member_lines(files: &[(String, String)]) -> Vec<(usize, usize, u32, String, String)> {
    let mut out = Vec::new();
    for (fi, (path, text)) in files.iter().enumerate() {
        if !path.ends_with(".isa") {
            continue;
        }
        for (li, line) in text.lines().enumerate() {
            let words: Vec<&str> = line.split_whitespace().collect();
            let [off, name, ty, ..] = words[..] else { continue };
            let Ok(off) = off.parse::<u32>() else { continue };
            let ident =
                name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if ident && name != "use" && !name.starts_with("//") {
                out.push((fi, li, off, name.to_string(), ty.to_string()));
            }
        }
    }
    out
}

fn replace_line(
    files: &[(String, String)],
    fi: usize,
    li: usize,
    new: &str,
) -> Vec<(String, String)> {
    let mut out = files.to_vec();
    let text = &files[fi].1;
    let mut lines: Vec<&str> = text.lines().collect();
    lines[li] = new;
    out[fi].1 = lines.join("\n") + if text.ends_with('\n') { "\n" } else { "" };
    out
}

/// Set the leading offset of a member line.
fn with_offset(line: &str, off: u32) -> String {
    let indent = &line[..line.len() - line.trim_start().len()];
    let rest = line.trim_start().trim_start_matches(|c: char| c.is_ascii_digit());
    format!("{indent}{off}{rest}")
}

/// Apply mutation `kind` chosen by `pick` and parameterised by `param`; `None` when the
/// spec has no site for it.
fn mutate(
    files: &[(String, String)],
    kind: usize,
    pick: u64,
    param: u64,
) -> Option<(Vec<(String, String)>, Expect)> {
    let choose = |n: usize| (pick % n as u64) as usize;
    match kind {
        0 => {
            // Two consecutive members of one layout with the same type swap offsets.
            let m = member_lines(files);
            let pairs: Vec<_> = m
                .windows(2)
                .filter(|w| {
                    w[0].0 == w[1].0
                        && w[0].4 == w[1].4
                        && !w[0].4.starts_with("reserved")
                        && w[0].2 != w[1].2
                })
                .collect();
            let w = pairs.get(choose(pairs.len().max(1)))?;
            let (a, b) = (&w[0], &w[1]);
            let text = &files[a.0].1;
            let lines: Vec<&str> = text.lines().collect();
            let f = replace_line(files, a.0, a.1, &with_offset(lines[a.1], b.2));
            let f = replace_line(&f, b.0, b.1, &with_offset(lines[b.1], a.2));
            Some((f, Expect::Moved(a.3.clone(), b.3.clone())))
        }
        1 => {
            let m = member_lines(files);
            let (fi, li, off, name, _) = m.get(choose(m.len()))?;
            let new = (param % 64) as u32;
            if new == *off {
                return None;
            }
            let line = files[*fi].1.lines().nth(*li)?;
            Some((
                replace_line(files, *fi, *li, &with_offset(line, new)),
                Expect::Offset(name.clone()),
            ))
        }
        2 => {
            let m = member_lines(files);
            let (fi, li, _, name, _) = m.get(choose(m.len()))?;
            let line = files[*fi].1.lines().nth(*li)?;
            let new_name = format!("{name}_renamed");
            let new = line.replacen(&format!(" {name} "), &format!(" {new_name} "), 1);
            Some((replace_line(files, *fi, *li, &new), Expect::Renamed(name.clone(), new_name)))
        }
        3 | 4 => {
            // Variant lines `NAME = VALUE` inside `enum ... {` blocks.
            let mut sites = Vec::new();
            for (fi, (path, text)) in files.iter().enumerate() {
                if !path.ends_with(".isa") {
                    continue;
                }
                let mut in_enum = false;
                for (li, line) in text.lines().enumerate() {
                    let t = line.trim();
                    if t.starts_with("enum ") {
                        in_enum = true;
                        if kind == 4 {
                            sites.push((fi, li, String::new()));
                        }
                    } else if t.starts_with('}') {
                        in_enum = false;
                    } else if in_enum && kind == 3 && !t.contains('@') && !t.contains("//") {
                        if let Some((name, _)) = t.split_once('=') {
                            let name = name.trim();
                            if !name.is_empty()
                                && name.chars().all(|c| {
                                    c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'
                                })
                            {
                                sites.push((fi, li, name.to_string()));
                            }
                        }
                    }
                }
            }
            let (fi, li, name) = sites.get(choose(sites.len().max(1)))?.clone();
            let line = files[fi].1.lines().nth(li)?;
            let value = param % 256;
            if kind == 3 {
                let old =
                    line.split_once('=').map(|(_, v)| v.trim().to_string()).unwrap_or_default();
                let old = old
                    .strip_prefix("0x")
                    .map_or_else(|| old.parse().ok(), |h| u64::from_str_radix(h, 16).ok());
                if old == Some(value) {
                    return None;
                }
                let indent = &line[..line.len() - line.trim_start().len()];
                let new = format!("{indent}{name} = {value:#x}");
                Some((replace_line(files, fi, li, &new), Expect::Value(name)))
            } else {
                let new = format!("{line}\n    ADDED_BY_TEST = {value:#x}");
                Some((replace_line(files, fi, li, &new), Expect::Added("ADDED_BY_TEST".into())))
            }
        }
        5 => {
            // `value = N` (a plain integer) under `[values.KEY]` of an arch file.
            let mut sites = Vec::new();
            for (fi, (path, text)) in files.iter().enumerate() {
                if !path.ends_with(".toml") {
                    continue;
                }
                let arch = text
                    .lines()
                    .find_map(|l| l.strip_prefix("name = \""))
                    .map(|s| s.trim_end_matches('"').to_string());
                let mut key = None;
                for (li, line) in text.lines().enumerate() {
                    if let Some(k) = line.strip_prefix("[values.") {
                        key = Some(k.trim_end_matches(']').to_string());
                    } else if let (Some(v), Some(k), Some(a)) =
                        (line.strip_prefix("value = "), &key, &arch)
                    {
                        let v = v.trim();
                        let n = match v.strip_prefix("0x") {
                            Some(h) => u64::from_str_radix(h, 16).ok(),
                            None => v.parse::<u64>().ok(),
                        };
                        if let Some(n) = n {
                            sites.push((fi, li, n, a.clone(), k.clone()));
                        }
                    }
                }
            }
            let (fi, li, n, arch, key) = sites.get(choose(sites.len().max(1)))?.clone();
            let new = format!("value = {:#x}", n + 1 + param % 16);
            Some((replace_line(files, fi, li, &new), Expect::Geometry(arch, key)))
        }
        6 => {
            let mut sites = Vec::new();
            for (fi, (path, text)) in files.iter().enumerate() {
                for (li, line) in text.lines().enumerate() {
                    let isa_doc = path.ends_with(".isa") && line.contains("///");
                    let toml_doc = path.ends_with(".toml")
                        && line.starts_with("doc = \"")
                        && line.ends_with('"');
                    if isa_doc || toml_doc {
                        sites.push((fi, li, toml_doc));
                    }
                }
            }
            let (fi, li, toml) = *sites.get(choose(sites.len().max(1)))?;
            let line = files[fi].1.lines().nth(li)?;
            let new = if toml {
                format!("{} (edited by the test)\"", &line[..line.len() - 1])
            } else {
                format!("{line} (edited by the test)")
            };
            Some((replace_line(files, fi, li, &new), Expect::Docs))
        }
        _ => None,
    }
}

fn ends_with_field(c: &codegen::Change, name: &str) -> bool {
    c.path.last().is_some_and(|s| s.kind == SegKind::Field && s.name == name)
}

/// Whether the diff reports the mutation with the right class.
fn reported(d: &Diff, e: &Expect) -> Result<(), String> {
    let all = |class: Class| d.changes.iter().all(|c| c.class == class);
    let any = |f: &dyn Fn(&codegen::Change) -> bool| d.changes.iter().any(f);
    let ok = match e {
        Expect::Moved(a, b) => {
            all(Class::Breaking)
                && any(&|c| ends_with_field(c, a) && c.aspect == Some(Aspect::Offset))
                && any(&|c| ends_with_field(c, b) && c.aspect == Some(Aspect::Offset))
        }
        Expect::Offset(a) => any(&|c| {
            ends_with_field(c, a) && c.aspect == Some(Aspect::Offset) && c.class == Class::Breaking
        }),
        Expect::Renamed(a, b) => {
            all(Class::Metadata)
                && any(&|c| {
                    c.kind == Kind::Renamed
                        && ends_with_field(c, b)
                        && c.old.as_ref().is_some_and(|v| v.text == *a)
                        && c.new.as_ref().is_some_and(|v| v.text == *b)
                })
        }
        Expect::Value(v) => {
            all(Class::Breaking)
                && any(&|c| {
                    c.path.last().is_some_and(|s| s.kind == SegKind::Variant && s.name == *v)
                        && c.aspect == Some(Aspect::Value)
                })
        }
        Expect::Added(v) => {
            all(Class::Additive)
                && any(&|c| {
                    c.kind == Kind::Added
                        && c.path.last().is_some_and(|s| s.kind == SegKind::Variant && s.name == *v)
                })
        }
        Expect::Geometry(arch, key) => {
            all(Class::Breaking)
                && any(&|c| {
                    c.aspect == Some(Aspect::Value)
                        && c.path.len() == 2
                        && c.path[0].kind == SegKind::Arch
                        && c.path[0].name == *arch
                        && c.path[1].name == *key
                })
        }
        Expect::Docs => all(Class::Metadata) && any(&|c| c.aspect == Some(Aspect::Docs)),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{e:?} is not reported as expected:\n{}", d.render(false)))
    }
}

/// An `@archs` list is given oldest generation first, as the spec writes it (it was
/// sorted by name: "cayman, mariana, maverick, sunda").
#[test]
fn archs_are_listed_in_generation_order() {
    let old = committed();
    let new: Vec<(String, String)> = old
        .iter()
        .map(|(p, t)| {
            let t = if p == "isa/arms/dma.isa" {
                t.replacen(
                    "@archs(cayman..)\narm DMA_DIRECT2D_XPOSE",
                    "@archs(sunda..)\narm DMA_DIRECT2D_XPOSE",
                    1,
                )
            } else {
                t.clone()
            };
            (p.clone(), t)
        })
        .collect();
    assert_ne!(old, new, "the edit applies");
    let (a, b) = (load(&old).expect("old checks"), load(&new).expect("new checks"));
    let d = codegen::diff(&a, &b);
    let text = d.render(false);
    assert!(
        text.contains("archs cayman, mariana, maverick → sunda, cayman, mariana, maverick"),
        "{text}"
    );
}

#[test]
fn a_random_single_mutation_is_reported_with_the_right_class() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestCaseError, TestRunner};

    let files = committed();
    let base = load(&files).expect("the committed spec checks");
    let checked = std::cell::RefCell::new([0usize; KINDS.len()]);
    let mut runner =
        TestRunner::new(Config { cases: 200, failure_persistence: None, ..Config::default() });
    let result =
        runner.run(&(0..KINDS.len(), any::<u64>(), any::<u64>()), |(kind, pick, param)| {
            let Some((mutant, expect)) = mutate(&files, kind, pick, param) else { return Ok(()) };
            // Mutants that do not check are skipped: the diff only sees checked models.
            let Ok(model) = load(&mutant) else { return Ok(()) };
            checked.borrow_mut()[kind] += 1;
            let d = codegen::diff(&base, &model);
            reported(&d, &expect).map_err(TestCaseError::fail)
        });
    if let Err(e) = result {
        panic!("{e}");
    }
    let checked = checked.into_inner();
    eprintln!("checked mutants per kind: {:?}", KINDS.iter().zip(checked).collect::<Vec<_>>());
    // Every mutation the issue names produced checked mutants (an offset moved by a
    // random amount rarely keeps the coverage exact, so it is not required).
    for (k, n) in KINDS.iter().zip(checked) {
        assert!(n > 0 || *k == "change an offset", "no checked mutant of kind '{k}'");
    }
}

// ---------------------------------------------------------------------------------
// The new model: an opcode table with bindings, status and engines, a vocabulary, a
// union, inherited provenance, and an arm whose layout differs by generation
// ---------------------------------------------------------------------------------

const GEN: &str = r#"
/// Which engine executes an opcode.
enum ENGINE { PE ACT }

@source("gen opcodes")
@status(maintained)
enum OPCODE : u8 {
    NOP  = 0x01 => NOP  @engine(PE)
    MUL  = 0x02 => MUL  @engine(ACT)
    OLD  = 0x03 => NOP  @engine(PE) @archs(..v2)
}

struct HEADER : 4 {
    0 opcode     OPCODE
    1 reserved0  reserved[3]
}

record INST : 16 {
    discriminant 0 OPCODE
    engines ENGINE
    0 header HEADER
}

union IMM : 4 {
    int  u32  when byte 3 & 0x80 == 0x80
    fp   f32  otherwise
}

@source("gen arms")
arm NOP : INST {
    4 imm        IMM
    8 reserved1  reserved[8]
}

arm MUL : INST {
    4 a          u8
    5 b          u8            @archs(v1)
    6 reserved1  reserved[10]  @archs(v1)
    5 b          u16           @archs(v2..)
    7 reserved1  reserved[9]   @archs(v2..)
}
"#;

fn gen_arch(name: &str, generation: u32) -> String {
    format!("name = \"{name}\"\ngeneration = {generation}\nlabel = \"G{generation}\"\nsource = [\"test\"]\n")
}

/// The GEN spec with `edits` (in `isa/g.isa`).
fn gen_spec(edits: &[(&str, &str)]) -> Model {
    let mut text = GEN.to_string();
    for (from, to) in edits {
        assert_eq!(text.matches(from).count(), 1, "{from:?} must occur once");
        text = text.replacen(from, to, 1);
    }
    let mut s = Sources::new();
    s.add("isa/g.isa", text);
    for (i, a) in ["v1", "v2", "v3"].iter().enumerate() {
        s.add(format!("isa/arch/{a}.toml"), gen_arch(a, i as u32 + 1));
    }
    codegen::load(s).unwrap_or_else(|f| panic!("the GEN spec does not check:\n{}", f.render()))
}

fn gen_check(edits: &[(&str, &str)], expected: &[&str]) {
    assert_diff(&codegen::diff(&gen_spec(&[]), &gen_spec(edits)), expected);
}

#[test]
fn gen_spec_checks_and_diffs_empty() {
    let m = gen_spec(&[]);
    assert!(m.arms[m.arm_named("MUL").expect("MUL").0 as usize].is_per_generation());
    assert!(codegen::diff(&m, &gen_spec(&[])).is_empty());
}

#[test]
fn a_field_change_on_some_generations_names_them() {
    gen_check(
        &[(
            "5 b          u16           @archs(v2..)\n    7 reserved1  reserved[9]   @archs(v2..)",
            "5 b          u16           @archs(v2)\n    7 reserved1  reserved[9]   @archs(v2..)\n    \
             5 b          i16           @archs(v3)",
        )],
        &["breaking changed arm MUL / layout v3 / field b type: u16 -> i16"],
    );
    // A change on every generation's layout is reported once, without a layout.
    gen_check(
        &[("4 a          u8", "4 alpha      u8")],
        &["metadata renamed arm MUL / field alpha: a -> alpha"],
    );
    // Both at once: the shared change once, the other under its generation.
    gen_check(
        &[
            ("4 a          u8", "4 alpha      u8"),
            (
                "5 b          u16           @archs(v2..)\n    7 reserved1  reserved[9]   @archs(v2..)",
                "5 b          u16           @archs(v2)\n    7 reserved1  reserved[9]   @archs(v2..)\n    \
                 5 b          i16           @archs(v3)",
            ),
        ],
        &[
            "breaking changed arm MUL / layout v3 / field b type: u16 -> i16",
            "metadata renamed arm MUL / field alpha: a -> alpha",
        ],
    );
    // A generation moved from one layout to the other: its fields change there only.
    gen_check(
        &[
            ("5 b          u8            @archs(v1)", "5 b          u8            @archs(..v2)"),
            ("6 reserved1  reserved[10]  @archs(v1)", "6 reserved1  reserved[10]  @archs(..v2)"),
            ("5 b          u16           @archs(v2..)", "5 b          u16           @archs(v3)"),
            ("7 reserved1  reserved[9]   @archs(v2..)", "7 reserved1  reserved[9]   @archs(v3)"),
        ],
        &["breaking changed arm MUL / layout v2 / field b size: 2 -> 1 (u16 → u8)"],
    );
}

/// One edit of a member that several generations share is one change under those
/// generations, even where one of them has other changes of its own (it was listed
/// once per generation, the groups being the generations with the same changes).
#[test]
fn a_change_shared_by_some_generations_is_listed_once() {
    gen_check(
        &[
            ("5 b          u16           @archs(v2..)", "5 c          u16           @archs(v2..)"),
            (
                "7 reserved1  reserved[9]   @archs(v2..)",
                "7 reserved1  reserved[9]   @archs(v2)\n    7 d u8 @archs(v3)\n    \
                 8 reserved1  reserved[8]   @archs(v3)",
            ),
        ],
        &[
            "additive added arm MUL / layout v3 / field d: +7..8 u8 (carved out of reserved bytes)",
            "metadata renamed arm MUL / layout v2.. / field c: b -> c",
        ],
    );
}

#[test]
fn an_arm_with_per_generation_layouts_renamed() {
    gen_check(
        &[("arm MUL : INST", "arm TIMES : INST"), ("0x02 => MUL ", "0x02 => TIMES")],
        &["metadata renamed arm TIMES: MUL -> TIMES"],
    );
}

/// An item added or removed is summed up in a line: counts in the singular where one,
/// and an arm's layouts with the generations each holds on.
#[test]
fn added_items_are_summed_up() {
    gen_check(
        &[
            ("MUL  = 0x02 => MUL  @engine(ACT)", "MUL  = 0x02 => MUL  @engine(ACT)\n    DIV  = 0x04 => DIV  @engine(ACT)"),
            (
                "arm MUL : INST {",
                "arm DIV : INST {\n    4 q          u8            @archs(v1)\n    5 reserved1  reserved[11]  @archs(v1)\n    \
                 4 q          u16           @archs(v2..)\n    6 reserved1  reserved[10]  @archs(v2..)\n}\n\narm MUL : INST {",
            ),
            ("union IMM : 4 {", "enum ONE : u8 {\n    A = 1\n}\n\nbits FLAG : u8 {\n    0..8 v\n}\n\nunion PAIR : 4 {\n    w  u32  otherwise\n}\n\nunion IMM : 4 {"),
        ],
        &[
            "additive added union PAIR: +size 4, 1 view",
            "additive added arm DIV: +2 layouts: 2 fields (v1), 2 fields (v2..), bound to DIV",
            "additive added bits FLAG: +u8, 1 bit-field, 0 alts",
            "additive added enum ONE: +u8, 1 value",
            "additive added enum OPCODE / variant DIV: +0x04 => DIV @engine(ACT)",
        ],
    );
}

#[test]
fn union_views() {
    gen_check(
        &[("0x80 == 0x80", "0xC0 == 0x80")],
        &["breaking changed union IMM / view int predicate: when byte 3 & 0x80 == 0x80 -> when byte 3 & 0xC0 == 0x80 [NOP]"],
    );
    gen_check(
        &[("fp   f32  otherwise", "fp   i32  otherwise")],
        &["breaking changed union IMM / view fp type: f32 -> i32 [NOP]"],
    );
    gen_check(
        &[("fp   f32  otherwise", "fp   f32  otherwise\n    u16s [u16; 2]")],
        &["additive added union IMM / view u16s: +[u16; 2] [NOP]"],
    );
    gen_check(
        &[("int  u32  when", "raw  u32  when")],
        &["metadata renamed union IMM / view raw: int -> raw [NOP]"],
    );
}

#[test]
fn opcode_table_columns_are_metadata_and_availability_is_classed() {
    gen_check(
        &[(
            "MUL  = 0x02 => MUL  @engine(ACT)",
            "MUL  = 0x02 => MUL  @engine(PE, ACT) @status(dormant)",
        )],
        &[
            "metadata changed enum OPCODE / variant MUL engines: ACT -> PE, ACT",
            "metadata changed enum OPCODE / variant MUL status: maintained -> dormant",
        ],
    );
    // A binding written in the table entry shares the entry's metadata: reported once.
    gen_check(
        &[("@archs(..v2)", "@archs(v1)")],
        &["breaking changed enum OPCODE / variant OLD archs: v1, v2 -> v1"],
    );
    gen_check(
        &[("@archs(..v2)", "")],
        &["additive changed enum OPCODE / variant OLD archs: v1, v2 -> all"],
    );
    gen_check(
        &[("    OLD  = 0x03", "    /// Retired.\n    OLD  = 0x03")],
        &["metadata changed enum OPCODE / variant OLD docs:  -> Retired."],
    );
    // A new opcode bound to an arm: one line, which names the arm.
    gen_check(
        &[("OLD  = 0x03", "NEW  = 0x04 => MUL  @engine(ACT) @archs(v3)\n    OLD  = 0x03")],
        &["additive added enum OPCODE / variant NEW: +0x04 => MUL @engine(ACT) (@archs(v3))"],
    );
}

/// The opcode table's own `@status` and `@engine` are its values' defaults: an edit of
/// them is one change, at the table, not one at every value that follows it; a value
/// that states its own is not reported.
#[test]
fn opcode_table_defaults_are_reported_once_at_the_table() {
    gen_check(
        &[("@status(maintained)\nenum OPCODE", "@status(dormant)\nenum OPCODE")],
        &["metadata changed enum OPCODE status: maintained -> dormant"],
    );
    gen_check(
        &[
            ("@status(maintained)\nenum OPCODE", "@status(dormant)\nenum OPCODE"),
            (
                "MUL  = 0x02 => MUL  @engine(ACT)",
                "MUL  = 0x02 => MUL  @engine(ACT) @status(maintained)",
            ),
        ],
        &["metadata changed enum OPCODE status: maintained -> dormant"],
    );
    gen_check(
        &[
            ("@status(maintained)\nenum OPCODE", "@status(maintained)\n@engine(PE)\nenum OPCODE"),
            ("MUL  = 0x02 => MUL  @engine(ACT)", "MUL  = 0x02 => MUL"),
        ],
        &[
            "metadata changed enum OPCODE engines: none -> PE",
            "metadata changed enum OPCODE / variant MUL engines: ACT -> PE",
        ],
    );
}

#[test]
fn inherited_provenance_is_reported_once_at_the_item() {
    gen_check(
        &[("@source(\"gen arms\")", "@source(\"gen arms, revised\")")],
        &["metadata changed arm NOP sources: gen arms -> gen arms, revised"],
    );
    gen_check(
        &[("@source(\"gen opcodes\")", "@source(\"gen opcodes\")\n@confidence(medium)")],
        &["metadata changed enum OPCODE confidence: certain -> medium"],
    );
    // A member that states its own source is reported at the member.
    gen_check(
        &[("4 imm        IMM", "4 imm        IMM  @source(\"imm\")")],
        &["metadata changed arm NOP / field imm sources: gen arms -> imm"],
    );
}

#[test]
fn vocabulary_words() {
    gen_check(
        &[("enum ENGINE { PE ACT }", "enum ENGINE { PE ACT DVE }")],
        &["additive added vocab ENGINE / word DVE: +DVE"],
    );
    gen_check(
        &[("enum ENGINE { PE ACT }", "enum ENGINE { PE ACT HOST }\nenum UNIT { A B }")],
        &["additive added vocab ENGINE / word HOST: +HOST", "additive added vocab UNIT: +A B"],
    );
}

#[test]
fn arch_diff_of_the_gen_spec_compares_layouts_by_bytes() {
    let m = gen_spec(&[]);
    let (v1, v3) = (m.arch_named("v1").expect("v1"), m.arch_named("v3").expect("v3"));
    assert_diff(
        &codegen::diff_archs(&m, v1, v3),
        &[
            "breaking changed arm MUL / field b size: 1 -> 2 (u8 → u16)",
            "breaking removed enum OPCODE / variant OLD: -0x03 => NOP @engine(PE) (@archs(v1, v2))",
        ],
    );
    assert_eq!(codegen::diff_archs(&m, v1, v3).opcode_steps(), (0, 1));
    assert!(codegen::diff_archs(&m, m.arch_named("v2").expect("v2"), v3)
        .changes
        .iter()
        .all(|c| c.path_text().contains("OLD")));
}
