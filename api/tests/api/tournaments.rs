//! Round robins: the Berger tables against their published copies, and
//! standings with ICCF's tie-breaks on crosstables worked by hand.

use std::collections::{BTreeMap, BTreeSet};

use actix_web::body::MessageBody;
use futures_util::future::join;
use kingpost_api::{
    clock::{Clock, DAY, rfc3339},
    domain::tournament::{
        berger::{self, Pairing},
        standings::{Game, Outcome, standings},
    },
    server::sweep_once,
};
use serde_json::{Value, json};

use crate::{
    events::read_events,
    on_both_databases,
    support::{Db, START_TIME, Served, TestApp, clock, get, init, post, sign_up_for_a_year},
};

on_both_databases!(
    a_round_robin_played_to_the_end,
    two_instances_start_a_double_round_robin_at_its_deadline_once,
    sign_up_and_withdrawal,
    a_withdrawal_racing_a_resignation_is_all_or_nothing
);

/// The published tables: players -> rounds of (white, black).
fn published() -> BTreeMap<usize, Vec<Vec<(usize, usize)>>> {
    let text = include_str!("../data/berger/tables.txt");
    let mut tables: BTreeMap<usize, Vec<Vec<(usize, usize)>>> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (head, pairs) = line.split_once(": ").unwrap();
        let (players, round) = head.split_once(' ').unwrap();
        let round: usize = round.parse().unwrap();
        let rounds = tables.entry(players.parse().unwrap()).or_default();
        assert_eq!(rounds.len() + 1, round, "{line}");
        rounds.push(
            pairs
                .split(' ')
                .map(|pair| {
                    let (w, b) = pair.split_once('-').unwrap();
                    (w.parse().unwrap(), b.parse().unwrap())
                })
                .collect(),
        );
    }
    tables
}

fn as_pairs(games: &[Pairing]) -> Vec<(usize, usize)> {
    games.iter().map(|g| (g.white, g.black)).collect()
}

// FIDE C.05 Annex 1: for an even number, the table itself, boards in
// order; for the odd number below it, the same without the games of the
// highest number, who is the bye.
#[test]
fn berger_tables_match_the_published_ones_from_3_to_16_players() {
    let tables = published();
    assert_eq!(
        tables.keys().copied().collect::<Vec<_>>(),
        [4, 6, 8, 10, 12, 14, 16]
    );
    for (&n, rounds) in &tables {
        let even = berger::single(n);
        assert_eq!(even.len(), rounds.len());
        for (round, published) in even.iter().zip(rounds) {
            assert_eq!(&as_pairs(&round.games), published, "{n} players");
            assert_eq!(round.bye, None);
        }
        let odd = berger::single(n - 1);
        for (round, published) in odd.iter().zip(rounds) {
            let without_bye: Vec<(usize, usize)> = published
                .iter()
                .copied()
                .filter(|&(w, b)| w != n && b != n)
                .collect();
            assert_eq!(as_pairs(&round.games), without_bye, "{} players", n - 1);
            let (w, b) = published.iter().find(|&&(w, b)| w == n || b == n).unwrap();
            assert_eq!(round.bye, Some(if *w == n { *b } else { *w }));
        }
    }
}

// Beyond the annex (which ends at 16), up to the 17 a tournament may hold: each
// pair meets once, each player at most once a round, colours within one.
#[test]
fn every_round_robin_up_to_17_pairs_everyone_once_with_balanced_colours() {
    for players in 3..=17 {
        let rounds = berger::single(players);
        let mut met = BTreeSet::new();
        let mut whites = vec![0i32; players + 1];
        for round in &rounds {
            let mut seated = BTreeSet::new();
            for g in &round.games {
                assert!(g.white <= players && g.black <= players && g.white != g.black);
                assert!(seated.insert(g.white) && seated.insert(g.black));
                assert!(met.insert((g.white.min(g.black), g.white.max(g.black))));
                whites[g.white] += 1;
            }
            assert_eq!(seated.len() + usize::from(round.bye.is_some()), players);
        }
        assert_eq!(met.len(), players * (players - 1) / 2, "{players}");
        let games_each = players as i32 - 1;
        for w in &whites[1..] {
            assert!((2 * w - games_each).abs() <= 1, "{players}: {whites:?}");
        }
        let double = berger::double(players);
        assert_eq!(double.len(), 2 * rounds.len());
        for (first, second) in rounds.iter().zip(&double[rounds.len()..]) {
            for (a, b) in first.games.iter().zip(&second.games) {
                assert_eq!((a.white, a.black), (b.black, b.white));
            }
        }
    }
}

