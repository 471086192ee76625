//! The assembler: a line of text back into its 64 bytes, from the generated tables.

use super::desc::{
    self, same, same_bytes, AltDesc, ArmText, BitDesc, BitKind, BitsDesc, FieldDesc, Kind,
    LayoutText, Role, Target, UnionDesc,
};
use super::error::{AsmError, AsmErrorKind, Fits, Members, Name, Views, VALUES_LISTED};
use super::print::UNKNOWN;
use crate::facts::Confidence;
use crate::generated::arms::ArmKind;
use crate::generated::disasm::{MNEMONICS, OPAQUE, READERS};
use crate::generated::geometry::Arch;
use crate::generated::inst::{binding_on, Inst, BINDINGS, DISCRIMINANT_OFFSET, RECORD_SIZE};

/// An error at byte `at` of the line (converted to a character column at the end).
pub(super) struct Err1 {
    at: usize,
    kind: AsmErrorKind,
}

fn err(at: usize, kind: AsmErrorKind) -> Err1 {
    Err1 { at, kind }
}

const fn word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

fn is_word(c: u8) -> bool {
    WORD[usize::from(c)]
}

/// `$test` of every byte value, so that a scan costs one load a byte.
macro_rules! byte_table {
    ($test:ident) => {{
        let mut t = [false; 256];
        let mut c = 0;
        while c < 256 {
            t[c] = $test(c as u8);
            c += 1;
        }
        t
    }};
}

/// [`word_byte`] of every byte.
static WORD: [bool; 256] = byte_table!(word_byte);

/// Where a form's or view's `{` is: a short scan, cheaper than `str::find`'s setup.
fn brace(s: &str) -> Option<usize> {
    s.bytes().position(|c| c == b'{')
}

/// `v` little-endian into `b` (at most 8 bytes; the bytes past `v`'s eight are zero).
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_uint(b: &mut [u8], v: u64) {
    let le = v.to_le_bytes();
    // The common widths as one store each, not a call to `memcpy`.
    match b.len() {
        1 => b[0] = le[0],
        2 => b.copy_from_slice(&le[..2]),
        4 => b.copy_from_slice(&le[..4]),
        8 => b.copy_from_slice(&le),
        n => {
            let n = n.min(8);
            b[..n].copy_from_slice(&le[..n]);
            b[n..].fill(0);
        }
    }
}

/// Whether `c` ends or nests a value: whitespace, a quote or a bracket.
const fn special(c: u8) -> bool {
    c.is_ascii_whitespace() || matches!(c, b'"' | b'[' | b'{' | b']' | b'}')
}

/// [`special`] of every byte.
static SPECIAL: [bool; 256] = byte_table!(special);

/// Whether `c` matters inside a nested value: [`special`], a backslash or a comma.
const fn nested_special(c: u8) -> bool {
    special(c) || c == b'\\' || c == b','
}

/// [`nested_special`] of every byte.
static NESTED_SPECIAL: [bool; 256] = byte_table!(nested_special);

/// The first byte from `i` on that [`nested_special`] holds of, or `s.len()`.
#[inline]
pub(super) fn skip_plain(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && !NESTED_SPECIAL[usize::from(s[i])] {
        i += 1;
    }
    i
}

/// The end of the value starting at `i`: whitespace at bracket depth 0 outside quotes.
pub(super) fn value_end(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && !SPECIAL[usize::from(s[i])] {
        i += 1;
    }
    if i == s.len() || s[i].is_ascii_whitespace() {
        return i;
    }
    nested_value_end(s, i)
}

/// [`value_end`] of a value with quotes or brackets, from `i` (at depth 0, not quoted).
fn nested_value_end(s: &[u8], mut i: usize) -> usize {
    let (mut depth, mut quoted) = (0i32, false);
    while i < s.len() {
        i = skip_plain(s, i);
        let Some(&c) = s.get(i) else { break };
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
    // A backslash that ends the line steps one past it.
    i.min(s.len())
}

/// Where a line's comment starts (`#` or `;` outside quotes), or its end.
fn code_end(s: &[u8]) -> usize {
    let mut i = 0;
    while let Some(n) = memchr::memchr3(b'#', b';', b'"', &s[i..]) {
        i += n;
        if s[i] != b'"' {
            return i;
        }
        // Skip the quoted text, to the first quote no backslash escapes.
        i += 1;
        loop {
            match memchr::memchr2(b'"', b'\\', &s[i..]) {
                None => return s.len(),
                Some(m) if s[i + m] == b'\\' => i += m + 2,
                Some(m) => {
                    i += m + 1;
                    break;
                }
            }
            if i >= s.len() {
                return s.len();
            }
        }
    }
    s.len()
}

/// A plain unsigned number (decimal digits, or `0x` and hex digits) that fits in 64
/// bits, and nothing else: the common case, parsed without [`parse_int`]'s 128-bit
/// arithmetic.
fn parse_plain(b: &[u8]) -> Option<u64> {
    read_plain(b, 0).and_then(|(v, end)| (end == b.len()).then_some(v))
}

/// An integer as text (`-` or `+`, then decimal, or `0x`/`0X` and hex, `_` between
/// digits): its value, saturated past `i128` (so that a number of any length is out of
/// range, not "not a number"), or `None` for text that is no number.
fn parse_int(s: &str) -> Option<i128> {
    let (neg, s) = match (s.strip_prefix('-'), s.strip_prefix('+')) {
        (Some(r), _) => (true, r),
        (None, Some(r)) => (false, r),
        (None, None) => (false, s),
    };
    if let Some(v) = parse_plain(s.as_bytes()) {
        let v = i128::from(v);
        return Some(if neg { -v } else { v });
    }
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
        v = v.saturating_mul(radix).saturating_add(i128::from(c.to_digit(radix as u32)?));
    }
    Some(if neg { -v } else { v })
}

/// Parse an unsigned number that must fit `bits` bits.
pub(super) fn parse_uint(
    s: &str,
    bits: u32,
    at: usize,
    field: &'static str,
    expected: &'static str,
) -> Result<u64, Err1> {
    let v = parse_int(s).ok_or_else(|| err(at, AsmErrorKind::BadValue { field, expected }))?;
    if v < 0 || (bits < 64 && v >= 1i128 << bits) || v > i128::from(u64::MAX) {
        return Err(err(at, AsmErrorKind::OutOfRange { field, fits: Fits::unsigned(bits) }));
    }
    Ok(v as u64)
}

