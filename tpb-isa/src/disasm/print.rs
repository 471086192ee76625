//! The printer: one line per record, from the generated tables.

use core::fmt::{self, Write};

use super::desc::{ArmText, BitKind, BitsDesc, FieldDesc, Kind, Role, Target, UnionDesc};
use crate::generated::arms::ArmKind;
use crate::generated::disasm::{MNEMONICS, OPAQUE};
use crate::generated::geometry::Arch;
use crate::generated::inst::{dispatch, Binding, Inst, RECORD_SIZE};
use crate::generated::opcode::Opcode;

/// The mnemonic of a record whose opcode the spec does not name.
pub const UNKNOWN: &str = "unknown";

/// The offset of the discriminant (the opcode byte).
const DISCRIMINANT: usize = 0;

pub(crate) fn read_uint(b: &[u8]) -> u64 {
    b.iter().rev().fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

fn sign_extend(v: u64, w: usize) -> i64 {
    let shift = 64 - 8 * w as u32;
    ((v << shift) as i64) >> shift
}

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// The decimal text of every byte value.
static DEC: [&str; 256] = include!("dec_table.in");

/// Two lowercase hex digits of every byte value.
static HEX2: [&str; 256] = include!("hex_table.in");

/// Decimal below 256, `0x` hex above, from tables: no `fmt` machinery and no UTF-8
/// validation per number.
fn write_num<W: Write + ?Sized>(f: &mut W, v: u64) -> fmt::Result {
    if v < 0x100 {
        return f.write_str(DEC[v as usize]);
    }
    write_hex_wide(f, v)
}

/// `0x` and the hex digits of `v` (at least 0x100), two at a time.
fn write_hex_wide<W: Write + ?Sized>(f: &mut W, v: u64) -> fmt::Result {
    let bytes = v.to_be_bytes();
    let first = bytes.iter().position(|&b| b != 0).unwrap_or(7);
    f.write_str("0x")?;
    let lead = bytes[first];
    f.write_str(if lead < 0x10 { &HEX2[lead as usize][1..] } else { HEX2[lead as usize] })?;
    for &b in &bytes[first + 1..] {
        f.write_str(HEX2[b as usize])?;
    }
    Ok(())
}

/// `0x` and lowercase hex, at least two digits.
fn write_hex_num<W: Write + ?Sized>(f: &mut W, v: u64) -> fmt::Result {
    if v < 0x100 {
        f.write_str("0x")?;
        return f.write_str(HEX2[v as usize]);
    }
    write_hex_wide(f, v)
}

/// Lowercase hex, two digits a byte, one `write_str` per record's worth.
pub(crate) fn write_hex<W: Write + ?Sized>(f: &mut W, b: &[u8]) -> fmt::Result {
    if b.len() <= 8 {
        return b.iter().try_for_each(|&x| f.write_str(HEX2[usize::from(x)]));
    }
    let mut buf = [0u8; 2 * RECORD_SIZE];
    for chunk in b.chunks(RECORD_SIZE) {
        let out = &mut buf[..2 * chunk.len()];
        for (pair, x) in out.chunks_exact_mut(2).zip(chunk) {
            pair[0] = DIGITS[usize::from(x >> 4)];
            pair[1] = DIGITS[usize::from(x & 15)];
        }
        f.write_str(core::str::from_utf8(out).map_err(|_| fmt::Error)?)?;
    }
    Ok(())
}

fn write_enum_value<W: Write + ?Sized>(
    f: &mut W,
    e: &super::desc::EnumDesc,
    v: u64,
) -> fmt::Result {
    match e.name_of(v) {
        Some(n) => f.write_str(n),
        None => write_hex_num(f, v),
    }
}

fn write_bit<W: Write + ?Sized>(f: &mut W, kind: BitKind, v: u64) -> fmt::Result {
    match kind {
        BitKind::Uint => write_num(f, v),
        BitKind::Bool if v <= 1 => f.write_str(if v == 1 { "true" } else { "false" }),
        BitKind::Bool => write_num(f, v),
        BitKind::Enum(e) => write_enum_value(f, e, v),
    }
}

/// `form{field=value,...,rest=0x..}`: the bit-fields of the form that applies (the
/// selector implied by the form's name), and any bit no field explains.
fn write_bits<W: Write + ?Sized>(f: &mut W, d: &BitsDesc, v: u64) -> fmt::Result {
    let alt = d.form_of(v);
    let skip = alt.and_then(|a| a.select).map(|s| s.field as usize);
    if let Some(a) = alt {
        f.write_str(a.name)?;
    }
    f.write_str("{")?;
    let mut mask = 0u64;
    let mut first = true;
    let own = alt.map_or(&[][..], |a| a.fields);
    for (i, bit) in
        d.fields.iter().enumerate().map(|(i, b)| (Some(i), b)).chain(own.iter().map(|b| (None, b)))
    {
        if i.is_some() && i == skip {
            continue;
        }
        mask |= bit.mask();
        if bit.get(v) == 0 {
            continue;
        }
        if !first {
            f.write_str(",")?;
        }
        first = false;
        f.write_str(bit.name)?;
        f.write_str("=")?;
        write_bit(f, bit.kind, bit.get(v))?;
    }
    let pinned = alt.map_or(0, |a| d.selector_bits(a));
    let rest = (v & !mask) ^ (pinned & !mask);
    if rest != 0 {
        if !first {
            f.write_str(",")?;
        }
        f.write_str("rest=")?;
        write_hex_num(f, rest)?;
    }
    f.write_str("}")
}

fn write_f32<W: Write + ?Sized>(f: &mut W, bits: u32) -> fmt::Result {
    let x = f32::from_bits(bits);
    if x.is_nan() {
        return write_hex_num(f, u64::from(bits));
    }
    write!(f, "{x:?}")
}

fn write_union<W: Write + ?Sized>(f: &mut W, arch: Arch, u: &UnionDesc, b: &[u8]) -> fmt::Result {
    let Some(view) = u.view_of(arch, b) else { return write_hex(f, b) };
    f.write_str(view.name)?;
    f.write_str("{")?;
    write_fields(f, arch, view.fields.iter(), b, None, ",")?;
    f.write_str("}")
}

/// Write one value of `kind` read from `b` (exactly `kind.size()` bytes).
fn write_value<W: Write + ?Sized>(f: &mut W, arch: Arch, kind: &Kind, b: &[u8]) -> fmt::Result {
    match *kind {
        Kind::Uint(_) => write_num(f, read_uint(b)),
        Kind::Int(w) => {
            let v = sign_extend(read_uint(b), w as usize);
            if v < 0 {
                f.write_str("-")?;
            }
            write_num(f, v.unsigned_abs())
        }
        Kind::F32 => write_f32(f, read_uint(b) as u32),
        Kind::Enum(e) => write_enum_value(f, e, read_uint(b)),
        Kind::Bits(d) => write_bits(f, d, read_uint(b)),
        Kind::Union(u) => write_union(f, arch, u, b),
        Kind::Array(k, n) => {
            f.write_str("[")?;
            let s = k.size();
            for i in 0..n as usize {
                if i > 0 {
                    f.write_str(",")?;
                }
                write_value(f, arch, k, &b[i * s..(i + 1) * s])?;
            }
            f.write_str("]")
        }
        Kind::Str(_) => {
            let end = b.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
            f.write_str("\"")?;
            for &x in &b[..end] {
                match x {
                    b'"' => f.write_str("\\\"")?,
                    b'\\' => f.write_str("\\\\")?,
                    0x20..=0x7E => f.write_char(x as char)?,
                    _ => {
                        f.write_str("\\x")?;
                        f.write_char(DIGITS[usize::from(x >> 4)] as char)?;
                        f.write_char(DIGITS[usize::from(x & 15)] as char)?;
                    }
                }
            }
            f.write_str("\"")
        }
        Kind::Bytes(_) => write_hex(f, b),
    }
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
    b.iter().any(|&x| x != 0)
}

/// Write `fields` of `record` (`name=value` joined by `sep`, a leading `sep` before
/// each when `sep` is a space), skipping what the binding implies.
fn write_fields<'a, W: Write + ?Sized>(
    f: &mut W,
    arch: Arch,
    fields: impl Iterator<Item = &'a FieldDesc>,
    record: &[u8],
    binding: Option<&Binding>,
    sep: &str,
) -> fmt::Result {
    let mut first = true;
    for field in fields {
        let Some(b) = record.get(field.range()) else { continue };
        if !shown(b, implied(binding, field)) {
            continue;
        }
        if sep == " " || !first {
            f.write_str(sep)?;
        }
        first = false;
        if !field.name.is_empty() {
            f.write_str(field.name)?;
            f.write_str("=")?;
        }
        write_value(f, arch, &field.kind, b)?;
    }
    Ok(())
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
    let arm = ArmText::of(kind);
    let binding = arm.binding_for(record);
    f.write_str(binding.map_or(arm.mnemonic, |b| b.mnemonic))?;
    write_fields(f, arch, arm.layout(arch).leaves(), record, binding, " ")
}

