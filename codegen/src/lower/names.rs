//! The naming pass: every Rust identifier the emitters write is computed here, once,
//! through the naming policy in `emit::names`, and stored in the model. Two spec names
//! that would become one Rust name are a spanned diagnostic here, never a compile error
//! in the generated crate.

use std::collections::BTreeMap;

use super::Cx;
use crate::diagnostic::Diagnostic;
use crate::emit::names::{
    const_str, snake_str, type_str, RESERVED_ARM_METHODS, RESERVED_BITS_METHODS, RESERVED_TYPES,
};
use crate::model::{Binding, ModelParts, Select};
use crate::source::Span;

/// One namespace: Rust name → the spec name and span that took it first.
struct Space<'a> {
    what: &'a str,
    taken: BTreeMap<String, (String, Span)>,
    /// Whether one spec name claiming twice is this pass's to report. It is not where
    /// the spec name is itself unique (items, fields, geometry): the check that owns
    /// that name has reported the duplicate already.
    report_same: bool,
    /// The note of a collision: what to do.
    note: &'a str,
}

impl<'a> Space<'a> {
    fn new(what: &'a str) -> Space<'a> {
        Space {
            what,
            taken: BTreeMap::new(),
            report_same: false,
            note: "rename one of them in the spec; generated names come from spec names",
        }
    }

    /// Claim `rust` for `spec` at `span`; a second claim is an error naming both.
    fn claim(&mut self, cx: &mut Cx<'_>, rust: &str, spec: &str, span: Span) {
        if let Some((other, first)) = self.taken.get(rust) {
            if other.is_empty() {
                cx.error(
                    Diagnostic::error(span, format!("'{spec}' becomes the {} '{rust}', which the generated code defines itself", self.what))
                        .note("rename it in the spec"),
                );
                return;
            }
            if other == spec && !self.report_same {
                return;
            }
            let msg = if other == spec {
                format!("'{spec}' would define the {} '{rust}' twice", self.what)
            } else {
                format!("'{spec}' and '{other}' both become the {} '{rust}'", self.what)
            };
            cx.error(Diagnostic::error(span, msg).with(*first, "the other one").note(self.note));
        } else {
            self.taken.insert(rust.to_string(), (spec.to_string(), span));
        }
    }

    /// Names the generator itself uses in this namespace.
    fn reserve(&mut self, names: &[&str], span: Span) {
        for n in names {
            self.taken.insert((*n).to_string(), (String::new(), span));
        }
    }
}

pub(super) fn assign(cx: &mut Cx<'_>, p: &mut ModelParts) {
    let record_span = p.record.meta.span;
    let arch_names: Vec<String> = cx.arch_list.clone();
    let mut types = Space::new("Rust type");
    types.reserve(RESERVED_TYPES, record_span);

    for s in p.structs.iter_mut().filter(|s| !s.is_group) {
        s.rust = type_str(&s.name);
        types.claim(cx, &s.rust, &s.name, s.meta.span);
    }
    for u in &mut p.unions {
        u.rust = type_str(&u.name);
        types.claim(cx, &u.rust, &u.name, u.meta.span);
        types.claim(cx, &format!("{}View", u.rust), &u.name, u.meta.span);
        let mut views = Space::new("view accessor");
        for v in &mut u.views {
            v.rust = snake_str(&v.name);
            views.claim(cx, &v.rust, &v.name, v.meta.span);
        }
        // Views and their selection are by name in text; make sure a default exists.
        let _ = u.views.iter().any(|v| v.select == Select::Otherwise);
    }
    for b in &mut p.bits {
        b.rust = type_str(&b.name);
        types.claim(cx, &b.rust, &b.name, b.meta.span);
        if !b.alts.is_empty() {
            types.claim(cx, &type_str(&format!("{}_form", b.name)), &b.name, b.meta.span);
        }
        let mut fields = Space::new("bit-field accessor");
        fields.reserve(RESERVED_BITS_METHODS, b.meta.span);
        for f in b.fields.iter_mut().chain(b.alts.iter_mut().flat_map(|a| a.fields.iter_mut())) {
            f.rust = snake_str(&f.name);
            // The same bit-field name may recur in several alts (each alt's own view).
            if fields.taken.get(&f.rust).is_none_or(|(n, _)| *n != f.name) {
                fields.claim(cx, &f.rust, &f.name, f.meta.span);
                // Its setter: `a`'s `with_a` is not free for a bit-field named so.
                fields.claim(cx, &format!("with_{}", f.rust), &f.name, f.meta.span);
            }
        }
        let mut alts = Space::new("operand form");
        for a in &mut b.alts {
            a.rust = type_str(&a.name);
            alts.claim(cx, &a.rust, &a.name, a.meta.span);
        }
    }
    for e in &mut p.enums {
        e.rust = type_str(&e.name);
        types.claim(cx, &e.rust, &e.name, e.meta.span);
        let mut consts = Space::new("constant");
        for v in &mut e.variants {
            v.rust = const_str(&v.name);
            consts.claim(cx, &v.rust, &v.name, v.meta.span);
        }
    }
    for v in &mut p.vocabs {
        v.rust = type_str(&v.name);
        types.claim(cx, &v.rust, &v.name, v.meta.span);
        let mut words = Space::new("variant");
        for w in &mut v.words {
            w.rust = type_str(&w.name);
            words.claim(cx, &w.rust, &w.name, w.meta.span);
        }
    }
    let mut kinds = Space::new("ArmKind variant");
    for a in &mut p.arms {
        a.rust = type_str(&a.name);
        a.rust_ref = format!("{}Ref", a.rust);
        types.claim(cx, &a.rust, &a.name, a.meta.span);
        types.claim(cx, &a.rust_ref, &a.name, a.meta.span);
        kinds.claim(cx, &a.rust, &a.name, a.meta.span);
        let many = a.layouts.len() > 1;
        for l in &mut a.layouts {
            l.rust = match (many, l.archs.first()) {
                (true, Some(arch)) => {
                    let n = format!("{}{}", a.rust, type_str(&arch_names[arch.0 as usize]));
                    types.claim(cx, &n, &a.name, a.meta.span);
                    types.claim(cx, &format!("{n}Ref"), &a.name, a.meta.span);
                    n
                }
                _ => a.rust.clone(),
            };
            let mut fields = Space::new("field");
            fields.reserve(RESERVED_ARM_METHODS, a.meta.span);
            for f in &mut l.fields {
                f.rust = snake_str(&f.name);
                fields.claim(cx, &f.rust, &f.name, f.meta.span);
            }
        }
    }
    for s in &mut p.structs {
        let mut fields = Space::new("field");
        for f in &mut s.fields {
            f.rust = snake_str(&f.name);
            fields.claim(cx, &f.rust, &f.name, f.meta.span);
        }
    }
    let mut preamble = Space::new("field");
    for f in &mut p.record.preamble {
        f.rust = snake_str(&f.name);
        preamble.claim(cx, &f.rust, &f.name, f.meta.span);
    }
    let mut getters = Space::new("geometry getter");
    getters.reserve(&["name", "label", "generation", "aliases", "arch"], record_span);
    for g in &mut p.geometry {
        g.rust = snake_str(&g.name);
        getters.claim(cx, &g.rust, &g.name, g.meta.span);
    }
    // Mnemonics: every text form names one thing.
    // Two sub-opcode bindings may bring one sub-opcode name, so the same spec name
    // twice is a collision here; a binding of an (opcode, sub-opcode) bound before is
    // not, as the binding check reports it.
    // Each claimant is named by where its mnemonic comes from (an opcode, a sub-opcode,
    // an arm), so that a clash of a sub-opcode with an opcode of the same name says so.
    let mut mnemonics = Space::new("mnemonic");
    mnemonics.report_same = true;
    mnemonics.note = "a binding's mnemonic is its opcode's name (a sub-opcode binding's, the \
        sub-opcode's name; an arm's own name where no name is given): rename one of them in \
        the spec, or give a `bind` its own (`bind … => ARM as NAME`)";
    let op_enum = &p.enums[p.record.discriminant.ty.0 as usize];
    let op_name =
        |v: u64| op_enum.variant_of(v).map_or_else(|| format!("{v:#04x}"), |x| x.name.clone());
    // The bindings that claim a mnemonic: one per (opcode, sub-opcode).
    let claimants = p.bindings.iter().enumerate().filter(|&(i, b)| {
        !p.bindings[..i].iter().any(|x| {
            x.opcode == b.opcode
                && match (&x.sub, &b.sub) {
                    (Some(s), Some(t)) => s.value == t.value,
                    _ => true,
                }
        })
    });
    // Those whose mnemonic comes from a name first, then the arms and opcodes; the `as`
    // names last, so that a clash with one is reported at it, with its own advice.
    let (own, named): (Vec<_>, Vec<_>) = claimants.map(|(_, b)| b).partition(|b| b.own_mnemonic);
    // Where a binding's mnemonic comes from, as `lower::bindings` picks it (but for an
    // `as` name): a sub-opcode's name, the opcode's, or the arm's.
    let origin = |b: &Binding| {
        let sub_name = b.sub.as_ref().map(|s| {
            s.enum_id.and_then(|e| p.enums[e.0 as usize].variant_of(s.value)).map(|v| &v.name)
        });
        match sub_name {
            Some(Some(n)) => format!("sub-opcode {n} of {}", op_name(b.opcode)),
            None if op_enum.variant_of(b.opcode).is_some() => {
                format!("opcode {}", op_name(b.opcode))
            }
            _ => format!("arm {}", p.arms[b.arm.0 as usize].name),
        }
    };
    for b in named {
        mnemonics.claim(cx, &b.mnemonic, &origin(b), b.mnemonic_span);
    }
    for (i, a) in p.arms.iter().enumerate() {
        // A second arm of one name is the duplicate check's to report, once.
        if p.arms[..i].iter().any(|x| x.name == a.name) {
            continue;
        }
        if !p.bindings.iter().any(|b| b.arm.0 as usize == i) {
            mnemonics.claim(cx, &a.mnemonic, &format!("arm {}", a.name), a.meta.span);
        }
    }
    // A named opcode's own mnemonic, for its opaque records: where no plain binding
    // reads it (see `emit::disasm`'s MNEMONICS).
    for v in &op_enum.variants {
        if !p.bindings.iter().any(|b| b.opcode == v.value && b.sub.is_none()) {
            mnemonics.claim(
                cx,
                &v.name.to_ascii_lowercase(),
                &format!("opcode {}", v.name),
                v.meta.span,
            );
        }
    }
    mnemonics.note = "an `as` name is the binding's mnemonic, which no other opcode, \
        sub-opcode, arm or binding may have: choose another";
    for b in own {
        let spec = format!("{} as {}", origin(b), b.mnemonic);
        mnemonics.claim(cx, &b.mnemonic, &spec, b.mnemonic_span);
    }
}

#[cfg(test)]
mod tests {
    use crate::lower::test_support::{errors, model, OLD_NEW};

