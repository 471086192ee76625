//! Why a line of text does not assemble.

use core::fmt;

use super::desc::{BitDesc, UnionDesc};

/// A short copy of a name from the input, for error messages (no allocation).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Name {
    buf: [u8; 32],
    len: u8,
}

impl Name {
    pub(crate) fn new(s: &str) -> Name {
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

/// The name with each control character as an escape (`\0`, `\x01`), and each
/// invisible formatting one too (`\u{202e}`, which reverses the text after it), as the
/// text it came from may hold any: a message shows it, not a terminal's reading of it.
impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.as_str().chars() {
            match c {
                '\0' => f.write_str("\\0")?,
                c if c.is_ascii_control() => write!(f, "\\x{:02x}", u32::from(c))?,
                c if c.is_control() || is_invisible_format(c) => {
                    write!(f, "{}", c.escape_unicode())?
                }
                c => fmt::Write::write_char(f, c)?,
            }
        }
        Ok(())
    }
}

/// Whether `c` is a format character a terminal acts on or shows as nothing: the
/// bidirectional marks, embeddings, overrides and isolates, the zero-width ones, the line
/// and paragraph separators, the byte-order mark, and their kin. A tool that echoes the
/// text a message is about escapes these, as the message's names do.
#[must_use]
pub const fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
    )
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The members a `form{member=value,...}` takes, for an error that lists them: the
/// operand's common bit-fields but the one at `skip` (the selector the form's name
/// implies), then the form's own.
#[derive(Clone, Copy)]
pub struct Members {
    pub(crate) common: &'static [BitDesc],
    pub(crate) skip: usize,
    pub(crate) own: &'static [BitDesc],
}

impl Members {
    /// The members' names in printed order, `rest` last.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        self.fields().map(|b| b.name).chain(["rest"])
    }

    /// The bit-fields a form prints, in order: the common ones but the selector, then
    /// the form's own.
    pub(crate) fn fields(&self) -> impl Iterator<Item = &'static BitDesc> {
        let skip = self.skip;
        let common = self.common.iter().enumerate().filter(move |&(i, _)| i != skip);
        common.map(|(_, b)| b).chain(self.own)
    }
}

impl fmt::Debug for Members {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// The same tables (the names alone could be two operands' alike).
impl PartialEq for Members {
    fn eq(&self, o: &Members) -> bool {
        core::ptr::eq(self.common, o.common)
            && core::ptr::eq(self.own, o.own)
            && self.skip == o.skip
    }
}

impl Eq for Members {}

/// By the tables' addresses, as [`PartialEq`] compares them.
impl core::hash::Hash for Members {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        core::ptr::hash(self.common, h);
        core::ptr::hash(self.own, h);
        self.skip.hash(h);
    }
}

/// The views of a union, for an error that lists them.
#[derive(Clone, Copy)]
pub struct Views(pub(crate) &'static UnionDesc);

impl Views {
    /// The views' names, in spec order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        self.0.views.iter().map(|v| v.name)
    }
}

impl fmt::Debug for Views {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// The same table.
impl PartialEq for Views {
    fn eq(&self, o: &Views) -> bool {
        core::ptr::eq(self.0, o.0)
    }
}

impl Eq for Views {}

impl core::hash::Hash for Views {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        core::ptr::hash(self.0, h);
    }
}

/// The values a field takes, which an [`AsmErrorKind::OutOfRange`] value is not among.
///
/// `#[non_exhaustive]`, as [`AsmErrorKind`] is: a field type the spec gains may bring
/// another kind of range.
///
/// ```compile_fail,E0004
/// use tpb_isa::disasm::Fits;
///
/// fn wide(f: Fits) -> bool {
///     match f {
///         Fits::Range { max, .. } => max > 0xFFFF,
///         Fits::F32 | Fits::Rest { .. } => false,
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Fits {
    /// An integer from `min` to `max`, both included.
    Range {
        /// The least value (0, or a signed field's negative bound).
        min: i64,
        /// The greatest value.
        max: u64,
    },
    /// An `f32`: a decimal within its range (one past it would read as an infinity),
    /// `inf`, `-inf`, or its bits in hex.
    F32,
    /// A union's `rest=`, with none of `members`' bits set (the named members give those).
    Rest {
        /// The bits the union's members hold.
        members: u64,
    },
}

