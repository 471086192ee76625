//! The text form of records: a one-line disassembler and its inverse, the assembler,
//! both driven by the tables `cargo xtask gen` writes into [`generated::disasm`].
//!
//! A record prints as its arm's mnemonic (the lowercase spec name) followed by
//! `field=value` pairs in offset order:
//!
//! ```text
//! pseudo_function_begin function_name="main" return_reset_semaphores=1 return_addr_reg_lo=4 return_addr_reg_hi=5
//! unknown opcode=0x01 bytes=0100…00
//! ```
//!
//! - structs are flattened into dotted names (`events.wait_mode`); preamble fields are
//!   shown only when non-zero, and the opcode (and a sub-opcode) only when the
//!   mnemonic does not imply it;
//! - integers are decimal below 256 and hex above (the parser takes both, and `-`);
//! - enums print by name, or as hex when the spec names no such value;
//! - operands with alternative forms print as `form{field=value,...}` with a `rest=`
//!   entry for any bit the form does not explain (`immediate{immediate=0x1000040,quadrant=8}`);
//! - arrays print as `[a,b,...]`, `i8` arrays (names) as a quoted string with `\"`,
//!   `\\` and `\xNN` escapes and trailing NULs dropped, reserved bytes (only when
//!   non-zero) as hex digits in byte order.
//!
//! Printing then parsing gives the same 64 bytes back for every record; parsing
//! then printing gives the same text for every line the printer writes. Neither
//! allocates.
//!
//! [`generated::disasm`]: crate::generated::disasm

use core::fmt;

use crate::generated::disasm::ARMS;
use crate::generated::inst::{Inst, RECORD_SIZE};

/// How sure the spec is of a field (the spec's `@confidence`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Confidence {
    /// Read directly from the binary, DWARF or driver source.
    Certain,
    /// Derived from given facts.
    Medium,
    /// A reasoned guess.
    Inferred,
}

impl Confidence {
    /// The spec keyword.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Confidence::Certain => "certain",
            Confidence::Medium => "medium",
            Confidence::Inferred => "inferred",
        }
    }
}

/// The names of an enum's values.
#[derive(Debug)]
pub struct EnumDesc {
    /// Spec name (`OPCODE`).
    pub name: &'static str,
    /// Width in bytes.
    pub width: u8,
    /// `(value, name)` in value order.
    pub variants: &'static [(u64, &'static str)],
}

impl EnumDesc {
    /// The name of `v`, if the spec names it.
    #[must_use]
    pub fn name_of(&self, v: u64) -> Option<&'static str> {
        self.variants.iter().find(|(x, _)| *x == v).map(|(_, n)| *n)
    }

    /// The value named `name`.
    #[must_use]
    pub fn value_of(&self, name: &str) -> Option<u64> {
        self.variants.iter().find(|(_, n)| *n == name).map(|(v, _)| *v)
    }
}

/// `(value >> shift) & mask == value`: when an operand form applies.
#[derive(Clone, Copy, Debug)]
pub struct Select {
    /// Position of the selecting bit-field.
    pub shift: u8,
    /// Mask on the field's value.
    pub mask: u64,
    /// Value after masking.
    pub value: u64,
}

/// Bits `lo..hi` of an operand, in one of its forms.
#[derive(Clone, Copy, Debug)]
pub struct BitDesc {
    /// Name (`immediate`).
    pub name: &'static str,
    /// First bit.
    pub lo: u8,
    /// One past the last bit.
    pub hi: u8,
    /// The spec's confidence in the bits.
    pub confidence: Confidence,
}

impl BitDesc {
    /// The field's mask in place.
    #[must_use]
    pub const fn mask(&self) -> u64 {
        ones(self.hi - self.lo) << self.lo
    }
}

/// One form of an operand.
#[derive(Debug)]
pub struct AltDesc {
    /// Name (`register`).
    pub name: &'static str,
    /// When it applies; `None` when no other form applies.
    pub select: Option<Select>,
    /// The bit-fields meaningful in this form.
    pub fields: &'static [BitDesc],
}

