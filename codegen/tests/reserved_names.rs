//! Every type name the generated crate fixes itself (defined by the emitters whatever
//! the spec says, imported from the runtime, or a variant `Inst` adds to the arms) is
//! in `emit::names::RESERVED_TYPES`, so that a spec item of that name is a checker error
//! at its line, not a compile error in the generated crate after `gen` succeeded.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use codegen::emit::names::RESERVED_TYPES;
use codegen::Sources;
use heck::ToUpperCamelCase;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn parse(path: &Path) -> syn::File {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn is_type_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().any(|c| c.is_ascii_lowercase())
}

/// The variants of `enum name` in the runtime file `file` (for a glob import of them).
fn variants(file: &str, name: &str) -> Vec<String> {
    let f = parse(&root().join("tpb-isa/src").join(file));
    f.items
        .iter()
        .find_map(|i| match i {
            syn::Item::Enum(e) if e.ident == name => {
                Some(e.variants.iter().map(|v| v.ident.to_string()).collect())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("enum {name} in {file}"))
}

/// The type names a `use` tree brings into scope; a glob of an enum's variants
/// (`Kind::*`) brings those variants.
fn imported(tree: &syn::UseTree, path: &mut Vec<String>, out: &mut BTreeSet<String>) {
    match tree {
        syn::UseTree::Path(p) => {
            path.push(p.ident.to_string());
            imported(&p.tree, path, out);
            path.pop();
        }
        syn::UseTree::Name(n) => drop(out.insert(n.ident.to_string())),
        syn::UseTree::Rename(r) => drop(out.insert(r.rename.to_string())),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| imported(t, path, out)),
        syn::UseTree::Glob(_) => {
            // Globs of the generated modules bring spec items; globs of a runtime enum
            // bring its variants.
            let (Some(last), Some(module)) = (path.last(), path.iter().rev().nth(1)) else {
                return;
            };
            if is_type_name(last) {
                let file = match (module.as_str(), last.as_str()) {
                    ("desc", _) => "disasm/desc.rs",
                    ("facts", _) => "facts.rs",
                    (m, e) => panic!("a glob of {m}::{e}: teach this test where it is defined"),
                };
                out.extend(variants(file, last));
            }
        }
    }
}

#[test]
fn the_generated_crates_own_type_names_are_reserved() {
    let spec = Sources::read_spec(&root().join("isa"), "isa").expect("the spec folder reads");
    let model = codegen::load(spec).unwrap_or_else(|f| panic!("the spec checks: {}", f.render()));
    // Every Rust type name a spec item gives, and the names derived from it (views,
    // per-generation layouts, operand forms) start with one of them.
    let spec_names: Vec<String> = model
        .arms
        .iter()
        .map(|a| a.rust.clone())
        .chain(model.structs.iter().map(|s| s.name.to_upper_camel_case()))
        .chain(model.unions.iter().map(|u| u.rust.clone()))
        .chain(model.bits.iter().map(|b| b.rust.clone()))
        .chain(model.enums.iter().map(|e| e.rust.clone()))
        .chain(model.vocabs.iter().map(|v| v.rust.clone()))
        .collect();
    let from_spec = |n: &str| spec_names.iter().any(|s| n.starts_with(s.as_str()));

    let mut fixed = BTreeSet::new();
    let dir = root().join("tpb-isa/src/generated");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the generated folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    for path in &files {
        for item in parse(path).items {
            let defined = match &item {
                syn::Item::Use(u) => {
                    imported(&u.tree, &mut Vec::new(), &mut fixed);
                    None
                }
                syn::Item::Struct(s) => Some(&s.ident),
                syn::Item::Enum(e) => {
                    if e.ident == "Inst" || e.ident == "ArmKind" {
                        // Variants beside the arms' own share their namespace.
                        let extra = e.variants.iter().map(|v| v.ident.to_string());
                        fixed.extend(extra.filter(|v| !model.arms.iter().any(|a| a.rust == *v)));
                    }
                    Some(&e.ident)
                }
                syn::Item::Type(t) => Some(&t.ident),
                syn::Item::Trait(t) => Some(&t.ident),
                syn::Item::Union(u) => Some(&u.ident),
                _ => None,
            };
            if let Some(name) = defined.map(ToString::to_string) {
                if !from_spec(&name) {
                    fixed.insert(name);
                }
            }
        }
    }
    // A name the committed spec gives an item itself builds (`Opcode`, which a glob of
    // `Role`'s variants brings too, unused where both are in scope).
    fixed.retain(|n| is_type_name(n) && !spec_names.contains(n));
    let missing: Vec<&String> =
        fixed.iter().filter(|n| !RESERVED_TYPES.contains(&n.as_str())).collect();
    assert!(
        missing.is_empty(),
        "type names the generated crate fixes but RESERVED_TYPES lacks (a spec item of that \
         name would pass the checker and break the build): {missing:?}"
    );
    assert!(fixed.len() > 20, "{fixed:?}");
}
