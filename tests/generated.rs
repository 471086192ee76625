//! The one generic checker of the tables `cargo xtask gen` writes from the spec
//! (`codegen/src/emit/tests.rs` → `tests/generated/*.rs`). This file is hand-written;
//! the table modules are generated and never edited.
//!
//! A table row names the generated items it exercises and what the model expects of
//! them (a field's byte range, a bit-field's bit range, a rule's result). The checks
//! below run every row on deterministic pseudo-random records and report every
//! mismatch before failing.

use tpb_isa::{Arch, ArmKind, GeometryError, RECORD_SIZE};

type Rec = [u8; RECORD_SIZE];

/// One field of one layout: its byte range in the model, and two probes through the
/// generated owned struct and view.
pub(crate) struct FieldCase {
    name: &'static str,
    offset: usize,
    size: usize,
    /// Whether the owned struct's field equals the view's accessor on a record.
    agrees: fn(&Rec) -> bool,
    /// `a` with this field set, through the owned struct, to its value in `b`.
    transfer: fn(&Rec, &Rec) -> Rec,
}

/// One layout of one arm.
pub(crate) struct LayoutCase {
    kind: ArmKind,
    name: &'static str,
    /// The generations the model says the layout holds on.
    archs: &'static [Arch],
    /// Round trip, view and `Arm`/`Inst` decoding of a record on a generation.
    check: fn(Arch, &Rec) -> Result<(), &'static str>,
    fields: &'static [FieldCase],
}

/// One bit-field of an operand type.
pub(crate) struct BitCase {
    name: &'static str,
    lo: u32,
    hi: u32,
    /// `a` with this bit-field set, through `with_x`, to its value in `b`.
    transfer: fn(u64, u64) -> u64,
}

/// One operand type with bit-fields.
pub(crate) struct BitsCase {
    name: &'static str,
    width: u32,
    fields: &'static [BitCase],
}

/// One view of a union.
pub(crate) struct ViewCase {
    name: &'static str,
    /// The generations the view exists on.
    archs: &'static [Arch],
    /// `when byte N & MASK == VALUE`, as `(N, MASK, VALUE)`.
    test: Option<(usize, u8, u8)>,
    /// Whether the view is the `otherwise` view.
    otherwise: bool,
    /// Whether the view read from bytes writes them back unchanged.
    round_trip: fn(&[u8]) -> bool,
}

/// One union.
pub(crate) struct UnionCase {
    name: &'static str,
    size: usize,
    /// The index of the view `view(arch)` returns for some bytes.
    chosen: fn(Arch, &[u8]) -> usize,
    views: &'static [ViewCase],
}

/// One rule call and the result the model computes for it.
pub(crate) struct RuleCase {
    call: &'static str,
    got: Result<u32, GeometryError>,
    want: Result<u32, GeometryError>,
}

/// A field row: `field!(LayoutType, LayoutView, field, offset, size)`.
macro_rules! field {
    ($ty:ident, $view:ident, $f:ident, $off:literal, $size:literal) => {
        $crate::FieldCase {
            name: stringify!($f),
            offset: $off,
            size: $size,
            agrees: |b| $ty::decode(b).$f == $view(b).$f(),
            transfer: |a, b| {
                let mut x = $ty::decode(a);
                x.$f = $ty::decode(b).$f;
                x.encode()
            },
        }
    };
}

/// A layout check: `layout!(ArmType, wrap, LayoutType, LayoutView)`, where `wrap` turns
/// the layout into the arm's type (`ArmType::from` for an arm with one layout, the
/// generation's variant otherwise).
macro_rules! layout {
    ($arm:ident, $wrap:path, $ty:ident, $view:ident) => {
        |arch, b| {
            let x = $ty::decode(b);
            if x.encode() != *b {
                return Err("encode(decode(b)) is not b");
            }
            if $view(b).decode() != x {
                return Err("the view decodes to another value than decode");
            }
            let arm: $arm = $wrap(x);
            if <$arm as tpb_isa::Arm>::decode(arch, b) != arm {
                return Err("Arm::decode on this generation does not give this layout");
            }
            if <$arm as tpb_isa::Arm>::encode(&arm) != *b {
                return Err("Arm::encode is not the layout's encode");
            }
            let inst = tpb_isa::Inst::decode_as(ArmKind::$arm, arch, b);
            if inst != tpb_isa::Arm::into_inst(arm) || inst.kind() != Some(ArmKind::$arm) {
                return Err("Inst::decode_as does not give this layout");
            }
            if inst.encode() != *b {
                return Err("Inst::encode is not the layout's encode");
            }
            Ok(())
        }
    };
}

