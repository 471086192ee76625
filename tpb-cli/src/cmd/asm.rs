//! `tpb asm`: text to a raw stream; every line's error is reported, and nothing is
//! written unless all assemble.

use std::fs;
use std::path::PathBuf;

use anyhow::{Context, Result};
use tpb_isa::disasm;

use crate::records::{parse_arch, DEFAULT_ARCH, RECORD_SIZE};

#[derive(clap::Args)]
pub struct Args {
    /// The text.
    file: PathBuf,
    /// Where to write the records.
    #[arg(short, long)]
    output: PathBuf,
    /// The generation whose layouts the text is in (cayman when absent).
    #[arg(long)]
    arch: Option<String>,
}

impl Args {
    pub fn run(self) -> Result<bool> {
        let (file, output) = (&self.file, &self.output);
        let text =
            fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let mut bytes = Vec::new();
        let mut errors = 0;
        let arch = self.arch.as_deref().map(parse_arch).transpose()?.unwrap_or(DEFAULT_ARCH);
        for r in disasm::assemble(arch, &text) {
            match r {
                Ok(rec) => bytes.extend_from_slice(&rec),
                Err(e) => {
                    errors += 1;
                    let line = text.lines().nth(e.line - 1).unwrap_or("");
                    eprintln!("{}:{e}", file.display());
                    eprintln!("  | {line}");
                    eprintln!("  | {}^", " ".repeat(e.col - 1));
                }
            }
        }
        if errors > 0 {
            eprintln!("error: {errors} line(s) could not be assembled; nothing was written");
            return Ok(false);
        }
        fs::write(output, &bytes).with_context(|| format!("writing {}", output.display()))?;
        eprintln!(
            "wrote {} records ({} bytes) to {}",
            bytes.len() / RECORD_SIZE,
            bytes.len(),
            output.display()
        );
        Ok(true)
    }
}
