//! Delegation through the session, where the test can read a child's handle between turns: a
//! `continue` of a child still running, and of a handle nobody has, are errors the model reads.

use hotl_agent::NewSession;
use hotl_fakellm::{Fault, Reply};
use serde_json::json;

use crate::moves_fold::Fixture;

/// The fixture with a session that can spawn, continue and cancel (the built-in agents).
fn with_agents(replies: Vec<Reply>) -> Fixture {
    let mut f = Fixture::new(replies, false, &[]);
    let tools =
        hotl_agent::with_agents(hotl_agent::standard_tools(), hotl_agent::agents::builtins());
    f.session = NewSession::new(&f.store, &f.project, "claude-sonnet-5", tools)
        .and_then(|new| new.create())
        .expect("session");
    f
}

/// The text of the last tool result the session recorded.
fn last_result(f: &Fixture) -> String {
    let log = f.store.read(f.session.id()).expect("log");
    log.records
        .iter()
        .rev()
        .find_map(|r| match &r.body {
            hotl_log::Body::ToolResult { content, .. } => Some(hotl_log::plain_text(content)),
            _ => None,
        })
        .expect("a tool result")
}

#[test]
fn continue_of_a_child_still_running_or_of_an_unknown_handle_is_an_error_the_model_reads() {
    let mut f = with_agents(vec![
        Reply::text("")
            .with_tool(
                "spawn",
                json!({"agent": "explore", "task": "SLOW-KID read it all", "background": true}),
            )
            .matching("start it"),
        // Still answering while the parent's next turn runs.
        Reply::text("never said")
            .with_fault(Fault::split_at([5, 10]).with_chunk_delay_ms(20_000))
            .matching("SLOW-KID"),
        Reply::text("Started.").matching("started in the background"),
    ]);
    assert_eq!(f.submit("start it").text, "Started.");
    let children = f.store.tree_children(f.session.id()).expect("tree");
    let start = f.store.read_start(&children[0]).expect("start");
    let handle = start.delegated.and_then(|d| d.handle).expect("a handle");

    f.fake.push_replies([
        Reply::text("")
            .with_tool("continue", json!({"handle": handle, "message": "and more"}))
            .matching("go on"),
        Reply::text("It is still busy.").matching("still running"),
    ]);
    assert_eq!(f.submit("go on").text, "It is still busy.");
    let told = last_result(&f);
    assert!(
        told.contains(&format!("{handle} is still running")),
        "{told}"
    );

    f.fake.push_replies([
        Reply::text("")
            .with_tool("continue", json!({"handle": "nobody", "message": "hi"}))
            .matching("someone else"),
        Reply::text("No such child.").matching("there is no child"),
    ]);
    assert_eq!(f.submit("someone else").text, "No such child.");
    let told = last_result(&f);
    assert!(
        told.contains("there is no child \"nobody\"") && told.contains(&handle),
        "the children are named: {told}"
    );
}
