//! Faults between machines, end to end: the holder killed mid-publish (the other machine
//! adopts once the lease runs out, finishes the turn the dead process left open, and nothing
//! is published twice), and the network dropping mid-push and mid-pull (the session goes on
//! locally, the next publish resumes, a partial pull is never opened).

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::{FIXED_ID, TestResult};

use super::proxy::{Hold, Proxy};
use super::{
    assert_chained, command, command_with, first_id, hotl, machine, machine_at, moto, segments,
};
use crate::common::{Env, Run, assert_calls_answered, run};

/// The path of `id`'s segments in the store, as a request line names them.
fn segment_path(id: &str) -> String {
    format!("/sessions/team/trees/{id}/{id}/")
}

/// Runs `args` on `env` as machine `host` until it no longer fails because another machine
/// holds the tree (its lease runs out: the event waited for), at most a minute.
fn once_the_lease_is_free(env: &Env, host: &str, fake: &FakeLlm, args: &[&str]) -> Run {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let tried = run(command_with(env, host, fake, args));
        let held = tried.code == 1 && tried.stderr.contains("owned by");
        if !held || std::time::Instant::now() > deadline {
            return tried;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

#[test]
fn the_holder_killed_mid_publish_is_adopted_and_nothing_goes_twice() -> TestResult {
    let Some(server) = moto()? else { return Ok(()) };
    let network = Proxy::start(server.port)?;
    let (laptop, build_box) = (machine_at(network.port, 2)?, machine(&server, 2)?);
    // The laptop's process died mid-turn (a bash call without its result), and its last
    // publish is cut short: the segment lands, its answer never reaches the publisher.
    let call = laptop.import_interrupted()?;
    network.hold(Hold::Answer, &["PUT ", &segment_path(FIXED_ID)]);
    let mut push = command(&laptop, "laptop", "test", &["sessions", "push", FIXED_ID]).spawn()?;
    network.wait_held()?;
    push.kill()?;
    push.wait()?;
    network.restore();

    // The box finds it by id (its summary was never written), waits out the dead holder's
    // lease, adopts the tree at the next epoch, and finishes the turn left open.
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Finished the old turn."),
        Reply::text("Next done."),
    ]))?;
    let args = ["-r", FIXED_ID, "-p", "next", "--output-format", "json"];
    let adopted = once_the_lease_is_free(&build_box, "box", &fake, &args).ok();
    assert_eq!(adopted.json()?["result"], "Next done.", "{adopted}");
    let records = build_box.records(FIXED_ID)?;
    assert_calls_answered(&records);
    let answered = records
        .iter()
        .find(|r| r["type"] == "tool_result" && r["call"] == call.as_str())
        .ok_or("the open call is answered")?;
    assert_eq!(answered["is_error"], true, "{answered}");

    // One chain of segments: the laptop's, then the box's.
    let chain = segments(&server, FIXED_ID, FIXED_ID)?;
    assert_chained(&chain);
    assert_eq!(chain[0].0, 1);
    assert!(chain.len() >= 2, "{chain:?}");

    // The laptop catches up byte for byte, and has nothing left to send.
    hotl(&laptop, "laptop", &["sessions", "pull", FIXED_ID]).ok();
    assert_eq!(laptop.log_bytes(FIXED_ID)?, build_box.log_bytes(FIXED_ID)?);
    let pushed = hotl(&laptop, "laptop", &["sessions", "push", FIXED_ID, "--json"]).ok();
    let pushed: serde_json::Value = serde_json::from_str(&pushed.stdout)?;
    assert_eq!(pushed["pushed"][0]["segments"], 0, "{pushed}");
    assert_eq!(segments(&server, FIXED_ID, FIXED_ID)?, chain);
    for (env, host) in [(&laptop, "laptop"), (&build_box, "box")] {
        hotl(env, host, &["sessions", "check", FIXED_ID]).ok();
    }
    Ok(())
}

