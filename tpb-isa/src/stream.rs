//! Record streams: the fixed +64 stride walk, the EXIT scan and the final-record check.
//!
//! A stream is a flat array of 64-byte records with no length prefix, no padding and
//! no framing: record `i` is at byte `i * 64`. Every walker here advances by
//! [`RECORD_SIZE`] and never by `inst_word_len` (byte 1), which is a sequencer-fetch
//! hint, not a record size; striding by it would desynchronise the stream at once.
//!
//! A stream whose length is not a multiple of 64 ends in a *trailing partial record*.
//! [`records`] yields it as one [`StreamError::TrailingPartial`] after the whole
//! records, and [`final_record`] refuses it; [`has_pseudo_exit`] documents its own rule.
//!
//! ```
//! use tpb_isa::stream;
//!
//! let mut bytes = [0u8; 130];
//! bytes[64] = 0xDF; // PSEUDO_INST ...
//! bytes[64 + 12] = 1; // ... with pseudo_opcode PSEUDO_EXIT_EXECUTION
//! let offsets: Vec<_> = stream::records(&bytes).map(|r| r.map(|(off, _)| off)).collect();
//! assert_eq!(offsets[..2], [Ok(0), Ok(64)]);
//! assert_eq!(offsets[2], Err(tpb_isa::StreamError::TrailingPartial { offset: 128, len: 2 }));
//! assert!(stream::has_pseudo_exit(&bytes));
//! ```

use core::iter::FusedIterator;

use crate::error::{FinalCheckError, StreamError};
use crate::generated::geometry::Arch;
use crate::generated::inst::{Inst, EXIT, RECORD_SIZE};
use crate::generated::opcode::TpbEngType;
use crate::generated::validate;

/// The result type of this module.
pub type Result<T, E = StreamError> = core::result::Result<T, E>;

/// Iterator over the records of a stream, at a fixed +[`RECORD_SIZE`] stride.
///
/// Yields `Ok((offset, record))` for each whole record, with `offset` its byte offset in
/// the stream, then at most one `Err(StreamError::TrailingPartial { offset, len })` for
/// the bytes after the last whole record, then `None` for ever. Nothing is decoded:
/// each item is a borrowed view of the stream's own bytes.
///
/// Made by [`records`].
#[derive(Clone, Debug)]
pub struct Records<'a> {
    /// The bytes not yet yielded.
    rest: &'a [u8],
    /// Byte offset of `rest` in the stream.
    offset: usize,
}

/// Walk `bytes` as records at a fixed +[`RECORD_SIZE`] stride.
///
/// Source: `ib_has_pseudo_exit @0x323df0` (`add offset, 40h`): the stride is exactly
/// `TPB_INST_NBYTES` (0x40), whatever `inst_word_len` (byte 1) says.
#[must_use]
#[inline]
pub fn records(bytes: &[u8]) -> Records<'_> {
    Records { rest: bytes, offset: 0 }
}

impl<'a> Records<'a> {
    /// Byte offset (in the stream) of the next item.
    #[must_use]
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The bytes not yet yielded (whole records first, then any trailing partial record).
    #[must_use]
    #[inline]
    pub fn remainder(&self) -> &'a [u8] {
        self.rest
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<(usize, &'a [u8; RECORD_SIZE])>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let offset = self.offset;
        match self.rest.split_first_chunk::<RECORD_SIZE>() {
            Some((record, rest)) => {
                self.rest = rest;
                self.offset += RECORD_SIZE;
                Some(Ok((offset, record)))
            }
            None if self.rest.is_empty() => None,
            None => {
                let len = self.rest.len();
                self.rest = &[];
                self.offset += len;
                Some(Err(StreamError::TrailingPartial { offset, len }))
            }
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for Records<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.rest.len().div_ceil(RECORD_SIZE)
    }
}

impl FusedIterator for Records<'_> {}

/// Decode every record of `bytes` in the layouts of `arch`: [`records`] with
/// [`Inst::decode`] applied to each.
///
/// Decoding never fails (an opcode no binding reads is kept verbatim), so the only
/// error is the trailing partial record, yielded last.
#[inline]
pub fn decode_all(
    arch: Arch,
    bytes: &[u8],
) -> impl ExactSizeIterator<Item = Result<(usize, Inst)>> + FusedIterator + Clone + '_ {
    records(bytes)
        .map(move |item| item.map(|(offset, record)| (offset, Inst::decode(arch, record))))
}