/// Split `s` (without its brackets) at commas at depth 0 outside quotes; calls
/// `each(offset, item)`.
fn split_items(s: &str, mut each: impl FnMut(usize, &str) -> Result<(), Err1>) -> Result<(), Err1> {
    if s.chars().all(char::is_whitespace) {
        return Ok(());
    }
    let b = s.as_bytes();
    let (mut depth, mut start, mut quoted, mut i) = (0i32, 0usize, false, 0usize);
    while i < b.len() {
        i = skip_plain(b, i);
        let Some(&c) = b.get(i) else { break };
        match c {
            b'\\' if quoted => i += 1,
            b'"' => quoted = !quoted,
            b'[' | b'{' if !quoted => depth += 1,
            b']' | b'}' if !quoted => depth -= 1,
            b',' if depth == 0 && !quoted => {
                each(start, &s[start..i])?;
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    each(start, &s[start..])
}

/// `name=value` split at the first `=` when `name` is a word, else `("", item)`.
fn split_assign(item: &str) -> (&str, &str, usize) {
    let b = item.as_bytes();
    let n = b.iter().take_while(|&&c| is_word(c)).count();
    if n > 0 && b.get(n) == Some(&b'=') {
        (&item[..n], &item[n + 1..], n + 1)
    } else {
        ("", item, 0)
    }
}

pub(super) fn parse_bit(
    s: &str,
    bit: &BitDesc,
    at: usize,
    field: &'static str,
    expected: &'static str,
) -> Result<u64, Err1> {
    let bits = u32::from(bit.hi - bit.lo);
    let wide = || err(at, AsmErrorKind::BitOutOfRange { field, bit: bit.name, bits: bits as u8 });
    let number = || {
        parse_uint(s, bits, at, field, expected).map_err(|e| match e.kind {
            AsmErrorKind::OutOfRange { .. } => wide(),
            _ => e,
        })
    };
    match bit.kind {
        BitKind::Bool if s == "true" => Ok(1),
        BitKind::Bool if s == "false" => Ok(0),
        BitKind::Enum(_) if s.starts_with(|c: char| c.is_ascii_digit()) => number(),
        BitKind::Enum(e) => match e.value_of(s) {
            Some(v) if bits >= 64 || v < 1 << bits => Ok(v),
            Some(_) => Err(wide()),
            None => number().map_err(|x| case_or(e, s, at, field, x)),
        },
        _ => number(),
    }
}

/// The error for a word `s` that names no value of `e`: [`AsmErrorKind::ValueCase`]
/// where a name matches it but for case, [`AsmErrorKind::UnknownValue`] where a name
/// is near it or the enum's names are few enough to list, else `other`.
fn case_or(
    e: &'static super::desc::EnumDesc,
    s: &str,
    at: usize,
    field: &'static str,
    other: Err1,
) -> Err1 {
    if let Some(name) = e.name_like(s) {
        return err(at, AsmErrorKind::ValueCase { field, given: Name::new(s), name });
    }
    // A word, not a number gone wrong (`0x1g`, `-3`): those keep their own error.
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return other;
    }
    let like = super::desc::nearest(s, e.by_name.iter().map(|&(name, _)| name));
    if like.is_none() && (e.by_name.is_empty() || e.by_name.len() > VALUES_LISTED) {
        return other;
    }
    let given = Name::new(s);
    err(at, AsmErrorKind::UnknownValue { field, given, like, values: e.by_name })
}

/// The reading of one `form{field=value,...}`: the bit-fields the form prints, and
/// what the items have set so far. Both readers (the one-pass reader of what the
/// printer writes, and the general one) feed it, so they agree on every value.
struct BitsParse {
    d: &'static BitsDesc,
    alt: Option<&'static AltDesc>,
    /// Index in `d.fields` of the selector the form's name implies (not printed).
    skip: usize,
    /// The mask of every printed bit-field.
    mask: u64,
    v: u64,
    rest: u64,
    /// The value and column each printed bit-field was given, in printed order;
    /// `given_mask` says which were.
    given: [(u64, usize); 32],
    given_mask: u32,
    /// Whether `rest=` was given.
    rest_given: bool,
    field: &'static str,
    expected: &'static str,
}

impl BitsParse {
    fn new(
        d: &'static BitsDesc,
        alt: Option<&'static AltDesc>,
        field: &'static str,
        expected: &'static str,
    ) -> BitsParse {
        let skip = alt.and_then(|a| a.select).map_or(usize::MAX, |s| s.field as usize);
        let mut mask = 0u64;
        for (i, b) in d.fields.iter().enumerate() {
            if i != skip {
                mask |= b.mask();
            }
        }
        for b in alt.map_or(&[][..], |a| a.fields) {
            mask |= b.mask();
        }
        BitsParse {
            d,
            alt,
            skip,
            mask,
            v: 0,
            rest: 0,
            given: [(0, 0); 32],
            given_mask: 0,
            rest_given: false,
            field,
            expected,
        }
    }

    /// The bit-fields this form prints (for the agreement check and an error's list).
    fn members(&self) -> Members {
        Members { common: self.d.fields, skip: self.skip, own: self.alt.map_or(&[], |a| a.fields) }
    }

    /// The printed bit-field named `k` and its index in printed order.
    fn printed(&self, k: &str) -> Option<(usize, &'static BitDesc)> {
        self.first_printed(|name| same(name, k))
    }

    /// The first printed bit-field whose name `is` holds of, and its index in printed
    /// order.
    #[inline]
    fn first_printed(&self, is: impl Fn(&str) -> bool) -> Option<(usize, &'static BitDesc)> {
        let common = self.d.fields.len() - usize::from(self.skip < self.d.fields.len());
        let mut n = 0;
        for (i, b) in self.d.fields.iter().enumerate() {
            if i != self.skip {
                if is(b.name) {
                    return Some((n, b));
                }
                n += 1;
            }
        }
        let own = self.alt.map_or(&[][..], |a| a.fields);
        own.iter().position(|b| is(b.name)).map(|i| (common + i, &own[i]))
    }

    /// One `k=v` item starting at byte `at` of the line, its value at byte `vat`.
    fn item(&mut self, k: &str, val: &str, vat: usize, at: usize) -> Result<(), Err1> {
        let (field, expected) = (self.field, self.expected);
        if k == "rest" {
            return self.rest(val, vat);
        }
        if k.is_empty() {
            return Err(err(at, AsmErrorKind::BadValue { field, expected }));
        }
        let members = self.members();
        let unknown =
            || err(at, AsmErrorKind::UnknownMember { field, member: Name::new(k), members });
        let (i, bit) = self.printed(k).ok_or_else(unknown)?;
        self.set(i, bit, val, vat)
    }

    /// The `rest=` item.
    fn rest(&mut self, val: &str, vat: usize) -> Result<(), Err1> {
        let (field, expected) = (self.field, self.expected);
        if core::mem::replace(&mut self.rest_given, true) {
            let member = "rest";
            return Err(err(
                vat - member.len() - 1,
                AsmErrorKind::DuplicateMember { field, member },
            ));
        }
        self.rest = parse_uint(val, 8 * u32::from(self.d.width), vat, field, expected)?;
        if self.rest & self.mask != 0 {
            let fits = Fits::Rest { members: self.mask };
            return Err(err(vat, AsmErrorKind::OutOfRange { field, fits }));
        }
        Ok(())
    }

    /// The item of the `i`th printed bit-field, `bit`.
    fn set(&mut self, i: usize, bit: &'static BitDesc, val: &str, vat: usize) -> Result<(), Err1> {
        let x = parse_bit(val, bit, vat, self.field, self.expected)?;
        self.put(i, bit, x, vat)
    }

    /// The `i`th printed bit-field, `bit`, is `x` (its text at byte `vat`); an error when
    /// it was given before, as a field of a line given twice is (the second value was
    /// or'ed into the first, and said to disagree with it, or taken when it agreed).
    fn put(&mut self, i: usize, bit: &'static BitDesc, x: u64, vat: usize) -> Result<(), Err1> {
        if self.given_mask & 1u32.checked_shl(i as u32).unwrap_or(0) != 0 {
            let (field, member) = (self.field, bit.name);
            return Err(err(
                vat - member.len() - 1,
                AsmErrorKind::DuplicateMember { field, member },
            ));
        }
        if let Some(g) = self.given.get_mut(i) {
            *g = (x, vat);
            self.given_mask |= 1 << i;
        }
        self.v |= x << bit.lo;
        Ok(())
    }

    /// The operand's bits, once every item is read.
    fn finish(&self, at: usize) -> Result<u64, Err1> {
        let (d, field) = (self.d, self.field);
        // Overlapping fields (a quadrant inside an immediate) must agree; the later one
        // is blamed.
        let mut blame = None;
        for (i, (b, &(x, vat))) in self.members().fields().zip(&self.given).enumerate() {
            if self.given_mask & 1 << i != 0 && b.get(self.v) != x {
                blame = Some((vat, b.name));
            }
        }
        if let Some((vat, member)) = blame {
            return Err(err(vat, AsmErrorKind::MembersDisagree { field, member }));
        }
        let pinned = self.alt.map_or(0, |a| d.selector_bits(a));
        let v = self.v | (pinned & !self.mask) ^ self.rest;
        let same = match (d.form_of(v), self.alt) {
            (Some(f), Some(a)) => core::ptr::eq(f, a),
            (None, None) => true,
            _ => false,
        };
        if !same {
            let form = self.alt.map_or("", |a| a.name);
            return Err(err(at, AsmErrorKind::OtherForm { field, form }));
        }
        Ok(v)
    }
}

/// The index in `d.alts` of the form named `name` (`None` for the empty name of an
/// operand with one reading); `Err` for a name no form has.
#[inline]
fn form_named(d: &BitsDesc, name: &str) -> Result<Option<usize>, ()> {
    if name.is_empty() {
        return Ok(None);
    }
    d.alts.iter().position(|a| same(a.name, name)).map(Some).ok_or(())
}

/// `form{field=value,...}` (or `{...}` for an operand with one reading) into its bits.
fn parse_bits(
    s: &str,
    at: usize,
    d: &'static BitsDesc,
    field: &'static str,
    expected: &'static str,
) -> Result<u64, Err1> {
    let bits = 8 * u32::from(d.width);
    let bad = || err(at, AsmErrorKind::BadValue { field, expected });
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        return parse_uint(s, bits, at, field, expected);
    }
    let open = brace(s).ok_or_else(bad)?;
    if !s.ends_with('}') {
        return Err(bad());
    }
    let form = form_named(d, &s[..open]).map_err(|()| bad())?;
    let mut p = BitsParse::new(d, form.map(|a| &d.alts[a]), field, expected);
    split_items(&s[open + 1..s.len() - 1], |off, item| {
        let at = at + open + 1 + off;
        let (k, val, skip_k) = split_assign(item);
        p.item(k, val, at + skip_k, at)
    })?;
    p.finish(at)
}

/// The form named at byte `at` of `s` (a word, then `{`), as its index in `d.alts`,
/// and where its `{` is. Inlined into each operand type's reader, where the forms'
/// names are constants.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn form_open(s: &str, at: usize, d: &BitsDesc) -> Option<(Option<usize>, usize)> {
    let (name, i) = word_open(s, at)?;
    if s.as_bytes().get(at).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    Some((form_named(d, name).ok()?, i))
}

/// The word at byte `at` of `s` when `{` follows it (an operand's form, a union's
/// view), and where its `{` is.
#[cfg_attr(not(debug_assertions), inline(always))]
fn word_open(s: &str, at: usize) -> Option<(&str, usize)> {
    let b = s.as_bytes();
    let mut i = at;
    while i < b.len() && is_word(b[i]) {
        i += 1;
    }
    (b.get(i) == Some(&b'{')).then(|| (&s[at..i], i))
}

/// The index of the item among `items` whose name's `name{` is at byte `at` of `b`, and where
/// its `{` is; `None` where none's is (an empty name never matches). Each name is
/// compared in place, a constant compare where the names are constants (an operand
/// type's forms, a union's views, inlined into their generated readers): the scan for
/// the word's end ([`word_open`]) cost a load and a test a byte. A name is a word, so
/// where it matches, the scan finds the same word.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn name_open<T>(
    b: &[u8],
    at: usize,
    items: &[T],
    name_of: impl Fn(&T) -> &'static str,
) -> Option<(usize, usize)> {
    items.iter().enumerate().find_map(|(k, item)| {
        let name = name_of(item);
        let n = name.len();
        let w = b.get(at..at + n + 1)?;
        (n > 0 && w[n] == b'{' && same_bytes(&w[..n], name.as_bytes())).then_some((k, at + n))
    })
}

/// `form{k=v,...}` as the printer writes it (a word, `{`, items of plain words joined
/// by commas, `}`), read in one pass from byte `at` of `b`: the bits and where the
/// value ends, past its `}`. `None` for any other text, and for a value in
/// error: the general reader then reads it and reports.
pub(super) fn plain_bits(
    s: &str,
    at: usize,
    d: &'static BitsDesc,
    field: &'static str,
    expected: &'static str,
) -> Option<(u64, usize)> {
    let b = s.as_bytes();
    let (form, mut i) = form_open(s, at, d)?;
    let mut p = BitsParse::new(d, form.map(|a| &d.alts[a]), field, expected);
    i += 1;
    if b.get(i) == Some(&b'}') {
        i += 1;
    } else {
        loop {
            // The key is the name of a printed bit-field, or `rest`, then `=`: matched
            // in place, where a scan for the key's end cost a load a byte.
            let key = |name: &str| {
                !name.is_empty()
                    && b.get(i + name.len()) == Some(&b'=')
                    && b.get(i..i + name.len()).is_some_and(|k| same_bytes(k, name.as_bytes()))
            };
            let bit = if key("rest") { None } else { Some(p.first_printed(key)?) };
            let vat = i + bit.map_or(4, |(_, b)| b.name.len()) + 1;
            match bit {
                // A number is read as its digits are scanned.
                Some((n, bit)) if b.get(vat).is_some_and(u8::is_ascii_digit) => {
                    let (x, end) = read_plain(b, vat)?;
                    let width = u32::from(bit.hi - bit.lo);
                    if width < 64 && x >> width != 0 {
                        return None;
                    }
                    p.put(n, bit, x, vat).ok()?;
                    i = end;
                }
                Some((n, bit)) => {
                    i = skip_plain(b, vat);
                    p.set(n, bit, &s[vat..i], vat).ok()?;
                }
                None => {
                    i = skip_plain(b, vat);
                    p.rest(&s[vat..i], vat).ok()?;
                }
            }
            let end = *b.get(i)?;
            if end != b',' && end != b'}' {
                return None;
            }
            i += 1;
            if end == b'}' {
                break;
            }
        }
    }
    Some((p.finish(at).ok()?, i))
}

/// `n` integers of `kind` as the printer writes them (`1,0,-32]`: plain numbers that
/// fit, joined by commas, then `]`), from byte `i` of `b` (past the `[`) into `out`:
/// where the array ends, past its `]`. `None` for anything else, which the general
/// reader then reads (and reports).
fn plain_array(b: &[u8], i: usize, kind: &Kind, n: usize, out: &mut [u8]) -> Option<usize> {
    match *kind {
        Kind::Uint(1) => plain_ints::<1, false>(b, i, n, out),
        Kind::Uint(2) => plain_ints::<2, false>(b, i, n, out),
        Kind::Uint(4) => plain_ints::<4, false>(b, i, n, out),
        Kind::Int(1) => plain_ints::<1, true>(b, i, n, out),
        Kind::Int(2) => plain_ints::<2, true>(b, i, n, out),
        Kind::Int(4) => plain_ints::<4, true>(b, i, n, out),
        Kind::Uint(w) | Kind::Int(w) if w == 0 || w > 8 => None,
        Kind::Uint(w) => plain_ints_of(b, i, usize::from(w), false, n, out),
        Kind::Int(w) => plain_ints_of(b, i, usize::from(w), true, n, out),
        _ => None,
    }
}

