//! `hotl-synth`: writes realistic synthetic sessions into a hotl home, for benchmarks.
//!
//! Root sessions are written in bulk with hotl-log's own encoder (one file write, no fsync per
//! record), then their metadata cache is rebuilt so listings start warm. About 5% of sessions
//! are forks of an earlier one, made with `Store::fork` and grown with `Writer::append`, as
//! hotl itself does. Content is deterministic for a given `--seed` and `--now`; session ids are
//! fresh ULIDs.

mod content;
mod rng;
mod session;

use std::fs::{self, DirBuilder, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

use clap::Parser;
use hotl_log::{Body, Clock, Record, SessionStart, Store, encode_line, format_ts, parse_ts};

use crate::rng::Rng;
use crate::session::{Event, MODEL, SessionGen};

/// Write synthetic hotl sessions into a home, for benchmarks
#[derive(Debug, Parser)]
#[command(name = "hotl-synth")]
struct Args {
    /// The hotl home to write into (created if missing; existing sessions are kept)
    #[arg(long, value_name = "DIR")]
    home: PathBuf,
    /// How many root sessions to write
    #[arg(long, value_name = "N")]
    sessions: usize,
    /// About how many records each (varies ±50% when N > 1; forks get 1-3 turns)
    #[arg(long, value_name = "M")]
    records: usize,
    /// PRNG seed: the same seed gives the same content (ids differ)
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Working directory recorded in every session [default: one of a few, per session]
    #[arg(long, value_name = "PATH")]
    cwd: Option<String>,
    /// End of the 60-day window the sessions are spread over, RFC 3339 [default: now]
    #[arg(long, value_name = "TS")]
    now: Option<String>,
    /// Long-lived sessions: long agentic turns (about 120 records each), every turn folded
    /// once done, a compaction after every ten folds, no thinking blocks (their signatures
    /// would be refused by a provider that did not sign them); no forks; with the view
    /// checkpoint hotl keeps
    #[arg(long)]
    folded: bool,
    /// With --folded: about this many turns (user messages), their length set by --records
    /// (the same conversation with more or less archived work behind it)
    #[arg(long, value_name = "N", requires = "folded")]
    turns: Option<usize>,
}

/// Sessions are spread over this many days before `--now`.
const WINDOW_DAYS: u64 = 60;

/// The share of sessions that are forks of an earlier one.
const FORK_SHARE: f64 = 0.05;

type Result<T> = std::result::Result<T, String>;

/// A session this run wrote.
struct Made {
    id: String,
    cwd: String,
    end: SystemTime,
    records: u64,
    bytes: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hotl-synth: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<()> {
    let started = Instant::now();
    let store = Store::new(&args.home);
    let now = match &args.now {
        Some(s) => parse_ts(s).ok_or_else(|| format!("bad --now {s:?}: want RFC 3339"))?,
        None => SystemTime::now(),
    };
    let window = Duration::from_secs(WINDOW_DAYS * 86_400);
    let begin = now - window;
    let slot = window / args.sessions.max(1) as u32;
    let mut made: Vec<Made> = Vec::with_capacity(args.sessions);
    let mut forks = 0;
    for index in 0..args.sessions {
        let mut rng = Rng::derive(args.seed, index as u64);
        let jitter = if args.sessions > 1 {
            rng.unit() * 0.5
        } else {
            0.0
        };
        let start = begin + slot * index as u32 + slot.mul_f64(jitter);
        let cwd = match &args.cwd {
            Some(cwd) => cwd.clone(),
            None => content::cwd(&mut rng),
        };
        let fork_of =
            (index > 0 && !args.folded && rng.chance(FORK_SHARE)).then(|| rng.urange(0, index - 1));
        let session = match fork_of {
            Some(parent) => {
                forks += 1;
                fork(&store, &made[parent], rng, index, start, now)?
            }
            None => {
                let target = if args.sessions == 1 {
                    args.records
                } else {
                    rng.urange(args.records / 2, args.records * 3 / 2)
                };
                let folded = args.folded.then(|| {
                    // About two records a step, and a few more a turn.
                    args.turns
                        .map(|turns| (target / turns.max(1)).saturating_sub(6) / 2)
                });
                bulk(&store, rng, index, (start, now), target.max(1), cwd, folded)?
            }
        };
        made.push(session);
    }
    let records: u64 = made.iter().map(|m| m.records).sum();
    let bytes: u64 = made.iter().map(|m| m.bytes).sum();
    println!(
        "hotl-synth: {} sessions ({forks} forks), {records} records, {bytes} bytes ({:.1} MB), {:.1} s",
        made.len(),
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Writes a root session's whole log in one go (temp file, then rename) and warms its cache;
/// its records fall between `span`'s start and deadline.
fn bulk(
    store: &Store,
    rng: Rng,
    index: usize,
    (start, deadline): (SystemTime, SystemTime),
    target: usize,
    cwd: String,
    folded: Option<Option<usize>>,
) -> Result<Made> {
    let dir = store.layout().sessions_dir();
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let id = hotl_log::new_session_id();
    let path = store.layout().log(&id);
    let tmp = dir.join(format!(".{id}.jsonl.synth.tmp"));
    let io = |e: std::io::Error| format!("writing {}: {e}", tmp.display());
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut rng = rng;
    let session = SessionStart {
        id: id.clone(),
        model: Some(MODEL.to_owned()),
        cache_key: Some(rng.hex(32)),
        ..SessionStart::new(cwd.clone())
    };
    let first = Record::new(1, format_ts(start), Body::Session(Box::new(session)));
    let mut bytes = write_record(&mut out, &first).map_err(io)?;
    let mut records = 1u64;
    let mut maker = SessionGen::new(rng, index, 2, start, deadline, target);
    if let Some(turn_steps) = folded {
        maker = maker.folded(turn_steps);
    }
    let mut events = Vec::new();
    while (records as usize) < target {
        maker.turn(&mut events);
        for Event { seq, at, body } in events.drain(..) {
            bytes += write_record(&mut out, &Record::new(seq, format_ts(at), body)).map_err(io)?;
            records += 1;
        }
    }
    out.flush().map_err(io)?;
    // On disk, as hotl's own appends (each synced) leave a log: otherwise the first sync of
    // the next writer pays for flushing all of it.
    out.get_ref().sync_all().map_err(io)?;
    drop(out);
    fs::rename(&tmp, &path).map_err(|e| format!("renaming to {}: {e}", path.display()))?;
    store.rebuild_meta(&id).map_err(|e| e.to_string())?;
    if folded.is_some() {
        // hotl writes a view checkpoint after each fold: so does this, by opening the session
        // once as hotl does (letting it go writes one).
        let session = hotl_agent::Session::open(store, &id, hotl_agent::standard_tools())
            .map_err(|e| e.to_string())?;
        drop(session);
    }
    Ok(Made {
        id,
        cwd,
        end: maker.now(),
        records,
        bytes,
    })
}

fn write_record(out: &mut impl Write, record: &Record) -> std::io::Result<u64> {
    let line = encode_line(record).map_err(std::io::Error::other)?;
    out.write_all(&line)?;
    Ok(line.len() as u64)
}

/// Forks `parent` at its head through the store, then appends one to three turns record by
/// record through `Writer::append` (each with its own timestamp, hence a writer per record).
fn fork(
    store: &Store,
    parent: &Made,
    mut rng: Rng,
    index: usize,
    slot_start: SystemTime,
    deadline: SystemTime,
) -> Result<Made> {
    let err = |e: hotl_log::LogError| e.to_string();
    let meta = store.meta(&parent.id).map_err(err)?;
    let pin = store
        .pin(&parent.id, meta.last_seq, meta.size)
        .map_err(err)?;
    let at = slot_start.max(parent.end) + Duration::from_secs(rng.range(60, 1800));
    let writer = store
        .clone()
        .with_clock(Clock::Fixed(at))
        .fork(pin, &parent.cwd, vec![], None)
        .map_err(err)?;
    let id = writer.id().to_owned();
    let first_seq = writer.next_seq();
    drop(writer);
    let turns = rng.urange(1, 3);
    let deadline = deadline.max(at + Duration::from_secs(3600));
    let mut maker = SessionGen::new(rng, index, first_seq, at, deadline, turns * 11);
    let mut events = Vec::new();
    for _ in 0..turns {
        maker.turn(&mut events);
    }
    let mut records = 1;
    for Event { seq, at, body } in events {
        let mut writer = store
            .clone()
            .with_clock(Clock::Fixed(at))
            .writer(&id)
            .map_err(err)?;
        let written = writer.append(body).map_err(err)?;
        if written.seq != seq {
            return Err(format!(
                "fork {id}: the writer numbered a record {} where {seq} was planned",
                written.seq
            ));
        }
        records += 1;
    }
    let path = store.layout().log(&id);
    let bytes = fs::metadata(&path)
        .map_err(|e| format!("reading {}: {e}", path.display()))?
        .len();
    Ok(Made {
        id,
        cwd: parent.cwd.clone(),
        end: maker.now(),
        records,
        bytes,
    })
}
