//! The printer: one line per record, from the generated tables.

use core::fmt::{self, Write};

use super::desc::{ArmText, BitDesc, BitKind, BitsDesc, FieldDesc, Kind, Role, Target, UnionDesc};
use super::line::{Buf, Line, CAP};
use super::name::NameByte;
use crate::generated::arms::ArmKind;
use crate::generated::disasm::{MNEMONICS, OPAQUE, PRINTERS};
use crate::generated::geometry::Arch;
use crate::generated::inst::{
    binding_on, dispatch, dispatch_on, Binding, Inst, BINDINGS, DISCRIMINANT_OFFSET, RECORD_SIZE,
};
use crate::generated::opcode::Opcode;

/// The mnemonic of a record whose opcode the spec does not name.
pub const UNKNOWN: &str = "unknown";

/// A little-endian unsigned integer of up to 8 bytes.
#[inline]
pub(crate) fn read_uint(b: &[u8]) -> u64 {
    match *b {
        [x] => u64::from(x),
        [a, b] => u64::from(u16::from_le_bytes([a, b])),
        [a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
        [a, b, c, d, e, f, g, h] => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => b.iter().rev().fold(0u64, |acc, &x| (acc << 8) | u64::from(x)),
    }
}

fn sign_extend(v: u64, w: usize) -> i64 {
    let shift = 64 - 8 * w as u32;
    ((v << shift) as i64) >> shift
}

/// Decimal below 256, `0x` hex above.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_num(o: &mut Line<'_>, v: u64) {
    if v < 0x100 {
        o.dec(v);
    } else {
        o.hex_prefixed(v, 1);
    }
}

/// `0x` and lowercase hex, at least two digits.
#[inline]
fn write_hex_num(o: &mut Line<'_>, v: u64) {
    match u8::try_from(v) {
        // An unnamed value of a byte-wide enum, most often.
        Ok(b) => o.hex_byte(b),
        Err(_) => o.hex_prefixed(v, 2),
    }
}

/// An enum value by name, or in hex when the spec names none. Inlined where the enum is
/// a constant (each field's printer), so that its name table's address folds into the
/// code: 1.04–1.09× the disassembler's records a second, in random order and in runs.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_enum_value(o: &mut Line<'_>, e: &super::desc::EnumDesc, v: u64) {
    match e.name_of(v) {
        Some(n) => o.str(n),
        None => write_hex_num(o, v),
    }
}

#[cfg_attr(not(debug_assertions), inline(always))]
fn write_bit(o: &mut Line<'_>, kind: BitKind, v: u64) {
    match kind {
        BitKind::Uint => write_num(o, v),
        BitKind::Bool if v <= 1 => o.str(if v == 1 { "true" } else { "false" }),
        BitKind::Bool => write_num(o, v),
        BitKind::Enum(e) => write_enum_value(o, e, v),
    }
}

/// `form{field=value,...,rest=0x..}`: the bit-fields of the form that applies (the
/// selector implied by the form's name), and any bit no field explains. Through the
/// operand type's generated printer, which makes the calls `bits` (the walk the tests
/// hold it to) makes, each with a constant row.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_bits(o: &mut Line<'_>, d: &BitsDesc, v: u64) {
    o.call(|buf, at| (d.print)(buf, at, v));
}

/// The walk of an operand type's table that its generated printer unrolls.
#[cfg(test)]
pub(crate) fn bits(o: &mut Line<'_>, d: &BitsDesc, v: u64) {
    let mut s = bits_begin(o, d, v);
    for (i, bit) in d.fields.iter().enumerate() {
        bits_field(o, &mut s, i, bit);
    }
    if let Some(a) = s.form {
        for bit in d.alts[a].fields {
            form_field(o, &mut s, bit);
        }
    }
    bits_end(o, d, &s);
}

/// What an operand's printer carries from one bit-field to the next.
pub(crate) struct BitsState {
    v: u64,
    /// The form that applies: its index in `alts`.
    pub(crate) form: Option<usize>,
    /// The index in `fields` of the selector the form's name implies (not printed).
    skip: usize,
    /// The bits the printed fields explain.
    mask: u64,
    first: bool,
}

/// Open an operand's value `v`: the form's name and `{`.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn bits_begin(o: &mut Line<'_>, d: &BitsDesc, v: u64) -> BitsState {
    let form = d.form_index(v);
    let alt = form.map(|i| &d.alts[i]);
    let skip = alt.and_then(|a| a.select).map_or(usize::MAX, |s| s.field as usize);
    match alt {
        Some(a) => o.open(a.name),
        None => o.byte(b'{'),
    }
    BitsState { v, form, skip, mask: 0, first: true }
}

/// The bit-field `bit`, the `i`th of the operand's `fields`, unless it is the implied
/// selector or zero.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn bits_field(o: &mut Line<'_>, s: &mut BitsState, i: usize, bit: &BitDesc) {
    if i != s.skip {
        form_field(o, s, bit);
    }
}

