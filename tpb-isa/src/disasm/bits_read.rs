//! The reader of an operand type's value as its printer writes it: `form{a=1,b=0x20}`,
//! the bit-fields in the printer's order. Each operand type's reader is generated
//! (`read_bits_*`, beside `print_bits_*`): one call per bit-field row, the forms' rows
//! under a match on the form, so that each field's name, position and kind fold into
//! the code, where the one-pass reader (`asm::plain_bits`) searches the type's table
//! for each name it meets and checks the fields against each other in a second walk.
//!
//! It is a shortcut, never a judge: it gives `None` for any text it does not take
//! (fields in another order, a value in error, fields that disagree), and the one-pass
//! reader then reads the value as before. Where it gives a value, the one-pass reader
//! gives the same (the test `each_operand_types_reader_reads_as_the_one_pass_reader`).

use super::asm::{form_open, name_open, parse_bit, plain_uint, read_plain, skip_plain};
use super::desc::{BitDesc, BitKind, BitsDesc};

/// A value being read: where the next item's separator (`{` or `,`) is, and the
/// bit-fields read so far.
pub(crate) struct BitsRead<'a> {
    s: &'a str,
    i: usize,
    /// The form named, as its index in `alts`.
    pub(crate) form: Option<usize>,
    /// The index in `fields` of the selector the form's name implies (not printed).
    skip: usize,
    /// The bits of the fields read.
    v: u64,
    /// The masks of the fields read.
    given: u64,
    /// The masks of every field the form prints, read or not.
    mask: u64,
    /// Whether no item is read yet (the next separator is `{`, not `,`).
    first: bool,
    /// False once the text is not as the printer writes it.
    ok: bool,
}

impl BitsRead<'_> {
    /// Whether the text is at the separator of the next item.
    #[inline(always)]
    fn at_item(&self) -> bool {
        self.s.as_bytes().get(self.i) == Some(if self.first { &b'{' } else { &b',' })
    }
}

/// Open the value at byte `at` of `s`: the form's name and `{`.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn bits_open<'a>(s: &'a str, at: usize, d: &'static BitsDesc) -> Option<BitsRead<'a>> {
    let in_place = name_open(s.as_bytes(), at, d.alts, |a| a.name);
    let (form, i) = in_place.map(|(k, i)| (Some(k), i)).or_else(|| form_open(s, at, d))?;
    let skip = form.and_then(|a| d.alts[a].select).map_or(usize::MAX, |sel| sel.field as usize);
    Some(BitsRead { s, i, form, skip, v: 0, given: 0, mask: 0, first: true, ok: true })
}

/// The `i`th of the type's `fields`, `bit`, unless it is the implied selector.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn bits_item(r: &mut BitsRead<'_>, i: usize, bit: &BitDesc) {
    if i != r.skip {
        form_item(r, bit);
    }
}

/// The bit-field `bit` when the text is at its item (`,name=` or, first, `{name=`):
/// its value read as the one-pass reader reads it. Absent, it is zero, as the printer
/// leaves it out.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn form_item(r: &mut BitsRead<'_>, bit: &BitDesc) {
    r.mask |= bit.mask();
    let b = r.s.as_bytes();
    let (n, at) = (bit.name.len(), r.i + 1);
    // `rest` is the key of the bits no field explains, never a field's.
    if !r.ok || n == 0 || bit.name == "rest" || !r.at_item() {
        return;
    }
    if b.get(at + n) != Some(&b'=') || b.get(at..at + n) != Some(bit.name.as_bytes()) {
        return;
    }
    let vat = at + n + 1;
    // A flag prints only when set, as `true`; whatever follows is the next item's or
    // the close's to check.
    let read = if matches!(bit.kind, BitKind::Bool) && b.get(vat..vat + 4) == Some(b"true") {
        Some((1, vat + 4))
    } else if b.get(vat).is_some_and(u8::is_ascii_digit) {
        read_plain(b, vat).filter(|&(x, _)| {
            let width = u32::from(bit.hi - bit.lo);
            width >= 64 || x >> width == 0
        })
    } else {
        let end = skip_plain(b, vat);
        parse_bit(&r.s[vat..end], bit, vat, "", "").ok().map(|x| (x, end))
    };
    let Some((x, end)) = read else {
        r.ok = false;
        return;
    };
    // Fields that overlap (a quadrant inside an immediate) must agree: the bits already
    // read inside this field are its own, and its bits inside those read are theirs.
    let y = x << bit.lo;
    r.ok &= r.v & bit.mask() & !y == 0 && y & r.given & !r.v == 0;
    r.v |= y;
    r.given |= bit.mask();
    r.first = false;
    r.i = end;
}