/// Whether the stream holds the EXIT sentinel (PSEUDO_INST, byte 0 == 0xDF, with
/// pseudo_opcode PSEUDO_EXIT_EXECUTION, byte 12 == 1) at any record.
///
/// Source: `ib_has_pseudo_exit @0x323df0`, verbatim: an empty stream is `false`; the
/// scan visits every offset `< len` in +64 strides and tests both bytes. Testing byte 0
/// alone would mistake a PSEUDO_LIBRARY_RELOAD_INDEX record (byte 12 == 2) for the
/// terminator.
///
/// A trailing partial record is scanned as the binary scans it, but only within the
/// bytes that exist: the binary's loop visits its offset too and reads byte 12 there,
/// so a partial record of at least 13 bytes with 0xDF at +0 and 1 at +12 counts as
/// EXIT, and a shorter one (whose byte 12 would be out of bounds) never does
/// ([`Sentinel::matches`](crate::generated::inst::Sentinel::matches) does not match a
/// slice too short to hold its bytes). This function never panics. Such a stream still
/// fails [`records`], [`final_record`] and [`final_inst_validity_check`] with
/// [`StreamError::TrailingPartial`].
///
/// No record is decoded; this is a plain stride scan of two bytes per record.
#[must_use]
pub fn has_pseudo_exit(bytes: &[u8]) -> bool {
    let whole = bytes.chunks_exact(RECORD_SIZE);
    let tail = whole.remainder();
    for record in whole {
        if EXIT.matches(record) {
            return true;
        }
    }
    EXIT.matches(tail)
}

/// The last whole record of a stream.
///
/// # Errors
///
/// [`StreamError::Empty`] for an empty stream, and [`StreamError::TrailingPartial`]
/// when the stream does not end on a record boundary (its final record is incomplete).
pub fn final_record(bytes: &[u8]) -> Result<&[u8; RECORD_SIZE]> {
    let partial = bytes.len() % RECORD_SIZE;
    if partial != 0 {
        return Err(StreamError::TrailingPartial { offset: bytes.len() - partial, len: partial });
    }
    bytes.last_chunk::<RECORD_SIZE>().ok_or(StreamError::Empty)
}

