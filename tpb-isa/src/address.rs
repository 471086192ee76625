//! The three-segment instruction-block address map, and `ib_read_write`'s one copy loop.
//!
//! An engine's instruction block is one linear byte range (the record stream) that the
//! driver keeps in three device-memory (dmem) segments, named after the fields of
//! `ib_addrs_one_eng_t`: `one_offset`, `model_switch_offset` and `core_offset` (+0x08,
//! +0x18, +0x28). [`IbAddrMap`] says where each segment starts in the linear range and
//! how long it is; [`IbAddrMap::translate`] is `ib_translate_addr`; [`read_write`] is
//! `ib_read_write`: it copies a linear range to or from a [`Dmem`] chunk by chunk,
//! clamping each chunk at its segment's end, so a record that straddles a segment
//! boundary is copied in two chunks.
//!
//! ```
//! use tpb_isa::address::{self, IbAddrMap, SliceDmem};
//!
//! // 96 bytes in the `one` segment, then 64 in `model_switch`, then 64 in `core`.
//! let map = IbAddrMap::contiguous(96, 64, 64);
//! let (mut one, mut ms, mut core) = ([0u8; 96], [0u8; 64], [0u8; 64]);
//! let mut dmem = SliceDmem::new(&mut one, &mut ms, &mut core);
//!
//! let stream = [0xABu8; 128]; // two records; the second straddles `one` / `model_switch`
//! address::write(&map, &mut dmem, 0, &stream)?;
//! let mut back = [0u8; 128];
//! address::read(&map, &mut dmem, 0, &mut back)?;
//! assert_eq!(back, stream);
//! # Ok::<(), tpb_isa::AddressError>(())
//! ```

use core::ops::Range;

use crate::error::AddressError;

/// The result type of this module.
pub type Result<T, E = AddressError> = core::result::Result<T, E>;

/// One of the three segments of an engine's instruction block, in `ib_addrs_one_eng_t` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SegmentId {
    /// `one_offset` (+0x08 of `ib_addrs_one_eng_t`).
    One = 0,
    /// `model_switch_offset` (+0x18).
    ModelSwitch = 1,
    /// `core_offset` (+0x28).
    Core = 2,
}

impl SegmentId {
    /// The three segments, in the order [`IbAddrMap::translate`] tries them.
    pub const ALL: [SegmentId; 3] = [SegmentId::One, SegmentId::ModelSwitch, SegmentId::Core];

    /// Index into [`IbAddrMap::segments`] (0, 1, 2).
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The segment's name as the driver spells it, without `_offset` (`model_switch`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            SegmentId::One => "one",
            SegmentId::ModelSwitch => "model_switch",
            SegmentId::Core => "core",
        }
    }
}

/// Where one segment sits in the instruction block's linear byte range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Segment {
    /// Linear offset of the segment's first byte.
    pub base: u64,
    /// Length in bytes; a segment of size 0 maps nothing.
    pub size: u64,
}

impl Segment {
    /// A segment of `size` bytes starting at linear offset `base`.
    #[must_use]
    pub const fn new(base: u64, size: u64) -> Segment {
        Segment { base, size }
    }

    /// Whether linear offset `offset` is in the segment (`base <= offset < base + size`).
    #[must_use]
    pub const fn contains(&self, offset: u64) -> bool {
        offset >= self.base && offset - self.base < self.size
    }
}

/// The address map of one engine's instruction block: three [`Segment`]s of the
/// linear range (`ib_addrs_one_eng_t`'s `one_offset`, `model_switch_offset`,
/// `core_offset`).
///
/// Segments need not be adjacent: a linear offset in no segment is
/// [`AddressError::Unmapped`]. Where segments overlap, [`IbAddrMap::translate`] gives
/// the first in [`SegmentId::ALL`] order; a transfer ([`IbAddrMap::chunks`]) runs on in
/// the segment its start falls in, to that segment's end, as the runtime's copy does,
/// so the same linear byte may read differently from two starts: a map whose segments
/// overlap is the caller's to avoid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct IbAddrMap {
    segments: [Segment; 3],
}

