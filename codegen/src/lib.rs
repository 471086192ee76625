//! The tpb-isa generator: spec text → checked [`Model`] → generated files, and model diffs.
//!
//! The pipeline is pure: callers hand in [`Sources`] and get back a model, diagnostics or
//! file contents. Reading and writing files is the job of `xtask`.

pub mod diagnostic;
pub mod diff;
pub mod emit;
mod geometry_toml;
mod lower;
pub mod model;
pub mod placement;
pub mod provenance;
pub mod source;
mod spec_dir;
mod syntax;

pub use diagnostic::{Diagnostic, Diagnostics};
pub use diff::{diff, diff_archs, export, export_json, Change, Class, Diff};
pub use emit::{generate, OutputFile};
pub use model::Model;
pub use source::{FileId, SourceFile, Sources, Span};
pub use syntax::MAX_NESTING;

/// A spec that did not check: its diagnostics, and the sources to render them against.
#[derive(Debug)]
pub struct Failure {
    /// The files that were loaded.
    pub sources: Sources,
    /// Every problem found, sorted by position.
    pub diagnostics: Diagnostics,
}

impl Failure {
    /// rustc-style rendering with carets.
    pub fn render(&self) -> String {
        self.diagnostics.render(&self.sources)
    }

    /// One `path:line:col: message` line per problem.
    pub fn short(&self) -> String {
        self.diagnostics.short(&self.sources)
    }
}

/// Parse and check a spec: `.isa` files and `arch/*.toml` files, by path suffix.
///
/// Every check runs; all problems come back at once. Never panics on any input.
pub fn load(sources: Sources) -> Result<Model, Failure> {
    lower::lower(sources)
}

/// The one-file spec `text` loaded as `spec.isa`, for the unit tests of the rules that
/// run on a model (it panics with the rendered errors when the spec does not check).
#[cfg(test)]
pub(crate) fn load_str(text: &str) -> Model {
    let mut s = source::Sources::default();
    s.add("spec.isa", text);
    load(s).unwrap_or_else(|f| panic!("{}", f.render()))
}
