//! Recall benchmark: a synthetic session of about `--mb` megabytes of log (tool outputs of
//! compiler, test, server-log, source and prose text, folded in spans), indexed with the
//! persisted index; reports build time and size, warm open time, ranked-query latency over 50
//! queries, exact and regex scans, the incremental update after one new fold, and a
//! ripgrep-style baseline (one regex pass over the raw log, on disk and in memory); then the
//! whole tree's archive with 20 fork children added (first open, cached open, ranked queries).
//!
//! Usage: `recall-bench [--mb N] [--dir DIR] [--seed S] [--queries N]`. The log is written
//! once to `DIR/home` and reused while its size and seed match; the index is always rebuilt.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hotl_log::Store;
use hotl_recall::{Mode, open_index};

mod synth;

use crate::synth::{FILES, Gen, LogStats};

const ID: &str = "01JD0000000000000000000BEN";
const TS: &str = "2026-11-01T12:00:00.000Z";

fn main() {
    let mut mb: u64 = 1024;
    let mut dir = PathBuf::from("bench/out/recall");
    let mut seed: u64 = 42;
    let mut n_queries = 50;
    let mut open_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().expect("a value after the flag");
        match a.as_str() {
            "--mb" => mb = value().parse().expect("--mb N"),
            "--dir" => dir = value().into(),
            "--seed" => seed = value().parse().expect("--seed N"),
            "--queries" => n_queries = value().parse().expect("--queries N"),
            "--open-only" => open_only = true,
            other => panic!("unknown argument {other}; see the module doc"),
        }
    }
    let result = if open_only {
        open_fresh(&dir, seed, n_queries)
    } else {
        run(mb, &dir, seed, n_queries)
    };
    if let Err(e) = result {
        eprintln!("recall-bench: {e}");
        std::process::exit(1);
    }
}

type Res<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// In a fresh process: opens the index a full run left (`KEEP=1`), runs the ranked queries, and
/// reports the time and the memory a loaded index holds.
fn open_fresh(dir: &Path, seed: u64, n_queries: usize) -> Res {
    let store = Store::new(dir.join("home"));
    let before = vm("VmRSS");
    let t = Instant::now();
    let archive = open_index(&store, ID)?;
    let open = t.elapsed();
    let after_open = vm("VmRSS");
    let mut times = Vec::new();
    for q in Gen::new(seed).queries(n_queries) {
        let t = Instant::now();
        archive.search(&q, Mode::Ranked, 10)?;
        times.push(t.elapsed());
    }
    let (p50, p90, _) = percentiles(&mut times);
    println!(
        "fresh process: open {:.0} ms, RSS {:.0} MB -> {:.0} MB after open, peak {:.0} MB after the queries; ranked p50 {:.1} ms, p90 {:.1} ms",
        ms(open),
        before / 1e3,
        after_open / 1e3,
        vm("VmHWM") / 1e3,
        ms(p50),
        ms(p90)
    );
    Ok(())
}

/// A `/proc/self/status` field in kB (0 where there is none).
fn vm(field: &str) -> f64 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()
        })
        .unwrap_or(0.0)
}

