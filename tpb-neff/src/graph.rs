//! Finding the record streams: every top-level `kelf-*.json` lists graphs (subgraphs),
//! each graph's `def.json` names a stream per engine.
//!
//! For engine token `t` the stream is `def[t_instr]`, else the engine JSON's (`def[t]`)
//! `"instr"`, else the legacy `t.bin`, each relative to the `def.json`'s directory. A
//! stream that is named nowhere, or named but not a member, is legal: it is absent.
//!
//! A NEFF names each subgraph once: a graph name or `def.json` listed twice (in one
//! `kelf` or two) is refused as the list is parsed, and every entry must name an
//! existing `def.json`, so the graphs can never outnumber the members.

use std::collections::BTreeMap;

use crate::dir::is_kelf_name;
use crate::error::{Error, Result};
use crate::json::{self, Field, GraphEntry};
use crate::members::{join, parent, Store};

/// One of the five engines of a TPB, in `def.json` order. The ISA crate's engine type
/// for the final-record check (`tpb_isa::TpbEngType`) is this engine's token in upper
/// case: `TpbEngType::from_name(&engine.token().to_ascii_uppercase())` (this crate reads
/// the container and does not depend on the ISA's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Engine {
    /// The PE array (matrix multiply).
    Pe,
    /// The activation engine.
    Act,
    /// The pool engine.
    Pool,
    /// The vector engine.
    Dve,
    /// The SP (GpSimd) engine.
    Sp,
}

impl Engine {
    /// All engines, in the order `def.json` and listings use.
    pub const ALL: [Engine; 5] = [Engine::Pe, Engine::Act, Engine::Pool, Engine::Dve, Engine::Sp];

    /// The `def.json` key prefix: `pe`, `act`, `pool`, `dve`, `sp`.
    #[must_use]
    pub const fn token(self) -> &'static str {
        match self {
            Engine::Pe => "pe",
            Engine::Act => "act",
            Engine::Pool => "pool",
            Engine::Dve => "dve",
            Engine::Sp => "sp",
        }
    }

    /// The display name, which is also the stream's file stem in real NEFFs: `PE`,
    /// `Activation`, `Pool`, `DVE`, `SP`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Engine::Pe => "PE",
            Engine::Act => "Activation",
            Engine::Pool => "Pool",
            Engine::Dve => "DVE",
            Engine::Sp => "SP",
        }
    }

    /// The engine with this token or display name, in any case (`pe`, `Activation`, `ACT`).
    #[must_use]
    pub fn from_name(s: &str) -> Option<Engine> {
        Engine::ALL
            .into_iter()
            .find(|e| e.token().eq_ignore_ascii_case(s) || e.name().eq_ignore_ascii_case(s))
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An engine name that [`Engine::from_name`] does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown engine '{0}' (expected pe, act, pool, dve or sp, or PE, Activation, Pool, DVE or SP)"
)]
pub struct UnknownEngine(pub String);

impl std::str::FromStr for Engine {
    type Err = UnknownEngine;

    /// As [`Engine::from_name`].
    fn from_str(s: &str) -> Result<Engine, UnknownEngine> {
        Engine::from_name(s).ok_or_else(|| UnknownEngine(s.escape_debug().to_string()))
    }
}

/// A `kelf`'s `target`: the generation its graphs were compiled for. Shown as the
/// `kelf` has it ([`Target::as_str`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// `sunda` (trn1, inf2).
    Sunda,
    /// `cayman` (trn2).
    Cayman,
    /// `mariana` (trn3).
    Mariana,
    /// `*`: any generation.
    Any,
    /// Any other string, kept as written.
    Other(String),
}

impl Target {
    /// The target a `kelf` names.
    #[must_use]
    pub fn parse(s: &str) -> Target {
        match s {
            "sunda" => Target::Sunda,
            "cayman" => Target::Cayman,
            "mariana" => Target::Mariana,
            "*" => Target::Any,
            other => Target::Other(other.to_owned()),
        }
    }

    /// The string as the `kelf` has it.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Target::Sunda => "sunda",
            Target::Cayman => "cayman",
            Target::Mariana => "mariana",
            Target::Any => "*",
            Target::Other(s) => s,
        }
    }

    /// The generation's name when the target is one (`cayman`), else `None`.
    #[must_use]
    pub fn arch(&self) -> Option<&'static str> {
        match self {
            Target::Sunda => Some("sunda"),
            Target::Cayman => Some("cayman"),
            Target::Mariana => Some("mariana"),
            Target::Any | Target::Other(_) => None,
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One graph (subgraph) of a `kelf`: its `def.json` and its engine streams.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Graph {
    /// The graph's name (`sg00`).
    pub name: String,
    /// The `kelf` member that lists it (`kelf-0.json`).
    pub kelf: String,
    /// The `kelf`'s `version`, when it has one.
    pub kelf_version: Option<String>,
    /// The `kelf`'s `target`, when it has one.
    pub target: Option<Target>,
    /// The path of its `def.json` (`sg00/def.json`).
    pub definition: String,
    /// One entry per engine, in [`Engine::ALL`] order.
    pub streams: Vec<Stream>,
}

impl Graph {
    /// The generation's name from the `kelf`'s target (`cayman`), if it names one: the
    /// ISA crate's `tpb_isa::Arch::from_name(name)` gives its `Arch`.
    #[must_use]
    pub fn arch(&self) -> Option<&'static str> {
        self.target.as_ref().and_then(Target::arch)
    }
}