/// Validate the final record of a stream as the terminator of `engine`'s program on `arch`.
///
/// Source: `ib_final_inst_validity_check @0x323cb0`, a 5-byte `jmp` thunk into
/// `tdrv_arch_instr_block_final_inst_validity_check`'s per-arch vtable; here the
/// generated [`validate::final_inst_validity_check`] is that dispatch. This function
/// adds only the step the thunk's caller does: finding the final record.
///
/// # Errors
///
/// [`FinalCheckError::Stream`] when the stream has no final record ([`final_record`]'s
/// errors), and [`FinalCheckError::Invalid`] with the record's offset when the
/// validator rejects it.
pub fn final_inst_validity_check(
    arch: Arch,
    engine: TpbEngType,
    bytes: &[u8],
) -> Result<(), FinalCheckError> {
    let record = final_record(bytes)?;
    validate::final_inst_validity_check(arch, engine, record)
        .map_err(|error| FinalCheckError::Invalid { offset: bytes.len() - RECORD_SIZE, error })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record with the given opcode (+0), inst_word_len (+1) and byte 12.
    fn rec(opcode: u8, word_len: u8, b12: u8) -> [u8; RECORD_SIZE] {
        let mut r = [0u8; RECORD_SIZE];
        r[0] = opcode;
        r[1] = word_len;
        r[12] = b12;
        r
    }

    /// Copy `recs` end to end into `buf`, returning the used prefix.
    fn lay<'b>(buf: &'b mut [u8], recs: &[[u8; RECORD_SIZE]]) -> &'b mut [u8] {
        for (dst, src) in buf.chunks_exact_mut(RECORD_SIZE).zip(recs) {
            dst.copy_from_slice(src);
        }
        &mut buf[..recs.len() * RECORD_SIZE]
    }

    #[test]
    fn the_stride_is_64_whatever_inst_word_len_says() {
        let mut buf = [0u8; 4 * RECORD_SIZE];
        let recs = [rec(0x01, 1, 0), rec(0x02, 0, 0), rec(0x03, 0xFF, 0), rec(0x04, 128, 0)];
        let bytes = lay(&mut buf, &recs);
        let mut it = records(bytes);
        assert_eq!(it.len(), 4);
        for (i, expected) in recs.iter().enumerate() {
            let (offset, record) = it.next().unwrap().unwrap();
            assert_eq!(offset, i * RECORD_SIZE);
            assert_eq!(record, expected);
        }
        assert_eq!(it.next(), None);
        assert_eq!(it.next(), None);
    }

    #[test]
    fn a_trailing_partial_record_is_one_typed_error_with_its_offset() {
        let bytes = [0u8; 2 * RECORD_SIZE + 5];
        let items: [_; 3] = core::array::from_fn({
            let mut it = records(&bytes);
            move |_| it.next()
        });
        assert!(matches!(items[0], Some(Ok((0, _)))));
        assert!(matches!(items[1], Some(Ok((64, _)))));
        assert_eq!(items[2], Some(Err(StreamError::TrailingPartial { offset: 128, len: 5 })));

        let mut it = records(&bytes);
        assert_eq!(it.len(), 3);
        assert_eq!(it.by_ref().count(), 3);
        assert_eq!(it.len(), 0);
        assert_eq!(it.next(), None, "the iterator is fused after the partial record");
        assert_eq!(it.offset(), bytes.len());
    }

    #[test]
    fn a_stream_shorter_than_a_record_is_only_a_partial_record() {
        let bytes = [0xDFu8; 10];
        let mut it = records(&bytes);
        assert_eq!(it.next(), Some(Err(StreamError::TrailingPartial { offset: 0, len: 10 })));
        assert_eq!(it.next(), None);
        assert_eq!(final_record(&bytes), Err(StreamError::TrailingPartial { offset: 0, len: 10 }));
    }

    #[test]
    fn an_empty_stream_has_no_records() {
        assert_eq!(records(&[]).next(), None);
        assert_eq!(records(&[]).len(), 0);
        assert_eq!(final_record(&[]), Err(StreamError::Empty));
        assert!(!has_pseudo_exit(&[]));
    }

    #[test]
    fn decode_all_decodes_each_record_and_reports_the_partial_one() {
        let mut buf = [0u8; 2 * RECORD_SIZE + 1];
        lay(&mut buf, &[rec(0x01, 0, 0), rec(0xDF, 0, 1)]);
        let mut it = decode_all(Arch::Cayman, &buf);
        let bytes0 = rec(0x01, 0, 0);
        let bytes1 = rec(0xDF, 0, 1);
        assert_eq!(it.next(), Some(Ok((0, Inst::decode(Arch::Cayman, &bytes0)))));
        assert_eq!(it.next(), Some(Ok((64, Inst::decode(Arch::Cayman, &bytes1)))));
        assert_eq!(it.next(), Some(Err(StreamError::TrailingPartial { offset: 128, len: 1 })));
        assert_eq!(it.next(), None);
    }

    #[test]
    fn exit_is_0xdf_and_byte_12_equal_to_1() {
        assert!(has_pseudo_exit(&rec(0xDF, 0, 1)));
        // PSEUDO_LIBRARY_RELOAD_INDEX: PSEUDO_INST with pseudo_opcode 2 is not EXIT.
        assert!(!has_pseudo_exit(&rec(0xDF, 0, 2)));
        assert!(!has_pseudo_exit(&rec(0xDF, 0, 0)));
        // Byte 12 == 1 under another opcode is not EXIT either.
        assert!(!has_pseudo_exit(&rec(0xDE, 0, 1)));
    }

    #[test]
    fn exit_is_found_at_any_record_but_only_on_the_stride() {
        let mut buf = [0u8; 3 * RECORD_SIZE];
        let bytes = lay(&mut buf, &[rec(0x01, 0, 0), rec(0xDF, 0, 2), rec(0xDF, 0, 1)]);
        assert!(has_pseudo_exit(bytes));

        // The signature off the 64-byte stride (here at +1) is payload, not a record.
        let mut off = [0u8; 2 * RECORD_SIZE];
        off[1] = 0xDF;
        off[13] = 1;
        off[65] = 0xDF;
        off[77] = 1;
        assert!(!has_pseudo_exit(&off));

        // A walker that trusted inst_word_len would jump from record 0 (which says 128)
        // over record 1, the EXIT.
        let mut buf = [0u8; 2 * RECORD_SIZE];
        let bytes = lay(&mut buf, &[rec(0x01, 128, 0), rec(0xDF, 0, 1)]);
        assert!(has_pseudo_exit(bytes));
    }

    #[test]
    fn a_trailing_partial_record_counts_only_with_byte_12_in_bounds() {
        let mut buf = [0u8; RECORD_SIZE + 13];
        buf[RECORD_SIZE] = 0xDF;
        buf[RECORD_SIZE + 12] = 1;
        // 13 bytes: byte 12 is there, as the binary reads it.
        assert!(has_pseudo_exit(&buf));
        // 12 bytes or fewer: byte 12 is out of bounds, so no match and no panic.
        for len in RECORD_SIZE..RECORD_SIZE + 13 {
            assert!(!has_pseudo_exit(&buf[..len]), "len {len}");
        }
        // The other walkers still refuse the stream.
        assert_eq!(
            final_record(&buf),
            Err(StreamError::TrailingPartial { offset: RECORD_SIZE, len: 13 })
        );
    }

    #[test]
    fn has_pseudo_exit_never_panics_on_any_length() {
        let mut buf = [0xDFu8; 3 * RECORD_SIZE];
        for i in (12..buf.len()).step_by(RECORD_SIZE) {
            buf[i] = 2;
        }
        for len in 0..=buf.len() {
            assert!(!has_pseudo_exit(&buf[..len]), "len {len}");
        }
    }

    #[test]
    fn final_record_is_the_last_whole_record() {
        let mut buf = [0u8; 2 * RECORD_SIZE];
        let recs = [rec(0x01, 0, 0), rec(0xDF, 0, 1)];
        let bytes = lay(&mut buf, &recs);
        assert_eq!(final_record(bytes), Ok(&recs[1]));
    }

    #[test]
    fn final_inst_validity_check_finds_the_final_record_and_dispatches() {
        let mut buf = [0u8; 2 * RECORD_SIZE + 3];
        lay(&mut buf, &[rec(0x01, 0, 0), rec(0xDF, 0, 1)]);
        let whole = &buf[..2 * RECORD_SIZE];
        let exit = rec(0xDF, 0, 1);
        for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
            let engine = TpbEngType::ACT;
            assert_eq!(
                final_inst_validity_check(arch, engine, whole),
                validate::final_inst_validity_check(arch, engine, &exit)
                    .map_err(|error| FinalCheckError::Invalid { offset: 64, error }),
            );
            assert_eq!(
                final_inst_validity_check(arch, engine, &buf),
                Err(FinalCheckError::Stream(StreamError::TrailingPartial { offset: 128, len: 3 }))
            );
            assert_eq!(
                final_inst_validity_check(arch, engine, &[]),
                Err(FinalCheckError::Stream(StreamError::Empty))
            );
        }
    }
}
