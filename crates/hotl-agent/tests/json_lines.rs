//! A fourth front end, on the protocol crate alone: JSON commands in, JSON envelopes out, one
//! a line. The driver names nothing of the engine's; the test gives it an agent the engine
//! started, and reads its lines as a script would.

use std::io::{BufRead, Write};

use hotl_agent::{NewSession, Provider, Settings, Start};
use hotl_testkit::TestResult;

/// The driver: `hotl_protocol` and serde only.
async fn drive(
    mut agent: hotl_protocol::Agent,
    input: impl BufRead,
    out: &mut impl Write,
) -> std::io::Result<()> {
    for line in input.lines() {
        let command: hotl_protocol::Command = serde_json::from_str(&line?)?;
        let id = agent.send(command);
        let mut lines = Vec::new();
        let done = agent
            .until_done(id, |envelope| lines.push(serde_json::to_string(envelope)))
            .await;
        for line in lines {
            writeln!(out, "{}", line?)?;
        }
        let Some(done) = done else { break };
        let envelope = hotl_protocol::Envelope {
            command: Some(id),
            child: None,
            event: hotl_protocol::Event::Done(done),
        };
        writeln!(out, "{}", serde_json::to_string(&envelope)?)?;
    }
    agent.shutdown().await;
    Ok(())
}

#[test]
fn a_json_lines_driver_on_the_protocol_alone_runs_commands_to_their_ends() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = hotl_log::Store::new(dir.path().join("home"));
    let new = NewSession::new(&store, dir.path(), "demo", hotl_agent::standard_tools())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let input = concat!(
        r#"{"command":"rename","name":"driven"}"#,
        "\n",
        r#"{"command":"submit","text":"hello there"}"#,
        "\n",
        r#"{"command":"move","move":"recall","query":"nothing","limit":3}"#,
        "\n",
        r#"{"command":"set_mode","mode":"plan"}"#,
        "\n",
    );
    let mut out = Vec::new();
    runtime.block_on(async {
        let agent = hotl_agent::spawn(Start::New(new), Provider::Demo, Settings::new("demo"));
        drive(agent, input.as_bytes(), &mut out).await
    })?;
    let lines: Vec<serde_json::Value> = String::from_utf8(out)?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let ends: Vec<(u64, &str)> = lines
        .iter()
        .filter(|l| {
            matches!(
                l["type"].as_str(),
                Some("renamed" | "turn_ended" | "move_ended" | "mode_changed" | "failed")
            )
        })
        .map(|l| {
            (
                l["command_id"].as_u64().unwrap_or(0),
                l["type"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        ends,
        [
            (1, "renamed"),
            (2, "turn_ended"),
            (3, "move_ended"),
            (4, "mode_changed")
        ],
        "each command's one end, in order, by id"
    );
    let answer = lines.iter().find(|l| l["type"] == "turn_ended");
    assert!(
        answer.is_some_and(|a| a["text"]
            .as_str()
            .is_some_and(|t| t.contains("hello there"))),
        "{answer:?}"
    );
    Ok(())
}