/// An operand type with alternative forms (ADDR4, ADDR8).
#[derive(Debug)]
pub struct BitsDesc {
    /// Spec name.
    pub name: &'static str,
    /// Width in bytes.
    pub width: u8,
    /// The forms, in spec order.
    pub alts: &'static [AltDesc],
}

impl BitsDesc {
    /// The form `v` is in: the first whose selector holds, else the `otherwise` form.
    #[must_use]
    pub fn form_of(&self, v: u64) -> Option<&'static AltDesc> {
        self.alts
            .iter()
            .find(|a| a.select.is_some_and(|s| (v >> s.shift) & s.mask == s.value))
            .or_else(|| self.alts.iter().find(|a| a.select.is_none()))
    }
}

/// How a leaf field's bytes are read and written as text.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// An unsigned integer of this many bytes.
    Uint(u8),
    /// A signed integer of this many bytes.
    Int(u8),
    /// An enum.
    Enum(&'static EnumDesc),
    /// An operand with forms.
    Bits(&'static BitsDesc),
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
            Kind::Enum(e) => e.width as usize,
            Kind::Bits(b) => b.width as usize,
            Kind::Array(k, n) => k.size() * n as usize,
        }
    }

    /// A word for what the kind's values look like, for error messages.
    #[must_use]
    pub const fn expected(&self) -> &'static str {
        match self {
            Kind::Uint(_) => "an unsigned integer",
            Kind::Int(_) => "an integer",
            Kind::Enum(_) => "a value name or an integer",
            Kind::Bits(_) => "form{field=value,...} or an integer",
            Kind::Array(..) => "[a,b,...]",
            Kind::Str(_) => "a quoted string",
            Kind::Bytes(_) => "hex digits, two per byte",
        }
    }
}

/// When a field is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Always.
    Normal,
    /// A preamble field: only when non-zero.
    Preamble,
    /// Reserved bytes: only when non-zero.
    Reserved,
    /// Implied by the mnemonic (the opcode, a sub-opcode): only when it differs.
    Implied(u64),
}

/// One leaf field of an arm.
#[derive(Clone, Copy, Debug)]
pub struct FieldDesc {
    /// Dotted name (`events.wait_mode`, `src_mem_pattern.start_addr`).
    pub name: &'static str,
    /// Byte offset in the record.
    pub offset: u8,
    /// How it is read.
    pub kind: Kind,
    /// When it is printed.
    pub role: Role,
    /// The spec's confidence (the weakest along the path of structs and groups).
    pub confidence: Confidence,
}

impl FieldDesc {
    /// `offset..offset + size`.
    #[must_use]
    pub const fn range(&self) -> core::ops::Range<usize> {
        self.offset as usize..self.offset as usize + self.kind.size()
    }
}

/// The text form of one arm.
#[derive(Debug)]
pub struct ArmDesc {
    /// The arm.
    pub kind: crate::generated::arms::ArmKind,
    /// Spec name (`PSEUDO_FUNCTION_BEGIN`).
    pub name: &'static str,
    /// Mnemonic (`pseudo_function_begin`).
    pub mnemonic: &'static str,
    /// Leaf fields in offset order, covering the record.
    pub fields: &'static [FieldDesc],
}

impl ArmDesc {
    /// The arm whose mnemonic is `m`.
    #[must_use]
    pub fn by_mnemonic(m: &str) -> Option<&'static ArmDesc> {
        ARMS.iter().copied().find(|a| a.mnemonic == m)
    }

    /// The field named `name`.
    #[must_use]
    pub fn field(&self, name: &str) -> Option<&'static FieldDesc> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// The mnemonic of a record the spec cannot explain.
pub const UNKNOWN: &str = "unknown";

const fn ones(w: u8) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

