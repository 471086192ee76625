//! The text form of records: a one-line disassembler and its inverse, the assembler,
//! both driven by the tables `cargo xtask gen` writes into `generated::disasm`.
//!
//! A record prints as its mnemonic (the opcode's name in lower case, or a sub-opcode's)
//! followed by `field=value` pairs in offset order, in the layout of a generation:
//!
//! ```text
//! ldweights header.inst_word_len=16 src_mem_pattern.start_addr=immediate{immediate=0x37dfe,partition_offset=0x37dfe} src_mem_pattern.num_elem=[32,1,4] in_dtype=FP16
//! pseudo_function_begin function_name="main" return_reset_semaphores=1
//! set_ordering_mode header.inst_word_len=16               (an opcode no arm reads)
//! pseudo_inst header.inst_word_len=16 payload=07…         (a sub-opcode no binding reads)
//! unknown opcode=0xfe bytes=fe10…00                       (an opcode the spec does not name)
//! ```
//!
//! - structs are flattened into dotted names (`events.wait_mode`); a field (or bit-field)
//!   whose bytes are all zero is not printed, as the assembler reads a field left out as
//!   zero; the opcode (and a sub-opcode) is printed only when the mnemonic does not
//!   imply it, and `header.opcode=`, given, sets the byte whatever the mnemonic implies
//!   (a record read as another arm's layout, [`write_arm`], prints so, and reads back);
//! - integers are decimal below 256 and hex above (the parser takes both, and `-`);
//!   an `f32` prints as the shortest decimal that reads back to the same bits (a NaN as
//!   its bits in hex);
//! - enums print by name, or as hex when the spec names no such value;
//! - operands with bit-fields print as `form{field=value,...}` with a `rest=` entry for
//!   any bit no field explains; unions as `view{field=value,...}` in the view the
//!   union's selector picks on the generation;
//! - arrays print as `[a,b,...]`, `i8` arrays (names) as a quoted string with `\"`,
//!   `\\` and `\xNN` escapes and trailing NULs dropped, reserved and unknown bytes as
//!   hex digits in byte order.
//!
//! Printing then parsing gives the same 64 bytes back for every record on every
//! generation. Neither direction allocates. The writers take a `fmt::Write`; their
//! `_bytes` forms hand the same text to a sink of bytes (a file, a pipe, a `Vec<u8>`),
//! without the UTF-8 check that making a `str` of it takes.

pub(crate) mod asm;
pub(crate) mod bits_read;
pub(crate) mod bound;
pub mod desc;
mod error;
mod fields;
mod float_text;
pub(crate) mod line;
pub(crate) mod name;
pub(crate) mod print;
mod printer;
#[cfg(test)]
mod tests;
pub(crate) mod union_read;

pub use asm::{assemble, assemble_line, is_label_line};
pub use desc::ArmText;
pub use error::{
    is_invisible_format, AsmError, AsmErrorKind, Fits, Members, Name, Views, VALUES_LISTED,
};
pub use fields::{split_line, Field, Fields};
pub use name::Escaped;
pub use print::{
    mnemonic, write_arm, write_inst, write_opaque, write_record, write_record_bytes, write_stream,
    write_stream_bytes, write_unknown, Text, UNKNOWN,
};
pub use printer::Printer;
