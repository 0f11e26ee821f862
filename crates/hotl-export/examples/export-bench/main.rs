//! Times an export's parts on a session in a hotl home (bench/export.sh): loading the
//! snapshot, rendering the page body, the embedded document, the whole page; and a share of
//! about 1 MB of it (redact, render, gzip, seal). Usage:
//! `export-bench HOME ID [RUNS]`; prints one line per part, the median in ms.

use std::time::Instant;

use hotl_export::{Redactor, Snapshot};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        last = Some(f());
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    (median(times), last.expect("at least one run"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, home, id, rest @ ..] = &args[..] else {
        return Err("usage: export-bench HOME ID [RUNS]".into());
    };
    let runs: usize = rest.first().and_then(|r| r.parse().ok()).unwrap_or(5);
    let store = hotl_log::Store::new(home);
    let none = |_: &str, _: &[hotl_log::Record], _: usize| None;
    let (load, snapshot) = time(runs, || Snapshot::load(&store, id, &none));
    let snapshot = snapshot?;
    println!("records {}", snapshot.records.len());
    println!("load {load:.1} ms");
    let (view, _) = time(runs, || {
        hotl_view::project(&snapshot.records, snapshot.own_start)
    });
    println!("project {view:.1} ms");
    let (doc_ms, doc) = time(runs, || {
        hotl_export::Document::of(&snapshot, "2026-01-01T00:00:00.000Z")
    });
    println!("document {doc_ms:.1} ms (log {} bytes)", doc.log.len());
    let (body, html) = time(runs, || {
        hotl_export::html::page::body(
            &snapshot,
            &doc,
            hotl_export::html::transcript::Omit::default(),
        )
    });
    println!(
        "body {body:.1} ms ({} bytes, {} rests)",
        html.0.len(),
        html.1.len()
    );
    let json = serde_json::to_vec(&doc)?;
    let (gz, zipped) = time(runs, || hotl_export::seal::gzip(&json));
    println!(
        "gzip {gz:.1} ms ({} -> {} bytes)",
        json.len(),
        zipped?.len()
    );
    let (page, written) = time(runs, || {
        hotl_export::export_html(snapshot.clone(), "2026-01-01T00:00:00.000Z", None, None)
    });
    let written = written?;
    println!("page {page:.1} ms ({} bytes)", written.bytes.len());
    let (budgeted, fitted) = time(runs, || {
        Snapshot::load(&store, id, &none).map(|s| {
            hotl_export::export_html(
                s,
                "2026-01-01T00:00:00.000Z",
                None,
                Some(hotl_export::DEFAULT_BUDGET),
            )
        })
    });
    let fitted = fitted??;
    println!(
        "load + page within 50 MB {budgeted:.1} ms ({} bytes, {} steps)",
        fitted.bytes.len(),
        fitted.doc.trimmed.len()
    );
    // A share of about 1 MB of the session: its first records up to 1 MB of log.
    let mut small = snapshot.clone();
    let mut bytes = 0;
    let keep = small
        .records
        .iter()
        .take_while(|r| {
            bytes += hotl_log::encode_line(r).map_or(0, |l| l.len());
            bytes < 1_000_000
        })
        .count();
    small.records.truncate(keep.max(2));
    small.children.clear();
    let redactor = Redactor::new(std::env::vars(), &[], std::env::var("HOME").ok());
    let (share, sealed) = time(runs.max(9), || {
        hotl_export::share(
            small.clone(),
            "2026-01-01T00:00:00.000Z",
            Some(&redactor),
            usize::MAX,
        )
    });
    let sealed = sealed?;
    println!(
        "share of {} KB of log {share:.1} ms ({} bytes sealed)",
        bytes / 1024,
        sealed.bytes.len()
    );
    Ok(())
}