/// The bit-field `bit` of the form that applies, unless it is zero.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn form_field(o: &mut Line<'_>, s: &mut BitsState, bit: &BitDesc) {
    s.mask |= bit.mask();
    write_bit_field(o, bit, s.v, &mut s.first);
}

/// Close an operand's value: any bit no printed field explains, and `}`.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn bits_end(o: &mut Line<'_>, d: &BitsDesc, s: &BitsState) {
    let pinned = s.form.map_or(0, |a| d.selector_bits(&d.alts[a]));
    let rest = (s.v & !s.mask) ^ (pinned & !s.mask);
    if rest != 0 {
        let sep = (!s.first).then_some(b',');
        o.label(sep, "rest");
        write_hex_num(o, rest);
    }
    o.byte(b'}');
}

/// `name=value` of one bit-field of `v` unless it is zero, after a comma unless `first`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_bit_field(o: &mut Line<'_>, bit: &BitDesc, v: u64, first: &mut bool) {
    let x = bit.get(v);
    if x == 0 {
        return;
    }
    o.label((!*first).then_some(b','), bit.name);
    *first = false;
    write_bit(o, bit.kind, x);
}

/// An `f32` (hex when it is a NaN). Out of line: floats are rare.
#[inline(never)]
fn write_f32(buf: &mut Buf, at: usize, bits: u32) -> usize {
    Line::run(buf, at, |o| {
        let x = f32::from_bits(bits);
        if x.is_nan() {
            return write_hex_num(o, u64::from(bits));
        }
        let text = super::float_text::debug_f32(x);
        let text = text.as_bytes();
        o.bytes_with(text.len(), |d| d.copy_from_slice(text));
    })
}

/// `view{field=value,...}`: the shown leaves of the view that applies (bytes when the
/// union has no view). Through the union's generated printer, which makes the calls
/// `union_walk` (the walk the tests hold it to) makes, each with a constant row.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_union(o: &mut Line<'_>, arch: Arch, u: &UnionDesc, b: &[u8]) {
    o.call(|buf, at| (u.print)(buf, at, arch, b));
}

/// The walk of a union's table that its generated printer unrolls.
#[cfg(test)]
pub(crate) fn union_walk(o: &mut Line<'_>, arch: Arch, u: &UnionDesc, b: &[u8]) {
    let Some(view) = u.view_of(arch, b) else { return o.hex_bytes(b) };
    o.str(view.name);
    o.byte(b'{');
    write_fields(o, arch, view.fields.iter(), b, None, b',');
    o.byte(b'}');
}

/// Open a union's value `b`: the name of the view that applies and `{`, and the view's
/// index in `views`; `None` once the bytes are written, for a union with no view.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn union_begin(o: &mut Line<'_>, arch: Arch, u: &UnionDesc, b: &[u8]) -> Option<usize> {
    let Some(i) = u.view_index(arch, b) else {
        o.hex_bytes(b);
        return None;
    };
    o.open(u.views[i].name);
    Some(i)
}

/// One leaf of a union's view, after a comma unless `first`, unless it is hidden.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn view_leaf(
    o: &mut Line<'_>,
    arch: Arch,
    b: &[u8],
    first: &mut bool,
    field: &FieldDesc,
) {
    if write_leaf(o, arch, b, None, field, (!*first).then_some(b',')) {
        *first = false;
    }
}

/// `[a,b,...]`: the integers of `W` bytes in `b`, signed when `SIGNED`; the first `N`
/// of them when `N` is not zero (then the loop is unrolled, without an exit test whose
/// count changes from caller to caller). One copy per width and count, out of line: the
/// common arrays cost one call and no test of their kind. The comma and the sign are
/// stored whether or not they are kept, without a branch.
#[inline(never)]
fn write_items<const W: usize, const SIGNED: bool, const N: usize>(
    buf: &mut Buf,
    at: usize,
    b: &[u8],
) -> usize {
    let b = if N > 0 { &b[..W * N] } else { b };
    Line::run(buf, at, |o| {
        o.byte(b'[');
        for (i, x) in b.chunks_exact(W).enumerate() {
            if SIGNED {
                let v = sign_extend(read_uint(x), W);
                o.num_item(i == 0, v < 0, v.unsigned_abs());
            } else {
                o.num_item(i == 0, false, read_uint(x));
            }
        }
        o.byte(b']');
    })
}

