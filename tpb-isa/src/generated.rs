//! The modules `cargo xtask gen` writes from `isa/`. This file is hand-written; the
//! submodules are generated and never edited by hand (change the spec or the emitters).

#[rustfmt::skip]
pub mod arms;
#[rustfmt::skip]
pub mod disasm;
#[rustfmt::skip]
pub mod geometry;
#[rustfmt::skip]
pub mod inst;
#[rustfmt::skip]
pub mod layout;
#[rustfmt::skip]
pub mod opcode;
#[rustfmt::skip]
pub mod operand;
#[rustfmt::skip]
pub mod validate;

pub use arms::*;
pub use geometry::{Arch, Geometry, UnknownArch};
pub use inst::{
    binding_on, dispatch, dispatch_on, Binding, Inst, Preamble, Sentinel, SubByte, BINDINGS, EXIT,
    RECORD_SIZE, SENTINELS,
};
pub use layout::*;
pub use opcode::*;
pub use operand::*;
