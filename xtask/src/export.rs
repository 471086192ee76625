//! `export`: the whole checked model, after inheritance, as stable JSON for tools in
//! other languages (format `tpb-isa-model`, version 2; schema in the doc of the function `codegen::export`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::diff::{default_spec, load, stdout};
use crate::files::write_output;

/// `cargo xtask export [--json] [--spec SIDE] [-o FILE]`.
#[derive(clap::Args)]
pub struct ExportArgs {
    /// Write JSON (the default and only format today; accepted so that scripts can say so).
    #[arg(long)]
    json: bool,
    /// The spec: a folder or git:REV[:DIR] (default: isa/ of the workspace).
    #[arg(long, value_name = "SIDE")]
    spec: Option<String>,
    /// Write to FILE instead of stdout (a file is replaced whole; a device such as
    /// /dev/null is written in place).
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub fn run(root: &Path, args: ExportArgs) -> Result<ExitCode> {
    let _json_is_the_format = args.json;
    let spec = args.spec.clone().unwrap_or_else(|| default_spec(root));
    let Some(model) = load(root, &spec, None)? else { return Ok(ExitCode::FAILURE) };
    let text = codegen::export_json(&model);
    match &args.output {
        Some(path) => {
            write_output(path, &text)?;
            eprintln!("wrote {}", path.display());
        }
        None => stdout(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}