fn read_uint(b: &[u8]) -> u64 {
    b.iter().rev().fold(0u64, |acc, &x| (acc << 8) | x as u64)
}

fn write_uint(b: &mut [u8], v: u64) {
    for (i, x) in b.iter_mut().enumerate() {
        *x = (v >> (8 * i)) as u8;
    }
}

fn sign_extend(v: u64, w: usize) -> i64 {
    let shift = 64 - 8 * w as u32;
    ((v << shift) as i64) >> shift
}

fn write_num(f: &mut dyn fmt::Write, v: u64) -> fmt::Result {
    if v < 0x100 {
        write!(f, "{v}")
    } else {
        write!(f, "{v:#x}")
    }
}

/// Lowercase hex, two digits a byte, one `write_str` per record's worth: a listing of a
/// large NEFF spends most of its time here, and a `write!` per byte is several times slower.
fn write_hex(f: &mut dyn fmt::Write, b: &[u8]) -> fmt::Result {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
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

/// Write one value of `kind` read from `b` (exactly `kind.size()` bytes).
fn write_value(f: &mut dyn fmt::Write, kind: &Kind, b: &[u8]) -> fmt::Result {
    match *kind {
        Kind::Uint(_) => write_num(f, read_uint(b)),
        Kind::Int(w) => write!(f, "{}", sign_extend(read_uint(b), w as usize)),
        Kind::Enum(e) => {
            let v = read_uint(b);
            match e.name_of(v) {
                Some(n) => f.write_str(n),
                None => write!(f, "{v:#x}"),
            }
        }
        Kind::Bits(d) => {
            let v = read_uint(b);
            let Some(alt) = d.form_of(v) else { return write!(f, "{v:#x}") };
            write!(f, "{}{{", alt.name)?;
            let mut mask = 0u64;
            for (i, bit) in alt.fields.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{}=", bit.name)?;
                write_num(f, (v & bit.mask()) >> bit.lo)?;
                mask |= bit.mask();
            }
            let rest = (v & !mask) ^ (canonical(alt) & !mask);
            if rest != 0 {
                if !alt.fields.is_empty() {
                    f.write_str(",")?;
                }
                write!(f, "rest={rest:#x}")?;
            }
            f.write_str("}")
        }
        Kind::Array(k, n) => {
            f.write_str("[")?;
            let s = k.size();
            for i in 0..n as usize {
                if i > 0 {
                    f.write_str(",")?;
                }
                write_value(f, k, &b[i * s..(i + 1) * s])?;
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
                    _ => write!(f, "\\x{x:02x}")?,
                }
            }
            f.write_str("\"")
        }
        Kind::Bytes(_) => write_hex(f, b),
    }
}

/// The selector bits of a form, in place.
fn canonical(alt: &AltDesc) -> u64 {
    alt.select.map_or(0, |s| (s.value & s.mask) << s.shift)
}

/// Whether a field is printed for these bytes.
fn shown(field: &FieldDesc, b: &[u8]) -> bool {
    match field.role {
        Role::Normal => true,
        Role::Preamble | Role::Reserved => b.iter().any(|&x| x != 0),
        Role::Implied(v) => read_uint(b) != v,
    }
}

/// Write `record` as `arm`: the mnemonic, then the shown fields.
///
/// # Errors
///
/// Only those of `f`.
pub fn write_record(
    f: &mut dyn fmt::Write,
    arm: &ArmDesc,
    record: &[u8; RECORD_SIZE],
) -> fmt::Result {
    f.write_str(arm.mnemonic)?;
    for field in arm.fields {
        let b = &record[field.range()];
        if shown(field, b) {
            write!(f, " {}=", field.name)?;
            write_value(f, &field.kind, b)?;
        }
    }
    Ok(())
}

/// Write a record the spec cannot explain: `unknown opcode=0x.. bytes=<128 hex digits>`.
///
/// # Errors
///
/// Only those of `f`.
pub fn write_unknown(f: &mut dyn fmt::Write, record: &[u8; RECORD_SIZE]) -> fmt::Result {
    write!(f, "{UNKNOWN} opcode={:#04x} bytes=", record[0])?;
    write_hex(f, record)
}