    /// Every Rust name is in the model after lowering, through the naming policy.
    #[test]
    fn rust_names_are_computed_once_in_the_model() {
        let m = model(
            "enum ENGINE { PE DVE }\nenum OPCODE : u8 {\n    PSEUDO_EXIT = 1 => CTRL_AL\n}\n\
             record TPB_INST : 2 {\n    discriminant 0 OPCODE\n    engines ENGINE\n    0 header OPCODE\n}\n\
             arm CTRL_AL : TPB_INST {\n    1 type u8 @archs(old)\n    1 inDtype u8 @archs(new)\n}\n\
             union IMM_VAL : 1 {\n    fp8 u8\n}\nbits DTYPE_PAIR : u8 {\n    0..4 dtype_lo\n}\ngeometry num_tpb : u32?\n",
            &OLD_NEW,
        );
        let a = &m[m.arm_named("CTRL_AL").unwrap()];
        assert_eq!((a.rust.as_str(), a.rust_ref.as_str()), ("CtrlAl", "CtrlAlRef"));
        let layouts: Vec<(&str, &str)> =
            a.layouts.iter().map(|l| (l.rust.as_str(), l.fields[1].rust.as_str())).collect();
        assert_eq!(layouts, [("CtrlAlOld", "type"), ("CtrlAlNew", "in_dtype")]);
        assert_eq!(m[m.opcode_enum()].variants[0].rust, "PSEUDO_EXIT");
        assert_eq!(m.vocabs[0].words[1].rust, "Dve");
        assert_eq!(m.unions[0].rust, "ImmVal");
        assert_eq!(m.bits[0].rust, "DtypePair");
        assert_eq!(m.geometry[0].rust, "num_tpb");
        assert_eq!(m.bindings[0].mnemonic, "pseudo_exit");
    }