/// A bit-field row: `bit!(Type, getter, with_setter, lo, hi)`.
macro_rules! bit {
    ($ty:ident, $get:ident, $with:ident, $lo:literal, $hi:literal) => {
        $crate::BitCase {
            name: stringify!($get),
            lo: $lo,
            hi: $hi,
            transfer: |a, b| $ty::new(a as _).$with($ty::new(b as _).$get()).bits() as u64,
        }
    };
}

/// A view round trip: `view!(Union, getter, from_getter)`.
macro_rules! view {
    ($u:ident, $get:ident, $from:ident) => {
        |b| $u::$from($u(b.try_into().unwrap()).$get()).0[..] == *b
    };
}

/// Which view `view(arch)` chose, as its index: `chosen!(Union, UnionView, [Variants])`.
macro_rules! chosen {
    ($u:ident, $uv:ident, [$($v:ident),*]) => {
        |arch, b| {
            let x = $u(b.try_into().unwrap()).view(arch);
            [$(matches!(x, $uv::$v(_))),*].iter().position(|&m| m).expect("one view")
        }
    };
}

#[rustfmt::skip]
#[path = "generated/arms.rs"]
mod arms;
#[rustfmt::skip]
#[path = "generated/bits.rs"]
mod bits;
#[rustfmt::skip]
#[path = "generated/rules.rs"]
mod rules;
#[rustfmt::skip]
#[path = "generated/unions.rs"]
mod unions;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn record(&mut self) -> Rec {
        let mut r = [0u8; RECORD_SIZE];
        for c in r.chunks_mut(8) {
            c.copy_from_slice(&self.next().to_le_bytes()[..c.len()]);
        }
        r
    }
}

/// Records every layout is checked on: all zeros, all ones, and pseudo-random ones.
fn records(seed: u64) -> Vec<Rec> {
    let mut rng = Rng(seed);
    let mut v = vec![[0u8; RECORD_SIZE], [0xFF; RECORD_SIZE]];
    v.extend((0..16).map(|_| rng.record()));
    v
}

fn fail_all(what: &str, errors: Vec<String>) {
    assert!(errors.is_empty(), "{} {what}:\n{}", errors.len(), errors.join("\n"));
}

#[test]
fn every_layout_round_trips_and_agrees_with_its_view_and_inst() {
    let mut errors = Vec::new();
    let recs = records(1);
    for l in arms::ARMS {
        for &arch in l.archs {
            for b in &recs {
                if let Err(e) = (l.check)(arch, b) {
                    errors.push(format!("{} on {arch}: {e}", l.name));
                    break;
                }
            }
        }
    }
    fail_all("layout checks failed", errors);
}

#[test]
fn every_field_is_at_its_byte_range() {
    let mut errors = Vec::new();
    let mut rng = Rng(2);
    for l in arms::ARMS {
        // The model's fields tile the record: one reading of every byte.
        let mut next = 0;
        for f in l.fields {
            if f.offset != next {
                errors.push(format!("{}.{} starts at {}, not {next}", l.name, f.name, f.offset));
            }
            next = f.offset + f.size;
        }
        if next != RECORD_SIZE {
            errors.push(format!("{}: fields end at {next}", l.name));
        }
        let pairs: Vec<(Rec, Rec)> = (0..8)
            .map(|_| {
                let a = rng.record();
                // `b` differs from `a` in every byte, so every byte a field moves shows.
                let mut b = a;
                for x in &mut b {
                    *x ^= (rng.next() as u8) | 1;
                }
                (a, b)
            })
            .collect();
        for f in l.fields {
            let range = f.offset..f.offset + f.size;
            for (a, b) in &pairs {
                let mut want = *a;
                want[range.clone()].copy_from_slice(&b[range.clone()]);
                if (f.transfer)(a, b) != want {
                    errors.push(format!(
                        "{}.{}: setting it moved other bytes than {range:?}",
                        l.name, f.name
                    ));
                    break;
                }
                if !(f.agrees)(a) || !(f.agrees)(b) {
                    errors.push(format!("{}.{}: owned field and view disagree", l.name, f.name));
                    break;
                }
            }
        }
    }
    fail_all("field checks failed", errors);
}

