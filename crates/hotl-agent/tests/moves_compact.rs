//! Compaction, the fallback when the context window fills: a long turn compacts before the
//! request that would come near the window, and goes on from the note.

use hotl_agent::default_context_window;
use hotl_fakellm::Reply;
use hotl_log::Body;
use hotl_view::Item;

use crate::moves_fold::{Fixture, NOTE, bash};

/// A fixture whose fixed prompt (system prompt, AGENTS.md and tools) is about 2,100 of the
/// fake's 4-byte tokens, the size the windows of these tests are chosen around: an AGENTS.md
/// pads hotl's own prompt up to it, so they keep testing the same thresholds when that
/// prompt changes.
fn fixture(replies: Vec<Reply>, allow: &[&str]) -> Fixture {
    let own = {
        let f = Fixture::new(Vec::new(), false, &[]);
        let parts = f.session.context_parts();
        (parts.system + parts.tools) as usize
    };
    let pad = PREFIX_TOKENS.saturating_sub(own) * 4;
    let agents = "Windows here are chosen for a fixed prompt of known size. ".repeat(pad / 58 + 1);
    let mut f = Fixture::with_agents(replies, Some(&agents[..pad.max(1)]), allow);
    // Steps here are sized on purpose to fill their windows: no result is cut to fit.
    f.settings.result_share = 0;
    f
}

/// The fixed prompt these tests' windows are chosen around, in the fake's 4-byte tokens.
const PREFIX_TOKENS: usize = 2_100;

/// A step printing about 8 KB (2,000 tokens with the fake's 4-byte tokens) in lines of 100
/// after a marker: just under the size at which a command's output is capped.
fn big_output(marker: &str) -> Reply {
    bash(&format!(
        "echo {marker}; head -c 7870 /dev/zero | tr '\\0' x | fold -w 100"
    ))
}

/// Two steps of about 2,000 tokens each (`quokkaword`, then `wombatword`), the note a
/// compaction asks for, and the answer `Built.`.
fn build_loop() -> Fixture {
    fixture(
        vec![
            big_output("quokkaword"),
            big_output("wombatword"),
            Reply::text(NOTE),
            Reply::text("Built."),
        ],
        &["bash"],
    )
}

/// Compacts the fixture's session by hand, as `/compact` does.
fn compact(f: &mut Fixture) -> hotl_agent::Result<u64> {
    let cx = f.cx();
    f.runtime.block_on(f.session.compact(&cx))
}

