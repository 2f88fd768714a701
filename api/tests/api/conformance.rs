//! The spec cannot drift from the code: every answer any test receives
//! through `Call::send` is checked against the OpenAPI document. Its status
//! must be one the operation declares, its content type one declared for
//! that status, and a JSON body must validate against the declared schema.

use std::{
    collections::{BTreeMap, HashMap},
    sync::{Mutex, OnceLock},
};

use actix_web::http::{Method, StatusCode};
use jsonschema::Validator;
use kingpost_api::app::openapi_document;
use serde_json::{Value, json};

struct Spec {
    document: Value,
    /// Validators by `"<template> <method> <status> <content type>"`.
    validators: Mutex<HashMap<String, &'static Validator>>,
}

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec {
        document: serde_json::to_value(openapi_document()).unwrap(),
        validators: Mutex::default(),
    })
}

/// Whether the concrete path segment fits the template's: a literal, or a
/// `{parameter}` with a literal prefix and suffix (`{month}.pgn`).
fn segment_fits(template: &str, concrete: &str) -> bool {
    match (template.find('{'), template.find('}')) {
        (Some(open), Some(close)) => {
            let (prefix, suffix) = (&template[..open], &template[close + 1..]);
            concrete.len() > prefix.len() + suffix.len()
                && concrete.starts_with(prefix)
                && concrete.ends_with(suffix)
        }
        _ => template == concrete,
    }
}

/// The spec's path template for `path`: of those that fit, the one with
/// the most literal segments.
fn template_of<'a>(paths: &'a serde_json::Map<String, Value>, path: &str) -> Option<&'a str> {
    let concrete: Vec<&str> = path.split('/').collect();
    paths
        .keys()
        .filter(|template| {
            let segments: Vec<&str> = template.split('/').collect();
            segments.len() == concrete.len()
                && segments
                    .iter()
                    .zip(&concrete)
                    .all(|(t, c)| segment_fits(t, c))
        })
        .max_by_key(|template| template.split('/').filter(|s| !s.contains('{')).count())
        .map(String::as_str)
}

/// Panics, naming the operation, when the answer is not as the spec says.
pub fn check(method: &Method, path: &str, status: StatusCode, content_type: &str, body: &[u8]) {
    let spec = spec();
    let path = path.split('?').next().unwrap();
    let paths = spec.document["paths"].as_object().unwrap();
    let Some(template) = template_of(paths, path) else {
        return; // not an API route (the docs page, an unknown path)
    };
    let method_key = method.as_str().to_ascii_lowercase();
    let Some(operation) = paths[template].get(&method_key) else {
        return; // a method the route does not have: the framework's 404/405
    };
    let operation_name = format!("{method} {template}");
    let responses = &operation["responses"];
    let declared = &responses[status.as_str()];
    assert!(
        declared.is_object(),
        "{operation_name} answered {status}, which the spec does not declare ({:?})",
        responses.as_object().map(|r| r.keys().collect::<Vec<_>>())
    );
    let Some(contents) = declared.get("content").and_then(Value::as_object) else {
        assert!(
            body.is_empty(),
            "{operation_name} {status}: a body where the spec declares none"
        );
        return;
    };
    let media_type = content_type.split(';').next().unwrap().trim();
    let Some(content) = contents.get(media_type) else {
        panic!(
            "{operation_name} {status}: content type {media_type:?}, the spec declares {:?}",
            contents.keys().collect::<Vec<_>>()
        );
    };
    // NDJSON declares the schema of each line; PGN and event streams are text.
    let ndjson = media_type == "application/x-ndjson";
    if !(ndjson || media_type.ends_with("json")) {
        return;
    }
    let key = format!("{template} {method_key} {status} {media_type}");
    let validator = *spec
        .validators
        .lock()
        .unwrap()
        .entry(key)
        .or_insert_with(|| {
            // The declared schema, with the components its `$ref`s name.
            let mut schema = content["schema"].clone();
            schema["components"] = spec.document["components"].clone();
            schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
            Box::leak(Box::new(
                jsonschema::validator_for(&schema).expect("the spec's schema compiles"),
            ))
        });
    let documents: Vec<&[u8]> = if ndjson {
        body.split(|&b| b == b'\n')
            .filter(|line| !line.is_empty())
            .collect()
    } else {
        vec![body]
    };
    for document in documents {
        let value: Value = serde_json::from_slice(document)
            .unwrap_or_else(|e| panic!("{operation_name} {status}: not JSON ({e})"));
        if status.is_success() || media_type == "application/problem+json" {
            record_example(&content["schema"], &value, &operation_name);
        }
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{operation_name} {status}: the body does not match the spec:\n{}\n{value:#}",
            errors.join("\n")
        );
    }
}

/// The file of examples recorded from real requests and answers, which the
/// OpenAPI document shows for each schema.
const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/examples.json");