/// [`plain_array`] of integers of `W` bytes, signed when `SIGNED`: one copy per common
/// width (as the printer's `write_items`), where each item's store and range are
/// constants.
fn plain_ints<const W: usize, const SIGNED: bool>(
    b: &[u8],
    i: usize,
    n: usize,
    out: &mut [u8],
) -> Option<usize> {
    plain_ints_of(b, i, W, SIGNED, n, out)
}

/// [`plain_array`] of `n` integers of `size` bytes (1 to 8).
#[inline(always)]
fn plain_ints_of(
    b: &[u8],
    mut i: usize,
    size: usize,
    signed: bool,
    n: usize,
    out: &mut [u8],
) -> Option<usize> {
    if n == 0 {
        return None;
    }
    for k in 0..n {
        let (v, end) = read_plain_int(b, i, size, signed)?;
        write_uint(out.get_mut(k * size..(k + 1) * size)?, v);
        let sep = if k + 1 < n { b',' } else { b']' };
        if b.get(end) != Some(&sep) {
            return None;
        }
        i = end + 1;
    }
    Some(i)
}

/// A plain integer of `size` bytes (at most 8) from byte `i` of `b`, as the printer
/// writes it (`-` when `signed` and negative, then [`read_plain`]'s digits), that fits:
/// its bits and where its digits end.
#[inline(always)]
fn read_plain_int(b: &[u8], i: usize, size: usize, signed: bool) -> Option<(u64, usize)> {
    let bits = 8 * size as u32;
    let neg = signed && b.get(i) == Some(&b'-');
    let (v, end) = read_plain_windowed(b, i + usize::from(neg))?;
    let v = if neg {
        if v > 1 << (bits - 1) {
            return None;
        }
        v.wrapping_neg()
    } else {
        let max = if signed { (1u64 << (bits - 1)) - 1 } else { u64::MAX >> (64 - bits) };
        if v > max {
            return None;
        }
        v
    };
    Some((v, end))
}

/// Exactly `out.len()` bytes as two lowercase or uppercase hex digits each from byte `i`
/// of `b`, as the printer writes them: where they end. Out of line: one copy for every
/// byte field's leaf.
#[inline(never)]
fn read_plain_bytes(b: &[u8], i: usize, out: &mut [u8]) -> Option<usize> {
    let digits = b.get(i..i + 2 * out.len())?;
    // Every pair stored, and one test of them all at the end (`out` is the caller's to
    // overwrite when they are not all digits).
    let mut bad = 0;
    for (x, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        let (hi, lo) = (HEX[usize::from(pair[0])], HEX[usize::from(pair[1])]);
        bad |= hi | lo;
        *x = hi << 4 | lo;
    }
    (bad < 16).then_some(i + digits.len())
}

/// A quoted name as the printer writes it from byte `i` of `b` (printable ASCII as
/// itself, `\"`, `\\` and `\x` with two hex digits for the rest), into `out` with the
/// bytes after it zero: where its closing quote ends. `None` for any other text (a raw
/// byte the printer escapes, another escape, a name longer than `out`), which the
/// general reader then reads. Its quotes are those `code_end` skips: a backslash
/// always takes the byte after it, so a `#` or `;` in the name is no comment to either.
fn read_plain_str(b: &[u8], mut i: usize, out: &mut [u8]) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    i += 1;
    out.fill(0);
    let mut o = 0;
    loop {
        let (c, len) = match *b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => match *b.get(i + 1)? {
                c @ (b'"' | b'\\') => (c, 2),
                b'x' => {
                    let (hi, lo) =
                        (HEX[usize::from(*b.get(i + 2)?)], HEX[usize::from(*b.get(i + 3)?)]);
                    if hi | lo >= 16 {
                        return None;
                    }
                    (hi << 4 | lo, 4)
                }
                _ => return None,
            },
            c @ 0x20..=0x7E => (c, 1),
            _ => return None,
        };
        *out.get_mut(o)? = c;
        o += 1;
        i += len;
    }
}

/// The value of each hex digit (either case); 0xFF for every other byte.
static HEX: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = match c as u8 {
            d @ b'0'..=b'9' => d - b'0',
            d @ b'a'..=b'f' => d - b'a' + 10,
            d @ b'A'..=b'F' => d - b'A' + 10,
            _ => 0xFF,
        };
        c += 1;
    }
    t
};

/// A plain unsigned number from byte `i` of `b` (1 to 19 decimal digits, or `0x` and 1
/// to 16 hex digits, so that it fits in 64 bits): its value and where its digits end.
/// One loop per radix, so that a digit costs a table load (or a subtraction) and a
/// shift (or a multiply).
#[inline(always)]
pub(super) fn read_plain(b: &[u8], i: usize) -> Option<(u64, usize)> {
    let (mut j, mut v) = (i, 0u64);
    if let (Some(b'0'), Some(b'x' | b'X')) = (b.get(i), b.get(i + 1)) {
        j += 2;
        while let Some(&d) = b.get(j).map(|&c| &HEX[usize::from(c)]) {
            if d >= 16 {
                break;
            }
            if j - (i + 2) == 16 {
                return None;
            }
            v = v << 4 | u64::from(d);
            j += 1;
        }
        return (j > i + 2).then_some((v, j));
    }
    while let Some(&c) = b.get(j) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        if j - i == 19 {
            return None;
        }
        v = v * 10 + u64::from(d);
        j += 1;
    }
    (j > i).then_some((v, j))
}

/// [`read_plain`] where twenty bytes follow `i` (most numbers of a line: all but the
/// last few), read from a fixed-size window so that no digit pays a bounds test; else
/// through `read_plain`. For the hot readers (a leaf's integer, an array's items).
#[inline(always)]
fn read_plain_windowed(b: &[u8], i: usize) -> Option<(u64, usize)> {
    let Some(w) = b.get(i..i + 20).and_then(|w| <&[u8; 20]>::try_from(w).ok()) else {
        return read_plain(b, i);
    };
    let mut v = 0u64;
    if w[0] == b'0' && (w[1] == b'x' || w[1] == b'X') {
        let mut j = 2;
        while j < 19 {
            let d = HEX[usize::from(w[j])];
            if d >= 16 {
                break;
            }
            if j == 18 {
                return None;
            }
            v = v << 4 | u64::from(d);
            j += 1;
        }
        return (j > 2).then_some((v, i + j));
    }
    let mut j = 0;
    while j < 20 {
        let d = w[j].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        if j == 19 {
            return None;
        }
        v = v * 10 + u64::from(d);
        j += 1;
    }
    (j > 0).then_some((v, i + j))
}

/// A value as the printer writes it, read in one pass from byte `at` of `s` into `out`
/// (exactly `kind.size()` bytes), ending at a space or the end of the line: where it
/// ends. `None` for any other text, and for a value in error, which the general reader
/// ([`value_end`], [`parse_value`]) then reads and reports; `out` is left for it to
/// overwrite.
#[inline]
fn plain_value(
    s: &str,
    at: usize,
    kind: &Kind,
    field: &'static str,
    out: &mut [u8],
) -> Option<usize> {
    let end = plain_item(s, at, kind, field, out)?;
    s.as_bytes().get(end).is_none_or(u8::is_ascii_whitespace).then_some(end)
}

/// [`plain_value`] without the test of what follows: where the value's text ends
/// (a field's value then needs a space, an item of a view or array a comma or its
/// closing bracket). Inlined into the line's reader; the nested readers it calls are
/// not, which breaks the recursion there.
#[inline]
pub(super) fn plain_item(
    s: &str,
    at: usize,
    kind: &Kind,
    field: &'static str,
    out: &mut [u8],
) -> Option<usize> {
    let b = s.as_bytes();
    let fits = |v: &u64, w: u8| w >= 8 || v >> (8 * w) == 0;
    let end = match *kind {
        Kind::Bits(d) => {
            let (v, end) =
                (d.read)(s, at).or_else(|| plain_bits(s, at, d, field, kind.expected()))?;
            write_uint(out, v);
            end
        }
        Kind::Uint(w) => {
            let (v, end) = read_plain(b, at)?;
            write_uint(out, Some(v).filter(|v| fits(v, w))?);
            end
        }
        Kind::Int(w) if (1..=8).contains(&w) => {
            let (v, end) = read_plain_int(b, at, usize::from(w), true)?;
            write_uint(out, v);
            end
        }
        Kind::Bytes(_) => read_plain_bytes(b, at, out)?,
        Kind::Str(_) => read_plain_str(b, at, out)?,
        Kind::Enum(e) if b.get(at).is_some_and(u8::is_ascii_digit) => {
            let (v, end) = read_plain(b, at)?;
            write_uint(out, Some(v).filter(|v| fits(v, e.width))?);
            end
        }
        Kind::Enum(e) => {
            let end = skip_plain(b, at);
            write_uint(out, e.value_of(&s[at..end])?);
            end
        }
        Kind::F32 => {
            let (bits, end) = plain_f32(s, at)?;
            write_uint(out, u64::from(bits));
            end
        }
        Kind::Array(k, n) if b.get(at) == Some(&b'[') => {
            let n = usize::from(n);
            match plain_array(b, at + 1, k, n, out) {
                Some(end) => end,
                None if matches!(*k, Kind::Uint(_) | Kind::Int(_)) => return None,
                None => plain_items(s, at + 1, k, n, field, out)?,
            }
        }
        Kind::Union(u) => read_union(s, at, u, field, out)?,
        _ => return None,
    };
    Some(end)
}

/// An `f32` as the printer writes it (the shortest decimal that reads back, or `0x`
/// and the bits of a NaN) from byte `at` of `s`: its bits and where it ends.
fn plain_f32(s: &str, at: usize) -> Option<(u32, usize)> {
    let b = s.as_bytes();
    // The general reader takes a lowercase `0x` only.
    if b.get(at) == Some(&b'0') && b.get(at + 1) == Some(&b'x') {
        let (v, end) = read_plain(b, at)?;
        return Some((u32::try_from(v).ok()?, end));
    }
    // The token the general reader would parse: up to a space, bracket or comma.
    let end = skip_plain(b, at);
    Some((decimal_f32(&s[at..end]).ok()?, end))
}

/// The bits of the `f32` that `s` spells in decimal (or `inf`, `nan`); `Err(true)` for a
/// finite number too large for an `f32`, which `str::parse` takes as an infinity.
fn decimal_f32(s: &str) -> Result<u32, bool> {
    let x = s.parse::<f32>().map_err(|_| false)?;
    let word = s.trim_start_matches(['+', '-']);
    if x.is_infinite()
        && !word.eq_ignore_ascii_case("inf")
        && !word.eq_ignore_ascii_case("infinity")
    {
        return Err(true);
    }
    Ok(x.to_bits())
}

/// `n` items of `kind` (not integers) as the printer writes them (`a,b,...]`) from
/// byte `i` of `s` (past the `[`) into `out`: where the array ends, past its `]`.
#[inline(never)]
fn plain_items(
    s: &str,
    mut i: usize,
    kind: &Kind,
    n: usize,
    field: &'static str,
    out: &mut [u8],
) -> Option<usize> {
    let size = kind.size();
    if size == 0 || n == 0 {
        return None;
    }
    for k in 0..n {
        let end = plain_item(s, i, kind, field, out.get_mut(k * size..(k + 1) * size)?)?;
        let sep = if k + 1 < n { b',' } else { b']' };
        if s.as_bytes().get(end) != Some(&sep) {
            return None;
        }
        i = end + 1;
    }
    Some(i)
}

