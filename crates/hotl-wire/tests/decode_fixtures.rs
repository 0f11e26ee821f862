//! Every recorded stream decodes to pinned neutral events, however its bytes are chunked.

use hotl_testkit::TestResult;
use hotl_wire::{End, Event, Flow, SseDecoder, SseEvent, StopReason};
use proptest::prelude::*;
use serde::Serialize;

use crate::fixtures::{ALL, Decoded, decode, decode_bytewise, decode_cut, decoder};

/// Each recording's responses and their events, pinned. Review a changed snapshot against the
/// fixture file itself.
#[test]
fn every_fixture_decodes_to_its_snapshot() -> TestResult {
    for fixture in ALL {
        let responses: Vec<Decoded> = fixture
            .responses()?
            .iter()
            .map(|body| decode(fixture.dialect, body))
            .collect();
        for (i, r) in responses.iter().enumerate() {
            assert_eq!(r.outcome, "complete", "{} response {i}", fixture.name);
            assert!(
                matches!(r.events.last(), Some(Event::Stop { .. })),
                "{} response {i} ends in a stop",
                fixture.name
            );
        }
        #[derive(Serialize)]
        struct Snapshot<'a> {
            file: &'a str,
            dialect: &'a str,
            responses: Vec<Decoded>,
        }
        insta::assert_json_snapshot!(
            fixture.name,
            Snapshot {
                file: fixture.path,
                dialect: fixture.dialect,
                responses
            }
        );
    }
    Ok(())
}

/// The two SDK recordings end right after their last `data:` line (README note 1): the final
/// `message_stop` is not terminated, so by the SSE rules it is not dispatched. `message_delta`
/// had already said why the response stopped, and every block was closed, so the stop is kept
/// (as the providers' SDKs keep it): the same events as the stream with its `message_stop`.
#[test]
fn an_unterminated_message_stop_keeps_the_stop_message_delta_gave() -> TestResult {
    for name in ["anthropic_basic", "anthropic_tool_use"] {
        let fixture = ALL.iter().find(|f| f.name == name).expect("listed");
        let as_recorded = decode(fixture.dialect, &fixture.body()?);
        let closed = decode(fixture.dialect, &fixture.responses()?[0]);
        assert!(matches!(closed.events.last(), Some(Event::Stop { .. })));
        assert_eq!(as_recorded.events, closed.events, "{name}");
        assert_eq!(as_recorded.outcome, "complete", "{name}");
    }
    Ok(())
}

/// The four-step recording decodes as four responses in one pass when concatenation is on.
#[test]
fn concatenated_responses_decode_in_one_pass() -> TestResult {
    let fixture = ALL
        .iter()
        .find(|f| f.name == "responses_reasoning_encrypted")
        .expect("listed");
    let mut decoder = decoder(fixture.dialect);
    decoder.accept_concatenated(true);
    let mut events = Vec::new();
    assert_eq!(decoder.feed(&fixture.body()?, &mut events)?, Flow::Continue);
    decoder.finish(&mut events)?;
    let separately: Vec<Event> = fixture
        .responses()?
        .iter()
        .flat_map(|body| decode(fixture.dialect, body).events)
        .collect();
    assert_eq!(events, separately);
    let stops: Vec<StopReason> = events
        .iter()
        .filter_map(|e| match e {
            Event::Stop { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect();
    use StopReason::{Done, ToolUse};
    assert_eq!(stops, [ToolUse, ToolUse, ToolUse, Done]);
    Ok(())
}

/// Feeding a body one byte at a time (splitting every line end, `\r\n` and UTF-8 sequence)
/// gives exactly what feeding it whole gives, as recorded and as complete responses.
#[test]
fn byte_by_byte_equals_whole_for_every_fixture() -> TestResult {
    for fixture in ALL {
        let mut bodies = fixture.responses()?;
        bodies.push(fixture.body()?);
        for body in &bodies {
            assert_eq!(
                decode_bytewise(fixture.dialect, body),
                decode(fixture.dialect, body),
                "{}",
                fixture.name
            );
        }
    }
    Ok(())
}

/// SSE events of `body` fed in the chunks `cuts` make, then how it ended.
fn sse_events(body: &[u8], cuts: &[usize]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let end = sse_feed(body, cuts, &mut |ev: &SseEvent<'_>| {
        out.push((ev.event.to_owned(), ev.data.to_owned(), ev.id.to_owned()));
    });
    out.push(("(end)".into(), format!("{end:?}"), String::new()));
    out
}

/// Whether `body` fed in the chunks `cuts` make gives `want` (no allocation per event).
fn sse_matches(body: &[u8], cuts: &[usize], want: &[(String, String, String)]) -> bool {
    let mut i = 0;
    let mut same = true;
    let end = sse_feed(body, cuts, &mut |ev: &SseEvent<'_>| {
        same &= want.get(i).is_some_and(|(e, d, id)| {
            (e.as_str(), d.as_str(), id.as_str()) == (ev.event, ev.data, ev.id)
        });
        i += 1;
    });
    same && want
        .get(i)
        .is_some_and(|(_, d, _)| *d == format!("{end:?}"))
        && i + 1 == want.len()
}

fn sse_feed(body: &[u8], cuts: &[usize], each: &mut impl FnMut(&SseEvent<'_>)) -> End {
    let mut decoder = SseDecoder::new();
    let mut start = 0;
    for end in cuts.iter().copied().chain([body.len()]) {
        decoder
            .feed(&body[start..end], &mut |ev: &SseEvent<'_>| {
                each(ev);
                Ok::<_, ()>(Flow::Continue)
            })
            .expect("infallible sink");
        start = end;
    }
    decoder.finish()
}

/// Every two-chunk split of every fixture gives the same SSE events as the whole body (only
/// every 7th split of the one large recording: all of them take 10 s in a debug build).
#[test]
fn every_two_chunk_split_gives_the_same_sse_events() -> TestResult {
    for fixture in ALL {
        let body = fixture.body()?;
        let whole = sse_events(&body, &[]);
        assert!(whole.len() > 3, "{}", fixture.name);
        let step = if body.len() > 16 * 1024 { 7 } else { 1 };
        for at in (0..=body.len()).step_by(step) {
            if !sse_matches(&body, &[at], &whole) {
                assert_eq!(
                    sse_events(&body, &[at]),
                    whole,
                    "{} split at {at}",
                    fixture.name
                );
            }
        }
    }
    Ok(())
}

/// A body and sorted cut points inside it.
fn fixture_and_cuts() -> impl Strategy<Value = (usize, Vec<usize>)> {
    (
        0..ALL.len(),
        prop::collection::vec(any::<prop::sample::Index>(), 0..40),
    )
        .prop_map(|(i, cuts)| {
            let len = ALL[i].body().map(|b| b.len()).unwrap_or(0);
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(len + 1)).collect();
            cuts.sort_unstable();
            (i, cuts)
        })
}

proptest! {
    #![proptest_config(hotl_testkit::arb::config(64))]

    /// Neutral events do not depend on where the chunks split.
    #[test]
    fn random_chunking_equals_whole((i, cuts) in fixture_and_cuts()) {
        let fixture = &ALL[i];
        let body = fixture.body().expect("fixture readable");
        prop_assert_eq!(
            decode_cut(fixture.dialect, &body, &cuts),
            decode(fixture.dialect, &body)
        );
    }
}