/// `[a,b,...]`: the values of `k` in `b`. Inlined where the kind is a constant, so
/// that an array of integers goes straight to the copy of [`write_items`] for its width
/// (and, for the common 16-bit arrays of up to four, its count).
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_array(o: &mut Line<'_>, arch: Arch, k: &Kind, b: &[u8]) {
    match (*k, b.len()) {
        (Kind::Uint(2), 2) => o.call(|buf, at| write_items::<2, false, 1>(buf, at, b)),
        (Kind::Uint(2), 4) => o.call(|buf, at| write_items::<2, false, 2>(buf, at, b)),
        (Kind::Uint(2), 6) => o.call(|buf, at| write_items::<2, false, 3>(buf, at, b)),
        (Kind::Uint(2), 8) => o.call(|buf, at| write_items::<2, false, 4>(buf, at, b)),
        (Kind::Int(2), 2) => o.call(|buf, at| write_items::<2, true, 1>(buf, at, b)),
        (Kind::Int(2), 4) => o.call(|buf, at| write_items::<2, true, 2>(buf, at, b)),
        (Kind::Int(2), 6) => o.call(|buf, at| write_items::<2, true, 3>(buf, at, b)),
        (Kind::Int(2), 8) => o.call(|buf, at| write_items::<2, true, 4>(buf, at, b)),
        (Kind::Uint(1), _) => o.call(|buf, at| write_items::<1, false, 0>(buf, at, b)),
        (Kind::Uint(2), _) => o.call(|buf, at| write_items::<2, false, 0>(buf, at, b)),
        (Kind::Uint(4), _) => o.call(|buf, at| write_items::<4, false, 0>(buf, at, b)),
        (Kind::Int(1), _) => o.call(|buf, at| write_items::<1, true, 0>(buf, at, b)),
        (Kind::Int(2), _) => o.call(|buf, at| write_items::<2, true, 0>(buf, at, b)),
        (Kind::Int(4), _) => o.call(|buf, at| write_items::<4, true, 0>(buf, at, b)),
        _ => o.call(|buf, at| write_values(buf, at, arch, k, b)),
    }
}

/// `[a,b,...]`: the values of any other kind `k` in `b`.
fn write_values(buf: &mut Buf, at: usize, arch: Arch, k: &Kind, b: &[u8]) -> usize {
    Line::run(buf, at, |o| {
        o.byte(b'[');
        for (i, x) in b.chunks_exact(k.size().max(1)).enumerate() {
            if i > 0 {
                o.byte(b',');
            }
            o.call(|buf, at| write_value(buf, at, arch, k, x));
        }
        o.byte(b']');
    })
}

/// A signed integer of `w` bytes: `-` and the magnitude.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_int(o: &mut Line<'_>, b: &[u8], w: u8) {
    let v = sign_extend(read_uint(b), w as usize);
    // Without a branch: the sign of random values is a coin toss.
    o.byte_if(b'-', v < 0);
    write_num(o, v.unsigned_abs());
}

/// Write one value of `kind` read from `b` (exactly `kind.size()` bytes).
fn write_value(buf: &mut Buf, at: usize, arch: Arch, kind: &Kind, b: &[u8]) -> usize {
    Line::run(buf, at, |o| match *kind {
        Kind::Uint(_) => write_num(o, read_uint(b)),
        Kind::Int(w) => write_int(o, b, w),
        Kind::F32 => o.call(|buf, at| write_f32(buf, at, read_uint(b) as u32)),
        Kind::Enum(e) => write_enum_value(o, e, read_uint(b)),
        Kind::Bits(d) => write_bits(o, d, read_uint(b)),
        Kind::Union(u) => write_union(o, arch, u, b),
        Kind::Array(k, _) => write_array(o, arch, k, b),
        Kind::Str(_) => {
            let end = b.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
            o.byte(b'"');
            for &x in &b[..end] {
                match super::name::name_byte(x) {
                    NameByte::Plain(c) => o.byte(c),
                    NameByte::Escaped(s) => o.str(s),
                    NameByte::Hex(v) => {
                        o.str("\\x");
                        o.hex(u64::from(v), 2);
                    }
                }
            }
            o.byte(b'"');
        }
        Kind::Bytes(_) => o.hex_bytes(b),
    })
}

/// The bytes a binding's mnemonic implies: the opcode, and a sub-opcode.
fn implied(binding: Option<&Binding>, field: &FieldDesc) -> Option<u64> {
    let b = binding?;
    if field.role == Role::Opcode {
        return Some(u64::from(b.opcode));
    }
    match b.sub {
        Some(s) if s.offset == field.offset as usize && field.kind.size() == 1 => {
            Some(u64::from(s.value))
        }
        _ => None,
    }
}

/// Whether a field is printed for these bytes.
fn shown(b: &[u8], implied: Option<u64>) -> bool {
    if let Some(v) = implied {
        return read_uint(b) != v;
    }
    // A field left out reads as zero, so zero fields are not printed.
    match b.len() {
        1 | 2 | 4 | 8 => read_uint(b) != 0,
        _ => b.iter().any(|&x| x != 0),
    }
}

