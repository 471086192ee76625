//! pest pairs → AST, one function per grammar rule; docs and attributes attached by line.

use pest::iterators::Pair;

use super::ast::*;
use super::Rule;
use crate::diagnostic::Diagnostic;
use crate::model::{BinOp, CmpOp};
use crate::source::{FileId, Span};

struct Builder {
    file: FileId,
    errors: Vec<Diagnostic>,
    /// Byte offsets where lines start, for line lookups in O(log n) (pest's `line_col`
    /// rescans the input from the start).
    line_starts: Vec<usize>,
}

/// Build the AST of a parsed file.
pub fn file(file: FileId, root: Pair<'_, Rule>) -> Result<File, Vec<Diagnostic>> {
    let input = root.as_span().get_input();
    let line_starts =
        std::iter::once(0).chain(input.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let mut b = Builder { file, errors: Vec::new(), line_starts };
    let children = root.into_inner().filter(|p| p.as_rule() != Rule::EOI);
    let items = b.attach(children, |b, p, ann| b.item(p, ann));
    if b.errors.is_empty() {
        Ok(File { items })
    } else {
        Err(b.errors)
    }
}

/// Things docs and attributes can attach to.
trait Annotated {
    fn ann(&mut self) -> &mut Annotations;
}

macro_rules! annotated {
    ($($t:ty),*) => {$(impl Annotated for $t {
        fn ann(&mut self) -> &mut Annotations { &mut self.ann }
    })*};
}
annotated!(Item, BitFieldDef, AltDef, VariantDef, RegionDef, ViewDef);

impl Annotated for Member {
    fn ann(&mut self) -> &mut Annotations {
        match self {
            Member::Field { ann, .. } | Member::Use { ann, .. } => ann,
        }
    }
}

impl Builder {
    fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset)
    }

    fn line(&self, p: &Pair<'_, Rule>) -> usize {
        self.line_of(p.as_span().start())
    }

    fn end_line(&self, p: &Pair<'_, Rule>) -> usize {
        self.line_of(end_of(p).saturating_sub(1).max(p.as_span().start()))
    }
}

/// Where a pair's own text ends. A rule that ends in an optional or repeated part that
/// matched nothing still consumed the blanks and comments before it; those are not part
/// of the construct, so the end is the last literal or token, not the pair's end.
fn end_of(p: &Pair<'_, Rule>) -> usize {
    let span = p.as_span();
    let from = p.clone().into_inner().last().map_or(span.start(), |last| end_of(&last));
    let tail = &span.get_input()[from..span.end()];
    let bytes = tail.as_bytes();
    let (mut i, mut end) = (0, from);
    while i < bytes.len() {
        if tail[i..].starts_with("//") {
            i += tail[i..].find('\n').unwrap_or(tail.len() - i);
        } else if bytes[i].is_ascii_whitespace() {
            i += 1;
        } else {
            let len = tail[i..].chars().next().map_or(1, char::len_utf8);
            i += len;
            end = from + i;
        }
    }
    end
}

impl Builder {
    fn span(&self, p: &Pair<'_, Rule>) -> Span {
        Span::new(self.file, p.as_span().start(), end_of(p))
    }

    /// Walk `(doc | attr | member)*`: an annotation on the line a member ends on belongs
    /// to it; others belong to the next member.
    fn attach<'i, T: Annotated>(
        &mut self,
        pairs: impl Iterator<Item = Pair<'i, Rule>>,
        mut member: impl FnMut(&mut Self, Pair<'i, Rule>, Annotations) -> Option<T>,
    ) -> Vec<T> {
        let mut out: Vec<(T, usize)> = Vec::new();
        let mut pending = Annotations::default();
        let mut pending_span: Option<Span> = None;
        for p in pairs {
            match p.as_rule() {
                Rule::doc | Rule::attr => {
                    let trailing = pending_span.is_none()
                        && out.last().is_some_and(|(_, end)| *end == self.line(&p));
                    let target = if trailing {
                        out.last_mut().map(|(t, _)| t.ann()).expect("checked above")
                    } else {
                        pending_span.get_or_insert(self.span(&p));
                        &mut pending
                    };
                    if p.as_rule() == Rule::doc {
                        target.docs.push(doc_text(&p));
                    } else {
                        let a = self.attr(p);
                        target.attrs.push(a);
                    }
                }
                _ => {
                    let end = self.end_line(&p);
                    pending_span = None;
                    if let Some(t) = member(self, p, std::mem::take(&mut pending)) {
                        out.push((t, end));
                    }
                }
            }
        }
        if let Some(span) = pending_span {
            self.errors.push(
                Diagnostic::error(
                    span,
                    "doc comment or attribute is not followed by anything it can describe",
                )
                .label("nothing follows this"),
            );
        }
        out.into_iter().map(|(t, _)| t).collect()
    }

