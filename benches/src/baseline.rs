//! The round's starting point, measured on this machine.
//!
//! The benchmark issue gives the text form's speed when it was filed as fixed figures
//! (0.7 M records/s printed, 0.6 M lines/s read), taken on a machine of its own; divided
//! into this machine's figures they measure the machine as much as the code. Here the
//! commit it measured ([`COMMIT`], the last before the round's first change) is taken
//! from the repository's history (`git archive`), a small driver is added to its bench
//! crate, and the driver is built and run on this machine: the text kernels of that
//! commit on its own streams (four bound arms and unknown opcodes, about 290 bytes of
//! text a record), timed as its bench report timed them (the disassembly formats
//! already decoded records, `write!(line, "{inst}")`; the assembly reads every line).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The commit the benchmark issue measured: the head of `main` before the round's first
/// change (`a53525f`), with the text kernels of `2b267c8`.
pub const COMMIT: &str = "b5f80e7faf6902ca88cddb7168f02431efd36a5d";

/// The driver added to that commit's bench crate: for each of its two orders, one timed
/// pass of its disassembly and one of its assembly, one line each.
const DRIVER: &str = r#"//! Added by the bench report's baseline: one sample of the text kernels per order.
use tpb_isa_benches as b;
fn main() {
    let records: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(b::RECORDS);
    for order in b::Order::ALL {
        let bytes = b::make_stream(order, records);
        let insts = b::gen_decoded(&bytes);
        let text = b::gen_text(&insts);
        let t = std::time::Instant::now();
        let printed = std::hint::black_box(b::gen_disasm(std::hint::black_box(&insts)));
        let disasm = t.elapsed();
        let t = std::time::Instant::now();
        std::hint::black_box(b::gen_asm(std::hint::black_box(&text)));
        let asm = t.elapsed();
        println!("{} {} {} {} {} {}", order.name(), insts.len(), printed, text.len(), disasm.as_nanos(), asm.as_nanos());
    }
}
"#;

/// The driver's name in that commit's `benches/src/bin`.
const DRIVER_NAME: &str = "baseline-text";

/// One sample of the baseline's text kernels on one of its streams.
#[derive(Clone, Debug)]
pub struct Sample {
    /// `random` or `runs`.
    pub order: String,
    /// Records in the stream.
    pub records: usize,
    /// Bytes of text the disassembly printed (its lines, without line ends).
    pub printed: usize,
    /// Bytes of the text the assembly read (lines and line ends).
    pub text: usize,
    /// One pass of the disassembly.
    pub disasm: Duration,
    /// One pass of the assembly.
    pub asm: Duration,
}

/// Extract [`COMMIT`] from the history of the repository at `root` into `dir/src` (once:
/// an extracted tree with this driver is reused), add the driver, and build it into
/// `dir/target`; the driver's path.
///
/// # Errors
///
/// What fails, in words: `git` missing, the commit missing from the history (a shallow
/// clone), the extraction, or the build (its first error line).
pub fn build(root: &Path, dir: &Path) -> Result<PathBuf, String> {
    let src = dir.join("src");
    let driver = src.join("benches/src/bin").join(format!("{DRIVER_NAME}.rs"));
    if std::fs::read_to_string(&driver).ok().as_deref() != Some(DRIVER) {
        let _ = std::fs::remove_dir_all(&src);
        std::fs::create_dir_all(&src).map_err(|e| format!("{}: {e}", src.display()))?;
        let out = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["archive", "--format=tar", COMMIT])
            .output()
            .map_err(|e| format!("git: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "git archive {COMMIT} failed ({}); the baseline needs the repository's full \
                 history (in a shallow clone: git fetch --unshallow)",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        tar::Archive::new(out.stdout.as_slice())
            .unpack(&src)
            .map_err(|e| format!("extracting {COMMIT}: {e}"))?;
        std::fs::write(&driver, DRIVER).map_err(|e| format!("{}: {e}", driver.display()))?;
    }
    let target = dir.join("target");
    let out = Command::new(env!("CARGO"))
        .current_dir(&src)
        .args(["build", "--quiet", "--release", "-p", "tpb-isa-benches", "--bin", DRIVER_NAME])
        .arg("--target-dir")
        .arg(&target)
        .output()
        .map_err(|e| format!("cargo: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err.lines().find(|l| l.starts_with("error")).unwrap_or("");
        return Err(format!("building {COMMIT}: {first}"));
    }
    Ok(target.join("release").join(DRIVER_NAME))
}

/// Run the driver once on streams of `records` records: one sample per order.
///
/// # Errors
///
/// The driver failing to run or to exit cleanly, or a line it printed that does not
/// parse.
pub fn run(driver: &Path, records: usize) -> Result<Vec<Sample>, String> {
    let out = Command::new(driver)
        .arg(records.to_string())
        .output()
        .map_err(|e| format!("{}: {e}", driver.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            driver.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8_lossy(&out.stdout).lines().map(parse).collect()
}

/// One line of the driver: order, records, printed bytes, text bytes, disassembly and
/// assembly nanoseconds.
fn parse(line: &str) -> Result<Sample, String> {
    let w: Vec<&str> = line.split_whitespace().collect();
    let num = |i: usize| -> Result<u64, String> {
        w.get(i).and_then(|x| x.parse().ok()).ok_or_else(|| format!("driver line {line:?}"))
    };
    if w.len() != 6 {
        return Err(format!("driver line {line:?}"));
    }
    Ok(Sample {
        order: w[0].to_owned(),
        records: num(1)? as usize,
        printed: num(2)? as usize,
        text: num(3)? as usize,
        disasm: Duration::from_nanos(num(4)?),
        asm: Duration::from_nanos(num(5)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_driver_line_parses_and_a_short_or_bad_one_is_an_error() {
        let s = parse("random 1048576 305662976 306711552 782000000 2100000000").unwrap();
        assert_eq!((s.order.as_str(), s.records, s.printed), ("random", 1_048_576, 305_662_976));
        assert_eq!(s.text, 306_711_552);
        assert_eq!((s.disasm.as_millis(), s.asm.as_millis()), (782, 2100));
        assert!(parse("random 1 2 3 4").is_err());
        assert!(parse("random 1 2 3 4 x").is_err());
    }

    /// The commit is in the history of a full clone (CI's), and holds what the driver
    /// calls.
    #[test]
    fn the_commit_is_in_the_history_and_has_the_kernels_the_driver_calls() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let show = |path: &str| {
            Command::new("git")
                .arg("-C")
                .arg(&root)
                .args(["show", &format!("{COMMIT}:{path}")])
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        };
        let Some(lib) = show("benches/src/lib.rs") else {
            // A copy without history (an exported tree) cannot build the baseline; the
            // report says so when asked.
            eprintln!("no git history here: skipped");
            return;
        };
        for f in [
            "pub fn make_stream(",
            "pub fn gen_decoded(",
            "pub fn gen_text(",
            "pub fn gen_disasm(",
            "pub fn gen_asm(",
            "pub const RECORDS",
        ] {
            assert!(lib.contains(f), "{COMMIT}'s bench crate lacks {f}");
        }
    }
}
