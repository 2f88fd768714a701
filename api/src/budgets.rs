//! Budgets: every client address and every account gets a budget of
//! requests per minute, signing in and registering a much smaller one, and
//! a username that keeps failing to sign in is locked for a while; the caps
//! on imports, held requests and connections. Counted by each instance in
//! memory: behind
//! a load balancer with N instances, a client can spend up to N times the
//! budget. The middleware that spends them is `middleware::limits`.

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use crate::error::ApiError;

/// A budget: so many requests per window.
#[derive(Debug, Clone, Copy)]
pub struct Quota {
    pub requests: u32,
    pub window: Duration,
}

impl Quota {
    pub const fn per_minute(requests: u32) -> Quota {
        Quota {
            requests,
            window: Duration::from_secs(60),
        }
    }
}

/// The budgets of the service.
#[derive(Debug, Clone, Copy)]
pub struct RateLimits {
    /// Every request from one client address.
    pub per_address: Quota,
    /// Every request with one account's token.
    pub per_account: Quota,
    /// Signing in and registering, per client address.
    pub sign_in: Quota,
    /// Failed sign-ins per username before it is locked for the window.
    pub failed_sign_ins: Quota,
}

impl Default for RateLimits {
    fn default() -> RateLimits {
        RateLimits {
            per_address: Quota::per_minute(600),
            // As many as an address: a player paging through a hundred games
            // with "Next game to move" makes about six requests a game.
            per_account: Quota::per_minute(600),
            sign_in: Quota::per_minute(10),
            failed_sign_ins: Quota {
                requests: 5,
                window: Duration::from_secs(15 * 60),
            },
        }
    }
}

impl RateLimits {
    /// No limit at all: for tests of everything else.
    pub fn unlimited() -> RateLimits {
        let none = Quota::per_minute(u32::MAX);
        RateLimits {
            per_address: none,
            per_account: none,
            sign_in: none,
            failed_sign_ins: none,
        }
    }
}

/// Where a key stands against its budget.
#[derive(Debug, Clone, Copy)]
pub struct Standing {
    pub limit: u32,
    pub remaining: u32,
    /// Until the window starts over.
    pub reset: Duration,
    pub allowed: bool,
}

#[derive(Debug)]
struct Window {
    started: Instant,
    count: u32,
}

/// Fixed windows of counts by key.
#[derive(Debug, Default)]
pub struct Limiter {
    windows: Mutex<HashMap<String, Window>>,
}

impl Limiter {
    fn standing(&self, key: &str, quota: Quota, spend: bool) -> Standing {
        let now = Instant::now();
        let mut windows = self
            .windows
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if windows.len() > 100_000 {
            windows.retain(|_, w| now.duration_since(w.started) < quota.window);
        }
        let window = windows.entry(key.to_owned()).or_insert(Window {
            started: now,
            count: 0,
        });
        if now.duration_since(window.started) >= quota.window {
            *window = Window {
                started: now,
                count: 0,
            };
        }
        let allowed = window.count < quota.requests;
        if spend && allowed {
            window.count += 1;
        }
        Standing {
            limit: quota.requests,
            remaining: quota.requests.saturating_sub(window.count),
            reset: quota
                .window
                .saturating_sub(now.duration_since(window.started)),
            allowed,
        }
    }

    /// Spends one request of `key`'s budget, if there is one left.
    pub fn spend(&self, key: &str, quota: Quota) -> Standing {
        self.standing(key, quota, true)
    }

    /// Where `key` stands, spending nothing.
    pub fn check(&self, key: &str, quota: Quota) -> Standing {
        self.standing(key, quota, false)
    }
}

pub(crate) fn seconds(duration: Duration) -> u64 {
    duration.as_secs() + u64::from(duration.subsec_nanos() > 0)
}