    fn ident(&self, p: Pair<'_, Rule>) -> Ident {
        Ident { name: p.as_str().to_string(), span: self.span(&p) }
    }

    fn int(&mut self, p: Pair<'_, Rule>) -> Int {
        let span = self.span(&p);
        let text: String = p.as_str().chars().filter(|&c| c != '_').collect();
        let (digits, radix) = if let Some(h) = text.strip_prefix("0x") {
            (h, 16)
        } else if let Some(b) = text.strip_prefix("0b") {
            (b, 2)
        } else {
            (text.as_str(), 10)
        };
        let value = match u128::from_str_radix(digits, radix) {
            Ok(v) => v,
            Err(_) => {
                self.errors.push(Diagnostic::error(span, "integer literal is too large or empty"));
                0
            }
        };
        Int { value, span }
    }

    /// An error at each escape of a string other than `\"`, `\\`, `\n` and `\t` (it
    /// read as the character alone: `\q` as `q`).
    fn check_escapes(&mut self, inner: &Pair<'_, Rule>) {
        let text = inner.as_str();
        let base = inner.as_span().start();
        let mut chars = text.char_indices();
        while let Some((i, c)) = chars.next() {
            if c != '\\' {
                continue;
            }
            match chars.next() {
                Some((_, '"' | '\\' | 'n' | 't')) => {}
                Some((j, o)) => {
                    let span = Span::new(self.file, base + i, base + j + o.len_utf8());
                    self.errors.push(
                        Diagnostic::error(span, format!("unknown escape '\\{o}' in a string"))
                            .note("a string takes \\\", \\\\, \\n and \\t"),
                    );
                }
                None => {}
            }
        }
    }

    fn attr(&mut self, p: Pair<'_, Rule>) -> Attr {
        let span = self.span(&p);
        let mut inner = p.into_inner();
        let name = self.ident(inner.next().expect("attr has a name"));
        let args = inner
            .map(|a| match a.as_rule() {
                Rule::string => {
                    let inner = a.clone().into_inner().next().expect("a string has its inside");
                    self.check_escapes(&inner);
                    AttrArg::Str(unescape(inner.as_str()), self.span(&a))
                }
                Rule::attr_word => AttrArg::Word(self.ident(a)),
                Rule::arch_range => {
                    let s = self.span(&a);
                    let text = a.as_str();
                    let dots = text.find("..").expect("arch_range has ..");
                    let mut lo = None;
                    let mut hi = None;
                    for w in a.into_inner() {
                        let id = self.ident(w);
                        if (id.span.start - s.start) as usize <= dots {
                            lo = Some(id);
                        } else {
                            hi = Some(id);
                        }
                    }
                    AttrArg::Range(lo, hi, s)
                }
                r => unreachable!("attr argument rule {r:?}"),
            })
            .collect();
        Attr { name, args, span }
    }