impl IbAddrMap {
    /// A map from its three segments.
    #[must_use]
    pub const fn new(one: Segment, model_switch: Segment, core: Segment) -> IbAddrMap {
        IbAddrMap { segments: [one, model_switch, core] }
    }

    /// Three segments laid back to back from linear offset 0, in [`SegmentId::ALL`] order.
    ///
    /// Bases saturate at `u64::MAX` rather than wrap.
    #[must_use]
    pub const fn contiguous(one: u64, model_switch: u64, core: u64) -> IbAddrMap {
        let ms_base = one;
        let core_base = ms_base.saturating_add(model_switch);
        IbAddrMap::new(
            Segment::new(0, one),
            Segment::new(ms_base, model_switch),
            Segment::new(core_base, core),
        )
    }

    /// The three segments, indexed by [`SegmentId::index`].
    #[must_use]
    pub const fn segments(&self) -> &[Segment; 3] {
        &self.segments
    }

    /// One segment.
    #[must_use]
    pub const fn segment(&self, id: SegmentId) -> Segment {
        self.segments[id.index()]
    }

    /// Map a linear offset to its segment and the offset inside that segment.
    ///
    /// Source: `ib_translate_addr @0x323ca0`.
    ///
    /// # Errors
    ///
    /// [`AddressError::Unmapped`] when no segment contains `offset`.
    pub fn translate(&self, offset: u64) -> Result<(SegmentId, u64)> {
        SegmentId::ALL
            .into_iter()
            .find(|&id| self.segment(id).contains(offset))
            .map(|id| (id, offset - self.segment(id).base))
            .ok_or(AddressError::Unmapped { offset })
    }

    /// The chunks a transfer of `size` bytes at linear `offset` is copied in: one per
    /// segment it touches, each clamped at its segment's end (the `cmovnb` at 0x323d3b).
    /// Each chunk's segment is the one [`IbAddrMap::translate`] gives for its first
    /// byte; a chunk is not cut where another segment, first in [`SegmentId::ALL`]
    /// order, begins inside it (the runtime's copy is not).
    ///
    /// Yields `Err` once, at the first byte no segment maps (or for a range that runs
    /// past `u64::MAX`), then ends. A transfer of size 0 has no chunks.
    #[must_use]
    pub fn chunks(&self, offset: u64, size: usize) -> Chunks<'_> {
        Chunks { map: self, offset, cursor: 0, size, failed: false }
    }
}

/// One piece of a transfer: a run of bytes inside one segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// The segment.
    pub segment: SegmentId,
    /// Offset of the run inside the segment.
    pub offset: u64,
    /// Offset of the run inside the host buffer (bytes of the transfer before it).
    pub start: usize,
    /// Length of the run (at least 1).
    pub len: usize,
}

impl Chunk {
    /// The run's range in the host buffer.
    #[must_use]
    pub const fn range(&self) -> Range<usize> {
        self.start..self.start + self.len
    }
}

/// Iterator over the [`Chunk`]s of a transfer; made by [`IbAddrMap::chunks`].
#[derive(Clone, Debug)]
pub struct Chunks<'m> {
    map: &'m IbAddrMap,
    /// Linear offset of the next chunk.
    offset: u64,
    /// Bytes of the transfer already chunked.
    cursor: usize,
    /// Bytes of the transfer.
    size: usize,
    /// An error was yielded; nothing follows it.
    failed: bool,
}