/// A short copy of a name from the input, for error messages (no allocation).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Name {
    buf: [u8; 32],
    len: u8,
}

impl Name {
    fn new(s: &str) -> Name {
        let mut end = s.len().min(32);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let mut buf = [0u8; 32];
        buf[..end].copy_from_slice(&s.as_bytes()[..end]);
        Name { buf, len: end as u8 }
    }

    /// The name (cut at 32 bytes).
    #[must_use]
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len as usize]).unwrap_or("")
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// What is wrong with a line of assembly.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsmErrorKind {
    /// The first word is not a mnemonic of the spec.
    UnknownMnemonic {
        /// The word.
        mnemonic: Name,
    },
    /// The arm has no field of that name.
    UnknownField {
        /// The arm's mnemonic.
        arm: &'static str,
        /// The name given.
        field: Name,
    },
    /// A field is given twice.
    Duplicate {
        /// The field.
        field: &'static str,
    },
    /// A number does not fit the field.
    OutOfRange {
        /// The field.
        field: &'static str,
    },
    /// A value is not of the field's kind.
    BadValue {
        /// The field.
        field: &'static str,
        /// What the field takes.
        expected: &'static str,
    },
    /// A field the line must give is missing.
    Missing {
        /// The field.
        field: &'static str,
    },
    /// The text is not `mnemonic name=value ...`.
    Syntax {
        /// What was expected.
        expected: &'static str,
    },
}

/// A line of assembly that cannot be assembled, with its 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// Line, from 1.
    pub line: usize,
    /// Column of the offending text, from 1, in characters.
    pub col: usize,
    /// What is wrong.
    pub kind: AsmErrorKind,
}

impl fmt::Display for AsmErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AsmErrorKind::UnknownMnemonic { mnemonic } => {
                write!(f, "unknown mnemonic '{}'", mnemonic.as_str())
            }
            AsmErrorKind::UnknownField { arm, field } => {
                write!(f, "{arm} has no field '{}'", field.as_str())
            }
            AsmErrorKind::Duplicate { field } => write!(f, "field '{field}' is given twice"),
            AsmErrorKind::OutOfRange { field } => {
                write!(f, "value of field '{field}' is out of range")
            }
            AsmErrorKind::BadValue { field, expected } => {
                write!(f, "field '{field}' takes {expected}")
            }
            AsmErrorKind::Missing { field } => write!(f, "field '{field}' is missing"),
            AsmErrorKind::Syntax { expected } => write!(f, "expected {expected}"),
        }
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.kind)
    }
}

impl core::error::Error for AsmError {}

/// An error at byte `at` of `line` (converted to a character column later).
struct Err1 {
    at: usize,
    kind: AsmErrorKind,
}

fn err(at: usize, kind: AsmErrorKind) -> Err1 {
    Err1 { at, kind }
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

/// The end of the value starting at `i`: whitespace at bracket depth 0 outside quotes.
fn value_end(s: &[u8], mut i: usize) -> usize {
    let (mut depth, mut quoted) = (0i32, false);
    while i < s.len() {
        let c = s[i];
        if quoted {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                quoted = false;
            }
        } else {
            match c {
                b'"' => quoted = true,
                b'[' | b'{' => depth += 1,
                b']' | b'}' => depth -= 1,
                c if c.is_ascii_whitespace() && depth <= 0 => return i,
                _ => {}
            }
        }
        i += 1;
    }
    i
}

/// Where a line's comment starts (`#` or `;` outside quotes), or its end.
fn code_end(s: &[u8]) -> usize {
    let mut quoted = false;
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'\\' if quoted => i += 1,
            b'"' => quoted = !quoted,
            b'#' | b';' if !quoted => return i,
            _ => {}
        }
        i += 1;
    }
    s.len()
}

