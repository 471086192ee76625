//! One module per subcommand, each an `Args` (its clap arguments) with a `run` that
//! writes to the buffered standard output and returns whether there were no findings.

pub mod asm;
pub mod disasm;
pub mod extract;
pub mod geometry;
pub mod info;
pub mod layout;
pub mod stats;
pub mod validate;