/// The error for a budget spent.
pub fn refusal(standing: Standing, what: &str) -> ApiError {
    ApiError::RateLimited {
        retry_after: seconds(standing.reset),
        detail: format!(
            "too many {what}: {} a window; try again in {} s",
            standing.limit,
            seconds(standing.reset)
        ),
    }
}

/// How many imports may run at once on this instance: one per account,
/// and two in all (an import keeps a core busy replaying its games).
pub const IMPORTS_PER_ACCOUNT: usize = 1;
pub const IMPORTS_AT_ONCE: usize = 2;

/// The imports running on this instance, by account.
#[derive(Debug, Default)]
pub struct ImportSlots {
    running: Mutex<HashMap<String, usize>>,
}

/// A running import's place, given back when dropped.
#[derive(Debug)]
pub struct ImportSlot<'a> {
    slots: &'a ImportSlots,
    account: String,
}

impl ImportSlots {
    /// A place for an import by `account`: `429` while the account has one
    /// running, `503` while the instance runs as many as it takes.
    pub fn acquire(&self, account: &str) -> Result<ImportSlot<'_>, ApiError> {
        let mut running = self
            .running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if running.get(account).copied().unwrap_or(0) >= IMPORTS_PER_ACCOUNT {
            return Err(ApiError::RateLimited {
                retry_after: 5,
                detail: format!(
                    "an import of yours is running: {IMPORTS_PER_ACCOUNT} at a time; try again \
                     once it has answered"
                ),
            });
        }
        if running.values().sum::<usize>() >= IMPORTS_AT_ONCE {
            return Err(ApiError::Unavailable {
                retry_after: 5,
                cause: format!("{IMPORTS_AT_ONCE} imports running"),
            });
        }
        *running.entry(account.to_owned()).or_default() += 1;
        Ok(ImportSlot {
            slots: self,
            account: account.to_owned(),
        })
    }
}

impl Drop for ImportSlot<'_> {
    fn drop(&mut self) {
        let mut running = self
            .slots
            .running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        count_down(&mut running, &self.account);
    }
}

/// Takes one from `key`'s count, forgetting the key at none: the counts of
/// running imports, held requests and connections stay as small as what
/// runs.
fn count_down<K, Q>(counts: &mut HashMap<K, usize>, key: &Q)
where
    K: std::borrow::Borrow<Q> + Eq + std::hash::Hash,
    Q: Eq + std::hash::Hash + ?Sized,
{
    if let Some(count) = counts.get_mut(key) {
        *count -= 1;
        if *count == 0 {
            counts.remove(key);
        }
    }
}

/// Requests held open (event streams, and long polls while they wait) at
/// once for one account, and from one client address.
pub const HELD_PER_ACCOUNT: usize = 20;
pub const HELD_PER_ADDRESS: usize = 50;
/// Connections open at once from one client address (a trusted proxy's
/// excepted): room for its held requests and as many again. Beyond it a
/// new connection is closed at once, so that one address cannot take the
/// descriptors every other client needs.
pub const CONNECTIONS_PER_ADDRESS: usize = 2 * HELD_PER_ADDRESS;

/// Of a process's descriptor limit, those left for connections (and so for
/// held requests): a quarter (at most 1,024) is kept free for everything
/// else, the database and files.
pub fn descriptors_for_connections(limit: u64) -> u64 {
    let reserve = (limit / 4).min(1024);
    limit.saturating_sub(reserve).max(64)
}

/// The socket a request came on, kept in its connection's data (see
/// `server::admit`), so that a held request can learn that its client has
/// gone: a client that goes away (a page navigating on) closes its
/// connection, which the server hears of only when it next reads or
/// writes there, and a long poll writes nothing until it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerSocket(pub std::os::fd::RawFd);