    fn item(&mut self, p: Pair<'_, Rule>, ann: Annotations) -> Option<Item> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut inner = p.into_inner();
        let kw = inner.next().expect("item starts with a keyword");
        let kw_ident = self.ident(kw);
        let kind_and_name = match rule {
            Rule::record => {
                let name = self.ident(inner.next()?);
                let size = self.int(inner.next()?);
                let mut discriminants = Vec::new();
                let mut engines = Vec::new();
                let rest: Vec<_> = inner
                    .filter(|c| match c.as_rule() {
                        Rule::discriminant => {
                            discriminants.push(c.clone());
                            false
                        }
                        Rule::engines_decl => {
                            engines.push(c.clone());
                            false
                        }
                        _ => true,
                    })
                    .collect();
                let engines = engines
                    .into_iter()
                    .filter_map(|e| e.into_inner().nth(1).map(|n| self.ident(n)))
                    .collect();
                let discriminants = discriminants
                    .into_iter()
                    .map(|d| {
                        let s = self.span(&d);
                        let mut di = d.into_inner();
                        di.next();
                        let off = self.int(di.next().expect("discriminant offset"));
                        let ty = self.ident(di.next().expect("discriminant type"));
                        (off, ty, s)
                    })
                    .collect();
                let members = self.attach(rest.into_iter(), |b, p, ann| b.member(p, ann));
                (name, ItemKind::Record { size, discriminants, engines, members })
            }
            Rule::struct_def | Rule::group_def => {
                let name = self.ident(inner.next()?);
                let size = self.int(inner.next()?);
                let members = self.layout_body(inner.next()?);
                (name, ItemKind::Struct { size, members, is_group: rule == Rule::group_def })
            }
            Rule::arm_def => {
                let name = self.ident(inner.next()?);
                let record = self.ident(inner.next()?);
                let mut next = inner.next()?;
                let mut preamble = None;
                if next.as_rule() == Rule::preamble_sel {
                    let s = self.span(&next);
                    let names = next.into_inner().map(|i| self.ident(i)).collect();
                    preamble = Some((names, s));
                    next = inner.next()?;
                }
                let members = self.layout_body(next);
                (name, ItemKind::Arm { record, preamble, members })
            }
            Rule::bits_def => {
                let name = self.ident(inner.next()?);
                let width = self.ident(inner.next()?);
                let rest: Vec<_> = inner.collect();
                let mut fields = Vec::new();
                let mut alts = Vec::new();
                enum BitsMember {
                    Field(BitFieldDef),
                    Alt(AltDef),
                }
                impl Annotated for BitsMember {
                    fn ann(&mut self) -> &mut Annotations {
                        match self {
                            BitsMember::Field(f) => &mut f.ann,
                            BitsMember::Alt(a) => &mut a.ann,
                        }
                    }
                }
                let members = self.attach(rest.into_iter(), |b, p, ann| match p.as_rule() {
                    Rule::bit_field => Some(BitsMember::Field(b.bit_field(p, ann))),
                    Rule::alt => Some(BitsMember::Alt(b.alt(p, ann))),
                    r => unreachable!("bits member rule {r:?}"),
                });
                for m in members {
                    match m {
                        BitsMember::Field(f) => fields.push(f),
                        BitsMember::Alt(a) => alts.push(a),
                    }
                }
                (name, ItemKind::Bits { width, fields, alts })
            }
            Rule::enum_def => {
                let name = self.ident(inner.next()?);
                let mut rest = inner.peekable();
                let width = match rest.peek() {
                    Some(w) if w.as_rule() == Rule::enum_width => {
                        let w = rest.next()?;
                        Some(self.ident(w.into_inner().next()?))
                    }
                    _ => None,
                };
                let variants = self.attach(rest, |b, p, ann| {
                    let mut vi = p.into_inner();
                    let name = b.ident(vi.next()?);
                    let value = vi.next().map(|v| b.int(v));
                    let arm = vi.next().and_then(|a| a.into_inner().next()).map(|a| b.ident(a));
                    Some(VariantDef { name, value, arm, ann })
                });
                (name, ItemKind::Enum { width, variants })
            }
            Rule::union_def => {
                let name = self.ident(inner.next()?);
                let size = self.int(inner.next()?);
                let views = self.attach(inner, |b, p, ann| b.view(p, ann));
                (name, ItemKind::Union { size, views })
            }
            Rule::band_def => {
                let enum_name = self.ident(inner.next()?);
                let name = self.ident(inner.next()?);
                let elems = inner.map(|e| self.band_elem(e)).collect();
                (name, ItemKind::Band { enum_name, elems })
            }
            Rule::bind_def => {
                let opcode = self.value_ref(inner.next()?);
                let mut next = inner.next()?;
                let mut sub = None;
                if next.as_rule() == Rule::sub_opcode {
                    let mut si = next.into_inner();
                    si.next();
                    let off = self.int(si.next()?);
                    let val = self.value_ref(si.next()?);
                    sub = Some((off, val));
                    next = inner.next()?;
                }
                let arm = self.ident(next);
                let mnemonic =
                    inner.next().and_then(|a| a.into_inner().nth(1)).map(|m| self.ident(m));
                (kw_ident, ItemKind::Bind { opcode, sub, arm, mnemonic })
            }
            Rule::sentinel_def => {
                let name = self.ident(inner.next()?);
                let arm = self.ident(inner.next()?);
                (name, ItemKind::Sentinel { arm })
            }
            Rule::bitmask_def => {
                let name = self.ident(inner.next()?);
                let enum_name = self.ident(inner.next()?);
                let words = inner.map(|w| self.int(w)).collect();
                (name, ItemKind::Bitmask { enum_name, words })
            }
            Rule::aperture_def => {
                let name = self.ident(inner.next()?);
                let regions = self.attach(inner, |b, p, ann| Some(b.region(p, ann)));
                (name, ItemKind::Aperture { regions })
            }
            Rule::geometry_def => {
                let name = self.ident(inner.next()?);
                let ty = self.geom_type(inner.next()?);
                (name, ItemKind::Geometry { ty })
            }
            Rule::derived_def => {
                let name = self.ident(inner.next()?);
                let ty = self.geom_type(inner.next()?);
                let expr = self.expr(inner.next()?);
                (name, ItemKind::Derived { ty, expr })
            }
            Rule::rule_def => {
                let name = self.ident(inner.next()?);
                let mut params = Vec::new();
                let mut expr = None;
                let mut requires = Vec::new();
                for c in inner {
                    match c.as_rule() {
                        Rule::ident => params.push(self.ident(c)),
                        Rule::expr => expr = Some(self.expr(c)),
                        Rule::requires => {
                            requires = c
                                .into_inner()
                                .filter(|x| x.as_rule() == Rule::cond)
                                .map(|x| self.cond(x))
                                .collect()
                        }
                        r => unreachable!("rule member {r:?}"),
                    }
                }
                (name, ItemKind::Rule { params, expr: expr?, requires })
            }
            r => unreachable!("item rule {r:?}"),
        };
        let (name, kind) = kind_and_name;
        Some(Item { name, kind, ann, span })
    }

