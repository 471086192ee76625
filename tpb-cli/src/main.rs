//! `tpb`: disassemble, assemble, validate and survey TPB instruction-record streams,
//! raw or inside NEFF executables, and show the spec's layouts and geometry. Everything
//! it knows about records comes from `tpb_isa` (through `records`), and about NEFFs from
//! `tpb_neff`.

/// `eprintln!` that never panics: a message that cannot be written (standard error on a
/// full disk, `2>/dev/full`) is lost, and the command's exit status still says how it
/// went (std's `eprintln!` panics, exit 101). Defined before the modules, so that it is
/// the one they use.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

mod cmd;
mod hex_text;
mod input;
mod json_doc;
mod listing;
mod output;
mod range;
mod records;
mod table;
mod text;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "tpb",
    version,
    about = "Disassemble, assemble and check AWS Neuron TPB instruction streams, raw or in NEFF files",
    after_help = "Exit status: 0 on success, 1 when `tpb validate` finds something, 2 on an error \
                  (an input that cannot be read, a line that does not assemble, a wrong argument).\n\n\
                  Environment:\n  TPB_READ_LIMIT  the most bytes read from one input or inflated from one NEFF \
                  (default 1073741824, 1 GiB); more is an error"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print every record: a NEFF per subgraph and engine (index, offset, hex, text),
    /// a raw stream as offset, hex and text.
    Disasm(cmd::disasm::Args),
    /// Assemble text (one record per line, `#` or `;` comments) into a raw stream.
    ///
    /// A raw `disasm` listing (with or without `--no-hex`) is read by its text column,
    /// so an edited listing assembles to the edit; so is a NEFF's listing, each stream
    /// in the generation its heading names: one stream's to FILE, several streams' to
    /// `-o DIR` as DIR/sg00/PE.bin and so on (where `tpb extract` writes them).
    Asm(cmd::asm::Args),
    /// Validate every record for a generation; for raw images also the EXIT scan and
    /// the final record.
    ///
    /// A record has at most one finding: the first rule it fails, in the validator's
    /// order (the opcode bitmask, the generation, then each enum field in layout order).
    #[command(
        after_help = "Exit status: 0 when nothing is found, 1 on any finding, 2 when the input \
                      cannot be read or an argument is wrong (an error is said on standard error)."
    )]
    Validate(cmd::validate::Args),
    /// The geometry of one generation, or of all side by side.
    Geometry(cmd::geometry::Args),
    /// The byte layout of an arm: an offset table and a byte diagram; without an arm, the
    /// generation's opcode map.
    Layout(cmd::layout::Args),
    /// Opcode histograms per generation and engine, and coverage against the spec.
    Stats(cmd::stats::Args),
    /// A NEFF's header, compiler, subgraphs, engine streams, other members and hash.
    Info(cmd::info::Args),
    /// Write a NEFF's engine streams as DIR/sgNN/Engine.bin, or (--all) every member,
    /// as `neuron-packager unpack` does.
    Extract(cmd::extract::Args),
}

impl Command {
    fn run(self, out: &mut dyn Write) -> Result<bool> {
        match self {
            Command::Disasm(a) => a.run(out),
            Command::Asm(a) => a.run(),
            Command::Validate(a) => a.run(out),
            Command::Geometry(a) => a.run(out),
            Command::Layout(a) => a.run(out),
            Command::Stats(a) => a.run(out),
            Command::Info(a) => a.run(out),
            Command::Extract(a) => a.run(out),
        }
    }
}

/// An error a command has already said in full on standard error (`tpb asm`'s lines):
/// it exits 2 as any error does, with nothing more said.
#[derive(Debug)]
struct Reported;

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the errors above")
    }
}

impl std::error::Error for Reported {}

/// Standard output, whose errors say what failed ("writing standard output: No space
/// left on device"), as every error naming a file does; the kind is kept, so a closed
/// pipe is still told apart. With `drain`, a closed pipe takes the rest unwritten, so
/// that a command whose exit status is its verdict (`tpb validate x | head`) runs to its
/// end and keeps it.
struct Stdout<W> {
    inner: W,
    drain: bool,
    closed: bool,
}

impl<W: Write> Stdout<W> {
    /// `op` on the inner writer, unless the pipe closed: then (draining) `done`.
    fn run<T>(&mut self, done: T, op: impl FnOnce(&mut W) -> io::Result<T>) -> io::Result<T> {
        if self.closed {
            return Ok(done);
        }
        match op(&mut self.inner) {
            Err(e) if self.drain && e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(done)
            }
            r => r.map_err(named),
        }
    }
}

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.run(buf.len(), |w| w.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.run((), Write::flush)
    }
}

fn named(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("writing standard output: {e}"))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help, the version, or a wrong argument; a help that cannot be written
        // (`tpb --help > /dev/full`) is an error too, not a success.
        Err(e) => {
            let printed = e.print();
            return match (e.use_stderr(), printed) {
                (false, Ok(())) => ExitCode::SUCCESS,
                (false, Err(w)) => {
                    eprintln!("error: writing standard output: {w}");
                    ExitCode::from(2)
                }
                (true, _) => ExitCode::from(2),
            };
        }
    };
    // 64 KiB a write: a listing of a NEFF is tens of megabytes, which the default 8 KiB
    // handed on in thousands of calls (0.5 ms of `tpb disasm`'s 19.6 on the large
    // corpus NEFF).
    let drain = matches!(cli.command, Command::Validate(_));
    let stdout = Stdout { inner: io::stdout().lock(), drain, closed: false };
    let mut out = BufWriter::with_capacity(64 << 10, stdout);
    let result = cli.command.run(&mut out);
    let result = match out.flush() {
        // A closed pipe is no error of its own (below): an error the command gave stands
        // (`tpb disasm missing.bin x.neff | head` said one input failed, and exits 2).
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe && result.is_err() => result,
        flushed => flushed.map_err(anyhow::Error::from).and(result),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        // A reader that stopped early (`tpb disasm x.neff | head`) is not an error; the
        // listing stops there. (`tpb validate` drains instead: its status is the verdict.)
        Err(e)
            if e.downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) if e.is::<Reported>() => ExitCode::from(2),
        // 2, as for a wrong argument (clap) and `cargo xtask diff`: a script tells "the
        // check found something" (1) from "the check did not run".
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
