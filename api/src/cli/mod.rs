//! The `kingpost` command line.

mod engine;
mod pgn;
mod service;
mod swiss;

use clap::{Args, Parser, Subcommand};
use kingpost_api::{budgets::RateLimits, secret::Secret, server};
use kingpost_core::{Position, Rules, Start};

#[derive(Debug, Parser)]
#[command(
    name = "kingpost",
    version,
    about = "Correspondence chess server for chess and its variants"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the server (SQLite in the working directory unless told otherwise).
    Serve {
        /// The address to listen on.
        #[arg(long, env = "KINGPOST_BIND", default_value = server::DEFAULT_BIND)]
        bind: String,
        #[command(flatten)]
        database: DatabaseArgs,
        /// The JWT signing secret; without it one is generated and kept in the database.
        #[arg(long, env = "KINGPOST_JWT_SECRET", hide_env_values = true)]
        jwt_secret: Option<String>,
        /// Seconds between two sweeps for games lost on time.
        #[arg(long, env = "KINGPOST_SWEEP_SECONDS", default_value_t = 60)]
        sweep_seconds: u64,
        /// Turn the rate limits off: for load tests and benchmarks only.
        #[arg(long)]
        no_rate_limits: bool,
        /// A reverse proxy whose `X-Forwarded-For` names the client (repeat,
        /// or comma-separated in the variable); without one the header is ignored.
        #[arg(
            long = "trusted-proxy",
            env = "KINGPOST_TRUSTED_PROXIES",
            value_delimiter = ','
        )]
        trusted_proxies: Vec<std::net::IpAddr>,
        /// Let webhooks reach loopback and private addresses: for development
        /// and tests only, never where accounts are not all trusted.
        #[arg(long)]
        allow_private_webhooks: bool,
        /// The SMTP server mail goes through: `smtp://host:25`,
        /// `smtp://user:password@host:587?tls=required` (STARTTLS) or
        /// `smtps://user:password@host:465`. Without it the server sends no
        /// e-mail, and says so.
        #[arg(
            long,
            env = "KINGPOST_SMTP_URL",
            hide_env_values = true,
            requires = "mail_from"
        )]
        smtp_url: Option<String>,
        /// The sender of every mail: `kingpost <noreply@example.org>`.
        #[arg(long, env = "KINGPOST_MAIL_FROM")]
        mail_from: Option<String>,
        /// Where players reach this server (the links in mails point there):
        /// `https://chess.example.org`. The address it listens on when left out.
        #[arg(long, env = "KINGPOST_PUBLIC_URL")]
        public_url: Option<String>,
        /// The VAPID private key Web Push is signed with (`kingpost vapid-key`
        /// makes one); without it the server sends no push, and says so.
        #[arg(long, env = "KINGPOST_VAPID_PRIVATE_KEY", hide_env_values = true)]
        vapid_private_key: Option<String>,
        /// Whom push services may contact about this server: a `mailto:` or
        /// `https:` URL. The public URL when left out.
        #[arg(long, env = "KINGPOST_VAPID_SUBJECT")]
        vapid_subject: Option<String>,
        /// SQLite's page cache for each of the server's connections, in MiB
        /// (SQLite's default is 2): for an archive whose indexes outgrow it.
        #[arg(long, env = "KINGPOST_SQLITE_CACHE_MIB",
              value_parser = clap::value_parser!(u32).range(1..=65536))]
        sqlite_cache_mib: Option<u32>,
        /// A Postgres streaming replica for the reads that may lag (exports,
        /// the archive, search, profiles, leaderboards, tournament pages):
        /// repeat for several, spread in turn; comma-separated in the variable.
        #[arg(
            long = "read-database-url",
            env = "KINGPOST_READ_DATABASE_URLS",
            hide_env_values = true,
            value_delimiter = ','
        )]
        read_database_urls: Vec<String>,
        /// Seconds a replica may be behind the primary and still serve
        /// reads; further behind, or down, its reads go to the primary.
        #[arg(long, env = "KINGPOST_MAX_REPLICA_LAG", default_value_t = 5.0,
              value_parser = replica_lag)]
        max_replica_lag: f64,
    },
    /// Print a new VAPID private key for Web Push (keep it as the JWT
    /// secret is kept: `KINGPOST_VAPID_PRIVATE_KEY`), then its public key.
    VapidKey,
    /// Run the database migrations and exit.
    Migrate {
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Work with PGN files.
    #[command(subcommand)]
    Pgn(PgnCommand),
    /// Work with Swiss tournaments' TRF-2016 reports.
    #[command(subcommand)]
    Swiss(SwissCommand),
    /// Write the OpenAPI document.
    Openapi {
        /// Where to write it (`-` for stdout).
        #[arg(long, default_value = "openapi/openapi.json")]
        output: String,
    },
    /// Count the legal move paths of a given depth.
    Perft {
        #[command(flatten)]
        position: PositionArgs,
        /// Plies to look ahead.
        #[arg(long)]
        depth: u32,
        /// One `<uci> <count>` line per legal move, then the total.
        #[arg(long)]
        divide: bool,
    },
    /// List the legal moves, one `<uci> <san>` per line, sorted by UCI.
    Moves {
        #[command(flatten)]
        position: PositionArgs,
    },
    /// Play moves (UCI or SAN) and print the resulting extended FEN, then
    /// the outcome if the game is over.
    Play {
        #[command(flatten)]
        position: PositionArgs,
        /// The moves, in order.
        moves: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
enum PgnCommand {
    /// Replay every game of a file under its rules and report the bad ones.
    Check {
        /// The PGN file.
        file: String,
        /// Also write, for each game that replays, its index, plies kept and
        /// final FEN, tab-separated, one per line, to this file.
        #[arg(long)]
        fens: Option<String>,
    },
    /// Import every game of a file for study, into an account's collection.
    Import {
        /// The PGN file.
        file: String,
        /// The account the games are imported for (it must exist: sign up first).
        #[arg(long)]
        owner: String,
        /// The owner's collection to file them in, made (private) if new.
        #[arg(long, default_value = "Imported games")]
        collection: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Write random games, for tests and benchmarks.
    Sample {
        #[arg(long, default_value = "standard", help = rules_help())]
        rules: String,
        #[arg(
            long,
            help = "The start: standard, chess960, shuffle (random arrays), chess960:<n>, \
                    shuffle:<id>, prechess"
        )]
        start: Option<String>,
        /// How many games.
        #[arg(long, default_value_t = 10)]
        games: usize,
        /// The random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also write each game's final FEN, one per line, to this file.
        #[arg(long)]
        fens: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum SwissCommand {
    /// Pair the next round of a tournament from its TRF-2016 report (this
    /// server's `report.trf`, or another program's) by FIDE's Dutch system:
    /// the number of pairs, then `<white> <black>` by pairing number a
    /// line, `<player> 0` for the bye.
    Pair {
        /// The TRF-2016 file (`XXR` gives the number of rounds, `XXC` the
        /// first colour; absences already marked `Z` for the round).
        file: String,
    },
}

/// The help of a `--rules` argument, listing every rule set's key.
fn rules_help() -> String {
    format!("The rule set: {}", Rules::ALL.map(Rules::key).join(", "))
}

/// The database a service command uses.
#[derive(Debug, Args)]
struct DatabaseArgs {
    /// `postgres://...` for Postgres, otherwise a SQLite file.
    #[arg(long, env = "DATABASE_URL", default_value = server::DEFAULT_DATABASE_URL)]
    database_url: String,
}

/// The position a chess command starts from.
#[derive(Debug, Args)]
struct PositionArgs {
    #[arg(long, default_value = "standard", help = rules_help())]
    rules: String,
    /// The start: standard, chess960:<0-959>, shuffle:<0-2879> or prechess.
    #[arg(long, conflicts_with = "fen")]
    start: Option<String>,
    /// An extended FEN to start from instead.
    #[arg(long)]
    fen: Option<String>,
}

impl PositionArgs {
    fn position(&self) -> anyhow::Result<Position> {
        let rules: Rules = self.rules.parse()?;
        let start = match (&self.fen, &self.start) {
            // A position to look at, which may be one where the game is over.
            (Some(fen), _) => return Ok(Position::from_fen(rules, fen)?),
            (None, Some(start)) => start.parse()?,
            (None, None) => Start::Standard,
        };
        Ok(Position::from_start(rules, &start)?)
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Serve {
            bind,
            database,
            jwt_secret,
            sweep_seconds,
            no_rate_limits,
            trusted_proxies,
            allow_private_webhooks,
            smtp_url,
            mail_from,
            public_url,
            vapid_private_key,
            vapid_subject,
            sqlite_cache_mib,
            read_database_urls,
            max_replica_lag,
        } => {
            let public_url = public_url.unwrap_or_else(|| format!("http://{bind}"));
            Ok(service::serve(server::ServeOptions {
                push: vapid_private_key.map(|private_key| server::PushOptions {
                    private_key: Secret::from(private_key.as_str()),
                    subject: vapid_subject.unwrap_or_else(|| public_url.clone()),
                }),
                mail: smtp_url.map(|smtp_url| server::MailOptions {
                    smtp_url,
                    from: mail_from.unwrap_or_default(),
                    public_url,
                }),
                bind,
                database_url: database.database_url,
                jwt_secret: jwt_secret.as_deref().map(Secret::from),
                sweep_interval: std::time::Duration::from_secs(sweep_seconds.max(1)),
                limits: if no_rate_limits {
                    RateLimits::unlimited()
                } else {
                    RateLimits::default()
                },
                trusted_proxies,
                allow_private_webhooks,
                sqlite_cache_mib,
                read_database_urls,
                max_replica_lag: std::time::Duration::from_secs_f64(max_replica_lag),
            })?)
        }
        Command::VapidKey => service::vapid_key(&mut out),
        Command::Migrate { database } => Ok(service::migrate(&database.database_url)?),
        Command::Openapi { output } => Ok(service::openapi(&output)?),
        Command::Pgn(PgnCommand::Check { file, fens }) => Ok(pgn::check(&file, fens.as_deref())?),
        Command::Swiss(SwissCommand::Pair { file }) => swiss::pair(&mut out, &file),
        Command::Pgn(PgnCommand::Import {
            file,
            owner,
            collection,
            database,
        }) => Ok(pgn::import(
            &file,
            &owner,
            &collection,
            &database.database_url,
        )?),
        Command::Pgn(PgnCommand::Sample {
            rules,
            start,
            games,
            seed,
            fens,
        }) => Ok(pgn::sample(
            &mut out,
            rules.parse()?,
            start.as_deref(),
            games,
            seed,
            fens.as_deref(),
        )?),
        Command::Perft {
            position,
            depth,
            divide,
        } => engine::perft(&mut out, &position.position()?, depth, divide),
        Command::Moves { position } => engine::moves(&mut out, &position.position()?),
        Command::Play { position, moves } => engine::play(&mut out, position.position()?, &moves),
    }
}

/// A replica's lag bound in seconds: above a tenth of a second (the
/// replicas are checked twice a second) and at most an hour.
fn replica_lag(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("not a number of seconds: {text}"))?;
    if (0.1..=3600.0).contains(&seconds) {
        Ok(seconds)
    } else {
        Err(format!(
            "{seconds} s: a replica's lag bound is from 0.1 to 3600 seconds"
        ))
    }
}
