//! What `tpb-neff`'s docs promise of its names in the ISA crate: every engine's token in
//! upper case is a `TpbEngType`, every target's generation an `Arch`.

use tpb_isa::{Arch, TpbEngType};
use tpb_neff::{Engine, Target};

#[test]
fn every_engine_token_names_an_isa_engine() {
    let types: Vec<TpbEngType> = Engine::ALL
        .iter()
        .map(|e| TpbEngType::from_name(&e.token().to_ascii_uppercase()).expect("an ISA engine"))
        .collect();
    let mut names: Vec<&str> = types.iter().map(|t| t.name().unwrap_or("?")).collect();
    names.dedup();
    assert_eq!(names, ["PE", "ACT", "POOL", "DVE", "SP"]);
}

#[test]
fn every_target_generation_is_an_arch() {
    for (t, want) in [("sunda", Arch::Sunda), ("cayman", Arch::Cayman), ("mariana", Arch::Mariana)]
    {
        let name = Target::parse(t).arch().expect("a generation");
        assert_eq!(Arch::from_name(name), Some(want));
    }
    assert_eq!(Target::parse("*").arch(), None);
}