fn parse_int(s: &str) -> Option<i128> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (radix, digits) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => (16, h),
        None => (10, s),
    };
    if digits.is_empty() || digits.starts_with('_') {
        return None;
    }
    let mut v: i128 = 0;
    for c in digits.chars() {
        if c == '_' {
            continue;
        }
        v = v.checked_mul(radix)?.checked_add(c.to_digit(radix as u32)? as i128)?;
    }
    Some(if neg { -v } else { v })
}

/// Parse an unsigned number that must fit `bits` bits.
fn parse_uint(
    s: &str,
    bits: u32,
    at: usize,
    field: &'static str,
    expected: &'static str,
) -> Result<u64, Err1> {
    let v = parse_int(s).ok_or(err(at, AsmErrorKind::BadValue { field, expected }))?;
    if v < 0 || (bits < 64 && v >= 1i128 << bits) || v > u64::MAX as i128 {
        return Err(err(at, AsmErrorKind::OutOfRange { field }));
    }
    Ok(v as u64)
}

/// Split `s` (without its brackets) at commas at depth 0; calls `each(offset, item)`.
fn split_items(s: &str, mut each: impl FnMut(usize, &str) -> Result<(), Err1>) -> Result<(), Err1> {
    let b = s.as_bytes();
    let (mut depth, mut start) = (0i32, 0usize);
    if s.trim().is_empty() {
        return Ok(());
    }
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                each(start, &s[start..i])?;
                start = i + 1;
            }
            _ => {}
        }
    }
    each(start, &s[start..])
}

