//! `disasm.rs`: the tables the text disassembler and assembler walk.
//!
//! Every arm becomes an `ArmText`: its mnemonic and, per layout, its leaf fields in
//! offset order (structs flattened into dotted names, `events.wait_mode`). Enums, operand
//! types with bit-fields and unions get one table each, shared by every field of their
//! type. `MNEMONICS` maps each mnemonic of the text form to what it assembles (a
//! binding, an opcode no arm reads, an arm no binding selects), sorted for binary
//! search. The parser in `tpb_isa::disasm` is generic over these tables. Each arm also
//! gets a printer, `PRINTERS[kind]`: per generation, one `leaf` call per row of the
//! layout table, so that the optimizer folds each row's offset, kind and name into
//! straight-line code (the generic walk ran 1.6 times slower on the corpus); each operand
//! type with bit-fields likewise gets one (`BitsDesc::print`), its forms under a match.
//! Each arm gets a reader the same way, `READERS[kind]`: one `printed_leaf` call per row,
//! which reads a line as the printer wrote it (the assembler's general reader takes any
//! other line). A new arm in the spec is printable and assemblable once generated.

use heck::ToShoutySnakeCase;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::model::*;

use super::names;
use super::tokens::{dec, hex};
use super::{ArmCursor, Chunks};

/// The whole file.
///
/// In chunks (see `emit::render`): the head (the tables the arms reach), each arm's
/// layout tables and printer, the tail (`ARMS`, `PRINTERS`, the opaque record and the
/// mnemonics).
pub fn emit(model: &Model) -> Box<dyn Chunks + '_> {
    let cx = Cx {
        model,
        confidences: [false; 3],
        used: Used::default(),
        in_view: false,
        printers: Vec::new(),
        readers: Vec::new(),
    };
    Box::new(ArmTexts { cx, next: ArmCursor::default(), arms: Vec::new() })
}

/// The arms' layout tables and printers one arm at a time, noting what they reach.
struct ArmTexts<'m> {
    cx: Cx<'m>,
    /// Where the chunks are.
    next: ArmCursor,
    /// Each given arm's `ArmText`, for `ARMS`.
    arms: Vec<TokenStream>,
}

