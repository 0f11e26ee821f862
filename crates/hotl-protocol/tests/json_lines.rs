//! The JSON lines `hotl -p --output-format stream-json` prints keep their shape: a command's
//! end is the event that always ended it, with the command's id beside it.

use hotl_protocol::{
    CommandId, Done, Envelope, Event, Failure, FailureKind, MoveResult, Outcome, TurnOutcome,
};

fn line(command: Option<u64>, event: Event) -> String {
    serde_json::to_string(&Envelope {
        command: command.map(CommandId),
        child: None,
        event,
    })
    .expect("events serialize")
}

#[test]
fn ends_serialize_as_the_events_that_ended_commands() {
    let turn = Event::Done(Done::ok(Outcome::TurnEnded(TurnOutcome {
        text: "hi".into(),
        ..TurnOutcome::default()
    })));
    assert_eq!(
        line(Some(3), turn),
        r#"{"command_id":3,"type":"turn_ended","text":"hi","stop":null,"steps":0,"usage":{"input":0,"cache_read":0,"cache_write_5m":0,"cache_write_1h":0,"output":0,"thinking":0},"cost":null,"cancelled":false}"#
    );
    let moved = Event::Done(Done::ok(Outcome::MoveEnded(MoveResult::Compacted {
        until: 9,
        handle: "compaction@t9".into(),
    })));
    assert_eq!(
        line(Some(4), moved),
        r#"{"command_id":4,"type":"move_ended","move":"compacted","until":9,"handle":"compaction@t9"}"#
    );
    let failed = Event::Done(Done::failed(Failure::new(
        "submit",
        FailureKind::StepLimit,
        "the turn stopped after 40 steps without a final answer",
    )));
    assert_eq!(
        line(Some(5), failed),
        r#"{"command_id":5,"type":"failed","command":"submit","kind":"step_limit","error":"the turn stopped after 40 steps without a final answer"}"#
    );
    let cancelled = Event::Done(Done::failed(Failure::cancelled("fold")));
    assert_eq!(
        line(Some(6), cancelled),
        r#"{"command_id":6,"type":"cancelled","command":"fold"}"#
    );
    let notice = Event::Notice {
        message: "hi".into(),
    };
    assert_eq!(line(None, notice), r#"{"type":"notice","message":"hi"}"#);
}
