//! The validator's per-field tables agree with the spec's value tests.

use tpb_isa::validate::enum_leaves;
use tpb_isa::{Arch, ArmKind};

/// For every enum-typed field of every arm on every generation, `EnumLeaf::holds` (a
/// bit table for byte-wide enums) answers as `EnumCheck::named` (the enum's own test)
/// for every value the field can hold up to 0x1FF.
#[test]
fn the_enum_tables_agree_with_the_named_tests() {
    let mut checked = 0usize;
    for &kind in ArmKind::ALL {
        for arch in Arch::ALL {
            for l in enum_leaves(kind, arch) {
                let top = if l.bits >= 9 { 0x200 } else { 1u64 << l.bits };
                for v in 0..top {
                    assert_eq!(
                        l.holds(arch, v),
                        (l.check.named)(arch, v),
                        "{} of {} on {arch}: {v:#x}",
                        l.name,
                        kind.name()
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} values checked");
}