impl PeerSocket {
    /// Whether the client has closed its end, or the connection failed: a
    /// look at the next byte, left unread, finds the end of the stream or
    /// an error rather than nothing yet (or a next request's bytes).
    pub fn closed(self) -> bool {
        let mut byte = 0u8;
        // SAFETY: `recv` writes at most one byte to `byte`, which outlives
        // the call. The descriptor belongs to a connection that a held
        // request keeps open; were it closed or reused meanwhile, the call
        // fails (`EBADF`, `ENOTSOCK`) or peeks at another socket without
        // taking its bytes (`MSG_PEEK`) or waiting (`MSG_DONTWAIT`).
        #[allow(unsafe_code)]
        let read = unsafe {
            libc::recv(
                self.0,
                (&raw mut byte).cast(),
                1,
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        match read {
            0 => true,
            1.. => false,
            _ => !matches!(
                std::io::Error::last_os_error().kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
            ),
        }
    }
}

/// How often, at most, a full instance looks through every held request
/// for clients that have gone: a look is a system call for each.
const FULL_LOOK_EVERY: Duration = Duration::from_secs(1);

/// The requests this instance holds open, by account and address, and the
/// most it may hold in all: below the process's descriptor limit, so that
/// held requests can never leave the server unable to accept one more.
/// When an account, an address or the instance has no room left, the
/// requests it holds whose clients have gone are ended first and their
/// places given to the new one.
#[derive(Debug)]
pub struct HeldSlots {
    capacity: usize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    total: usize,
    by_account: HashMap<String, usize>,
    by_address: HashMap<String, usize>,
    requests: HashMap<u64, HeldRequest>,
    next_id: u64,
    last_full_look: Option<Instant>,
}

/// A held request, as its place is counted.
#[derive(Debug)]
struct HeldRequest {
    account: String,
    address: String,
    socket: Option<PeerSocket>,
    gone: Arc<tokio::sync::Notify>,
}

impl Held {
    /// Gives back the place of request `id`, if it still has one.
    fn release(&mut self, id: u64) -> Option<HeldRequest> {
        let request = self.requests.remove(&id)?;
        self.total -= 1;
        count_down(&mut self.by_account, &request.account);
        count_down(&mut self.by_address, &request.address);
        Some(request)
    }

    /// Ends the requests of those `chosen` whose clients have gone: their
    /// places are given back now, and each is told to end.
    fn end_abandoned(&mut self, chosen: impl Fn(&HeldRequest) -> bool) {
        let abandoned: Vec<u64> = self
            .requests
            .iter()
            .filter(|(_, request)| {
                chosen(request) && request.socket.is_some_and(PeerSocket::closed)
            })
            .map(|(id, _)| *id)
            .collect();
        for id in abandoned {
            if let Some(request) = self.release(id) {
                request.gone.notify_one();
            }
        }
    }
}

/// A held request's place, given back when dropped (when the request
/// ends), or earlier when its client is found gone: [`HeldSlot::gone`].
#[derive(Debug)]
pub struct HeldSlot {
    slots: Arc<HeldSlots>,
    id: u64,
    gone: Arc<tokio::sync::Notify>,
}

impl HeldSlot {
    /// Completes when the request's client has been found gone (its place
    /// given to another): the request then ends.
    pub async fn gone(&self) {
        self.gone.notified().await;
    }

    /// `work`'s outcome, or none when the client is found gone first.
    pub async fn unless_gone<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        tokio::select! {
            outcome = work => Some(outcome),
            () = self.gone() => None,
        }
    }
}

impl HeldSlots {
    /// Room for `capacity` held requests.
    pub fn new(capacity: usize) -> HeldSlots {
        HeldSlots {
            capacity,
            held: Mutex::default(),
        }
    }

