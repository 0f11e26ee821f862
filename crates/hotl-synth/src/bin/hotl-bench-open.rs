//! `hotl-bench-open`: times opening one log, either as a bare `serde_json::Value` parse of every
//! line or as hotl's real path (lineage, projection, model messages), and reports peak RSS.
//! A third mode summarizes every session of a home the way a cold metadata rebuild does, but
//! without writing the caches, to tell parsing cost from filesystem cost.
//!
//! Run each mode in its own process: peak RSS (`VmHWM`) is per process.

use std::fs::File;
use std::hint::black_box;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use hotl_log::Store;
use hotl_view::{View, model_view};

/// Time opening one hotl log
#[derive(Debug, Parser)]
#[command(name = "hotl-bench-open")]
struct Args {
    /// The log, as it sits in a home (`<home>/sessions/<id>.jsonl`); the home for `summarize`
    file: PathBuf,
    /// What opening means
    #[arg(value_enum)]
    mode: Mode,
    /// How many times to run it
    #[arg(long, short = 'r', default_value_t = 5)]
    runs: usize,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Mode {
    /// Read the file line by line and parse each line into a serde_json::Value (the baseline)
    Value,
    /// Store::lineage, then View::from_lineage, then model_view (what hotl does to open a session)
    Project,
    /// Store::lineage and Lineage::summarize of every session in a home, caches not written
    Summarize,
}

/// One run's phases; `total` is the time until the result is ready (dropping it excluded).
#[derive(Clone, Copy, Debug, Default)]
struct Timing {
    total: Duration,
    read: Duration,
    view: Duration,
    model: Duration,
    drop: Duration,
    records: usize,
    /// Resident set size after the read and after the view (project mode).
    rss_read: u64,
    rss_view: u64,
    /// malloc's view after the read: bytes handed out, and free bytes it keeps (fragmentation).
    heap_read: (u64, u64),
    /// Records the projection could not apply (the synthetic data should have none).
    anomalies: usize,
}

type Result<T> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hotl-bench-open: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<()> {
    let size = match args.mode {
        Mode::Value | Mode::Project => std::fs::metadata(&args.file)
            .map_err(|e| format!("{}: {e}", args.file.display()))?
            .len(),
        Mode::Summarize => home_log_bytes(&args.file)?,
    };
    let mut timings = Vec::with_capacity(args.runs);
    for _ in 0..args.runs.max(1) {
        timings.push(match args.mode {
            Mode::Value => parse_values(&args.file)?,
            Mode::Project => project(&args.file)?,
            Mode::Summarize => summarize(&args.file)?,
        });
    }
    // The first run is what opening a session in a fresh process costs (new memory is paged
    // in); later runs reuse the allocator's freed memory.
    let first = timings[0];
    timings.sort_by_key(|t| t.total);
    let best = timings[0];
    let median = timings[timings.len() / 2];
    let mode = match args.mode {
        Mode::Value => "value",
        Mode::Project => "project",
        Mode::Summarize => "summarize",
    };
    let s = |d: Duration| format!("{:.4}", d.as_secs_f64());
    let fields = [
        ("mode", mode.to_owned()),
        ("runs", timings.len().to_string()),
        ("records", best.records.to_string()),
        ("file_bytes", size.to_string()),
        ("first_s", s(first.total)),
        ("first_read_s", s(first.read)),
        ("first_view_s", s(first.view)),
        ("first_model_s", s(first.model)),
        ("best_s", s(best.total)),
        ("median_s", s(median.total)),
        ("median_read_s", s(median.read)),
        ("median_view_s", s(median.view)),
        ("median_model_s", s(median.model)),
        ("median_drop_s", s(median.drop)),
        ("first_rss_after_read_bytes", first.rss_read.to_string()),
        (
            "first_heap_in_use_after_read_bytes",
            first.heap_read.0.to_string(),
        ),
        (
            "first_heap_free_after_read_bytes",
            first.heap_read.1.to_string(),
        ),
        ("first_rss_after_view_bytes", first.rss_view.to_string()),
        ("anomalies", first.anomalies.to_string()),
        ("peak_rss_bytes", status_kb("VmHWM:")?.to_string()),
    ];
    let line: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
    println!("{}", line.join(" "));
    Ok(())
}

/// The baseline: every line into a `Value`, each dropped before the next (as a streaming
/// parse would). Same buffer size as hotl's reader.
fn parse_values(path: &Path) -> Result<Timing> {
    let started = Instant::now();
    let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut reader = BufReader::with_capacity(1 << 18, file);
    let mut line = Vec::new();
    let mut records = 0;
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        let value: serde_json::Value = serde_json::from_slice(&line)
            .map_err(|e| format!("{} line {}: {e}", path.display(), records + 1))?;
        black_box(&value);
        records += 1;
    }
    let total = started.elapsed();
    Ok(Timing {
        total,
        read: total,
        records,
        ..Timing::default()
    })
}

