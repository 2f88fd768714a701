//! Each account's new events, read from the database once per change and
//! handed to every stream of the account open on this instance: a player
//! with many streams (or many players' streams) never make an event cost a
//! database read per stream.
//!
//! A feed lives while some stream listens to it: the first stream of an
//! account starts it, and it ends on its next wake after the last is gone.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::sync::broadcast;

use crate::{
    db::{self, DbPool},
    domain::events::{self},
    error::ApiError,
    models::event,
    notify::{Hub, Watch, account_signal, token_signal},
    stored::AccountId,
    views::EventView,
};

/// What a feed tells its streams.
#[derive(Debug, Clone)]
pub enum FeedItem {
    /// New events of the account, in order.
    Events(Arc<Vec<EventView>>),
    /// One of the account's tokens was revoked: each stream checks its own.
    TokensChanged,
}

/// Events read in one query at most.
pub const BATCH: i64 = 100;
/// How long a feed waits between looks at whether anyone still listens.
const IDLE_CHECK: Duration = Duration::from_secs(15);

/// The feeds of this instance, by account. Clones share them.
#[derive(Debug, Default, Clone)]
pub struct Feeds {
    by_account: Arc<Mutex<HashMap<AccountId, broadcast::Sender<FeedItem>>>>,
}

impl Feeds {
    /// Listens to `account`'s feed, starting it if no stream of the account
    /// is open. Listening begins before the caller reads what it missed, so
    /// that nothing falls between the two.
    pub fn listen(
        &self,
        hub: &Hub,
        pool: &DbPool,
        account: &AccountId,
    ) -> broadcast::Receiver<FeedItem> {
        let mut feeds = self.by_account.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(sender) = feeds.get(account) {
            return sender.subscribe();
        }
        let (sender, receiver) = broadcast::channel(64);
        feeds.insert(account.clone(), sender.clone());
        // Watching now, not when the feed's task first runs: a change the
        // caller makes before that (a token revoked at once) is heard.
        let watches = Watches {
            events: hub.watch(&account_signal(account)),
            tokens: hub.watch(&token_signal(account)),
        };
        let feed = Feed {
            feeds: self.clone(),
            pool: pool.clone(),
            account: account.clone(),
        };
        actix_web::rt::spawn(async move { feed.run(sender, watches).await });
        receiver
    }

    /// The accounts whose streams listen on this instance.
    pub fn listening(&self) -> Vec<AccountId> {
        let feeds = self.by_account.lock().unwrap_or_else(|p| p.into_inner());
        feeds.keys().cloned().collect()
    }

    /// Forgets `account`'s feed, whoever listens.
    fn forget(&self, account: &AccountId) {
        let mut feeds = self.by_account.lock().unwrap_or_else(|p| p.into_inner());
        feeds.remove(account);
    }

    /// Forgets `account`'s feed if no stream listens: whether it did.
    fn close_if_unheard(&self, account: &AccountId, sender: &broadcast::Sender<FeedItem>) -> bool {
        let mut feeds = self.by_account.lock().unwrap_or_else(|p| p.into_inner());
        if sender.receiver_count() > 0 {
            return false;
        }
        feeds.remove(account);
        true
    }
}

/// A running feed: what it reads from and whom it serves.
struct Feed {
    feeds: Feeds,
    pool: DbPool,
    account: AccountId,
}

/// A feed's watches on its account's signals.
struct Watches {
    events: Watch,
    tokens: Watch,
}

impl Feed {
    /// Reads the account's new events on each of its signals and sends them
    /// on. The watches were set before the first read: no event falls between.
    async fn run(self, sender: broadcast::Sender<FeedItem>, watches: Watches) {
        let account = &self.account;
        let Watches {
            events: mut events_watch,
            tokens: mut tokens_watch,
        } = watches;
        let me = account.clone();
        let mut last =
            match db::read_own(&self.pool, move |conn| Ok(event::last_id(conn, &me)?)).await {
                Ok(last) => last,
                Err(error) => {
                    // Its streams end (the feed closes) and their clients reconnect.
                    tracing::warn!(%error, "an event feed could not start");
                    self.feeds.forget(account);
                    return;
                }
            };
        loop {
            let heard = tokio::select! {
                events = events_watch.changed(IDLE_CHECK) => events.then_some(Heard::Events),
                tokens = tokens_watch.changed(IDLE_CHECK) => tokens.then_some(Heard::Tokens),
            };
            match heard {
                Some(Heard::Tokens) => {
                    let _ = sender.send(FeedItem::TokensChanged);
                }
                Some(Heard::Events) => match self.read_since(last).await {
                    Ok(events) => {
                        for batch in events {
                            last = batch.last().map_or(last, |e| e.id);
                            let _ = sender.send(FeedItem::Events(Arc::new(batch)));
                        }
                    }
                    // The streams read it all again the next time.
                    Err(error) => tracing::warn!(%error, "an event feed could not read"),
                },
                None => {}
            }
            if self.feeds.close_if_unheard(account, &sender) {
                return;
            }
        }
    }

    /// Every event of the account after `after`, in batches.
    async fn read_since(&self, after: i64) -> Result<Vec<Vec<EventView>>, ApiError> {
        let account = self.account.clone();
        db::read_own(&self.pool, move |conn| {
            let mut batches = Vec::new();
            let mut after = after;
            loop {
                let batch = events::since(conn, &account, after, BATCH)?;
                let full = batch.len() as i64 == BATCH;
                after = batch.last().map_or(after, |e| e.id);
                if !batch.is_empty() {
                    batches.push(batch);
                }
                if !full {
                    return Ok(batches);
                }
            }
        })
        .await
    }
}

/// Which of a feed's signals was heard.
enum Heard {
    Events,
    Tokens,
}