/// `view{field=value,...}` as the printer writes it (a view's name, its shown fields
/// in table order, `value` alone for a scalar view's unnamed leaf) from byte `at` of
/// `s` into `out` (zero, as the line's record starts): where it ends, past its `}`.
#[inline(never)]
pub(super) fn plain_union(
    s: &str,
    at: usize,
    u: &'static UnionDesc,
    field: &'static str,
    out: &mut [u8],
) -> Option<usize> {
    let b = s.as_bytes();
    let (view, mut i) = union_view_at(s, at, u)?;
    let leaves = Leaves::of(u.views[view].fields);
    i += 1;
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    let mut cursor = 0;
    loop {
        let (k, f, value_at) = match leaves.named_at(s, i, cursor) {
            Some((k, f)) => (k, f, i + f.name.len() + 1),
            None => {
                let k = (cursor..leaves.len()).find(|&k| leaves.get(k).name.is_empty())?;
                (k, leaves.get(k), i)
            }
        };
        let end = plain_item(s, value_at, &f.kind, field, out.get_mut(f.range())?)?;
        cursor = k + 1;
        match b.get(end) {
            Some(b',') => i = end + 1,
            Some(b'}') => return Some(end + 1),
            _ => return None,
        }
    }
}

/// The view named at byte `at` of `s` (a word, then `{`), as its index in `u.views`,
/// and where its `{` is; `None` for a word no view has, or no `{`.
#[inline(never)]
pub(super) fn union_view_at(s: &str, at: usize, u: &UnionDesc) -> Option<(usize, usize)> {
    let (name, i) = word_open(s, at)?;
    Some((u.view_named(name)?, i))
}

/// A union's value at byte `at` of `s` into `out`: by its generated reader, else (text
/// it does not take) by the one-pass reader; where it ends.
#[cfg_attr(not(debug_assertions), inline(always))]
fn read_union(
    s: &str,
    at: usize,
    u: &'static UnionDesc,
    field: &'static str,
    out: &mut [u8],
) -> Option<usize> {
    (u.read)(s, at, out).or_else(|| plain_union(s, at, u, field, out))
}

/// Parse a value of `kind` from `s` (which starts at byte `at` of the line) into `out`.
fn parse_value(
    s: &str,
    at: usize,
    kind: &Kind,
    field: &'static str,
    out: &mut [u8],
) -> Result<(), Err1> {
    let expected = kind.expected();
    let bad = || err(at, AsmErrorKind::BadValue { field, expected });
    match *kind {
        Kind::Uint(w) => write_uint(out, parse_uint(s, 8 * u32::from(w), at, field, expected)?),
        Kind::Int(w) => {
            let v = parse_int(s).ok_or_else(bad)?;
            let lim = 1i128 << (8 * u32::from(w) - 1);
            if !(-lim..lim).contains(&v) {
                let fits = Fits::signed(8 * u32::from(w));
                return Err(err(at, AsmErrorKind::OutOfRange { field, fits }));
            }
            write_uint(out, v as i64 as u64);
        }
        Kind::F32 => {
            // Bits as any integer field takes hex (`0x` or `0X`).
            let bits = if s.starts_with("0x") || s.starts_with("0X") {
                parse_uint(s, 32, at, field, expected)? as u32
            } else {
                decimal_f32(s).map_err(|wide| match wide {
                    true => err(at, AsmErrorKind::OutOfRange { field, fits: Fits::F32 }),
                    false => bad(),
                })?
            };
            write_uint(out, u64::from(bits));
        }
        Kind::Enum(e) => {
            // A value name is a word that does not start with a digit.
            let v = if s.starts_with(|c: char| c.is_ascii_digit()) {
                parse_uint(s, 8 * u32::from(e.width), at, field, expected)?
            } else {
                e.value_of(s).ok_or_else(|| case_or(e, s, at, field, bad()))?
            };
            write_uint(out, v);
        }
        Kind::Bits(d) => write_uint(out, parse_bits(s, at, d, field, expected)?),
        Kind::Union(u) => {
            let open = brace(s).ok_or_else(bad)?;
            if !s.ends_with('}') {
                return Err(bad());
            }
            let named = &s[..open];
            let view = u.view(named).ok_or_else(|| {
                let view = Name::new(named);
                err(at, AsmErrorKind::UnknownView { field, view, views: Views(u) })
            })?;
            out.fill(0);
            let mut seen = Seen::default();
            let mut cursor = 0;
            split_items(&s[open + 1..s.len() - 1], |off, item| {
                let at = at + open + 1 + off;
                let (k, val, skip) = split_assign(item);
                assign(
                    Leaves::of(view.fields),
                    &mut cursor,
                    u.name,
                    k,
                    None,
                    at,
                    val,
                    at + skip,
                    out,
                    &mut seen,
                )
            })
            .map_err(|e| match e.kind {
                AsmErrorKind::UnknownField { field: name, .. } => {
                    let names = view.fields.iter().map(|f| f.name).filter(|n| !n.is_empty());
                    let like = desc::nearest(name.as_str(), names);
                    err(e.at, AsmErrorKind::UnknownViewField { field, view: view.name, name, like })
                }
                k => err(e.at, k.in_field(field)),
            })?;
        }
        Kind::Array(k, n) => {
            let inner = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')).ok_or_else(bad)?;
            let size = k.size();
            if plain_array(s.as_bytes(), 1, k, n as usize, out) == Some(s.len()) {
                return Ok(());
            }
            let mut i = 0usize;
            // Items past the field's are counted, not read, for the error.
            split_items(inner, |off, item| {
                if i < usize::from(n) {
                    let dst = &mut out[i * size..(i + 1) * size];
                    parse_value(item, at + 1 + off, k, field, dst)?;
                }
                i += 1;
                Ok(())
            })?;
            if i != n as usize {
                let (holds, given) = (n.into(), i);
                return Err(err(at, AsmErrorKind::Count { field, holds, given }));
            }
        }
        Kind::Str(n) => {
            let inner = s.strip_prefix('"').and_then(|r| r.strip_suffix('"')).ok_or_else(bad)?;
            let b = inner.as_bytes();
            let (mut i, mut o) = (0usize, 0usize);
            out.fill(0);
            // Bytes past the field's are counted, not stored, for the error.
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
                if let Some(x) = out.get_mut(o) {
                    *x = c.0;
                }
                o += 1;
                i += c.1;
            }
            if o > usize::from(n) {
                return Err(err(at, AsmErrorKind::TooLong { field, max: n.into(), given: o }));
            }
        }
        Kind::Bytes(n) => {
            // Fewer digits than bytes: the rest are zero (the printer drops nothing, but a
            // hand-written line may give a short payload).
            if s.len() % 2 != 0 || s.len() > 2 * n as usize || !s.is_ascii() {
                let hex = s.len() % 2 == 0 && s.bytes().all(|c| c.is_ascii_hexdigit());
                if hex && s.len() > 2 * n as usize {
                    let (holds, given) = (n as usize, s.len() / 2);
                    return Err(err(at, AsmErrorKind::TooManyBytes { field, holds, given }));
                }
                return Err(bad());
            }
            out.fill(0);
            for (i, x) in out.iter_mut().take(s.len() / 2).enumerate() {
                *x = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
            }
        }
    }
    Ok(())
}

/// Which fields of a table a line gave.
#[derive(Default)]
struct Seen([u64; 4]);

impl Seen {
    /// Whether field `i` was given.
    fn has(&self, i: usize) -> bool {
        self.0[i / 64 % 4] & 1 << (i % 64) != 0
    }

    /// Mark field `i`; false when it was given before.
    fn mark(&mut self, i: usize) -> bool {
        let (w, b) = (i / 64 % 4, 1u64 << (i % 64));
        let fresh = self.0[w] & b == 0;
        self.0[w] |= b;
        fresh
    }
}

/// A table's leaves as two runs (a shared preamble, then the rest), indexed as one.
#[derive(Clone, Copy)]
struct Leaves {
    head: &'static [FieldDesc],
    tail: &'static [FieldDesc],
}

impl Leaves {
    fn of(fields: &'static [FieldDesc]) -> Leaves {
        Leaves { head: &[], tail: fields }
    }

    fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    fn get(&self, i: usize) -> &'static FieldDesc {
        if i < self.head.len() {
            &self.head[i]
        } else {
            &self.tail[i - self.head.len()]
        }
    }

    /// The index and row of the first leaf from `from` on whose name, followed by `=`,
    /// starts `line` at `at`.
    fn named_at(&self, line: &str, at: usize, from: usize) -> Option<(usize, &'static FieldDesc)> {
        let b = line.as_bytes();
        (from..self.len()).map(|i| (i, self.get(i))).find(|&(_, f)| {
            let n = f.name.len();
            n > 0
                && b.get(at + n) == Some(&b'=')
                && b.get(at..at + n).is_some_and(|x| same_bytes(x, f.name.as_bytes()))
        })
    }

    /// The index of the leaf named `name`, searched from `from` on and then from the
    /// start: a line lists its fields in table order, so the next one is usually next.
    fn find(&self, name: &str, from: usize) -> Option<usize> {
        let n = self.len();
        (from..n).chain(0..from.min(n)).find(|&i| same(self.get(i).name, name))
    }
}

/// `name=value` into `out` by the table `leaves` (whose owner, for errors, is `owner`);
/// `cursor` is where the next name is looked for first; `known` is the leaf's index
/// when the caller has found it already.
#[allow(clippy::too_many_arguments)]
fn assign(
    leaves: Leaves,
    cursor: &mut usize,
    owner: &'static str,
    name: &str,
    known: Option<usize>,
    name_at: usize,
    value: &str,
    value_at: usize,
    out: &mut [u8],
    seen: &mut Seen,
) -> Result<(), Err1> {
    let idx = known.or_else(|| leaves.find(name, *cursor)).ok_or_else(|| {
        err(name_at, AsmErrorKind::UnknownField { arm: owner, field: Name::new(name) })
    })?;
    *cursor = idx + 1;
    let f = leaves.get(idx);
    if !seen.mark(idx) {
        return Err(err(name_at, AsmErrorKind::Duplicate { field: f.name }));
    }
    // A leaf past the bytes being written is no field of them (the tables keep every
    // leaf inside its record; this keeps a defect there an error, never a panic).
    let dst = out.get_mut(f.range()).ok_or_else(|| {
        err(name_at, AsmErrorKind::UnknownField { arm: owner, field: Name::new(name) })
    })?;
    parse_value(value, value_at, &f.kind, f.name, dst)
}

/// The fields of `unknown opcode=0x.. bytes=<hex>`.
static UNKNOWN_FIELDS: [FieldDesc; 2] = [
    FieldDesc::new("opcode", 0, Kind::Uint(1), Role::Normal, Confidence::Certain),
    FieldDesc::new("bytes", 0, Kind::Bytes(64), Role::Normal, Confidence::Certain),
];

