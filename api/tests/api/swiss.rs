//! Swiss tournaments through the API: each round paired when the one
//! before it ends, by the Dutch system from the tournament's own report
//! (the pairing engine is checked against py4swiss in `kingpost-pairing`;
//! here, that the service pairs what it stored); byes, withdrawals and
//! late entries; two instances closing a round at once; the standings by
//! the tie-breaks chosen; the TRF export.

use std::collections::BTreeMap;

use actix_web::body::MessageBody;
use futures_util::future::join;
use kingpost_api::{
    clock::{Clock, DAY, rfc3339},
    db::NeverYield,
    domain::{
        game::{self, Action},
        tournament::{
            lifecycle,
            swiss::{GAMES_A_STEP, PairRound, WriteGames},
        },
    },
    models::{account, game as stored_games, tournament as stored_tournaments},
    notify::{FollowUp, Outbox},
    server::sweep_once,
};
use kingpost_pairing::{
    swiss::dutch::pair_next_round,
    trf::{Report, RoundResult},
};
use serde_json::{Value, json};

use crate::{
    events::read_events,
    on_both_databases,
    support::{
        Db, START_TIME, Served, TestApp, clock, delete, get, init, players, post,
        sign_up_for_a_year, tournament_view as view,
    },
};

on_both_databases!(
    a_swiss_of_nine_played_over_four_rounds_to_its_winners,
    two_instances_closing_a_round_at_once_pair_the_next_once,
    a_round_whose_pairing_was_interrupted_is_paired_by_the_sweep,
    a_round_is_written_in_steps_that_a_stop_leaves_to_the_sweep,
    a_withdrawal_and_a_late_entry_mid_event,
    a_round_deadline_adjudicates_or_waits,
    an_event_without_vacation_that_starts_at_its_time,
    a_swiss_is_checked_when_organised
);