    /// Two arms of one name are one error, the duplicate's: not also a mnemonic the
    /// second would define twice.
    #[test]
    fn a_duplicate_arm_is_one_error() {
        let head = "enum OPCODE : u8 {}\nrecord R : 2 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n";
        let e = errors(
            &format!("{head}arm A : R {{\n    1 x u8\n}}\narm A : R {{\n    1 y u8\n}}\n"),
            &[],
        );
        assert_eq!(e, ["duplicate name 'A'"]);
    }

    /// `as NAME` gives a binding a mnemonic of its own: the way out of a clash of a
    /// sub-opcode with an opcode of the same name. A mnemonic that is no lowercase word,
    /// or is `unknown`, is an error at it; one that clashes says it was given.
    #[test]
    fn a_binding_may_have_its_own_mnemonic() {
        let head = "enum OPCODE : u8 {\n    COPY = 1 => A\n    EXT = 2\n}\nenum SUB : u8 {\n    COPY = 1\n}\n\
             record R : 2 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
             arm A : R {\n    1 x u8\n}\narm B : R {\n    1 s SUB\n}\n";
        let m = model(&format!("{head}bind EXT, sub @1 = COPY => B as ext_copy\n"), &[]);
        let mnemonics: Vec<(&str, bool)> =
            m.bindings.iter().map(|b| (b.mnemonic.as_str(), b.own_mnemonic)).collect();
        assert_eq!(mnemonics, [("copy", false), ("ext_copy", true)]);
        for (name, want) in [
            ("Ext_copy", "'Ext_copy' is not a mnemonic"),
            ("_copy", "'_copy' is not a mnemonic"),
            // The mnemonic of a record whose opcode the spec does not name: a keyword.
            ("unknown", "expected a name, found 'unknown'"),
            ("copy", "'sub-opcode COPY of EXT as copy' and 'opcode COPY' both become the mnemonic 'copy'"),
        ] {
            let e = errors(&format!("{head}bind EXT, sub @1 = COPY => B as {name}\n"), &[]);
            assert_eq!(e, [want], "as {name}");
        }
        // An `as` name that an arm no binding selects has too: at the `as` name, the
        // one just written, whatever the order of the files.
        let arm = "arm C : R {\n    1 c u8\n}\n";
        let bind = "bind EXT, sub @1 = COPY => B as c\n";
        for text in [format!("{head}{arm}{bind}"), format!("{head}{bind}{arm}")] {
            let e = errors(&text, &[]);
            assert_eq!(
                e,
                ["'sub-opcode COPY of EXT as c' and 'arm C' both become the mnemonic 'c'"]
            );
        }
    }

