//! SSE decoding throughput and allocations per event: hotl's decoder against eventsource-stream
//! on the same input, a ~50 MB synthetic Anthropic stream shaped like the recorded fixtures,
//! fed in 16 KiB chunks. Also the full decode into neutral events, for scale.
//!
//! Run with `cargo bench -p hotl-wire --bench sse` (`-- --quick` for a 5 MB stream).

use std::alloc::{GlobalAlloc, Layout, System};
use std::convert::Infallible;
use std::hint::black_box;
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use bytes::Bytes;
use eventsource_stream::Eventsource;
use futures_util::{Stream, stream};
use hotl_wire::{Event, Flow, SseDecoder, SseEvent, StreamDecoder, StreamSink, WireError};

/// Counts allocations (a `realloc` counts as one).
struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

// Counting allocations needs a global allocator, which is unsafe to implement.
#[allow(unsafe_code)]
// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        // SAFETY: the caller upholds `alloc`'s contract, which `System` shares.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const CHUNK: usize = 16 * 1024;

/// A deterministic pseudo-random source.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// An Anthropic stream of about `target` bytes: thinking, text and tool blocks with deltas of
/// varied length (escapes and non-ASCII included), pings between blocks, CRLF nowhere (as the
/// API sends it). Returns the body and its SSE event count.
fn synthetic_anthropic(target: usize) -> (Vec<u8>, u64) {
    const WORDS: &[&str] = &[
        "the",
        "weather",
        "in",
        "Paris",
        "is",
        "mild",
        "\\n\\n",
        "×",
        "−",
        "✓",
        "\\\"quoted\\\"",
        "function",
        "returns",
        "a",
        "value",
        "let",
        "x",
        "=",
        "42;",
        "cache",
        "prefix",
        "token",
    ];
    let mut rng = Rng(7);
    let mut body = String::with_capacity(target + 4096);
    let mut events = 0u64;
    let mut ev = |body: &mut String, name: &str, data: &str| {
        body.push_str("event: ");
        body.push_str(name);
        body.push_str("\ndata: ");
        body.push_str(data);
        body.push_str("\n\n");
        events += 1;
    };
    let phrase = |rng: &mut Rng| {
        let n = 1 + rng.below(12);
        (0..n)
            .map(|_| WORDS[rng.below(WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    };
    ev(
        &mut body,
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_019Q1hrJbZG26Fb9BQhrkHEr","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":377,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}"#,
    );
    let mut index = 0;
    while body.len() < target {
        let start = match index % 3 {
            0 => r#"{"type":"thinking","thinking":"","signature":""}"#.to_owned(),
            1 => r#"{"type":"text","text":""}"#.to_owned(),
            _ => format!(
                r#"{{"type":"tool_use","id":"toolu_{index:020}","name":"get_weather","caller":{{"type":"direct"}},"input":{{}}}}"#
            ),
        };
        let data =
            format!(r#"{{"type":"content_block_start","index":{index},"content_block":{start}}}"#);
        ev(&mut body, "content_block_start", &data);
        ev(&mut body, "ping", r#"{"type": "ping"}"#);
        for _ in 0..200 {
            let delta = match index % 3 {
                0 => format!(
                    r#"{{"type":"thinking_delta","thinking":"{}"}}"#,
                    phrase(&mut rng)
                ),
                1 => format!(r#"{{"type":"text_delta","text":"{}"}}"#, phrase(&mut rng)),
                _ => format!(
                    r#"{{"type":"input_json_delta","partial_json":"{}"}}"#,
                    phrase(&mut rng).replace(['"', '\\'], "")
                ),
            };
            let data =
                format!(r#"{{"type":"content_block_delta","index":{index},"delta":{delta}}}"#);
            ev(&mut body, "content_block_delta", &data);
        }
        if index % 3 == 0 {
            let data = format!(
                r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"signature_delta","signature":"{}"}}}}"#,
                "EsECCokBCBAYAipA9i3HF1aHpQITkdN8OvLd33gdPZEyLKJA9EvxTXumYzG5xgpLkCYbGOTUkjuimP"
                    .repeat(4)
            );
            ev(&mut body, "content_block_delta", &data);
        }
        let data = format!(r#"{{"type":"content_block_stop","index":{index}}}"#);
        ev(&mut body, "content_block_stop", &data);
        index += 1;
    }
    ev(
        &mut body,
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":65}}"#,
    );
    ev(&mut body, "message_stop", r#"{"type":"message_stop"}"#);
    (body.into_bytes(), events)
}

struct Measure {
    best: Duration,
    allocs: u64,
    events: u64,
}

/// Runs `f` `runs` times; keeps the best time and the allocations of the last run.
fn measure(runs: usize, mut f: impl FnMut() -> u64) -> Measure {
    let mut best = Duration::MAX;
    let (mut allocs, mut events) = (0, 0);
    for _ in 0..runs {
        let before = ALLOCS.load(Relaxed);
        let t = Instant::now();
        events = black_box(f());
        best = best.min(t.elapsed());
        allocs = ALLOCS.load(Relaxed) - before;
    }
    Measure {
        best,
        allocs,
        events,
    }
}

fn report(name: &str, bytes: usize, m: &Measure) {
    let mb_s = bytes as f64 / 1e6 / m.best.as_secs_f64();
    println!(
        "{name:<34} {mb_s:>8.0} MB/s  {:>7.1} ms  {:>9} events  {:>9} allocs  {:>6.3} allocs/event",
        m.best.as_secs_f64() * 1e3,
        m.events,
        m.allocs,
        m.allocs as f64 / m.events.max(1) as f64
    );
}

/// Polls a stream that is always ready (the chunks are in memory) to the end.
fn drain<S: Stream>(s: S, mut each: impl FnMut(S::Item)) {
    let mut s = pin!(s);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        match s.as_mut().poll_next(&mut cx) {
            Poll::Ready(Some(item)) => each(item),
            Poll::Ready(None) => return,
            Poll::Pending => unreachable!("an in-memory stream is always ready"),
        }
    }
}

/// Counts neutral events without keeping them.
struct CountSink(u64);

impl StreamSink for CountSink {
    type Error = WireError;
    fn event(&mut self, event: Event) -> Result<Flow, WireError> {
        black_box(&event);
        self.0 += 1;
        Ok(Flow::Continue)
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let target = if quick { 5_000_000 } else { 50_000_000 };
    let runs = if quick { 3 } else { 5 };
    let (body, sse_events) = synthetic_anthropic(target);
    let chunks: Vec<&[u8]> = body.chunks(CHUNK).collect();
    let owned: Vec<Bytes> = chunks.iter().map(|c| Bytes::copy_from_slice(c)).collect();
    println!(
        "input: {:.1} MB synthetic Anthropic stream, {sse_events} SSE events, {} chunks of 16 KiB",
        body.len() as f64 / 1e6,
        chunks.len()
    );

    let hotl = measure(runs, || {
        let mut decoder = SseDecoder::new();
        let (mut n, mut data) = (0u64, 0usize);
        let mut sink = |ev: &SseEvent<'_>| {
            n += 1;
            data += ev.data.len() + ev.event.len();
            Ok::<_, Infallible>(Flow::Continue)
        };
        for chunk in &chunks {
            let Ok(_) = decoder.feed(chunk, &mut sink);
        }
        black_box(decoder.finish());
        black_box(data);
        n
    });
    assert_eq!(hotl.events, sse_events);
    report("hotl SseDecoder", body.len(), &hotl);

    let es = measure(runs, || {
        let input = stream::iter(owned.iter().cloned().map(Ok::<_, Infallible>));
        let (mut n, mut data) = (0u64, 0usize);
        drain(input.eventsource(), |ev| {
            let ev = ev.expect("valid stream");
            n += 1;
            data += ev.data.len() + ev.event.len();
        });
        black_box(data);
        n
    });
    assert_eq!(es.events, sse_events);
    report("eventsource-stream 0.2", body.len(), &es);

    let full = measure(runs, || {
        let mut decoder = StreamDecoder::anthropic();
        let mut sink = CountSink(0);
        for chunk in &chunks {
            decoder.feed(chunk, &mut sink).expect("valid stream");
        }
        decoder.finish(&mut sink).expect("complete stream");
        sink.0
    });
    report("hotl StreamDecoder (neutral events)", body.len(), &full);
    println!(
        "  (neutral events per SSE event: {:.2}; allocs per SSE event: {:.3})",
        full.events as f64 / sse_events as f64,
        full.allocs as f64 / sse_events as f64
    );
}