fn compactions(f: &Fixture) -> Vec<(u64, u64, String)> {
    f.store
        .lineage(f.session.id())
        .expect("lineage")
        .records
        .into_iter()
        .filter_map(|r| match r.body {
            Body::Compaction { until, summary } => Some((r.seq, until, summary)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_turn_near_the_window_compacts_and_goes_on_from_the_note() {
    // The third request would come near the window: the model writes the note first.
    let mut f = build_loop();
    // Requests grow by about 2,000 tokens a step from about 2,100: the third would pass 85%.
    f.settings.context_window = 6_000;
    let outcome = f.submit("build it");
    assert_eq!(outcome.text, "Built.");

    let done = compactions(&f);
    assert_eq!(done.len(), 1, "{done:?}");
    let (seq, until, summary) = &done[0];
    assert_eq!(summary, NOTE);
    assert_eq!(*until, seq - 1, "through the head: the last step's result");
    assert!(matches!(
        f.session.view().items.first(),
        Some(Item::Compacted { .. })
    ));

    let sent = f.fake.captured();
    assert_eq!(sent.len(), 4);
    let asked = sent[2].body_text();
    assert!(asked.contains("[compaction]") && asked.contains("wombatword"));
    // The request after it holds the note and the user's message, not the outputs.
    let after = sent[3].json().expect("json");
    let first = after["messages"][0].to_string();
    assert!(first.contains("<compacted until=t"), "{first}");
    assert!(first.contains("run the integration tests"), "{first}");
    assert!(first.contains("build it"), "{first}");
    let body = sent[3].body_text();
    assert!(!body.contains("xxxxxxxxxxxxxxxx"), "the outputs are gone");
    assert!(
        body.len() * 2 < asked.len(),
        "{} vs {}",
        body.len(),
        asked.len()
    );

    // The compacted span stays archived: recall finds what only it held.
    let hits = f.recall("quokkaword", Some("exact"));
    assert!(hits.starts_with("[compaction@t"), "{hits}");
}

#[test]
fn a_window_of_zero_never_compacts_and_a_small_context_does_not_either() {
    let mut f = fixture(
        vec![
            big_output("a"),
            big_output("b"),
            big_output("c"),
            Reply::text("Built."),
        ],
        &["bash"],
    );
    f.settings.context_window = 0;
    f.submit("build it");
    assert!(compactions(&f).is_empty());

    let mut f = fixture(vec![big_output("a"), Reply::text("Built.")], &["bash"]);
    f.submit("build it");
    assert!(compactions(&f).is_empty());
    assert!(f.session.context_used() > 2_000);
}

#[test]
fn compact_between_turns_and_refusals() {
    let mut f = fixture(
        vec![big_output("a"), Reply::text("Done."), Reply::text(NOTE)],
        &["bash"],
    );
    let refused = compact(&mut f).expect_err("an empty session");
    assert!(
        refused.to_string().contains("nothing to compact"),
        "{refused}"
    );
    f.submit("build it");
    let until = compact(&mut f).expect("compacted");
    assert_eq!(compactions(&f)[0].1, until);
    assert_eq!(f.session.context_used(), 0, "unknown until the next answer");
    // Nothing new since: compacting again is refused, with no model call.
    let again = compact(&mut f).expect_err("nothing new");
    assert!(
        again.to_string().contains(&format!(
            "nothing to compact since the last compaction (through t{until})"
        )),
        "{again}"
    );
    assert_eq!(f.fake.captured().len(), 3);
}

/// Recall names a compacted span `compaction@t<until>`, and ask takes that name (or
/// `compaction` for the latest): the question goes to the context as it stood then.
#[test]
fn ask_takes_the_compaction_handle_recall_gives() {
    let mut f = fixture(
        vec![
            big_output("narwhalword"),
            Reply::text("Done."),
            Reply::text(NOTE),
            Reply::text("It printed narwhalword."),
            Reply::text("Still narwhalword."),
        ],
        &["bash"],
    );
    f.submit("build it");
    let until = compact(&mut f).expect("compacted");
    let handle = format!("compaction@t{until}");
    let hits = f.recall("narwhalword", Some("exact"));
    assert!(hits.starts_with(&format!("[{handle} t")), "{hits}");
    let ask =
        |f: &mut Fixture, handle: &str| f.ask(handle, "what did it print?").expect("answered");
    assert_eq!(ask(&mut f, &handle), "It printed narwhalword.");
    let asked = f.fake.captured().last().expect("the ask").body_text();
    assert!(
        asked.contains("xxxxxxxx"),
        "the span as it stood, outputs and all"
    );
    assert_eq!(ask(&mut f, "compaction"), "Still narwhalword.");
    // Both asks are recorded under the name recall gives the thread.
    let asked: Vec<String> = f
        .store
        .lineage(f.session.id())
        .expect("lineage")
        .records
        .into_iter()
        .filter_map(|r| match r.body {
            Body::Ask { handle, .. } => Some(handle),
            _ => None,
        })
        .collect();
    assert_eq!(asked, [handle.clone(), handle.clone()]);
    let unknown = f.ask("compaction@t1", "?").expect_err("no such compaction");
    assert!(unknown.to_string().contains(&handle), "{unknown}");
}

#[test]
fn known_model_families_have_their_windows() {
    assert_eq!(default_context_window("claude-sonnet-4-5"), 200_000);
    assert_eq!(default_context_window("gpt-5"), 400_000);
    assert_eq!(default_context_window("gpt-4.1-mini"), 1_000_000);
    assert_eq!(default_context_window("qwen2.5-coder"), 128_000);
}

fn submit_seeing(f: &mut Fixture, prompt: &str) -> (hotl_agent::TurnOutcome, Vec<String>) {
    let (outcome, notices) = try_submit(f, prompt);
    (outcome.expect("turn"), notices)
}

/// Submits `prompt`; the turn's result and the notices it gave.
fn try_submit(
    f: &mut Fixture,
    prompt: &str,
) -> (hotl_agent::Result<hotl_agent::TurnOutcome>, Vec<String>) {
    let (events, mut received) = hotl_agent::Events::channel();
    let cx = f.cx().with_events(events);
    let outcome = f.runtime.block_on(f.session.submit(prompt, &cx));
    let mut notices = Vec::new();
    while let Ok(envelope) = received.try_recv() {
        if let hotl_agent::Event::Notice { message } = envelope.event {
            notices.push(message);
        }
    }
    (outcome, notices)
}

/// What a compaction keeps (the system prompt, tools, the user's messages word for word) can
/// fill the window by itself: then the turn compacts once, says compacting again would not
/// help, and goes on.
#[test]
fn a_compaction_that_cannot_help_happens_once_and_says_so() {
    let mut f = fixture(
        vec![
            big_output("a"),
            Reply::text(NOTE),
            big_output("b"),
            big_output("c"),
            Reply::text("Done."),
            // The next turn: a new compaction caps the long prompt (only the last message is
            // kept whole), so it helps again.
            Reply::text(NOTE),
            Reply::text("Done again."),
        ],
        &["bash"],
    );
    // A 7 KB request (1,750 tokens) on top of about 2,100: with the note, over 85% of 4,000.
    f.settings.context_window = 4_000;
    let prompt = format!("build it: {}", "spec ".repeat(1_400));
    let (outcome, notices) = submit_seeing(&mut f, &prompt);
    assert_eq!(outcome.text, "Done.");
    assert_eq!(compactions(&f).len(), 1);
    assert_eq!(f.fake.captured().len(), 5);
    assert_eq!(
        notices
            .iter()
            .filter(|n| n.contains("stays near the window even compacted"))
            .count(),
        1,
        "{notices:?}"
    );
    // The turn's usage counts the compaction's request too.
    assert_eq!(outcome.usage, f.session.totals.usage);

    let (outcome, notices) = submit_seeing(&mut f, "go on");
    assert_eq!(outcome.text, "Done again.");
    assert_eq!(compactions(&f).len(), 2, "{notices:?}");
    let last = f.fake.captured().last().expect("a request").body_text();
    assert!(
        last.len() < 12_000,
        "the long prompt is capped now: {}",
        last.len()
    );
}

/// A note that does not fit the template (the model went on working instead) is refused:
/// nothing is compacted and the turn goes on.
#[test]
fn a_note_that_does_not_fit_is_refused_and_the_turn_goes_on() {
    let mut f = fixture(
        vec![
            big_output("a"),
            big_output("b"),
            Reply::text("Let me look at the tests."),
            Reply::text("Let me look at the tests again."),
            Reply::text("Built."),
        ],
        &["bash"],
    );
    f.settings.context_window = 6_000;
    let (outcome, notices) = submit_seeing(&mut f, "build it");
    assert_eq!(outcome.text, "Built.");
    assert!(compactions(&f).is_empty());
    assert!(
        notices
            .iter()
            .any(|n| n.contains("note was refused") && n.contains("going on without compacting")),
        "{notices:?}"
    );
}

/// After a clear (or a fold, a compaction, a revert) the last count no longer measures the
/// context: it is unknown until the next answer, which measures what is left.
#[test]
fn the_count_is_unknown_after_a_clear_or_a_fold() {
    let mut f = fixture(
        vec![
            big_output("a"),
            Reply::text("Done."),
            Reply::text("").with_tool("fold", serde_json::json!({ "since": "t3", "note": NOTE })),
            Reply::text("Folded."),
        ],
        &["bash"],
    );
    f.submit("build it");
    let before = f.session.context_used();
    assert!(before > 2_000);
    let id = f.session.id().to_owned();
    drop(std::mem::replace(
        &mut f.session,
        crate::moves_fold::new_session(
            &hotl_log::Store::new(f._dir.path().join("other")),
            &f.project,
        ),
    ));
    f.store
        .writer(&id)
        .expect("writer")
        .append(Body::Clear)
        .expect("clear");
    f.session =
        hotl_agent::Session::open(&f.store, &id, hotl_agent::standard_tools()).expect("open");
    assert_eq!(f.session.context_used(), 0, "cleared");
    // Nothing the model sees is left to compact.
    let refused = compact(&mut f).expect_err("nothing since the clear");
    assert!(
        refused.to_string().contains("nothing to compact"),
        "{refused}"
    );
    f.submit("fold what we did");
    // The answer after the fold measured the folded context.
    let after = f.session.context_used();
    assert!(after > 0 && after + 1_500 < before, "{after} vs {before}");
}

/// The window hotl assumed is larger than the model's (a local server started with less): the
/// provider refuses the request as too long, the turn compacts with the oldest steps left out
/// of the note request, and asks again from the note.
#[test]
fn a_request_the_provider_refuses_as_too_long_is_compacted_and_sent_again() {
    let mut f = build_loop();
    // Requests grow by about 2,000 tokens a step from about 2,100: the third is refused.
    f.fake.set_context_window(Some(5_000));
    let (outcome, notices) = submit_seeing(&mut f, "build it");
    assert_eq!(outcome.text, "Built.");
    assert_eq!(
        outcome.steps, 3,
        "the refused step is asked again, not counted twice"
    );
    assert!(
        notices
            .iter()
            .any(|n| n.contains("longer than the model's context window")),
        "{notices:?}"
    );
    let done = compactions(&f);
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!(done[0].2, NOTE);

    let sent = f.fake.captured();
    assert_eq!(
        sent.len(),
        5,
        "three steps, the refused one included, the note, the retry"
    );
    assert!(sent[2].body_text().contains("wombatword"));
    let note_request = sent[3].body_text();
    assert!(note_request.contains("[compaction]"), "{note_request}");
    assert!(note_request.contains("left out of this request"));
    assert!(note_request.contains("build it") && note_request.contains("wombatword"));
    assert!(
        !note_request.contains("quokkaword"),
        "the oldest step is left out"
    );
    let retry = sent[4].body_text();
    assert!(retry.contains("<compacted until=t") && !retry.contains("xxxxxxxxxxxxxxxx"));

    // What the note request left out stays archived.
    let hits = f.recall("quokkaword", Some("exact"));
    assert!(hits.starts_with("[compaction@t"), "{hits}");
}

/// When even the first message and the last step do not fit, the turn stops with the
/// provider's error, records no compaction and loses nothing.
#[test]
fn a_request_too_long_even_compacted_stops_the_turn_with_the_provider_s_error() {
    let mut f = fixture(vec![Reply::text("never sent")], &["bash"]);
    // About 2,100 tokens of system prompt and tools fit; with the message's 450 they do not.
    f.fake.set_context_window(Some(2_300));
    let (outcome, notices) = try_submit(&mut f, &format!("build it {}", "lorem ".repeat(300)));
    let err = outcome.expect_err("too long");
    assert!(err.to_string().contains("prompt is too long"), "{err}");
    assert!(compactions(&f).is_empty());
    assert_eq!(f.fake.remaining(), 1, "a refused request consumes no reply");
    assert!(
        notices.iter().any(|n| n.contains("too long")),
        "{notices:?}"
    );
    let records = f.store.lineage(f.session.id()).expect("lineage").records;
    assert!(records.iter().any(|r| matches!(
        &r.body,
        Body::Run {
            state: hotl_log::RunState::Interrupted,
            ..
        }
    )));
}

/// A window the system prompt and tools alone do not fit is said to be too small: no
/// compaction is tried, and the message is not taken back (it is not the cause).
#[test]
fn a_window_smaller_than_the_prompt_and_tools_is_named_and_nothing_is_compacted() {
    let mut f = fixture(vec![Reply::text("never sent")], &["bash"]);
    f.fake.set_context_window(Some(100));
    let (outcome, _) = try_submit(&mut f, "build it");
    let err = outcome.expect_err("too small");
    assert!(
        matches!(
            err,
            hotl_agent::AgentError::PromptTooLarge { window: 100, .. }
        ),
        "{err}"
    );
    assert_eq!(f.fake.captured().len(), 1, "no note request");
    assert!(!reverted(&f));
}

/// A compaction hotl starts near the window whose note request the provider refuses as too
/// long asks again with the oldest steps left out.
#[test]
fn a_note_request_refused_as_too_long_is_sent_again_without_the_oldest_steps() {
    let mut f = build_loop();
    // The third request would pass 85% of 6,000, and the note request (about 6,200 tokens)
    // is over the model's real 5,500.
    f.settings.context_window = 6_000;
    f.fake.set_context_window(Some(5_500));
    let outcome = f.submit("build it");
    assert_eq!(outcome.text, "Built.");
    assert_eq!(compactions(&f).len(), 1);
    let sent = f.fake.captured();
    assert_eq!(
        sent.len(),
        5,
        "two steps, the refused note request, the note, the answer"
    );
    let refused = sent[2].body_text();
    assert!(refused.contains("[compaction]") && refused.contains("quokkaword"));
    let trimmed = sent[3].body_text();
    assert!(trimmed.contains("left out of this request") && !trimmed.contains("quokkaword"));
    assert!(trimmed.contains("wombatword"));
}

/// A message too long for the window even with the rest compacted is taken back from the
/// conversation (the log keeps it), so the next message is not refused along with it.
#[test]
fn a_message_too_long_for_the_window_is_taken_back_and_the_next_one_works() {
    let mut f = fixture(
        vec![Reply::text("Hi."), Reply::text("A small answer.")],
        &[],
    );
    f.submit("hello");
    // About 2,100 tokens of system prompt and tools, and 2,500 of message: over 4,000.
    f.fake.set_context_window(Some(4_000));
    let huge = format!("please read: {}", "lorem ".repeat(1_700));
    let (outcome, notices) = try_submit(&mut f, &huge);
    let err = outcome.expect_err("too long");
    assert!(
        matches!(&err, hotl_agent::AgentError::Wire(e) if e.context_overflow().is_some()),
        "{err}"
    );
    assert!(
        notices.iter().any(|n| n.contains("taken back")),
        "{notices:?}"
    );
    // What fills the window is named, with the ways out.
    assert!(
        notices
            .iter()
            .any(|n| n.contains("your message at t") && n.contains("--note-file")),
        "{notices:?}"
    );
    let (outcome, _) = submit_seeing(&mut f, "a small question");
    assert_eq!(outcome.text, "A small answer.");
    let last = f.fake.captured().last().expect("requests").body_text();
    assert!(!last.contains("lorem lorem") && last.contains("a small question"));
    let kept = f.store.lineage(f.session.id()).expect("lineage").records;
    assert!(
        kept.iter()
            .any(|r| matches!(&r.body, Body::User { content } if hotl_log::plain_text(content).contains("lorem lorem"))),
        "the log keeps the message"
    );
}

fn reverted(f: &Fixture) -> bool {
    f.store
        .lineage(f.session.id())
        .expect("lineage")
        .records
        .iter()
        .any(|r| matches!(r.body, Body::Revert { .. }))
}

/// A turn whose step ran (and was compacted) is not taken back when its next request is
/// refused again: the model did answer, and files may have changed.
#[test]
fn a_turn_whose_step_ran_is_not_taken_back_as_too_long() {
    let mut f = fixture(
        vec![
            Reply::text("Hi."),
            bash("echo changed > made.txt; head -c 8000 /dev/zero | tr '\\0' x"),
            Reply::text(NOTE),
            Reply::text("never sent"),
        ],
        &["bash"],
    );
    f.submit("hello");
    let big = format!("please read: {}", "lorem ".repeat(1_800));
    // The big message's first request fits, just; with the step's output it does not, and
    // after compacting (the note beside the message kept whole) it still does not.
    let first = {
        let mut probe = fixture(vec![Reply::text("Hi."), Reply::text("ok")], &[]);
        probe.submit("hello");
        probe.submit(&big);
        probe
            .store
            .lineage(probe.session.id())
            .expect("lineage")
            .records
            .iter()
            .rev()
            .find_map(|r| match &r.body {
                Body::Assistant { usage: Some(u), .. } => {
                    Some(u.input + u.cache_read + u.cache_write)
                }
                _ => None,
            })
            .expect("an answer with usage")
    };
    f.fake.set_context_window(Some(first + 5));
    let (outcome, notices) = try_submit(&mut f, &big);
    assert!(outcome.is_err(), "{notices:?}");
    assert!(f.project.join("made.txt").exists(), "the step ran");
    assert!(!reverted(&f), "{notices:?}");
}

/// A compaction that fails for a reason other than room (here the note request gets a plain
/// 400) does not take the message back.
#[test]
fn a_message_is_not_taken_back_when_compaction_failed_for_another_reason() {
    let mut f = fixture(
        vec![
            big_output("quokkaword"),
            Reply::text("Done."),
            Reply::text("never").with_fault(hotl_fakellm::Fault::status(400)),
        ],
        &["bash"],
    );
    f.submit("build it");
    f.fake.set_context_window(Some(3_000));
    let (outcome, notices) = try_submit(&mut f, "what next?");
    assert!(outcome.is_err());
    assert!(
        notices.iter().any(|n| n.contains("HTTP 400")),
        "{notices:?}"
    );
    assert!(!reverted(&f), "{notices:?}");
}

/// A fork that compacted inside itself: recall names that span `compaction@t<until>`, and ask
/// takes the name.
#[test]
fn a_compaction_inside_a_fork_can_be_asked() {
    let mut f = fixture(
        vec![
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "build it" })),
            big_output("quokkaword"),
            big_output("wombatword"),
            // The child's third request would come near the window: it compacts.
            Reply::text(NOTE),
            Reply::text("child built it"),
            Reply::text("The fork built it."),
            Reply::text("It printed quokkaword."),
        ],
        &["bash"],
    );
    f.settings.context_window = 6_000;
    let outcome = f.submit("have a fork build it");
    assert_eq!(outcome.text, "The fork built it.");
    let hits = f.recall("quokkaword", Some("exact"));
    let handle = hits
        .strip_prefix('[')
        .and_then(|h| h.split_whitespace().next())
        .expect("a hit")
        .to_owned();
    assert!(handle.starts_with("compaction@t"), "{hits}");
    let answer = f.ask(&handle, "what did it print?").expect("answered");
    assert_eq!(answer, "It printed quokkaword.");
}

/// A turn that needs a compaction after every step stops compacting ahead of the window after
/// three such: its window is too small for the work, and more notes only cost.
#[test]
fn a_turn_compacting_after_every_step_stops_compacting_ahead() {
    let mut f = fixture(
        vec![
            big_output("a"),
            Reply::text(NOTE),
            big_output("b"),
            Reply::text(NOTE),
            big_output("c"),
            Reply::text(NOTE),
            big_output("d"),
            Reply::text(NOTE),
            big_output("e"),
            Reply::text("Done."),
        ],
        &["bash"],
    );
    f.settings.context_window = 4_500;
    let (outcome, notices) = submit_seeing(&mut f, "build it");
    assert_eq!(outcome.text, "Done.");
    assert_eq!(compactions(&f).len(), 4, "{notices:?}");
    assert!(
        notices
            .iter()
            .any(|n| n.contains("compacting after every step")),
        "{notices:?}"
    );
}

/// A long turn whose compactions each leave room for a few steps goes on compacting as long as
/// it needs.
#[test]
fn a_long_turn_compacts_as_often_as_it_needs() {
    let mut replies = Vec::new();
    for i in 0..5 {
        replies.push(big_output(&format!("x{i}")));
        replies.push(big_output(&format!("y{i}")));
        replies.push(Reply::text(NOTE));
    }
    replies.push(Reply::text("Done."));
    let mut f = fixture(replies, &["bash"]);
    // Room for two steps after each compaction.
    f.settings.context_window = 7_000;
    let (outcome, notices) = submit_seeing(&mut f, "build it");
    assert_eq!(outcome.text, "Done.", "{notices:?}");
    assert_eq!(compactions(&f).len(), 5, "{notices:?}");
    assert!(
        !notices
            .iter()
            .any(|n| n.contains("compacting after every step")),
        "{notices:?}"
    );
}

/// One step larger than what the window leaves (a huge tool result on a small window) no
/// longer wedges the session: the note request carries the result's head and tail with a
/// pointer to the archived whole, the compaction replaces it, and the turn goes on.
#[test]
fn one_oversized_step_is_shortened_for_the_note_and_the_turn_goes_on() {
    let mut f = fixture(
        vec![
            big_output("oversized"),
            Reply::text(NOTE),
            Reply::text("Done."),
        ],
        &["bash"],
    );
    // About 2,100 tokens of system prompt and tools, then a 2,000-token result: over 3,600.
    f.fake.set_context_window(Some(3_600));
    let (outcome, notices) = submit_seeing(&mut f, "make a big output");
    assert_eq!(outcome.text, "Done.", "{notices:?}");
    assert_eq!(compactions(&f).len(), 1);
    let sent = f.fake.captured();
    let note = sent
        .iter()
        .map(|c| c.body_text())
        .find(|b| b.contains("[compaction]"))
        .expect("a note request");
    assert!(note.contains("bytes cut from the middle"), "{note}");
    assert!(note.contains("long texts above are shortened"), "{note}");
    assert!(note.contains("oversized"), "the head is kept");
}