/// An engine's stream in a graph: where it is, or that it is absent.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stream {
    /// The engine.
    pub engine: Engine,
    /// The member path the JSON names (or the legacy `<token>.bin`), `None` when nothing names one.
    pub path: Option<String>,
    /// Index of the member, `None` when the stream is absent.
    pub(crate) member: Option<usize>,
}

impl Stream {
    /// Whether the stream is a member (it may still be empty).
    #[must_use]
    pub fn is_present(&self) -> bool {
        self.member.is_some()
    }
}

/// The graphs of every top-level `kelf-*.json`, in `kelf` order (by number) then list
/// order, reading from `store` the JSON members and streams they name; the streams they
/// name, a member counted each time, come to at most `limit` bytes.
pub(crate) fn graphs(store: &mut Store, limit: u64) -> Result<Vec<Graph>> {
    if let Some(link) = store.link_paths().find(|p| is_kelf_name(p)) {
        return Err(Error::NamedLink { path: link.to_owned(), named_by: "the NEFF".into() });
    }
    if let Some((path, kind)) = store.specials().find(|(p, _)| is_kelf_name(p)) {
        return Err(Error::NotAFile {
            path: path.to_owned(),
            expected: "regular file",
            found: kind.to_owned(),
        });
    }
    let mut kelfs: Vec<(Option<u64>, String)> = store
        .paths()
        .filter(|p| is_kelf_name(p))
        .map(|p| (p["kelf-".len()..p.len() - ".json".len()].parse().ok(), p.to_owned()))
        .collect();
    if kelfs.is_empty() {
        return Err(Error::NoKelf);
    }
    kelfs.sort();
    let mut seen = Seen::default();
    let mut out = Vec::new();
    let mut named = 0u64;
    for (_, kelf) in kelfs {
        let list = kelf_list(store, &kelf, &mut seen)?;
        for (name, definition) in list.graphs {
            let streams = streams(store, &definition, &kelf)?;
            for i in streams.iter().filter_map(|s| s.member) {
                named = named.saturating_add(store.at(i).size);
            }
            if named > limit {
                return Err(Error::StreamsLimit { limit });
            }
            out.push(Graph {
                name,
                kelf: kelf.clone(),
                kelf_version: list.version.clone(),
                target: list.target.clone(),
                definition,
                streams,
            });
        }
    }
    Ok(out)
}

/// The graph names and definitions listed so far, by every `kelf`.
#[derive(Default)]
struct Seen {
    /// Each name, with the `kelf` that listed it.
    names: BTreeMap<String, String>,
    /// Each definition, with the `kelf` that listed it.
    definitions: BTreeMap<String, String>,
}

/// What one `kelf` says: its version and target, and its graphs' names and definitions.
struct KelfList {
    version: Option<String>,
    target: Option<Target>,
    graphs: Vec<(String, String)>,
}

/// Parse the `kelf` member, checking each graph entry as it is parsed (see [`entry`]).
fn kelf_list(store: &mut Store, kelf: &str, seen: &mut Seen) -> Result<KelfList> {
    load_json(store, kelf, "the NEFF")?;
    let store: &Store = store;
    let bytes = store.get(kelf).map_or(&[][..], |m| m.data);
    let mut graphs = Vec::new();
    let mut on_graph = |g: GraphEntry| {
        let listed = entry(store, kelf, graphs.len(), &g, seen)?;
        graphs.push(listed);
        Ok(())
    };
    let parsed = json::kelf(bytes, &["version", "target"], &mut on_graph);
    let Some((fields, list)) = parsed.map_err(|f| failed(kelf, f))? else {
        return Err(schema(kelf, "not a JSON object".into()));
    };
    if list != Some(true) {
        return Err(schema(kelf, "no \"graphs\" array".into()));
    }
    Ok(KelfList {
        version: string_at(&fields[0], "version", kelf)?.map(str::to_owned),
        target: string_at(&fields[1], "target", kelf)?.map(Target::parse),
        graphs,
    })
}

