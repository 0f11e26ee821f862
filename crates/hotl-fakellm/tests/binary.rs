//! The `hotl-fakellm serve` binary: first stdout line is the URL; script, replay, capture.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::common::{TestResult, anthropic_user, client, fixture};

/// Kills the child on drop so a failing test leaves no server behind.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(args: &[&str]) -> Result<(Server, String), Box<dyn std::error::Error>> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hotl-fakellm"))
        .arg("serve")
        .args(args)
        .stdout(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    Ok((server, line.trim().to_string()))
}

#[tokio::test]
async fn serve_prints_its_url_and_follows_the_script() -> TestResult {
    let dir = tempfile::tempdir()?;
    let script = dir.path().join("script.jsonl");
    std::fs::write(&script, "{\"text\": \"from the script\"}\n")?;
    let capture = dir.path().join("cap");
    let (_server, url) = serve(&[
        "--port",
        "0",
        "--script",
        script.to_str().ok_or("path")?,
        "--capture",
        capture.to_str().ok_or("path")?,
        "--tokenizer",
        "bytes4",
    ])?;
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let body = serde_json::to_vec(&anthropic_user("hi", false))?;
    let m: Value = client()
        .post(format!("{url}/v1/messages"))
        .body(body.clone())
        .send()
        .await?
        .json()
        .await?;
    assert_eq!(m["content"][0]["text"], "from the script");
    assert_eq!(m["usage"]["input_tokens"], 1);
    assert_eq!(std::fs::read(capture.join("0001-messages.json"))?, body);
    Ok(())
}

#[tokio::test]
async fn serve_replays_a_recording() -> TestResult {
    let path = fixture("anthropic/basic_response.txt");
    let (_server, url) = serve(&[
        "--replay",
        path.to_str().ok_or("path")?,
        "--dialect",
        "anthropic",
    ])?;
    let body = serde_json::to_vec(&anthropic_user("hi", true))?;
    let text = client()
        .post(format!("{url}/v1/messages"))
        .body(body)
        .send()
        .await?
        .bytes()
        .await?;
    assert_eq!(text.as_ref(), std::fs::read(&path)?.as_slice());
    Ok(())
}

#[test]
fn serve_refuses_unknown_values() -> TestResult {
    let out = Command::new(env!("CARGO_BIN_EXE_hotl-fakellm"))
        .args(["serve", "--tokenizer", "words"])
        .output()?;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown tokenizer 'words'"));
    Ok(())
}