/// Write `field` of `bytes` with `sep` before it (when `Some`) unless it is hidden: zero,
/// or what the binding implies. Whether it was written.
///
/// Inlined into each caller: the generated printers call it once per leaf with a
/// constant row, so the row's offset, kind and name fold into straight-line code.
/// Here and on the small writers it calls, `inline(always)` holds in optimized builds
/// only: a debug build keeps the calls and compiles in half the time.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_leaf(
    o: &mut Line<'_>,
    arch: Arch,
    bytes: &[u8],
    binding: Option<&Binding>,
    field: &FieldDesc,
    sep: Option<u8>,
) -> bool {
    let Some(b) = bytes.get(field.range()) else { return false };
    let implied = implied(binding, field);
    // Integers and enums (most fields): read once, for the test and the text.
    let scalar = match field.kind {
        Kind::Uint(w) if w <= 8 => Some(read_uint(b)),
        Kind::Enum(e) if e.width <= 8 => Some(read_uint(b)),
        _ => None,
    };
    match scalar {
        Some(v) if v == implied.unwrap_or(0) => return false,
        None if !shown(b, implied) => return false,
        _ => {}
    }
    if field.name.is_empty() {
        if let Some(sep) = sep {
            o.byte(sep);
        }
    } else {
        o.label(sep, field.name);
    }
    match (scalar, field.kind) {
        (Some(v), Kind::Enum(e)) => write_enum_value(o, e, v),
        (Some(v), _) => write_num(o, v),
        (None, Kind::Array(k, _)) => write_array(o, arch, k, b),
        (None, Kind::Bits(d)) => write_bits(o, d, read_uint(b)),
        // The other common kinds, without the general writer's dispatch.
        (None, Kind::Int(w)) if w <= 8 => write_int(o, b, w),
        (None, Kind::Bytes(_)) => o.hex_field(b),
        (None, Kind::Union(u)) => write_union(o, arch, u, b),
        (None, Kind::F32) => o.call(|buf, at| write_f32(buf, at, read_uint(b) as u32)),
        (None, kind) => o.call(|buf, at| write_value(buf, at, arch, &kind, b)),
    }
    true
}

/// Write one leaf of a layout, after a space, unless it is hidden. The generated
/// printers (`generated::disasm::PRINTERS`) call it once per row of a layout's table.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn leaf(
    o: &mut Line<'_>,
    arch: Arch,
    record: &[u8; RECORD_SIZE],
    binding: Option<&Binding>,
    field: &FieldDesc,
) {
    write_leaf(o, arch, record, binding, field, Some(b' '));
}

/// A layout's printer: the shown leaves of `record`, each after a space.
/// Out of line, it takes the buffer and the length and returns the new length (see
/// [`Line::call`]).
pub(crate) type Printer =
    fn(&mut Buf, usize, Arch, &[u8; RECORD_SIZE], Option<&'static Binding>) -> usize;

/// Write `fields` of `record` (`name=value` joined by `sep`, a leading `sep` before
/// each when `sep` is a space), skipping what the binding implies.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_fields<'a>(
    o: &mut Line<'_>,
    arch: Arch,
    fields: impl Iterator<Item = &'a FieldDesc>,
    record: &[u8],
    binding: Option<&Binding>,
    sep: u8,
) {
    let mut first = true;
    for field in fields {
        let lead = (sep == b' ' || !first).then_some(sep);
        if write_leaf(o, arch, record, binding, field, lead) {
            first = false;
        }
    }
}

/// A sink of a line's bytes that writes them to `f` as a `str`. Each piece is ASCII,
/// but a `str` needs the UTF-8 check to be made without `unsafe`.
fn str_sink<W: Write + ?Sized>(f: &mut W) -> impl FnMut(&[u8]) -> fmt::Result + '_ {
    |b| f.write_str(core::str::from_utf8(b).map_err(|_| fmt::Error)?)
}