/// The `i`th graph entry of `kelf`: its name (one plain path component, not listed
/// before) and its definition (a safe path to an existing member, not listed before).
fn entry(
    store: &Store,
    kelf: &str,
    i: usize,
    g: &GraphEntry,
    seen: &mut Seen,
) -> Result<(String, String)> {
    let missing = |key: &str| schema(kelf, format!("graphs[{i}] has no string \"{key}\""));
    let Field::Str(name) = &g.name else { return Err(missing("name")) };
    if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
        return Err(Error::UnsafeReference {
            path: name.to_owned(),
            named_by: kelf.to_owned(),
            why: "a graph name must be one plain path component",
        });
    }
    let Field::Str(definition) = &g.definition else { return Err(missing("definition")) };
    let definition = resolve(store, "", definition, kelf)?;
    let twice = |first: &str, what, value: &str| Error::DuplicateGraph {
        kelf: kelf.to_owned(),
        first: first.to_owned(),
        what,
        value: value.to_owned(),
    };
    if let Some(first) = seen.names.get(name) {
        return Err(twice(first, "name", name));
    }
    if let Some(first) = seen.definitions.get(&definition) {
        return Err(twice(first, "definition", &definition));
    }
    if store.index_of(&definition).is_none() {
        return Err(Error::MissingMember { path: definition, named_by: kelf.to_owned() });
    }
    seen.names.insert(name.to_owned(), kelf.to_owned());
    seen.definitions.insert(definition.clone(), kelf.to_owned());
    Ok((name.to_owned(), definition))
}

/// The five engine streams a `def.json` (named by the `kelf` member) names, read.
fn streams(store: &mut Store, definition: &str, kelf: &str) -> Result<Vec<Stream>> {
    let keys: Vec<String> = Engine::ALL
        .iter()
        .flat_map(|e| [format!("{}_instr", e.token()), e.token().into()])
        .collect();
    let def = object(store, definition, kelf, &keys)?;
    let dir = parent(definition);
    let mut out = Vec::with_capacity(Engine::ALL.len());
    for (engine, field) in Engine::ALL.into_iter().zip(def.chunks_exact(2)) {
        let t = engine.token();
        let named = match string_at(&field[0], &format!("{t}_instr"), definition)? {
            Some(name) => Some(resolve(store, dir, name, definition)?),
            None => match string_at(&field[1], t, definition)? {
                Some(json) => {
                    let json = resolve(store, dir, json, definition)?;
                    let eng = object(store, &json, definition, &["instr".into()])?;
                    match string_at(&eng[0], "instr", &json)? {
                        Some(name) => Some(resolve(store, dir, name, &json)?),
                        None => None,
                    }
                }
                None => None,
            },
        };
        let path = named.or_else(|| {
            let legacy = join(dir, &format!("{t}.bin")).ok()?;
            store.index_of(&legacy).map(|_| legacy)
        });
        if let Some(p) = &path {
            store.load(p)?;
        }
        let member = path.as_deref().and_then(|p| store.index_of(p));
        out.push(Stream { engine, path, member });
    }
    Ok(out)
}

/// `name` relative to `dir`, refused when unsafe, a link, special, or not a member for a
/// known reason ([`Store::why_absent`]); the member need not exist.
fn resolve(store: &Store, dir: &str, name: &str, named_by: &str) -> Result<String> {
    let path = join(dir, name).map_err(|why| Error::UnsafeReference {
        path: name.to_owned(),
        named_by: named_by.to_owned(),
        why,
    })?;
    if store.is_link(&path) {
        return Err(Error::NamedLink { path, named_by: named_by.to_owned() });
    }
    // Not a member because it is special, or below a link, a special member or a
    // folder that could not be listed: say so rather than that it is missing.
    if let Some(e) = store.why_absent(&path, named_by) {
        return Err(e);
    }
    Ok(path)
}

/// Read the member at `path`, which must exist.
fn load_json(store: &mut Store, path: &str, named_by: &str) -> Result<()> {
    if store.load(path)? {
        Ok(())
    } else {
        Err(Error::MissingMember { path: path.to_owned(), named_by: named_by.to_owned() })
    }
}

/// The fields `keys` of the member at `path`, a JSON object that must exist.
fn object(store: &mut Store, path: &str, named_by: &str, keys: &[String]) -> Result<Vec<Field>> {
    load_json(store, path, named_by)?;
    let bytes = store.get(path).map_or(&[][..], |m| m.data);
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    match json::fields(bytes, &keys) {
        Ok(Some(fields)) => Ok(fields),
        Ok(None) => Err(schema(path, "not a JSON object".into())),
        Err(f) => Err(failed(path, f)),
    }
}

/// A field's string; absent or `null` is `None`; any other type is an error.
fn string_at<'a>(field: &'a Field, key: &str, member: &str) -> Result<Option<&'a str>> {
    field.as_str().map_err(|()| schema(member, format!("\"{key}\" is not a string")))
}

/// The error of a JSON member that did not parse, or that the reader stopped.
fn failed(member: &str, f: json::Fail) -> Error {
    match f {
        json::Fail::Syntax(detail) => Error::Json { member: member.to_owned(), detail },
        json::Fail::Reader(e) => e,
    }
}

fn schema(member: &str, detail: String) -> Error {
    Error::Schema { member: member.to_owned(), detail }
}