/// hotl's path: the lineage (tolerant read of the log and its ancestors), the projection and
/// the model view.
fn project(path: &Path) -> Result<Timing> {
    let (home, id) = locate(path)?;
    let store = Store::new(home);
    let started = Instant::now();
    let lineage = store.lineage(&id).map_err(|e| e.to_string())?;
    let read = started.elapsed();
    let rss_read = status_kb("VmRSS:")?;
    let heap_read = heap();
    let read_done = Instant::now();
    let records = lineage.records.len();
    let view = View::from_lineage(lineage);
    let viewed = read + read_done.elapsed();
    let rss_view = status_kb("VmRSS:")?;
    let view_done = Instant::now();
    let messages = model_view(&view);
    let total = viewed + view_done.elapsed();
    black_box(&messages);
    let dropping = Instant::now();
    let anomalies = view.anomalies.len();
    drop(messages);
    drop(view);
    Ok(Timing {
        total,
        read,
        view: viewed - read,
        model: total - viewed,
        drop: dropping.elapsed(),
        records,
        rss_read,
        rss_view,
        heap_read,
        anomalies,
    })
}

/// What a cold `sessions list` does per session, minus `fs::metadata` and the cache write.
fn summarize(home: &Path) -> Result<Timing> {
    let store = Store::new(home);
    let started = Instant::now();
    let mut records = 0;
    for id in store.session_ids().map_err(|e| e.to_string())? {
        let lineage = store.lineage(&id).map_err(|e| e.to_string())?;
        black_box(lineage.summarize());
        records += lineage.own().len();
    }
    let total = started.elapsed();
    Ok(Timing {
        total,
        read: total,
        records,
        ..Timing::default()
    })
}

/// The total size of a home's root logs.
fn home_log_bytes(home: &Path) -> Result<u64> {
    let store = Store::new(home);
    let mut bytes = 0;
    for id in store.session_ids().map_err(|e| e.to_string())? {
        let path = store.layout().log(&id);
        bytes += std::fs::metadata(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .len();
    }
    Ok(bytes)
}

/// `<home>/sessions/<id>.jsonl` → (home, id).
fn locate(path: &Path) -> Result<(PathBuf, String)> {
    let id = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".jsonl"))
        .filter(|id| hotl_log::is_session_id(id));
    let home = path.parent().and_then(Path::parent);
    match (home, id) {
        (Some(home), Some(id)) => Ok((home.to_owned(), id.to_owned())),
        _ => Err(format!(
            "{}: want a log inside a home, <home>/sessions/<id>.jsonl",
            path.display()
        )),
    }
}

/// A size line of `/proc/self/status` (`VmHWM:` is the peak RSS so far), in bytes.
fn status_kb(key: &str) -> Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("/proc/self/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|kb| kb.trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .ok_or_else(|| format!("no {key} in /proc/self/status"))
}

/// glibc's `mallinfo2`: (bytes allocated, free bytes held in the heap); zeros elsewhere.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
// The heap in use is read from glibc through FFI, which is unsafe to call.
#[allow(unsafe_code)]
fn heap() -> (u64, u64) {
    #[repr(C)]
    struct MallInfo2 {
        arena: usize,
        ordblks: usize,
        smblks: usize,
        hblks: usize,
        hblkhd: usize,
        usmblks: usize,
        fsmblks: usize,
        uordblks: usize,
        fordblks: usize,
        keepcost: usize,
    }
    unsafe extern "C" {
        fn mallinfo2() -> MallInfo2;
    }
    // SAFETY: mallinfo2 takes no arguments and returns a plain struct (glibc >= 2.33).
    let info = unsafe { mallinfo2() };
    ((info.uordblks + info.hblkhd) as u64, info.fordblks as u64)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn heap() -> (u64, u64) {
    (0, 0)
}