/// Parse a value of `kind` from `s` (which starts at byte `at` of the line) into `out`.
fn parse_value(
    s: &str,
    at: usize,
    kind: &Kind,
    field: &'static str,
    out: &mut [u8],
) -> Result<(), Err1> {
    let bad = || err(at, AsmErrorKind::BadValue { field, expected: kind.expected() });
    match *kind {
        Kind::Uint(w) => write_uint(out, parse_uint(s, 8 * w as u32, at, field, kind.expected())?),
        Kind::Int(w) => {
            let v = parse_int(s).ok_or_else(bad)?;
            let lim = 1i128 << (8 * w as u32 - 1);
            if !(-lim..lim).contains(&v) {
                return Err(err(at, AsmErrorKind::OutOfRange { field }));
            }
            write_uint(out, v as i64 as u64);
        }
        Kind::Enum(e) => {
            let v = match e.value_of(s) {
                Some(v) => v,
                None if s.starts_with(|c: char| c.is_ascii_digit()) => {
                    parse_uint(s, 8 * e.width as u32, at, field, kind.expected())?
                }
                None => return Err(bad()),
            };
            write_uint(out, v);
        }
        Kind::Bits(d) => {
            let bits = 8 * d.width as u32;
            if s.starts_with(|c: char| c.is_ascii_digit()) {
                write_uint(out, parse_uint(s, bits, at, field, kind.expected())?);
                return Ok(());
            }
            let open = s.find('{').ok_or_else(bad)?;
            if !s.ends_with('}') {
                return Err(bad());
            }
            let alt = d.alts.iter().find(|a| a.name == &s[..open]).ok_or_else(bad)?;
            let mut v = 0u64;
            let mut rest = 0u64;
            let mut given = [None::<(u64, usize)>; 16];
            let mask: u64 = alt.fields.iter().fold(0, |m, b| m | b.mask());
            split_items(&s[open + 1..s.len() - 1], |off, item| {
                let at = at + open + 1 + off;
                let (k, val) = item.split_once('=').ok_or_else(bad)?;
                let vat = at + k.len() + 1;
                if k == "rest" {
                    rest = parse_uint(val, bits, vat, field, kind.expected())?;
                    if rest & mask != 0 {
                        return Err(err(vat, AsmErrorKind::OutOfRange { field }));
                    }
                    return Ok(());
                }
                let i = alt.fields.iter().position(|b| b.name == k).ok_or_else(bad)?;
                let x = parse_uint(
                    val,
                    (alt.fields[i].hi - alt.fields[i].lo) as u32,
                    vat,
                    field,
                    kind.expected(),
                )?;
                if i < given.len() {
                    given[i] = Some((x, vat));
                }
                v |= x << alt.fields[i].lo;
                Ok(())
            })?;
            // Overlapping fields (the quadrant inside the immediate) must agree; the later one is blamed.
            for (b, g) in alt.fields.iter().zip(given).rev() {
                if let Some((x, vat)) = g {
                    if (v & b.mask()) >> b.lo != x {
                        return Err(err(vat, AsmErrorKind::OutOfRange { field }));
                    }
                }
            }
            v |= (canonical(alt) & !mask) ^ rest;
            if !d.form_of(v).is_some_and(|a| core::ptr::eq(a, alt)) {
                return Err(err(at, AsmErrorKind::OutOfRange { field }));
            }
            write_uint(out, v);
        }
        Kind::Array(k, n) => {
            let inner = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')).ok_or_else(bad)?;
            let size = k.size();
            let mut i = 0usize;
            split_items(inner, |off, item| {
                if i >= n as usize {
                    return Err(err(at, AsmErrorKind::OutOfRange { field }));
                }
                parse_value(item, at + 1 + off, k, field, &mut out[i * size..(i + 1) * size])?;
                i += 1;
                Ok(())
            })?;
            if i != n as usize {
                return Err(bad());
            }
        }
        Kind::Str(n) => {
            let inner = s.strip_prefix('"').and_then(|r| r.strip_suffix('"')).ok_or_else(bad)?;
            let b = inner.as_bytes();
            let (mut i, mut o) = (0usize, 0usize);
            out.fill(0);
            while i < b.len() {
                let c = match b[i] {
                    b'\\' => match b.get(i + 1) {
                        Some(b'"') => (b'"', 2),
                        Some(b'\\') => (b'\\', 2),
                        Some(b'x') => {
                            let h = inner
                                .get(i + 2..i + 4)
                                .and_then(|h| u8::from_str_radix(h, 16).ok());
                            (h.ok_or_else(bad)?, 4)
                        }
                        _ => return Err(bad()),
                    },
                    c => (c, 1),
                };
                if o >= n as usize {
                    return Err(err(at, AsmErrorKind::OutOfRange { field }));
                }
                out[o] = c.0;
                o += 1;
                i += c.1;
            }
        }
        Kind::Bytes(n) => {
            if s.len() != 2 * n as usize || !s.is_ascii() {
                return Err(bad());
            }
            for (i, x) in out.iter_mut().enumerate() {
                *x = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
            }
        }
    }
    Ok(())
}

/// Assemble one line into a record; `Ok(None)` for a blank or comment-only line.
/// Skip the offset and hex columns of a listing line (`00000040  d300…00  text`), so
/// that a listing assembles as its text column; the text wins, so an edited listing
/// assembles to the edit. A line without both columns is left as it is.
fn skip_listing_columns(b: &[u8], at: usize) -> usize {
    let token = |from: usize| {
        let end = b[from..].iter().position(u8::is_ascii_whitespace).map_or(b.len(), |n| from + n);
        let hex = b[from..end].iter().all(u8::is_ascii_hexdigit);
        (end, hex.then_some(end - from))
    };
    let skip_ws = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let (off_end, off_len) = token(at);
    if !matches!(off_len, Some(8..=16)) {
        return at;
    }
    let hex_at = skip_ws(off_end);
    match token(hex_at) {
        (hex_end, Some(n)) if n == 2 * RECORD_SIZE => skip_ws(hex_end),
        _ => at,
    }
}

