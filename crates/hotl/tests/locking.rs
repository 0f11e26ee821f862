//! Two processes: while another holds the session tree's lock, writes are refused with the
//! owner named, and reads go on.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hotl_testkit::{FIXED_ID, TestResult};

use crate::common::{Env, Holder, has_flock};

#[test]
fn a_held_lock_refuses_writes_and_allows_reads() -> TestResult {
    if !hotl_testkit::require("flock(1)", has_flock())? {
        return Ok(());
    }
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 2))?;
    let before = env.log_bytes(FIXED_ID)?;
    let holder = Holder::spawn(&env.home.join("sessions").join(format!("{FIXED_ID}.lock")))?;

    let out = env
        .run(&["sessions", "rename", FIXED_ID, "renamed"])
        .fails(1);
    assert!(
        out.stderr.contains("owned by another hotl process"),
        "{out}"
    );
    assert!(
        out.stderr.contains(&format!("pid {}", holder.pid())),
        "{out}"
    );
    assert!(out.stderr.contains("hint: it can still be read"), "{out}");
    let clear = env.run(&["sessions", "clear", FIXED_ID]).fails(1);
    assert!(
        clear.stderr.contains("owned by another hotl process"),
        "{clear}"
    );
    assert_eq!(env.log_bytes(FIXED_ID)?, before);

    let show = env.run(&["sessions", "show", "1"]).ok();
    assert!(show.stdout.contains("[t9] user: message 2"), "{show}");
    env.run(&["sessions", "show", "1", "--model-view"]).ok();
    env.run(&["sessions", "list"]).ok();
    env.run(&["sessions", "check", "1"]).ok();

    holder.release()?;
    env.run(&["sessions", "rename", FIXED_ID, "renamed"]).ok();
    assert_eq!(
        env.json(&["sessions", "show", "renamed", "--json"])?["id"],
        FIXED_ID
    );
    Ok(())
}

#[test]
fn a_holder_that_wrote_no_pid_is_pid_unknown() -> TestResult {
    if !hotl_testkit::require("flock(1)", has_flock())? {
        return Ok(());
    }
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    let lock = env.home.join("sessions").join(format!("{FIXED_ID}.lock"));
    let mut child = Command::new("flock")
        .arg(&lock)
        .arg("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Command::new("flock")
        .arg("-n")
        .arg(&lock)
        .arg("true")
        .status()?
        .success()
    {
        assert!(Instant::now() < deadline, "the holder never took the lock");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::fs::write(&lock, b"")?;
    let out = env.run(&["sessions", "rename", FIXED_ID, "renamed"]);
    drop(child.stdin.take());
    child.wait()?;
    let out = out.fails(1);
    assert!(
        out.stderr
            .contains("owned by another hotl process (pid unknown)"),
        "{out}"
    );
    Ok(())
}