impl Fits {
    /// The unsigned integers of `bits` bits.
    #[must_use]
    pub const fn unsigned(bits: u32) -> Fits {
        let max = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        Fits::Range { min: 0, max }
    }

    /// The two's-complement integers of `bits` bits; as [`Fits::unsigned`] does, `bits`
    /// past 64 is taken as 64 (the widest field), and 0 bits hold only 0. Never panics.
    #[must_use]
    pub const fn signed(bits: u32) -> Fits {
        match bits {
            0 => Fits::Range { min: 0, max: 0 },
            1..=63 => {
                let lim = 1i64 << (bits - 1);
                Fits::Range { min: -lim, max: (lim - 1) as u64 }
            }
            _ => Fits::Range { min: i64::MIN, max: i64::MAX as u64 },
        }
    }
}

/// ` a, b, c)`: the names an error lists after its opening `(its views:`, and the close.
/// The most names an [`AsmErrorKind::UnknownValue`] lists: a larger enum's names are
/// for `tpb layout` and the reference, not one error line.
pub const VALUES_LISTED: usize = 32;

fn names_closed(
    f: &mut fmt::Formatter<'_>,
    names: impl Iterator<Item = &'static str>,
) -> fmt::Result {
    for (i, name) in names.enumerate() {
        f.write_str(if i == 0 { " " } else { ", " })?;
        f.write_str(name)?;
    }
    f.write_str(")")
}

impl fmt::Display for Fits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        /// A bound in decimal to 16 bits' magnitude, else in hex as wide values print.
        fn bound(f: &mut fmt::Formatter<'_>, v: i128) -> fmt::Result {
            match v {
                -65536..=65535 => write!(f, "{v}"),
                _ if v < 0 => write!(f, "-{:#x}", v.unsigned_abs()),
                _ => write!(f, "{v:#x}"),
            }
        }
        match *self {
            Fits::Range { min, max } => {
                bound(f, i128::from(min))?;
                f.write_str("..=")?;
                bound(f, i128::from(max))
            }
            Fits::F32 => f.write_str("an f32: a decimal up to ±3.4028235e38, inf, -inf or 0x bits"),
            Fits::Rest { members } => {
                write!(f, "rest may not set bits {members:#x}: its members give them")
            }
        }
    }
}

