//! The descriptor types of the text form. `cargo xtask gen` writes one table per arm
//! layout, enum, operand type and union (`generated::disasm`). The assembler walks
//! them; the printer runs one generated function per arm that takes each row of its
//! layout table in turn (the walk unrolled), so no hand-written code knows an arm.
//!
//! A dependent reads the tables (`ArmText::of`, `FieldDesc`'s fields); only the generated
//! code makes their rows, from the checked spec, so the row makers (which trust their
//! arguments: bits `9..3` are not a range) are not the crate's API:
//!
//! ```compile_fail,E0603
//! let _ = tpb_isa::disasm::desc::bit("x", 0, 1, tpb_isa::disasm::desc::BitKind::Uint);
//! ```
//!
//! ```compile_fail,E0624
//! use tpb_isa::disasm::desc::{BitDesc, BitKind};
//! let _ = BitDesc::new("x", 9, 3, BitKind::Uint);
//! ```

use crate::facts::Confidence;
use crate::generated::arms::ArmKind;
use crate::generated::disasm::{ARMS, MNEMONICS};
use crate::generated::geometry::Arch;
use crate::generated::inst::{Binding, BINDINGS, DISCRIMINANT_OFFSET};

/// The names of an enum's values.
#[derive(Debug)]
pub struct EnumDesc {
    /// Spec name (`DTYPE`).
    pub name: &'static str,
    /// Width in bytes.
    pub width: u8,
    /// `(value, name)` sorted by value (the first name of a value the spec names twice).
    pub by_value: &'static [(u64, &'static str)],
    /// `(name, value)` sorted by name.
    pub by_name: &'static [(&'static str, u64)],
    /// The index in `by_value` of each value below 256, [`NO_NAME`] where none: the
    /// printer names a byte with one load, where a search of a sparse enum cost a
    /// mispredicted branch per step.
    by_byte: [u16; 256],
    /// The index in `by_name` of each name at the slot of its [`name_hash`] (or the
    /// next free one after it), [`NO_SLOT`] where none: the assembler finds a name with
    /// a hash and one compare, where a scan of the names cost a test per name (an enum
    /// names up to 172 values). Empty for an enum of more than 255 names, which is
    /// searched by name instead.
    by_hash: [u8; 256],
}

/// A value below 256 that an enum does not name, in [`EnumDesc`]'s byte index.
const NO_NAME: u16 = u16::MAX;

/// A free slot of [`EnumDesc`]'s name hash.
const NO_SLOT: u8 = u8::MAX;

/// The slot of a name in [`EnumDesc`]'s name hash: the top eight bits of
/// [`name_mix`].
#[inline]
const fn name_hash(b: &[u8]) -> usize {
    (name_mix(b) >> 56) as usize
}

impl EnumDesc {
    /// A table row: `by_value` sorted by value without repeats, `by_name` by name.
    #[must_use]
    pub(crate) const fn new(
        name: &'static str,
        width: u8,
        by_value: &'static [(u64, &'static str)],
        by_name: &'static [(&'static str, u64)],
    ) -> EnumDesc {
        let mut by_byte = [NO_NAME; 256];
        let mut i = 0;
        while i < by_value.len() && i < NO_NAME as usize {
            let v = by_value[i].0;
            if v < 256 && by_byte[v as usize] == NO_NAME {
                by_byte[v as usize] = i as u16;
            }
            i += 1;
        }
        let mut by_hash = [NO_SLOT; 256];
        if by_name.len() < 256 {
            let mut i = 0;
            while i < by_name.len() {
                let mut slot = name_hash(by_name[i].0.as_bytes());
                while by_hash[slot] != NO_SLOT {
                    slot = (slot + 1) % 256;
                }
                by_hash[slot] = i as u8;
                i += 1;
            }
        }
        EnumDesc { name, width, by_value, by_name, by_byte, by_hash }
    }

    /// The name of `v`, if the spec names it.
    #[must_use]
    #[inline]
    pub fn name_of(&self, v: u64) -> Option<&'static str> {
        if v < 256 {
            let i = self.by_byte[v as usize];
            return self.by_value.get(usize::from(i)).map(|&(_, n)| n);
        }
        let i = self.by_value.binary_search_by_key(&v, |(x, _)| *x).ok()?;
        Some(self.by_value[i].1)
    }

    /// The value name that is `name` but for case, for an error's hint.
    #[must_use]
    pub fn name_like(&self, name: &str) -> Option<&'static str> {
        self.by_name.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|&(n, _)| n)
    }

    /// The value named `name`.
    #[must_use]
    pub fn value_of(&self, name: &str) -> Option<u64> {
        if self.by_name.len() >= 256 {
            let i = self.by_name.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
            return Some(self.by_name[i].1);
        }
        // Fewer names than slots, so a free slot ends every probe.
        let mut slot = name_hash(name.as_bytes());
        loop {
            let &(n, v) = self.by_name.get(usize::from(self.by_hash[slot]))?;
            if same(n, name) {
                return Some(v);
            }
            slot = (slot + 1) % 256;
        }
    }
}

