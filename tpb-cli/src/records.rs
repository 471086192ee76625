//! Every call into `tpb_isa`'s record decoding, text and validation, in one place, so
//! that a change of the generated API is made here once.

use std::fmt;

use anyhow::Result;
use tpb_isa::{disasm, stream, validate, Arch, Inst, Opcode, TpbEngType};

pub use tpb_isa::RECORD_SIZE;

/// One 64-byte record of a stream.
pub type Record = [u8; RECORD_SIZE];

/// A generation from a name, label or alias (`cayman`, `V3`, `trn2`).
pub fn parse_arch(s: &str) -> Result<Arch> {
    // The error quotes the name.
    s.parse::<Arch>().map_err(anyhow::Error::new)
}

/// The bytes after a stream's last whole record.
#[derive(Clone, Copy, Debug)]
pub struct Partial {
    /// Their offset in the stream.
    pub offset: usize,
    /// How many there are (1..=63).
    pub len: usize,
}

impl fmt::Display for Partial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Partial { offset, len } = *self;
        tpb_isa::StreamError::TrailingPartial { offset, len }.fmt(f)
    }
}

/// The stream's whole records with their offsets, and the trailing partial record, if any.
pub fn split(bytes: &[u8]) -> (impl Iterator<Item = (usize, &Record)> + '_, Option<Partial>) {
    let len = bytes.len() % RECORD_SIZE;
    let partial = (len != 0).then(|| Partial { offset: bytes.len() - len, len });
    (stream::records(bytes).filter_map(Result::ok), partial)
}

/// The generation a raw stream is read as when neither the input nor `--arch` names one:
/// cayman (trn2), the generation of the corpus's NEFFs.
pub const DEFAULT_ARCH: Arch = Arch::Cayman;

/// A decoded record and the generation whose layouts it was read in.
pub struct Decoded {
    inst: Inst,
    arch: Arch,
}

/// Decode a record for a generation (`None`: [`DEFAULT_ARCH`]).
pub fn decode(arch: Option<Arch>, record: &Record) -> Decoded {
    let arch = arch.unwrap_or(DEFAULT_ARCH);
    Decoded { inst: Inst::decode(arch, record), arch }
}

impl Decoded {
    /// The spec name of the record's arm, `None` when no binding selects it.
    pub fn arm_name(&self) -> Option<&'static str> {
        self.inst.kind().map(|a| a.name())
    }

    /// The function a PSEUDO_FUNCTION_BEGIN record opens: its name up to the first NUL,
    /// escaped as the record's text escapes it (the name is the file's, and a label line
    /// must not carry a line end or a terminal escape), or the opcode name when the name
    /// is empty; `None` for any other record.
    pub fn function_label(&self) -> Option<String> {
        let Inst::PseudoFunctionBegin(f) = &self.inst else { return None };
        let name: Vec<u8> = f.function_name.iter().map(|&c| c as u8).collect();
        let name = crate::text::c_bytes(&name);
        Some(if name.is_empty() {
            self.inst.opcode().name().unwrap_or("?").to_owned()
        } else {
            crate::text::escape(name)
        })
    }
}

/// The one-line text form, which `tpb asm` reads back.
impl fmt::Display for Decoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        disasm::write_inst(f, self.arch, &self.inst)
    }
}

/// Append a record's one-line text form to `line`, without building its `Inst`: the
/// listing's hot path, through a printer kept for the whole listing.
pub fn write_text(
    line: &mut Vec<u8>,
    printer: &mut disasm::Printer,
    arch: Option<Arch>,
    record: &Record,
) {
    line.extend_from_slice(printer.record_bytes(arch.unwrap_or(DEFAULT_ARCH), record));
}

/// The note a listing ends a record's line with when the spec names its opcode but not
/// on the generation it is read for (`  # opcode 0x0a does not exist on cayman`): its
/// text is the opaque form under the opcode's name, which alone reads as if the opcode
/// existed there. A comment, so that `tpb asm` reads the line back as before.
pub fn not_on_arch_note(arch: Option<Arch>, record: &Record) -> Option<String> {
    let arch = arch.unwrap_or(DEFAULT_ARCH);
    not_on_arch(arch, record)
        .then(|| format!("  # opcode {:#04x} does not exist on {}", record[0], arch.name()))
}

/// Whether the spec names the record's opcode but not on `arch`.
pub fn not_on_arch(arch: Arch, record: &Record) -> bool {
    let op = Opcode(record[0]);
    op.name().is_some() && !op.available_on(arch)
}

/// The function a PSEUDO_FUNCTION_BEGIN record opens, without decoding any other record.
pub fn function_label(arch: Option<Arch>, record: &Record) -> Option<String> {
    let on = arch.unwrap_or(DEFAULT_ARCH);
    if tpb_isa::inst::dispatch_on(on, record) != Some(tpb_isa::ArmKind::PseudoFunctionBegin) {
        return None;
    }
    decode(arch, record).function_label()
}

/// The spec's name of an opcode value on a generation, `None` when it names none.
pub fn opcode_name(arch: Option<Arch>, opcode: u8) -> Option<&'static str> {
    let op = Opcode(opcode);
    op.name().filter(|_| arch.is_none_or(|a| op.available_on(a)))
}

/// Whether the opcode is in the pseudo band the runtime rewrites at load (legal in a
/// NEFF stream, which is pre-relocation).
pub fn is_pseudo(opcode: u8) -> bool {
    Opcode(opcode).is_pseudo()
}

/// The validator's verdict on one record for a generation.
pub fn validate(arch: Arch, record: &Record) -> Result<(), tpb_isa::ValidateError> {
    validate::validate(arch, record)
}

/// A validator finding's kind as a stable name (`--json`): `opcode_not_valid`,
/// `not_on_arch`, `bad_enum`, or `other` for a kind a later `tpb_isa` adds.
pub fn validate_kind(e: &tpb_isa::ValidateError) -> &'static str {
    use tpb_isa::ValidateError as E;
    match e {
        E::OpcodeNotValid { .. } => "opcode_not_valid",
        E::NotOnArch { .. } => "not_on_arch",
        E::BadEnum { .. } => "bad_enum",
        _ => "other",
    }
}

/// A final-record check's failure as a stable name (`--json`): `empty` for a stream
/// without a record, `trailing_partial`, else the validator's kind ([`validate_kind`]).
pub fn final_check_kind(e: &tpb_isa::FinalCheckError) -> &'static str {
    use tpb_isa::{FinalCheckError as F, StreamError as S};
    match e {
        F::Stream(S::Empty) => "empty",
        F::Stream(S::TrailingPartial { .. }) => "trailing_partial",
        F::Invalid { error, .. } => validate_kind(error),
        _ => "other",
    }
}

/// An engine from its name (`PE`, `act`, `Activation`), as the final-record check knows it.
pub fn engine(name: &str) -> Option<TpbEngType> {
    let upper = name.to_ascii_uppercase();
    TpbEngType::from_name(if upper == "ACTIVATION" { "ACT" } else { &upper })
}

/// Whether an assembled stream holds EXIT (PSEUDO_INST with pseudo_opcode 1).
pub fn has_exit(bytes: &[u8]) -> bool {
    stream::has_pseudo_exit(bytes)
}

/// The final-record check of an assembled stream for an engine on a generation.
pub fn final_check(
    arch: Arch,
    engine: TpbEngType,
    bytes: &[u8],
) -> Result<(), tpb_isa::FinalCheckError> {
    stream::final_inst_validity_check(arch, engine, bytes)
}
