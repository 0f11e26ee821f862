//! The SSE layer on its own: line ends, fields, comments, dispatch and the end of the body.

use hotl_wire::{End, Flow, PartialEvent, SseDecoder, SseEvent};

/// (event, data, id) of every event of `chunks`, then what `finish` reported.
fn run(chunks: &[&[u8]]) -> (Vec<(String, String, String)>, End) {
    let mut decoder = SseDecoder::new();
    let mut out = Vec::new();
    for chunk in chunks {
        decoder
            .feed(chunk, &mut |ev: &SseEvent<'_>| {
                out.push((ev.event.to_owned(), ev.data.to_owned(), ev.id.to_owned()));
                Ok::<_, ()>(Flow::Continue)
            })
            .expect("infallible sink");
    }
    (out, decoder.finish())
}

fn ev(event: &str, data: &str) -> (String, String, String) {
    (event.to_owned(), data.to_owned(), String::new())
}

#[test]
fn one_space_after_the_colon_is_optional() {
    let (evs, end) = run(&[b"data:{\"a\":1}\n\ndata: {\"a\":1}\n\ndata:  two\n\n"]);
    assert_eq!(
        evs,
        [
            ev("message", "{\"a\":1}"),
            ev("message", "{\"a\":1}"),
            ev("message", " two")
        ]
    );
    assert_eq!(end, End::Clean);
}

#[test]
fn lines_end_in_lf_crlf_or_cr() {
    let want = [ev("a", "1"), ev("b", "2"), ev("c", "3")];
    let (evs, _) = run(&[b"event: a\ndata: 1\n\nevent: b\r\ndata: 2\r\n\r\nevent: c\rdata: 3\r\r"]);
    assert_eq!(evs, want);
}

#[test]
fn crlf_split_between_chunks_is_one_line_end() {
    let (evs, _) = run(&[b"data: 1\r", b"\n", b"\r", b"\ndata: 2\r", b"\r"]);
    assert_eq!(evs, [ev("message", "1"), ev("message", "2")]);
}

#[test]
fn comments_are_skipped_and_keep_nothing_open() {
    let (evs, end) = run(&[b": ping\n\n:\n\ndata: x\n: inside\n\n: trailing comment"]);
    assert_eq!(evs, [ev("message", "x")]);
    assert_eq!(end, End::Clean);
}

#[test]
fn data_lines_join_with_newlines_and_trailing_spaces_stay() {
    let (evs, _) = run(&[b"data: a  \ndata\ndata: b\n\n"]);
    assert_eq!(evs, [ev("message", "a  \n\nb")]);
}

#[test]
fn an_event_without_data_is_not_dispatched_and_its_name_is_forgotten() {
    let (evs, _) = run(&[b"event: lonely\n\ndata: x\n\n"]);
    assert_eq!(evs, [ev("message", "x")]);
}

#[test]
fn id_persists_and_retry_takes_digits_only() {
    let mut decoder = SseDecoder::new();
    let mut ids = Vec::new();
    let body = b"id: 7\nretry: 1500\ndata: a\n\ndata: b\n\nid\nretry: 2x\ndata: c\n\n";
    decoder
        .feed(body, &mut |ev: &SseEvent<'_>| {
            ids.push(ev.id.to_owned());
            Ok::<_, ()>(Flow::Continue)
        })
        .expect("infallible sink");
    assert_eq!(ids, ["7", "7", ""]);
    assert_eq!(decoder.retry(), Some(1500));
}

#[test]
fn unknown_fields_are_ignored() {
    let (evs, _) = run(&[b"data: x\nfoo: bar\nDATA: y\n\n"]);
    assert_eq!(evs, [ev("message", "x")]);
}

#[test]
fn a_leading_byte_order_mark_is_dropped() {
    let (evs, _) = run(&[b"\xEF\xBB\xBFdata: x\n\n"]);
    assert_eq!(evs, [ev("message", "x")]);
}

#[test]
fn utf8_split_across_chunks_decodes_whole() {
    let body = "data: caf\u{e9} \u{2713}\n\n".as_bytes();
    let chunks: Vec<&[u8]> = body.chunks(1).collect();
    let (evs, _) = run(&chunks);
    assert_eq!(evs, [ev("message", "caf\u{e9} \u{2713}")]);
}

#[test]
fn invalid_utf8_is_replaced_not_fatal() {
    let (evs, _) = run(&[b"data: a\xFFb\n\n"]);
    assert_eq!(evs, [ev("message", "a\u{FFFD}b")]);
}

#[test]
fn an_event_cut_by_the_end_of_the_body_is_reported_not_dispatched() {
    let (evs, end) =
        run(&[b"event: a\ndata: 1\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}"]);
    assert_eq!(evs, [ev("a", "1")]);
    assert_eq!(
        end,
        End::Partial(PartialEvent {
            event: "message_stop".into(),
            data: "{\"type\":\"message_stop\"}".into(),
        })
    );
    // One line end is not enough: the blank line dispatches.
    let (evs, end) = run(&[b"data: [DONE]\n"]);
    assert!(evs.is_empty());
    assert!(matches!(end, End::Partial(p) if p.data == "[DONE]"));
}

#[test]
fn a_sink_can_stop_the_stream() {
    let mut decoder = SseDecoder::new();
    let mut seen = 0;
    let flow = decoder
        .feed(b"data: 1\n\ndata: 2\n\n", &mut |_: &SseEvent<'_>| {
            seen += 1;
            Ok::<_, ()>(Flow::Stop)
        })
        .expect("infallible sink");
    assert_eq!((flow, seen), (Flow::Stop, 1));
}

#[test]
fn sink_errors_come_back_from_feed() {
    let mut decoder = SseDecoder::new();
    let got = decoder.feed(b"data: 1\n\n", &mut |_: &SseEvent<'_>| Err("nope"));
    assert_eq!(got, Err("nope"));
}

#[test]
fn a_foreign_first_line_stops_a_strict_decoder() {
    let mut decoder = SseDecoder::new();
    decoder.reject_foreign_start(true);
    let mut seen = 0;
    let flow = decoder
        .feed(b": ok\n\n<html>\ndata: x\n\n", &mut |_: &SseEvent<'_>| {
            seen += 1;
            Ok::<_, ()>(Flow::Continue)
        })
        .expect("infallible sink");
    assert_eq!((flow, seen), (Flow::Stop, 0));
    assert_eq!(decoder.foreign_start(), Some("<html>"));
    assert_eq!(decoder.finish(), End::Foreign("<html>".into()));
    // Found only at the end: a body with no line end at all.
    decoder
        .feed(b"{\"error\":1}", &mut |_: &SseEvent<'_>| {
            Ok::<_, ()>(Flow::Continue)
        })
        .expect("infallible sink");
    assert_eq!(decoder.finish(), End::Foreign("{\"error\":1}".into()));
}

#[test]
fn finish_makes_the_decoder_ready_for_another_body() {
    let mut decoder = SseDecoder::new();
    let mut out = Vec::new();
    let mut sink = |ev: &SseEvent<'_>| {
        out.push(ev.data.to_owned());
        Ok::<_, ()>(Flow::Continue)
    };
    decoder.feed(b"data: half", &mut sink).expect("ok");
    assert!(matches!(decoder.finish(), End::Partial(_)));
    decoder.feed(b"data: whole\n\n", &mut sink).expect("ok");
    assert_eq!(decoder.finish(), End::Clean);
    assert_eq!(out, ["whole"]);
}