use Outcome::{BlackWon, Draw, WhiteWon};

fn game(white: usize, black: usize, outcome: Option<Outcome>) -> Game {
    Game {
        white,
        black,
        outcome,
    }
}

/// (player, place, points, wins, Sonneborn-Berger) in the order given.
fn table(
    rows: &[kingpost_api::domain::tournament::standings::Standing],
) -> Vec<(usize, usize, f64, u32, f64)> {
    rows.iter()
        .map(|r| {
            (
                r.player,
                r.place,
                f64::from(r.half_points) / 2.0,
                r.wins,
                f64::from(r.sonneborn_berger_quarters) / 4.0,
            )
        })
        .collect()
}

// A 2 (1 win: B, draws C and D), B 2 (2 wins: C, D): level on points, B
// ahead on wins. C 1.5 (draw A, win D), D 0.5.
#[test]
fn the_number_of_wins_breaks_a_tie_first() {
    let (a, b, c, d) = (0, 1, 2, 3);
    let games = [
        game(a, b, Some(WhiteWon)),
        game(a, c, Some(Draw)),
        game(a, d, Some(Draw)),
        game(b, c, Some(WhiteWon)),
        game(b, d, Some(WhiteWon)),
        game(c, d, Some(WhiteWon)),
    ];
    let rows = standings(4, &games, &BTreeMap::new());
    // SB: A = B's 2 + half of C's 1.5 and D's 0.5 = 3; B = C's 1.5 + D's
    // 0.5 = 2; C = half of A's 2 + D's 0.5 = 1.5; D = half of A's 2 = 1.
    assert_eq!(
        table(&rows),
        [
            (b, 1, 2.0, 2, 2.0),
            (a, 2, 2.0, 1, 3.0),
            (c, 3, 1.5, 1, 1.5),
            (d, 4, 0.5, 0, 1.0)
        ]
    );
}

// Five players (each sits out one round). B, D and E have 2.5 points and
// two wins each; Sonneborn-Berger: B beat C (1.5) and E (2.5) and drew A
// (1): 4.5; E beat C and D (2.5) and drew A: 4.5; D beat A (1) and B (2.5)
// and drew C: 4.25. B and E stay level: B won their game, so B is first.
#[test]
fn sonneborn_berger_then_the_direct_encounter() {
    let (a, b, c, d, e) = (0, 1, 2, 3, 4);
    let games = [
        game(a, b, Some(Draw)),
        game(a, c, Some(BlackWon)),
        game(a, d, Some(BlackWon)),
        game(a, e, Some(Draw)),
        game(b, c, Some(WhiteWon)),
        game(b, d, Some(BlackWon)),
        game(b, e, Some(WhiteWon)),
        game(c, d, Some(Draw)),
        game(c, e, Some(BlackWon)),
        game(d, e, Some(BlackWon)),
    ];
    let rows = standings(5, &games, &BTreeMap::new());
    assert_eq!(
        table(&rows),
        [
            (b, 1, 2.5, 2, 4.5),
            (e, 2, 2.5, 2, 4.5),
            (d, 3, 2.5, 2, 4.25),
            (c, 4, 1.5, 1, 2.25),
            (a, 5, 1.0, 0, 2.5),
        ]
    );
    assert_eq!(
        (rows[0].direct_half_points, rows[1].direct_half_points),
        (2, 0)
    );
}