/// With `KINGPOST_RECORD_EXAMPLES=1`, keeps `value` as the example of the
/// schema `schema` names (the first seen of each, or the first with
/// something in its lists), in `openapi/examples.json`.
fn record_example(schema: &Value, value: &Value, operation: &str) {
    static RECORDED: OnceLock<Option<Mutex<BTreeMap<String, Value>>>> = OnceLock::new();
    let Some(recorded) = RECORDED
        .get_or_init(|| std::env::var_os("KINGPOST_RECORD_EXAMPLES").map(|_| Mutex::default()))
    else {
        return;
    };
    let Some(name) = schema_name(schema) else {
        return;
    };
    // A problem is kept for its operation and status, and its status alone:
    // each answer shows one of its own, or one of its status.
    if name == "Problem" && !value["status"].is_null() {
        let status = &value["status"];
        keep_example(recorded, &format!("Problem {operation} {status}"), value);
        keep_example(recorded, &format!("Problem {status}"), value);
    }
    keep_example(recorded, name, value);
}

fn keep_example(recorded: &Mutex<BTreeMap<String, Value>>, name: &str, value: &Value) {
    let mut recorded = recorded.lock().unwrap();
    // The first seen, unless its lists were all empty and this one's are not.
    if recorded
        .get(name)
        .is_some_and(|first| !bare(first) || bare(value))
    {
        return;
    }
    recorded.insert(name.to_owned(), value.clone());
    let text = serde_json::to_string_pretty(&*recorded).unwrap() + "\n";
    let partial = format!("{EXAMPLES}.partial");
    std::fs::write(&partial, text).unwrap();
    std::fs::rename(&partial, EXAMPLES).unwrap();
}

/// An object whose lists are all empty (a page of nothing): a poor example
/// while a fuller one may come.
fn bare(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    let mut lists = object.values().filter_map(Value::as_array).peekable();
    lists.peek().is_some() && lists.all(Vec::is_empty)
}

/// `X` of a schema that is `{"$ref": "#/components/schemas/X"}`.
fn schema_name(schema: &Value) -> Option<&str> {
    schema["$ref"]
        .as_str()?
        .strip_prefix("#/components/schemas/")
}

/// Records the example of a request body (see `record_example`).
pub fn record_request(method: &Method, path: &str, body: &Value) {
    let paths = spec().document["paths"].as_object().unwrap();
    let Some(template) = template_of(paths, path.split('?').next().unwrap()) else {
        return;
    };
    let operation = &paths[template][method.as_str().to_ascii_lowercase()];
    record_example(
        &operation["requestBody"]["content"]["application/json"]["schema"],
        body,
        &format!("{method} {template}"),
    );
}

/// Every schema that an operation takes or answers as JSON has an example
/// recorded from a real exchange, and the example fits its schema today.
#[test]
fn every_exchanged_schema_has_a_recorded_example() {
    if std::env::var_os("KINGPOST_RECORD_EXAMPLES").is_some() {
        return; // this run writes the examples the document shows after a rebuild
    }
    let document = &spec().document;
    let examples = &document["components"]["schemas"];
    let mut exchanged = std::collections::BTreeSet::new();
    for item in document["paths"].as_object().unwrap().values() {
        for operation in item.as_object().unwrap().values() {
            let bodies = operation["requestBody"]["content"].as_object().into_iter();
            let answers = operation["responses"]
                .as_object()
                .into_iter()
                .flat_map(|r| r.values())
                .filter_map(|r| r["content"].as_object());
            for contents in bodies.chain(answers) {
                for (media_type, content) in contents {
                    if media_type.contains("json") {
                        exchanged.extend(schema_name(&content["schema"]));
                    }
                }
            }
        }
    }
    assert!(exchanged.len() > 20, "{exchanged:?}");
    for name in exchanged {
        let schema = &examples[name];
        let shown = schema["examples"][0].clone();
        assert!(
            !shown.is_null(),
            "{name} has no recorded example: run KINGPOST_RECORD_EXAMPLES=1 cargo test -p kingpost-api --test api, then kingpost openapi"
        );
        let mut root = json!({"$ref": format!("#/components/schemas/{name}")});
        root["components"] = document["components"].clone();
        let validator = jsonschema::validator_for(&root).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&shown)
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{name}'s example is off its schema: {errors:?}"
        );
    }
}

#[test]
fn paths_match_their_templates() {
    let paths = spec().document["paths"].as_object().unwrap();
    for (path, template) in [
        ("/api/v1/games/abc", "/api/v1/games/{id}"),
        ("/api/v1/games/abc/moves", "/api/v1/games/{id}/moves"),
        ("/api/v1/games/abc/pgn", "/api/v1/games/{id}/pgn"),
        (
            "/api/v1/users/alice/games.pgn",
            "/api/v1/users/{username}/games.pgn",
        ),
        (
            "/api/v1/users/alice/games/2026/11.pgn",
            "/api/v1/users/{username}/games/{year}/{month}.pgn",
        ),
        ("/api/v1/account", "/api/v1/account"),
    ] {
        assert_eq!(template_of(paths, path), Some(template), "{path}");
    }
    assert_eq!(template_of(paths, "/api/v1/nothing/here"), None);
}

#[test]
fn a_body_off_the_schema_is_caught() {
    let result = std::panic::catch_unwind(|| {
        check(
            &Method::GET,
            "/api/v1/account",
            StatusCode::OK,
            "application/json",
            br#"{"username": 7}"#,
        )
    });
    assert!(result.is_err(), "a wrong body must fail the check");
    let undeclared = std::panic::catch_unwind(|| {
        check(
            &Method::GET,
            "/api/v1/account",
            StatusCode::IM_A_TEAPOT,
            "application/json",
            b"{}",
        )
    });
    assert!(
        undeclared.is_err(),
        "an undeclared status must fail the check"
    );
}
