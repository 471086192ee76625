//! Docs and attributes → [`Meta`]: `@source`, `@confidence`, `@archs`, `@waive`.

use super::{suggest, Cx};
use crate::diagnostic::Diagnostic;
use crate::model::{ArchId, Confidence, Meta};
use crate::source::Span;
use crate::syntax::ast::{Annotations, Attr, AttrArg};

const ATTRS: [&str; 4] = ["source", "confidence", "archs", "waive"];

/// Lower the annotations of an item whose name is at `span`.
pub(super) fn meta(cx: &mut Cx<'_>, ann: &Annotations, span: Span) -> Meta {
    let mut m = Meta::at(span);
    m.docs = ann.docs.clone();
    let mut seen_confidence = false;
    for a in &ann.attrs {
        match a.name.name.as_str() {
            "source" => {
                for arg in &a.args {
                    match arg {
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
                if seen_confidence {
                    cx.error(Diagnostic::error(a.span, "@confidence given twice"));
                }
                seen_confidence = true;
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
            "archs" => m.archs = archs(cx, a),
            "waive" => match a.args.as_slice() {
                [AttrArg::Str(s, _)] if !s.trim().is_empty() => m.waiver = Some(s.clone()),
                _ => cx.error(
                    Diagnostic::error(a.span, "@waive needs a written reason")
                        .note("write @waive(\"why this overlap is deliberate\")"),
                ),
            },
            other => {
                let mut d = Diagnostic::error(a.name.span, format!("unknown attribute '@{other}'"));
                d = match suggest(other, ATTRS) {
                    Some(s) => d.note(s),
                    None => d.note("known attributes: @source, @confidence, @archs, @waive"),
                };
                cx.error(d);
            }
        }
    }
    m
}

/// `@archs(sunda..)`, `@archs(cayman..mariana)`, `@archs(..cayman)`, `@archs(sunda, mariana)`.
fn archs(cx: &mut Cx<'_>, a: &Attr) -> Option<Vec<ArchId>> {
    let n = cx.arch_list.len() as u32;
    let mut out = Vec::new();
    if a.args.is_empty() {
        cx.error(Diagnostic::error(a.span, "@archs needs at least one arch or range"));
    }
    for arg in &a.args {
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