/// `(field >> 0) & mask == value` on one of an operand's bit-fields: when a form applies.
#[derive(Clone, Copy, Debug)]
pub struct Select {
    /// Index of the selecting bit-field in [`BitsDesc::fields`].
    pub field: u8,
    /// Mask on the field's value.
    pub mask: u64,
    /// Value after masking.
    pub value: u64,
}

/// What a bit-field holds.
#[derive(Clone, Copy, Debug)]
pub enum BitKind {
    /// An unsigned number.
    Uint,
    /// A flag, `true` or `false`.
    Bool,
    /// An enum value, by name where the spec names it.
    Enum(&'static EnumDesc),
}

/// Bits `lo..hi` of an operand.
#[derive(Clone, Copy, Debug)]
pub struct BitDesc {
    /// Name (`immediate`).
    pub name: &'static str,
    /// First bit.
    pub lo: u8,
    /// One past the last bit.
    pub hi: u8,
    /// What the bits hold.
    pub kind: BitKind,
    /// `mask()`, kept so that the printer does not compute it per value.
    mask: u64,
}

impl BitDesc {
    /// A table row.
    #[must_use]
    pub(crate) const fn new(name: &'static str, lo: u8, hi: u8, kind: BitKind) -> BitDesc {
        BitDesc { name, lo, hi, kind, mask: ones(hi - lo) << lo }
    }

    /// The field's mask in place.
    #[must_use]
    #[inline]
    pub const fn mask(&self) -> u64 {
        self.mask
    }

    /// The field's value in `v`.
    #[must_use]
    #[inline]
    pub const fn get(&self, v: u64) -> u64 {
        (v & self.mask()) >> self.lo
    }
}

/// One form of an operand with alternative readings.
#[derive(Debug)]
pub struct AltDesc {
    /// Name (`register`).
    pub name: &'static str,
    /// When it applies; `None` when no other form applies.
    pub select: Option<Select>,
    /// Its bit-fields.
    pub fields: &'static [BitDesc],
}

/// An operand type with bit-fields and forms.
#[derive(Debug)]
pub struct BitsDesc {
    /// Spec name (`ADDR4`).
    pub name: &'static str,
    /// Width in bytes.
    pub width: u8,
    /// Bit-fields of every form.
    pub fields: &'static [BitDesc],
    /// Alternative forms; empty when the operand has one reading.
    pub alts: &'static [AltDesc],
    /// The printer of this operand type, generated: one call per bit-field of the
    /// table, so that each field's name, position and kind are constants in the code
    /// (what the generic walk, `print::bits`, prints).
    pub(crate) print: BitsPrinter,
    /// The reader of a value as the printer writes it, generated as the printer is
    /// (`disasm::bits_read`).
    pub(crate) read: BitsReader,
}

/// A generated printer of one operand type's values.
/// Out of line, it takes the buffer and the length and returns the new length (see
/// `Line::call`).
pub(crate) type BitsPrinter = fn(&mut crate::disasm::line::Buf, usize, u64) -> usize;

/// A generated reader of one operand type's values as the printer writes them, from a
/// byte of a line: the value and where it ends, or `None` for any other text.
pub(crate) type BitsReader = fn(&str, usize) -> Option<(u64, usize)>;

impl BitsDesc {
    /// The form that applies to `v`: the first whose selector holds, else the one without.
    #[must_use]
    pub fn form_of(&self, v: u64) -> Option<&'static AltDesc> {
        self.form_index(v).map(|i| &self.alts[i])
    }

    /// The index in `alts` of [`BitsDesc::form_of`].
    #[must_use]
    #[inline]
    pub fn form_index(&self, v: u64) -> Option<usize> {
        let holds = |s: &Select| {
            self.fields.get(s.field as usize).is_some_and(|f| f.get(v) & s.mask == s.value)
        };
        self.alts
            .iter()
            .position(|a| a.select.as_ref().is_some_and(holds))
            .or_else(|| self.alts.iter().position(|a| a.select.is_none()))
    }

    /// The bits a form's selector pins, in place.
    #[must_use]
    #[inline]
    pub fn selector_bits(&self, alt: &AltDesc) -> u64 {
        match alt.select {
            Some(s) => self.fields.get(s.field as usize).map_or(0, |f| (s.value & s.mask) << f.lo),
            None => 0,
        }
    }