    /// A sub-opcode binding whose sub-opcode is named like an opcode (EXTENDED_INST's
    /// COPY and the opcode COPY) says which two things clash: it read "'COPY' would
    /// define the mnemonic 'copy' twice", as though one name were declared twice.
    #[test]
    fn a_mnemonic_clash_names_the_sub_opcode_and_the_opcode() {
        let e = errors(
            "enum OPCODE : u8 {\n    COPY = 1 => A\n    EXT = 2\n}\nenum SUB : u8 {\n    COPY = 1\n}\n\
             record R : 2 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
             arm A : R {\n    1 x u8\n}\narm B : R {\n    1 s SUB\n}\n\
             bind EXT, sub @1 = COPY => B\narm COPY : R {\n    1 y u8\n}\n",
            &[],
        );
        assert_eq!(
            e,
            [
                "'sub-opcode COPY of EXT' and 'opcode COPY' both become the mnemonic 'copy'",
                "'arm COPY' and 'opcode COPY' both become the mnemonic 'copy'",
            ]
        );
    }

    /// A bit-field named like an operand type's own method (`new`, `form`) or
    /// like another bit-field's setter (`with_a` beside `a`), and an arm field named
    /// like its view's constructor (`new`), are checker errors: each passed the checker
    /// and broke the build of the generated crate.
    #[test]
    fn accessors_that_would_shadow_generated_methods() {
        let head = "enum OPCODE : u8 {}\nrecord R : 2 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n";
        let e = errors(
            &format!("{head}bits B : u8 {{\n    0..2 new\n    2..4 a\n    4..6 with_a\n    6..8 form\n}}\n"),
            &[],
        );
        assert_eq!(
            e,
            [
                "'new' becomes the bit-field accessor 'new', which the generated code defines itself",
                "'with_a' and 'a' both become the bit-field accessor 'with_a'",
                "'form' becomes the bit-field accessor 'form', which the generated code defines itself",
            ]
        );
        let e = errors(&format!("{head}arm A : R {{\n    1 new u8\n}}\n"), &[]);
        assert_eq!(e, ["'new' becomes the field 'new', which the generated code defines itself"]);
    }