/// What is wrong with a line of assembly.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AsmErrorKind {
    /// The first word is not a mnemonic of the spec.
    UnknownMnemonic {
        /// The word.
        mnemonic: Name,
    },
    /// A mnemonic in another case (`MATMUL` for `matmul`): mnemonics are lower case.
    MnemonicCase {
        /// The word.
        given: Name,
        /// The mnemonic.
        mnemonic: &'static str,
    },
    /// The first word is not a mnemonic, but is near one (`matmull`).
    MnemonicLike {
        /// The word.
        given: Name,
        /// The mnemonic.
        mnemonic: &'static str,
    },
    /// The arm has no field of that name, but one near it (`num_active_row`).
    FieldLike {
        /// The arm's mnemonic.
        arm: &'static str,
        /// The name given.
        field: Name,
        /// The field's name.
        like: &'static str,
    },
    /// The arm has no field of that name on this generation; its layout on others has.
    FieldOfOtherLayout {
        /// The arm's mnemonic.
        arm: &'static str,
        /// The name given.
        field: Name,
        /// The generations whose layouts have it, as bits `1 << (Arch as u8)`
        /// ([`archs_in`](super::desc::archs_in) lists them).
        archs: u8,
    },
    /// A dotted name (`src_mem_pattern.start_addr`) whose first part is a union on this
    /// generation, one of whose views has the rest: it is given inside the view.
    FieldInView {
        /// The arm's mnemonic.
        arm: &'static str,
        /// The name given.
        field: Name,
        /// The union field (`src_mem_pattern`).
        union: &'static str,
        /// The view that has the member (`t`).
        view: &'static str,
        /// The view's field (`start_addr`).
        member: &'static str,
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
        /// The values it takes.
        fits: Fits,
    },
    /// A bit-field's value does not fit its bits (an enum value the spec names wider
    /// than the bit-field, or a number).
    BitOutOfRange {
        /// The field.
        field: &'static str,
        /// The bit-field.
        bit: &'static str,
        /// Its width in bits.
        bits: u8,
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
    /// A member of a `form{...}` is given twice.
    DuplicateMember {
        /// The field.
        field: &'static str,
        /// The member.
        member: &'static str,
    },
    /// Two members of a `form{...}` that share bits (a quadrant inside an immediate)
    /// give them different values.
    MembersDisagree {
        /// The field.
        field: &'static str,
        /// The member that contradicts one before it.
        member: &'static str,
    },
    /// The bits a `form{...}` gives read as another form (a selector bit, such as a
    /// marker, picks it), so the text would not read back the same.
    OtherForm {
        /// The field.
        field: &'static str,
        /// The form the line names (empty for the operand's plain bits).
        form: &'static str,
    },
    /// A quoted string is longer than its field.
    TooLong {
        /// The field.
        field: &'static str,
        /// Its size in bytes.
        max: usize,
        /// The bytes the string spells.
        given: usize,
    },
    /// A value name the enum has only in another case (`fp16` for `FP16`).
    ValueCase {
        /// The field.
        field: &'static str,
        /// The name given.
        given: Name,
        /// The enum's name.
        name: &'static str,
    },
    /// A word that names no value of the field's enum, in any case: the name it is near,
    /// else (for an enum of a few names) every name.
    UnknownValue {
        /// The field.
        field: &'static str,
        /// The name given.
        given: Name,
        /// The enum's name it is one edit or two from, if one.
        like: Option<&'static str>,
        /// The enum's names (listed when there are at most [`VALUES_LISTED`]).
        values: &'static [(&'static str, u64)],
    },
    /// Hex digits for more bytes than the field holds.
    TooManyBytes {
        /// The field.
        field: &'static str,
        /// Its size in bytes.
        holds: usize,
        /// The bytes the digits give.
        given: usize,
    },
    /// A list has another number of elements than its field holds.
    Count {
        /// The field.
        field: &'static str,
        /// The elements it holds.
        holds: usize,
        /// The elements given.
        given: usize,
    },
    /// A union's `view{...}` names a view the union does not have.
    UnknownView {
        /// The field.
        field: &'static str,
        /// The name given.
        view: Name,
        /// The views it has.
        views: Views,
    },
    /// A union's `view{name=value,...}` names a field the view does not have.
    UnknownViewField {
        /// The field.
        field: &'static str,
        /// The view.
        view: &'static str,
        /// The name given.
        name: Name,
        /// A field of the view whose name is near, if one is.
        like: Option<&'static str>,
    },
    /// A `form{member=value,...}` names a member the form does not have.
    UnknownMember {
        /// The field.
        field: &'static str,
        /// The name given.
        member: Name,
        /// The members it has.
        members: Members,
    },
}

/// A line of assembly that cannot be assembled, with its 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AsmError {
    /// Line, from 1.
    pub line: usize,
    /// Column of the offending text, from 1, in characters.
    pub col: usize,
    /// What is wrong.
    pub kind: AsmErrorKind,
}

impl AsmErrorKind {
    /// The error with `name` for the field a view of a plain type leaves unnamed (the
    /// `fp32` of `scale_value=fp32{...}`): the union field's, not `''`.
    pub(crate) fn in_field(mut self, name: &'static str) -> AsmErrorKind {
        use AsmErrorKind as K;
        match &mut self {
            K::Duplicate { field }
            | K::OutOfRange { field, .. }
            | K::BitOutOfRange { field, .. }
            | K::BadValue { field, .. }
            | K::Missing { field }
            | K::DuplicateMember { field, .. }
            | K::MembersDisagree { field, .. }
            | K::OtherForm { field, .. }
            | K::TooLong { field, .. }
            | K::ValueCase { field, .. }
            | K::UnknownValue { field, .. }
            | K::TooManyBytes { field, .. }
            | K::Count { field, .. }
            | K::UnknownMember { field, .. }
            | K::UnknownView { field, .. }
            | K::UnknownViewField { field, .. }
                if field.is_empty() =>
            {
                *field = name;
            }
            _ => {}
        }
        self
    }
}