// A beat B, B beat C, C beat A, all drew D: A, B and C are level on
// everything, their games among them 1-1 each: they share first place.
// Games under way count for nothing yet and are shown as such.
#[test]
fn players_level_on_everything_share_a_place_and_unfinished_games_wait() {
    let (a, b, c, d) = (0, 1, 2, 3);
    let mut games = vec![
        game(a, b, Some(WhiteWon)),
        game(b, c, Some(WhiteWon)),
        game(c, a, Some(WhiteWon)),
        game(a, d, Some(Draw)),
        game(b, d, Some(Draw)),
        game(c, d, Some(Draw)),
    ];
    let rows = standings(4, &games, &BTreeMap::new());
    assert_eq!(
        table(&rows),
        [
            (a, 1, 1.5, 1, 2.25),
            (b, 1, 1.5, 1, 2.25),
            (c, 1, 1.5, 1, 2.25),
            (d, 4, 1.5, 0, 2.25)
        ]
    );
    games[5].outcome = None;
    let rows = standings(4, &games, &BTreeMap::new());
    let of = |p: usize| rows.iter().find(|r| r.player == p).unwrap();
    assert_eq!(
        (of(c).unfinished, of(d).unfinished, of(a).unfinished),
        (1, 1, 0)
    );
    assert_eq!((of(c).half_points, of(d).half_points), (2, 2));
    assert_eq!(of(a).place, 1, "A: 1.5 points, the most with B");
}

// Five players, four games each. D withdrew after one finished game
// (fewer than half): all of D's results are annulled, A's win over D
// among them. C withdrew after two (half or more): C's game against E,
// under way, is lost by forfeit (the one against D is gone with D's).
#[test]
fn withdrawals_annul_or_forfeit_by_the_half_rule() {
    let (a, b, c, d, e) = (0, 1, 2, 3, 4);
    let games = [
        game(a, b, Some(Draw)),
        game(a, c, Some(BlackWon)),
        game(a, d, Some(WhiteWon)),
        game(a, e, Some(Draw)),
        game(b, c, Some(WhiteWon)),
        game(b, d, None),
        game(b, e, Some(BlackWon)),
        game(c, d, None),
        game(c, e, None),
        game(d, e, None),
    ];
    let withdrawn = BTreeMap::from([(c, 2), (d, 1)]);
    let rows = standings(5, &games, &withdrawn);
    let of = |p: usize| rows.iter().find(|r| r.player == p).unwrap();
    assert!(of(d).annulled && of(d).withdrawn);
    assert!(!of(c).annulled && of(c).withdrawn);
    assert_eq!(of(d).half_points + of(d).finished + of(d).unfinished, 0);
    // E: draw A, beat B, forfeit win over C: 2.5, Sonneborn-Berger half of
    // A's 1 + B's 1.5 + C's 1 = 3. B: draw A, beat C: 1.5 (0.5 + 1). C:
    // beat A: 1 (one win). A: two draws: 1 (no win; 0.75 + 1.25). The
    // games still under way were against D, and are annulled with D's.
    assert_eq!(
        table(&rows),
        [
            (e, 1, 2.5, 2, 3.0),
            (b, 2, 1.5, 1, 1.5),
            (c, 3, 1.0, 1, 1.0),
            (a, 4, 1.0, 0, 2.0),
            (d, 5, 0.0, 0, 0.0),
        ]
    );
    assert!(rows.iter().all(|r| r.unfinished == 0));
}

// ---- through the API ----

/// A tournament of `capacity` by `organiser`, the request's other fields
/// as given: its view.
async fn organise<B: MessageBody>(
    app: &impl Served<B>,
    organiser: &str,
    capacity: i32,
    extra: Value,
) -> Value {
    let mut body = json!({"name": "Winter round robin", "rules": "standard", "days_per_move": 3,
                          "capacity": capacity, "signup_deadline": rfc3339(START_TIME + 7 * DAY)});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    post("/api/v1/tournaments")
        .token(organiser)
        .json(body)
        .send(app)
        .await
        .assert_status(201)
        .clone()
}