fn line_bytes(line: &str) -> Result<Option<[u8; RECORD_SIZE]>, Err1> {
    let s = &line[..code_end(line.as_bytes())];
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if i == b.len() {
        return Ok(None);
    }
    i = skip_listing_columns(b, i);
    let start = i;
    while i < b.len() && !b[i].is_ascii_whitespace() {
        i += 1;
    }
    let mnemonic = &s[start..i];
    let mut out = [0u8; RECORD_SIZE];
    let unknown = mnemonic == UNKNOWN;
    let arm =
        if unknown {
            None
        } else {
            Some(ArmDesc::by_mnemonic(mnemonic).ok_or(err(
                start,
                AsmErrorKind::UnknownMnemonic { mnemonic: Name::new(mnemonic) },
            ))?)
        };
    const UNKNOWN_FIELDS: [FieldDesc; 2] = [
        FieldDesc {
            name: "opcode",
            offset: 0,
            kind: Kind::Uint(1),
            role: Role::Normal,
            confidence: Confidence::Certain,
        },
        FieldDesc {
            name: "bytes",
            offset: 0,
            kind: Kind::Bytes(64),
            role: Role::Normal,
            confidence: Confidence::Certain,
        },
    ];
    let fields: &[FieldDesc] = match arm {
        Some(a) => a.fields,
        None => &UNKNOWN_FIELDS,
    };
    for f in fields {
        if let Role::Implied(v) = f.role {
            write_uint(&mut out[f.range()], v);
        }
    }
    let mut seen = [false; 128];
    let mut opcode: Option<(u8, usize)> = None;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == b.len() {
            break;
        }
        let name_at = i;
        while i < b.len() && is_word(b[i]) {
            i += 1;
        }
        if i == name_at || i == b.len() || b[i] != b'=' {
            return Err(err(name_at, AsmErrorKind::Syntax { expected: "field=value" }));
        }
        let name = &s[name_at..i];
        let idx = fields.iter().position(|f| f.name == name).ok_or(err(
            name_at,
            AsmErrorKind::UnknownField {
                arm: arm.map_or(UNKNOWN, |a| a.mnemonic),
                field: Name::new(name),
            },
        ))?;
        let f = &fields[idx];
        if seen.get(idx).copied().unwrap_or(false) {
            return Err(err(name_at, AsmErrorKind::Duplicate { field: f.name }));
        }
        if let Some(x) = seen.get_mut(idx) {
            *x = true;
        }
        let v_at = i + 1;
        let end = value_end(b, v_at);
        let value = &s[v_at..end];
        if unknown && idx == 0 {
            let mut one = [0u8; 1];
            parse_value(value, v_at, &f.kind, f.name, &mut one)?;
            opcode = Some((one[0], v_at));
        } else {
            parse_value(value, v_at, &f.kind, f.name, &mut out[f.range()])?;
        }
        i = end;
    }
    if unknown {
        if !seen[1] {
            return Err(err(start, AsmErrorKind::Missing { field: "bytes" }));
        }
        if let Some((op, at)) = opcode {
            if op != out[0] {
                return Err(err(
                    at,
                    AsmErrorKind::BadValue { field: "opcode", expected: "the first of the bytes" },
                ));
            }
        }
    }
    Ok(Some(out))
}

fn column(line: &str, at: usize) -> usize {
    line.get(..at).map_or(at, |p| p.chars().count()) + 1
}

/// Assemble one line (numbered `line_no` in errors); `Ok(None)` for a blank or
/// comment line (`#` or `;` starts a comment).
///
/// # Errors
///
/// [`AsmError`] with the column of the offending text.
pub fn assemble_line(line: &str, line_no: usize) -> Result<Option<[u8; RECORD_SIZE]>, AsmError> {
    line_bytes(line).map_err(|e| AsmError { line: line_no, col: column(line, e.at), kind: e.kind })
}

/// Assemble text: one record per non-blank line, with line numbers from 1.
pub fn assemble(text: &str) -> impl Iterator<Item = Result<[u8; RECORD_SIZE], AsmError>> + '_ {
    text.lines().enumerate().filter_map(|(i, l)| assemble_line(l, i + 1).transpose())
}

