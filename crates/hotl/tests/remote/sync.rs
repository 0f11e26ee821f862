//! Sessions continued across machines through the store, a tree another machine holds, and a
//! store that cannot hold leases caught by `hotl remote check`.

use std::process::{Command, Stdio};

use hotl_testkit::{TestResult, require};

use super::{Server, first_id, free_port, hold_lease, hotl, hotl_as, machine, moto, wait_for};
use crate::common::Env;

#[test]
fn two_machines_continue_one_session_through_the_store() -> TestResult {
    let Some(server) = moto()? else { return Ok(()) };
    let (laptop, build_box) = (machine(&server, 60)?, machine(&server, 60)?);
    hotl(&laptop, "laptop", &["remote", "check"]).ok();
    hotl(&laptop, "laptop", &["-p", "start on the laptop"]).ok();
    let listed = hotl(
        &build_box,
        "box",
        &["sessions", "list", "--remote", "--json"],
    )
    .ok();
    let id = first_id(&listed)?;
    assert!(listed.stdout.contains("\"host\": \"laptop\""), "{listed}");
    // A reference no local session matches is found in the store, pulled and continued.
    let resumed = hotl(
        &build_box,
        "box",
        &["-r", &id[..12], "-p", "continue on the box"],
    )
    .ok();
    assert!(resumed.stderr.contains("pulled"), "{resumed}");
    hotl(&laptop, "laptop", &["sessions", "pull", &id, "--json"]).ok();
    let log = |env: &Env| std::fs::read(env.home.join(format!("sessions/{id}.jsonl")));
    assert_eq!(log(&laptop)?, log(&build_box)?);
    let shown = hotl(&laptop, "laptop", &["sessions", "show", &id]).ok();
    assert!(shown.stdout.contains("continue on the box"), "{shown}");
    for env in [&laptop, &build_box] {
        hotl(env, "x", &["sessions", "check", &id]).ok();
    }
    // Nothing new: a push sends nothing.
    let pushed = hotl(&laptop, "laptop", &["sessions", "push", &id, "--json"]).ok();
    let pushed: serde_json::Value = serde_json::from_str(&pushed.stdout)?;
    assert_eq!(pushed["pushed"][0]["segments"], 0);
    Ok(())
}

#[test]
fn a_tree_another_machine_holds_is_refused_headless_naming_it() -> TestResult {
    let Some(server) = moto()? else { return Ok(()) };
    let (laptop, build_box) = (machine(&server, 2)?, machine(&server, 2)?);
    hotl(&laptop, "laptop", &["-p", "hello"]).ok();
    let id = first_id(&hotl(
        &laptop,
        "laptop",
        &["sessions", "list", "--remote", "--json"],
    ))?;
    // Another machine takes the tree's lease (as a running hotl there would).
    hold_lease(&server, &id)?;
    let refused = hotl(&build_box, "box", &["-r", &id, "-p", "mine now"]).fails(1);
    assert!(
        refused.stderr.contains("far-away") && refused.stderr.contains("pid 777"),
        "{refused}"
    );
    // Once the lease ran out, the box adopts the tree at the next epoch.
    std::thread::sleep(std::time::Duration::from_millis(4000));
    hotl(&build_box, "box", &["-r", &id, "-p", "mine now"]).ok();
    hotl(&laptop, "laptop", &["sessions", "pull", &id]).ok();
    let shown = hotl(&laptop, "laptop", &["sessions", "show", &id]).ok();
    assert!(shown.stdout.contains("mine now"), "{shown}");
    Ok(())
}

#[test]
fn a_server_that_accepts_what_it_should_refuse_is_caught_by_check() -> TestResult {
    let program = std::env::var("HOTL_S3RVER").unwrap_or_else(|_| "s3rver".to_owned());
    let present = Command::new(&program)
        .arg("--help")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !require("s3rver (npm install -g s3rver@3.7.1)", present)? {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let port = free_port()?;
    let mut child = Command::new(&program)
        .args([
            "--address",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--directory",
        ])
        .arg(dir.path())
        .args(["--configure-bucket", "sessions"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    wait_for(port, &mut child)?;
    let server = Server { child, port };
    let env = machine(&server, 60)?;
    // Wrong credentials: named, with what to fix.
    let denied = hotl(&env, "x", &["remote", "check", "--json"]).fails(1);
    assert!(
        denied.stdout.contains("credentials missing or wrong"),
        "{denied}"
    );
    let checked = hotl_as(&env, "x", "S3RVER", &["remote", "check", "--json"]).fails(1);
    let report: serde_json::Value = serde_json::from_str(&checked.stdout)?;
    assert_eq!(report["ok"], false);
    let failed: Vec<&str> = report["probes"]
        .as_array()
        .ok_or("probes")?
        .iter()
        .filter(|p| p["ok"] == false)
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(
        failed.contains(&"create_once") || failed.contains(&"stale_update"),
        "{checked}"
    );
    // Used read-only: a push there says so.
    hotl_as(&env, "x", "S3RVER", &["-p", "hello"]).ok();
    let run = hotl_as(&env, "x", "S3RVER", &["sessions", "push", "--all"]).fails(1);
    assert!(run.stderr.contains("read-only"), "{run}");
    Ok(())
}

/// A session resumed on a machine that never saw it fetches its view and the end of its log,
/// not its archive; what reads the archive fetches it then, and both copies end the same.
#[test]
fn a_resume_from_the_store_leaves_the_archive_there_until_read() -> TestResult {
    let Some(server) = moto()? else { return Ok(()) };
    let (laptop, build_box) = (machine(&server, 60)?, machine(&server, 60)?);
    let long = |word: &str| format!("{word} {}", "an archived detail ".repeat(400));
    hotl(&laptop, "laptop", &["-p", &long("kumquat")]).ok();
    let id = first_id(&hotl(&laptop, "laptop", &["sessions", "list", "--json"]))?;
    hotl(&laptop, "laptop", &["-r", &id, "-p", &long("second")]).ok();
    let note = laptop.root().join("note.md");
    std::fs::write(
        &note,
        "changed: nothing\nlearned: the kumquat step is done\ndecided and rejected: none\nopen: none\nwhere: here\n",
    )?;
    let note = note.to_str().ok_or("a path")?;
    hotl(&laptop, "laptop", &["fold", &id, "--note-file", note]).ok();
    hotl(&laptop, "laptop", &["-r", &id, "-p", &long("third")]).ok();
    hotl(&laptop, "laptop", &["-r", &id, "-p", "fourth"]).ok();

    let resumed = hotl(&build_box, "box", &["-r", &id, "-p", "on the box"]).ok();
    assert!(
        resumed
            .stderr
            .contains("stays in the store until something reads it"),
        "{resumed}"
    );
    let log = |env: &Env| std::fs::read(env.home.join(format!("sessions/{id}.jsonl")));
    let hole = build_box.home.join(format!("sessions/{id}.jsonl.hole"));
    assert!(
        hole.is_file(),
        "the archive was left in the store: {resumed}"
    );
    // Reading the archive fetches it.
    let found = hotl(&build_box, "box", &["recall", &id, "kumquat"]).ok();
    assert!(found.stdout.contains("kumquat"), "{found}");
    assert!(!hole.is_file());
    hotl(&build_box, "box", &["sessions", "check", &id]).ok();
    hotl(&laptop, "laptop", &["sessions", "pull", &id]).ok();
    assert_eq!(log(&laptop)?, log(&build_box)?);
    Ok(())
}
