//! The service's layers point one way, as ARCHITECTURE.md's table of
//! layers has them (read from it here, so that the two cannot disagree):
//! each module of `api/src` imports only modules of lower layers, and its
//! own. A check over `crate::` paths and `use crate::{...}` lists, which is
//! all the code uses to name its own modules.

use std::{collections::BTreeSet, fs, path::Path};

/// The layers of ARCHITECTURE.md's table, lowest first: the modules each
/// row names in backquotes, the rows in the order of their numbers.
fn layers() -> Vec<Vec<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md");
    let text = fs::read_to_string(path).unwrap();
    let mut layers = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [_, number, modules, ..] = cells.as_slice() else {
            continue;
        };
        let Ok(number) = number.parse::<usize>() else {
            continue;
        };
        assert_eq!(
            number,
            layers.len() + 1,
            "the table's rows in order: {line}"
        );
        let names = modules
            .split(',')
            .map(|name| name.trim().trim_matches('`').to_owned())
            .collect();
        layers.push(names);
    }
    assert!(
        layers.len() > 10,
        "ARCHITECTURE.md's table of layers was read"
    );
    layers
}

fn layer_of(layers: &[Vec<String>], module: &str) -> Option<usize> {
    layers
        .iter()
        .position(|layer| layer.iter().any(|m| m == module))
}

/// The crate's own modules that `source` names at the top level.
fn imports(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |text: &str| {
        text.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<String>()
    };
    for (at, _) in source.match_indices("crate::") {
        let rest = &source[at + "crate::".len()..];
        if let Some(list) = rest.strip_prefix('{') {
            // `use crate::{a::b, c, d::{e, f}}`: the names at depth 0.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in list.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && (c.is_ascii_alphabetic() || c == '_') => {
                        found.insert(ident(&list[i..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident(rest));
        }
    }
    found.remove("self");
    found
}

/// Every `.rs` file under `dir`, with the top-level module it belongs to.
fn sources(dir: &Path, top: Option<&str>, out: &mut Vec<(String, String, String)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        if path.is_dir() {
            sources(&path, Some(top.unwrap_or(&name)), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let module = top.unwrap_or(&name).to_owned();
            let text = fs::read_to_string(&path).unwrap();
            out.push((path.display().to_string(), module, text));
        }
    }
}

/// Every source file of the service: its path, top module and text.
fn api_sources() -> Vec<(String, String, String)> {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        None,
        &mut files,
    );
    files
}

#[test]
fn every_module_imports_only_lower_layers() {
    let files = api_sources();
    assert!(files.len() > 40, "the sources were found");
    let layers = layers();
    let mut wrong = Vec::new();
    for (path, module, text) in &files {
        let Some(own) = layer_of(&layers, module) else {
            wrong.push(format!(
                "{path}: module `{module}` has no layer in ARCHITECTURE.md"
            ));
            continue;
        };
        for import in imports(text) {
            if import == *module {
                continue;
            }
            match layer_of(&layers, &import) {
                Some(layer) if layer < own => {}
                Some(_) => wrong.push(format!(
                    "{path}: `{module}` imports `{import}`, not below it"
                )),
                None => wrong.push(format!("{path}: imports `{import}`, which has no layer")),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layering:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_import_reader_reads_use_lists() {
    let text = "use crate::{a::b, c, d::{e, f}};\nfn x() { crate::g::h(); }";
    let found: Vec<String> = imports(text).into_iter().collect();
    assert_eq!(found, ["a", "c", "d", "g"]);
}

/// The wire types have one home (ARCHITECTURE.md): every type the OpenAPI
/// document shows is declared in `views/`, except the problem report and its
/// codes (the error layer's) and the scopes (the credentials'), which lower
/// layers own.
#[test]
fn the_wire_types_live_in_views() {
    const ELSEWHERE: &[&str] = &["Problem", "Code", "Scope"];
    let files = api_sources();
    let mut wrong = Vec::new();
    for (path, module, text) in &files {
        if module == "views" {
            continue;
        }
        for (at, _) in text.match_indices("ToSchema") {
            let Some(derive) = text[..at].rfind("#[derive(") else {
                continue;
            };
            if text[derive..at].contains(']') {
                continue; // not inside a derive list
            }
            let after = &text[at..];
            // The item the derive list is for: the nearest that follows.
            let Some((i, item)) = ["pub struct ", "pub enum "]
                .iter()
                .filter_map(|item| after.find(item).map(|i| (i, item)))
                .min()
            else {
                continue;
            };
            let name: String = after[i + item.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !ELSEWHERE.contains(&name.as_str()) {
                wrong.push(format!("{path}: `{name}` is a wire type outside views/"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every database call names its intent (ARCHITECTURE.md, "Reads by
/// intent"): a change (`write`, `bulk_step`), a read that must see the
/// caller's own writes (`read_own`) or one that may lag (`read_lagging`).
/// A connection is taken from a pool directly only where those are
/// written (`db`, `state`) and where the process starts or runs a command
/// (`server`'s start, `cli`), never by a route, job or stream.
#[test]
fn every_database_call_names_its_intent() {
    const TAKE_DIRECTLY: &[&str] = &["db", "state", "server", "cli"];
    let files = api_sources();
    let mut wrong = Vec::new();
    for (path, module, text) in &files {
        if TAKE_DIRECTLY.contains(&module.as_str()) {
            continue;
        }
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if code.contains("pool.get(") || code.contains("pool.get_timeout(") {
                wrong.push(format!("{path}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "connections taken without an intent (use write, bulk_step, read_own or read_lagging):\n{}",
        wrong.join("\n")
    );
}
