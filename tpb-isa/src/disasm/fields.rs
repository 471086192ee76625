//! A printed line taken apart: its mnemonic, then each `name=value` as the printer
//! wrote it, for a tool that wants a field's text without parsing the line itself (a
//! quoted name may hold a space; a view, a bit-field or an array holds commas and
//! brackets).

use super::asm::value_end;

/// One `name=value` of a printed line: the field's path as the text names it
/// (`events.wait_mode`, `src_mem_pattern.start_addr`) and its value's text as printed
/// (`SEM_GE_IMM`, `immediate{immediate=0x37cfe,partition_offset=0x37cfe}`, `"main"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    /// The field's name (a path, with `.` between a member and its field).
    pub name: &'a str,
    /// The value's text; empty for a word without `=`, which no printed line holds.
    pub value: &'a str,
}

/// The fields of a line after its mnemonic: see [`split_line`].
#[derive(Clone, Debug)]
pub struct Fields<'a> {
    line: &'a str,
    at: usize,
}

/// A line as [`write_record`](super::write_record) prints it, split into its mnemonic
/// and its fields in their order; joined with single spaces, they are the line again.
/// A value ends at white space outside quotes and brackets, as the assembler reads it.
/// Other text splits the same way (a comment is not told apart).
///
/// ```
/// use tpb_isa::disasm::{split_line, Field};
///
/// let line = r#"pseudo_function_begin function_name="my kernel" return_addr_reg_lo=4"#;
/// let (mnemonic, fields) = split_line(line);
/// assert_eq!(mnemonic, "pseudo_function_begin");
/// let fields: Vec<Field> = fields.collect();
/// assert_eq!(fields[0], Field { name: "function_name", value: "\"my kernel\"" });
/// assert_eq!(fields[1], Field { name: "return_addr_reg_lo", value: "4" });
/// ```
#[must_use]
pub fn split_line(line: &str) -> (&str, Fields<'_>) {
    let b = line.as_bytes();
    let start = skip_blank(b, 0);
    let end = b[start..].iter().position(u8::is_ascii_whitespace).map_or(b.len(), |n| start + n);
    (&line[start..end], Fields { line, at: end })
}

impl<'a> Iterator for Fields<'a> {
    type Item = Field<'a>;

    fn next(&mut self) -> Option<Field<'a>> {
        let b = self.line.as_bytes();
        let start = skip_blank(b, self.at);
        if start >= b.len() {
            self.at = b.len();
            return None;
        }
        let end = value_end(b, start);
        self.at = end;
        let word = &self.line[start..end];
        Some(match word.split_once('=') {
            Some((name, value)) => Field { name, value },
            None => Field { name: word, value: "" },
        })
    }
}

impl core::iter::FusedIterator for Fields<'_> {}

/// The first byte from `i` on that is not ASCII white space, or `b.len()`.
fn skip_blank(b: &[u8], i: usize) -> usize {
    b[i.min(b.len())..].iter().position(|c| !c.is_ascii_whitespace()).map_or(b.len(), |n| i + n)
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::disasm::asm::tests::xorshift;
    use crate::{disasm, Arch, RECORD_SIZE};
    use std::string::String;
    use std::vec::Vec;

    /// Every line, split and joined again with single spaces, is the line; no field
    /// lacks its `=`; and the fields read back, one at a time, give the line's record.
    /// Whether a value holds a space.
    fn splits_back(arch: Arch, record: &[u8; RECORD_SIZE]) -> bool {
        let mut line = String::new();
        disasm::write_record(&mut line, arch, record).unwrap();
        let (mnemonic, fields) = split_line(&line);
        let fields: Vec<Field> = fields.collect();
        let mut joined = String::from(mnemonic);
        for f in &fields {
            assert!(!f.value.is_empty(), "{line}: {f:?}");
            joined.push(' ');
            joined.push_str(f.name);
            joined.push('=');
            joined.push_str(f.value);
        }
        assert_eq!(joined, line);
        let again = fields.iter().fold(String::from(mnemonic), |mut s, f| {
            s.push_str(&std::format!(" {}={}", f.name, f.value));
            s
        });
        assert_eq!(disasm::assemble_line(arch, &again, 1).unwrap(), Some(*record), "{line}");
        fields.iter().any(|f| f.value.contains(' '))
    }

    #[test]
    fn printed_lines_split_into_their_fields() {
        // Records of every opcode and sub-opcode, with bytes that make every kind of
        // value print: names with spaces and quotes, negative numbers, views, arrays.
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut spaced = 0;
        for &arch in Arch::ALL {
            for op in 0..=255u8 {
                for k in 0..8 {
                    let mut r = [0u8; RECORD_SIZE];
                    r.fill_with(|| next() as u8);
                    r[0] = op;
                    r[12] = [1, 2, 8, 9, 0, r[12], 3, 4][k];
                    if k == 5 {
                        for (x, c) in r[4..].iter_mut().zip(b"a \"b\\ c".iter().cycle()) {
                            *x = *c;
                        }
                    }
                    spaced += usize::from(splits_back(arch, &r));
                }
            }
        }
        assert!(
            spaced >= 2 * Arch::ALL.len(),
            "{spaced} lines with a quoted name that holds a space"
        );
    }

    #[test]
    fn blank_and_odd_text_splits_without_panic() {
        assert_eq!(split_line("").0, "");
        assert_eq!(split_line("   ").1.count(), 0);
        let (m, f) = split_line("  matmul  a=1\tb \"c d\" e=[1, 2]");
        assert_eq!(m, "matmul");
        let f: Vec<Field> = f.collect();
        assert_eq!(
            f,
            [
                Field { name: "a", value: "1" },
                Field { name: "b", value: "" },
                Field { name: "\"c d\"", value: "" },
                Field { name: "e", value: "[1, 2]" },
            ]
        );
        assert_eq!(split_line("x y=\"unterminated é").1.last().unwrap().value, "\"unterminated é");
    }
}
