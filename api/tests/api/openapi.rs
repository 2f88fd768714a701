//! The committed OpenAPI document is the one the code generates, and the
//! server serves it.

use kingpost_api::app::openapi_document;

use crate::support::{Db, TestApp, get};

fn generated() -> String {
    openapi_document().to_pretty_json().unwrap() + "\n"
}

#[test]
fn committed_spec_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated(),
        "openapi/openapi.json is stale: run `cargo run -- openapi` and commit it"
    );
}

#[test]
fn every_operation_is_named_tagged_and_summarised() {
    let document = serde_json::to_value(openapi_document()).unwrap();
    assert_eq!(document["openapi"], "3.1.0");
    let mut ids = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let id = operation["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{method} {path}: no operationId"));
            assert!(id.contains('_'), "{id}: named <verb>_<resource>");
            assert!(
                operation["tags"].as_array().is_some_and(|t| !t.is_empty()),
                "{id}: no tag"
            );
            assert!(
                operation["summary"].as_str().is_some_and(|s| !s.is_empty()),
                "{id}: no summary"
            );
            for (media_type, content) in operation["requestBody"]["content"]
                .as_object()
                .into_iter()
                .flatten()
            {
                assert!(
                    content["schema"]["$ref"].is_string(),
                    "{id} request {media_type}: not a named schema"
                );
            }
            for (status, response) in operation["responses"].as_object().unwrap() {
                // Every body is a named schema, so generated clients get named types.
                for (media_type, content) in response["content"].as_object().into_iter().flatten() {
                    assert!(
                        content["schema"]["$ref"].is_string(),
                        "{id} {status} {media_type}: not a named schema"
                    );
                }
                if status.starts_with('4') {
                    let schema = &response["content"]["application/problem+json"]["schema"]["$ref"];
                    assert_eq!(schema, "#/components/schemas/Problem", "{id} {status}");
                }
            }
            ids.push(id.to_owned());
        }
    }
    let count = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), count, "operation ids are unique");
    assert!(count >= 18);
}

#[actix_web::test]
async fn served_spec_and_docs_page() {
    let db = Db::sqlite();
    let app = TestApp::on(&db).start().await;
    let served = get("/api/v1/openapi.json").send(&app).await;
    assert_eq!(
        served.assert_status(200),
        &serde_json::to_value(openapi_document()).unwrap()
    );
    let docs = get("/docs/").send(&app).await;
    assert_eq!(docs.status.as_u16(), 200);
    assert!(
        docs.body.as_str().unwrap().contains("swagger"),
        "the docs page is served by the binary"
    );
}