/// Skip the offset and hex columns of a listing line (`00000040  d300…00  text`), or
/// the offset column alone of a `disasm --no-hex` listing (`00000040  text`), so that a
/// listing assembles as its text column; the text wins, so an edited listing assembles
/// to the edit. A line without the columns is left as it is; so is an offset column
/// alone unless a mnemonic (or the unknown form) follows it and it is not one itself,
/// so that a misspelt mnemonic of hex letters is still the one reported.
fn skip_listing_columns(s: &str, at: usize) -> usize {
    let b = s.as_bytes();
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
    // Whitespace is ASCII, so every token boundary is a `char` boundary.
    let is_mnemonic = |w: &str| w == UNKNOWN || desc::target(w).is_some();
    let (off_end, _) = token(at);
    if !is_offset_column(&b[at..off_end]) {
        return at;
    }
    let next = skip_ws(off_end);
    match token(next) {
        (hex_end, Some(n)) if n == 2 * RECORD_SIZE => skip_ws(hex_end),
        (end, _)
            if next > off_end && is_mnemonic(&s[next..end]) && !is_mnemonic(&s[at..off_end]) =>
        {
            next
        }
        _ => at,
    }
}

/// Whether a line's first word looks like a listing's offset column: 8 to 16 hex digits.
fn is_offset_column(w: &[u8]) -> bool {
    (8..=16).contains(&w.len()) && w.iter().all(u8::is_ascii_hexdigit)
}

/// Whether `line` is a function's label line of a listing, `00000040 <main>:` (an
/// offset column, one space, the name in `<` `>:`), as `tpb disasm` prints one before a
/// function's first record: it assembles to nothing, as a blank line does. No record's
/// line is one (a mnemonic never starts with `<`), and the name may hold `#` or `;`, so
/// it is told apart before a comment is looked for; a comment may follow the label's
/// last `>:`, as it may follow a record.
#[must_use]
pub fn is_label_line(line: &str) -> bool {
    let t = line.trim_ascii();
    let Some((off, rest)) = t.split_once(' ') else { return false };
    // The cheap tests first: a record's row (an offset, then hundreds of bytes) is no
    // label at its second column, before any search of it from the end.
    if !rest.starts_with('<') || !is_offset_column(off.as_bytes()) {
        return false;
    }
    let Some(end) = rest.rfind(">:") else { return false };
    let after = rest[end + 2..].trim_ascii_start();
    after.is_empty() || after.starts_with(['#', ';'])
}

/// A line read as the printer writes it, by an arm's generated reader (`READERS`):
/// ` name=value` for each shown leaf, in table order, one space before each. A reader
/// calls [`printed_leaf`] once per leaf of the layout, so that each leaf's name, offset
/// and kind fold into its code, as the printers' do (on printed text the general reader
/// ran 1.13–1.25× slower, a walk of the layout's table in order 1.05–1.19×). It gives
/// up (`ok` false, or stopping short of the line's end) on anything else, which the
/// general reader then reads and reports; where it finishes, the general reader gives
/// the same bytes (the tests `each_arms_reader_reads_every_line_its_printer_writes`
/// and `the_one_pass_reader_reads_as_the_general_reader_does`).
pub(crate) struct Printed<'a> {
    /// The line, without its comment.
    s: &'a str,
    /// Where the next leaf's space is.
    i: usize,
    /// The record so far: the opcode and sub-opcode its mnemonic implies, then each
    /// leaf read.
    out: [u8; RECORD_SIZE],
    /// False once a named leaf's value is not as the printer writes it.
    ok: bool,
}

/// An arm's reader: its layout's leaves on `arch`, in table order ([`Printed`]).
pub(crate) type Reader = fn(&mut Printed<'_>, Arch);

/// The leaf `f` at [`Printed::i`] when the text there is ` name=` (else the leaf is
/// not shown, and the next is tried): its value into the record, read by
/// [`plain_value`] as the general reader's one-pass path reads it. Inlined into each
/// reader in optimized builds, where `f` is a constant.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn printed_leaf(p: &mut Printed<'_>, f: &'static FieldDesc) {
    let b = p.s.as_bytes();
    let (n, at) = (f.name.len(), p.i + 1);
    // Once a leaf has failed (`p.ok` false) the record is thrown away, so the leaves
    // after it are not stopped: a test fewer for every leaf of a line read whole.
    // ` name=` is read as one window of the text, one test of its length.
    let Some(w) = b.get(p.i..at + n + 1) else { return };
    if n == 0 || w[0] != b' ' || w[n + 1] != b'=' || &w[1..=n] != f.name.as_bytes() {
        return;
    }
    // Most leaves, integers and enums: read here and stored where the width and the
    // offset are constants, as `plain_value` reads them. No reader here tests what
    // follows the value: the next leaf starts at a blank, and the line must end where
    // the last leaf stops, so a value that stops short of a blank fails the line.
    let vat = at + n + 1;
    let scalar = match f.kind {
        Kind::Uint(w) => Some(plain_uint(b, vat, w)),
        Kind::Enum(e) if b.get(vat).is_some_and(u8::is_ascii_digit) => {
            Some(plain_uint(b, vat, e.width))
        }
        Kind::Enum(e) => Some(enum_name(p.s, vat, e)),
        _ => None,
    };
    if let Some((v, end)) = scalar {
        match p.out.get_mut(f.range()) {
            Some(dst) if end > 0 => {
                write_uint(dst, v);
                p.i = end;
            }
            _ => p.ok = false,
        }
        return;
    }
    let Some(dst) = p.out.get_mut(f.range()) else {
        p.ok = false;
        return;
    };
    // The other common kinds straight to their readers, without `plain_value`'s
    // dispatch on the kind, which is a constant here.
    let end = match f.kind {
        Kind::Bits(d) => (d.read)(p.s, vat)
            .or_else(|| plain_bits(p.s, vat, d, f.name, f.kind.expected()))
            .map(|(v, end)| {
                write_uint(dst, v);
                end
            }),
        Kind::Array(k, n) if matches!(*k, Kind::Uint(_) | Kind::Int(_)) => match b.get(vat) {
            Some(b'[') => plain_array(b, vat + 1, k, n.into(), dst),
            _ => None,
        },
        Kind::Bytes(_) => read_plain_bytes(b, vat, dst),
        Kind::Union(u) => read_union(p.s, vat, u, f.name, dst),
        // The rest through `plain_value`, out of line: inlined into every leaf, it made
        // the readers six times larger (1.1 MB) for 3-10% more lines a second.
        _ => plain_value(p.s, vat, &f.kind, f.name, dst),
    };
    match end {
        Some(end) => p.i = end,
        None => p.ok = false,
    }
}

/// An integer of `w` bytes as the printer writes it, from byte `at` of `b`: its value
/// and where it ends, `(0, 0)` for any other text. Out of line,
/// and a pair of registers rather than an `Option`, so that a leaf's call is cheap
/// and its code small.
#[inline(never)]
pub(super) fn plain_uint(b: &[u8], at: usize, w: u8) -> (u64, usize) {
    match read_plain_windowed(b, at) {
        Some((v, end)) if w >= 8 || v >> (8 * w) == 0 => (v, end),
        _ => (0, 0),
    }
}

/// The value of the enum name at byte `at` of `s`, and where it ends; `(0, 0)` for any
/// other text. Out of line, as [`plain_uint`].
#[inline(never)]
fn enum_name(s: &str, at: usize, e: &super::desc::EnumDesc) -> (u64, usize) {
    let b = s.as_bytes();
    let end = skip_plain(b, at);
    match s.get(at..end).and_then(|name| e.value_of(name)) {
        Some(v) => (v, end),
        None => (0, 0),
    }
}

/// The record the reader of arm `kind` makes of `s` from byte `i`, the end of its
/// mnemonic, into `out` (the bytes the mnemonic implies set), and where it stopped;
/// `None` where it gives up.
fn read_printed(
    kind: ArmKind,
    arch: Arch,
    s: &str,
    i: usize,
    out: [u8; RECORD_SIZE],
) -> Option<([u8; RECORD_SIZE], usize)> {
    let mut p = Printed { s, i, out, ok: true };
    READERS[kind as usize](&mut p, arch);
    p.ok.then_some((p.out, p.i))
}

/// The first line of `text` when it is as the printer writes it, read in place (which
/// spares the search for its end, a twentieth of the time of assembling printed text):
/// its record and where the next line starts. `None` for any other line, which
/// [`assemble_line`] then reads: one that starts with a blank, a listing's offset
/// column or the unknown form, one that its arm's reader does not take to its end
/// (which a comment or a quote stops).
fn printed_line(arch: Arch, text: &str) -> Option<([u8; RECORD_SIZE], usize)> {
    let b = text.as_bytes();
    let m = mnemonic_end(b);
    if !b.get(m).is_none_or(u8::is_ascii_whitespace) {
        return None;
    }
    let mnemonic = text.get(..m)?;
    let target = desc::target(mnemonic)?;
    // Tested once the word is known to be a mnemonic (which an empty word is not):
    // were a listing's offset column or the unknown form one, it is still theirs.
    if is_offset_column(&b[..m]) || mnemonic == UNKNOWN {
        return None;
    }
    let (kind, out) = match target {
        Target::Binding(n) => {
            let binding = BINDINGS.get(n as usize)?;
            let record = binding.record();
            // A binding `arch` lacks: the opaque form, read below.
            if !binding_on(arch, &record) {
                return None;
            }
            (binding.arm, record)
        }
        Target::Arm(kind) => (kind, [0u8; RECORD_SIZE]),
        Target::Opaque(_) => return None,
    };
    let (out, end) = read_printed(kind, arch, text, m, out)?;
    let next = match (b.get(end), b.get(end + 1)) {
        (None, _) => end,
        (Some(b'\n'), _) => end + 1,
        (Some(b'\r'), Some(b'\n')) => end + 2,
        _ => return None,
    };
    // No reader takes `#` or `;` outside a quoted name (names are matched whole, values
    // are digits, names of the tables and `true`/`false`), and a quoted name ends where
    // `code_end` skips it to, so a line read to its end has no comment for `code_end` to
    // find (the test `comment_and_quote_characters_anywhere_in_a_line_read_as_the_
    // general_reader_reads_them`).
    Some((out, next))
}