    fn layout_body(&mut self, p: Pair<'_, Rule>) -> Vec<Member> {
        self.attach(p.into_inner(), |b, p, ann| b.member(p, ann))
    }

    fn member(&mut self, p: Pair<'_, Rule>, ann: Annotations) -> Option<Member> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut inner = p.into_inner();
        let offset = self.int(inner.next()?);
        Some(match rule {
            Rule::field => {
                let name = self.ident(inner.next()?);
                let ty = self.type_ref(inner.next()?);
                Member::Field { offset, name, ty, ann, span }
            }
            Rule::use_member => {
                inner.next();
                let group = self.ident(inner.next()?);
                let prefix = inner.nth(1).map(|p| self.ident(p));
                Member::Use { offset, group, prefix, ann, span }
            }
            r => unreachable!("member rule {r:?}"),
        })
    }

    fn type_ref(&mut self, p: Pair<'_, Rule>) -> TypeRef {
        let inner = p.into_inner().next().expect("type_ref has one child");
        let span = self.span(&inner);
        match inner.as_rule() {
            Rule::ident => TypeRef::Named(self.ident(inner)),
            Rule::reserved_ty => {
                let n = inner.into_inner().nth(1).expect("reserved has a size");
                TypeRef::Reserved(self.int(n), span)
            }
            Rule::unknown_ty => {
                let n = inner.into_inner().nth(1).expect("unknown has a size");
                TypeRef::Unknown(self.int(n), span)
            }
            Rule::array_ty => {
                let mut ai = inner.into_inner();
                let elem = self.type_ref(ai.next().expect("array element"));
                let n = self.int(ai.next().expect("array length"));
                TypeRef::Array(Box::new(elem), n, span)
            }
            r => unreachable!("type rule {r:?}"),
        }
    }

    fn bit_field(&mut self, p: Pair<'_, Rule>, ann: Annotations) -> BitFieldDef {
        let span = self.span(&p);
        let mut inner = p.into_inner();
        let lo = self.int(inner.next().expect("lo"));
        let hi = self.int(inner.next().expect("hi"));
        let name = self.ident(inner.next().expect("name"));
        let ty = inner.next().and_then(|t| t.into_inner().next()).map(|t| self.ident(t));
        BitFieldDef { lo, hi, name, ty, ann, span }
    }

