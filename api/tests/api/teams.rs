//! Teams and team matches through the API, by the rules for players in
//! `docs/tournaments.md` ("Teams", "Team matches"): teams made, joined by
//! invitation, captained and left; a match organised, accepted, signed up
//! for, ordered by its captains, played board by board to its score; a
//! withdrawal and a loss on time forfeiting a board's games.

use actix_web::body::MessageBody;
use kingpost_api::{
    clock::{DAY, HOUR, SECOND, rfc3339},
    server::sweep_once,
};
use serde_json::{Value, json};

use crate::{
    events::read_events,
    on_both_databases,
    support::{
        Answer, Db, START_TIME, Served, TestApp, clock, get, init, players, post, put,
        tournament_view as view,
    },
};

on_both_databases!(
    teams_are_made_joined_by_invitation_captained_and_left,
    a_team_match_of_four_boards_played_to_its_score,
    a_withdrawal_and_a_loss_on_time_forfeit_a_boards_games,
    a_team_match_is_checked_when_organised_and_joined
);

/// A team made by `captain`: its id.
async fn make_team<B: MessageBody>(
    app: &impl Served<B>,
    captain: &str,
    name: &str,
    open: bool,
) -> String {
    post("/api/v1/teams")
        .token(captain)
        .json(json!({"name": name, "open": open, "description": "Correspondence friends"}))
        .send(app)
        .await
        .assert_status(201)["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn join_team<B: MessageBody>(app: &impl Served<B>, team: &str, token: &str) {
    post(format!("/api/v1/teams/{team}/join"))
        .token(token)
        .send(app)
        .await
        .assert_status(200);
}

async fn team<B: MessageBody>(app: &impl Served<B>, id: &str) -> Value {
    get(format!("/api/v1/teams/{id}"))
        .send(app)
        .await
        .assert_status(200)
        .clone()
}

async fn organise<B: MessageBody>(app: &impl Served<B>, token: &str, body: Value) -> Answer {
    post("/api/v1/tournaments")
        .token(token)
        .json(body)
        .send(app)
        .await
}

/// The request for a match between `home` and `away` on `boards` boards.
fn match_request(home: &str, away: &str, boards: i32, extra: Value) -> Value {
    let mut body = json!({"name": "Friendly", "rules": "standard", "days_per_move": 3,
                          "format": "team_match", "capacity": boards,
                          "teams": {"home": home, "away": away},
                          "signup_deadline": rfc3339(START_TIME + 7 * DAY)});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    body
}

fn usernames(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().or_else(|| p["username"].as_str()).unwrap())
        .collect()
}