    /// Room for as many as the descriptor limit allows, after the reserve.
    pub fn for_descriptor_limit(limit: u64) -> HeldSlots {
        let room = descriptors_for_connections(limit);
        HeldSlots::new(usize::try_from(room).unwrap_or(usize::MAX))
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// A place for one more held request, which came on `socket`: `429`
    /// beyond the account's or the address's share, `503` when the
    /// instance holds all it can, once the requests whose clients have
    /// gone have given theirs back.
    pub fn acquire(
        self: &Arc<Self>,
        account: &str,
        address: &str,
        socket: Option<PeerSocket>,
    ) -> Result<HeldSlot, ApiError> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let refused = |what: &str, most: usize| ApiError::RateLimited {
            retry_after: 10,
            detail: format!(
                "{what} holds {most} streams and long polls open already: close one first"
            ),
        };
        let of_account = |held: &Held| held.by_account.get(account).copied().unwrap_or(0);
        let of_address = |held: &Held| held.by_address.get(address).copied().unwrap_or(0);
        if of_account(&held) >= HELD_PER_ACCOUNT {
            held.end_abandoned(|request| request.account == account);
            if of_account(&held) >= HELD_PER_ACCOUNT {
                return Err(refused("this account", HELD_PER_ACCOUNT));
            }
        }
        if of_address(&held) >= HELD_PER_ADDRESS {
            held.end_abandoned(|request| request.address == address);
            if of_address(&held) >= HELD_PER_ADDRESS {
                return Err(refused("this address", HELD_PER_ADDRESS));
            }
        }
        if held.total >= self.capacity {
            let now = Instant::now();
            if held
                .last_full_look
                .is_none_or(|last| now.duration_since(last) >= FULL_LOOK_EVERY)
            {
                held.last_full_look = Some(now);
                held.end_abandoned(|_| true);
            }
            if held.total >= self.capacity {
                return Err(ApiError::Unavailable {
                    retry_after: 10,
                    cause: format!("{} requests held open", held.total),
                });
            }
        }
        held.total += 1;
        *held.by_account.entry(account.to_owned()).or_default() += 1;
        *held.by_address.entry(address.to_owned()).or_default() += 1;
        let (id, gone) = (held.next_id, Arc::new(tokio::sync::Notify::new()));
        held.next_id += 1;
        held.requests.insert(
            id,
            HeldRequest {
                account: account.to_owned(),
                address: address.to_owned(),
                socket,
                gone: gone.clone(),
            },
        );
        Ok(HeldSlot {
            slots: self.clone(),
            id,
            gone,
        })
    }
}

impl Drop for HeldSlot {
    fn drop(&mut self) {
        let mut held = self.slots.held.lock().unwrap_or_else(|p| p.into_inner());
        held.release(self.id);
    }
}

/// Expensive reads (the explorer, searches, whole-archive exports) one
/// client address may have running or waiting at once on an instance.
pub const EXPENSIVE_PER_ADDRESS: usize = 2;
/// How long an expensive read waits for its turn before it is a `503`.
pub const EXPENSIVE_WAIT: Duration = Duration::from_secs(10);

/// The expensive reads of this instance: at most half its cores' worth run
/// at once (each takes a core, and a connection, for as long as it runs),
/// the others waiting their turn a while, so that the other half is left
/// to everyone's moves whatever one client asks; and a few per address,
/// so that one client cannot fill the queue.
#[derive(Debug)]
pub struct ExpensiveReads {
    running: Arc<tokio::sync::Semaphore>,
    wait: Duration,
    by_address: Mutex<HashMap<String, usize>>,
}

/// An expensive read's turn, given back when dropped (when its answer,
/// streamed or not, is done).
#[derive(Debug)]
pub struct ExpensiveRead {
    _running: tokio::sync::OwnedSemaphorePermit,
    _place: AddressPlace,
}

/// An address's place among expensive reads, running or waiting.
#[derive(Debug)]
struct AddressPlace {
    reads: Arc<ExpensiveReads>,
    address: String,
}

impl Drop for AddressPlace {
    fn drop(&mut self) {
        let mut counts = self
            .reads
            .by_address
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        count_down(&mut counts, self.address.as_str());
    }
}

impl ExpensiveReads {
    /// `at_once` expensive reads running at once, the others waiting up to
    /// `wait` for their turn.
    pub fn new(at_once: usize, wait: Duration) -> ExpensiveReads {
        ExpensiveReads {
            running: Arc::new(tokio::sync::Semaphore::new(at_once.max(1))),
            wait,
            by_address: Mutex::default(),
        }
    }

