//! `Inst::preamble`: the record's preamble (header, events) read from any instruction
//! agrees, on every arm and generation, with the bytes where the preamble sits, and is
//! `None` exactly where the layout's own leaves (the text form's table, built from the
//! spec apart from the getters) give those bytes another meaning.
//!
//! Generic over `ArmKind::ALL` and `Arch::ALL`: an arm added to the spec is covered with
//! no change here.

use proptest::prelude::*;
use tpb_isa::disasm::desc::ArmText;
use tpb_isa::layout::{Events, Header};
use tpb_isa::{Arch, ArmKind, Inst, RECORD_SIZE};

/// Whether the layout of `kind` on `arch` has every leaf of the record's preamble
/// member `member` (`header.inst_word_len` at +1, …), as a layout that inherits the whole
/// preamble lists them: an arm's own field of that name (CTRL_CCI's 4-byte header) has
/// other leaves.
fn keeps(kind: ArmKind, arch: Arch, member: &str) -> bool {
    let prefix = format!("{member}.");
    let whole = ArmKind::ALL
        .iter()
        .flat_map(|&k| ArmText::of(k).layouts)
        .find(|l| !l.preamble.is_empty())
        .expect("a layout inherits the whole preamble");
    let mut of_member = whole.preamble.iter().filter(|f| f.name.starts_with(&prefix)).peekable();
    assert!(of_member.peek().is_some(), "the preamble has leaves of {member}");
    let layout = ArmText::of(kind).layout(arch);
    of_member.all(|m| layout.leaves().any(|f| f.name == m.name && f.range() == m.range()))
}

fn check(arch: Arch, kind: Option<ArmKind>, inst: &Inst, r: &[u8; RECORD_SIZE]) {
    let header = Header::decode(r[0..4].try_into().unwrap());
    let events = Events::decode(r[4..12].try_into().unwrap());
    let (want_header, want_events) = match kind {
        Some(k) => (keeps(k, arch, "header"), keeps(k, arch, "events")),
        // Kept verbatim: read from the bytes.
        None => (true, true),
    };
    assert_eq!(inst.preamble().header, want_header.then_some(header), "{kind:?} on {arch}");
    assert_eq!(inst.preamble().events, want_events.then_some(events), "{kind:?} on {arch}");
}

/// Every arm on every generation, its own layout there: the getters read the preamble's
/// bytes where the layout keeps them.
#[test]
fn every_arm_on_every_generation_keeps_what_its_layout_says() {
    let mut r = [0u8; RECORD_SIZE];
    for (i, b) in r.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37) ^ 0x5a;
    }
    let (mut with, mut without) = (0, 0);
    for &arch in Arch::ALL {
        for &kind in ArmKind::ALL {
            let inst = Inst::decode_as(kind, arch, &r);
            check(arch, Some(kind), &inst, &r);
            if inst.preamble().events.is_some() {
                with += 1;
            } else {
                without += 1;
            }
        }
    }
    // Most layouts keep the whole preamble; a few (DMA_COPY2D, CTRL_CCI, …) do not.
    assert!(with > 10 * without && without > 0, "{with} with events, {without} without");
}

proptest! {
    /// Any record, decoded as the bindings select on any generation.
    #[test]
    fn any_record_reads_its_preamble_where_its_layout_keeps_it(
        bytes in proptest::collection::vec(any::<u8>(), RECORD_SIZE),
        op in any::<u8>(),
        arch in proptest::sample::select(Arch::ALL.to_vec()),
    ) {
        let mut r = <[u8; RECORD_SIZE]>::try_from(bytes).unwrap();
        r[0] = op;
        let inst = Inst::decode(arch, &r);
        check(arch, inst.kind(), &inst, &r);
    }
}

/// With `serde`, the preamble dumps as its members, `null` where the layout keeps none.
#[test]
fn the_preamble_dumps_as_its_members() {
    let mut r = [0u8; RECORD_SIZE];
    r[4] = 0x01; // events.wait_mode
    r[8] = 7; // events.semaphore_value
    for &kind in ArmKind::ALL {
        let p = Inst::decode_as(kind, Arch::Mariana, &r).preamble();
        let json = serde_json::to_value(p).unwrap();
        let events = &json["events"];
        match p.events {
            Some(e) => {
                assert_eq!(events["semaphore_value"], 7, "{kind:?}: {json}");
                assert_eq!(serde_json::from_value::<Events>(events.clone()).unwrap(), e);
            }
            None => assert!(events.is_null(), "{kind:?}: {json}"),
        }
        assert!(json.get("header").is_some(), "{kind:?}: {json}");
    }
}