impl fmt::Display for AsmErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AsmErrorKind::UnknownMnemonic { mnemonic } => {
                write!(f, "unknown mnemonic '{mnemonic}'")
            }
            AsmErrorKind::MnemonicCase { given, mnemonic } => {
                write!(f, "unknown mnemonic '{given}'; mnemonics are lower case: '{mnemonic}'")
            }
            AsmErrorKind::MnemonicLike { given, mnemonic } => {
                write!(f, "unknown mnemonic '{given}'; did you mean '{mnemonic}'?")
            }
            AsmErrorKind::FieldLike { arm, field, like } => {
                write!(f, "{arm} has no field '{field}'; did you mean '{like}'?")
            }
            AsmErrorKind::FieldOfOtherLayout { arm, field, archs } => {
                write!(
                    f,
                    "{arm} has no field '{field}' in this generation's layout; the layout of"
                )?;
                for (i, a) in super::desc::archs_in(*archs).enumerate() {
                    f.write_str(if i == 0 { " " } else { ", " })?;
                    f.write_str(a.name())?;
                }
                f.write_str(" has it (--arch picks the layout)")
            }
            AsmErrorKind::FieldInView { arm, field, union, view, member } => write!(
                f,
                "{arm} has no field '{field}': '{union}' is a union in this generation's \
                 layout; give it as {union}={view}{{{member}=...}}"
            ),
            AsmErrorKind::UnknownField { arm, field } => {
                write!(f, "{arm} has no field '{field}'")
            }
            AsmErrorKind::Duplicate { field } => write!(f, "field '{field}' is given twice"),
            AsmErrorKind::OutOfRange { field, fits } => {
                write!(f, "value of field '{field}' is out of range ({fits})")
            }
            AsmErrorKind::BitOutOfRange { field, bit, bits } => {
                let s = if *bits == 1 { "" } else { "s" };
                write!(
                    f,
                    "value of bit-field '{bit}' of field '{field}' does not fit its {bits} bit{s}"
                )
            }
            AsmErrorKind::BadValue { field, expected } => {
                write!(f, "field '{field}' takes {expected}")
            }
            AsmErrorKind::Missing { field } => write!(f, "field '{field}' is missing"),
            AsmErrorKind::Syntax { expected } => write!(f, "expected {expected}"),
            AsmErrorKind::DuplicateMember { field, member } => {
                write!(f, "member '{member}' of field '{field}' is given twice")
            }
            AsmErrorKind::MembersDisagree { field, member } => write!(
                f,
                "member '{member}' of field '{field}' gives bits another member set differently"
            ),
            AsmErrorKind::OtherForm { field, form: "" } => {
                write!(f, "the bits given to field '{field}' read as one of its forms; name it")
            }
            AsmErrorKind::OtherForm { field, form } => write!(
                f,
                "the bits given to field '{field}' do not read as the form '{form}' (a selector \
                 bit picks another)"
            ),
            AsmErrorKind::TooLong { field, max, given } => {
                write!(f, "field '{field}' holds at most {max} bytes; the string given has {given}")
            }
            AsmErrorKind::ValueCase { field, given, name } => {
                write!(
                    f,
                    "field '{field}' has no value '{given}'; value names keep their case: '{name}'"
                )
            }
            AsmErrorKind::UnknownValue { field, given, like: Some(like), .. } => {
                write!(f, "field '{field}' has no value '{given}'; did you mean '{like}'?")
            }
            AsmErrorKind::UnknownValue { field, given, like: None, values } => {
                write!(f, "field '{field}' has no value '{given}' (its values:")?;
                names_closed(f, values.iter().map(|&(name, _)| name))
            }
            AsmErrorKind::TooManyBytes { field, holds, given } => {
                write!(f, "field '{field}' holds {holds} bytes; the digits give {given}")
            }
            AsmErrorKind::Count { field, holds, given } => {
                write!(f, "field '{field}' holds {holds} elements; {given} are given")
            }
            AsmErrorKind::UnknownView { field, view, views } => {
                write!(f, "field '{field}' has no view '{view}' (its views:")?;
                names_closed(f, views.names())
            }
            AsmErrorKind::UnknownViewField { field, view, name, like } => {
                write!(f, "view '{view}' of field '{field}' has no field '{name}'")?;
                match like {
                    Some(like) => write!(f, "; did you mean '{like}'?"),
                    None => Ok(()),
                }
            }
            AsmErrorKind::UnknownMember { field, member, members } => {
                write!(f, "field '{field}' has no member '{member}' (its members:")?;
                names_closed(f, members.names())
            }
        }
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.kind)
    }
}

impl core::error::Error for AsmError {}

impl core::error::Error for AsmErrorKind {}
