//! `GET /api/stream/event`: the caller's games and challenges as they
//! start, finish, arrive and are declined.

use std::{collections::HashSet, time::Duration};

use actix_web::{
    HttpRequest, HttpResponse, get,
    http::header::{CACHE_CONTROL, CONTENT_TYPE},
    web::{self, Bytes},
};
use futures_util::{StreamExt, stream};

use super::{
    Answer, KEEPALIVE_SECONDS, LichessError, READING, base_url, caller, game_info, push_line,
};
use crate::{
    auth::Auth,
    clock::Millis,
    domain::{challenge, lichess},
    error::ApiError,
    state::AppState,
    stored::{ChallengeId, GameId},
    streams::{Follower, Next},
    views::{EventKind, EventView, lichess::Event},
};

/// Who reads the stream, where its links point, and what its opening
/// told of.
#[derive(Debug)]
struct Reader {
    state: web::Data<AppState>,
    auth: Auth,
    base: String,
    /// The challenges and games the opening listed: the events of their
    /// arrival may follow it (the account is followed from before the
    /// opening is read), and are not told twice.
    opened: HashSet<String>,
}

impl Reader {
    /// `gameStart` or `gameFinish` of a game, unless lichess clients
    /// cannot play it.
    async fn game_event(&self, id: GameId, finished: bool) -> Result<Option<Event>, ApiError> {
        let info = game_info(&self.state, id, self.auth.username.clone()).await?;
        Ok(info.map(|game| match finished {
            false => Event::GameStart { game },
            true => Event::GameFinish { game },
        }))
    }

    /// `challenge` or `challengeDeclined` of a challenge, unless lichess
    /// clients cannot play it.
    async fn challenge_event(
        &self,
        id: ChallengeId,
        declined: bool,
    ) -> Result<Option<Event>, ApiError> {
        let (me, base, now) = (self.auth.username.clone(), self.base.clone(), self.now());
        let account = self.auth.account_id.clone();
        let shown = self
            .state
            .read_own(move |conn| {
                let view = challenge::view(conn, &account, &id)?;
                lichess::challenge(conn, &view, &me, &base, now)
            })
            .await?;
        Ok(shown.map(|challenge| match declined {
            false => Event::Challenge { challenge },
            true => Event::ChallengeDeclined {
                challenge: lichess::declined(challenge),
            },
        }))
    }

    fn now(&self) -> Millis {
        self.state.clock.now()
    }

    /// What lichess tells of one of kingpost's events, if anything.
    async fn translate(&mut self, event: &EventView) -> Result<Option<Event>, ApiError> {
        let game = || event.game_id.clone();
        let challenge = || {
            event
                .data
                .get("challenge_id")
                .and_then(|id| id.as_str())
                .map(str::to_owned)
        };
        // Of a game or a challenge, and whether it ended (finished,
        // declined) or arrived.
        let (of_game, id, ended) = match event.kind {
            EventKind::GameStarted => (true, game(), false),
            EventKind::GameFinished => (true, game(), true),
            EventKind::ChallengeReceived => (false, challenge(), false),
            EventKind::ChallengeDeclined => (false, challenge(), true),
            _ => return Ok(None),
        };
        let Some(id) = id else { return Ok(None) };
        if !ended && self.opened.remove(&id) {
            return Ok(None);
        }
        if of_game {
            self.game_event(GameId::from(id), ended).await
        } else {
            self.challenge_event(ChallengeId::from(id), ended).await
        }
    }

    /// What the stream opens with: the caller's open challenges, then a
    /// `gameStart` for each game under way.
    async fn opening(&mut self) -> Result<Bytes, ApiError> {
        let (me, account, base, now) = (
            self.auth.username.clone(),
            self.auth.account_id.clone(),
            self.base.clone(),
            self.now(),
        );
        let (challenges, games) = self
            .state
            .read_own(move |conn| {
                let list = challenge::list(conn, &account)?;
                let mut shown = Vec::new();
                for view in list.incoming.iter().chain(&list.outgoing) {
                    shown.extend(lichess::challenge(conn, view, &me, &base, now)?);
                }
                let games = lichess::under_way(conn, &account)?;
                Ok((
                    shown,
                    games
                        .into_iter()
                        .map(|g| GameId::from(g.id))
                        .collect::<Vec<_>>(),
                ))
            })
            .await?;
        let mut out = String::new();
        for challenge in challenges {
            self.opened.insert(challenge.id.clone());
            push_line(&mut out, &Event::Challenge { challenge });
        }
        for id in games {
            self.opened.insert(id.to_string());
            if let Some(event) = self.game_event(id, false).await? {
                push_line(&mut out, &event);
            }
        }
        Ok(Bytes::from(out))
    }
}

/// The caller's events as NDJSON: the open challenges and the games under
/// way first, then `challenge` (one received), `challengeDeclined` (one of
/// the caller's), `gameStart` and `gameFinish` as they happen; an empty
/// line every 7 seconds while nothing does. Games and challenges of
/// kingpost's own variants are left out: they are played under `/api/v1`.
#[get("/api/stream/event")]
pub async fn stream_events(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    req: HttpRequest,
) -> Answer {
    let auth = caller(auth, READING)?;
    let keepalive = Duration::from_secs(KEEPALIVE_SECONDS);
    // Following before the opening is read, so that nothing falls between.
    let follower = Follower::start(&state, &auth, &req, None, keepalive).await?;
    let mut reader = Reader {
        base: base_url(&req),
        state: state.clone(),
        auth,
        opened: HashSet::new(),
    };
    let first = reader.opening().await?;
    let rest = stream::unfold(
        (follower, reader),
        |(mut follower, mut reader)| async move {
            let chunk = match follower.next().await? {
                Ok(Next::Idle) => Ok(Bytes::from_static(b"\n")),
                Ok(Next::Events(events)) => {
                    let mut out = String::new();
                    let mut failed = None;
                    for event in &events {
                        match Box::pin(reader.translate(event)).await {
                            Ok(Some(shown)) => push_line(&mut out, &shown),
                            Ok(None) => {}
                            Err(error) => failed = Some(error),
                        }
                    }
                    match failed {
                        Some(error) => Err(LichessError::from(error).into()),
                        None => Ok(Bytes::from(out)),
                    }
                }
                Err(error) => Err(LichessError::from(error).into()),
            };
            Some((chunk, (follower, reader)))
        },
    );
    let body = stream::once(async move { Ok::<_, actix_web::Error>(first) }).chain(rest);
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "application/x-ndjson"))
        .insert_header((CACHE_CONTROL, "no-cache"))
        .streaming(body))
}