/// The mnemonic of an opcode the spec names but no arm reads.
fn opaque_mnemonic(opcode: u8) -> Option<&'static str> {
    MNEMONICS.iter().find(|(_, t)| *t == Target::Opaque(opcode)).map(|(m, _)| *m)
}

/// Write a record whose opcode no arm reads: the opcode's mnemonic, the preamble and
/// the payload's bytes (when not all zero); `unknown opcode=0x.. bytes=<hex>` for an
/// opcode the spec does not name.
///
/// # Errors
///
/// Only those of `f`.
pub fn write_opaque<W: Write + ?Sized>(
    f: &mut W,
    arch: Arch,
    record: &[u8; RECORD_SIZE],
) -> fmt::Result {
    let opcode = record[DISCRIMINANT];
    match opaque_mnemonic(opcode) {
        Some(m) => {
            f.write_str(m)?;
            let fields = OPAQUE.leaves().filter(|x| x.role != Role::Opcode);
            write_fields(f, arch, fields, record, None, " ")
        }
        None => write_unknown(f, record),
    }
}

/// Write a record the spec cannot explain: `unknown opcode=0x.. bytes=<128 hex digits>`.
///
/// # Errors
///
/// Only those of `f`.
pub fn write_unknown<W: Write + ?Sized>(f: &mut W, record: &[u8; RECORD_SIZE]) -> fmt::Result {
    f.write_str(UNKNOWN)?;
    f.write_str(" opcode=")?;
    write_hex_num(f, u64::from(record[DISCRIMINANT]))?;
    f.write_str(" bytes=")?;
    write_hex(f, record)
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
    match dispatch(record) {
        Some(kind) => write_arm(f, kind, arch, record),
        None if Opcode(record[DISCRIMINANT]).is_known() => write_opaque(f, arch, record),
        None => write_unknown(f, record),
    }
}