    /// The mask of the bits a form's selector tests, in place.
    #[must_use]
    pub fn selector_mask(&self, alt: &AltDesc) -> u64 {
        match alt.select {
            Some(s) => self.fields.get(s.field as usize).map_or(0, |f| (s.mask << f.lo) & f.mask()),
            None => 0,
        }
    }
}

/// How a union view is chosen when printing.
#[derive(Clone, Copy, Debug)]
pub enum ViewSelect {
    /// When `byte[offset] & mask == value` (offset from the union's start).
    When {
        /// Byte tested.
        offset: u8,
        /// Mask.
        mask: u8,
        /// Value after masking.
        value: u8,
    },
    /// When no other view's test holds.
    Otherwise,
    /// Never chosen by a test; printed only when no view has a test that applies.
    Never,
}

/// One view of a union: a reading of its bytes.
#[derive(Debug)]
pub struct ViewDesc {
    /// Name (`t`, `fp32`).
    pub name: &'static str,
    /// How it is chosen.
    pub select: ViewSelect,
    /// The generations it exists on, as bits `1 << (Arch as u8)`.
    pub archs: u8,
    /// Its leaves, offsets from the union's start; a scalar view has one leaf named "".
    pub fields: &'static [FieldDesc],
}

/// A union of views of the same bytes.
#[derive(Debug)]
pub struct UnionDesc {
    /// Spec name.
    pub name: &'static str,
    /// Size in bytes.
    pub size: u8,
    /// Views in spec order.
    pub views: &'static [ViewDesc],
    /// The printer of this union's values, generated: one call per leaf of each view,
    /// so that each leaf's name, offset and kind are constants in the code (what the
    /// generic walk, `print::union_walk`, prints).
    pub(crate) print: UnionPrinter,
    /// The reader of this union's values as its printer writes them, generated beside
    /// it (`disasm::union_read`): the bytes into the slice given, and where the value
    /// ends; `None` for any other text.
    pub(crate) read: UnionReader,
}

/// A generated printer of one union's values.
/// Out of line, as a [`BitsPrinter`].
pub(crate) type UnionPrinter = fn(&mut crate::disasm::line::Buf, usize, Arch, &[u8]) -> usize;

/// A generated reader of one union's values (see [`UnionDesc::read`]).
pub(crate) type UnionReader = fn(&str, usize, &mut [u8]) -> Option<usize>;

impl UnionDesc {
    /// The view printed for `b` on `arch`: the first whose test holds, else the
    /// `otherwise` view, else the first view that exists on `arch`.
    #[must_use]
    pub fn view_of(&self, arch: Arch, b: &[u8]) -> Option<&'static ViewDesc> {
        self.view_index(arch, b).map(|i| &self.views[i])
    }

    /// The index in `views` of [`UnionDesc::view_of`].
    #[must_use]
    #[inline]
    pub fn view_index(&self, arch: Arch, b: &[u8]) -> Option<usize> {
        let on = |v: &ViewDesc| holds(v.archs, arch);
        let views = || self.views.iter().enumerate().filter(|(_, v)| on(v));
        views()
            .find(|(_, v)| match v.select {
                ViewSelect::When { offset, mask, value } => {
                    b.get(offset as usize).is_some_and(|x| x & mask == value)
                }
                _ => false,
            })
            .or_else(|| views().find(|(_, v)| matches!(v.select, ViewSelect::Otherwise)))
            .or_else(|| views().next())
            .map(|(i, _)| i)
            .or((!self.views.is_empty()).then_some(0))
    }

    /// The view named `name`.
    #[must_use]
    pub fn view(&self, name: &str) -> Option<&'static ViewDesc> {
        self.view_named(name).map(|i| &self.views[i])
    }

    /// The index in `views` of [`UnionDesc::view`].
    #[must_use]
    pub(crate) fn view_named(&self, name: &str) -> Option<usize> {
        self.views.iter().position(|v| v.name == name)
    }
}