/// Print a line with `print` and hand its text to `f`.
fn with_line<W: Write + ?Sized>(f: &mut W, print: impl FnOnce(&mut Line<'_>)) -> fmt::Result {
    with_bytes(str_sink(f), print)
}

/// Print a line with `print` into a fresh buffer and hand its bytes to `sink` as they
/// are, in one piece.
fn with_bytes<E>(
    mut sink: impl FnMut(&[u8]) -> Result<(), E>,
    print: impl FnOnce(&mut Line<'_>),
) -> Result<(), E> {
    let mut buf = [0; CAP];
    let n = Line::run(&mut buf, 0, print);
    sink(&buf[..n])
}

#[cfg_attr(not(debug_assertions), inline(always))]
fn arm_line(o: &mut Line<'_>, kind: ArmKind, arch: Arch, record: &[u8; RECORD_SIZE]) {
    let arm = ArmText::of(kind);
    let index = arm.binding_index_for(record);
    let binding = index.map(|i| &BINDINGS[i]);
    match index {
        Some(i) if MNEMONICS_FIT => o.padded(&PADDED_MNEMONICS[i], BINDINGS[i].mnemonic.len()),
        Some(i) => o.str(BINDINGS[i].mnemonic),
        None => o.str(arm.mnemonic),
    }
    o.call(|buf, at| PRINTERS[kind as usize](buf, at, arch, record, binding));
}

/// The mnemonic `record` prints under on `arch`, the first word of its line: the
/// mnemonic of the binding that selects its arm, an arm's or an opcode's that no arm
/// reads (`pseudo_inst`), or [`UNKNOWN`] for an opcode the spec does not name. The
/// printer's choice without the line (a histogram by mnemonic, a check that a record
/// reads back under the mnemonic it was written under).
///
/// ```
/// use tpb_isa::{disasm, Arch};
///
/// let mut record = [0u8; 64];
/// record[0] = 0xDF; // PSEUDO_EXIT_EXECUTION, by its sub-opcode
/// record[12] = 1;
/// assert_eq!(disasm::mnemonic(Arch::Cayman, &record), "pseudo_exit_execution");
/// record[0] = 0xFE;
/// assert_eq!(disasm::mnemonic(Arch::Cayman, &record), disasm::UNKNOWN);
/// ```
#[must_use]
pub fn mnemonic(arch: Arch, record: &[u8; RECORD_SIZE]) -> &'static str {
    match dispatch_on(arch, record) {
        Some(kind) => {
            let arm = ArmText::of(kind);
            arm.binding_index_for(record).map_or(arm.mnemonic, |i| BINDINGS[i].mnemonic)
        }
        None => opaque_mnemonic(record[DISCRIMINANT_OFFSET]).unwrap_or(UNKNOWN),
    }
}

/// Write `record` read as the arm `kind` in the layout of `arch`: the mnemonic of the
/// binding that selects it (else the arm's first binding, with the opcode shown), then
/// the shown fields.
///
/// # Errors
///
/// Only those of `f`.
pub fn write_arm<W: Write + ?Sized>(
    f: &mut W,
    kind: ArmKind,
    arch: Arch,
    record: &[u8; RECORD_SIZE],
) -> fmt::Result {
    with_line(f, |o| arm_line(o, kind, arch, record))
}

/// The bytes of a row of [`PADDED_MNEMONICS`] (at most the line's slack past its end):
/// room for every mnemonic of the spec, whose longest has 35.
const MNEMONIC_ROOM: usize = 48;

/// Whether every binding's mnemonic fits a row of [`PADDED_MNEMONICS`]; a spec with a
/// longer one (an `as` name, say) prints them by the short copy instead, as before.
const MNEMONICS_FIT: bool = {
    let mut i = 0;
    while i < BINDINGS.len() && BINDINGS[i].mnemonic.len() <= MNEMONIC_ROOM {
        i += 1;
    }
    i == BINDINGS.len()
};

/// Each binding's mnemonic (by its index in `BINDINGS`), zero-padded to one size, built
/// at compile time: a record's mnemonic is copied whole in one fixed-size move and kept
/// by its length, with no branch on the length, which a random mix of opcodes changes
/// from record to record (1.04x the uniform mix's records a second in random order,
/// 1.01x in runs). Empty rows where the mnemonics do not all fit ([`MNEMONICS_FIT`]).
static PADDED_MNEMONICS: [[u8; MNEMONIC_ROOM]; BINDINGS.len()] = {
    let mut t = [[0u8; MNEMONIC_ROOM]; BINDINGS.len()];
    let mut i = 0;
    while MNEMONICS_FIT && i < BINDINGS.len() {
        let m = BINDINGS[i].mnemonic.as_bytes();
        let mut j = 0;
        while j < m.len() {
            t[i][j] = m[j];
            j += 1;
        }
        i += 1;
    }
    t
};

/// The mnemonic of an opcode no arm reads: its own, or (an opcode whose binding
/// another generation's `@archs` keep) its binding's, which `tpb asm` reads as the
/// opaque form on a generation without the binding.
#[inline]
fn opaque_mnemonic(opcode: u8) -> Option<&'static str> {
    OPAQUE_MNEMONIC[opcode as usize]
}

/// [`opaque_mnemonic`] per opcode value, built at compile time: a search of the
/// mnemonic and binding tables per record was a tenth of the time of a listing of
/// every bound arm. The first opaque mnemonic of an opcode wins, else its first
/// binding without a sub-opcode.
static OPAQUE_MNEMONIC: [Option<&str>; 256] = {
    let mut t: [Option<&str>; 256] = [None; 256];
    // Backwards, so that the first entry of each table is the one left; the
    // mnemonics' pass last, so that it takes precedence over the bindings'.
    let mut i = BINDINGS.len();
    while i > 0 {
        i -= 1;
        if BINDINGS[i].sub.is_none() {
            t[BINDINGS[i].opcode as usize] = Some(BINDINGS[i].mnemonic);
        }
    }
    let mut i = MNEMONICS.len();
    while i > 0 {
        i -= 1;
        if let Target::Opaque(op) = MNEMONICS[i].1 {
            t[op as usize] = Some(MNEMONICS[i].0);
        }
    }
    t
};

