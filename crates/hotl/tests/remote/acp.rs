//! `hotl acp` with a remote: an editor's `session/load` takes the tree's lease (refused,
//! naming the holder, while another machine holds it), and the lease is let go when the
//! editor leaves.

use std::io::{BufRead, BufReader, Write};

use hotl_testkit::TestResult;
use serde_json::{Value, json};

use super::{Server, bucket, command, first_id, hold_lease, hotl, machine, runtime};

/// The tree's lease as the store holds it.
fn lease(server: &Server, root: &str) -> TestResult<Value> {
    use object_store::ObjectStoreExt;
    let s3 = bucket(server)?;
    let name = object_store::path::Path::from(format!("team/trees/{root}/lease"));
    let bytes = runtime()?.block_on(async { s3.get(&name).await?.bytes().await })?;
    Ok(serde_json::from_slice(&bytes)?)
}

#[test]
fn loading_a_session_in_an_editor_takes_its_lease() -> TestResult {
    let Some(server) = super::moto()? else {
        return Ok(());
    };
    let laptop = machine(&server, 2)?;
    hotl(&laptop, "laptop", &["-p", "hello"]).ok();
    let id = first_id(&hotl(&laptop, "laptop", &["sessions", "list", "--json"]))?;
    hold_lease(&server, &id)?;

    let mut acp = command(&laptop, "laptop", "test", &["acp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let mut stdin = acp.stdin.take().ok_or("stdin")?;
    let mut lines = BufReader::new(acp.stdout.take().ok_or("stdout")?).lines();
    // Sends a request; its answer (notifications before it are skipped).
    let mut ask = |n: u64, method: &str, params: Value| -> TestResult<Value> {
        let line = json!({"jsonrpc": "2.0", "id": n, "method": method, "params": params});
        writeln!(stdin, "{line}")?;
        stdin.flush()?;
        loop {
            let answer: Value = serde_json::from_str(&lines.next().ok_or("an answer")??)?;
            if answer["id"] == n {
                return Ok(answer);
            }
        }
    };
    ask(1, "initialize", json!({"protocolVersion": 1}))?;
    let load = json!({"sessionId": id, "cwd": laptop.cwd(), "mcpServers": []});
    let refused = ask(2, "session/load", load.clone())?;
    assert!(
        refused["error"].to_string().contains("far-away"),
        "{refused}"
    );
    // Once the far-away lease runs out, the load takes it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut n = 3;
    while ask(n, "session/load", load.clone())?["error"].is_object() {
        assert!(
            std::time::Instant::now() < deadline,
            "the lease never came free"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
        n += 1;
    }
    let held = lease(&server, &id)?;
    assert_eq!(
        (held["host"].as_str(), held["released"].as_bool()),
        (Some("laptop"), Some(false))
    );
    // The editor leaves: the lease is let go.
    drop(stdin);
    assert!(acp.wait()?.success());
    assert_eq!(lease(&server, &id)?["released"], true);
    Ok(())
}