    /// Half of this machine's cores (at least one) running at once, the
    /// others waiting up to [`EXPENSIVE_WAIT`].
    pub fn for_this_machine() -> ExpensiveReads {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        ExpensiveReads::new(cores / 2, EXPENSIVE_WAIT)
    }

    /// A turn for an expensive read from `address`: `429` when the address
    /// has as many running or waiting as allowed, `503` when none comes
    /// free in time.
    pub async fn acquire(self: &Arc<Self>, address: &str) -> Result<ExpensiveRead, ApiError> {
        let place = {
            let mut counts = self.by_address.lock().unwrap_or_else(|p| p.into_inner());
            let count = counts.entry(address.to_owned()).or_default();
            if *count >= EXPENSIVE_PER_ADDRESS {
                return Err(ApiError::RateLimited {
                    retry_after: 5,
                    detail: format!(
                        "this address runs {EXPENSIVE_PER_ADDRESS} searches, explorer reads or \
                         exports already: wait for one to finish"
                    ),
                });
            }
            *count += 1;
            AddressPlace {
                reads: self.clone(),
                address: address.to_owned(),
            }
        };
        let turn = actix_web::rt::time::timeout(self.wait, self.running.clone().acquire_owned());
        match turn.await {
            Ok(Ok(running)) => Ok(ExpensiveRead {
                _running: running,
                _place: place,
            }),
            _ => Err(ApiError::Unavailable {
                retry_after: 5,
                cause: "every turn for searches, explorer reads and exports is taken".to_owned(),
            }),
        }
    }
}

/// The connections open on this instance, by client address.
#[derive(Debug, Default)]
pub struct ConnectionSlots {
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// An open connection's place, given back when dropped (when it closes).
#[derive(Debug)]
pub struct ConnectionSlot {
    slots: Arc<ConnectionSlots>,
    address: IpAddr,
}

impl ConnectionSlots {
    /// A place for one more connection from `address`; none beyond
    /// [`CONNECTIONS_PER_ADDRESS`]. An IPv6 address counts as its /64, the
    /// network a single host is given.
    pub fn acquire(self: &Arc<Self>, address: IpAddr) -> Option<ConnectionSlot> {
        let address = match address {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => IpAddr::V6((u128::from(v6) & (!0 << 64)).into()),
            },
            v4 => v4,
        };
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let count = open.entry(address).or_default();
        if *count >= CONNECTIONS_PER_ADDRESS {
            return None;
        }
        *count += 1;
        Some(ConnectionSlot {
            slots: self.clone(),
            address,
        })
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|p| p.into_inner());
        count_down(&mut open, &self.address);
    }
}

/// Raises the soft limit on open descriptors to the hard one, as far as
/// the system lets this process: what it can then hold open.
pub fn raise_descriptor_limit() -> u64 {
    rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    // One address holds at most its share of connections, a place given
    // back as a connection closes; an IPv6 host's /64 is one address.
    #[test]
    fn connections_are_capped_per_address() {
        let slots = Arc::new(ConnectionSlots::default());
        let one: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let same_network: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let mut held: Vec<ConnectionSlot> = (0..CONNECTIONS_PER_ADDRESS - 1)
            .map(|_| slots.acquire(one).unwrap())
            .collect();
        held.push(slots.acquire(same_network).unwrap());
        assert!(slots.acquire(one).is_none());
        assert!(slots.acquire(same_network).is_none());
        assert!(slots.acquire("2001:db8:1:3::1".parse().unwrap()).is_some());
        assert!(slots.acquire("192.0.2.1".parse().unwrap()).is_some());
        held.pop();
        assert!(slots.acquire(one).is_some());
        drop(held);
        assert!(slots.open.lock().unwrap().is_empty(), "forgotten at none");
    }
}
