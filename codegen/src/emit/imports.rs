//! `use` lines for generated modules: only those whose names the module's code uses, so
//! the output has no unused imports and no full paths.

use std::collections::BTreeSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;

use crate::model::Model;

/// Every identifier in `tokens`.
fn idents(tokens: &TokenStream, out: &mut BTreeSet<String>) {
    for t in tokens.clone() {
        match t {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => idents(&g.stream(), out),
            _ => {}
        }
    }
}

/// The names a generated module exports, for its glob import.
fn provided(model: &Model, module: &str) -> Vec<String> {
    match module {
        "opcode" => model
            .enums
            .iter()
            .map(|e| e.rust.clone())
            .chain(model.vocabs.iter().map(|v| v.rust.clone()))
            .collect(),
        "operand" => {
            model.bits.iter().flat_map(|b| [b.rust.clone(), format!("{}Form", b.rust)]).collect()
        }
        "layout" => model
            .structs
            .iter()
            .filter(|s| !s.is_group)
            .map(|s| s.rust.clone())
            .chain(model.unions.iter().flat_map(|u| [u.rust.clone(), format!("{}View", u.rust)]))
            .collect(),
        "arms" => std::iter::once("ArmKind".to_owned())
            .chain(model.arms.iter().flat_map(|a| {
                let mut v = vec![a.rust.clone(), a.rust_ref.clone()];
                for l in &a.layouts {
                    v.push(l.rust.clone());
                    v.push(format!("{}Ref", l.rust));
                }
                v
            }))
            .collect(),
        _ => Vec::new(),
    }
}

/// The `use` lines `body` needs, from `globs` (generated modules imported with `*`)
/// and `items` (`(name, path)` pairs imported by name).
pub fn needed(
    model: &Model,
    body: &TokenStream,
    globs: &[&str],
    items: &[(&str, TokenStream)],
) -> TokenStream {
    let mut imports = Imports::new(globs, items.to_vec());
    imports.scan(body);
    imports.uses(model)
}

/// The `use` lines of a module emitted in chunks: each chunk is scanned as it is
/// emitted (and then dropped), and the lines are known after the last.
pub struct Imports<'a> {
    globs: &'a [&'a str],
    items: Vec<(&'a str, TokenStream)>,
    used: BTreeSet<String>,
}

impl<'a> Imports<'a> {
    /// Imports from `globs` (generated modules imported with `*`) and `items`
    /// (`(name, path)` pairs imported by name).
    pub fn new(globs: &'a [&'a str], items: Vec<(&'a str, TokenStream)>) -> Imports<'a> {
        Imports { globs, items, used: BTreeSet::new() }
    }

    /// Note the names `body` uses.
    pub fn scan(&mut self, body: &TokenStream) {
        idents(body, &mut self.used);
    }

    /// The `use` lines the scanned chunks need.
    pub fn uses(&self, model: &Model) -> TokenStream {
        let mut out = TokenStream::new();
        for m in self.globs {
            if provided(model, m).iter().any(|n| self.used.contains(n)) {
                let m = proc_macro2::Ident::new(m, proc_macro2::Span::call_site());
                out.extend(quote! { use crate::generated::#m::*; });
            }
        }
        for (name, path) in &self.items {
            if self.used.contains(*name) {
                out.extend(quote! { use #path; });
            }
        }
        out
    }
}