#[test]
fn the_network_dropping_mid_push_loses_nothing_and_the_next_publish_resumes() -> TestResult {
    let Some(server) = moto()? else { return Ok(()) };
    let network = Proxy::start(server.port)?;
    let laptop = machine_at(network.port, 60)?;
    hotl(&laptop, "laptop", &["-p", "first"]).ok();
    let id = first_id(&hotl(&laptop, "laptop", &["sessions", "list", "--json"]))?;
    let published = segments(&server, &id, &id)?;

    // The second turn's segment never reaches the store: the network drops under it.
    network.hold(Hold::Request, &["PUT ", &segment_path(&id)]);
    let second = command(&laptop, "laptop", "test", &["-r", &id, "-p", "second"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    network.wait_held()?;
    network.cut();
    let second = second.wait_with_output()?;
    assert!(second.status.success(), "{second:?}");
    // The session goes on here while the store cannot be reached.
    let third = hotl(&laptop, "laptop", &["-r", &id, "-p", "third"]).ok();
    assert!(third.stderr.contains("cannot be reached"), "{third}");
    assert_eq!(segments(&server, &id, &id)?, published);

    // The network is back: the next publish sends what was left, once.
    network.restore();
    let pushed = hotl(&laptop, "laptop", &["sessions", "push", &id, "--json"]).ok();
    let pushed: serde_json::Value = serde_json::from_str(&pushed.stdout)?;
    assert_eq!(pushed["pushed"][0]["segments"], 1, "{pushed}");
    let chain = segments(&server, &id, &id)?;
    assert_chained(&chain);
    let build_box = machine(&server, 60)?;
    hotl(&build_box, "box", &["sessions", "pull", &id]).ok();
    assert_eq!(laptop.log_bytes(&id)?, build_box.log_bytes(&id)?);
    let shown = hotl(&build_box, "box", &["sessions", "show", &id]).ok();
    assert!(
        shown.stdout.contains("second") && shown.stdout.contains("third"),
        "{shown}"
    );
    Ok(())
}

#[test]
fn a_pull_cut_short_by_the_network_is_never_opened() -> TestResult {
    let Some(server) = moto()? else { return Ok(()) };
    let laptop = machine(&server, 60)?;
    hotl(&laptop, "laptop", &["-p", "one"]).ok();
    let id = first_id(&hotl(&laptop, "laptop", &["sessions", "list", "--json"]))?;
    for turn in ["two", "three"] {
        hotl(&laptop, "laptop", &["-r", &id, "-p", turn]).ok();
    }
    assert!(segments(&server, &id, &id)?.len() >= 3);

    // The network drops while the box's pull fetches the segments.
    let network = Proxy::start(server.port)?;
    let build_box = machine_at(network.port, 60)?;
    network.hold(Hold::Request, &["GET ", &segment_path(&id)]);
    let pull = command(&build_box, "box", "test", &["sessions", "pull", &id])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    network.wait_held()?;
    network.cut();
    let pull = pull.wait_with_output()?;
    assert!(!pull.status.success(), "{pull:?}");
    assert!(
        String::from_utf8_lossy(&pull.stderr).contains("cannot be reached"),
        "{pull:?}"
    );
    // Nothing of it is in the box's home: not listed, not opened, not partly written.
    assert!(build_box.session_ids()?.is_empty());
    let opened = hotl(&build_box, "box", &["-r", &id, "-p", "go on"]).fails(1);
    assert!(opened.stderr.contains("cannot be reached"), "{opened}");
    assert!(build_box.session_ids()?.is_empty());

    network.restore();
    hotl(&build_box, "box", &["sessions", "pull", &id]).ok();
    assert_eq!(laptop.log_bytes(&id)?, build_box.log_bytes(&id)?);
    hotl(&build_box, "box", &["sessions", "check", &id]).ok();
    Ok(())
}
