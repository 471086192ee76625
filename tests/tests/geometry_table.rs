//! `GEOMETRY`, the table a tool lists every value from: what each generation shows.

use tpb_isa::generated::geometry::GEOMETRY;
use tpb_isa::Geometry;

fn shown(name: &str, g: Geometry) -> String {
    let row = GEOMETRY.iter().find(|r| r.name == name).unwrap();
    let mut s = String::new();
    (row.show)(g, &mut s).unwrap();
    s
}

/// `?` (the sources do not give it) and `—` (the generation has no such value) are
/// different answers, as in the reference table of `docs/isa.md`.
#[test]
fn a_value_a_generation_does_not_have_is_not_shown_as_unknown() {
    // @archs(cayman..): sunda has no BAR4 HBM offsets at all.
    assert_eq!(shown("bar4_hbm_offsets", Geometry::Sunda), "—");
    // @archs(mariana): neither has cayman the mariana SDMA table.
    assert_eq!(shown("sdma_base", Geometry::Cayman), "—");
    // `u64?`: the sources give no V2 stack window.
    assert_eq!(shown("hbm_stack_window", Geometry::Sunda), "?");
    assert_eq!(
        shown("bar4_hbm_offsets", Geometry::Cayman),
        format!("{:?}", [0u64, 1 << 36, 2 << 36, 3 << 36])
    );
}