/// Close the value: any `rest=` (the bits no field explains) and `}`; the value and
/// where it ends, past its `}`, when the form it names is the form of its bits.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn bits_close(r: &BitsRead<'_>, d: &'static BitsDesc) -> Option<(u64, usize)> {
    let b = r.s.as_bytes();
    let mut i = r.i;
    if !r.ok {
        return None;
    }
    let mut rest = 0;
    if r.at_item() && b.get(i + 1..i + 6) == Some(b"rest=") {
        // Through the integer leaves' reader, out of line: the general number parser
        // after a search for the value's end was a tenth of an ADDR4's reading.
        let end;
        (rest, end) = plain_uint(b, i + 6, d.width);
        if end == 0 || rest & r.mask != 0 {
            return None;
        }
        i = end;
    } else if r.first {
        // No item at all: `form{}`.
        i += 1;
    }
    if b.get(i) != Some(&b'}') {
        return None;
    }
    let pinned = r.form.map_or(0, |a| d.selector_bits(&d.alts[a]));
    let v = r.v | (pinned & !r.mask) ^ rest;
    (d.form_index(v) == r.form).then_some((v, i + 1))
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::super::asm::tests::{random_edit, xorshift};
    use super::super::asm::{form_open, name_open, plain_bits};
    use super::super::print::tests::{operand_types, sample_value, text};

    /// A form's name matched in place opens the value where the scan for the word's end
    /// does, and nothing else does: not a longer or shorter word, a name without its
    /// `{`, or the empty name (which only the scan reads).
    #[test]
    fn a_form_named_in_place_is_the_form_the_scan_finds() {
        let (mut forms, mut named) = (0, 0);
        for d in operand_types() {
            named += d.alts.iter().filter(|a| !a.name.is_empty()).count();
            let mut texts = std::vec![std::string::String::from("{x=1}")];
            for alt in d.alts {
                let name = alt.name;
                texts.extend([
                    std::format!("{name}{{"),
                    std::format!("{name}x{{"),
                    std::string::String::from(name),
                    std::format!("{name} {{"),
                    std::format!("x{name}{{"),
                    std::format!("{}{{", &name[..name.len().saturating_sub(1)]),
                ]);
            }
            for t in &texts {
                let at_form =
                    name_open(t.as_bytes(), 0, d.alts, |a| a.name).map(|(k, i)| (Some(k), i));
                if let Some(found) = at_form {
                    forms += 1;
                    assert_eq!(Some(found), form_open(t, 0, d), "{}: {t}", d.name);
                    assert!(found.0.is_some(), "{}: {t}", d.name);
                } else {
                    // The scan reads no form's name there (an empty one, at most).
                    let open = form_open(t, 0, d);
                    assert!(open.is_none_or(|(form, _)| form.is_none()), "{}: {t}", d.name);
                }
            }
        }
        // Each form's own `name{`, and only that, opened in place.
        assert!(named > 0);
        assert_eq!(forms, named);
    }

    /// Each operand type's generated reader reads every value its printer writes, and
    /// where it reads a value from any text (printed values with a few bytes that
    /// matter to it put in, taken out or swapped), the one-pass reader reads the same
    /// value to the same end.
    #[test]
    fn each_operand_types_reader_reads_as_the_one_pass_reader() {
        const BYTES: &[u8] = b"{}=,0123456789abcdefxrestmarkerimmediateregister_q";
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut edit = xorshift(0x2545_f491_4f6c_dd1d);
        let (mut edited, mut read_edited) = (0, 0);
        for d in operand_types() {
            for round in 0..2048 {
                let v = sample_value(d, round, next());
                let printed = text(|o| o.call(|buf, at| (d.print)(buf, at, v)));
                let s = printed.as_str();
                // A value that reads as a number, not a form, is the one-pass reader's.
                if !s.contains('{') {
                    continue;
                }
                assert_eq!((d.read)(s, 0), Some((v, s.len())), "{} of {v:#x}: {s}", d.name);
                assert_eq!(plain_bits(s, 0, d, "f", "e"), Some((v, s.len())), "{s}");
                let mut t = s.as_bytes().to_vec();
                for _ in 0..1 + round % 3 {
                    random_edit(&mut t, BYTES, &mut edit);
                }
                let t = std::string::String::from_utf8(t).unwrap();
                edited += 1;
                if let Some(got) = (d.read)(&t, 0) {
                    read_edited += 1;
                    assert_eq!(plain_bits(&t, 0, d, "f", "e"), Some(got), "{} of {t}", d.name);
                }
            }
        }
        // The edits leave some values readable, so the comparison is not empty.
        assert!(read_edited * 20 > edited, "{read_edited} of {edited} edited values read");
    }
}