/// Where the mnemonic at the start of `b` ends: at its first byte of at most 0x20 (a
/// blank, or a control byte no mnemonic holds), found eight bytes at a time: a lane
/// below 0x21 borrows into its high bit when 0x21 is taken from it, which the first
/// such lane does exactly.
fn mnemonic_end(b: &[u8]) -> usize {
    const LANES: u64 = 0x0101_0101_0101_0101;
    let mut i = 0;
    while let Some(w) = b.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let x = u64::from_le_bytes(*w);
        let low = x.wrapping_sub(LANES * 0x21) & !x & (LANES * 0x80);
        if low != 0 {
            return i + (low.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    b[i..].iter().position(|&c| c <= 0x20).map_or(b.len(), |n| i + n)
}

/// What reads the line of a binding `arch` lacks (another generation's `@archs`).
const NO_LAYOUT_HERE: &str = "an opcode without a layout on this generation";

/// The record of `line`; `fast` reads a line as the printer writes it through its arm's
/// reader, and values in one pass, where it can (off only to test that it changes
/// nothing).
///
/// The mnemonic of a binding `arch` lacks reads the opaque form (preamble and payload:
/// how `arch` prints the opcode's records), else the arm's fields (how `write_arm`
/// prints a record read as that arm); its errors are the arm's, but where the arm knows
/// a field before the opaque form's unknown one (`payload=`), the line is in the opaque
/// form and the error is that form's, at its own column.
fn line_bytes(arch: Arch, line: &str, fast: bool) -> Result<Option<[u8; RECORD_SIZE]>, Err1> {
    match line_bytes_as(arch, line, fast, true) {
        Err(Err1 { at, kind: AsmErrorKind::UnknownField { arm: NO_LAYOUT_HERE, field } }) => {
            match line_bytes_as(arch, line, fast, false) {
                Err(Err1 { at: arm_at, kind: AsmErrorKind::UnknownField { arm, .. } })
                | Err(Err1 { at: arm_at, kind: AsmErrorKind::FieldLike { arm, .. } })
                | Err(Err1 { at: arm_at, kind: AsmErrorKind::FieldOfOtherLayout { arm, .. } })
                    if arm_at < at =>
                {
                    Err(err(at, AsmErrorKind::UnknownField { arm, field }))
                }
                r => r,
            }
        }
        r => r,
    }
}

/// [`line_bytes`], a binding `arch` lacks read in the opaque form (`opaque`) or as its
/// arm.
fn line_bytes_as(
    arch: Arch,
    line: &str,
    fast: bool,
    opaque: bool,
) -> Result<Option<[u8; RECORD_SIZE]>, Err1> {
    if is_label_line(line) {
        return Ok(None);
    }
    let s = &line[..code_end(line.as_bytes())];
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if i == b.len() {
        return Ok(None);
    }
    i = skip_listing_columns(s, i);
    let start = i;
    while i < b.len() && !b[i].is_ascii_whitespace() {
        i += 1;
    }
    let mnemonic = &s[start..i];
    let mut out = [0u8; RECORD_SIZE];
    let unknown_mnemonic = || {
        let given = Name::new(mnemonic);
        if let Some(m) = desc::mnemonic_like(mnemonic) {
            return err(start, AsmErrorKind::MnemonicCase { given, mnemonic: m });
        }
        let names = core::iter::once(UNKNOWN).chain(MNEMONICS.iter().map(|&(m, _)| m));
        match desc::nearest(mnemonic, names) {
            Some(m) => err(start, AsmErrorKind::MnemonicLike { given, mnemonic: m }),
            None => err(start, AsmErrorKind::UnknownMnemonic { mnemonic: given }),
        }
    };
    let (layout, owner, kind): (Option<&'static LayoutText>, &'static str, Option<ArmKind>) =
        if mnemonic == UNKNOWN {
            (None, UNKNOWN, None)
        } else {
            match desc::target(mnemonic).ok_or_else(unknown_mnemonic)? {
                Target::Binding(n) => {
                    let binding = BINDINGS.get(n as usize).ok_or_else(unknown_mnemonic)?;
                    out = binding.record();
                    if !opaque || binding_on(arch, &out) {
                        (
                            Some(ArmText::of(binding.arm).layout(arch)),
                            binding.mnemonic,
                            Some(binding.arm),
                        )
                    } else {
                        // Another generation's binding: here the opcode has no layout,
                        // and its records read and print as an opaque record's.
                        (Some(&OPAQUE), NO_LAYOUT_HERE, None)
                    }
                }
                Target::Opaque(op) => {
                    out[DISCRIMINANT_OFFSET] = op;
                    (Some(&OPAQUE), "opaque record", None)
                }
                Target::Arm(kind) => {
                    let arm = ArmText::of(kind);
                    (Some(arm.layout(arch)), arm.mnemonic, Some(kind))
                }
            }
        };
    // Most lines are as the printer writes them: the arm's reader takes them whole.
    if let Some((r, _)) = kind
        .filter(|_| fast)
        .and_then(|k| read_printed(k, arch, s, i, out))
        .filter(|&(_, end)| end == b.len())
    {
        return Ok(Some(r));
    }
    let leaves = match layout {
        Some(l) => Leaves { head: l.preamble, tail: l.fields },
        None => Leaves::of(&UNKNOWN_FIELDS),
    };
    let mut cursor = 0;
    let mut seen = Seen::default();
    let mut opcode: Option<(u8, usize)> = None;
    let fast = fast && owner != UNKNOWN;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == b.len() {
            break;
        }
        let name_at = i;
        // The printer lists fields in table order: the name is usually that of a leaf
        // after the cursor, followed by `=`, and then needs no scan.
        let known = leaves.named_at(s, name_at, cursor);
        match known {
            Some((_, f)) => i += f.name.len(),
            None => {
                while i < b.len() && is_word(b[i]) {
                    i += 1;
                }
            }
        }
        if i == name_at || i == b.len() || b[i] != b'=' {
            // `name=value` whose name holds a byte no field name has (`ñum=1`): the
            // field is what is wrong, not the syntax.
            let word = &b[name_at..];
            let word = &word[..word.iter().position(u8::is_ascii_whitespace).unwrap_or(word.len())];
            if let Some(eq) = word.iter().position(|&c| c == b'=').filter(|&eq| eq > 0) {
                if owner != NO_LAYOUT_HERE && owner != UNKNOWN {
                    let name = &s[name_at..name_at + eq];
                    return Err(unknown_field(arch, kind, leaves, owner, name, name_at));
                }
            }
            return Err(err(name_at, AsmErrorKind::Syntax { expected: "field=value" }));
        }
        let v_at = i + 1;
        // Most values are as the printer writes them: read them in one pass.
        if let Some((k, f)) = known.filter(|(k, _)| fast && !seen.has(*k)) {
            let end =
                out.get_mut(f.range()).and_then(|dst| plain_value(s, v_at, &f.kind, f.name, dst));
            if let Some(end) = end {
                seen.mark(k);
                cursor = k + 1;
                i = end;
                continue;
            }
        }
        let name = &s[name_at..i];
        let end = value_end(b, v_at);
        let value = &s[v_at..end];
        if owner == UNKNOWN && name == "opcode" {
            if !seen.mark(0) {
                return Err(err(name_at, AsmErrorKind::Duplicate { field: "opcode" }));
            }
            let mut one = [0u8; 1];
            parse_value(value, v_at, &Kind::Uint(1), "opcode", &mut one)?;
            opcode = Some((one[0], v_at));
        } else {
            let known = known.map(|(k, _)| k);
            assign(
                leaves,
                &mut cursor,
                owner,
                name,
                known,
                name_at,
                value,
                v_at,
                &mut out,
                &mut seen,
            )
            .map_err(|e| match e.kind {
                AsmErrorKind::UnknownField { arm, .. }
                    if e.at == name_at && arm == owner && owner != NO_LAYOUT_HERE =>
                {
                    unknown_field(arch, kind, leaves, owner, name, name_at)
                }
                _ => e,
            })?;
        }
        i = end;
    }
    if owner == UNKNOWN {
        if seen.mark(1) {
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

/// The error for a field `name` (at byte `at`) that the layout `leaves` of `owner` on
/// `arch` lacks, with what the line more likely meant: a field inside a union view (a
/// dotted name of another generation's flat layout), a field of the arm's layout on
/// other generations, or a field whose name is near.
fn unknown_field(
    arch: Arch,
    kind: Option<ArmKind>,
    leaves: Leaves,
    owner: &'static str,
    name: &str,
    at: usize,
) -> Err1 {
    let (arm, field) = (owner, Name::new(name));
    let all = || (0..leaves.len()).map(|i| leaves.get(i));
    if let Some((head, tail)) = name.split_once('.') {
        let on = |v: &&desc::ViewDesc| desc::holds(v.archs, arch);
        let in_view = all().find(|f| f.name == head).and_then(|f| match f.kind {
            Kind::Union(u) => u.views.iter().filter(on).find_map(|v| {
                let m = v.fields.iter().find(|m| {
                    m.name == tail || m.name.strip_prefix(tail).is_some_and(|r| r.starts_with('.'))
                })?;
                Some((f.name, v.name, m.name.split('.').next().unwrap_or(m.name)))
            }),
            _ => None,
        });
        if let Some((union, view, member)) = in_view {
            return err(at, AsmErrorKind::FieldInView { arm, field, union, view, member });
        }
    }
    if let Some(k) = kind {
        let archs = ArmText::of(k)
            .layouts
            .iter()
            .filter(|l| l.leaf(name).is_some())
            .fold(0u8, |a, l| a | l.archs);
        if !desc::holds(archs, arch) && archs != 0 {
            return err(at, AsmErrorKind::FieldOfOtherLayout { arm, field, archs });
        }
    }
    match desc::nearest(name, all().map(|f| f.name)) {
        Some(like) => err(at, AsmErrorKind::FieldLike { arm, field, like }),
        None => err(at, AsmErrorKind::UnknownField { arm, field }),
    }
}

fn column(line: &str, at: usize) -> usize {
    line.get(..at).map_or(at, |p| p.chars().count()) + 1
}

/// Assemble one line in the layouts of `arch` (numbered `line_no` in errors); `Ok(None)`
/// for a blank or comment line (`#` or `;` starts a comment) and for a listing's label
/// line (`00000040 <main>:`).
///
/// # Errors
///
/// [`AsmError`] with the column of the offending text.
pub fn assemble_line(
    arch: Arch,
    line: &str,
    line_no: usize,
) -> Result<Option<[u8; RECORD_SIZE]>, AsmError> {
    line_bytes(arch, line, true).map_err(|e| AsmError {
        line: line_no,
        col: column(line, e.at),
        kind: e.kind,
    })
}

/// Assemble text: one record per non-blank line, with line numbers from 1.
pub fn assemble(
    arch: Arch,
    text: &str,
) -> impl Iterator<Item = Result<[u8; RECORD_SIZE], AsmError>> + '_ {
    let (mut rest, mut line_no) = (text, 0);
    core::iter::from_fn(move || loop {
        if rest.is_empty() {
            return None;
        }
        line_no += 1;
        if let Some((record, next)) = printed_line(arch, rest) {
            rest = &rest[next..];
            return Some(Ok(record));
        }
        let line = next_line(&mut rest);
        if let Some(r) = assemble_line(arch, line, line_no).transpose() {
            return Some(r);
        }
    })
}

/// The lines of `text` as [`assemble`] takes them one by one ([`next_line`]): as
/// [`str::lines`] splits them.
#[cfg(test)]
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    core::iter::from_fn(move || (!rest.is_empty()).then(|| next_line(&mut rest)))
}

/// The first line of `rest` (not empty), which moves past it and its line ending: at
/// `\n` or `\r\n`, a final line ending optional, found with `memchr`'s vector search
/// (`str::lines` took a tenth of the time of assembling printed text).
fn next_line<'a>(rest: &mut &'a str) -> &'a str {
    let Some(i) = memchr::memchr(b'\n', rest.as_bytes()) else {
        return core::mem::take(rest);
    };
    let line = &rest[..i];
    *rest = &rest[i + 1..];
    line.strip_suffix('\r').unwrap_or(line)
}