fn run(mb: u64, dir: &Path, seed: u64, n_queries: usize) -> Res {
    let home = dir.join("home");
    let store = Store::new(&home);
    let project = dir.join("project");
    fs::create_dir_all(&project)?;
    for i in 0..FILES {
        fs::write(
            project.join(format!("mod_{i}.rs")),
            format!("// file {i}\n"),
        )?;
    }
    let marker = dir.join(format!("log-{mb}mb-seed{seed}.done"));
    let mut gen_ = Gen::new(seed);
    let t = Instant::now();
    let stats = if marker.is_file() {
        let s: Vec<u64> = fs::read_to_string(&marker)?
            .split_whitespace()
            .map(|x| x.parse().unwrap_or(0))
            .collect();
        // Drop what an earlier run appended (the incremental step).
        fs::OpenOptions::new()
            .write(true)
            .open(store.layout().log(ID))?
            .set_len(s[0])?;
        println!(
            "log: reused {} ({} records)",
            store.layout().log(ID).display(),
            s[1]
        );
        LogStats {
            bytes: s[0],
            records: s[1],
            folds: s[2],
            last_seq: s[3],
            text: s[4],
        }
    } else {
        let _ = fs::remove_dir_all(&home);
        fs::create_dir_all(store.layout().sessions_dir())?;
        let s = gen_.write_log(&store.layout().log(ID), &project, mb * 1_000_000)?;
        fs::write(
            &marker,
            format!(
                "{} {} {} {} {}",
                s.bytes, s.records, s.folds, s.last_seq, s.text
            ),
        )?;
        println!("log: generated in {:.1} s", t.elapsed().as_secs_f64());
        s
    };
    println!(
        "log: {:.0} MB, {} records, {} folds, {:.0} MB of message text",
        stats.bytes as f64 / 1e6,
        stats.records,
        stats.folds,
        stats.text as f64 / 1e6
    );

    let index_dir = store.layout().index_dir().join("recall");
    let _ = fs::remove_dir_all(&index_dir);
    let t = Instant::now();
    let archive = open_index(&store, ID)?;
    let build = t.elapsed();
    drop(archive);
    let (index_bytes, segments) = dir_size(&index_dir)?;
    println!(
        "build (cold, whole lineage): {:.1} s; index {:.0} MB in {segments} segment(s) + .idx",
        build.as_secs_f64(),
        index_bytes as f64 / 1e6
    );

    let t = Instant::now();
    let archive = open_index(&store, ID)?;
    let open = t.elapsed();
    let st = archive.stats();
    println!(
        "open (warm, index up to date): {:.0} ms; {} threads, {} archived docs of {}, {} terms, {:.0} MB of text",
        ms(open),
        archive.threads().len(),
        st.archived_docs,
        st.docs,
        st.terms,
        st.text_bytes as f64 / 1e6
    );

    let queries = gen_.queries(n_queries);
    let mut times = Vec::new();
    let mut hits_total = 0;
    for q in &queries {
        let t = Instant::now();
        let hits = archive.search(q, Mode::Ranked, 10)?;
        times.push(t.elapsed());
        hits_total += hits.len();
    }
    let (p50, p90, max) = percentiles(&mut times);
    println!(
        "ranked ({} queries of 1-3 words, limit 10): p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms; {:.1} hits a query",
        queries.len(),
        ms(p50),
        ms(p90),
        ms(max),
        hits_total as f64 / queries.len() as f64
    );
    let sample = archive.search(&queries[0], Mode::Ranked, 3)?;
    println!(
        "  e.g. {:?}:\n{}",
        queries[0],
        indent(&hotl_recall::render_hits(&sample))
    );

    let mut times = Vec::new();
    let mut hits_total = 0;
    for q in &queries {
        let t = Instant::now();
        hits_total += archive.search(q, Mode::Exact, 10)?.len();
        times.push(t.elapsed());
    }
    let (p50, p90, max) = percentiles(&mut times);
    println!(
        "exact (the same queries as phrases, limit 10): p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms; {:.1} hits a query",
        ms(p50),
        ms(p90),
        ms(max),
        hits_total as f64 / queries.len() as f64
    );
    let rare = gen_.rare_word();
    let rare_regex = format!(r"{rare}\s+\d");
    for (q, mode) in [
        ("the error file", Mode::Ranked),
        (rare.as_str(), Mode::Exact),
        ("error[e0", Mode::Exact),
        ("zzzz-not-there", Mode::Exact),
        (r"took=9\d\dms", Mode::Regex),
        (rare_regex.as_str(), Mode::Regex),
    ] {
        let t = Instant::now();
        let hits = archive.search(q, mode, 10)?;
        println!(
            "{mode:?} {q:?} (limit 10): {:.0} ms, {} hits",
            ms(t.elapsed()),
            hits.len()
        );
    }
    drop(archive);

    let t = Instant::now();
    gen_.append_fold(&store.layout().log(ID), &project, stats.last_seq)?;
    let appended = t.elapsed();
    let t = Instant::now();
    let archive = open_index(&store, ID)?;
    let update = t.elapsed();
    let found = archive.search("quetzalcoatl", Mode::Ranked, 5)?;
    let (_, segments) = dir_size(&index_dir)?;
    println!(
        "incremental update, one new turn folded: {:.0} ms (append {:.1} ms); {} hits for its word, {segments} segments",
        ms(update),
        ms(appended),
        found.len()
    );
    let t = Instant::now();
    drop(open_index(&store, ID)?);
    println!("open after the update: {:.0} ms", ms(t.elapsed()));

    // ripgrep-style baseline: one case-insensitive regex pass over the raw log.
    let log = store.layout().log(ID);
    let words: Vec<&String> = queries.iter().take(5).collect();
    let mut disk = Vec::new();
    let mut mem = Vec::new();
    let raw = fs::read(&log)?;
    for q in &words {
        let re = regex::bytes::RegexBuilder::new(
            &q.split_whitespace()
                .map(regex::escape)
                .collect::<Vec<_>>()
                .join("|"),
        )
        .case_insensitive(true)
        .build()?;
        let t = Instant::now();
        let n = scan_file(&log, &re)?;
        disk.push(t.elapsed());
        let t = Instant::now();
        let m = re.find_iter(&raw).count();
        mem.push(t.elapsed());
        assert!(n >= m.min(1));
    }
    let (d50, _, _) = percentiles(&mut disk);
    let (m50, _, _) = percentiles(&mut mem);
    println!(
        "baseline regex scan of the {:.0} MB log (median of {}): from the file {:.0} ms, in memory {:.0} ms",
        raw.len() as f64 / 1e6,
        words.len(),
        ms(d50),
        ms(m50)
    );
    forks(&store, &mut gen_, &queries)
}