/// How a leaf field's bytes are read and written as text.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// An unsigned integer of this many bytes.
    Uint(u8),
    /// A signed integer of this many bytes.
    Int(u8),
    /// An IEEE-754 single, printed as a decimal that reads back to the same bits (hex
    /// bits for a NaN).
    F32,
    /// An enum.
    Enum(&'static EnumDesc),
    /// An operand with bit-fields.
    Bits(&'static BitsDesc),
    /// A union, printed as `view{field=value,...}`.
    Union(&'static UnionDesc),
    /// `[T; N]` of a scalar kind.
    Array(&'static Kind, u8),
    /// `[i8; N]`: a name, shown as a string.
    Str(u8),
    /// Bytes shown as hex digits.
    Bytes(u8),
}

impl Kind {
    /// Size in bytes.
    #[must_use]
    pub const fn size(&self) -> usize {
        match *self {
            Kind::Uint(w) | Kind::Int(w) | Kind::Str(w) | Kind::Bytes(w) => w as usize,
            Kind::F32 => 4,
            Kind::Enum(e) => e.width as usize,
            Kind::Bits(b) => b.width as usize,
            Kind::Union(u) => u.size as usize,
            Kind::Array(k, n) => k.size() * n as usize,
        }
    }

    /// What the kind's values look like, for error messages.
    #[must_use]
    pub const fn expected(&self) -> &'static str {
        match self {
            Kind::Uint(_) => "an unsigned integer",
            Kind::Int(_) => "an integer",
            Kind::F32 => "a number or 0x bits",
            Kind::Enum(_) => "a value name or an integer",
            Kind::Bits(_) => "form{field=value,...} or an integer",
            Kind::Union(_) => "view{field=value,...}",
            Kind::Array(..) => "[a,b,...]",
            Kind::Str(_) => "a quoted string",
            Kind::Bytes(_) => "hex digits, two per byte",
        }
    }
}

/// When a leaf is printed (and what its bytes are). Non-exhaustive: a kind of leaf the
/// spec learns to tell apart (as unknown bytes from reserved ones) is a new variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Role {
    /// Always.
    Normal,
    /// A preamble field: only when non-zero.
    Preamble,
    /// Reserved bytes (declared to carry nothing): only when non-zero.
    Reserved,
    /// Unknown bytes (no source says what they hold): only when non-zero.
    Unknown,
    /// The opcode: implied by the mnemonic, printed only when it differs.
    Opcode,
}

/// One leaf field of a layout.
#[derive(Clone, Copy, Debug)]
pub struct FieldDesc {
    /// Dotted name (`events.wait_mode`, `src.start_addr`).
    pub name: &'static str,
    /// Byte offset in the record (in a union view: from the union's start).
    pub offset: u8,
    /// How it is read.
    pub kind: Kind,
    /// When it is printed.
    pub role: Role,
    /// The spec's confidence (the weakest along the path of structs and groups).
    pub confidence: Confidence,
    /// `kind.size()`, kept so that the printer's hot loop does not walk the kind.
    size: u8,
}

impl FieldDesc {
    /// A table row.
    #[must_use]
    pub(crate) const fn new(
        name: &'static str,
        offset: u8,
        kind: Kind,
        role: Role,
        confidence: Confidence,
    ) -> FieldDesc {
        FieldDesc { name, offset, kind, role, confidence, size: kind.size() as u8 }
    }

    /// `offset..offset + size`.
    #[must_use]
    #[inline]
    pub const fn range(&self) -> core::ops::Range<usize> {
        self.offset as usize..self.offset as usize + self.size as usize
    }
}

/// Whether the generation set `archs` (bits `1 << (Arch as u8)`, as the tables keep
/// layouts' and views' generations) holds `arch`.
#[must_use]
#[inline]
pub const fn holds(archs: u8, arch: Arch) -> bool {
    archs & (1 << arch as u8) != 0
}

/// The generations of the set `archs` ([`holds`]), oldest first.
pub fn archs_in(archs: u8) -> impl Iterator<Item = Arch> {
    Arch::ALL.iter().copied().filter(move |&a| holds(archs, a))
}

/// One layout of an arm and the generations it holds on.
#[derive(Debug)]
pub struct LayoutText {
    /// The generations, as bits `1 << (Arch as u8)`.
    pub archs: u8,
    /// The shared preamble's leaves when the layout inherits all of it, else empty.
    pub preamble: &'static [FieldDesc],
    /// The other leaves in offset order; with the preamble they cover the record.
    pub fields: &'static [FieldDesc],
}

impl LayoutText {
    /// Every leaf in offset order.
    pub fn leaves(&self) -> impl Iterator<Item = &'static FieldDesc> + Clone {
        self.preamble.iter().chain(self.fields)
    }

    /// The leaf named `name` and its index in [`LayoutText::leaves`].
    #[must_use]
    pub fn leaf(&self, name: &str) -> Option<(usize, &'static FieldDesc)> {
        self.leaves().enumerate().find(|(_, f)| f.name == name)
    }
}

/// A leaf row of a generated table (short, as the tables call it once per row).
#[must_use]
pub(crate) const fn f(
    name: &'static str,
    offset: u8,
    kind: Kind,
    role: Role,
    confidence: Confidence,
) -> FieldDesc {
    FieldDesc::new(name, offset, kind, role, confidence)
}

/// A bit-field row of a generated table.
#[must_use]
pub(crate) const fn bit(name: &'static str, lo: u8, hi: u8, kind: BitKind) -> BitDesc {
    BitDesc::new(name, lo, hi, kind)
}