impl Inst {
    /// Parse one line of text in the layouts of `arch`; the record is decoded from the
    /// assembled bytes. One line ending (`\n`, `\r\n`) may close it; for several
    /// lines, [`assemble`].
    ///
    /// # Errors
    ///
    /// [`AsmError`] when the line does not assemble or holds no record, or when the
    /// text goes on past its first line.
    pub fn parse(arch: Arch, line: &str) -> Result<Inst, AsmError> {
        let mut rest = line;
        let one = next_line(&mut rest);
        if !rest.is_empty() {
            // At the first line's `\n`.
            let col = line[..line.len() - rest.len() - 1].chars().count() + 1;
            let expected =
                "the end of the line: Inst::parse reads one line (disasm::assemble reads several)";
            return Err(AsmError { line: 1, col, kind: AsmErrorKind::Syntax { expected } });
        }
        match assemble_line(arch, one, 1)? {
            Some(b) => Ok(Inst::decode(arch, &b)),
            None => Err(AsmError {
                line: 1,
                col: 1,
                kind: AsmErrorKind::Syntax { expected: "a mnemonic" },
            }),
        }
    }
}

#[cfg(all(test, feature = "std"))]
pub(super) mod tests {
    use super::{assemble, assemble_line, line_bytes, lines, parse_int, parse_value, read_printed};
    use crate::disasm::desc::Kind;
    use crate::disasm::desc::{self, Target};
    use crate::generated::geometry::Arch;
    use crate::generated::inst::{BINDINGS, RECORD_SIZE};
    use std::string::String;

    /// The `n` bytes the first `2 * n` hex digits of `b` spell, by `char::to_digit`.
    fn bytes_by_digit(b: &[u8], n: usize) -> Option<std::vec::Vec<u8>> {
        let digits = b.get(..2 * n)?;
        let d = |c: u8| char::from(c).to_digit(16);
        digits.chunks_exact(2).map(|p| Some((d(p[0])? << 4 | d(p[1])?) as u8)).collect()
    }

    /// Numbers and byte fields read through the digit table as `char::to_digit` reads
    /// them: the same value and end, or `None`, for decimal and hex runs of either case,
    /// too long runs, runs cut by other bytes, and runs that end the text.
    #[test]
    fn numbers_read_as_to_digit_reads_them() {
        fn by_digit(b: &[u8], i: usize) -> Option<(u64, usize)> {
            let (radix, start, most) = match (b.get(i), b.get(i + 1)) {
                (Some(b'0'), Some(b'x' | b'X')) => (16, i + 2, 16),
                _ => (10, i, 19),
            };
            let (mut j, mut v) = (start, 0u64);
            while let Some(d) = b.get(j).and_then(|&c| char::from(c).to_digit(radix)) {
                if j - start == most {
                    return None;
                }
                v = v * u64::from(radix) + u64::from(d);
                j += 1;
            }
            (j > start).then_some((v, j))
        }
        const BYTES: &[u8] = b"0123456789abcdefABCDEFgG/:@`x,} \xff\xc3";
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for round in 0..200_000 {
            let x = next();
            let mut t = match round % 3 {
                0 => std::vec![b'0', b'x'],
                1 => std::vec![b'0', b'X'],
                _ => std::vec![],
            };
            let mut y = x;
            for k in 0..(x % 26) as usize {
                // Mostly digits, so that long runs are common.
                y = y.rotate_left(7) ^ (k as u64).wrapping_mul(0x2545_f491);
                let pick = if y % 5 == 0 { y >> 8 } else { y % 22 };
                t.push(BYTES[pick as usize % BYTES.len()]);
            }
            let text = String::from_utf8_lossy(&t);
            assert_eq!(super::read_plain(&t, 0), by_digit(&t, 0), "{text:?}");
            // The windowed reader, with the text as it is (short ones fall back) and
            // with enough after it for the window.
            assert_eq!(super::read_plain_windowed(&t, 0), by_digit(&t, 0), "{text:?}");
            let mut padded = t.clone();
            padded.extend_from_slice(&[BYTES[(x >> 50) as usize % BYTES.len()]; 24]);
            let want = by_digit(&padded, 0);
            assert_eq!(super::read_plain_windowed(&padded, 0), want, "{text:?} padded");
            let n = (x >> 40) as usize % 12;
            let mut out = std::vec![0u8; n];
            let got = super::read_plain_bytes(&t, 0, &mut out).map(|_| out);
            assert_eq!(got, bytes_by_digit(&t, n), "{text:?} as {n} bytes");
        }
    }

    /// Byte fields' digits with every byte value in every place beside digits of both
    /// cases: the bytes `char::to_digit` gives, or `None`.
    #[test]
    fn every_byte_in_every_place_of_a_byte_fields_digits_reads_as_to_digit_reads_it() {
        for base in [*b"0123abCD", *b"9fFa0A7e"] {
            for lane in 0..8 {
                for c in 0..=255u8 {
                    let mut t = base;
                    t[lane] = c;
                    let want = bytes_by_digit(&t, 4);
                    let mut out = [0u8; 4];
                    let got = super::read_plain_bytes(&t, 0, &mut out).map(|_| out.to_vec());
                    assert_eq!(got, want, "{t:?}");
                }
            }
        }
    }

    /// A listing's label line assembles to nothing, whatever its name holds (`#`, `;`,
    /// `>:`); a line like one that is not (no offset column, no `<`, a record after it)
    /// is read as any line is.
    #[test]
    fn a_label_line_assembles_to_nothing() {
        for line in [
            "00000000 <main>:",
            "  00000040 <a#b;c>:>:  ",
            "000000000000ffc0 <x\\x0a y>:",
            "00000040 <>:",
            "00000000 <x>: # the entry",
            "00000000 <x>:;",
        ] {
            assert_eq!(assemble_line(Arch::Cayman, line, 1), Ok(None), "{line}");
        }
        let text = "00000000 <main>:\n00000000  nop\n00000040 <f>:\nnop\n";
        let records: std::vec::Vec<_> = assemble(Arch::Cayman, text).collect();
        assert_eq!(records.len(), 2, "{records:?}");
        for line in [
            "0000 <main>:",
            "00000000 main>:",
            "00000000 <main>",
            "00000000 <main>: nop",
            "00000000 <main>: nop # x",
        ] {
            assert!(assemble_line(Arch::Cayman, line, 1).is_err(), "{line}");
        }
    }

    /// A mnemonic ends where a byte scan for the first byte of at most 0x20 ends it,
    /// whatever bytes (high, control, blank) sit in which lane of a word.
    #[test]
    fn a_mnemonic_ends_at_its_first_byte_of_at_most_0x20() {
        const BYTES: &[u8] = b"ab_\x20\x21\x1f\x09\x0a\x0d\x00\x7f\x80\xa0\xff0";
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..100_000 {
            let x = next();
            let n = (x % 27) as usize;
            let t: std::vec::Vec<u8> = (0..n)
                .map(|k| {
                    let y = x.rotate_left(5 * k as u32) ^ (k as u64).wrapping_mul(0x9e37_79b9);
                    // Mostly letters, so that long mnemonics are common.
                    if y % 4 == 0 {
                        BYTES[(y >> 8) as usize % BYTES.len()]
                    } else {
                        b'm'
                    }
                })
                .collect();
            let want = t.iter().position(|&c| c <= 0x20).unwrap_or(t.len());
            assert_eq!(super::mnemonic_end(&t), want, "{t:?}");
        }
    }

    #[test]
    fn text_splits_into_lines_as_str_lines_does() {
        for text in [
            "", "\n", "a", "a\n", "a\n\n", "a\r\nb", "a\r", "a\r\r\n", "\r\n\r\n", "a\nb\r",
            "\rx\n",
        ] {
            assert!(lines(text).eq(text.lines()), "{text:?}");
        }
    }

    /// The windowed number reader reads what the general one reads, to the same end, on
    /// numbers of every length and form and whatever may follow them.
    #[test]
    fn windowed_numbers_read_as_the_general_reader_reads_them() {
        let mut next = xorshift(0x1234_5678_9abc_def1);
        const TAIL: &[u8] = b" ,]}=xXgG0aF\x7f\x80\xb0\xff";
        for round in 0..200_000 {
            let r = next();
            let digits = (r % 20) as usize;
            let mut text = std::vec::Vec::new();
            match r >> 8 & 3 {
                0 => text.extend_from_slice(b"0x"),
                1 => text.extend_from_slice(b"0X"),
                _ => {}
            }
            for k in 0..digits {
                let d = (next() % 22) as usize;
                text.push(b"0123456789abcdefABCDEF"[d]);
                // Now and then a byte no number holds, where a digit might be.
                if round % 7 == 0 && k == (r >> 16) as usize % 20 {
                    text.push(TAIL[(r >> 24) as usize % TAIL.len()]);
                }
            }
            text.push(TAIL[(r >> 32) as usize % TAIL.len()]);
            text.extend_from_slice(&[b' '; 24]);
            assert_eq!(
                super::read_plain_windowed(&text, 0),
                super::read_plain(&text, 0),
                "{:?}",
                std::string::String::from_utf8_lossy(&text)
            );
        }
    }

