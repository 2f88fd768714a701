//! The reference web client at `/`: its files are served from the binary
//! with a strict content security policy, and load nothing from elsewhere.
//! (scripts/web-e2e plays it in a real browser.)

use crate::support::{Db, TestApp, get};

/// The files a page or script names: `/web/x` in HTML, `./x.js` imports.
fn referenced(text: &str) -> Vec<String> {
    let mut files = Vec::new();
    for (marker, end) in [("\"/web/", '"'), ("from \"./", '"')] {
        for (at, _) in text.match_indices(marker) {
            let rest = &text[at + marker.len()..];
            files.push(rest[..rest.find(end).unwrap()].to_owned());
        }
    }
    files
}

#[actix_web::test]
async fn the_web_client_is_served_whole_and_self_contained() {
    let db = Db::sqlite();
    let app = TestApp::on(&db).start().await;

    let index = get("/").send(&app).await;
    let html = index.assert_status(200).as_str().unwrap().to_owned();
    assert_eq!(
        index.headers.get("content-type").unwrap(),
        "text/html; charset=utf-8"
    );
    let policy = index
        .headers
        .get("content-security-policy")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(policy.contains("script-src 'self';"), "{policy}");
    assert!(policy.contains("connect-src 'self';"), "{policy}");
    assert!(!policy.contains("unsafe"), "{policy}");

    // Every file reachable from the page is served, with its type, and
    // none of them fetches anything from another origin.
    let mut pending = referenced(&html);
    let mut seen = Vec::new();
    while let Some(file) = pending.pop() {
        if seen.contains(&file) {
            continue;
        }
        let answer = get(format!("/web/{file}")).send(&app).await;
        let text = answer.assert_status(200).as_str().unwrap().to_owned();
        let content_type = answer
            .headers
            .get("content-type")
            .unwrap()
            .to_str()
            .unwrap();
        let expected = match file.rsplit('.').next().unwrap() {
            "js" => "text/javascript; charset=utf-8",
            "css" => "text/css; charset=utf-8",
            "svg" => "image/svg+xml",
            other => panic!("unexpected file type {other}"),
        };
        assert_eq!(content_type, expected, "{file}");
        let outside = text
            .replace("http://www.w3.org/2000/svg", "") // a namespace, not a fetch
            .contains("://");
        assert!(!outside, "{file} names another origin");
        pending.extend(referenced(&text));
        seen.push(file);
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "analysis.js",
            "api.js",
            "app.css",
            "app.js",
            "board.js",
            "clocks.js",
            "dom.js",
            "explorer.js",
            "game.js",
            "icon.svg",
            "moves.js",
            "picking.js",
            "pieces.js",
            "players.js",
            "rules.js",
            "study.js",
            "teams.js",
            "theme.js",
            "time.js",
            "tournaments.js",
            "variants.js",
            "words.js",
        ]
    );

    // The rules for players of every rule set, from docs/rules, and each
    // in the list of rule sets the page reads, with the name it shows.
    let listed = get("/api/v1/variants").send(&app).await;
    let listed = listed.assert_status(200)["variants"]
        .as_array()
        .unwrap()
        .clone();
    for rules in kingpost_core::Rules::ALL {
        let key = rules.key();
        let page = get(format!("/web/rules-{key}.md")).send(&app).await;
        let text = page.assert_status(200).as_str().unwrap().to_owned();
        assert_eq!(
            page.headers.get("content-type").unwrap(),
            "text/markdown; charset=utf-8"
        );
        assert!(text.starts_with("# "), "{key}: a title first");
        assert!(text.contains("```board"), "{key}: a diagram at least");
        let variant = listed.iter().find(|v| v["key"] == key).unwrap();
        assert!(
            variant["title"].as_str().is_some_and(|t| !t.is_empty()),
            "{key} has a title"
        );
    }

    get("/web/missing.js")
        .send(&app)
        .await
        .assert_problem(404, "not_found");
}

/// The page keeps no rule list of its own: the rule sets and their names,
/// the days per move, the clocks' bounds, which starts are rated and when a
/// game may be aborted come from the API (`/variants`, a game's
/// `actions`), so that the page offers what the server accepts and no
/// more.
#[test]
fn the_page_keeps_no_rule_list_of_its_own() {
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let mut names: Vec<String> = kingpost_core::Rules::ALL
        .iter()
        .map(|rules| format!("\"{}\"", rules.pgn_name(false)))
        .collect();
    names.push("\"Chess\"".to_owned());
    let days = format!("{:?}", kingpost_api::views::DAYS_PER_MOVE);
    let mut read = 0;
    for entry in std::fs::read_dir(&web).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "js") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        for name in &names {
            assert!(
                !text.contains(name.as_str()),
                "{file} names the rule set {name}"
            );
        }
        assert!(!text.contains(&days), "{file} lists the days per move");
        assert!(!text.contains("365"), "{file} bounds a clock");
        assert!(
            !text.contains("ply < 2"),
            "{file} decides when a game may be aborted"
        );
        read += 1;
    }
    assert!(read >= 10, "{read} scripts read");
}