async fn join_as<B: MessageBody>(app: &impl Served<B>, id: &str, token: &str) -> Value {
    post(format!("/api/v1/tournaments/{id}/join"))
        .token(token)
        .send(app)
        .await
        .assert_status(200)
        .clone()
}

/// The seat of each player of a started tournament, by username.
fn seats(view: &Value) -> BTreeMap<String, usize> {
    view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["player"]["username"].as_str().unwrap().to_owned(),
                s["seat"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

/// The tournament's games as (round, board, white seat, black seat).
fn pairings(view: &Value) -> Vec<(i64, i64, usize, usize)> {
    let seats = seats(view);
    let seat = |side: &Value| seats[side["username"].as_str().unwrap()];
    view["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["round"].as_i64().unwrap(),
                g["board"].as_i64().unwrap(),
                seat(&g["white"]),
                seat(&g["black"]),
            )
        })
        .collect()
}

/// The Berger table's games as (round, board, white, black).
fn table_games(rounds: &[berger::Round]) -> Vec<(i64, i64, usize, usize)> {
    rounds
        .iter()
        .zip(1..)
        .flat_map(|(round, r)| {
            round
                .games
                .iter()
                .zip(1..)
                .map(move |(g, b)| (r, b, g.white, g.black))
        })
        .collect()
}

