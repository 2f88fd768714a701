//! An account's events followed by a held request (kingpost's event stream
//! and lichess's): caught up from the log, then fed as they happen.

use std::time::Duration;

use actix_web::{HttpRequest, web};
use tokio::sync::broadcast;

use crate::{
    auth::Auth,
    budgets::{HeldSlot, PeerSocket},
    clock::Millis,
    domain::{events, session},
    error::ApiError,
    feeds::{self, FeedItem},
    presence,
    state::AppState,
    stored::{AccountId, TokenId},
    views::EventView,
};

/// What a followed account has next.
#[derive(Debug)]
pub enum Next {
    /// New events, in order (maybe none, after a read of the log).
    Events(Vec<EventView>),
    /// Nothing for a keep-alive's while.
    Idle,
}

/// An account's events followed by a held request: where it is in the
/// account's events, the feed it hears new ones from, and its place among
/// the held requests. It ends when its token expires or is revoked.
#[derive(Debug)]
pub struct Follower {
    state: web::Data<AppState>,
    account: AccountId,
    token_id: TokenId,
    expires_at: Millis,
    /// The last event yielded.
    after: i64,
    /// Whether what was missed before following began has been yielded.
    caught_up: bool,
    keepalive: Duration,
    feed: broadcast::Receiver<FeedItem>,
    slot: HeldSlot,
}

impl Follower {
    /// Follows the caller's events after `resume`, or from now on; idle
    /// every `keepalive`. Takes a place among the held requests.
    pub async fn start(
        state: &web::Data<AppState>,
        auth: &Auth,
        req: &HttpRequest,
        resume: Option<i64>,
        keepalive: Duration,
    ) -> Result<Follower, ApiError> {
        let address = state.client_address(req.peer_addr(), req.headers());
        let socket = req.conn_data::<PeerSocket>().copied();
        let slot = state.held.acquire(&auth.account_id, &address, socket)?;
        // Listening before reading, so that nothing falls between the two.
        let feed = state
            .feeds
            .listen(&state.hub, &state.pool, &auth.account_id);
        presence::opened(state, &auth.account_id).await?;
        let account = auth.account_id.clone();
        let after = match resume {
            Some(id) => id,
            None => {
                let me = account.clone();
                state
                    .read_own(move |conn| events::last_id(conn, &me))
                    .await?
            }
        };
        Ok(Follower {
            state: state.clone(),
            account,
            token_id: auth.token_id.clone(),
            expires_at: auth.expires_at,
            after,
            caught_up: false,
            keepalive,
            feed,
            slot,
        })
    }

    /// Whether every event logged before the last read has been yielded.
    pub fn caught_up(&self) -> bool {
        self.caught_up
    }

    /// What comes next, or `None` when following ends: the token expired
    /// or was revoked.
    pub async fn next(&mut self) -> Option<Result<Next, ApiError>> {
        loop {
            let now = self.state.clock.now();
            if now >= self.expires_at {
                return None;
            }
            if !self.caught_up {
                // Boxed, as the token check below: a held stream's future
                // keeps no room for the reads it makes now and then.
                return Some(Box::pin(self.read_missed()).await);
            }
            let until_expiry =
                Duration::from_millis(u64::try_from(self.expires_at - now).unwrap_or(0));
            let wait = self.keepalive.min(until_expiry);
            let heard = self
                .slot
                .unless_gone(actix_web::rt::time::timeout(wait, self.feed.recv()))
                .await;
            // Its client found gone: following ends.
            let heard = heard?;
            match heard {
                Err(_) => return Some(Ok(Next::Idle)),
                Ok(Ok(FeedItem::Events(events))) => {
                    let fresh: Vec<EventView> = events
                        .iter()
                        .filter(|e| e.id > self.after)
                        .cloned()
                        .collect();
                    if let Some(last) = fresh.last() {
                        self.after = last.id;
                        return Some(Ok(Next::Events(fresh)));
                    }
                }
                Ok(Ok(FeedItem::TokensChanged)) => {
                    if !Box::pin(self.token_is_live()).await {
                        return None;
                    }
                }
                // Fell behind the feed: read from the log what was missed.
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => self.caught_up = false,
                Ok(Err(broadcast::error::RecvError::Closed)) => return None,
            }
        }
    }

    /// Whether the token is unexpired and unrevoked, looking only at what
    /// the feed told since the last look: for a held request that waits on
    /// something else and ignores the events.
    pub async fn still_authorised(&mut self) -> bool {
        if self.state.clock.now() >= self.expires_at {
            return false;
        }
        let mut tokens_changed = false;
        loop {
            match self.feed.try_recv() {
                Ok(FeedItem::TokensChanged) | Err(broadcast::error::TryRecvError::Lagged(_)) => {
                    tokens_changed = true
                }
                Ok(FeedItem::Events(_)) => {}
                Err(broadcast::error::TryRecvError::Empty) => break,
                Err(broadcast::error::TryRecvError::Closed) => return false,
            }
        }
        !tokens_changed || Box::pin(self.token_is_live()).await
    }

    async fn token_is_live(&self) -> bool {
        let (token_id, now) = (self.token_id.clone(), self.state.clock.now());
        let live = self
            .state
            .read_own(move |conn| session::is_live(conn, &token_id, now))
            .await;
        matches!(live, Ok(true))
    }

    /// The next batch of what came after the last event yielded, from the
    /// log; caught up once a batch is not full.
    async fn read_missed(&mut self) -> Result<Next, ApiError> {
        let (account, after) = (self.account.clone(), self.after);
        let events = self
            .state
            .read_own(move |conn| events::since(conn, &account, after, feeds::BATCH))
            .await?;
        self.caught_up = (events.len() as i64) < feeds::BATCH;
        self.after = events.last().map_or(self.after, |e| e.id);
        Ok(Next::Events(events))
    }
}