impl Iterator for Chunks<'_> {
    type Item = Result<Chunk>;

    fn next(&mut self) -> Option<Result<Chunk>> {
        if self.failed || self.cursor >= self.size {
            return None;
        }
        // usize is at most 64 bits on every target Rust supports, so these widen losslessly.
        let remaining = (self.size - self.cursor) as u64;
        // The last byte's linear offset must exist, or the walk below could wrap.
        if self.cursor == 0 && self.offset.checked_add(remaining - 1).is_none() {
            self.failed = true;
            return Some(Err(AddressError::RangeOverflow { offset: self.offset, size: self.size }));
        }
        let (segment, in_segment) = match self.map.translate(self.offset) {
            Ok(found) => found,
            Err(e) => {
                self.failed = true;
                return Some(Err(e));
            }
        };
        let left_in_segment = self.map.segment(segment).size - in_segment;
        let len = left_in_segment.min(remaining);
        let chunk = Chunk { segment, offset: in_segment, start: self.cursor, len: len as usize };
        self.cursor += chunk.len;
        if self.cursor < self.size {
            // Below the last byte's offset, checked above, so it cannot overflow.
            self.offset += len;
        }
        Some(Ok(chunk))
    }
}

impl core::iter::FusedIterator for Chunks<'_> {}

/// Device memory behind the three segments: `dmem_buf_copyout` and `dmem_buf_copyin`.
///
/// Offsets are in-segment offsets (from [`IbAddrMap::translate`]); each call stays
/// inside one segment.
pub trait Dmem {
    /// The device's error; address-map errors convert into it.
    type Error: From<AddressError>;

    /// Device → host: fill `dst` from `segment` at `offset` (`dmem_buf_copyout`).
    ///
    /// # Errors
    ///
    /// Whatever the device reports.
    fn copy_out(
        &mut self,
        segment: SegmentId,
        offset: u64,
        dst: &mut [u8],
    ) -> Result<(), Self::Error>;

    /// Host → device: write `src` into `segment` at `offset` (`dmem_buf_copyin`).
    ///
    /// # Errors
    ///
    /// Whatever the device reports.
    fn copy_in(&mut self, segment: SegmentId, offset: u64, src: &[u8]) -> Result<(), Self::Error>;
}

/// The host side and direction of a transfer: `ib_read_write`'s buffer and `is_read` flag.
#[derive(Debug)]
pub enum Transfer<'b> {
    /// Device → host, into this buffer.
    Read(&'b mut [u8]),
    /// Host → device, from this buffer.
    Write(&'b [u8]),
}

impl Transfer<'_> {
    /// Length of the host buffer.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Transfer::Read(b) => b.len(),
            Transfer::Write(b) => b.len(),
        }
    }

    /// Whether the host buffer is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Copy `size` bytes at linear `offset` between the host buffer of `transfer` and `dmem`.
///
/// Source: `ib_read_write @0x323cc0`. One loop serves both directions, as in the
/// binary, where the `is_read` flag only picks the copy primitive: each chunk of
/// [`IbAddrMap::chunks`] is passed to [`Dmem::copy_out`] or [`Dmem::copy_in`], and a
/// record straddling a segment boundary is copied in two chunks. Size 0 succeeds at
/// once, whatever `offset` and the buffer are.
///
/// Unlike the binary, the whole range is translated before the first copy, so an
/// unmapped offset fails the call without moving a byte. A device error can still
/// leave a transfer partly done.
///
/// # Errors
///
/// [`AddressError::BufferTooShort`] when the buffer holds fewer than `size` bytes,
/// [`AddressError::Unmapped`] at the first unmapped byte of the range,
/// [`AddressError::RangeOverflow`] when the range runs past `u64::MAX`, and any error
/// of `dmem`.
pub fn read_write<D: Dmem + ?Sized>(
    map: &IbAddrMap,
    dmem: &mut D,
    offset: u64,
    mut transfer: Transfer<'_>,
    size: usize,
) -> Result<(), D::Error> {
    if size == 0 {
        return Ok(());
    }
    if transfer.len() < size {
        return Err(AddressError::BufferTooShort { needed: size, len: transfer.len() }.into());
    }
    map.chunks(offset, size).try_for_each(|chunk| chunk.map(drop))?;
    for chunk in map.chunks(offset, size) {
        let chunk = chunk?;
        match &mut transfer {
            Transfer::Read(buf) => {
                dmem.copy_out(chunk.segment, chunk.offset, &mut buf[chunk.range()])?
            }
            Transfer::Write(buf) => {
                dmem.copy_in(chunk.segment, chunk.offset, &buf[chunk.range()])?
            }
        }
    }
    Ok(())
}