/// The whole tree's archive (`open_archive`): the session plus `FORKS` fork children of about
/// `FORK_KB` KB each; the first open indexes and caches each fork, later ones reuse the caches.
fn forks(store: &Store, gen_: &mut Gen, queries: &[String]) -> Res {
    const FORKS: usize = 20;
    const FORK_KB: usize = 500;
    // Forks of an earlier run (a kept directory) go first.
    let _ = fs::remove_dir_all(store.layout().tree_dir(ID));
    let root = store.writer(ID)?;
    let lineage = store.lineage(ID)?;
    let head = root.next_seq() - 1;
    let pin = store.pin(ID, head, lineage.offset_for(head))?;
    drop(lineage);
    for i in 0..FORKS {
        let mut child = root.delegate(
            pin.clone(),
            "/bench",
            vec![],
            hotl_log::Delegation {
                by: ID.to_owned(),
                agent: Some("fork".to_owned()),
                description: format!("side task {i}"),
                handle: Some(format!("f{i:03x}")),
                call: None,
                at: None,
                agent_blob: None,
                background: false,
            },
        )?;
        let mut written = 0;
        while written < FORK_KB * 1000 {
            let text = gen_.output(2000);
            written += text.len();
            child.append(hotl_log::Body::user_text(text))?;
        }
    }
    drop(root);
    let t = Instant::now();
    let archive = hotl_recall::open_archive(store, ID)?;
    let cold = t.elapsed();
    drop(archive);
    let t = Instant::now();
    let archive = hotl_recall::open_archive(store, ID)?;
    let warm = t.elapsed();
    let mut times = Vec::new();
    for q in queries {
        let t = Instant::now();
        archive.search(q, Mode::Ranked, 10)?;
        times.push(t.elapsed());
    }
    let (p50, p90, _) = percentiles(&mut times);
    println!(
        "with {FORKS} forks of {FORK_KB} KB (open_archive): first open {:.0} ms (indexes and caches each fork), then {:.0} ms; ranked p50 {:.1} ms, p90 {:.1} ms",
        ms(cold),
        ms(warm),
        ms(p50),
        ms(p90)
    );
    Ok(())
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("    {l}\n")).collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn percentiles(times: &mut [Duration]) -> (Duration, Duration, Duration) {
    times.sort();
    let at = |p: f64| times[((times.len() as f64 - 1.0) * p).round() as usize];
    (at(0.5), at(0.9), at(1.0))
}

fn dir_size(dir: &Path) -> Res<(u64, usize)> {
    let mut total = 0;
    let mut segments = 0;
    for e in fs::read_dir(dir)? {
        let e = e?;
        total += e.metadata()?.len();
        segments += usize::from(e.file_name().to_string_lossy().ends_with(".seg"));
    }
    Ok((total, segments))
}

/// Counts matches reading the file in 16 MB chunks cut at line ends, as grep tools do.
fn scan_file(path: &Path, re: &regex::bytes::Regex) -> Res<usize> {
    let mut file = fs::File::open(path)?;
    let mut buf = vec![0u8; 16 << 20];
    let mut carry = 0;
    let mut count = 0;
    loop {
        let n = file.read(&mut buf[carry..])?;
        let filled = carry + n;
        if n == 0 {
            count += re.find_iter(&buf[..filled]).count();
            return Ok(count);
        }
        let cut = buf[..filled]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(filled, |i| i + 1);
        count += re.find_iter(&buf[..cut]).count();
        buf.copy_within(cut..filled, 0);
        carry = filled - cut;
        if carry == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
    }
}