/// The text form of one arm.
#[derive(Debug)]
pub struct ArmText {
    /// The arm.
    pub kind: ArmKind,
    /// Spec name (`S3D3_MM`).
    pub name: &'static str,
    /// Mnemonic of the arm when no binding selects it (its name in lower case).
    pub mnemonic: &'static str,
    /// Indexes into `BINDINGS` of the bindings that select it.
    pub bindings: &'static [u16],
    /// Its layouts, oldest generation first.
    pub layouts: &'static [LayoutText],
}

impl ArmText {
    /// The table of `kind`.
    #[must_use]
    pub fn of(kind: ArmKind) -> &'static ArmText {
        &ARMS[kind as usize]
    }

    /// The layout that holds on `arch` (the oldest where none names it, as decoding does).
    #[must_use]
    pub fn layout(&self, arch: Arch) -> &'static LayoutText {
        self.layouts.iter().find(|l| holds(l.archs, arch)).unwrap_or(&self.layouts[0])
    }

    /// The binding that selects this arm for `record`, else its first binding. One load
    /// for a record whose opcode one binding alone selects (a table of them), else a
    /// walk of the arm's bindings.
    #[must_use]
    #[inline]
    pub fn binding_for(&self, record: &[u8]) -> Option<&'static Binding> {
        self.binding_index_for(record).map(|i| &BINDINGS[i])
    }

    /// [`ArmText::binding_for`] as the binding's index in `BINDINGS` (the printer's
    /// tables by binding are indexed so).
    #[inline]
    pub(crate) fn binding_index_for(&self, record: &[u8]) -> Option<usize> {
        let op = record.get(DISCRIMINANT_OFFSET).copied();
        let sole = op.map(|op| usize::from(SOLE_BINDING[usize::from(op)]));
        match sole {
            Some(i) if BINDINGS.get(i).is_some_and(|b| b.arm == self.kind) => Some(i),
            _ => self.walk_bindings(record),
        }
    }

    /// [`ArmText::binding_index_for`] by a walk of the arm's bindings, in their order.
    fn walk_bindings(&self, record: &[u8]) -> Option<usize> {
        let mut first = None;
        for &i in self.bindings {
            if BINDINGS[i as usize].matches(record) {
                return Some(usize::from(i));
            }
            first = first.or(Some(usize::from(i)));
        }
        first
    }
}

/// Per opcode value, the index in `BINDINGS` of the binding that alone selects records
/// of that opcode (the opcode's only binding, without a sub-opcode), else `u16::MAX`;
/// built at compile time. A record of such an opcode read as that binding's arm has it
/// as its binding, which a walk of the arm's bindings (an arm reads up to a dozen
/// opcodes) finds with a branch per binding: on records in random order, a tenth of
/// the time of a printed line went to that walk.
static SOLE_BINDING: [u16; 256] = {
    let mut count = [0u16; 256];
    let mut t = [u16::MAX; 256];
    let mut i = 0;
    while i < BINDINGS.len() {
        let op = BINDINGS[i].opcode as usize;
        count[op] += 1;
        if BINDINGS[i].sub.is_none() {
            t[op] = i as u16;
        }
        i += 1;
    }
    let mut op = 0;
    while op < 256 {
        if count[op] != 1 {
            t[op] = u16::MAX;
        }
        op += 1;
    }
    t
};

/// What a mnemonic assembles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A binding (index into `BINDINGS`): its arm, with its opcode (and sub-opcode) set.
    Binding(u16),
    /// An opcode the spec names but no arm reads: the preamble and the payload bytes.
    Opaque(u8),
    /// An arm no binding selects.
    Arm(ArmKind),
}

/// What `mnemonic` assembles, if it is one.
#[must_use]
#[inline]
pub fn target(mnemonic: &str) -> Option<Target> {
    let mut slot = slot_of(mnemonic.as_bytes());
    loop {
        let i = BY_HASH[slot] as usize;
        let (m, t) = MNEMONICS.get(i)?;
        if same(m, mnemonic) {
            return Some(*t);
        }
        slot = (slot + 1) & (SLOTS - 1);
    }
}

/// The mnemonic that `word` spells in another case (`matmul` for `MATMUL`), for the
/// assembler's hint; `unknown` included. A scan: it runs on an error path only.
#[must_use]
pub fn mnemonic_like(word: &str) -> Option<&'static str> {
    core::iter::once(super::UNKNOWN)
        .chain(MNEMONICS.iter().map(|&(m, _)| m))
        .find(|m| m.eq_ignore_ascii_case(word))
}

