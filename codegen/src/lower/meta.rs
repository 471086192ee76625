//! Docs and attributes → [`Meta`]: `@source`, `@confidence`, `@archs`, `@waive`, and the
//! opcode attributes `@status` and `@engine`; inheritance of provenance from an item.

use super::{suggest, Cx};
use crate::diagnostic::Diagnostic;
use crate::model::{ArchId, Confidence, Meta, Status};
use crate::source::Span;
use crate::syntax::ast::{Annotations, Attr, AttrArg, Ident};

const ATTRS: [&str; 6] = ["source", "confidence", "archs", "waive", "status", "engine"];

/// Whether `name` is an attribute's (`archs` of `@archs(...)`).
pub(crate) fn is_attribute(name: &str) -> bool {
    ATTRS.contains(&name)
}

/// The note on an attribute name that is none of them: the closest, or the list.
pub(crate) fn unknown_attribute_note(name: &str) -> String {
    suggest(name, ATTRS).unwrap_or_else(|| {
        "known attributes: @source, @confidence, @archs, @waive, @status, @engine".to_owned()
    })
}

/// The attributes only the opcode table takes.
#[derive(Clone, Debug, Default)]
pub(super) struct OpcodeAttrs {
    /// `@status(...)`.
    pub status: Option<(Status, Span)>,
    /// `@engine(...)` words, unresolved.
    pub engines: Vec<Ident>,
    /// The span of the first `@status` or `@engine`, for "not allowed here".
    pub first: Option<Span>,
}

/// Lower the annotations of an item or member whose name is at `span`; `@status` and
/// `@engine` are errors here.
pub(super) fn meta(cx: &mut Cx<'_>, ann: &Annotations, span: Span) -> Meta {
    inherit(cx, ann, span, None)
}

/// Like [`meta`], for a member of an item: `@source` and `@confidence` default to the
/// item's.
pub(super) fn inherit(cx: &mut Cx<'_>, ann: &Annotations, span: Span, item: Option<&Meta>) -> Meta {
    let (m, op) = meta_full(cx, ann, span, item);
    if let Some(s) = op.first {
        cx.error(
            Diagnostic::error(s, "@status and @engine describe opcodes")
                .note("they apply to the values of the record's discriminant enum, or to that enum as defaults"),
        );
    }
    m
}

/// An attribute an item takes once, given again at `again` (first at `first`).
fn twice(again: Span, first: Span, what: &str) -> Diagnostic {
    Diagnostic::error(again, format!("{what} given twice")).with(first, "given first here").note(
        "an item takes it once; attributes stand before the item they describe, so \
             those of a deleted item attach to the next one",
    )
}