    fn view(&mut self, p: Pair<'_, Rule>, ann: Annotations) -> Option<ViewDef> {
        let span = self.span(&p);
        let mut inner = p.into_inner();
        let name = self.ident(inner.next()?);
        let ty = self.type_ref(inner.next()?);
        let (mut when, mut otherwise) = (None, false);
        if let Some(sel) = inner.next() {
            if sel.as_rule() == Rule::view_when {
                let s = self.span(&sel);
                let mut wi = sel.into_inner().skip(2);
                let offset = self.int(wi.next()?);
                let mask = self.int(wi.next()?);
                let value = self.int(wi.next()?);
                when = Some(ByteTestDef { offset, mask, value, span: s });
            } else {
                otherwise = true;
            }
        }
        Some(ViewDef { name, ty, when, otherwise, ann, span })
    }

    fn alt(&mut self, p: Pair<'_, Rule>, ann: Annotations) -> AltDef {
        let span = self.span(&p);
        let mut inner = p.into_inner();
        inner.next();
        let name = self.ident(inner.next().expect("alt name"));
        let sel = inner.next().expect("alt selector");
        let when = (sel.as_rule() == Rule::alt_when).then(|| {
            let s = self.span(&sel);
            let mut wi = sel.into_inner();
            wi.next();
            let field = self.ident(wi.next().expect("when field"));
            let mask = self.int(wi.next().expect("when mask"));
            let value = self.int(wi.next().expect("when value"));
            WhenDef { field, mask, value, span: s }
        });
        let fields = self.attach(inner, |b, p, ann| Some(b.bit_field(p, ann)));
        AltDef { name, when, fields, ann, span }
    }

    fn band_elem(&mut self, p: Pair<'_, Rule>) -> BandElem {
        match p.as_rule() {
            Rule::int => BandElem::Value(self.int(p)),
            Rule::ident => BandElem::Band(self.ident(p)),
            Rule::value_range => {
                let s = self.span(&p);
                let mut ri = p.into_inner();
                let lo = self.int(ri.next().expect("lo"));
                let hi = self.int(ri.next().expect("hi"));
                BandElem::Range(lo, hi, s)
            }
            r => unreachable!("band element {r:?}"),
        }
    }

    fn value_ref(&mut self, p: Pair<'_, Rule>) -> ValueRef {
        let inner = p.into_inner().next().expect("value_ref has one child");
        match inner.as_rule() {
            Rule::int => ValueRef::Int(self.int(inner)),
            Rule::ident => ValueRef::Name(self.ident(inner)),
            r => unreachable!("value_ref {r:?}"),
        }
    }

    fn region(&mut self, p: Pair<'_, Rule>, ann: Annotations) -> RegionDef {
        let span = self.span(&p);
        let mut inner = p.into_inner();
        let name = self.ident(inner.next().expect("region name"));
        let body = inner.next().expect("region body");
        let is_range = body.as_rule() == Rule::value_range;
        let mut bi = body.into_inner();
        let base = self.int(bi.next().expect("region base"));
        let second = self.int(bi.next().expect("region size or end"));
        let (size, last) = if is_range { (None, Some(second)) } else { (Some(second), None) };
        RegionDef { name, base, size, last, ann, span }
    }

    fn geom_type(&mut self, p: Pair<'_, Rule>) -> GeomTypeRef {
        let mut inner = p.into_inner();
        let head = inner.next().expect("geom type head");
        let optional = inner.next().is_some();
        match head.as_rule() {
            Rule::ident => GeomTypeRef::Named(self.ident(head), optional),
            Rule::geom_array => {
                let s = self.span(&head);
                let mut ai = head.into_inner();
                let elem = self.geom_type(ai.next().expect("element"));
                let len = ai.next().map(|len| match len.as_rule() {
                    Rule::int => ValueRef::Int(self.int(len)),
                    _ => ValueRef::Name(self.ident(len)),
                });
                GeomTypeRef::Array(Box::new(elem), len, optional, s)
            }
            r => unreachable!("geom type {r:?}"),
        }
    }