#[cfg_attr(not(debug_assertions), inline(always))]
fn opaque_line(o: &mut Line<'_>, arch: Arch, record: &[u8; RECORD_SIZE]) {
    let opcode = record[DISCRIMINANT_OFFSET];
    match opaque_mnemonic(opcode) {
        Some(m) => {
            o.str(m);
            let fields = OPAQUE.leaves().filter(|x| x.role != Role::Opcode);
            write_fields(o, arch, fields, record, None, b' ');
        }
        None => unknown_line(o, record),
    }
}

/// Write a record whose opcode no arm reads: the opcode's mnemonic, the preamble and
/// the payload's bytes (when not all zero); a record of a sub-opcode no binding reads is
/// its opcode's (`pseudo_inst header.inst_word_len=16 payload=07…`, the sub-opcode the
/// payload's first byte); `unknown opcode=0x.. bytes=<hex>` for an opcode the spec does
/// not name.
///
/// # Errors
///
/// Only those of `f`.
pub fn write_opaque<W: Write + ?Sized>(
    f: &mut W,
    arch: Arch,
    record: &[u8; RECORD_SIZE],
) -> fmt::Result {
    with_line(f, |o| opaque_line(o, arch, record))
}

#[cfg_attr(not(debug_assertions), inline(always))]
fn unknown_line(o: &mut Line<'_>, record: &[u8; RECORD_SIZE]) {
    o.str(UNKNOWN);
    o.str(" opcode=");
    write_hex_num(o, u64::from(record[DISCRIMINANT_OFFSET]));
    o.str(" bytes=");
    o.hex_bytes(record);
}

/// Write a record the spec cannot explain: `unknown opcode=0x.. bytes=<128 hex digits>`.
///
/// # Errors
///
/// Only those of `f`.
pub fn write_unknown<W: Write + ?Sized>(f: &mut W, record: &[u8; RECORD_SIZE]) -> fmt::Result {
    with_line(f, |o| unknown_line(o, record))
}

/// The line of `record`, into `buf` from `at`; the length after it. Out of line: the
/// one copy every writer and the [`Printer`](super::Printer) share.
#[inline(never)]
pub(crate) fn record_line(
    buf: &mut Buf,
    at: usize,
    arch: Arch,
    record: &[u8; RECORD_SIZE],
) -> usize {
    Line::run(buf, at, |o| match dispatch_on(arch, record) {
        Some(kind) => arm_line(o, kind, arch, record),
        None if Opcode(record[DISCRIMINANT_OFFSET]).is_known() => opaque_line(o, arch, record),
        None => unknown_line(o, record),
    })
}

/// Write one record as `Inst::decode(arch, record)` reads it, without building the `Inst`.
///
/// # Errors
///
/// Only those of `f`.
pub fn write_record<W: Write + ?Sized>(
    f: &mut W,
    arch: Arch,
    record: &[u8; RECORD_SIZE],
) -> fmt::Result {
    with_line(f, |o| o.call(|buf, at| record_line(buf, at, arch, record)))
}

/// [`write_record`] into a sink of bytes (a file, a socket, a `Vec<u8>`): the same
/// text, handed on in one piece (every line fits the 2 KiB buffer). Every byte is
/// ASCII; a sink of bytes is spared the UTF-8 check that makes a `str` of them, which
/// on records of random fields is a sixth of the time of a line. To list many records,
/// a [`Printer`](super::Printer) spares the buffer each call clears and the copy.
///
/// ```
/// use tpb_isa::{disasm, Arch};
///
/// let mut record = [0u8; 64];
/// record[0] = 0xDF; // PSEUDO_EXIT_EXECUTION, by its sub-opcode
/// record[12] = 1;
/// let mut out: Vec<u8> = Vec::new();
/// disasm::write_record_bytes(|b| { out.extend_from_slice(b); Ok::<(), ()>(()) }, Arch::Cayman, &record)
///     .unwrap();
/// assert_eq!(out, b"pseudo_exit_execution");
/// ```
///
/// # Errors
///
/// The first error of `sink`; nothing more is handed to it after one.
pub fn write_record_bytes<E>(
    sink: impl FnMut(&[u8]) -> Result<(), E>,
    arch: Arch,
    record: &[u8; RECORD_SIZE],
) -> Result<(), E> {
    with_bytes(sink, |o| o.call(|buf, at| record_line(buf, at, arch, record)))
}

/// [`write_stream`] into a sink of bytes, as [`write_record_bytes`]: every whole record
/// of `bytes`, one line each, handed on a line (and its newline) at a time.
///
/// # Errors
///
/// The first error of `sink`; nothing more is handed to it after one.
pub fn write_stream_bytes<E>(
    sink: impl FnMut(&[u8]) -> Result<(), E>,
    arch: Arch,
    bytes: &[u8],
) -> Result<(), E> {
    stream_lines(sink, arch, bytes)
}