/// Device → host: fill all of `buf` from linear `offset` (`kbl_instruction_stream_read`).
///
/// # Errors
///
/// As [`read_write`].
pub fn read<D: Dmem + ?Sized>(
    map: &IbAddrMap,
    dmem: &mut D,
    offset: u64,
    buf: &mut [u8],
) -> Result<(), D::Error> {
    let size = buf.len();
    read_write(map, dmem, offset, Transfer::Read(buf), size)
}

/// Host → device: write all of `data` at linear `offset` (`kbl_instruction_stream_write`).
///
/// # Errors
///
/// As [`read_write`].
pub fn write<D: Dmem + ?Sized>(
    map: &IbAddrMap,
    dmem: &mut D,
    offset: u64,
    data: &[u8],
) -> Result<(), D::Error> {
    read_write(map, dmem, offset, Transfer::Write(data), data.len())
}

/// An in-memory [`Dmem`]: one borrowed byte buffer per segment (no allocation).
///
/// In-segment offset `o` of a segment is byte `o` of its buffer. A buffer shorter than
/// its segment in the map makes the missing bytes [`AddressError::OutOfSegment`].
#[derive(Debug)]
pub struct SliceDmem<'a> {
    segments: [&'a mut [u8]; 3],
}

impl<'a> SliceDmem<'a> {
    /// A device from the memory of its three segments.
    #[must_use]
    pub fn new(one: &'a mut [u8], model_switch: &'a mut [u8], core: &'a mut [u8]) -> SliceDmem<'a> {
        SliceDmem { segments: [one, model_switch, core] }
    }

    /// A segment's memory.
    #[must_use]
    pub fn segment(&self, id: SegmentId) -> &[u8] {
        self.segments[id.index()]
    }

    /// A segment's memory, writable.
    #[must_use]
    pub fn segment_mut(&mut self, id: SegmentId) -> &mut [u8] {
        self.segments[id.index()]
    }

    fn bytes(&mut self, segment: SegmentId, offset: u64, len: usize) -> Result<&mut [u8]> {
        let mem = &mut *self.segments[segment.index()];
        usize::try_from(offset)
            .ok()
            .and_then(|start| mem.get_mut(start..start.checked_add(len)?))
            .ok_or(AddressError::OutOfSegment { segment, offset, len })
    }
}

impl Dmem for SliceDmem<'_> {
    type Error = AddressError;

    fn copy_out(&mut self, segment: SegmentId, offset: u64, dst: &mut [u8]) -> Result<()> {
        dst.copy_from_slice(self.bytes(segment, offset, dst.len())?);
        Ok(())
    }

    fn copy_in(&mut self, segment: SegmentId, offset: u64, src: &[u8]) -> Result<()> {
        self.bytes(segment, offset, src.len())?.copy_from_slice(src);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::inst::RECORD_SIZE;

    /// What one [`Dmem`] call did.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Call {
        write: bool,
        segment: SegmentId,
        offset: u64,
        len: usize,
    }