    /// An expression, at most [`MAX_OPERATORS`] operators in all (parentheses
    /// included): every later stage walks its tree recursively, so a bound on its size
    /// bounds the stack they take. Past it, one error at the expression.
    fn expr(&mut self, p: Pair<'_, Rule>) -> ExprAst {
        let span = self.span(&p);
        let mut count = 0;
        match self.expr_within(p, &mut count) {
            Some(e) => e,
            None => {
                self.errors.push(Diagnostic::error(
                    span,
                    format!(
                        "expression has more than {MAX_OPERATORS} operators; split it into \
                         derived values"
                    ),
                ));
                ExprAst::Int(Int { value: 0, span })
            }
        }
    }

    /// Precedence climbing over the flat `operand (op operand)*` list, Rust's levels;
    /// `None` once `count` (the operators so far) passes [`MAX_OPERATORS`].
    fn expr_within(&mut self, p: Pair<'_, Rule>, count: &mut usize) -> Option<ExprAst> {
        let mut operands = Vec::new();
        let mut ops = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::int => operands.push(ExprAst::Int(self.int(c))),
                Rule::ident => operands.push(ExprAst::Name(self.ident(c))),
                Rule::paren => {
                    let e = c.into_inner().next().expect("paren has an expr");
                    operands.push(self.expr_within(e, count)?);
                }
                r => ops.push(match r {
                    Rule::mul => BinOp::Mul,
                    Rule::div => BinOp::Div,
                    Rule::rem => BinOp::Rem,
                    Rule::add => BinOp::Add,
                    Rule::sub => BinOp::Sub,
                    Rule::shl => BinOp::Shl,
                    Rule::shr => BinOp::Shr,
                    Rule::and => BinOp::And,
                    Rule::xor => BinOp::Xor,
                    Rule::or => BinOp::Or,
                    r => unreachable!("expression member {r:?}"),
                }),
            }
            if ops.len() + *count > MAX_OPERATORS {
                return None;
            }
        }
        *count += ops.len();
        Some(climb(operands, ops))
    }

    fn cond(&mut self, p: Pair<'_, Rule>) -> CondAst {
        let span = self.span(&p);
        let mut inner = p.into_inner();
        let lhs = self.expr(inner.next().expect("lhs"));
        let op = match inner.next().expect("cmp").as_str() {
            "<" => CmpOp::Lt,
            "<=" => CmpOp::Le,
            ">" => CmpOp::Gt,
            ">=" => CmpOp::Ge,
            "==" => CmpOp::Eq,
            "!=" => CmpOp::Ne,
            o => unreachable!("comparison {o}"),
        };
        let rhs = self.expr(inner.next().expect("rhs"));
        CondAst { lhs, op, rhs, span }
    }
}

/// The most operators one expression may hold (a geometry rule holds a handful).
pub const MAX_OPERATORS: usize = 256;

/// Fold `a op b op c ...` left-associatively by precedence (shunting-yard).
fn climb(operands: Vec<ExprAst>, ops: Vec<BinOp>) -> ExprAst {
    fn reduce(out: &mut Vec<ExprAst>, op: BinOp) {
        let rhs = out.pop().expect("operand");
        let lhs = out.pop().expect("operand");
        let span = Span { file: lhs.span().file, start: lhs.span().start, end: rhs.span().end };
        out.push(ExprAst::Binary(op, Box::new(lhs), Box::new(rhs), span));
    }
    let mut operands = operands.into_iter();
    let mut out = vec![operands.next().expect("an expression has an operand")];
    let mut stack: Vec<BinOp> = Vec::new();
    for (op, rhs) in ops.into_iter().zip(operands) {
        while stack.last().is_some_and(|&top| top.precedence() >= op.precedence()) {
            reduce(&mut out, stack.pop().expect("checked"));
        }
        stack.push(op);
        out.push(rhs);
    }
    while let Some(op) = stack.pop() {
        reduce(&mut out, op);
    }
    out.pop().expect("one expression remains")
}

fn doc_text(p: &Pair<'_, Rule>) -> String {
    let text = p.as_str().strip_prefix("///").unwrap_or(p.as_str());
    let text = text.strip_prefix(' ').unwrap_or(text);
    text.trim_end().to_string()
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}