// Three players: full on the third sign-up, it starts with the Berger
// table's three games; each game ends (a win, a draw, a win) and the
// tournament finishes with its last, telling its players the winner.
async fn a_round_robin_played_to_the_end(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let created = organise(&app, &alice, 3, json!({})).await;
    assert_eq!(created["status"], "open");
    let id = created["id"].as_str().unwrap().to_owned();
    join_as(&app, &id, &alice).await;
    join_as(&app, &id, &bob).await;
    let started = join_as(&app, &id, &carol).await;
    assert_eq!(started["status"], "started", "{started:#}");
    assert_eq!(pairings(&started), table_games(&berger::single(3)));
    let leak = |token: &String| -> &'static str { Box::leak(token.clone().into_boxed_str()) };
    let tokens: BTreeMap<&str, &'static str> = BTreeMap::from([
        ("alice", leak(&alice)),
        ("bob", leak(&bob)),
        ("carol", leak(&carol)),
    ]);
    // Game 1: White resigns. Game 2: a draw agreed. Game 3: Black resigns.
    for (n, g) in started["games"].as_array().unwrap().iter().enumerate() {
        let game = g["game_id"].as_str().unwrap();
        let white = tokens[g["white"]["username"].as_str().unwrap()];
        let black = tokens[g["black"]["username"].as_str().unwrap()];
        let act = |token: &'static str, what: &'static str| {
            post(format!("/api/v1/games/{game}/{what}"))
                .token(token)
                .send(&app)
        };
        if n == 0 {
            let view = get(format!("/api/v1/games/{game}"))
                .token(white)
                .send(&app)
                .await;
            assert_eq!(view.body["ply"], 0);
            assert_eq!(
                (
                    view.body["actions"]["white"]["abort"].as_bool(),
                    view.body["actions"]["white"]["resign"].as_bool()
                ),
                (Some(false), Some(true)),
                "a tournament's game says it cannot be aborted"
            );
            act(white, "abort")
                .await
                .assert_problem(409, "abort_refused");
        }
        let steps: &[(&str, &str)] = match n {
            0 => &[(white, "resign")],
            1 => &[(white, "draw-offer"), (black, "draw-offer/accept")],
            _ => &[(black, "resign")],
        };
        for &(token, what) in steps {
            act(token, what).await.assert_status(200);
        }
    }
    let finished = get(format!("/api/v1/tournaments/{id}"))
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(finished["status"], "finished");
    // The expected table, from the seats drawn: results by seat.
    let by_seat: BTreeMap<usize, String> =
        seats(&finished).into_iter().map(|(n, s)| (s, n)).collect();
    let games = table_games(&berger::single(3));
    let outcomes = [Outcome::BlackWon, Outcome::Draw, Outcome::WhiteWon];
    let expected = standings(
        3,
        &games
            .iter()
            .zip(outcomes)
            .map(|(&(_, _, w, b), o)| game(w - 1, b - 1, Some(o)))
            .collect::<Vec<_>>(),
        &BTreeMap::new(),
    );
    let places: Vec<(String, usize, f64)> = finished["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["player"]["username"].as_str().unwrap().to_owned(),
                s["place"].as_u64().unwrap() as usize,
                s["points"].as_f64().unwrap(),
            )
        })
        .collect();
    let wanted: Vec<(String, usize, f64)> = expected
        .iter()
        .map(|s| {
            (
                by_seat[&(s.player + 1)].clone(),
                s.place,
                f64::from(s.half_points) / 2.0,
            )
        })
        .collect();
    // Players sharing a place may be listed in either order.
    let sorted = |mut rows: Vec<(String, usize, f64)>| {
        rows.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
        rows
    };
    assert_eq!(sorted(places), sorted(wanted.clone()));
    let winner = &finished["winners"][0]["username"];
    assert_eq!(winner, &json!(wanted[0].0));
    // The games in PGN, by round and board, under the tournament's name.
    let pgn = get(format!("/api/v1/tournaments/{id}/games.pgn"))
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    let text = pgn.as_str().unwrap();
    assert_eq!(
        text.matches("[Event \"Winter round robin\"]").count(),
        3,
        "{text}"
    );
    let rounds: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("[Round \""))
        .collect();
    assert_eq!(rounds, ["1\"]", "2\"]", "3\"]"]);
    assert_eq!(text.matches("[Board \"1\"]").count(), 3);
    get("/api/v1/tournaments/nosuch/games.pgn")
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    // Every player is told.
    let request = actix_web::test::TestRequest::get()
        .uri("/api/v1/stream/events?since=0")
        .insert_header(("Authorization", format!("Bearer {bob}")))
        .to_request();
    let mut body = actix_web::test::call_service(&app, request)
        .await
        .into_body();
    let mut seen: Vec<Value> = Vec::new();
    while !seen.iter().any(|e| e["type"] == "tournament_finished") {
        let more = read_events(&mut body, seen.len() + 1).await;
        seen.extend(more);
    }
    let done = seen
        .iter()
        .find(|e| e["type"] == "tournament_finished")
        .unwrap();
    assert_eq!(done["data"]["winners"], json!([wanted[0].0]));
    assert!(seen.iter().any(|e| e["type"] == "tournament_started"));
}