impl core::str::FromStr for Inst {
    type Err = AsmError;

    /// Parse one line of disassembly; the record is decoded from the assembled bytes.
    fn from_str(s: &str) -> Result<Inst, AsmError> {
        match assemble_line(s, 1)? {
            Some(b) => Ok(Inst::decode(&b)),
            None => Err(AsmError {
                line: 1,
                col: 1,
                kind: AsmErrorKind::Syntax { expected: "a mnemonic" },
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Buf {
        b: [u8; 1024],
        n: usize,
    }

    impl fmt::Write for Buf {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let end = self.n + s.len();
            self.b.get_mut(self.n..end).ok_or(fmt::Error)?.copy_from_slice(s.as_bytes());
            self.n = end;
            Ok(())
        }
    }

    fn text(inst: &Inst) -> Buf {
        let mut b = Buf { b: [0; 1024], n: 0 };
        fmt::write(&mut b, format_args!("{inst}")).unwrap();
        b
    }

    fn as_str(b: &Buf) -> &str {
        core::str::from_utf8(&b.b[..b.n]).unwrap()
    }

    #[test]
    fn exit_prints_its_mnemonic_only() {
        let mut r = [0u8; RECORD_SIZE];
        r[0] = 0xDF;
        r[12] = 1;
        let t = text(&Inst::decode(&r));
        assert_eq!(as_str(&t), "pseudo_exit_execution");
        assert_eq!(assemble_line(as_str(&t), 1), Ok(Some(r)));
    }

    /// `00000040  <128 hex digits>  <text>`, as `tpb disasm` prints a record.
    fn listing(off: usize, hex_of: &[u8; RECORD_SIZE], inst: &Inst) -> Buf {
        let mut b = Buf { b: [0; 1024], n: 0 };
        fmt::write(&mut b, format_args!("{off:08x}  ")).unwrap();
        for x in hex_of {
            fmt::write(&mut b, format_args!("{x:02x}")).unwrap();
        }
        fmt::write(&mut b, format_args!("  {inst}")).unwrap();
        b
    }

    #[test]
    fn a_listing_line_assembles_as_its_text_column() {
        let mut call = [0u8; RECORD_SIZE];
        call[0] = 0xD3;
        call[12..16].copy_from_slice(b"main");
        call[48] = 7;
        let inst = Inst::decode(&call);
        let line = listing(0x40, &call, &inst);
        assert_eq!(assemble_line(as_str(&line), 1), Ok(Some(call)));
        // The text wins over a stale hex column: an edited listing assembles to the edit.
        let mut edited = call;
        edited[48] = 9;
        let line = listing(0x40, &call, &Inst::decode(&edited));
        assert_eq!(assemble_line(as_str(&line), 1), Ok(Some(edited)));
    }

    #[test]
    fn a_hex_word_without_the_hex_column_is_a_mnemonic() {
        let e = assemble_line("  deadbeef pseudo_exit_execution", 3).unwrap_err();
        assert_eq!((e.line, e.col), (3, 3));
        assert!(
            matches!(e.kind, AsmErrorKind::UnknownMnemonic { mnemonic } if mnemonic.as_str() == "deadbeef")
        );
    }

    #[test]
    fn every_byte_pattern_round_trips() {
        for seed in 0u32..2000 {
            let mut r = [0u8; RECORD_SIZE];
            let mut x = seed.wrapping_mul(2_654_435_761) | 1;
            for b in r.iter_mut() {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *b = if x % 3 == 0 { 0 } else { x as u8 };
            }
            r[0] = [0xD1, 0xD3, 0xDF, 0x00][seed as usize % 4];
            if seed % 8 < 4 {
                r[12] = (seed % 3) as u8;
            }
            let t = text(&Inst::decode(&r));
            assert_eq!(assemble_line(as_str(&t), 1), Ok(Some(r)), "{}", as_str(&t));
        }
    }
}