/// Lower annotations that may carry the opcode attributes.
pub(super) fn meta_full(
    cx: &mut Cx<'_>,
    ann: &Annotations,
    span: Span,
    item: Option<&Meta>,
) -> (Meta, OpcodeAttrs) {
    let mut m = Meta::at(span);
    let mut op = OpcodeAttrs::default();
    m.docs = ann.docs.clone();
    let mut seen_confidence: Option<Span> = None;
    for a in &ann.attrs {
        match a.name.name.as_str() {
            "status" => {
                op.first.get_or_insert(a.span);
                if let Some((_, first)) = op.status {
                    cx.error(twice(a.span, first, "@status"));
                }
                match a.args.as_slice() {
                    [AttrArg::Word(w)] => match Status::parse(&w.name) {
                        Some(s) => op.status = Some((s, a.span)),
                        None => cx.error(
                            Diagnostic::error(w.span, format!("unknown status '{}'", w.name))
                                .note("expected maintained, dormant, unflagged or unstated"),
                        ),
                    },
                    _ => cx.error(Diagnostic::error(
                        a.span,
                        "@status takes one of maintained, dormant, unflagged, unstated",
                    )),
                }
            }
            "engine" => {
                op.first.get_or_insert(a.span);
                if a.args.is_empty() {
                    cx.error(Diagnostic::error(a.span, "@engine needs at least one engine"));
                }
                for arg in &a.args {
                    match arg {
                        AttrArg::Word(w) => op.engines.push(w.clone()),
                        other => cx.error(Diagnostic::error(
                            other.span(),
                            "@engine takes words of the record's engines vocabulary",
                        )),
                    }
                }
            }
            "source" => {
                for arg in &a.args {
                    match arg {
                        // A blank one says nothing, as a blank `source` in an arch file.
                        AttrArg::Str(s, span) if s.trim().is_empty() => {
                            cx.error(Diagnostic::error(*span, "@source is blank").note(
                                "write where the fact comes from: @source(\"symbol @address\")",
                            ))
                        }
                        AttrArg::Str(s, _) => m.sources.push(s.clone()),
                        other => cx.error(
                            Diagnostic::error(other.span(), "@source takes strings")
                                .label("expected a string"),
                        ),
                    }
                }
                if a.args.is_empty() {
                    cx.error(Diagnostic::error(a.span, "@source needs at least one string"));
                }
            }
            "confidence" => {
                if let Some(first) = seen_confidence {
                    cx.error(twice(a.span, first, "@confidence"));
                }
                seen_confidence = Some(a.span);
                match a.args.as_slice() {
                    [AttrArg::Word(w)] => match Confidence::parse(&w.name) {
                        Some(c) => m.confidence = c,
                        None => cx.error(
                            Diagnostic::error(w.span, format!("unknown confidence '{}'", w.name))
                                .note("expected certain, medium or inferred"),
                        ),
                    },
                    _ => cx.error(Diagnostic::error(
                        a.span,
                        "@confidence takes one of certain, medium, inferred",
                    )),
                }
            }
            "archs" => {
                m.archs = archs(cx, a);
                m.archs_span = Some(a.span);
            }
            "waive" => match a.args.as_slice() {
                [AttrArg::Str(s, _)] if !s.trim().is_empty() => {
                    m.waiver = Some(s.clone());
                    m.waiver_span = Some(a.span);
                    cx.waivers.entry(a.span).or_insert(false);
                }
                _ => cx.error(
                    Diagnostic::error(a.span, "@waive needs a written reason")
                        .note("write @waive(\"why this overlap is deliberate\")"),
                ),
            },
            other => {
                let d = Diagnostic::error(a.name.span, format!("unknown attribute '@{other}'"));
                cx.error(d.note(unknown_attribute_note(other)));
            }
        }
    }
    if let Some(item) = item {
        if m.sources.is_empty() {
            m.sources.clone_from(&item.sources);
        }
        if seen_confidence.is_none() {
            m.confidence = item.confidence;
        }
    }
    (m, op)
}

/// `@archs(sunda..)`, `@archs(cayman..mariana)`, `@archs(..cayman)`, `@archs(sunda, mariana)`.
fn archs(cx: &mut Cx<'_>, a: &Attr) -> Option<Vec<ArchId>> {
    let n = cx.arch_list.len() as u32;
    let errors_before = cx.errors.len();
    let mut out = Vec::new();
    if a.args.is_empty() {
        cx.error(Diagnostic::error(a.span, "@archs needs at least one arch or range"));
    }
    for arg in &a.args {
        let before = out.len();
        match arg {
            AttrArg::Word(w) => {
                if let Some(id) = arch(cx, &w.name, w.span) {
                    out.push(id);
                }
            }
            AttrArg::Range(..) if n == 0 => {}
            AttrArg::Range(lo, hi, _) => {
                let lo = lo.as_ref().map_or(Some(ArchId(0)), |w| arch(cx, &w.name, w.span));
                let hi = hi
                    .as_ref()
                    .map_or(Some(ArchId(n.saturating_sub(1))), |w| arch(cx, &w.name, w.span));
                if let (Some(lo), Some(hi)) = (lo, hi) {
                    if lo > hi {
                        cx.error(Diagnostic::error(
                            arg.span(),
                            "empty arch range: the first arch is newer than the last",
                        ));
                    }
                    out.extend((lo.0..=hi.0).map(ArchId));
                }
            }
            AttrArg::Str(_, s) => {
                cx.error(Diagnostic::error(*s, "@archs takes arch names or ranges, not strings"))
            }
        }
        // An arch this argument names again (a slip, or a range that overlaps a name).
        if let Some(again) = out[before..].iter().find(|id| out[..before].contains(id)) {
            let name = cx.arch_list.get(again.0 as usize).cloned().unwrap_or_default();
            cx.error(Diagnostic::error(arg.span(), format!("@archs names {name} twice")));
        }
    }
    if cx.errors.len() > errors_before {
        cx.bad_archs.insert(a.span);
    }
    out.sort();
    out.dedup();
    Some(out)
}

fn arch(cx: &mut Cx<'_>, name: &str, span: Span) -> Option<ArchId> {
    if let Some(id) = cx.arch_names.get(&name.to_ascii_lowercase()) {
        return Some(*id);
    }
    let list = cx.arch_list.join(", ");
    let mut d = Diagnostic::error(span, format!("unknown arch '{name}'"));
    d = match suggest(name, cx.arch_list.iter().map(String::as_str)) {
        Some(s) => d.note(s),
        None => d.note(format!("the archs are: {list}")),
    };
    cx.error(d);
    None
}

