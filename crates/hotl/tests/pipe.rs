//! A reader that closes early (`hotl sessions show | head -1`): exit 0, nothing on stderr.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use hotl_testkit::{FIXED_ID, TestResult};

use crate::common::Env;

/// Runs `hotl <args>`, reads one line of stdout, closes the pipe, and waits.
fn first_line_then_close(env: &Env, args: &[&str]) -> TestResult<(String, std::process::Output)> {
    let mut cmd = env.command();
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first)?;
    // The reader (and with it the pipe's read end) is gone here.
    let out = child.wait_with_output()?;
    Ok((first, out))
}

#[test]
fn show_into_a_closed_pipe_exits_0_quietly() -> TestResult {
    let env = Env::new()?;
    // Far more than a pipe buffer holds, so the writer must meet the closed pipe.
    env.import(&env.log_with_turns(FIXED_ID, 1500))?;
    for args in [
        &["sessions", "show", "1"][..],
        &["sessions", "show", "1", "--model-view"],
        &["sessions", "show", "1", "--json"],
    ] {
        let (first, out) = first_line_then_close(&env, args)?;
        assert!(!first.is_empty(), "{args:?}: nothing read");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
    Ok(())
}
