//! Counting a server's round trips to Postgres: a proxy on loopback that
//! passes every byte both ways and counts the client's messages that end a
//! round trip (`Sync` of the extended protocol, `Query` of the simple one),
//! so that a benchmark can say how many a request costs; and by their text,
//! the statements run (`Bind` of a prepared statement, `Query`) and those
//! Postgres was asked to parse (`Parse`), to show which were parsed again
//! on each use instead of prepared once per connection.

use std::{
    collections::HashMap,
    io::{self, Read, Write},
    net::{Shutdown, TcpListener, TcpStream},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

/// A running proxy; its threads end with the connections through it.
#[derive(Debug)]
pub struct RoundTrips {
    /// `postgres://` URL of the proxy, for the server under test.
    pub url: String,
    count: Arc<AtomicU64>,
    parsed: Arc<Mutex<HashMap<String, u64>>>,
    run: Arc<Mutex<HashMap<String, u64>>>,
}

impl RoundTrips {
    /// Starts a proxy to the Postgres server of `url`
    /// (`postgres://user@host[:port]/db?...`, over TCP).
    pub fn start(url: &str) -> RoundTrips {
        let rest = url.strip_prefix("postgres://").expect("a postgres:// URL");
        let (authority, path) = rest.split_once('/').expect("a database in the URL");
        let (user, host) = authority.rsplit_once('@').expect("user@host");
        let target = if host.contains(':') {
            host.to_owned()
        } else {
            format!("{host}:5432")
        };
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let count = Arc::new(AtomicU64::new(0));
        let parsed = Arc::new(Mutex::new(HashMap::new()));
        let run = Arc::new(Mutex::new(HashMap::new()));
        let counters = Counters {
            trips: count.clone(),
            parsed: parsed.clone(),
            run: run.clone(),
        };
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = TcpStream::connect(&target) else {
                    continue;
                };
                pump(client, server, counters.clone());
            }
        });
        // In the clear, so that the messages can be read.
        let separator = if path.contains('?') { '&' } else { '?' };
        RoundTrips {
            url: format!(
                "postgres://{user}@127.0.0.1:{port}/{path}{separator}sslmode=disable&gssencmode=disable"
            ),
            count,
            parsed,
            run,
        }
    }

    /// Round trips counted so far, over every connection.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// How often Postgres was asked to parse each statement so far, over
    /// every connection.
    pub fn parsed(&self) -> HashMap<String, u64> {
        self.parsed.lock().unwrap().clone()
    }

    /// How often each statement was run so far, over every connection.
    pub fn run(&self) -> HashMap<String, u64> {
        self.run.lock().unwrap().clone()
    }
}

/// What the proxy's threads count into.
#[derive(Clone)]
struct Counters {
    trips: Arc<AtomicU64>,
    parsed: Arc<Mutex<HashMap<String, u64>>>,
    run: Arc<Mutex<HashMap<String, u64>>>,
}

fn count(counts: &Mutex<HashMap<String, u64>>, text: &[u8]) {
    *counts
        .lock()
        .unwrap()
        .entry(String::from_utf8_lossy(text).into_owned())
        .or_default() += 1;
}

/// Passes `client`'s bytes to `server`, counting its messages, and the
/// answers back, each way on a thread of its own.
fn pump(client: TcpStream, server: TcpStream, counters: Counters) {
    // Each message goes on as it is read, in small writes: Nagle's
    // algorithm would hold them for the peer's delayed acknowledgement
    // (tens of milliseconds a round trip), and the server's background
    // work would then fall into the count of a slowed-down request.
    for stream in [&client, &server] {
        stream.set_nodelay(true).unwrap();
    }
    let (client_read, server_write) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    std::thread::spawn(move || {
        let _ = forward_counting(client_read, server_write, &counters);
    });
    std::thread::spawn(move || {
        let (mut from, mut to) = (server, client);
        let _ = io::copy(&mut from, &mut to);
        let _ = to.shutdown(Shutdown::Both);
    });
}

/// The frontend's stream: a startup message (length, then body, no type),
/// then messages of a type byte, a length that counts itself, and a body.
fn forward_counting(mut from: TcpStream, mut to: TcpStream, counters: &Counters) -> io::Result<()> {
    let mut length = [0; 4];
    from.read_exact(&mut length)?;
    let mut startup = vec![0; (u32::from_be_bytes(length) as usize).saturating_sub(4)];
    from.read_exact(&mut startup)?;
    to.write_all(&length)?;
    to.write_all(&startup)?;
    let mut head = [0; 5];
    let mut body = Vec::new();
    // This connection's prepared statements, by name ("" is the unnamed one).
    let mut prepared: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
    loop {
        if from.read_exact(&mut head).is_err() {
            let _ = to.shutdown(Shutdown::Both);
            return Ok(());
        }
        if matches!(head[0], b'S' | b'Q') {
            counters.trips.fetch_add(1, Ordering::Relaxed);
        }
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        body.resize(len.saturating_sub(4), 0);
        from.read_exact(&mut body)?;
        // Each of these begins with nul-ended strings.
        let mut fields = body.split(|&b| b == 0);
        match head[0] {
            // Parse: the statement's name, then its text.
            b'P' => {
                let name = fields.next().unwrap_or_default().to_vec();
                let text = fields.next().unwrap_or_default().to_vec();
                count(&counters.parsed, &text);
                prepared.insert(name, text);
            }
            // Bind: the portal's name, then the statement's.
            b'B' => {
                let name = fields.nth(1).unwrap_or_default();
                let text = prepared.get(name).map_or(&b"?"[..], |text| &text[..]);
                count(&counters.run, text);
            }
            // Query: its text.
            b'Q' => count(&counters.run, fields.next().unwrap_or_default()),
            _ => {}
        }
        to.write_all(&head)?;
        to.write_all(&body)?;
    }
}