/// Write a decoded instruction in generation `arch`'s text form: its bytes as `arch`
/// reads them, the line [`write_record`] writes for them and `Inst::parse(arch, …)`
/// reads back to the same bytes. A value in another generation's layout (one
/// [`Inst::layout_archs`] does not hold `arch` for) shows `arch`'s reading of its bytes;
/// to see its own fields, print it for one of its generations:
/// `inst.text(inst.layout_archs().map_or(arch, |g| g[0]))`.
///
/// # Errors
///
/// Only those of `f`.
pub fn write_inst<W: Write + ?Sized>(f: &mut W, arch: Arch, inst: &Inst) -> fmt::Result {
    let record = inst.encode();
    with_line(f, |o| match inst {
        Inst::Unknown(_) => unknown_line(o, &record),
        // As `arch` reads the bytes: an opcode without a layout on the generation the
        // value was decoded on may have one here.
        Inst::Opaque(_) => o.call(|buf, at| record_line(buf, at, arch, &record)),
        _ => match inst.kind() {
            // A binding another generation's `@archs` keep: `arch` has no layout for it.
            Some(kind) if dispatch(&record) == Some(kind) && !binding_on(arch, &record) => {
                o.call(|buf, at| record_line(buf, at, arch, &record))
            }
            Some(kind) => arm_line(o, kind, arch, &record),
            None => unknown_line(o, &record),
        },
    })
}

/// Write every whole record of `bytes`, one line each; a trailing partial record is
/// not written (the stream reader reports it).
///
/// # Errors
///
/// Only those of `f`.
pub fn write_stream<W: Write + ?Sized>(f: &mut W, arch: Arch, bytes: &[u8]) -> fmt::Result {
    stream_lines(str_sink(f), arch, bytes)
}

/// Every whole record of `bytes`, one line each, handed to `sink` a line at a time;
/// the first error of `sink`, after which nothing more is handed to it.
fn stream_lines<E>(
    mut sink: impl FnMut(&[u8]) -> Result<(), E>,
    arch: Arch,
    bytes: &[u8],
) -> Result<(), E> {
    let mut buf = [0; CAP];
    for chunk in bytes.chunks_exact(RECORD_SIZE) {
        let mut r = [0u8; RECORD_SIZE];
        r.copy_from_slice(chunk);
        let n = record_line(&mut buf, 0, arch, &r);
        buf[n] = b'\n';
        sink(&buf[..=n])?;
    }
    Ok(())
}

/// An instruction in the text form of a generation: `inst.text(arch)` displays one line.
#[derive(Clone, Copy, Debug)]
pub struct Text<'a> {
    inst: &'a Inst,
    arch: Arch,
}

impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_inst(f, self.arch, self.inst)
    }
}

impl Inst {
    /// The instruction's line in generation `arch`'s text form, which
    /// `Inst::parse(arch, …)` reads back to the same bytes (see [`write_inst`] for a value
    /// in another generation's layout).
    #[must_use]
    pub fn text(&self, arch: Arch) -> Text<'_> {
        Text { inst: self, arch }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::disasm::desc::EnumDesc;
    use crate::disasm::tests::Buf;
    use crate::generated::inst::BINDINGS;

    /// The compile-time table answers as a search of the two tables in their order
    /// does, for every opcode value.
    #[test]
    fn the_opaque_mnemonic_table_is_the_first_match_of_the_mnemonics_then_the_bindings() {
        let mut named = 0;
        for op in 0..=255u8 {
            let searched = MNEMONICS
                .iter()
                .find(|(_, t)| *t == Target::Opaque(op))
                .map(|(m, _)| *m)
                .or_else(|| {
                    BINDINGS.iter().find(|b| b.opcode == op && b.sub.is_none()).map(|b| b.mnemonic)
                });
            assert_eq!(opaque_mnemonic(op), searched, "opcode {op:#04x}");
            named += usize::from(searched.is_some());
        }
        assert!(named > 100, "{named} opcodes have a mnemonic");
    }