/// A board's two games: (round 1, round 2) as (game id, White, Black).
fn board_games(view: &Value, board: i64) -> Vec<(String, String, String)> {
    let mut games: Vec<&Value> = view["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["board"] == board)
        .collect();
    games.sort_by_key(|g| g["round"].as_i64());
    games
        .iter()
        .map(|g| {
            (
                g["game_id"].as_str().unwrap().to_owned(),
                g["white"]["username"].as_str().unwrap().to_owned(),
                g["black"]["username"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

async fn act<B: MessageBody>(app: &impl Served<B>, token: &str, game: &str, what: &str) {
    post(format!("/api/v1/games/{game}/{what}"))
        .token(token)
        .send(app)
        .await
        .assert_status(200);
}

/// Events of `token`'s account of the given types, as far as `last`.
async fn events_until<B: MessageBody + Unpin>(
    app: &impl Served<B>,
    token: &str,
    last: &str,
) -> Vec<Value> {
    let request = actix_web::test::TestRequest::get()
        .uri("/api/v1/stream/events?since=0")
        .insert_header(("Authorization", format!("Bearer {token}")))
        .to_request();
    let mut body = actix_web::test::call_service(app, request)
        .await
        .into_body();
    let mut seen: Vec<Value> = Vec::new();
    while !seen.iter().any(|e| e["type"] == last) {
        let more = read_events(&mut body, seen.len() + 1).await;
        seen.extend(more);
    }
    seen
}

// "Teams": open or by invitation; a captain invites and makes captains; a
// member leaves at will, the last captain's place going to the member
// there longest; names unique whatever their case.
async fn teams_are_made_joined_by_invitation_captained_and_left(db: Db) {
    let clock = clock();
    let app = init(TestApp::on(&db).clock(clock.clone()).state()).await;
    let tokens = players(&app, &["ann", "ben", "cat", "dan"]).await;
    let id = make_team(&app, &tokens["ann"], "Knights of Leeds", false).await;
    post("/api/v1/teams")
        .token(&tokens["ben"])
        .json(json!({"name": "  knights OF leeds "}))
        .send(&app)
        .await
        .assert_problem(409, "team_name_taken");
    let made = team(&app, &id).await;
    assert_eq!(
        (&made["name"], &made["open"], &made["member_count"]),
        (&json!("Knights of Leeds"), &json!(false), &json!(1))
    );
    assert_eq!(made["members"][0]["captain"], true);
    // Not open: joined by invitation only.
    post(format!("/api/v1/teams/{id}/join"))
        .token(&tokens["ben"])
        .send(&app)
        .await
        .assert_problem(409, "not_invited");
    post(format!("/api/v1/teams/{id}/invites"))
        .token(&tokens["cat"])
        .json(json!({"username": "ben"}))
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    for invitee in ["ben", "cat"] {
        post(format!("/api/v1/teams/{id}/invites"))
            .token(&tokens["ann"])
            .json(json!({"username": invitee}))
            .send(&app)
            .await
            .assert_status(204);
    }
    let told = events_until(&app, &tokens["ben"], "team_invited").await;
    let invite = told.iter().find(|e| e["type"] == "team_invited").unwrap();
    assert_eq!(invite["data"]["team_id"], id.as_str());
    join_team(&app, &id, &tokens["ben"]).await;
    clock.advance(SECOND);
    join_team(&app, &id, &tokens["cat"]).await;
    post(format!("/api/v1/teams/{id}/join"))
        .token(&tokens["ben"])
        .send(&app)
        .await
        .assert_problem(409, "already_joined");
    // A captain makes another: only members.
    post(format!("/api/v1/teams/{id}/captains"))
        .token(&tokens["ann"])
        .json(json!({"username": "dan"}))
        .send(&app)
        .await
        .assert_problem(409, "not_a_team_member");
    // The last captain leaves: ben, there longest, becomes captain.
    post(format!("/api/v1/teams/{id}/leave"))
        .token(&tokens["ann"])
        .send(&app)
        .await
        .assert_status(200);
    let after = team(&app, &id).await;
    let captains: Vec<&str> = after["members"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["captain"] == true)
        .map(|m| m["player"]["username"].as_str().unwrap())
        .collect();
    assert_eq!(captains, ["ben"]);
    post(format!("/api/v1/teams/{id}/captains"))
        .token(&tokens["ben"])
        .json(json!({"username": "cat"}))
        .send(&app)
        .await
        .assert_status(200);
    post(format!("/api/v1/teams/{id}/leave"))
        .token(&tokens["ann"])
        .send(&app)
        .await
        .assert_problem(409, "not_a_team_member");
    let listed = get("/api/v1/teams?limit=1")
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(listed["teams"][0]["member_count"], 2);
    let of = |who: &'static str| get(format!("/api/v1/teams?member={who}")).send(&app);
    let cats = of("cat").await.assert_status(200).clone();
    assert_eq!(cats["teams"][0]["id"], id.as_str());
    let anns = of("ann").await.assert_status(200).clone();
    assert_eq!(anns["teams"], json!([]), "ann left");
}

// "Team matches": organised by the home captain, accepted by the away
// captain, signed up for (a board a side at most), ordered by a captain;
// board by board two games, one with each colour; the score live; the
// match finished with its last game, its winner told to every player.
async fn a_team_match_of_four_boards_played_to_its_score(db: Db) {
    let clock = clock();
    let app = init(TestApp::on(&db).clock(clock.clone()).state()).await;
    let home_names = ["hal", "hob", "hue", "hux"];
    let away_names = ["abe", "ada", "amy", "ari", "ava"];
    let all: Vec<&str> = home_names.iter().chain(&away_names).copied().collect();
    let tokens = players(&app, &all).await;
    let home = make_team(&app, &tokens["hal"], "Home Rooks", true).await;
    let away = make_team(&app, &tokens["abe"], "Away Bishops", true).await;
    for name in &home_names[1..] {
        join_team(&app, &home, &tokens[*name]).await;
    }
    for name in &away_names[1..] {
        join_team(&app, &away, &tokens[*name]).await;
    }
    let created = post("/api/v1/tournaments")
        .token(&tokens["hal"])
        .json(match_request(&home, &away, 4, json!({})))
        .send(&app)
        .await
        .assert_status(201)
        .clone();
    assert_eq!(
        (
            &created["format"],
            &created["home_team"]["name"],
            &created["away_team"]["name"]
        ),
        (
            &json!("team_match"),
            &json!("Home Rooks"),
            &json!("Away Bishops")
        )
    );
    assert_eq!(created["team_match"]["accepted_at"], Value::Null);
    let id = created["id"].as_str().unwrap().to_owned();
    for name in &all[..8] {
        post(format!("/api/v1/tournaments/{id}/join"))
            .token(&tokens[*name])
            .send(&app)
            .await
            .assert_status(200);
        clock.advance(SECOND);
    }
    // The away side's four boards are taken.
    post(format!("/api/v1/tournaments/{id}/join"))
        .token(&tokens["ava"])
        .send(&app)
        .await
        .assert_problem(409, "tournament_full");
    // The home captain orders hux and hue first; the others follow by
    // rating, equal here, so in the order they signed up.
    put(format!("/api/v1/tournaments/{id}/board-order"))
        .token(&tokens["abe"])
        .json(json!({"usernames": ["hux", "hue"]}))
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    let ordered = put(format!("/api/v1/tournaments/{id}/board-order"))
        .token(&tokens["hal"])
        .json(json!({"usernames": ["hux", "hue"]}))
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(
        usernames(&ordered["team_match"]["home"]["players"]),
        ["hux", "hue", "hal", "hob"]
    );
    assert_eq!(ordered["status"], "open", "not accepted yet");
    // Accepted with both sides full: it starts.
    post(format!("/api/v1/tournaments/{id}/accept"))
        .token(&tokens["hal"])
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    let started = post(format!("/api/v1/tournaments/{id}/accept"))
        .token(&tokens["abe"])
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(started["status"], "started", "{started:#}");
    let boards = started["team_match"]["boards"].as_array().unwrap();
    let pairs: Vec<(&str, &str)> = boards
        .iter()
        .map(|b| {
            (
                b["home"]["username"].as_str().unwrap(),
                b["away"]["username"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("hux", "abe"),
            ("hue", "ada"),
            ("hal", "amy"),
            ("hob", "ari")
        ]
    );
    assert_eq!(started["games"].as_array().unwrap().len(), 8);
    assert_eq!(started["team_match"]["under_way"], 8);
    for board in 1..=4 {
        let games = board_games(&started, board);
        let (home_player, away_player) = pairs[board as usize - 1];
        assert_eq!(
            games
                .iter()
                .map(|(_, w, b)| (w.as_str(), b.as_str()))
                .collect::<Vec<_>>(),
            [(home_player, away_player), (away_player, home_player)],
            "board {board}: one game with each colour"
        );
    }
    // Board 1: the home player wins both; board 2: two draws; board 3: the
    // away player wins both; board 4: a home win and a draw.
    let mut score = (0.0, 0.0);
    for board in 1..=4i64 {
        let games = board_games(&started, board);
        let (home_player, away_player) = pairs[board as usize - 1];
        for (round, (game, white, black)) in games.iter().enumerate() {
            let home_wins = match board {
                1 => Some(true),
                2 => None,
                3 => Some(false),
                _ => (round == 0).then_some(true),
            };
            match home_wins {
                Some(home_wins) => {
                    let loser = if home_wins { away_player } else { home_player };
                    act(&app, &tokens[loser], game, "resign").await;
                    if home_wins {
                        score.0 += 1.0;
                    } else {
                        score.1 += 1.0;
                    }
                }
                None => {
                    act(&app, &tokens[white.as_str()], game, "draw-offer").await;
                    act(&app, &tokens[black.as_str()], game, "draw-offer/accept").await;
                    score.0 += 0.5;
                    score.1 += 0.5;
                }
            }
            let live = view(&app, &id).await;
            assert_eq!(
                (
                    &live["team_match"]["home"]["points"],
                    &live["team_match"]["away"]["points"]
                ),
                (&json!(score.0), &json!(score.1)),
                "board {board}, game {}",
                round + 1
            );
        }
    }
    let done = view(&app, &id).await;
    assert_eq!(done["status"], "finished");
    assert_eq!(score, (4.5, 3.5));
    assert_eq!(done["team_match"]["winner"]["name"], "Home Rooks");
    assert_eq!(done["team_match"]["under_way"], 0);
    let board4 = &done["team_match"]["boards"][3];
    assert_eq!(
        (&board4["home_points"], &board4["away_points"]),
        (&json!(1.5), &json!(0.5))
    );
    assert_eq!(usernames(&done["winners"]), ["hux", "hue", "hal", "hob"]);
    // Every player was told of the start (their board) and the score.
    let seen = events_until(&app, &tokens["amy"], "team_match_finished").await;
    let started_event = seen
        .iter()
        .find(|e| e["type"] == "team_match_started")
        .unwrap();
    assert_eq!(started_event["data"]["board"], 3);
    let finished = seen
        .iter()
        .find(|e| e["type"] == "team_match_finished")
        .unwrap();
    assert_eq!(
        (
            &finished["data"]["home_points"],
            &finished["data"]["away_points"],
            &finished["data"]["winner"]
        ),
        (&json!(4.5), &json!(3.5), &json!("Home Rooks"))
    );
    // The team's page lists the match; the PGN names board and game.
    assert_eq!(team(&app, &home).await["matches"][0]["id"], id.as_str());
    let pgn = get(format!("/api/v1/tournaments/{id}/games.pgn"))
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    let pgn = pgn.as_str().unwrap();
    assert_eq!(pgn.matches("[Event \"Friendly\"]").count(), 8);
    assert!(
        pgn.contains("[Board \"4\"]") && pgn.contains("[Round \"2\"]"),
        "{pgn}"
    );
}

// "Forfeits": a withdrawal resigns the player's games under way; a game
// lost on time forfeits the board's other game, still under way.
async fn a_withdrawal_and_a_loss_on_time_forfeit_a_boards_games(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let tokens = players(&app, &["hal", "hob", "abe", "ada"]).await;
    let home = make_team(&app, &tokens["hal"], "Home Rooks", true).await;
    let away = make_team(&app, &tokens["abe"], "Away Bishops", true).await;
    join_team(&app, &home, &tokens["hob"]).await;
    join_team(&app, &away, &tokens["ada"]).await;
    let extra = json!({"days_per_move": 1, "vacation": false});
    let id = post("/api/v1/tournaments")
        .token(&tokens["hal"])
        .json(match_request(&home, &away, 2, extra))
        .send(&app)
        .await
        .assert_status(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    post(format!("/api/v1/tournaments/{id}/accept"))
        .token(&tokens["abe"])
        .send(&app)
        .await
        .assert_status(200);
    for name in ["hal", "hob", "abe", "ada"] {
        post(format!("/api/v1/tournaments/{id}/join"))
            .token(&tokens[name])
            .send(&app)
            .await
            .assert_status(200);
        clock.advance(SECOND);
    }
    let started = view(&app, &id).await;
    assert_eq!(started["status"], "started");
    let board1 = board_games(&started, 1);
    let board2 = board_games(&started, 2);
    assert_eq!((board1[0].1.as_str(), board2[0].1.as_str()), ("hal", "hob"));
    // Board 1: hal withdraws mid-match; both his games are resigned.
    post(format!("/api/v1/tournaments/{id}/leave"))
        .token(&tokens["hal"])
        .send(&app)
        .await
        .assert_status(200);
    for (game, _, _) in &board1 {
        let row = get(format!("/api/v1/games/{game}"))
            .token(&tokens["abe"])
            .send(&app)
            .await
            .assert_status(200)
            .clone();
        assert_eq!(row["termination"], "resignation");
    }
    // Board 2: in round 2 (ada White) both move, so hob's deadline there is
    // later; in round 1 hob never moves and loses on time.
    clock.advance(12 * HOUR);
    let (on_time, forfeited) = (&board2[0].0, &board2[1].0);
    for (ply, who, m) in [(0, "ada", "e4"), (1, "hob", "e5")] {
        post(format!("/api/v1/games/{forfeited}/moves"))
            .token(&tokens[who])
            .json(json!({"move": m, "ply": ply}))
            .send(&app)
            .await
            .assert_status(200);
    }
    clock.advance(13 * HOUR);
    sweep_once(&state).await.unwrap();
    let game = |id: String| {
        let (app, token) = (&app, tokens["ada"].clone());
        async move {
            get(format!("/api/v1/games/{id}"))
                .token(&token)
                .send(app)
                .await
                .assert_status(200)
                .clone()
        }
    };
    let lost = game(on_time.clone()).await;
    assert_eq!(
        (&lost["termination"], &lost["result"]),
        (&json!("timeout"), &json!("0-1"))
    );
    let other = game(forfeited.clone()).await;
    assert_eq!(
        (&other["termination"], &other["result"]),
        (&json!("forfeit"), &json!("1-0")),
        "ada, White, wins the board's other game by forfeit"
    );
    let pgn = get(format!("/api/v1/games/{forfeited}/pgn"))
        .token(&tokens["ada"])
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert!(
        pgn.as_str()
            .unwrap()
            .contains("[Termination \"rules infraction\"]"),
        "{pgn}"
    );
    let done = view(&app, &id).await;
    assert_eq!(done["status"], "finished");
    assert_eq!(
        (
            &done["team_match"]["home"]["points"],
            &done["team_match"]["away"]["points"]
        ),
        (&json!(0.0), &json!(4.0))
    );
    assert_eq!(done["team_match"]["winner"]["name"], "Away Bishops");
}

// "Organising", "Signing up", "The start": the home team's captain
// organises, two teams, 1 to 100 boards, none of a Swiss's settings;
// only the two teams' members sign up; a match not accepted by its start
// time is cancelled.
async fn a_team_match_is_checked_when_organised_and_joined(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let tokens = players(&app, &["hal", "abe", "zed"]).await;
    let home = make_team(&app, &tokens["hal"], "Home Rooks", true).await;
    let away = make_team(&app, &tokens["abe"], "Away Bishops", true).await;
    organise(
        &app,
        &tokens["abe"],
        match_request(&home, &away, 2, json!({})),
    )
    .await
    .assert_problem(403, "forbidden");
    // The same team twice, no boards, 101 boards, a Swiss's rounds, and
    // teams in a round robin.
    for body in [
        match_request(&home, &home, 2, json!({})),
        match_request(&home, &away, 0, json!({})),
        match_request(&home, &away, 101, json!({})),
        match_request(&home, &away, 2, json!({"rounds": 3})),
        json!({"name": "Not a match", "rules": "standard", "days_per_move": 3,
               "capacity": 4, "teams": {"home": home, "away": away},
               "signup_deadline": rfc3339(START_TIME + DAY)}),
    ] {
        organise(&app, &tokens["hal"], body)
            .await
            .assert_problem(422, "invalid_tournament");
    }
    organise(
        &app,
        &tokens["hal"],
        match_request(&home, "nosuchteam", 2, json!({})),
    )
    .await
    .assert_problem(404, "not_found");
    let id = organise(
        &app,
        &tokens["hal"],
        match_request(&home, &away, 2, json!({})),
    )
    .await
    .assert_status(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    post(format!("/api/v1/tournaments/{id}/join"))
        .token(&tokens["zed"])
        .send(&app)
        .await
        .assert_problem(409, "not_a_team_member");
    for name in ["hal", "abe"] {
        post(format!("/api/v1/tournaments/{id}/join"))
            .token(&tokens[name])
            .send(&app)
            .await
            .assert_status(200);
    }
    // A member of both teams cannot sign up.
    join_team(&app, &home, &tokens["zed"]).await;
    join_team(&app, &away, &tokens["zed"]).await;
    post(format!("/api/v1/tournaments/{id}/join"))
        .token(&tokens["zed"])
        .send(&app)
        .await
        .assert_problem(409, "not_a_team_member");
    // Never accepted: at its start time it is cancelled.
    clock.advance(7 * DAY + 1);
    sweep_once(&state).await.unwrap();
    let cancelled = view(&app, &id).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled:#}");
    assert!(cancelled["games"].as_array().unwrap().is_empty());
}
