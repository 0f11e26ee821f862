//! `bash`: exit codes, stderr, timeouts, capped output, and killing on cancellation.

use std::time::{Duration, Instant};

use hotl_testkit::TestResult;
use serde_json::json;

use crate::support::{Project, assert_error};

#[tokio::test]
async fn runs_in_the_working_directory_and_says_nothing_of_exit_code_zero() -> TestResult {
    let p = Project::new()?;
    let out = p.call("bash", json!({"command": "echo hello; pwd"})).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(out.content, format!("hello\n{}", p.ctx.cwd.display()));
    assert!(out.files.is_empty());
    assert_eq!(out.blob, None);
    Ok(())
}

#[tokio::test]
async fn non_zero_exit_is_an_error_and_stderr_is_labelled() -> TestResult {
    let p = Project::new()?;
    let out = p
        .call(
            "bash",
            json!({"command": "echo out; echo oops >&2; exit 3"}),
        )
        .await;
    assert!(out.is_error);
    assert_eq!(out.content, "out\n[stderr]\noops\nexit code 3");
    let quiet = p.call("bash", json!({"command": "true"})).await;
    assert_eq!(quiet.content, "(no output)");
    Ok(())
}

#[tokio::test]
async fn stdin_is_closed() -> TestResult {
    let p = Project::new()?;
    let out = p
        .call(
            "bash",
            json!({"command": "cat; echo done", "timeout": 5000}),
        )
        .await;
    assert_eq!(out.content, "done");
    Ok(())
}

#[tokio::test]
async fn a_timeout_kills_the_command_and_keeps_the_output_so_far() -> TestResult {
    let p = Project::new()?;
    let started = Instant::now();
    let out = p
        .call(
            "bash",
            json!({"command": "echo started; sleep 5; echo never", "timeout": 200}),
        )
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_error(&out, &["started\n", "timed out after 200 ms", "killed"]);
    assert!(!out.content.contains("never"));
    Ok(())
}

#[tokio::test]
async fn large_output_shows_head_and_tail_and_stores_the_rest() -> TestResult {
    let p = Project::new()?;
    let out = p.call("bash", json!({"command": "seq 1 1000"})).await;
    assert!(!out.is_error, "{}", out.content);
    let hash = out.blob.clone().ok_or("no blob")?;
    let lines: Vec<&str> = out.content.lines().collect();
    assert_eq!(lines.len(), 40 + 1 + 40);
    assert_eq!(lines[0], "1");
    assert_eq!(lines[39], "40");
    assert_eq!(
        lines[40],
        format!(
            "[… lines 41-960 of 1000 omitted; read blob:{}]",
            &hash[..hotl_tool::BLOB_REF_CHARS]
        )
    );
    assert_eq!(lines[41], "961");
    assert_eq!(lines[80], "1000");
    let full: String = (1..=1000).map(|i| format!("{i}\n")).collect();
    assert_eq!(p.ctx.blobs.get(&hash)?, full.as_bytes());
    Ok(())
}

#[tokio::test]
async fn few_but_long_lines_are_capped_too() -> TestResult {
    let p = Project::new()?;
    let out = p
        .call("bash", json!({"command": "for i in 1 2 3 4; do head -c 10000 /dev/zero | tr '\\0' x; echo; done"}))
        .await;
    let hash = out.blob.clone().ok_or("no blob")?;
    assert!(out.content.len() < 10_000, "{}", out.content.len());
    assert!(
        out.content
            .contains(&format!("read {}", hotl_tool::blob_ref(&hash)))
    );
    assert_eq!(p.ctx.blobs.get(&hash)?.len(), 4 * 10_001);
    Ok(())
}

/// The cap counts tokens, not only lines: 110 lines of 80 characters (about 2,200 tokens,
/// under the 120-line limit) show their head and tail; 60 such lines pass whole.
#[tokio::test]
async fn an_output_is_capped_by_its_tokens_under_the_line_limit() -> TestResult {
    let p = Project::new()?;
    let line = "x".repeat(75);
    let command = |n: u32| format!("for i in $(seq 1 {n}); do echo \"$i {line}\"; done");
    let out = p.call("bash", json!({"command": command(110)})).await;
    let hash = out.blob.clone().ok_or("110 long lines are capped")?;
    assert!(out.content.len() <= 6_000, "{}", out.content.len());
    assert!(out.content.starts_with("1 x"), "{}", out.content);
    assert!(out.content.contains("110 x"), "the tail is kept");
    assert!(
        out.content
            .contains(&format!("read {}", hotl_tool::blob_ref(&hash)))
    );
    let small = p.call("bash", json!({"command": command(60)})).await;
    assert_eq!(small.blob, None);
    assert!(small.content.contains("60 x"));
    Ok(())
}

#[tokio::test]
async fn dropping_the_future_kills_the_whole_process_group() -> TestResult {
    let p = Project::new()?;
    let marker = p.path("marker");
    let pidfile = p.path("pid");
    let command = format!(
        "echo $$ > '{}'; (sleep 30; touch '{}') & wait",
        pidfile.display(),
        marker.display()
    );
    let call = p.call("bash", json!({ "command": command }));
    let cut = tokio::time::timeout(Duration::from_millis(200), call).await;
    assert!(cut.is_err(), "the command finished early: {cut:?}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!marker.exists());
    let pgid = std::fs::read_to_string(&pidfile)?.trim().to_owned();
    let ps = std::process::Command::new("ps")
        .args(["-eo", "pgid=,stat=,args="])
        .output()?;
    let alive: Vec<String> = String::from_utf8_lossy(&ps.stdout)
        .lines()
        .filter(|l| {
            let mut cols = l.split_whitespace();
            cols.next() == Some(pgid.as_str()) && !cols.next().is_some_and(|s| s.starts_with('Z'))
        })
        .map(str::to_owned)
        .collect();
    assert!(alive.is_empty(), "still running: {alive:?}");
    Ok(())
}

#[tokio::test]
async fn background_jobs_do_not_hold_the_call_open() -> TestResult {
    let p = Project::new()?;
    let started = Instant::now();
    let out = p
        .call("bash", json!({"command": "sleep 3 & echo launched"}))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.starts_with("launched\n"), "{}", out.content);
    assert!(
        out.content.contains("background processes"),
        "{}",
        out.content
    );
    Ok(())
}

#[tokio::test]
async fn bad_arguments_are_errors() -> TestResult {
    let p = Project::new()?;
    assert_error(
        &p.call("bash", json!({})).await,
        &["missing required field `command`"],
    );
    assert_error(
        &p.call("bash", json!({"command": "  "})).await,
        &["`command` is empty"],
    );
    assert_error(
        &p.call("bash", json!({"command": "true", "timeout": 0}))
            .await,
        &["`timeout` must be at least 1"],
    );
    Ok(())
}