#[cfg(test)]
mod tests {
    use crate::lower::test_support::{model, OLD_NEW, OLD_NEW_NEXT, RECORD};
    use crate::model::Confidence;

    /// An attribute given twice (the stray one of a deleted item) is an error at the
    /// second that also points at the first.
    #[test]
    fn an_attribute_given_twice_points_at_both() {
        let text = format!(
            "enum OPCODE : u8 {{}}\n{RECORD}@confidence(medium)\n@source(\"x\")\n\
             @confidence(inferred)\nstruct S : 1 {{\n    0 a u8\n}}\n"
        );
        let f = crate::lower::test_support::load(&text, &[]).expect_err("twice");
        let d = &f.diagnostics.0[0];
        assert_eq!(d.message, "@confidence given twice");
        assert_eq!(d.secondary.len(), 1);
        assert_eq!(d.secondary[0].1, "given first here");
        assert_ne!(d.secondary[0].0, d.span);
    }

    /// Members take the item's sources and confidence unless they state their own; a
    /// member's own source replaces the item's; `@archs` is never inherited.
    #[test]
    fn members_inherit_provenance_but_not_availability() {
        let m = model(
            &format!(
                "enum OPCODE : u8 {{}}\n{RECORD}@source(\"item\")\n@confidence(medium)\n@archs(new)\n\
                 struct S : 3 {{\n    0 a u8\n    1 b u8  @source(\"own\")\n    2 c u8  @confidence(inferred)\n}}\n"
            ),
            &OLD_NEW,
        );
        let s = &m[m.struct_named("S").unwrap()];
        let f = |n: &str| &s.fields.iter().find(|f| f.name == n).unwrap().meta;
        assert_eq!(
            (f("a").sources.as_slice(), f("a").confidence),
            (&["item".to_string()][..], Confidence::Medium)
        );
        assert_eq!(f("b").sources, ["own"]);
        assert_eq!(f("b").confidence, Confidence::Medium);
        assert_eq!(
            (f("c").sources.as_slice(), f("c").confidence),
            (&["item".to_string()][..], Confidence::Inferred)
        );
        assert_eq!(s.meta.archs, Some(vec![m.arch_named("new").unwrap()]));
        assert!(["a", "b", "c"].iter().all(|n| f(n).archs.is_none()));
    }

    /// `@archs` ranges and lists resolve by name, label or alias, in generation order.
    /// A blank `@source` is an error, as a blank source of an arch file's value is.
    #[test]
    fn a_blank_source_is_an_error() {
        let e = crate::lower::test_support::errors(
            &format!("enum OPCODE : u8 {{}}\n{RECORD}@source(\"x\", \"  \")\nstruct S : 1 {{\n    0 a u8  @source(\"\")\n}}\n"),
            &OLD_NEW,
        );
        assert_eq!(e, ["@source is blank", "@source is blank"]);
    }

    #[test]
    fn archs_ranges_and_lists() {
        let m = model(
            &format!(
                "enum OPCODE : u8 {{\n    A = 1 @archs(new..)\n    B = 2 @archs(..V2)\n    C = 3 @archs(old, n3)\n    D = 4 @archs(..)\n}}\n{RECORD}"
            ),
            &OLD_NEW_NEXT,
        );
        let op = &m[m.opcode_enum()];
        let on = |n: &str| {
            op.variant_named(n)
                .unwrap()
                .meta
                .archs
                .clone()
                .unwrap()
                .iter()
                .map(|a| m[*a].name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(on("A"), ["new", "next"]);
        assert_eq!(on("B"), ["old", "new"]);
        assert_eq!(on("C"), ["old", "next"]);
        assert_eq!(on("D"), ["old", "new", "next"]);
    }

    /// An arch named twice (by name, alias or an overlapping range) is an error at the
    /// argument that repeats it (`@archs(cayman, cayman)` was accepted).
    #[test]
    fn an_arch_named_twice_is_an_error() {
        use crate::lower::test_support::errors;
        for (attr, twice) in [
            ("@archs(new, new)", "new"),
            ("@archs(next, n3)", "next"),
            ("@archs(old, ..new)", "old"),
        ] {
            let e = errors(
                &format!("enum OPCODE : u8 {{\n    A = 1 {attr}\n}}\n{RECORD}"),
                &OLD_NEW_NEXT,
            );
            assert_eq!(e, [format!("@archs names {twice} twice")], "{attr}");
        }
    }
}