impl Chunks for ArmTexts<'_> {
    fn next_chunk(&mut self) -> Option<TokenStream> {
        let id = self.next.next(self.cx.model)?;
        let mut layouts = Vec::new();
        self.arms.push(self.cx.arm_text(id, &mut layouts));
        Some(quote! { #(#layouts)* })
    }

    fn finish(self: Box<Self>) -> (TokenStream, TokenStream) {
        let ArmTexts { mut cx, arms, .. } = *self;
        head_and_tail(&mut cx, &arms)
    }
}

/// The tables the arms reach, then `ARMS`, `PRINTERS`, the opaque record and the
/// mnemonics.
fn head_and_tail(cx: &mut Cx<'_>, arms: &[TokenStream]) -> (TokenStream, TokenStream) {
    let model = cx.model;
    let opaque = cx.preamble_and_opaque();
    // Only the tables some leaf reaches: unions first (their views reach more), then
    // operand types, then enums.
    let mut unions = Vec::new();
    let mut done = std::collections::BTreeSet::new();
    while let Some(&u) = cx.used.unions.iter().find(|u| !done.contains(*u)) {
        done.insert(u);
        unions.push(cx.union_desc(&model.unions[u as usize]));
    }
    let bits: Vec<TokenStream> =
        cx.used.bits.clone().into_iter().map(|b| cx.bits_desc(&model.bits[b as usize])).collect();
    let enums: Vec<TokenStream> =
        cx.used.enums.iter().map(|&e| enum_desc(model, EnumId(e))).collect();
    let mnemonics = mnemonics(model);
    let n = model.arms.len();
    let printers = &cx.printers;
    let readers = &cx.readers;
    let conf_uses = ["Certain", "Medium", "Inferred"]
        .iter()
        .zip(cx.confidences)
        .filter(|(_, used)| *used)
        .map(|(c, _)| format_ident!("{c}"));
    // The operand types' printers share the generic body.
    let bits_use =
        (!bits.is_empty()).then(|| quote! { bits_begin, bits_end, bits_field, form_field, });
    let union_use = (!unions.is_empty()).then(|| quote! { union_begin, view_leaf, });
    let bits_read_use = (!bits.is_empty()).then(|| {
        quote! { use crate::disasm::bits_read::{bits_close, bits_item, bits_open, form_item}; }
    });
    let union_read_use = (!unions.is_empty()).then(|| {
        quote! { use crate::disasm::union_read::{union_close, union_open, view_item}; }
    });
    let head = quote! {
        use crate::disasm::desc::Kind::*;
        use crate::disasm::desc::Role::*;
        use crate::disasm::asm::{printed_leaf, Printed, Reader};
        #bits_read_use
        #union_read_use
        use crate::disasm::bound::{arm_max, max_of, other_max};
        use crate::disasm::desc::{
            bit, f, AltDesc, ArmText, BitKind, BitsDesc, EnumDesc, FieldDesc, LayoutText, Select,
            Target, UnionDesc, ViewDesc, ViewSelect,
        };
        use crate::disasm::line::{Buf, Line};
        use crate::disasm::print::{#bits_use #union_use leaf, Printer};
        use crate::facts::Confidence::{#(#conf_uses),*};
        use crate::generated::arms::ArmKind;
        use crate::generated::geometry::Arch;
        use crate::generated::inst::{Binding, RECORD_SIZE};

        #(#enums)*
        #(#bits)*
        #(#unions)*
    };
    // The longest line, a constant per arm: each constant's evaluation walks one arm,
    // where one walk of every arm outgrew what the compiler evaluates (at 2,040 arms).
    let arm_max: Vec<Ident> = (0..n).map(|i| format_ident!("LINE_MAX_{}", i)).collect();
    let arm_index = (0..n).map(|i| dec(i as u64));
    let line_max = quote! {
        #(const #arm_max: usize = arm_max(&ARMS[#arm_index]);)*

        /// The longest line of any record on any generation, bounded from the tables
        /// (`disasm::bound`): what a `disasm::Printer`'s buffer must hold.
        pub(crate) const LINE_MAX: usize = max_of(&[other_max(), #(#arm_max),*]);
    };
    let tail = quote! {
        /// Every arm's text form, indexed by `ArmKind as usize` (the order of `ArmKind::ALL`).
        pub static ARMS: [ArmText; #n] = [#(#arms),*];

        /// Every arm's printer, indexed by `ArmKind as usize`: the shown leaves of a
        /// record, each row of the arm's layout table written out as one call, so that
        /// the row's constants fold into the code (the table walk, unrolled).
        pub(crate) static PRINTERS: [Printer; #n] = [#(#printers),*];

        /// Every arm's reader, indexed by `ArmKind as usize`: a line as its printer
        /// writes it, one `printed_leaf` call per row of the layout (the printer's
        /// rows, on the same generation), so that the row's constants fold into the
        /// code.
        pub(crate) static READERS: [Reader; #n] = [#(#readers),*];

        #opaque

        #mnemonics

        #line_max
    };
    (head, tail)
}

struct Cx<'m> {
    model: &'m Model,
    /// Which confidences the tables name (for the `use` line).
    confidences: [bool; 3],
    /// The enums, operand types and unions the tables name.
    used: Used,
    /// Whether the leaves being listed are a union view's.
    in_view: bool,
    /// Each arm's printer function, in arm order.
    printers: Vec<Ident>,
    /// Each arm's reader function, in arm order.
    readers: Vec<Ident>,
}

#[derive(Default)]
struct Used {
    enums: std::collections::BTreeSet<u32>,
    bits: std::collections::BTreeSet<u32>,
    unions: std::collections::BTreeSet<u32>,
}

fn enum_ident(e: &Enum) -> Ident {
    format_ident!("ENUM_{}", names::const_str(&e.name))
}

fn bits_ident(b: &Bits) -> Ident {
    format_ident!("BITS_{}", names::const_str(&b.name))
}

fn union_ident(u: &Union) -> Ident {
    format_ident!("UNION_{}", names::const_str(&u.name))
}

fn u8l(v: u32) -> proc_macro2::Literal {
    proc_macro2::Literal::u8_unsuffixed(v as u8)
}

/// The mask of `ArchId`s as `Arch as u8` bits.
fn arch_mask(archs: &[ArchId]) -> proc_macro2::Literal {
    proc_macro2::Literal::u8_unsuffixed(super::arch_set::arch_bits(archs))
}

fn enum_desc(model: &Model, id: EnumId) -> TokenStream {
    let e = &model[id];
    let ident = enum_ident(e);
    let name = &e.name;
    let width = u8l(e.width.size());
    let mut sorted: Vec<&Variant> = e.variants.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut by_value: Vec<&Variant> = e.variants.iter().collect();
    by_value.sort_by_key(|v| v.value);
    by_value.dedup_by_key(|v| v.value);
    let vals = by_value.iter().map(|v| {
        let value = hex(v.value);
        let n = &v.name;
        quote! { (#value, #n) }
    });
    let by_name = sorted.iter().map(|v| {
        let value = hex(v.value);
        let n = &v.name;
        quote! { (#n, #value) }
    });
    quote! {
        static #ident: EnumDesc = EnumDesc::new(
            #name,
            #width,
            &[#(#vals),*],
            &[#(#by_name),*],
        );
    }
}

impl Cx<'_> {
    fn bit_kind(&mut self, t: &BitType) -> TokenStream {
        let model = self.model;
        match t {
            BitType::Uint => quote! { BitKind::Uint },
            BitType::Bool => quote! { BitKind::Bool },
            BitType::Enum(e) => {
                self.used.enums.insert(e.0);
                let i = enum_ident(&model[*e]);
                quote! { BitKind::Enum(&#i) }
            }
        }
    }

    fn bit_desc(&mut self, f: &BitField) -> TokenStream {
        let name = &f.name;
        let lo = u8l(f.lo);
        let hi = u8l(f.hi);
        let kind = self.bit_kind(&f.ty);
        quote! { bit(#name, #lo, #hi, #kind) }
    }

    fn bits_desc(&mut self, b: &Bits) -> TokenStream {
        let ident = bits_ident(b);
        let name = &b.name;
        let width = u8l(b.width.size());
        let fields: Vec<TokenStream> = b.fields.iter().map(|f| self.bit_desc(f)).collect();
        let alts: Vec<TokenStream> = b
            .alts
            .iter()
            .map(|a| {
                let an = &a.name;
                let select = match &a.when {
                    Some(p) => {
                        let f = &b.fields[p.field as usize];
                        let field = u8l(p.field);
                        let mask = hex(p.mask & (f.mask() >> f.lo));
                        let value = hex(p.value);
                        quote! { Some(Select { field: #field, mask: #mask, value: #value }) }
                    }
                    None => quote! { None },
                };
                let fields = a.fields.iter().map(|f| self.bit_desc(f)).collect::<Vec<_>>();
                quote! { AltDesc { name: #an, select: #select, fields: &[#(#fields),*] } }
            })
            .collect();
        // The printer: one call per bit-field row, the forms' rows under a match.
        let field_rows: Vec<proc_macro2::Literal> =
            (0..b.fields.len()).map(proc_macro2::Literal::usize_unsuffixed).collect();
        let form_arms = b.alts.iter().enumerate().map(|(a, alt)| {
            let ai = proc_macro2::Literal::usize_unsuffixed(a);
            let rows = (0..alt.fields.len()).map(proc_macro2::Literal::usize_unsuffixed);
            quote! { Some(#ai) => { #(form_field(o, &mut s, &d.alts[#ai].fields[#rows]);)* } }
        });
        let forms = (!b.alts.is_empty()).then(|| {
            quote! {
                match s.form {
                    #(#form_arms)*
                    _ => {}
                }
            }
        });
        // The reader: the printer's calls, each reading the row it prints.
        let read_forms = b.alts.iter().enumerate().map(|(a, alt)| {
            let ai = proc_macro2::Literal::usize_unsuffixed(a);
            let rows = (0..alt.fields.len()).map(proc_macro2::Literal::usize_unsuffixed);
            quote! { Some(#ai) => { #(form_item(&mut r, &d.alts[#ai].fields[#rows]);)* } }
        });
        let read_forms = (!b.alts.is_empty()).then(|| {
            quote! {
                match r.form {
                    #(#read_forms)*
                    _ => {}
                }
            }
        });
        let lower = names::const_str(&b.name).to_lowercase();
        let print = format_ident!("print_bits_{lower}");
        let read = format_ident!("read_bits_{lower}");
        quote! {
            static #ident: BitsDesc = BitsDesc {
                name: #name,
                width: #width,
                fields: &[#(#fields),*],
                alts: &[#(#alts),*],
                print: #print,
                read: #read,
            };

            fn #print(buf: &mut Buf, at: usize, v: u64) -> usize {
                Line::run(buf, at, |o| {
                    let d = &#ident;
                    let mut s = bits_begin(o, d, v);
                    #(bits_field(o, &mut s, #field_rows, &d.fields[#field_rows]);)*
                    #forms
                    bits_end(o, d, &s);
                })
            }

            fn #read(s: &str, at: usize) -> Option<(u64, usize)> {
                let d = &#ident;
                let mut r = bits_open(s, at, d)?;
                #(bits_item(&mut r, #field_rows, &d.fields[#field_rows]);)*
                #read_forms
                bits_close(&r, d)
            }
        }
    }

    /// `SCALAR` kinds: one value, printed without expanding into leaves.
    fn scalar_kind(&mut self, ty: &FieldType) -> Option<TokenStream> {
        let model = self.model;
        Some(match ty {
            FieldType::Prim(Prim::F32) => quote! { F32 },
            FieldType::Prim(p) => {
                let w = u8l(p.size());
                if p.signed() {
                    quote! { Int(#w) }
                } else {
                    quote! { Uint(#w) }
                }
            }
            FieldType::Enum(e) => {
                self.used.enums.insert(e.0);
                let i = enum_ident(&model[*e]);
                quote! { Enum(&#i) }
            }
            FieldType::Bits(id) => {
                let b = &model[*id];
                if b.alts.is_empty() && b.fields.is_empty() {
                    let w = u8l(b.width.size());
                    quote! { Uint(#w) }
                } else {
                    self.used.bits.insert(id.0);
                    let i = bits_ident(b);
                    quote! { Bits(&#i) }
                }
            }
            FieldType::Union(u) => {
                self.used.unions.insert(u.0);
                let i = union_ident(&model[*u]);
                quote! { Union(&#i) }
            }
            FieldType::Array(t, n) if matches!(**t, FieldType::Prim(Prim::I8)) => {
                let n = u8l(*n);
                quote! { Str(#n) }
            }
            FieldType::Array(t, n) => {
                let inner = self.scalar_kind(t)?;
                let n = u8l(*n);
                quote! { Array(&#inner, #n) }
            }
            FieldType::Struct(_) | FieldType::Reserved(_) | FieldType::Unknown(_) => return None,
        })
    }
}

impl Cx<'_> {
    fn conf(&mut self, c: Confidence) -> Ident {
        let (i, s) = match c {
            Confidence::Certain => (0, "Certain"),
            Confidence::Medium => (1, "Medium"),
            Confidence::Inferred => (2, "Inferred"),
        };
        self.confidences[i] = true;
        format_ident!("{s}")
    }

    /// The leaf fields of a field of type `ty` at `offset`, named `name`.
    #[allow(clippy::too_many_arguments)]
    fn leaves(
        &mut self,
        name: &str,
        offset: u32,
        ty: &FieldType,
        role: Role,
        c: Confidence,
        out: &mut Vec<Leaf>,
    ) {
        let model = self.model;
        let join = |a: &str, b: &str| if a.is_empty() { b.to_string() } else { format!("{a}.{b}") };
        let kind = match ty {
            FieldType::Struct(s) => {
                for f in &model[*s].fields {
                    let c = c.max(f.meta.confidence);
                    let role = if f.is_opaque() { Role::Reserved } else { role };
                    self.leaves(&join(name, &f.name), offset + f.offset, &f.ty, role, c, out);
                }
                return;
            }
            FieldType::Array(t, n)
                if matches!(
                    t.leaf(),
                    FieldType::Struct(_) | FieldType::Reserved(_) | FieldType::Unknown(_)
                ) =>
            {
                let stride = model.size_of(t);
                for i in 0..*n {
                    let role = if t.is_opaque() { Role::Reserved } else { role };
                    self.leaves(&join(name, &i.to_string()), offset + i * stride, t, role, c, out);
                }
                return;
            }
            FieldType::Reserved(n) | FieldType::Unknown(n) => {
                let role = if matches!(ty, FieldType::Unknown(_)) {
                    Role::Unknown
                } else {
                    Role::Reserved
                }
                .tokens();
                let n = u8l(*n);
                let c = self.conf(c);
                let off = u8l(offset);
                let row = quote! { f(#name, #off, Bytes(#n), #role, #c) };
                out.push(Leaf { row, offset, opcode: false });
                return;
            }
            t => self.scalar_kind(t).expect("every other type is a scalar kind"),
        };
        let c = self.conf(c);
        let off = u8l(offset);
        let disc = model.record.discriminant.offset;
        // The opcode byte, wherever a layout declares it (a union view's offsets are
        // from the union's start, so never there).
        let role = match role {
            Role::Preamble | Role::Normal
                if !self.in_view && offset == disc && model.size_of(ty) == 1 =>
            {
                Role::Opcode
            }
            r => r,
        };
        let opcode = matches!(role, Role::Opcode);
        let role = role.tokens();
        out.push(Leaf { row: quote! { f(#name, #off, #kind, #role, #c) }, offset, opcode });
    }

    fn union_desc(&mut self, u: &Union) -> TokenStream {
        let ident = union_ident(u);
        let name = &u.name;
        let size = u8l(u.size);
        let all: Vec<ArchId> = self.model.arch_ids().collect();
        let mut leaf_counts = Vec::new();
        let views: Vec<TokenStream> = u
            .views
            .iter()
            .map(|v| {
                let vn = &v.name;
                let select = match v.select {
                    Select::When(t) => {
                        let (o, m, x) = (u8l(t.offset), hex(u64::from(t.mask)), hex(u64::from(t.value)));
                        quote! { ViewSelect::When { offset: #o, mask: #m, value: #x } }
                    }
                    Select::Otherwise => quote! { ViewSelect::Otherwise },
                    Select::Never => quote! { ViewSelect::Never },
                };
                let archs = arch_mask(v.meta.archs.as_deref().unwrap_or(&all));
                let mut fields = Vec::new();
                let c = v.meta.confidence.max(u.meta.confidence);
                self.in_view = true;
                self.leaves("", 0, &v.ty, Role::Normal, c, &mut fields);
                self.in_view = false;
                leaf_counts.push(fields.len());
                let fields = fields.into_iter().map(|l| l.row);
                quote! { ViewDesc { name: #vn, select: #select, archs: #archs, fields: &[#(#fields),*] } }
            })
            .collect();
        // The printer: per view, one `view_leaf` call per leaf.
        let print = format_ident!("print_union_{}", names::const_str(&u.name).to_lowercase());
        let view_arms = leaf_counts.iter().enumerate().map(|(i, &n)| {
            let vi = proc_macro2::Literal::usize_unsuffixed(i);
            let rows = (0..n).map(proc_macro2::Literal::usize_unsuffixed);
            quote! { Some(#vi) => { #(view_leaf(o, arch, b, &mut first, &d.views[#vi].fields[#rows]);)* } }
        });
        // The reader: the printer's calls, each reading the leaf it prints.
        let read = format_ident!("read_union_{}", names::const_str(&u.name).to_lowercase());
        let read_arms = leaf_counts.iter().enumerate().map(|(i, &n)| {
            let vi = proc_macro2::Literal::usize_unsuffixed(i);
            let rows = (0..n).map(proc_macro2::Literal::usize_unsuffixed);
            quote! { #vi => { #(view_item(&mut r, &d.views[#vi].fields[#rows], out);)* } }
        });
        quote! {
            static #ident: UnionDesc = UnionDesc {
                name: #name,
                size: #size,
                views: &[#(#views),*],
                print: #print,
                read: #read,
            };

            fn #read(s: &str, at: usize, out: &mut [u8]) -> Option<usize> {
                let d = &#ident;
                let mut r = union_open(s, at, d)?;
                match r.view {
                    #(#read_arms)*
                    _ => {}
                }
                union_close(&r)
            }

            fn #print(buf: &mut Buf, at: usize, arch: Arch, b: &[u8]) -> usize {
                Line::run(buf, at, |o| {
                    let d = &#ident;
                    let mut first = true;
                    match union_begin(o, arch, d, b) {
                        #(#view_arms)*
                        Some(_) => {}
                        None => return,
                    }
                    o.byte(b'}');
                })
            }
        }
    }

    fn layout_fields(&mut self, fields: &[Field]) -> Vec<Leaf> {
        let disc = self.model.record.discriminant.offset;
        let mut out = Vec::new();
        for f in fields {
            let role = if f.offset == disc && f.size == 1 && f.inherited {
                Role::Opcode
            } else if f.is_opaque() {
                Role::Reserved
            } else if f.inherited {
                Role::Preamble
            } else {
                Role::Normal
            };
            self.leaves(&f.name, f.offset, &f.ty, role, f.meta.confidence, &mut out);
        }
        out
    }

    /// Whether a layout's inherited fields are the record's whole preamble, so that
    /// its table can point at the shared `PREAMBLE`.
    fn shares_preamble(&self, l: &Layout) -> bool {
        let own: Vec<&Field> = l.fields.iter().filter(|f| f.inherited).collect();
        let rec = &self.model.record.preamble;
        own.len() == rec.len()
            && own
                .iter()
                .zip(rec)
                .all(|(a, b)| a.name == b.name && a.offset == b.offset && a.ty == b.ty)
    }

    /// The arm's table, and one `static` per layout.
    fn arm_text(&mut self, id: ArmId, statics: &mut Vec<TokenStream>) -> TokenStream {
        let arm = &self.model[id];
        let kind = names::ident(&arm.rust);
        let name = &arm.name;
        let mnemonic = &arm.mnemonic;
        let bindings = self
            .model
            .bindings
            .iter()
            .enumerate()
            .filter(|(_, b)| b.arm == id)
            .map(|(i, _)| dec(i as u64));
        // Where the arm's bindings put a sub-opcode: the only leaves, with the opcode,
        // that a binding can imply.
        let sub_offsets: Vec<u32> = self
            .model
            .bindings
            .iter()
            .filter(|b| b.arm == id)
            .filter_map(|b| b.sub.as_ref().map(|s| s.offset))
            .collect();
        let mut bodies = Vec::new();
        let layouts: Vec<TokenStream> = arm
            .layouts
            .iter()
            .map(|l| {
                let archs = arch_mask(&l.archs);
                let shared = self.shares_preamble(l);
                let own: Vec<Field> =
                    l.fields.iter().filter(|f| !(shared && f.inherited)).cloned().collect();
                let leaves = self.layout_fields(&own);
                let ident = format_ident!("L_{}", l.rust.to_shouty_snake_case());
                let n = leaves.len();
                let implied: Vec<bool> =
                    leaves.iter().map(|x| x.opcode || sub_offsets.contains(&x.offset)).collect();
                let fields = leaves.into_iter().map(|x| x.row);
                statics.push(quote! { static #ident: [FieldDesc; #n] = [#(#fields),*]; });
                bodies.push((l.archs.clone(), leaf_calls(shared, &ident, &implied)));
                let preamble = if shared {
                    quote! { &PREAMBLE }
                } else {
                    quote! { &[] }
                };
                quote! { LayoutText { archs: #archs, preamble: #preamble, fields: &#ident } }
            })
            .collect();
        let (print, read): (Vec<_>, Vec<_>) = bodies
            .into_iter()
            .map(|(archs, c)| ((archs.clone(), c.print), (archs, c.read)))
            .unzip();
        statics.push(self.printer(&arm.rust, print));
        statics.push(self.reader(&arm.rust, read));
        quote! {
            ArmText {
                kind: ArmKind::#kind,
                name: #name,
                mnemonic: #mnemonic,
                bindings: &[#(#bindings),*],
                layouts: &[#(#layouts),*],
            }
        }
    }

    /// The arm's printer: per generation, one `leaf` call per row of the layout that
    /// holds there (as `ArmText::layout` picks it: the first layout naming the
    /// generation, else the oldest).
    fn printer(&mut self, rust: &str, bodies: Vec<(Vec<ArchId>, TokenStream)>) -> TokenStream {
        let ident = names::snake_join(&["print", rust]);
        self.printers.push(ident.clone());
        let body = self.by_arch(bodies);
        quote! {
            fn #ident(
                buf: &mut Buf,
                at: usize,
                arch: Arch,
                r: &[u8; RECORD_SIZE],
                b: Option<&'static Binding>,
            ) -> usize {
                Line::run(buf, at, |o| { #body })
            }
        }
    }

    /// The arm's reader: per generation, one `printed_leaf` call per row of the layout
    /// its printer prints there.
    fn reader(&mut self, rust: &str, bodies: Vec<(Vec<ArchId>, TokenStream)>) -> TokenStream {
        let ident = names::snake_join(&["read", rust]);
        self.readers.push(ident.clone());
        let body = self.by_arch(bodies);
        quote! {
            fn #ident(p: &mut Printed<'_>, arch: Arch) {
                #body
            }
        }
    }

    /// `bodies` (a body per layout, with the generations it names) under a match on
    /// `arch`, as `ArmText::layout` picks a layout.
    fn by_arch(&self, bodies: Vec<(Vec<ArchId>, TokenStream)>) -> TokenStream {
        let mut claimed: Vec<ArchId> = bodies.first().map(|b| b.0.clone()).unwrap_or_default();
        let mut arms = Vec::new();
        for (archs, body) in bodies.iter().skip(1) {
            let own: Vec<Ident> = archs
                .iter()
                .filter(|a| !claimed.contains(a))
                .map(|&a| names::variant(&self.model[a].name))
                .collect();
            claimed.extend(archs);
            if !own.is_empty() {
                arms.push(quote! { #(Arch::#own)|* => { #body } });
            }
        }
        let first = bodies.into_iter().next().map(|b| b.1).unwrap_or_default();
        if arms.is_empty() {
            quote! { let _ = arch; #first }
        } else {
            quote! {
                match arch {
                    #(#arms)*
                    _ => { #first }
                }
            }
        }
    }

    /// `PREAMBLE`, the record's preamble shared by every arm that inherits all of it, and
    /// `OPAQUE`: a record whose opcode no arm reads, its preamble then its payload as bytes.
    fn preamble_and_opaque(&mut self) -> TokenStream {
        let rec = &self.model.record;
        let preamble: Vec<Field> =
            rec.preamble.iter().map(|f| Field { inherited: true, ..f.clone() }).collect();
        let leaves = self.layout_fields(&preamble);
        let n = leaves.len();
        // The preamble is every arm's: a leaf any binding can imply gets the binding.
        let subs: Vec<u32> =
            self.model.bindings.iter().filter_map(|b| b.sub.as_ref().map(|s| s.offset)).collect();
        let implied: Vec<bool> =
            leaves.iter().map(|x| x.opcode || subs.contains(&x.offset)).collect();
        let calls: Vec<TokenStream> = implied
            .iter()
            .enumerate()
            .map(|(i, &implied)| {
                let (i, b) = (dec(i as u64), binding_arg(implied));
                quote! { leaf(o, arch, r, #b, &PREAMBLE[#i]); }
            })
            .collect();
        // Named for the signature every printer shares, used only where a leaf needs it.
        let unused = (!implied.contains(&true)).then(|| quote! { let _ = b; });
        let fields: Vec<TokenStream> = leaves.into_iter().map(|x| x.row).collect();
        let indexes2 = (0..n).map(|i| dec(i as u64));
        let off = u8l(rec.preamble_size);
        let size = u8l(rec.size - rec.preamble_size);
        let c = self.conf(Confidence::Certain);
        let all = arch_mask(&self.model.arch_ids().collect::<Vec<_>>());
        quote! {
            /// The record's preamble, shared by the arms that inherit all of it.
            pub static PREAMBLE: [FieldDesc; #n] = [#(#fields),*];

            /// The shown leaves of `PREAMBLE`.
            fn print_preamble(
                buf: &mut Buf,
                at: usize,
                arch: Arch,
                r: &[u8; RECORD_SIZE],
                b: Option<&'static Binding>,
            ) -> usize {
                Line::run(buf, at, |o| {
                    #unused
                    #(#calls)*
                })
            }

            /// The leaves of `PREAMBLE`, read as `print_preamble` writes them.
            fn read_preamble(p: &mut Printed<'_>) {
                #(printed_leaf(p, &PREAMBLE[#indexes2]);)*
            }

            /// The text form of a record whose opcode the spec names but no arm reads: its
            /// preamble, then the payload as bytes.
            pub static OPAQUE: LayoutText = LayoutText {
                archs: #all,
                preamble: &PREAMBLE,
                fields: &[f("payload", #off, Bytes(#size), Unknown, #c)],
            };
        }
    }
}

/// A layout's calls, one per leaf, for its printer and for its reader.
struct Calls {
    /// `leaf` calls, for the printer.
    print: TokenStream,
    /// `printed_leaf` calls, for the reader.
    read: TokenStream,
}

/// A leaf row of a table, with what the printer's call for it needs to know.
struct Leaf {
    /// The row: `f(name, offset, kind, role, confidence)`.
    row: TokenStream,
    /// Its offset in the record (in a union view, in the union).
    offset: u32,
    /// Whether it is the record's opcode byte.
    opcode: bool,
}

/// The binding argument of a `leaf` call: `b` where the binding may imply the leaf's
/// value (the opcode, a sub-opcode), else `None`, which spares the printer the test of
/// the binding at every other leaf.
fn binding_arg(implied: bool) -> TokenStream {
    if implied {
        quote! { b }
    } else {
        quote! { None }
    }
}

/// A layout's calls: the shared preamble's (when it has it), then one per row of its
/// table `ident`, `implied[i]` saying whether a binding may imply row `i`.
fn leaf_calls(shared: bool, ident: &Ident, implied: &[bool]) -> Calls {
    let rows: Vec<_> = (0..implied.len()).map(|i| dec(i as u64)).collect();
    let bs: Vec<_> = implied.iter().map(|&x| binding_arg(x)).collect();
    let print_preamble =
        shared.then(|| quote! { o.call(|buf, at| print_preamble(buf, at, arch, r, b)); });
    let read_preamble = shared.then(|| quote! { read_preamble(p); });
    Calls {
        print: quote! {
            #print_preamble
            #(leaf(o, arch, r, #bs, &#ident[#rows]);)*
        },
        read: quote! {
            #read_preamble
            #(printed_leaf(p, &#ident[#rows]);)*
        },
    }
}

/// Where a leaf is printed, as the tables say it.
#[derive(Clone, Copy)]
enum Role {
    Normal,
    Preamble,
    Reserved,
    Unknown,
    Opcode,
}

impl Role {
    fn tokens(self) -> TokenStream {
        match self {
            Role::Normal => quote! { Normal },
            Role::Preamble => quote! { Preamble },
            Role::Reserved => quote! { Reserved },
            Role::Unknown => quote! { Unknown },
            Role::Opcode => quote! { Opcode },
        }
    }
}

/// `MNEMONICS`: every mnemonic of the text form and what it assembles, sorted.
fn mnemonics(model: &Model) -> TokenStream {
    let mut rows: Vec<(String, TokenStream)> = Vec::new();
    for (i, b) in model.bindings.iter().enumerate() {
        if rows.iter().any(|(m, _)| *m == b.mnemonic) {
            continue;
        }
        let i = dec(i as u64);
        rows.push((b.mnemonic.clone(), quote! { Target::Binding(#i) }));
    }
    // A named opcode no plain binding reads (none at all, or only sub-opcode ones, whose
    // mnemonics are the sub-opcodes') is also its own opaque record's mnemonic: a record
    // of a sub-opcode no binding selects prints and assembles as `pseudo_inst ...`.
    let op_enum = &model[model.opcode_enum()];
    for v in &op_enum.variants {
        if !model.bindings.iter().any(|b| b.opcode == v.value && b.sub.is_none()) {
            let x = hex(v.value);
            rows.push((v.name.to_ascii_lowercase(), quote! { Target::Opaque(#x) }));
        }
    }
    for id in model.arm_ids() {
        if !model.is_bound(id) {
            let k = names::ident(&model[id].rust);
            rows.push((model[id].mnemonic.clone(), quote! { Target::Arm(ArmKind::#k) }));
        }
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows.dedup_by(|a, b| a.0 == b.0);
    let n = rows.len();
    let rows = rows.iter().map(|(m, t)| quote! { (#m, #t) });
    quote! {
        /// Every mnemonic and what it assembles, sorted by mnemonic.
        pub static MNEMONICS: [(&str, Target); #n] = [#(#rows),*];
    }
}
