//! `diff`: compare two specs (folders or `git:REV`) or two archs of one spec, and report
//! each change classed by what it breaks for decoders.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};
use codegen::{Class, Model, Sources};

use crate::files::{is_checkout, load_spec};

/// `cargo xtask diff OLD NEW` | `cargo xtask diff --arch A B [SPEC]`.
#[derive(clap::Args)]
pub struct DiffArgs {
    /// OLD and NEW, each a spec folder or `git:REV[:DIR]` (read through git, no checkout;
    /// DIR defaults to isa). Defaults: OLD = git:HEAD, NEW = isa/ of the workspace.
    /// With --arch: at most one, the spec (default isa/ of the workspace).
    #[arg(value_name = "SIDE")]
    sides: Vec<String>,
    /// Compare two archs of one spec after inheritance (names, labels or aliases).
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    arch: Option<Vec<String>>,
    /// Print the diff as JSON (format `tpb-isa-diff`, version 2; schema in the module doc of `codegen::diff`).
    #[arg(long)]
    json: bool,
    /// Exit with status 1 when a change of this class or a worse one exists
    /// (breaking > additive > metadata).
    #[arg(long, value_enum, value_name = "CLASS")]
    fail_on: Option<FailOn>,
}

/// The class `--fail-on` gates on.
#[derive(Clone, Copy, clap::ValueEnum)]
enum FailOn {
    /// Fail on breaking changes.
    Breaking,
    /// Fail on additive or breaking changes.
    Additive,
    /// Fail on any change.
    Metadata,
}

impl FailOn {
    fn class(self) -> Class {
        match self {
            FailOn::Breaking => Class::Breaking,
            FailOn::Additive => Class::Additive,
            FailOn::Metadata => Class::Metadata,
        }
    }
}

/// The exit status when no diff could be made (a side unreadable or with spec errors);
/// `--fail-on` exits 1, so that a gate tells "changes found" from "could not compare".
pub const NO_DIFF: u8 = 2;

pub fn run(root: &Path, args: DiffArgs) -> Result<ExitCode> {
    let diff = match &args.arch {
        Some(names) => {
            if args.sides.len() > 1 {
                bail!(
                    "--arch A B takes at most one spec (a folder or git:REV), got {}",
                    args.sides.len()
                );
            }
            let spec = args.sides.first().cloned().unwrap_or_else(|| default_spec(root));
            let Some(model) = load(root, &spec, None)? else { return Ok(NO_DIFF.into()) };
            let a = arch(&model, &names[0])?;
            let b = arch(&model, &names[1])?;
            codegen::diff_archs(&model, a, b)
        }
        None => {
            let (old, new) = match args.sides.as_slice() {
                [] => ("git:HEAD".to_string(), default_spec(root)),
                [old] => (old.clone(), default_spec(root)),
                [old, new] => (old.clone(), new.clone()),
                more => bail!("diff takes OLD and NEW, got {} sides", more.len()),
            };
            // Both sides are read, so that one run reports the problems of both: spec
            // errors (printed by `load`) and sides that could not be read at all.
            let (o, n) = (load(root, &old, Some("old")), load(root, &new, Some("new")));
            let (Ok(Some(o)), Ok(Some(n))) = (&o, &n) else {
                for e in [o.err(), n.err()].into_iter().flatten() {
                    eprintln!("error: {e:#}");
                }
                return Ok(NO_DIFF.into());
            };
            let mut d = codegen::diff(o, n);
            d.old = label(root, &old);
            d.new = label(root, &new);
            d
        }
    };
    if args.json {
        stdout(&diff.to_json())?;
    } else {
        let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        stdout(&diff.render(color))?;
    }
    if let Some(f) = args.fail_on {
        let c = f.class();
        if diff.fails_on(c) {
            let n = diff.changes.iter().filter(|x| x.class >= c).count();
            let what = match f {
                FailOn::Breaking => "breaking ",
                FailOn::Additive => "additive or breaking ",
                FailOn::Metadata => "",
            };
            eprintln!(
                "error: {n} {what}change{} (--fail-on {})",
                if n == 1 { "" } else { "s" },
                class_name(c)
            );
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Print to stdout; a closed pipe (`| head`) is not an error.
pub fn stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e).context("writing to stdout"),
        _ => Ok(()),
    }
}

/// isa/ of the workspace, whatever the current directory.
pub fn default_spec(root: &Path) -> String {
    root.join("isa").to_string_lossy().into_owned()
}