/// A Swiss organised by `organiser`, the request's other fields as given.
async fn organise<B: MessageBody>(app: &impl Served<B>, organiser: &str, extra: Value) -> Value {
    let mut body = json!({"name": "Open Swiss", "rules": "standard", "days_per_move": 3,
                          "format": "swiss", "capacity": 9,
                          "signup_deadline": rfc3339(START_TIME + 7 * DAY)});
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

/// Joins: the tournament as the join answers it.
async fn join_as<B: MessageBody>(app: &impl Served<B>, id: &str, token: &str) -> Value {
    post(format!("/api/v1/tournaments/{id}/join"))
        .token(token)
        .send(app)
        .await
        .assert_status(200)
        .clone()
}

/// A Swiss organised by the first of `names`, joined by each of them in
/// turn: its id.
async fn organise_joined<B: MessageBody>(
    app: &impl Served<B>,
    tokens: &BTreeMap<String, String>,
    names: &[&str],
    extra: Value,
) -> String {
    let id = organise(app, &tokens[names[0]], extra).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for name in names {
        join_as(app, &id, &tokens[*name]).await;
    }
    id
}

async fn report<B: MessageBody>(app: &impl Served<B>, id: &str) -> Report {
    let answer = get(format!("/api/v1/tournaments/{id}/report.trf"))
        .send(app)
        .await
        .assert_status(200)
        .clone();
    Report::parse(answer.as_str().unwrap()).unwrap()
}

/// A round's games as (white, black) usernames, by board.
fn games_of(view: &Value, round: i64) -> Vec<(String, String, String)> {
    view["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["round"] == round)
        .map(|g| {
            (
                g["game_id"].as_str().unwrap().to_owned(),
                g["white"]["username"].as_str().unwrap().to_owned(),
                g["black"]["username"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The round's pairing as the engine gives it from the report cut to the
/// rounds before it (absences already written), by username: (white,
/// black), black empty for the bye.
fn engine_pairing(report: &Report, round: usize) -> Vec<(String, String)> {
    let mut cut = report.clone();
    for player in &mut cut.players {
        let absent = player
            .rounds
            .get(round - 1)
            .is_some_and(|r| r.result == RoundResult::ZeroBye);
        player
            .rounds
            .truncate(if absent { round } else { round - 1 });
    }
    let name = |n: u32| report.players[n as usize - 1].name.clone();
    pair_next_round(&cut)
        .unwrap()
        .into_iter()
        .map(|(w, b)| (name(w), b.map(name).unwrap_or_default()))
        .collect()
}

/// The round's pairing as the service made it: games by board, then the
/// pairing-allocated bye.
fn service_pairing(view: &Value, round: i64) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = games_of(view, round)
        .into_iter()
        .map(|(_, w, b)| (w, b))
        .collect();
    for bye in view["byes"].as_array().unwrap() {
        if bye["round"] == round && bye["kind"] == "pairing" {
            out.push((
                bye["player"]["username"].as_str().unwrap().to_owned(),
                String::new(),
            ));
        }
    }
    out
}

/// Ends a game: on odd boards White resigns, on even ones a draw.
async fn end_game<B: MessageBody>(
    app: &impl Served<B>,
    tokens: &BTreeMap<String, String>,
    board: usize,
    (game, white, black): &(String, String, String),
) {
    let steps: Vec<(&str, &str)> = if board % 2 == 1 {
        vec![(white, "resign")]
    } else {
        vec![(white, "draw-offer"), (black, "draw-offer/accept")]
    };
    for (who, what) in steps {
        post(format!("/api/v1/games/{game}/{what}"))
            .token(&tokens[who])
            .send(app)
            .await
            .assert_status(200);
    }
}

// Nine players, four rounds: full on the ninth sign-up, round 1 paired at
// once (four games and a bye); each later round only when the last game
// of the one before ends; every round the pairing the engine gives from
// the tournament's own report; a different player has the bye each
// round (C.04.1: never twice); finished after round 4 with its winners,
// first by points then by the tie-breaks chosen.
async fn a_swiss_of_nine_played_over_four_rounds_to_its_winners(db: Db) {
    let app = TestApp::on(&db).start().await;
    let names = [
        "ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal", "ivy",
    ];
    let tokens = players(&app, &names).await;
    let created = organise(
        &app,
        &tokens["ann"],
        json!({"rounds": 4, "tiebreaks": ["buchholz", "sonneborn_berger"]}),
    )
    .await;
    assert_eq!(
        (&created["format"], &created["rounds"], &created["round"]),
        (&json!("swiss"), &json!(4), &json!(0))
    );
    let id = created["id"].as_str().unwrap().to_owned();
    let mut joined = Value::Null;
    for name in names {
        joined = join_as(&app, &id, &tokens[name]).await;
    }
    assert_eq!(
        (&joined["status"], &joined["round"]),
        (&json!("started"), &json!(1)),
        "the join that fills it answers with round 1 paired"
    );
    let mut byes = Vec::new();
    for round in 1..=4i64 {
        let now = view(&app, &id).await;
        assert_eq!(now["status"], "started");
        assert_eq!(now["round"], round, "{now:#}");
        let games = games_of(&now, round);
        assert_eq!(games.len(), 4, "round {round}");
        assert_eq!(
            service_pairing(&now, round),
            engine_pairing(&report(&app, &id).await, round as usize),
            "round {round}"
        );
        let bye: Vec<&Value> = now["byes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["round"] == round)
            .collect();
        assert_eq!((bye.len(), &bye[0]["kind"]), (1, &json!("pairing")));
        byes.push(bye[0]["player"]["username"].as_str().unwrap().to_owned());
        for (board, game) in games.iter().enumerate() {
            end_game(&app, &tokens, board + 1, game).await;
            if board + 1 < games.len() {
                let between = view(&app, &id).await;
                assert_eq!(between["round"], round, "the round waits for its last game");
            }
        }
    }
    let mut distinct = byes.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "no player has the bye twice: {byes:?}");
    let done = view(&app, &id).await;
    assert_eq!(done["status"], "finished", "{done:#}");
    // The standings against the report's own arithmetic: points, then
    // Buchholz, then Sonneborn-Berger, best first.
    let table = done["standings"].as_array().unwrap();
    assert_eq!(table.len(), 9);
    let key = |s: &Value| {
        let tb = s["tiebreaks"].as_array().unwrap();
        assert_eq!(
            (tb[0]["tiebreak"].as_str(), tb[1]["tiebreak"].as_str()),
            (Some("buchholz"), Some("sonneborn_berger"))
        );
        (
            s["points"].as_f64().unwrap(),
            tb[0]["value"].as_f64().unwrap(),
            tb[1]["value"].as_f64().unwrap(),
        )
    };
    for pair in table.windows(2) {
        assert!(key(&pair[0]) >= key(&pair[1]), "{pair:#?}");
        let same = key(&pair[0]) == key(&pair[1]);
        assert_eq!(same, pair[0]["place"] == pair[1]["place"]);
    }
    let trf = report(&app, &id).await;
    let points: f64 = trf.players.iter().map(|p| f64::from(p.points_tenths)).sum();
    assert_eq!(points / 10.0, 4.0 * 4.0 + 4.0, "16 games and 4 byes");
    for s in table {
        let line = trf
            .players
            .iter()
            .find(|p| p.name == s["player"]["username"].as_str().unwrap())
            .unwrap();
        assert_eq!(f64::from(line.points_tenths) / 10.0, s["points"]);
        // Buchholz by hand from the report: the opponents' scores, and the
        // player's own for the bye.
        let score = |n: u32| f64::from(trf.players[n as usize - 1].points_tenths) / 10.0;
        let own = f64::from(line.points_tenths) / 10.0;
        let buchholz: f64 = line
            .rounds
            .iter()
            .map(|r| r.opponent.map_or(own, score))
            .sum();
        assert_eq!(s["tiebreaks"][0]["value"], buchholz, "{s:#}");
    }
    let winners: Vec<&Value> = table.iter().filter(|s| s["place"] == 1).collect();
    assert_eq!(
        done["winners"],
        json!(winners.iter().map(|s| &s["player"]).collect::<Vec<_>>())
    );
    // Each player was told of each round: started, then three rounds.
    let request = actix_web::test::TestRequest::get()
        .uri("/api/v1/stream/events?since=0")
        .insert_header(("Authorization", format!("Bearer {}", tokens["ivy"])))
        .to_request();
    let mut body = actix_web::test::call_service(&app, request)
        .await
        .into_body();
    let mut seen: Vec<Value> = Vec::new();
    while !seen.iter().any(|e| e["type"] == "tournament_finished") {
        let more = read_events(&mut body, seen.len() + 1).await;
        seen.extend(more);
    }
    let kinds: Vec<&str> = seen
        .iter()
        .filter_map(|e| e["type"].as_str())
        .filter(|k| k.starts_with("tournament_"))
        .collect();
    assert_eq!(
        kinds,
        [
            "tournament_started",
            "tournament_round",
            "tournament_round",
            "tournament_round",
            "tournament_finished"
        ]
    );
}

// Four players, one round in: the round's two games end at once, one
// through each of two instances; the next round is paired once.
async fn two_instances_closing_a_round_at_once_pair_the_next_once(db: Db) {
    let (one, two) = (TestApp::on(&db).state(), TestApp::on(&db).state());
    let (app, other) = (init(one).await, init(two).await);
    let names = ["ann", "ben", "cat", "dan"];
    let tokens = players(&app, &names).await;
    let id = organise_joined(&app, &tokens, &names, json!({"capacity": 4, "rounds": 3})).await;
    let games = games_of(&view(&app, &id).await, 1);
    assert_eq!(games.len(), 2);
    let resign = |app, (game, white, _): &(String, String, String)| {
        post(format!("/api/v1/games/{game}/resign"))
            .token(&tokens[white])
            .send(app)
    };
    let (a, b) = join(resign(&app, &games[0]), resign(&other, &games[1])).await;
    a.assert_status(200);
    b.assert_status(200);
    let now = view(&app, &id).await;
    assert_eq!(now["round"], 2);
    assert_eq!(games_of(&now, 2).len(), 2, "{now:#}");
    assert_eq!(now["games"].as_array().unwrap().len(), 4);
}

// docs/tournaments.md, "Pairings": a round is paired when the last game
// of the round before ends. The pairing follows the change that ended the
// round (computed off the writers' turn); a stop between the two leaves
// the round unpaired until the sweep pairs it.
async fn a_round_whose_pairing_was_interrupted_is_paired_by_the_sweep(db: Db) {
    let state = TestApp::on(&db).state();
    let app = init(state.clone()).await;
    let names = ["ann", "ben", "cat", "dan"];
    let tokens = players(&app, &names).await;
    let id = organise_joined(&app, &tokens, &names, json!({"capacity": 4, "rounds": 3})).await;
    let games = games_of(&view(&app, &id).await, 1);
    end_game(&app, &tokens, 1, &games[0]).await;
    // The round's last game ends as a change whose follow-ups are lost, as
    // when the server stops right after committing it.
    let mut conn = state.pool.get().unwrap();
    let game_id = games[1].0.as_str().into();
    let white = stored_games::find(&mut conn, &game_id)
        .unwrap()
        .unwrap()
        .white_id
        .unwrap();
    let mut lost = Outbox::default();
    game::act(
        &mut conn,
        &mut lost,
        state.clock.now(),
        &game_id,
        &white,
        Action::Resign,
    )
    .unwrap();
    drop(conn);
    let waiting = view(&app, &id).await;
    assert_eq!(waiting["round"], 1, "not yet paired");
    assert!(
        waiting["games"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| !g["result"].is_null())
    );
    sweep_once(&state).await.unwrap();
    let paired = view(&app, &id).await;
    assert_eq!(paired["round"], 2, "{paired:#}");
    assert_eq!(games_of(&paired, 2).len(), 2);
    assert_eq!(
        service_pairing(&paired, 2),
        engine_pairing(&report(&app, &id).await, 2)
    );
}

/// Makes a follow-up as the server does, without its own follow-ups (as
/// when the server stops right after it): what it left to follow.
fn follow_once(state: &kingpost_api::state::AppState, follow_up: &dyn FollowUp) -> Outbox {
    let mut conn = state.pool.get().unwrap();
    let prepared = follow_up.prepare(&mut conn).unwrap().expect("due");
    let mut left = Outbox::default();
    let now = state.clock.now();
    assert!(
        prepared
            .write(&mut conn, &mut left, now, &NeverYield)
            .unwrap()
    );
    left
}

// docs/tournaments.md, "Pairings": a round's pairs are stored with its
// pairing, and its games written a few at a time after; a stop between
// two steps leaves the rest to the sweep, as paired; a player who
// withdraws meanwhile has their game written and resigned.
async fn a_round_is_written_in_steps_that_a_stop_leaves_to_the_sweep(db: Db) {
    let state = TestApp::on(&db).state();
    let app = init(state.clone()).await;
    // One game more than a step holds, and one more.
    let count = 2 * (GAMES_A_STEP + 2);
    let names: Vec<String> = (0..count).map(|i| format!("p{i:02}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let tokens = players(&app, &names).await;
    let capacity = json!({"capacity": count, "rounds": 2});
    let id = organise_joined(&app, &tokens, &names[..count - 1], capacity).await;
    // The last entry fills it: the start's follow-ups are made one by one,
    // and the second step's lost.
    let mut conn = state.pool.get().unwrap();
    let last = account::find_by_username(&mut conn, names[count - 1])
        .unwrap()
        .unwrap()
        .id;
    let mut left = Outbox::default();
    let now = state.clock.now();
    lifecycle::join(&mut conn, &mut left, now, &id.as_str().into(), &last).unwrap();
    drop(conn);
    assert!(left.has_follow_ups(), "the pairing follows the start");
    let paired = follow_once(&state, &PairRound(id.as_str().into()));
    let stored = view(&app, &id).await;
    assert_eq!(stored["round"], 1);
    assert!(games_of(&stored, 1).is_empty(), "pairs stored, no game yet");
    assert!(paired.has_follow_ups(), "the games follow the pairing");
    let next = follow_once(&state, &WriteGames(id.as_str().into()));
    assert!(next.has_follow_ups(), "a step leaves the next");
    let part = view(&app, &id).await;
    assert_eq!(games_of(&part, 1).len(), GAMES_A_STEP);
    // A player of a pair still waiting for its game withdraws.
    let mut conn = state.pool.get().unwrap();
    let pending = stored_tournaments::pairings_pending(&mut conn, &id.as_str().into(), 10).unwrap();
    assert_eq!(pending.len(), 2, "{pending:?}");
    let leaving = account::find(&mut conn, &pending[1].white_id)
        .unwrap()
        .unwrap()
        .username;
    drop(conn);
    post(format!("/api/v1/tournaments/{id}/leave"))
        .token(&tokens[leaving.as_str()])
        .send(&app)
        .await
        .assert_status(200);
    let withdrawn = view(&app, &id).await;
    let resigned: Vec<_> = withdrawn["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["white"]["username"] == leaving.as_str())
        .collect();
    assert_eq!(resigned.len(), 1, "{withdrawn:#}");
    assert_eq!(resigned[0]["result"], "0-1");
    assert_eq!(resigned[0]["board"], pending[1].board);
    // The sweep writes the last.
    sweep_once(&state).await.unwrap();
    let whole = view(&app, &id).await;
    assert_eq!(games_of(&whole, 1).len(), count / 2);
    assert_eq!(
        service_pairing(&whole, 1),
        engine_pairing(&report(&app, &id).await, 1)
    );
    // Every player told of their game once, with it.
    use diesel::prelude::*;
    use kingpost_api::db::schema::events;
    let mut conn = state.pool.get().unwrap();
    let told: Vec<(String, Option<String>)> = events::table
        .filter(events::kind.eq("tournament_started"))
        .select((events::account_id, events::game_id))
        .load(&mut **conn)
        .unwrap();
    assert_eq!(told.len(), count);
    let accounts: std::collections::BTreeSet<&String> = told.iter().map(|(a, _)| a).collect();
    assert_eq!(accounts.len(), count);
    assert!(told.iter().all(|(_, game)| game.is_some()));
}

// Five players at the deadline, three rounds. During round 1 a sixth enters late: absent
// (no point) from round 1, paired from round 2. In round 2 a player
// withdraws: their game is resigned, and they are absent from round 3 on,
// never paired again.
async fn a_withdrawal_and_a_late_entry_mid_event(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let names = ["ann", "ben", "cat", "dan", "eve", "fay"];
    let tokens = players(&app, &names).await;
    let extra = json!({"capacity": 8, "rounds": 3});
    let id = organise_joined(&app, &tokens, &names[..5], extra).await;
    // Five of eight places taken at the deadline: it starts.
    clock.advance(7 * DAY + 1);
    sweep_once(&state).await.unwrap();
    let started = view(&app, &id).await;
    assert_eq!(
        (&started["status"], &started["round"]),
        (&json!("started"), &json!(1))
    );
    // Fay enters during round 1.
    let entered = post(format!("/api/v1/tournaments/{id}/join"))
        .token(&tokens["fay"])
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    let absent: Vec<(i64, &str, &str)> = entered["byes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["round"].as_i64().unwrap(),
                b["player"]["username"].as_str().unwrap(),
                b["kind"].as_str().unwrap(),
            )
        })
        .filter(|b| b.2 == "absent")
        .collect();
    assert_eq!(absent, [(1, "fay", "absent")]);
    for (board, game) in games_of(&entered, 1).iter().enumerate() {
        end_game(&app, &tokens, board + 1, game).await;
    }
    let round2 = view(&app, &id).await;
    assert_eq!(round2["round"], 2);
    let games = games_of(&round2, 2);
    assert_eq!(games.len(), 3, "six players, three games: {round2:#}");
    assert!(games.iter().any(|(_, w, b)| w == "fay" || b == "fay"));
    assert_eq!(
        service_pairing(&round2, 2),
        engine_pairing(&report(&app, &id).await, 2)
    );
    // Ben withdraws mid-round: his game is resigned.
    let (ben_game, ..) = games
        .iter()
        .find(|(_, w, b)| w == "ben" || b == "ben")
        .unwrap()
        .clone();
    post(format!("/api/v1/tournaments/{id}/leave"))
        .token(&tokens["ben"])
        .send(&app)
        .await
        .assert_status(200);
    let game = get(format!("/api/v1/games/{ben_game}"))
        .token(&tokens["ben"])
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(game["status"], "finished");
    for (board, game) in games.iter().enumerate() {
        if game.0 != ben_game {
            end_game(&app, &tokens, board + 1, game).await;
        }
    }
    let round3 = view(&app, &id).await;
    assert_eq!(round3["round"], 3);
    let games = games_of(&round3, 3);
    assert!(games.iter().all(|(_, w, b)| w != "ben" && b != "ben"));
    assert!(
        round3["byes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["round"] == 3 && b["player"]["username"] == "ben" && b["kind"] == "absent")
    );
    assert_eq!(
        service_pairing(&round3, 3),
        engine_pairing(&report(&app, &id).await, 3)
    );
    let ben = round3["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["player"]["username"] == "ben")
        .unwrap();
    assert_eq!(ben["withdrawn"], true);
    // After the last round is paired, no more entries.
    let late = sign_up_for_a_year(&app, "gil").await;
    post(format!("/api/v1/tournaments/{id}/join"))
        .token(&late)
        .send(&app)
        .await
        .assert_problem(409, "tournament_closed");
}

async fn a_swiss_is_checked_when_organised(db: Db) {
    let app = TestApp::on(&db).start().await;
    let ann = sign_up_for_a_year(&app, "ann").await;
    for extra in [
        json!({"capacity": 1001}),
        json!({"rounds": 9}),
        json!({"rounds": 0}),
        json!({"double": true}),
        json!({"tiebreaks": ["buchholz", "buchholz"]}),
        json!({"format": "round_robin", "rounds": 3}),
    ] {
        let mut body = json!({"name": "t", "rules": "standard", "days_per_move": 3,
                              "format": "swiss", "capacity": 9,
                              "signup_deadline": rfc3339(START_TIME + DAY)});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        post("/api/v1/tournaments")
            .token(&ann)
            .json(body)
            .send(&app)
            .await
            .assert_problem(422, "invalid_tournament");
    }
    // A round robin has no report.
    let rr = organise(&app, &ann, json!({"format": "round_robin", "capacity": 3})).await;
    get(format!(
        "/api/v1/tournaments/{}/report.trf",
        rr["id"].as_str().unwrap()
    ))
    .send(&app)
    .await
    .assert_problem(409, "not_a_swiss");
    // Rounds left out: set at the start from the entries.
    let open = organise(&app, &ann, json!({})).await;
    assert_eq!(open["rounds"], Value::Null);
    assert_eq!(
        open["tiebreaks"],
        json!([
            "buchholz_cut1",
            "buchholz",
            "sonneborn_berger",
            "direct_encounter",
            "progressive"
        ])
    );
}

// Two Swiss of four, rounds of two days: in one the games still under way
// at the deadline are drawn by adjudication and the next round paired
// with a deadline of its own; in the other the round waits for them.
async fn a_round_deadline_adjudicates_or_waits(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let names = ["ann", "ben", "cat", "dan"];
    let tokens = players(&app, &names).await;
    let mut ids = Vec::new();
    for adjudication in ["draw", "wait"] {
        let extra = json!({"capacity": 4, "rounds": 3, "round_days": 2,
                           "adjudication": adjudication});
        let id = organise_joined(&app, &tokens, &names, extra).await;
        ids.push(id);
    }
    let paired_at = clock.now();
    let games: Vec<_> = {
        let mut all = Vec::new();
        for id in &ids {
            let now = view(&app, id).await;
            assert_eq!(now["round_deadline"], rfc3339(paired_at + 2 * DAY));
            let games = games_of(&now, 1);
            // The first game of each ends; the second is still under way.
            end_game(&app, &tokens, 1, &games[0]).await;
            all.push(games[1].clone());
        }
        all
    };
    clock.advance(DAY);
    sweep_once(&state).await.unwrap();
    assert_eq!(view(&app, &ids[0]).await["round"], 1, "before the deadline");
    clock.advance(DAY + 1);
    sweep_once(&state).await.unwrap();
    let drawn = view(&app, &ids[0]).await;
    assert_eq!(drawn["round"], 2, "{drawn:#}");
    assert_eq!(drawn["round_deadline"], rfc3339(clock.now() + 2 * DAY));
    let game = get(format!("/api/v1/games/{}", games[0].0))
        .token(&tokens["ann"])
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(
        (&game["status"], &game["result"], &game["termination"]),
        (
            &json!("finished"),
            &json!("1/2-1/2"),
            &json!("adjudication")
        )
    );
    let pgn = get(format!("/api/v1/games/{}/pgn", games[0].0))
        .token(&tokens["ann"])
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert!(
        pgn.as_str()
            .unwrap()
            .contains("[Termination \"adjudication\"]"),
        "{pgn}"
    );
    // The other waits: its game plays on, its round stays.
    let waiting = view(&app, &ids[1]).await;
    assert_eq!(waiting["round"], 1);
    let game = get(format!("/api/v1/games/{}", games[1].0))
        .token(&tokens["ann"])
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(game["status"], "started");
}

// The event's own rules, for a round robin as for a Swiss: full before its
// start time, a tournament that starts at its time waits for it; its games
// allow no vacation, so a player's vacation does not stop their clock (in
// a game from a challenge it does: `correspondence::vacation_stops_the_clock`).
async fn an_event_without_vacation_that_starts_at_its_time(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let names = ["ann", "ben", "cat"];
    let tokens = players(&app, &names).await;
    for format in ["round_robin", "swiss"] {
        let extra = json!({"format": format, "capacity": 3, "vacation": false,
                           "start_when_full": false,
                           "signup_deadline": rfc3339(clock.now() + DAY)});
        let id = organise_joined(&app, &tokens, &names, extra).await;
        let full = view(&app, &id).await;
        assert_eq!(
            (&full["status"], &full["vacation"], &full["start_when_full"]),
            (&json!("open"), &json!(false), &json!(false)),
            "full, it waits for its time: {full:#}"
        );
        post(format!("/api/v1/tournaments/{id}/leave"))
            .token(&tokens["cat"])
            .send(&app)
            .await
            .assert_status(200);
        join_as(&app, &id, &tokens["cat"]).await;
    }
    clock.advance(DAY + 1);
    sweep_once(&state).await.unwrap();
    let list = get("/api/v1/tournaments?status=started")
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(list["tournaments"].as_array().unwrap().len(), 2, "{list:#}");
    let id = list["tournaments"][0]["id"].as_str().unwrap().to_owned();
    let (game, white, _) = games_of(&view(&app, &id).await, 1)[0].clone();
    let read = |token| get(format!("/api/v1/games/{game}")).token(token).send(&app);
    let before = read(&tokens[&white]).await.assert_status(200).clone();
    assert_eq!(before["vacation_allowed"], false);
    // White, to move, goes on vacation: the deadline stays; a day later
    // the clock shows a day gone.
    post("/api/v1/account/vacation")
        .token(&tokens[&white])
        .send(&app)
        .await
        .assert_status(200);
    clock.advance(DAY);
    let during = read(&tokens[&white]).await.assert_status(200).clone();
    assert_eq!(during["white"]["on_vacation"], true);
    assert_eq!(during["deadline"], before["deadline"]);
    assert_eq!(during["time_left_seconds"], 2 * 86400);
    delete("/api/v1/account/vacation")
        .token(&tokens[&white])
        .send(&app)
        .await
        .assert_status(200);
    let after = read(&tokens[&white]).await.assert_status(200).clone();
    assert_eq!(
        after["deadline"], before["deadline"],
        "the vacation's end moves nothing"
    );
    clock.advance(2 * DAY + 1);
    sweep_once(&state).await.unwrap();
    let lost = read(&tokens[&white]).await.assert_status(200).clone();
    assert_eq!(lost["termination"], "timeout");
}
