//! Finding the record streams: every top-level `kelf-*.json` lists graphs (subgraphs),
//! each graph's `def.json` names a stream per engine.
//!
//! For engine token `t` the stream is `def[t_instr]`, else the engine JSON's (`def[t]`)
//! `"instr"`, else the legacy `t.bin`, each relative to the `def.json`'s directory. A
//! stream that is named nowhere, or named but not a member, is legal: it is absent.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::members::{join, parent, Store};

/// One of the five engines of a TPB, in `def.json` order.
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

/// A `kelf`'s `target`: the generation its graphs were compiled for.
#[derive(Clone, Debug, PartialEq, Eq)]
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

/// One graph (subgraph) of a `kelf`: its `def.json` and its engine streams.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// The generation's name from the `kelf`'s target (`cayman`), if it names one.
    #[must_use]
    pub fn arch(&self) -> Option<&'static str> {
        self.target.as_ref().and_then(Target::arch)
    }
}

/// An engine's stream in a graph: where it is, or that it is absent.
#[derive(Clone, Debug, PartialEq, Eq)]
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

/// The graphs of every top-level `kelf-*.json`, in `kelf` order (by number) then list order.
pub(crate) fn graphs(store: &Store) -> Result<Vec<Graph>> {
    let mut kelfs: Vec<(Option<u64>, &str)> = store
        .paths()
        .filter(|p| !p.contains('/') && p.starts_with("kelf-") && p.ends_with(".json"))
        .map(|p| (p["kelf-".len()..p.len() - ".json".len()].parse().ok(), p))
        .collect();
    if kelfs.is_empty() {
        return Err(Error::NoKelf);
    }
    kelfs.sort();
    let mut out = Vec::new();
    for (_, kelf) in kelfs {
        let doc = object(store, kelf, "the NEFF")?;
        let kelf_version = string_at(&doc, "version", kelf)?.map(str::to_owned);
        let target = string_at(&doc, "target", kelf)?.map(Target::parse);
        let Some(Value::Array(list)) = doc.get("graphs") else {
            return Err(schema(kelf, "no \"graphs\" array".into()));
        };
        for (i, g) in list.iter().enumerate() {
            let field = |key: &str| match g.get(key) {
                Some(Value::String(s)) => Ok(s.as_str()),
                _ => Err(schema(kelf, format!("graphs[{i}] has no string \"{key}\""))),
            };
            let name = field("name")?;
            if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
                return Err(Error::UnsafeReference {
                    path: name.to_owned(),
                    named_by: kelf.to_owned(),
                    why: "a graph name must be one plain path component",
                });
            }
            let definition = resolve(store, "", field("definition")?, kelf)?;
            let streams = streams(store, &definition, kelf)?;
            out.push(Graph {
                name: name.to_owned(),
                kelf: kelf.to_owned(),
                kelf_version: kelf_version.clone(),
                target: target.clone(),
                definition,
                streams,
            });
        }
    }
    Ok(out)
}

/// The five engine streams a `def.json` (named by the `kelf` member) names.
fn streams(store: &Store, definition: &str, kelf: &str) -> Result<Vec<Stream>> {
    let def = object(store, definition, kelf)?;
    let dir = parent(definition);
    let mut out = Vec::with_capacity(Engine::ALL.len());
    for engine in Engine::ALL {
        let t = engine.token();
        let named = match string_at(&def, &format!("{t}_instr"), definition)? {
            Some(name) => Some(resolve(store, dir, name, definition)?),
            None => match string_at(&def, t, definition)? {
                Some(json) => {
                    let json = resolve(store, dir, json, definition)?;
                    let eng = object(store, &json, definition)?;
                    match string_at(&eng, "instr", &json)? {
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
        let member = path.as_deref().and_then(|p| store.index_of(p));
        out.push(Stream { engine, path, member });
    }
    Ok(out)
}

/// `name` relative to `dir`, refused when unsafe or a link; the member need not exist.
fn resolve(store: &Store, dir: &str, name: &str, named_by: &str) -> Result<String> {
    let path = join(dir, name).map_err(|why| Error::UnsafeReference {
        path: name.to_owned(),
        named_by: named_by.to_owned(),
        why,
    })?;
    if store.is_link(&path) {
        return Err(Error::NamedLink { path, named_by: named_by.to_owned() });
    }
    Ok(path)
}

/// The member at `path`, parsed as a JSON object; it must exist.
fn object(store: &Store, path: &str, named_by: &str) -> Result<Map<String, Value>> {
    let Some(m) = store.get(path) else {
        return Err(Error::MissingMember { path: path.to_owned(), named_by: named_by.to_owned() });
    };
    match serde_json::from_slice(m.data) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(schema(path, "not a JSON object".into())),
        Err(e) => Err(Error::Json { member: path.to_owned(), detail: e.to_string() }),
    }
}

/// `obj[key]` when it is a string; absent or `null` is `None`; any other type is an error.
fn string_at<'a>(obj: &'a Map<String, Value>, key: &str, member: &str) -> Result<Option<&'a str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(schema(member, format!("\"{key}\" is not a string"))),
    }
}

fn schema(member: &str, detail: String) -> Error {
    Error::Schema { member: member.to_owned(), detail }
}
