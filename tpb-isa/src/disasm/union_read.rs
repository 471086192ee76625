//! The reader of a union's value as its printer writes it: `view{a=1,b=[2,3]}`, the
//! view's shown leaves in table order (a scalar view's one unnamed leaf as its value
//! alone). Each union's reader is generated (`read_union_*`, beside `print_union_*`):
//! one call per leaf of each view under a match on the view, so that each leaf's name,
//! offset and kind fold into the code, where the one-pass reader (`asm::plain_union`)
//! looks the view up by name, searches its leaves for each name it meets and reads
//! each value through a dispatch on its kind.
//!
//! It reads exactly what the one-pass reader reads (a view's leaves are named but for a
//! scalar view's one, so the first leaf from the cursor whose `name=` is at the text is
//! the next one in table order that is): the test
//! `each_unions_reader_reads_as_the_one_pass_reader` holds the two equal.

use super::asm::{name_open, plain_item, union_view_at};
use super::desc::{same_bytes, FieldDesc, UnionDesc};

/// A value being read: where the next item is, and the view named.
pub(crate) struct ViewRead<'a> {
    s: &'a str,
    i: usize,
    /// The view named, as its index in `views`.
    pub(crate) view: usize,
    /// Whether the closing `}` is reached (at `i`).
    done: bool,
    /// False once the text is not as the printer writes it.
    ok: bool,
}

/// Open the value at byte `at` of `s`: the view's name and `{`.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn union_open<'a>(s: &'a str, at: usize, d: &'static UnionDesc) -> Option<ViewRead<'a>> {
    let b = s.as_bytes();
    let in_place = name_open(b, at, d.views, |v| v.name);
    let (view, open) = in_place.or_else(|| union_view_at(s, at, d))?;
    let i = open + 1;
    let done = b.get(i) == Some(&b'}');
    Some(ViewRead { s, i, view, done, ok: true })
}

/// The leaf `f` when the text is at its item (`name=value`, or the value alone for a
/// scalar view's unnamed leaf): its value into `out` at the leaf's bytes. Absent (the
/// text names another leaf), it is zero, as the printer leaves it out.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn view_item(r: &mut ViewRead<'_>, f: &'static FieldDesc, out: &mut [u8]) {
    if !r.ok || r.done {
        return;
    }
    let b = r.s.as_bytes();
    let n = f.name.len();
    let vat = if n == 0 {
        r.i
    } else {
        match b.get(r.i..=r.i + n) {
            Some(w) if w[n] == b'=' && same_bytes(&w[..n], f.name.as_bytes()) => r.i + n + 1,
            _ => return,
        }
    };
    let end = out.get_mut(f.range()).and_then(|dst| plain_item(r.s, vat, &f.kind, f.name, dst));
    match (end, end.and_then(|e| b.get(e))) {
        (Some(e), Some(b',')) => r.i = e + 1,
        (Some(e), Some(b'}')) => {
            r.i = e;
            r.done = true;
        }
        _ => r.ok = false,
    }
}

/// Close the value: where it ends, past its `}`, when every item was a leaf's.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn union_close(r: &ViewRead<'_>) -> Option<usize> {
    (r.ok && r.done).then_some(r.i + 1)
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::super::asm::plain_union;
    use super::super::asm::tests::{random_edit, xorshift};
    use super::super::desc::UnionDesc;
    use super::super::line::Line;
    use super::super::print::tests::unions;
    use crate::generated::geometry::Arch;
    use std::string::String;
    use std::vec::Vec;

    /// `d`'s printed value of `b` on `arch`.
    fn printed(d: &UnionDesc, arch: Arch, b: &[u8]) -> String {
        let mut buf = [0; super::super::line::CAP];
        let n = Line::run(&mut buf, 0, |o| o.call(|buf, at| (d.print)(buf, at, arch, b)));
        String::from(core::str::from_utf8(&buf[..n]).expect("a line is ASCII"))
    }

    /// `read` of `t` into zeroed bytes of the union's size: its end and the bytes.
    fn read_with(
        d: &UnionDesc,
        t: &str,
        read: impl Fn(&str, &mut [u8]) -> Option<usize>,
    ) -> Option<(usize, Vec<u8>)> {
        let mut out = std::vec![0u8; usize::from(d.size)];
        read(t, &mut out).map(|end| (end, out))
    }

    /// Each union's generated reader reads every value its printer writes, on every
    /// generation, and where it reads a value from any text (printed values with a few
    /// bytes that matter to it put in, taken out or swapped), the one-pass reader reads
    /// the same bytes to the same end; where it does not, neither does the one-pass one.
    #[test]
    fn each_unions_reader_reads_as_the_one_pass_reader() {
        const BYTES: &[u8] = b"{}=,[]-0123456789abcdefxtu_";
        let mut next = xorshift(0x243f_6a88_85a3_08d3);
        let mut edit = xorshift(0x1319_8a2e_0370_7344);
        let (mut values, mut edited, mut read_edited) = (0, 0, 0);
        for d in unions() {
            for &arch in Arch::ALL {
                for round in 0..256 {
                    let b: Vec<u8> = (0..d.size)
                        .map(|_| match round % 4 {
                            0 => 0,
                            1 => next() as u8 & 0x21,
                            _ => next() as u8,
                        })
                        .collect();
                    let s = printed(d, arch, &b);
                    if !s.contains('{') {
                        continue;
                    }
                    values += 1;
                    let generated = read_with(d, &s, |t, out| (d.read)(t, 0, out));
                    assert_eq!(generated.as_ref().map(|g| g.0), Some(s.len()), "{}: {s}", d.name);
                    let one_pass = read_with(d, &s, |t, out| plain_union(t, 0, d, "f", out));
                    assert_eq!(generated, one_pass, "{}: {s}", d.name);
                    let mut t = s.as_bytes().to_vec();
                    for _ in 0..1 + round % 3 {
                        random_edit(&mut t, BYTES, &mut edit);
                    }
                    let t = String::from_utf8(t).unwrap();
                    edited += 1;
                    let generated = read_with(d, &t, |t, out| (d.read)(t, 0, out));
                    read_edited += usize::from(generated.is_some());
                    let one_pass = read_with(d, &t, |t, out| plain_union(t, 0, d, "f", out));
                    assert_eq!(generated, one_pass, "{} of {t}", d.name);
                }
            }
        }
        assert!(values > 1000, "{values} values printed with a view");
        // The edits leave some values readable, so the comparison is not empty.
        assert!(read_edited * 20 > edited, "{read_edited} of {edited} edited values read");
    }
}