    /// Names the generated crate defines itself are not free for the spec.
    #[test]
    fn reserved_names() {
        let e = errors(
            "enum OPCODE : u8 {}\nrecord R : 1 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\nstruct INST : 1 {\n    0 a u8\n}\n",
            &[],
        );
        assert_eq!(
            e,
            ["'INST' becomes the Rust type 'Inst', which the generated code defines itself"]
        );
    }

    /// An arm named like one of `Inst`'s own variants, or like a runtime type the
    /// generated code imports, is a checker error (it passed and broke the build).
    #[test]
    fn names_of_inst_variants_and_imports_are_reserved() {
        let e = errors(
            "enum OPCODE : u8 {}\nrecord R : 1 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
             arm UNKNOWN : R {\n}\nstruct BINDING : 1 {\n    0 a u8\n}\nenum DECODE_ERROR : u8 {}\n",
            &[],
        );
        let e2 = errors(
            "enum OPCODE : u8 {}\nrecord R : 1 {\n    discriminant 0 OPCODE\n    0 opcode OPCODE\n}\n\
             union IMM : 1 {\n    a u8\n}\nstruct IMM_VIEW : 1 {\n    0 a u8\n}\n",
            &[],
        );
        assert_eq!(e2, ["'IMM' and 'IMM_VIEW' both become the Rust type 'ImmView'"]);
        for want in [
            "'UNKNOWN' becomes the Rust type 'Unknown', which the generated code defines itself",
            "'BINDING' becomes the Rust type 'Binding', which the generated code defines itself",
            "'DECODE_ERROR' becomes the Rust type 'DecodeError', which the generated code defines itself",
        ] {
            assert!(e.iter().any(|x| x == want), "{want}: {e:?}");
        }
    }
}