// Three of five places taken at the deadline: the sweeps of two instances
// race to start it, and its six games (a double round robin) are created
// once, each pairing with both colours.
async fn two_instances_start_a_double_round_robin_at_its_deadline_once(db: Db) {
    let clock = clock();
    let (one, two) = (
        TestApp::on(&db).clock(clock.clone()).state(),
        TestApp::on(&db).clock(clock.clone()).state(),
    );
    let app = init(one.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let id = organise(&app, &alice, 5, json!({"double": true})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for token in [&alice, &bob, &carol] {
        join_as(&app, &id, token).await;
    }
    let (a, b) = join(sweep_once(&one), sweep_once(&two)).await;
    a.unwrap();
    b.unwrap();
    let view = get(format!("/api/v1/tournaments/{id}"))
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(view["status"], "open", "before the deadline nothing starts");
    clock.advance(7 * DAY + 1);
    let (a, b) = join(sweep_once(&one), sweep_once(&two)).await;
    a.unwrap();
    b.unwrap();
    let view = get(format!("/api/v1/tournaments/{id}"))
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(view["status"], "started");
    assert_eq!(pairings(&view), table_games(&berger::double(3)));
    assert_eq!(view["games"].as_array().unwrap().len(), 6);
    let games = get("/api/v1/games")
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(
        games["games"].as_array().unwrap().len(),
        4,
        "bob's four games: {games:#}"
    );

    // One player at the deadline: cancelled, no games.
    let soon = rfc3339(clock.now() + DAY);
    let lonely = organise(&app, &bob, 3, json!({"signup_deadline": soon})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    join_as(&app, &lonely, &bob).await;
    clock.advance(7 * DAY + 1);
    sweep_once(&one).await.unwrap();
    let view = get(format!("/api/v1/tournaments/{lonely}"))
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(view["status"], "cancelled");
    assert_eq!(view["games"], json!([]));
}

async fn sign_up_and_withdrawal(db: Db) {
    let app = TestApp::on(&db).start().await;
    let names = ["alice", "bob", "carol", "dave"];
    let mut tokens = Vec::new();
    for name in names {
        tokens.push(sign_up_for_a_year(&app, name).await);
    }
    let organiser = &tokens[0];
    // Bad requests.
    for (extra, code) in [
        (json!({"capacity": 2}), "invalid_tournament"),
        (json!({"capacity": 18}), "invalid_tournament"),
        (json!({"name": " "}), "invalid_tournament"),
        (
            json!({"signup_deadline": rfc3339(START_TIME - DAY)}),
            "invalid_tournament",
        ),
        (
            json!({"start": {"kind": "chess960", "id": 5}, "start_per_round": true}),
            "invalid_tournament",
        ),
        (
            json!({"rated": true, "start": {"kind": "fen", "fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}}),
            "unrated_start",
        ),
        (json!({"days_per_move": 4}), "invalid_days_per_move"),
    ] {
        let mut body = json!({"name": "t", "rules": "standard", "days_per_move": 3,
                              "capacity": 4, "signup_deadline": rfc3339(START_TIME + DAY)});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        post("/api/v1/tournaments")
            .token(organiser)
            .json(body.clone())
            .send(&app)
            .await
            .assert_problem(422, code);
    }
    let id = organise(
        &app,
        organiser,
        3,
        json!({"start": {"kind": "chess960"}, "start_per_round": true}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = |what: &str| format!("/api/v1/tournaments/{id}/{what}");
    join_as(&app, &id, &tokens[1]).await;
    post(path("join"))
        .token(&tokens[1])
        .send(&app)
        .await
        .assert_problem(409, "already_joined");
    // Leaving before the start takes the player off.
    let left = post(path("leave"))
        .token(&tokens[1])
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(left["player_count"], 0);
    post(path("leave"))
        .token(&tokens[1])
        .send(&app)
        .await
        .assert_problem(409, "not_joined");
    for token in &tokens[1..4] {
        join_as(&app, &id, token).await;
    }
    post(path("join"))
        .token(&tokens[0])
        .send(&app)
        .await
        .assert_problem(409, "tournament_closed");
    let view = get(format!("/api/v1/tournaments/{id}"))
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(view["status"], "started");
    // A Chess960 array drawn for each round: every game of a round shares it.
    let mut arrays: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    for g in view["games"].as_array().unwrap() {
        let game = get(format!("/api/v1/games/{}", g["game_id"].as_str().unwrap()))
            .token(&tokens[1])
            .send(&app)
            .await
            .assert_status(200)
            .clone();
        assert_eq!(game["start"]["kind"], "chess960");
        arrays
            .entry(g["round"].as_i64().unwrap())
            .or_default()
            .insert(game["start"]["id"].as_i64().unwrap());
    }
    assert_eq!(arrays.len(), 3);
    assert!(arrays.values().all(|ids| ids.len() == 1), "{arrays:?}");
    // Dave withdraws before finishing any game: his results are annulled
    // and his games, resigned, count for nobody.
    let withdrawn = post(path("leave"))
        .token(&tokens[3])
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    let dave = withdrawn["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["player"]["username"] == "dave")
        .unwrap()
        .clone();
    assert_eq!(
        (dave["withdrawn"].clone(), dave["annulled"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(dave["points"], 0.0);
    for s in withdrawn["standings"].as_array().unwrap() {
        assert_eq!(
            s["points"], 0.0,
            "annulled: nobody scored against dave: {s:#}"
        );
    }
    let daves_games: Vec<&Value> = withdrawn["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["white"]["username"] == "dave" || g["black"]["username"] == "dave")
        .collect();
    assert_eq!(daves_games.len(), 2);
    assert!(
        daves_games.iter().all(|g| !g["result"].is_null()),
        "resigned"
    );
    let list = get("/api/v1/tournaments?status=started&rules=standard")
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(list["tournaments"][0]["id"], json!(id));
    get("/api/v1/tournaments?status=sideways")
        .send(&app)
        .await
        .assert_problem(422, "invalid_query");
}

// A withdrawal sent on one instance while an opponent resigns one of the
// player's games on another (on Postgres truly at once) is whole or not at
// all: withdrawn, the player has no game left under way; refused, they are
// not withdrawn, and sending it again completes it.
async fn a_withdrawal_racing_a_resignation_is_all_or_nothing(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let other = TestApp::on(&db).clock(clock).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let withdrawn = |view: &Value| {
        view["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["player"]["username"] == "alice")
            .unwrap()["withdrawn"]
            == json!(true)
    };
    let under_way = |view: &Value| {
        view["games"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["white"]["username"] == "alice" || g["black"]["username"] == "alice")
            .filter(|g| g["result"].is_null())
            .count()
    };
    for round in 0..20 {
        // Organised in turn: an account organises at most ten at once.
        let organiser = [&alice, &bob, &carol][round % 3];
        let id = organise(&app, organiser, 3, json!({})).await["id"]
            .as_str()
            .unwrap()
            .to_owned();
        for token in [&alice, &bob, &carol] {
            join_as(&app, &id, token).await;
        }
        let view = get(format!("/api/v1/tournaments/{id}")).send(&app).await;
        let with_bob = view.assert_status(200)["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| {
                let names = [&g["white"]["username"], &g["black"]["username"]];
                names.contains(&&json!("alice")) && names.contains(&&json!("bob"))
            })
            .unwrap()["game_id"]
            .as_str()
            .unwrap()
            .to_owned();
        let leave = post(format!("/api/v1/tournaments/{id}/leave")).token(&alice);
        let resign = post(format!("/api/v1/games/{with_bob}/resign")).token(&bob);
        let (left, resigned) = join(leave.send(&app), resign.send(&other)).await;
        // Bob's resignation loses only to alice's withdrawal having
        // resigned the game first.
        assert!(
            [200, 409].contains(&resigned.status.as_u16()),
            "round {round}: {}",
            resigned.body
        );
        let view = get(format!("/api/v1/tournaments/{id}")).send(&app).await;
        let view = view.assert_status(200).clone();
        if left.status.as_u16() == 200 {
            assert!(withdrawn(&view), "round {round}");
            assert_eq!(under_way(&view), 0, "round {round}: {view:#}");
        } else {
            assert!(!withdrawn(&view), "round {round}: {}", left.body);
            assert!(under_way(&view) > 0, "round {round}");
            post(format!("/api/v1/tournaments/{id}/leave"))
                .token(&alice)
                .send(&app)
                .await
                .assert_status(200);
            let view = get(format!("/api/v1/tournaments/{id}")).send(&app).await;
            let view = view.assert_status(200).clone();
            assert!(withdrawn(&view) && under_way(&view) == 0, "round {round}");
        }
        post(format!("/api/v1/tournaments/{id}/leave"))
            .token(&alice)
            .send(&app)
            .await
            .assert_problem(409, "not_joined");
    }
}