/// A side as output names it: a folder inside the workspace relative to it (the
/// workspace itself as `.`).
fn label(root: &Path, side: &str) -> String {
    match Path::new(side).strip_prefix(root) {
        Ok(p) if p.as_os_str().is_empty() => ".".to_string(),
        Ok(p) => p.to_string_lossy().replace('\\', "/"),
        Err(_) => side.to_string(),
    }
}

fn class_name(c: Class) -> &'static str {
    match c {
        Class::Breaking => "breaking",
        Class::Additive => "additive",
        Class::Metadata => "metadata",
    }
}

fn arch(model: &Model, name: &str) -> Result<codegen::model::ArchId> {
    match model.arch_named(name) {
        Some(a) => Ok(a),
        None => {
            let names: Vec<&str> = model.archs.iter().map(|a| a.name.as_str()).collect();
            bail!("unknown arch '{name}'; the archs are: {}", names.join(", "))
        }
    }
}

/// Load and check one side; on spec errors print them (naming the side, and its `role`,
/// `old` or `new`, in a diff) and return `None`.
pub fn load(root: &Path, side: &str, role: Option<&str>) -> Result<Option<Model>> {
    let shown = label(root, side);
    let name = match role {
        Some(r) => format!("the {r} spec {shown}"),
        None => format!("the spec {shown}"),
    };
    let sources = sources(root, side).with_context(|| name.clone())?;
    match codegen::load(sources) {
        Ok(m) => Ok(Some(m)),
        Err(f) => {
            eprintln!("error: {name} does not check");
            eprint!("{}", f.render());
            Ok(None)
        }
    }
}

/// The files of one side: `git:REV[:DIR]` through git, anything else a folder. A
/// relative folder is taken from the current directory, like any command-line path.
/// An error does not repeat the side: [`load`] names it.
pub fn sources(root: &Path, side: &str) -> Result<Sources> {
    if let Some(rest) = side.strip_prefix("git:") {
        let (rev, dir) = match rest.split_once(':') {
            Some((rev, dir)) => (rev, dir.trim_end_matches('/')),
            None => (rest, "isa"),
        };
        if rev.is_empty() {
            bail!("no revision named; write git:REV, e.g. git:HEAD or git:origin/main");
        }
        let cwd = std::env::current_dir().context("reading the current directory")?;
        return git_sources(&cwd, rev, dir);
    }
    let path = PathBuf::from(side);
    if !path.is_dir() {
        bail!("not a folder (a spec side is a folder or git:REV)");
    }
    // A checkout's root holds test fixtures with deliberate errors under it; read as a
    // spec it would report every one of them.
    if is_checkout(&path) {
        let isa = path.join("isa");
        bail!(
            "a checkout, not a spec folder; its spec is {}",
            isa.to_string_lossy().replace('\\', "/")
        );
    }
    load_spec(&path, root)
}

fn git(dir: &Path, args: &[&str]) -> Result<String> {
    String::from_utf8(git_bytes(dir, args)?)
        .with_context(|| format!("git {} printed non-UTF-8 text", args.join(" ")))
}

/// What `git args` prints, as bytes.
fn git_bytes(dir: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .with_context(|| format!("running git {}", args.join(" ")))?;
    if !out.status.success() {
        bail!("git {} failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(out.stdout)
}

/// Every `*.isa` and `arch/*.toml` under `dir` at `rev`, read with `git show` (no
/// checkout), shown as `REV:path` so both sides of a diff are told apart.
fn git_sources(cwd: &Path, rev: &str, dir: &str) -> Result<Sources> {
    let top = git(cwd, &["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(top.trim());
    let tree = format!("{rev}^{{tree}}");
    if git(&top, &["rev-parse", "--verify", "--quiet", &tree]).is_err() {
        bail!("no revision '{rev}' in the git repository at {}", top.display());
    }
    let list = git(&top, &["ls-tree", "-r", "--name-only", rev, "--", &format!("{dir}/")])?;
    let mut paths: Vec<&str> = list
        .lines()
        .filter(|p| {
            let p = Path::new(p);
            Sources::is_spec_file(p.strip_prefix(dir).unwrap_or(p))
        })
        .collect();
    paths.sort_unstable();
    if paths.is_empty() {
        bail!("no spec files under {dir}/ at {rev}");
    }
    let mut sources = Sources::new();
    for p in paths {
        // A file that is not UTF-8 is reported by the loader, at its first bad byte.
        let bytes = git_bytes(&top, &["show", &format!("{rev}:{p}")])?;
        sources.add_bytes(format!("{rev}:{p}"), &bytes);
    }
    Ok(sources)
}
