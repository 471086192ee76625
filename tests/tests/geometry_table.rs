//! `GEOMETRY`, the table a tool lists every value from: what each generation shows.

use tpb_isa::generated::geometry::GEOMETRY;
use tpb_isa::Geometry;

fn shown(name: &str, g: Geometry) -> String {
    let row = GEOMETRY.iter().find(|r| r.name == name).unwrap();
    let mut s = String::new();
    (row.show)(g, &mut s).unwrap();
    s
}

/// `?` (not given for a generation the value is declared on) and `—` (declared only for
/// other generations, `@archs`) are the two marks of the reference table in `docs/isa.md`.
#[test]
fn a_value_given_only_for_other_generations_is_marked_apart() {
    // @archs(cayman..): the sources give BAR4 HBM offsets for V3/V4 only.
    assert_eq!(shown("bar4_hbm_offsets", Geometry::Sunda), "—");
    // @archs(mariana): only mariana's SDMA table is given.
    assert_eq!(shown("sdma_base", Geometry::Cayman), "—");
    // `u64?`: the sources give no V2 stack window.
    assert_eq!(shown("hbm_stack_window", Geometry::Sunda), "?");
    assert_eq!(
        shown("bar4_hbm_offsets", Geometry::Cayman),
        format!("{:?}", [0u64, 1 << 36, 2 << 36, 3 << 36])
    );
}
