//! `cargo xtask gen | check`: the spec's command line. All the work is in `codegen`.

// The options' doc comments are `--help` text (clap shows them as written), so their
// brackets (`git:REV[:DIR]`) are usage syntax, not rustdoc links.
#![allow(rustdoc::broken_intra_doc_links)]

mod diff;
mod export;
mod files;
mod gen;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Generate, check and diff the tpb-isa spec")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check isa/ and write the generated files (nothing is written if the spec has errors).
    Gen {
        /// The spec folder (default: isa/ of the workspace).
        #[arg(long)]
        spec: Option<PathBuf>,
    },
    /// Check isa/ and fail if any generated file is stale, missing or orphaned (writes nothing).
    Check {
        /// The spec folder (default: isa/ of the workspace).
        #[arg(long)]
        spec: Option<PathBuf>,
    },
    /// Compare two specs (folders or git:REV) or two archs of one spec; classes each change
    /// as breaking, additive or metadata for decoders.
    ///
    /// Exit status: 0 when the diff is printed (and --fail-on, if given, finds nothing of its
    /// class), 1 when --fail-on finds a change of its class or worse, 2 when there is no
    /// diff: a side that is neither a folder nor a revision, a spec with errors, an unknown
    /// arch, a bad argument.
    Diff(diff::DiffArgs),
    /// Write the whole checked model (after inheritance) as stable JSON.
    ///
    /// The format is `tpb-isa-model`, version 2 (its `format` and `version` keys); the
    /// schema is documented at `codegen::export` (codegen/src/diff/json.rs). Every
    /// object's keys are in sorted order, and the same model always gives the same text.
    Export(export::ExportArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = files::project_root().and_then(|root| match cli.command {
        Command::Gen { spec } => gen::gen(&root, spec.as_deref()),
        Command::Check { spec } => gen::check(&root, spec.as_deref()),
        // A diff that could not be made exits 2, apart from --fail-on's 1 (as diff(1)).
        Command::Diff(args) => Ok(diff::run(&root, args).unwrap_or_else(|e| {
            eprintln!("error: {e:#}");
            diff::NO_DIFF.into()
        })),
        Command::Export(args) => export::run(&root, args),
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