    /// The text `print` writes.
    pub(crate) fn text(print: impl FnOnce(&mut Line<'_>)) -> Buf {
        let mut buf = Buf::new();
        with_line(&mut buf, print).unwrap();
        buf
    }

    /// What a leaf reaches (through arrays, union views and bit-fields too): operand
    /// types with bit-fields, unions and enums, once each, in the order first reached.
    #[derive(Default)]
    struct Reached {
        bits: std::vec::Vec<&'static BitsDesc>,
        unions: std::vec::Vec<&'static UnionDesc>,
        enums: std::vec::Vec<&'static EnumDesc>,
    }

    fn reached() -> Reached {
        fn once<T>(list: &mut std::vec::Vec<&'static T>, x: &'static T) -> bool {
            let new = !list.iter().any(|y| core::ptr::eq(*y, x));
            if new {
                list.push(x);
            }
            new
        }
        fn visit(k: &Kind, out: &mut Reached) {
            match *k {
                Kind::Enum(e) => {
                    once(&mut out.enums, e);
                }
                Kind::Bits(d) if once(&mut out.bits, d) => {
                    for f in d.fields.iter().chain(d.alts.iter().flat_map(|a| a.fields)) {
                        if let BitKind::Enum(e) = f.kind {
                            once(&mut out.enums, e);
                        }
                    }
                }
                Kind::Array(k, _) => visit(k, out),
                Kind::Union(u) if once(&mut out.unions, u) => {
                    u.views.iter().flat_map(|v| v.fields).for_each(|f| visit(&f.kind, out));
                }
                _ => {}
            }
        }
        let mut out = Reached::default();
        for arm in crate::generated::disasm::ARMS.iter() {
            for layout in arm.layouts {
                layout.leaves().for_each(|f| visit(&f.kind, &mut out));
            }
        }
        out
    }

    /// Every enum that a leaf reaches, once each.
    pub(crate) fn enums() -> std::vec::Vec<&'static EnumDesc> {
        reached().enums
    }

    /// Every operand type with bit-fields that a leaf reaches, once each.
    pub(crate) fn operand_types() -> std::vec::Vec<&'static BitsDesc> {
        reached().bits
    }

    /// A value of operand type `d` for round `round` from the random `x`: zero, all
    /// ones, then random values and sparse ones (most fields zero) in turn.
    pub(crate) fn sample_value(d: &BitsDesc, round: usize, x: u64) -> u64 {
        let width = 8 * u32::from(d.width);
        let top = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
        match round {
            0 => 0,
            1 => top,
            _ if round % 2 == 0 => x & top,
            _ => x & (x >> 17) & (x >> 31) & top,
        }
    }

    #[test]
    fn each_operand_printer_prints_what_the_walk_of_its_table_prints() {
        let types = operand_types();
        assert!(types.len() > 10, "{} operand types", types.len());
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for d in types {
            for round in 0..4096 {
                let v = sample_value(d, round, crate::validate_plan::tests::next(&mut seed));
                let walked = text(|o| bits(o, d, v));
                let printed = text(|o| o.call(|buf, at| (d.print)(buf, at, v)));
                assert_eq!(walked.as_str(), printed.as_str(), "{} of {v:#x}", d.name);
            }
        }
    }

    /// Every union that a leaf reaches, once each.
    pub(crate) fn unions() -> std::vec::Vec<&'static UnionDesc> {
        reached().unions
    }

    #[test]
    fn each_union_printer_prints_what_the_walk_of_its_views_prints() {
        let unions = unions();
        assert!(unions.len() > 3, "{} unions", unions.len());
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for u in unions {
            for &arch in Arch::ALL {
                for round in 0..512 {
                    // Random bytes, a third of them zero so that leaves are hidden, and
                    // all zero in round 0.
                    let b: std::vec::Vec<u8> = (0..u.size)
                        .map(|_| crate::validate_plan::tests::next(&mut seed))
                        .map(|x| if round == 0 || x % 3 == 0 { 0 } else { (x >> 8) as u8 })
                        .collect();
                    let walked = text(|o| union_walk(o, arch, u, &b));
                    let printed = text(|o| o.call(|buf, at| (u.print)(buf, at, arch, &b)));
                    assert_eq!(walked.as_str(), printed.as_str(), "{} on {arch:?}", u.name);
                }
            }
        }
    }

    #[test]
    fn each_printer_prints_what_the_walk_of_its_layout_table_prints() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for &arch in Arch::ALL {
            for arm in crate::generated::disasm::ARMS.iter() {
                let bindings = arm.bindings.iter().map(|&i| Some(&BINDINGS[i as usize]));
                for binding in bindings.chain([None]) {
                    for round in 0..48 {
                        let mut r = [0u8; RECORD_SIZE];
                        for b in r.iter_mut() {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            // Zero bytes hide fields; a third of them are zero, and every
                            // fourth record is all zero but its last byte.
                            *b = if x % 3 == 0 || round % 4 == 0 { 0 } else { x as u8 };
                        }
                        r[RECORD_SIZE - 1] |= 1;
                        let layout = arm.layout(arch);
                        let walked =
                            text(|o| write_fields(o, arch, layout.leaves(), &r, binding, b' '));
                        let printed = text(|o| {
                            o.call(|buf, at| {
                                PRINTERS[arm.kind as usize](buf, at, arch, &r, binding)
                            })
                        });
                        assert_eq!(walked.as_str(), printed.as_str(), "{} on {arch:?}", arm.name);
                    }
                }
            }
        }
    }
}
