//! Players for the service benchmarks: accounts signed up over HTTP, and
//! clients playing games along prepared lines, each move's latency kept.

use std::time::{Duration, Instant};

use kingpost_core::{Game, Position, Rules};
use rand::{Rng, rngs::SmallRng};
use serde_json::{Value, json};

pub const PASSWORD: &str = "correct horse battery staple";

/// A random standard game of `plies` plies that does not end on the way,
/// as UCI moves: each ply picks among the moves that keep it going.
pub fn playable_line(rng: &mut SmallRng, plies: usize) -> Vec<String> {
    'retry: loop {
        let mut game = Game::new(Position::new(Rules::Standard));
        let mut line = Vec::with_capacity(plies);
        for _ in 0..plies {
            let pos = game.position().clone();
            let going: Vec<_> = pos
                .legal_moves()
                .iter()
                .copied()
                .filter(|&m| {
                    let mut next = game.clone();
                    next.play_unchecked(m);
                    next.outcome().is_none() && next.claimable_draw().is_none()
                })
                .collect();
            if going.is_empty() {
                continue 'retry;
            }
            let m = going[rng.random_range(0..going.len())];
            line.push(pos.uci(&m));
            game.play_unchecked(m);
        }
        return line;
    }
}

/// One benchmark client: two accounts that play each other.
pub struct Seat {
    pub white: (String, String),
    pub black: (String, String),
}

/// POSTs `body`; the answer's bytes when it is a success.
pub fn send(
    client: &reqwest::blocking::Client,
    url: &str,
    token: Option<&str>,
    body: &Value,
) -> Result<Vec<u8>, String> {
    let mut request = client.post(url).json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().map_err(|e| e.to_string())?;
    let status = response.status();
    let bytes = response.bytes().map_err(|e| e.to_string())?;
    if status.is_success() {
        Ok(bytes.to_vec())
    } else {
        Err(format!("{status}: {}", String::from_utf8_lossy(&bytes)))
    }
}

pub fn post(
    client: &reqwest::blocking::Client,
    url: &str,
    token: Option<&str>,
    body: &Value,
) -> Result<Value, String> {
    let bytes = send(client, url, token, body)?;
    serde_json::from_slice(&bytes).map_err(|e| e.to_string())
}

/// Signs `name` up and in: its name and session token.
pub fn sign_up(client: &reqwest::blocking::Client, base: &str, name: &str) -> (String, String) {
    let credentials = json!({"username": name, "password": PASSWORD});
    post(client, &format!("{base}/accounts"), None, &credentials).expect("sign-up");
    let session = post(
        client,
        &format!("{base}/auth/token"),
        None,
        &json!({"grant_type": "password", "username": name, "password": PASSWORD}),
    )
    .expect("sign-in");
    (
        name.to_owned(),
        session["access_token"].as_str().unwrap().to_owned(),
    )
}

/// `count` seats of new accounts named after `run`.
pub fn seats(base: &str, count: usize, run: &str) -> Vec<Seat> {
    let client = reqwest::blocking::Client::new();
    (0..count)
        .map(|i| Seat {
            white: sign_up(&client, base, &format!("{run}w{i}")),
            black: sign_up(&client, base, &format!("{run}b{i}")),
        })
        .collect()
}

/// A new game of the seat's, White challenging: its id.
pub fn new_game(
    client: &reqwest::blocking::Client,
    base: &str,
    seat: &Seat,
) -> Result<String, String> {
    let challenge = post(
        client,
        &format!("{base}/challenges"),
        Some(&seat.white.1),
        &json!({"rules": "standard", "days_per_move": 3, "color": "white", "opponent": seat.black.0}),
    )?;
    let id = challenge["id"].as_str().unwrap();
    let game = post(
        client,
        &format!("{base}/challenges/{id}/accept"),
        Some(&seat.black.1),
        &json!({}),
    )?;
    Ok(game["id"].as_str().unwrap().to_owned())
}

/// A move request's ply and latency (`None`: it failed).
pub type Sample = (usize, Option<Duration>);

/// Plays the seat's games along `lines` until `done`, sending request `k`
/// to instance `k % bases.len()`; with `pace`, one request every `pace`.
pub fn drive(
    bases: &[String],
    seat: &Seat,
    lines: &[Vec<String>],
    done: &dyn Fn() -> bool,
    pace: Option<Duration>,
) -> Vec<Sample> {
    let client = reqwest::blocking::Client::new();
    let mut samples = Vec::new();
    let mut next_due = Instant::now();
    let mut requests = 0usize;
    let mut base = || {
        requests += 1;
        bases[requests % bases.len()].clone()
    };
    for line in lines.iter().cycle() {
        if done() {
            return samples;
        }
        let Ok(game) = new_game(&client, &base(), seat) else {
            samples.push((0, None));
            continue;
        };
        for (ply, uci) in line.iter().enumerate() {
            // Latency counts from when the request was due, not sent.
            let due = match pace {
                Some(pace) => {
                    std::thread::sleep(next_due.saturating_duration_since(Instant::now()));
                    next_due += pace;
                    next_due - pace
                }
                None => Instant::now(),
            };
            if done() {
                return samples;
            }
            let token = if ply % 2 == 0 {
                &seat.white.1
            } else {
                &seat.black.1
            };
            let url = format!("{}/games/{game}/moves", base());
            // The status is all a client playing a known line needs.
            let answer = send(
                &client,
                &url,
                Some(token),
                &json!({"move": uci, "ply": ply}),
            );
            let latency = answer.is_ok().then(|| due.elapsed());
            samples.push((ply, latency));
            if latency.is_none() {
                break; // out of step with the game: start another
            }
        }
    }
    unreachable!("the lines cycle forever")
}