    /// A [`SliceDmem`] that records its calls, in a fixed array (no allocation).
    struct Recording<'a> {
        inner: SliceDmem<'a>,
        calls: [Option<Call>; 8],
        n: usize,
    }

    impl<'a> Recording<'a> {
        fn new(inner: SliceDmem<'a>) -> Recording<'a> {
            Recording { inner, calls: [None; 8], n: 0 }
        }

        fn log(&mut self, call: Call) {
            self.calls[self.n] = Some(call);
            self.n += 1;
        }

        /// The calls since the last `take`.
        fn take(&mut self) -> [Option<Call>; 8] {
            self.n = 0;
            core::mem::take(&mut self.calls)
        }
    }

    impl Dmem for Recording<'_> {
        type Error = AddressError;

        fn copy_out(&mut self, segment: SegmentId, offset: u64, dst: &mut [u8]) -> Result<()> {
            self.log(Call { write: false, segment, offset, len: dst.len() });
            self.inner.copy_out(segment, offset, dst)
        }

        fn copy_in(&mut self, segment: SegmentId, offset: u64, src: &[u8]) -> Result<()> {
            self.log(Call { write: true, segment, offset, len: src.len() });
            self.inner.copy_in(segment, offset, src)
        }
    }

    fn calls<const N: usize>(c: [Call; N]) -> [Option<Call>; 8] {
        core::array::from_fn(|i| c.get(i).copied())
    }

    /// Two records whose bytes are all distinct from each other's positions.
    fn two_records() -> [u8; 2 * RECORD_SIZE] {
        core::array::from_fn(|i| i as u8 ^ 0x5A)
    }

    #[test]
    fn translate_maps_each_segment_and_nothing_else() {
        // one: 0x100..0x160, model_switch: 0x160..0x180, core: 0x200..0x240 (gap before it).
        let map = IbAddrMap::new(
            Segment::new(0x100, 0x60),
            Segment::new(0x160, 0x20),
            Segment::new(0x200, 0x40),
        );
        assert_eq!(map.translate(0x100), Ok((SegmentId::One, 0)));
        assert_eq!(map.translate(0x15F), Ok((SegmentId::One, 0x5F)));
        assert_eq!(map.translate(0x160), Ok((SegmentId::ModelSwitch, 0)));
        assert_eq!(map.translate(0x17F), Ok((SegmentId::ModelSwitch, 0x1F)));
        assert_eq!(map.translate(0x200), Ok((SegmentId::Core, 0)));
        assert_eq!(map.translate(0x23F), Ok((SegmentId::Core, 0x3F)));
        for offset in [0, 0xFF, 0x180, 0x1FF, 0x240, u64::MAX] {
            assert_eq!(map.translate(offset), Err(AddressError::Unmapped { offset }));
        }
    }

    #[test]
    fn overlapping_segments_resolve_in_driver_order() {
        let map =
            IbAddrMap::new(Segment::new(0, 0x40), Segment::new(0x20, 0x40), Segment::new(0, 0x100));
        assert_eq!(map.translate(0x30), Ok((SegmentId::One, 0x30)));
        assert_eq!(map.translate(0x40), Ok((SegmentId::ModelSwitch, 0x20)));
        assert_eq!(map.translate(0x60), Ok((SegmentId::Core, 0x60)));
        // A transfer runs on in the segment of its start, to that segment's end, as the
        // runtime's copy does: from 0x30 it stays in `one` to 0x40, then continues
        // where 0x40 translates.
        let mut it = map.chunks(0x30, 0x40).map(Result::unwrap);
        let chunks: [Option<Chunk>; 4] = core::array::from_fn(|_| it.next());
        assert_eq!(
            chunks,
            [
                Some(Chunk { segment: SegmentId::One, offset: 0x30, start: 0, len: 0x10 }),
                Some(Chunk {
                    segment: SegmentId::ModelSwitch,
                    offset: 0x20,
                    start: 0x10,
                    len: 0x20
                }),
                Some(Chunk { segment: SegmentId::Core, offset: 0x60, start: 0x30, len: 0x10 }),
                None,
            ]
        );
        // A segment first in driver order, starting inside a chunk, does not cut it.
        let map =
            IbAddrMap::new(Segment::new(100, 100), Segment::new(0, 300), Segment::new(1000, 0));
        let mut it = map.chunks(0, 300).map(Result::unwrap);
        let chunks: [Option<Chunk>; 2] = core::array::from_fn(|_| it.next());
        assert_eq!(
            chunks,
            [Some(Chunk { segment: SegmentId::ModelSwitch, offset: 0, start: 0, len: 300 }), None]
        );
    }

    #[test]
    fn an_empty_segment_maps_nothing() {
        let map = IbAddrMap::contiguous(0, 64, 0);
        assert_eq!(map.translate(0), Ok((SegmentId::ModelSwitch, 0)));
        assert_eq!(map.translate(64), Err(AddressError::Unmapped { offset: 64 }));
    }

    #[test]
    fn a_record_straddling_a_segment_boundary_is_copied_in_two_chunks() {
        // Record 1 (bytes 64..128) has 32 bytes in `one` and 32 in `model_switch`.
        let map = IbAddrMap::contiguous(96, 64, 64);
        let (mut one, mut ms, mut core) = ([0u8; 96], [0u8; 64], [0u8; 64]);
        let mut dmem = Recording::new(SliceDmem::new(&mut one, &mut ms, &mut core));
        let stream = two_records();

        write(&map, &mut dmem, 0, &stream).unwrap();
        assert_eq!(
            dmem.take(),
            calls([
                Call { write: true, segment: SegmentId::One, offset: 0, len: 96 },
                Call { write: true, segment: SegmentId::ModelSwitch, offset: 0, len: 32 },
            ])
        );
        assert_eq!(dmem.inner.segment(SegmentId::One), &stream[..96]);
        assert_eq!(&dmem.inner.segment(SegmentId::ModelSwitch)[..32], &stream[96..]);

        // Just the straddling record: two chunks of 32.
        let mut record = [0u8; RECORD_SIZE];
        read(&map, &mut dmem, 64, &mut record).unwrap();
        assert_eq!(
            dmem.take(),
            calls([
                Call { write: false, segment: SegmentId::One, offset: 64, len: 32 },
                Call { write: false, segment: SegmentId::ModelSwitch, offset: 0, len: 32 },
            ])
        );
        assert_eq!(record, stream[64..]);
    }

    #[test]
    fn a_transfer_can_span_all_three_segments() {
        let map = IbAddrMap::contiguous(10, 20, 200);
        let chunks: [_; 4] = {
            let mut it = map.chunks(5, 100);
            core::array::from_fn(|_| it.next())
        };
        assert_eq!(
            chunks,
            [
                Some(Ok(Chunk { segment: SegmentId::One, offset: 5, start: 0, len: 5 })),
                Some(Ok(Chunk { segment: SegmentId::ModelSwitch, offset: 0, start: 5, len: 20 })),
                Some(Ok(Chunk { segment: SegmentId::Core, offset: 0, start: 25, len: 75 })),
                None,
            ]
        );
    }

    #[test]
    fn read_after_write_returns_the_bytes() {
        let map = IbAddrMap::new(
            Segment::new(0x1000, 0x50),
            Segment::new(0x1050, 0x70),
            Segment::new(0x10C0, 0x100),
        );
        let (mut one, mut ms, mut core) = ([0u8; 0x50], [0u8; 0x70], [0u8; 0x100]);
        let mut dmem = SliceDmem::new(&mut one, &mut ms, &mut core);
        let stream = two_records();
        for offset in [0x1000, 0x1010, 0x1040, 0x1050, 0x10A0, 0x10C0] {
            write(&map, &mut dmem, offset, &stream).unwrap();
            let mut back = [0u8; 2 * RECORD_SIZE];
            read(&map, &mut dmem, offset, &mut back).unwrap();
            assert_eq!(back, stream, "offset {offset:#x}");
        }
    }

    #[test]
    fn an_unmapped_offset_is_an_error_and_moves_no_byte() {
        // A gap at 0x40..0x80 between `one` and `model_switch`.
        let map =
            IbAddrMap::new(Segment::new(0, 0x40), Segment::new(0x80, 0x40), Segment::new(0x100, 0));
        let (mut one, mut ms, mut core) = ([0u8; 0x40], [0u8; 0x40], [0u8; 0]);
        let mut dmem = Recording::new(SliceDmem::new(&mut one, &mut ms, &mut core));
        let stream = two_records();

        assert_eq!(
            write(&map, &mut dmem, 0x40, &stream),
            Err(AddressError::Unmapped { offset: 0x40 })
        );
        // Starts mapped, runs into the gap: still nothing is copied.
        assert_eq!(
            write(&map, &mut dmem, 0, &stream),
            Err(AddressError::Unmapped { offset: 0x40 })
        );
        let mut back = [0u8; RECORD_SIZE];
        assert_eq!(
            read(&map, &mut dmem, 0x90, &mut back),
            Err(AddressError::Unmapped { offset: 0xC0 })
        );
        assert_eq!(dmem.take(), [None; 8]);
        assert!(dmem.inner.segment(SegmentId::One).iter().all(|&b| b == 0));
    }

    #[test]
    fn size_0_is_a_no_op() {
        let map = IbAddrMap::default();
        let mut none: [[u8; 0]; 3] = [[]; 3];
        let [a, b, c] = &mut none;
        let mut dmem = Recording::new(SliceDmem::new(a, b, c));
        // Unmapped offset and empty buffers: size 0 returns before looking at either.
        assert_eq!(write(&map, &mut dmem, 0xDEAD, &[]), Ok(()));
        assert_eq!(read(&map, &mut dmem, u64::MAX, &mut []), Ok(()));
        assert_eq!(read_write(&map, &mut dmem, 7, Transfer::Write(&[1, 2, 3]), 0), Ok(()));
        assert_eq!(dmem.take(), [None; 8]);
        assert_eq!(map.chunks(0xDEAD, 0).next(), None);
    }

    #[test]
    fn a_short_buffer_is_an_error() {
        let map = IbAddrMap::contiguous(64, 64, 64);
        let (mut one, mut ms, mut core) = ([0u8; 64], [0u8; 64], [0u8; 64]);
        let mut dmem = Recording::new(SliceDmem::new(&mut one, &mut ms, &mut core));
        let mut buf = [0u8; 10];
        assert_eq!(
            read_write(&map, &mut dmem, 0, Transfer::Read(&mut buf), 64),
            Err(AddressError::BufferTooShort { needed: 64, len: 10 })
        );
        assert_eq!(
            read_write(&map, &mut dmem, 0, Transfer::Write(&buf), 11),
            Err(AddressError::BufferTooShort { needed: 11, len: 10 })
        );
        assert_eq!(dmem.take(), [None; 8]);
        // A longer buffer is fine: only `size` bytes move.
        assert_eq!(read_write(&map, &mut dmem, 60, Transfer::Write(&buf), 8), Ok(()));
        assert_eq!(
            dmem.take(),
            calls([
                Call { write: true, segment: SegmentId::One, offset: 60, len: 4 },
                Call { write: true, segment: SegmentId::ModelSwitch, offset: 0, len: 4 },
            ])
        );
    }

    #[test]
    fn device_memory_smaller_than_its_segment_is_an_error() {
        let map = IbAddrMap::contiguous(64, 0, 0);
        let (mut one, mut ms, mut core) = ([0u8; 32], [0u8; 0], [0u8; 0]);
        let mut dmem = SliceDmem::new(&mut one, &mut ms, &mut core);
        assert_eq!(
            write(&map, &mut dmem, 16, &[0u8; 32]),
            Err(AddressError::OutOfSegment { segment: SegmentId::One, offset: 16, len: 32 })
        );
    }

    #[test]
    fn a_range_past_the_end_of_the_address_space_is_an_error() {
        let map =
            IbAddrMap::new(Segment::new(u64::MAX - 9, 10), Segment::default(), Segment::default());
        let (mut one, mut ms, mut core) = ([0u8; 10], [0u8; 0], [0u8; 0]);
        let mut dmem = SliceDmem::new(&mut one, &mut ms, &mut core);
        // The last byte is at u64::MAX: fine.
        assert_eq!(write(&map, &mut dmem, u64::MAX - 9, &[7u8; 10]), Ok(()));
        assert_eq!(write(&map, &mut dmem, u64::MAX, &[7u8; 1]), Ok(()));
        assert_eq!(
            write(&map, &mut dmem, u64::MAX - 9, &[7u8; 11]),
            Err(AddressError::RangeOverflow { offset: u64::MAX - 9, size: 11 })
        );
    }
}