/// Write a decoded instruction.
///
/// # Errors
///
/// Only those of `f`.
pub fn write_inst<W: Write + ?Sized>(f: &mut W, arch: Arch, inst: &Inst) -> fmt::Result {
    let record = inst.encode();
    match inst {
        Inst::Unknown(_) => write_unknown(f, &record),
        Inst::Opaque(_) => write_opaque(f, arch, &record),
        _ => match inst.kind() {
            Some(kind) => write_arm(f, kind, arch, &record),
            None => write_unknown(f, &record),
        },
    }
}

/// Write every whole record of `bytes`, one line each; a trailing partial record is
/// not written (the stream reader reports it).
///
/// # Errors
///
/// Only those of `f`.
pub fn write_stream<W: Write + ?Sized>(f: &mut W, arch: Arch, bytes: &[u8]) -> fmt::Result {
    for chunk in bytes.chunks_exact(RECORD_SIZE) {
        let mut r = [0u8; RECORD_SIZE];
        r.copy_from_slice(chunk);
        write_record(f, arch, &r)?;
        f.write_str("\n")?;
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
    /// The instruction's line of text in the layouts of `arch`.
    #[must_use]
    pub fn text(&self, arch: Arch) -> Text<'_> {
        Text { inst: self, arch }
    }
}