    /// A xorshift generator from `seed`.
    pub(crate) fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// `rounds` records of each opcode value from `next`: all zero in round 0, then a
    /// third of the bytes zero and the rest random, so that fields are shown and hidden.
    fn sample_records(
        rounds: usize,
        next: &mut impl FnMut() -> u64,
    ) -> impl Iterator<Item = [u8; RECORD_SIZE]> + '_ {
        (0..=255u8).flat_map(move |op| (0..rounds).map(move |round| (op, round))).map(
            move |(op, round)| {
                let mut r = [0u8; RECORD_SIZE];
                for b in r.iter_mut() {
                    let v = next();
                    *b = if v % 3 == 0 || round == 0 { 0 } else { v as u8 };
                }
                r[0] = op;
                r
            },
        )
    }

    /// One edit of `t` at a random place: a byte of `bytes` put in, a byte taken out or
    /// replaced, or two bytes swapped.
    pub(crate) fn random_edit(
        t: &mut std::vec::Vec<u8>,
        bytes: &[u8],
        next: &mut impl FnMut() -> u64,
    ) {
        let at = (next() % (t.len() as u64 + 1)) as usize;
        let c = bytes[(next() % bytes.len() as u64) as usize];
        match next() % 4 {
            0 if at < t.len() => {
                t.remove(at);
            }
            1 if at < t.len() => t[at] = c,
            2 if at + 1 < t.len() => t.swap(at, at + 1),
            _ => t.insert(at, c),
        }
    }

    /// The one-pass reader changes nothing: every printed line, and every line made
    /// from one by a few edits (bytes that matter to the reader put in, taken out or
    /// swapped), reads the same with it as without it: the same bytes, or the same
    /// error at the same column.
    #[test]
    fn the_one_pass_reader_reads_as_the_general_reader_does() {
        const BYTES: &[u8] = b"{}[],= \"\\-x0123456789abcdefgz_.AIMREGq";
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut edit = xorshift(0x1d1d_4f6c_f491_2545);
        let (mut lines, mut fast_ok) = (0, 0);
        for &arch in Arch::ALL {
            for r in sample_records(4, &mut next) {
                let next = &mut edit;
                let mut text = String::new();
                crate::disasm::write_record(&mut text, arch, &r).unwrap();
                for edits in 0..8 {
                    let mut t = text.clone().into_bytes();
                    for _ in 0..edits {
                        random_edit(&mut t, BYTES, next);
                    }
                    let line = String::from_utf8(t).unwrap();
                    let fast = line_bytes(arch, &line, true);
                    let general = line_bytes(arch, &line, false);
                    let key = |r: &Result<_, super::Err1>| match r {
                        Ok(b) => Ok(*b),
                        Err(e) => Err((e.at, e.kind)),
                    };
                    assert_eq!(key(&fast), key(&general), "{arch:?}: {line}");
                    lines += 1;
                    fast_ok += usize::from(fast.is_ok());
                }
            }
        }
        // The edits leave enough lines whole, and break enough, for both paths to count.
        assert!(fast_ok > lines / 8 && fast_ok < lines * 7 / 8, "{fast_ok} of {lines}");
    }

    /// `assemble`, which reads a printed line in place, gives what `assemble_line` gives
    /// of each line `str::lines` splits the text into (blank lines skipped, line numbers
    /// counted): texts of printed lines, some edited, with comments, blank lines, `\r\n`
    /// endings, listing columns, the unknown form and leading blanks among them.
    #[test]
    fn assemble_reads_text_as_its_lines_one_by_one() {
        const BYTES: &[u8] = b"{}[],= \"\\-#;\r\n0123456789abcdefx_.";
        let mut next = xorshift(0x5851_f42d_4c95_7f2d);
        let mut edit = xorshift(0x1405_7b7e_f767_814f);
        let (mut texts, mut records, mut errors, mut in_place) = (0, 0, 0, 0);
        for &arch in Arch::ALL {
            let recs: std::vec::Vec<_> = sample_records(2, &mut next).collect();
            for chunk in recs.chunks(7) {
                let mut text = String::new();
                for (k, r) in chunk.iter().enumerate() {
                    match edit() % 8 {
                        0 => text.push_str("  "),
                        1 => text.push('\n'),
                        2 => {
                            text.push_str("00000040  ");
                            for b in r {
                                text.push_str(&std::format!("{b:02x}"));
                            }
                            text.push_str("  ");
                        }
                        _ => {}
                    }
                    crate::disasm::write_record(&mut text, arch, r).unwrap();
                    match edit() % 6 {
                        0 => text.push_str(" # a comment"),
                        1 => text.push('\r'),
                        2 => text.push(' '),
                        _ => {}
                    }
                    if k + 1 < chunk.len() || edit() % 2 == 0 {
                        text.push('\n');
                    }
                }
                let mut t = text.into_bytes();
                for _ in 0..edit() % 3 {
                    random_edit(&mut t, BYTES, &mut edit);
                }
                let text = String::from_utf8(t).unwrap();
                let want: std::vec::Vec<_> = lines(&text)
                    .enumerate()
                    .filter_map(|(i, l)| super::assemble_line(arch, l, i + 1).transpose())
                    .collect();
                let got: std::vec::Vec<_> = super::assemble(arch, &text).collect();
                assert_eq!(got, want, "{arch:?}:\n{text}");
                texts += 1;
                in_place += usize::from(super::printed_line(arch, &text).is_some());
                records += got.iter().filter(|r| r.is_ok()).count();
                errors += got.iter().filter(|r| r.is_err()).count();
            }
        }
        // Both readers have their share: the first line is read in place in some texts.
        assert!(
            texts > 200 && records > 4 * errors && errors > 0 && in_place > texts / 8,
            "{texts} texts, {records} records, {errors} errors, {in_place} read in place"
        );
    }

    /// A `#`, `;` or `"` anywhere in a printed line (a comment, a quote, or text in
    /// error) stops the arm's reader, or is a byte of a quoted name to both readers, so
    /// that `assemble`, which reads a printed line in place without looking for a
    /// comment, gives what `assemble_line` gives.
    #[test]
    fn comment_and_quote_characters_anywhere_in_a_line_read_as_the_general_reader_reads_them() {
        let mut next = xorshift(0x6a09_e667_f3bc_c908);
        let mut edit = xorshift(0xbb67_ae85_84ca_a73b);
        let (mut lines, mut in_place) = (0, 0);
        for &arch in Arch::ALL {
            for r in sample_records(2, &mut next) {
                let mut text = String::new();
                crate::disasm::write_record(&mut text, arch, &r).unwrap();
                in_place += usize::from(super::printed_line(arch, &text).is_some());
                for _ in 0..4 {
                    let mut t = text.clone().into_bytes();
                    let at = (edit() % (t.len() as u64 + 1)) as usize;
                    let c = [b'#', b';', b'"'][(edit() % 3) as usize];
                    if edit() % 2 == 0 && at < t.len() {
                        t[at] = c;
                    } else {
                        t.insert(at, c);
                    }
                    let line = String::from_utf8(t).unwrap();
                    let want = super::assemble_line(arch, &line, 1).transpose();
                    if let Some((r, _)) = super::printed_line(arch, &line) {
                        // Only inside a quoted name, where the general reader takes it too.
                        assert_eq!(Some(Ok(r)), want, "{arch:?}: read in place: {line}");
                    }
                    assert_eq!(super::assemble(arch, &line).next(), want, "{arch:?}: {line}");
                    lines += 1;
                }
            }
        }
        // An opaque line (an opcode without a layout on the generation) is not read in
        // place; an eighth of the samples were, before bindings kept their `@archs`.
        assert!(in_place > lines / 10, "{in_place} of {lines} printed lines read in place");
    }

    /// A quoted name with a comment's and a quote's characters, a backslash and a byte
    /// the printer escapes is read in place, as the general reader reads it; a name the
    /// printer would not write (an unknown escape, a raw byte it escapes, one byte too
    /// many, text after the quote, a short escape, no closing quote) is left to the
    /// general reader.
    #[test]
    fn a_quoted_name_is_read_in_place_as_the_general_reader_reads_it() {
        let arch = Arch::Cayman;
        let name = r#""a#b;c\"d\\e\x01 f""#;
        let given = std::format!("pseudo_function_begin function_name={name}");
        let r = super::assemble_line(arch, &given, 1).unwrap().unwrap();
        let mut text = String::new();
        crate::disasm::write_record(&mut text, arch, &r).unwrap();
        let at = text.find(name).expect("the name printed as given");
        assert_eq!(super::printed_line(arch, &text), Some((r, text.len())), "{text}");
        let long = std::format!("\"{}\"", "x".repeat(40));
        for edited in [r#""a\qb""#, "\"a\u{e9}b\"", &long, r#""ab"c"#, r#""a\x4""#, r#""ab"#] {
            let line = std::format!("{}{edited}{}", &text[..at], &text[at + name.len()..]);
            assert_eq!(super::printed_line(arch, &line), None, "{line}");
            let general = super::assemble_line(arch, &line, 1).transpose();
            assert_eq!(super::assemble(arch, &line).next(), general, "{line}");
        }
        let mut out = [0xAAu8; 4];
        assert_eq!(super::read_plain_str(br#""\x41\\" "#, 0, &mut out), Some(8));
        assert_eq!(out, [0x41, b'\\', 0, 0]);
        assert_eq!(super::read_plain_str(br#""abcde""#, 0, &mut out), None);
    }

    /// Each arm's reader takes every line its printer writes, whole, and makes the
    /// bytes the assembler makes of it, quoted names (an `i8` array's text) with their
    /// escapes included: every opcode on every generation, records with random and
    /// zero fields (so that leaves are shown and hidden).
    #[test]
    fn each_arms_reader_reads_every_line_its_printer_writes() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut read, mut quoted) = (0, 0);
        for &arch in Arch::ALL {
            for r in sample_records(16, &mut next) {
                let Some(kind) = crate::generated::inst::dispatch_on(arch, &r) else { continue };
                let mut text = String::new();
                crate::disasm::write_record(&mut text, arch, &r).unwrap();
                let end = text.find(' ').unwrap_or(text.len());
                let out = match desc::target(&text[..end]) {
                    Some(Target::Binding(n)) => BINDINGS[n as usize].record(),
                    Some(Target::Arm(_)) => [0u8; RECORD_SIZE],
                    t => panic!("{text}: {t:?}"),
                };
                let want = line_bytes(arch, &text, false)
                    .ok()
                    .flatten()
                    .expect("a printed line assembles");
                let whole = read_printed(kind, arch, &text, end, out)
                    .filter(|&(_, e)| e == text.len())
                    .map(|(r, _)| r);
                assert_eq!(whole, Some(want), "{text}");
                read += 1;
                quoted += usize::from(text.contains("\\x") && text.contains("=\""));
            }
        }
        // 16 records of each opcode on each generation, but those without a layout there.
        assert!(read > 7_500 && quoted > 20, "{read} read, {quoted} with an escaped name");
    }

    /// Arrays of integers read as each item through the general number parser
    /// would: the same bytes, or an error, for the printer's plain form and for what
    /// it does not write (hex, `_`, signs, wrong counts, values out of range).
    #[test]
    fn integer_arrays_read_as_their_items_do() {
        static KINDS: [Kind; 5] =
            [Kind::Uint(1), Kind::Int(1), Kind::Int(2), Kind::Uint(4), Kind::Int(8)];
        let items = [
            "0",
            "1",
            "-1",
            "-0",
            "127",
            "-128",
            "128",
            "-129",
            "255",
            "256",
            "32767",
            "-32768",
            "32768",
            "65535",
            "0x10",
            "0xff",
            "1_0",
            "",
            "-",
            "x",
            "4294967295",
            "4294967296",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "+1",
        ];
        for kind in &KINDS {
            let (size, signed) = match *kind {
                Kind::Uint(w) => (usize::from(w), false),
                Kind::Int(w) => (usize::from(w), true),
                _ => unreachable!(),
            };
            let bits = 8 * size as u32;
            let (lo, hi) = if signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            for (a, b) in items.iter().flat_map(|a| items.iter().map(move |b| (a, b))) {
                for list in
                    [[*a, *b, "0"].join(","), [*a, *b].join(","), [*a, *b, "0", "1"].join(",")]
                {
                    let want: Option<[u8; 24]> = (|| {
                        let vals: std::vec::Vec<&str> = list.split(',').collect();
                        if vals.len() != 3 {
                            return None;
                        }
                        let mut out = [0u8; 24];
                        for (i, v) in vals.iter().enumerate() {
                            let v = parse_int(v).filter(|v| (lo..=hi).contains(v))?;
                            let v = v as i64 as u64;
                            for j in 0..size {
                                out[i * size + j] = (v >> (8 * j)) as u8;
                            }
                        }
                        Some(out)
                    })();
                    let array = Kind::Array(kind, 3);
                    let mut out = [0u8; 24];
                    let got = parse_value(
                        &std::format!("[{list}]"),
                        0,
                        &array,
                        "f",
                        &mut out[..3 * size],
                    );
                    assert_eq!(got.ok().map(|()| out), want, "{kind:?} [{list}]");
                }
            }
        }
    }
}