/// The name of `names` nearest `word` (one or two letters dropped, added, changed or
/// swapped, and fewer than a third of `word`), for an error's hint; none when two are
/// as near. A scan: it runs on an error path only.
#[must_use]
pub fn nearest(word: &str, names: impl Iterator<Item = &'static str>) -> Option<&'static str> {
    let limit = (word.len() / 3).min(2);
    let mut best: Option<(usize, &'static str)> = None;
    let mut tied = false;
    for name in names {
        // The distance is at least the difference in length: most names are not compared
        // (an error per line of a long file asks this once per line).
        if word.len().abs_diff(name.len()) > limit {
            continue;
        }
        let Some(d) = distance(word.as_bytes(), name.as_bytes(), limit) else {
            continue;
        };
        match best {
            Some((b, n)) if d == b && n != name => tied = true,
            Some((b, _)) if d >= b => {}
            _ => (best, tied) = (Some((d, name)), false),
        }
    }
    best.filter(|&(d, _)| d > 0 && !tied).map(|(_, n)| n)
}

/// The edits (a byte dropped, added or changed, two neighbours swapped) that make `a`
/// into `b`, for names up to 64 bytes; `None` for longer ones and once it exceeds
/// `limit` (a row's least value never falls).
fn distance(a: &[u8], b: &[u8], limit: usize) -> Option<usize> {
    const N: usize = 65;
    if a.len() >= N || b.len() >= N {
        return None;
    }
    // Three rows of the table: the row before last, the last, and this one.
    let (mut pp, mut p, mut row) = ([0usize; N], [0usize; N], [0usize; N]);
    for (j, x) in p.iter_mut().enumerate().take(b.len() + 1) {
        *x = j;
    }
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (p[j] + 1).min(row[j - 1] + 1).min(p[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(pp[j - 2] + 1);
            }
            row[j] = d;
        }
        if row[..=b.len()].iter().min().is_some_and(|&m| m > limit) {
            return None;
        }
        (pp, p) = (p, row);
    }
    Some(p[b.len()]).filter(|&d| d <= limit)
}

/// Slots of [`BY_HASH`]: a power of two, at least twice the mnemonics, so that a probe
/// run is short and always reaches an empty slot.
const SLOTS: usize = (2 * MNEMONICS.len()).next_power_of_two();

/// Indexes into `MNEMONICS` by [`slot_of`] of the mnemonic, linear probing;
/// `u32::MAX` is empty. Built at compile time: the assembler looks a line's mnemonic
/// up in one or two probes where a binary search compared eight strings.
static BY_HASH: [u32; SLOTS] = {
    let mut t = [u32::MAX; SLOTS];
    let mut i = 0;
    while i < MNEMONICS.len() {
        let mut slot = slot_of(MNEMONICS[i].0.as_bytes());
        while t[slot] != u32::MAX {
            slot = (slot + 1) & (SLOTS - 1);
        }
        t[slot] = i as u32;
        i += 1;
    }
    t
};

/// The first slot of `b` in [`BY_HASH`]: the top bits of [`name_mix`].
#[inline]
const fn slot_of(b: &[u8]) -> usize {
    (name_mix(b) >> (64 - SLOTS.trailing_zeros())) as usize
}

/// The hash of a name whose top bits pick its first slot, in [`BY_HASH`] (mnemonics)
/// and in each [`EnumDesc`] (value names): a multiply of its length and its first and
/// last eight bytes (two overlapping four-byte words for a name of four to seven, three
/// bytes for a shorter one). Two loads and a multiply, where a hash of each byte (FNV-1a)
/// was a chain of a multiply per byte that the lookup waited on. Const, so that the
/// tables are built at compile time with the function the lookups use.
#[inline]
const fn name_mix(b: &[u8]) -> u64 {
    let n = b.len();
    let (first, last) = if let (Some(f), Some(l)) = (b.first_chunk::<8>(), b.last_chunk::<8>()) {
        (u64::from_le_bytes(*f), u64::from_le_bytes(*l))
    } else if let (Some(f), Some(l)) = (b.first_chunk::<4>(), b.last_chunk::<4>()) {
        (u32::from_le_bytes(*f) as u64, u32::from_le_bytes(*l) as u64)
    } else if n > 0 {
        (b[0] as u64 | (b[n / 2] as u64) << 8, b[n - 1] as u64)
    } else {
        (0, 0)
    };
    (first ^ last.rotate_left(29) ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

pub(crate) const fn ones(w: u8) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// `a == b` for names, eight bytes at a time in line: names are short, and a call into
/// `memcmp` per name cost more than the compare.
#[inline]
pub(crate) fn same(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

/// [`same`] of bytes (a name against the bytes of a line, without the line's `str`
/// boundary tests).
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    let word = |s: &[u8], i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[i..i + 8]);
        u64::from_le_bytes(w)
    };
    let mut i = 0;
    while i + 8 < n {
        if word(a, i) != word(b, i) {
            return false;
        }
        i += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

#[cfg(test)]
mod tests {
    use super::{same, target, EnumDesc, Kind, ARMS, MNEMONICS};

    /// A generation set holds the generations of its bits, listed oldest first.
    #[test]
    fn a_generation_set_holds_and_lists_its_bits() {
        use super::{archs_in, holds};
        use crate::generated::geometry::Arch;
        let set = 0b1100;
        assert!(holds(set, Arch::Mariana) && !holds(set, Arch::Cayman));
        assert_eq!(archs_in(set).collect::<std::vec::Vec<_>>(), [Arch::Mariana, Arch::Maverick]);
        assert_eq!(archs_in(0).count(), 0);
    }

    #[test]
    fn every_mnemonic_is_found_and_nothing_else() {
        for (i, (m, t)) in MNEMONICS.iter().enumerate() {
            assert_eq!(target(m), Some(*t), "{m}");
            assert_eq!(MNEMONICS.iter().position(|(x, _)| x == m), Some(i), "{m} twice");
        }
        // Probe runs are short: the hash spreads the mnemonics.
        let (mut longest, mut probes) = (0, 0);
        for (m, _) in MNEMONICS.iter() {
            let mut slot = super::slot_of(m.as_bytes());
            let mut run = 1;
            while MNEMONICS[super::BY_HASH[slot] as usize].0 != *m {
                slot = (slot + 1) % super::SLOTS;
                run += 1;
            }
            longest = longest.max(run);
            probes += run;
        }
        // Loose bounds, which a spec with more mnemonics keeps: a hash that failed to
        // spread them (a constant, the length alone) breaks both.
        assert!(longest <= 12, "a probe run of {longest}");
        assert!(probes <= 2 * MNEMONICS.len(), "{probes} probes for {}", MNEMONICS.len());
        for m in [
            "",
            "nop_",
            "NOP",
            "unknown",
            "pseudo_dma_direct2",
            "pseudo_dma_direct2d_and_a_long_tail_past_any_mnemonic",
        ] {
            assert_eq!(target(m), None, "{m}");
        }
    }

    /// `value_of` by a scan of the names: the first row of that name.
    #[cfg(feature = "std")]
    fn scanned(e: &EnumDesc, name: &str) -> Option<u64> {
        e.by_name.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }

    /// Every name of every enum is found with its value through the hash, and names
    /// one edit away are found exactly when a scan finds them; probe runs stay short.
    #[test]
    #[cfg(feature = "std")]
    fn every_enum_name_is_found_through_the_hash_as_a_scan_finds_it() {
        let all = crate::disasm::print::tests::enums();
        assert!(all.len() > 20, "only {} enums reached", all.len());
        for e in all {
            let (mut longest, mut probes) = (0, 0);
            for &(name, _) in e.by_name {
                assert_eq!(e.value_of(name), scanned(e, name), "{}: {name}", e.name);
                let mut slot = super::name_hash(name.as_bytes());
                let mut run = 1;
                while e.by_name[usize::from(e.by_hash[slot])].0 != name {
                    slot = (slot + 1) % 256;
                    run += 1;
                }
                longest = longest.max(run);
                probes += run;
                let mut edits = std::vec![
                    std::format!("{name}X"),
                    std::format!("X{name}"),
                    name.to_ascii_lowercase(),
                    name[..name.len() - 1].into(),
                ];
                edits.push(std::format!("{}Z", &name[..name.len() - 1]));
                for other in edits {
                    assert_eq!(e.value_of(&other), scanned(e, &other), "{}: {other}", e.name);
                }
            }
            // Loose bounds (linear probing at the largest enum's load, 172 names in 256
            // slots, averages two probes a name): a hash that failed to spread the
            // names (a constant, the length alone) breaks them.
            assert!(longest <= 16, "{}: a probe run of {longest}", e.name);
            assert!(probes <= 5 * e.by_name.len() / 2 + 4, "{}: {probes} probes", e.name);
            assert_eq!(e.value_of(""), None);
        }
    }

    /// An enum of 255 names (one free slot) and one of 300 (searched by name) find
    /// every name, and nothing else.
    #[test]
    #[cfg(feature = "std")]
    fn enums_of_many_names_find_each_of_them() {
        for count in [0usize, 1, 254, 255, 256, 300] {
            let names: std::vec::Vec<(&'static str, u64)> = (0..count)
                .map(|i| {
                    (&*std::boxed::Box::leak(std::format!("N{i:04}").into_boxed_str()), i as u64)
                })
                .collect();
            let mut by_name = names.clone();
            by_name.sort();
            let by_value: std::vec::Vec<(u64, &'static str)> =
                names.iter().map(|&(n, v)| (v, n)).collect();
            let e = EnumDesc::new(
                "MANY",
                2,
                std::boxed::Box::leak(by_value.into_boxed_slice()),
                std::boxed::Box::leak(by_name.into_boxed_slice()),
            );
            for &(n, v) in &names {
                assert_eq!(e.value_of(n), Some(v), "{count}: {n}");
            }
            for other in ["", "N", "N99999", "n0001", "X0001"] {
                assert_eq!(e.value_of(other), None, "{count}: {other}");
            }
        }
    }

    /// The table answers as the walk of the arm's bindings does, for every opcode read
    /// as every arm, with and without a sub-opcode byte that some binding names.
    #[test]
    fn the_sole_binding_table_finds_the_binding_the_walk_finds() {
        use crate::generated::inst::{BINDINGS, DISCRIMINANT_OFFSET, RECORD_SIZE};
        let mut by_table = 0;
        for op in 0..=255u8 {
            for sub in [0u8, 1, 2, 8, 9] {
                let mut r = [0u8; RECORD_SIZE];
                r[DISCRIMINANT_OFFSET] = op;
                for b in BINDINGS.iter().filter_map(|b| b.sub) {
                    r[b.offset] = sub;
                }
                for arm in ARMS.iter() {
                    let walked = arm.walk_bindings(&r);
                    let found = arm.binding_index_for(&r);
                    assert_eq!(found, walked, "{op:#04x}/{sub} as {}", arm.name);
                    assert_eq!(arm.binding_for(&r), walked.map(|i| &BINDINGS[i]));
                }
                let sole = BINDINGS.get(usize::from(super::SOLE_BINDING[usize::from(op)]));
                by_table += usize::from(sole.is_some_and(|b| b.matches(&r)));
            }
        }
        assert!(by_table > 5 * 100, "{by_table} records found by the table");
        // A slice too short for the opcode finds the arm's first binding, as the walk does.
        for arm in ARMS.iter() {
            assert_eq!(arm.binding_index_for(&[]), arm.walk_bindings(&[]), "{}", arm.name);
        }
    }

    #[test]
    fn names_compare_as_str_does() {
        let names = [
            "",
            "a",
            "ab",
            "abcdefg",
            "abcdefgh",
            "abcdefgi",
            "abcdefghi",
            "abcdefghj",
            "src_mem_pattern.start_addr",
            "src_mem_pattern.start_addq",
            "dst_mem_pattern.num_elem",
        ];
        for a in names {
            for b in names {
                assert_eq!(same(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    /// `name_of` by a search of `by_value`, as the index must answer.
    fn searched(e: &EnumDesc, v: u64) -> Option<&'static str> {
        e.by_value.iter().find(|(x, _)| *x == v).map(|&(_, n)| n)
    }

    #[test]
    fn an_enum_names_a_value_as_a_search_of_its_values_does() {
        static SPARSE: EnumDesc = EnumDesc::new(
            "SPARSE",
            2,
            &[(0x3, "A"), (0x80, "B"), (0xFF, "C"), (0x100, "D"), (0xC000, "E")],
            &[("A", 0x3), ("B", 0x80), ("C", 0xFF), ("D", 0x100), ("E", 0xC000)],
        );
        static EMPTY: EnumDesc = EnumDesc::new("EMPTY", 1, &[], &[]);
        let check = |e: &EnumDesc| {
            for v in (0..0x300).chain([0xC000, 0xFFFF, u64::MAX]) {
                assert_eq!(e.name_of(v), searched(e, v), "{} {v:#x}", e.name);
            }
        };
        check(&SPARSE);
        check(&EMPTY);
        for leaf in ARMS.iter().flat_map(|a| a.layouts).flat_map(|l| l.leaves()) {
            if let Kind::Enum(e) = leaf.kind {
                check(e);
            }
        }
    }

    /// The bounded distance is the full one wherever that is within the bound: the
    /// early exit (a row all past the bound) and the length test lose no near name.
    #[test]
    fn the_bounded_distance_agrees_with_the_full_one() {
        use super::distance;
        use std::{format, string::String, vec::Vec};
        let words: Vec<&str> = MNEMONICS.iter().map(|(m, _)| *m).collect();
        let mut edited: Vec<String> = Vec::new();
        for w in words.iter().step_by(4) {
            let b = w.as_bytes();
            edited.push(String::from_utf8(b[1..].to_vec()).unwrap());
            let mut t = b.to_vec();
            if t.len() > 2 {
                t.swap(1, 2);
            }
            edited.push(String::from_utf8(t).unwrap());
            edited.push(format!("{w}x"));
        }
        for a in &edited {
            for b in &words {
                for limit in 0..=2 {
                    let full = distance(a.as_bytes(), b.as_bytes(), 64).filter(|&d| d <= limit);
                    assert_eq!(distance(a.as_bytes(), b.as_bytes(), limit), full, "{a} {b}");
                }
            }
        }
    }
}