#[test]
fn every_arm_has_one_layout_per_generation_it_exists_on() {
    let mut errors = Vec::new();
    for &kind in ArmKind::ALL {
        let layouts: Vec<_> = arms::ARMS.iter().filter(|l| l.kind == kind).collect();
        if layouts.is_empty() {
            errors.push(format!("{}: no layout row", kind.name()));
        }
        if kind.is_per_generation() != (layouts.len() > 1) {
            errors.push(format!("{}: is_per_generation disagrees with its layouts", kind.name()));
        }
        for &arch in Arch::ALL {
            let n = layouts.iter().filter(|l| l.archs.contains(&arch)).count();
            if kind.available_on(arch) && n != 1 {
                errors.push(format!("{} on {arch}: {n} layouts", kind.name()));
            }
        }
    }
    fail_all("arm checks failed", errors);
}

#[test]
fn every_bit_field_is_at_its_bit_range() {
    let mut errors = Vec::new();
    let mut rng = Rng(3);
    for t in bits::BITS {
        let width = if t.width == 64 { u64::MAX } else { (1u64 << t.width) - 1 };
        for f in t.fields {
            if !(f.lo < f.hi && f.hi <= t.width) {
                errors.push(format!(
                    "{}.{}: bits {}..{} outside the type",
                    t.name, f.name, f.lo, f.hi
                ));
                continue;
            }
            let ones = if f.hi - f.lo == 64 { u64::MAX } else { (1u64 << (f.hi - f.lo)) - 1 };
            let mask = ones << f.lo;
            for _ in 0..16 {
                let (a, b) = (rng.next() & width, rng.next() & width);
                let want = (a & !mask) | (b & mask);
                let got = (f.transfer)(a, b);
                if got != want {
                    errors.push(format!(
                        "{}.{}: with_ on {a:#x} from {b:#x} gives {got:#x}, want {want:#x} (bits {}..{})",
                        t.name, f.name, f.lo, f.hi
                    ));
                    break;
                }
            }
        }
    }
    fail_all("bit-field checks failed", errors);
}

/// The view the spec chooses on `arch` (isa/README.md, "Unions"): among the views that
/// exist on it, the first in spec order whose test holds, else the `otherwise` view,
/// else the first view without a test, else the first.
fn spec_choice(u: &UnionCase, arch: Arch, b: &[u8]) -> Option<usize> {
    let on: Vec<usize> = (0..u.views.len()).filter(|&i| u.views[i].archs.contains(&arch)).collect();
    let holds = |i: &usize| u.views[*i].test.is_some_and(|(o, m, v)| b[o] & m == v);
    on.iter()
        .copied()
        .find(holds)
        .or_else(|| on.iter().copied().find(|&i| u.views[i].otherwise))
        .or_else(|| on.iter().copied().find(|&i| u.views[i].test.is_none()))
        .or_else(|| on.first().copied())
}

#[test]
fn every_union_view_round_trips_and_the_spec_chooses_the_view() {
    let mut errors = Vec::new();
    let mut rng = Rng(4);
    for u in unions::UNIONS {
        let mut inputs: Vec<Vec<u8>> = vec![vec![0; u.size], vec![0xFF; u.size]];
        for _ in 0..16 {
            let r = rng.record();
            inputs.push(r[..u.size].to_vec());
        }
        // Bytes that pass each view's test, so every test is taken.
        for v in u.views {
            if let Some((o, m, x)) = v.test {
                for _ in 0..4 {
                    let mut r = rng.record()[..u.size].to_vec();
                    r[o] = (r[o] & !m) | x;
                    inputs.push(r);
                }
            }
        }
        for b in &inputs {
            for v in u.views {
                if !(v.round_trip)(b) {
                    errors.push(format!("{}.{}: does not round-trip {b:02x?}", u.name, v.name));
                }
            }
            for &arch in Arch::ALL {
                let Some(want) = spec_choice(u, arch, b) else { continue };
                let got = (u.chosen)(arch, b);
                if got != want {
                    errors.push(format!(
                        "{} on {arch}: view() gives {}, the spec chooses {} for {b:02x?}",
                        u.name, u.views[got].name, u.views[want].name
                    ));
                }
            }
        }
    }
    errors.dedup();
    fail_all("union checks failed", errors);
}

#[test]
fn every_rule_gives_the_model_result() {
    let errors = rules::RULES
        .iter()
        .filter(|r| r.got != r.want)
        .map(|r| format!("{}: got {:?}, want {:?}", r.call, r.got, r.want))
        .collect();
    fail_all("rule results differ", errors);
}
