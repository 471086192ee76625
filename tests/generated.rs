//! The tests `cargo xtask gen` writes from the spec (`codegen/src/emit/tests.rs`). This
//! file is hand-written; the submodules under `generated/` are generated and never edited.

#[rustfmt::skip]
#[path = "generated/bits.rs"]
mod bits;
#[rustfmt::skip]
#[path = "generated/dispatch.rs"]
mod dispatch;
#[rustfmt::skip]
#[path = "generated/geometry.rs"]
mod geometry;
#[rustfmt::skip]
#[path = "generated/pins.rs"]
mod pins;
#[rustfmt::skip]
#[path = "generated/roundtrip.rs"]
mod roundtrip;
