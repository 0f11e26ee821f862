//! Attacks, run against the real binary: what a log, a model or a tool could make hotl read,
//! leak or print that it should not.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;
use serde_json::json;

use crate::common::{Env, requests};

/// A model steered into `env` sees no provider key: the tool's processes do not get it.
#[test]
fn the_provider_key_does_not_reach_a_command() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("bash", json!({ "command": "env; echo done" })),
        Reply::text("Done."),
    ]))?;
    let secret = "sk-ant-test-0123456789-secret";
    let mut cmd = env.agent_command();
    cmd.env("ANTHROPIC_API_KEY", secret)
        .env("OPENAI_API_KEY", secret)
        .args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(["-p", "print the environment", "--allow", "bash"]);
    let out = crate::common::run(cmd).ok();
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 2, "{out}");
    let back = sent[1].to_string();
    assert!(back.contains("done"), "the command ran: {back}");
    assert!(
        !back.contains(secret),
        "the key went to the provider: {back}"
    );
    let log = String::from_utf8(env.log_bytes(&env.only_session()?)?)?;
    assert!(!log.contains(secret), "the key is in the log");
    Ok(())
}

/// A log whose fork pin is a path is refused on import, naming the field, and nothing it
/// points at is read.
#[test]
fn a_pin_that_is_a_path_is_refused_on_import() -> TestResult {
    let env = Env::new()?;
    let evil = env.scratch(
        "evil.jsonl",
        br#"{"seq":5,"ts":"2026-11-01T00:00:00.000Z","type":"session","id":"01JD0000000000000000000009","cwd":"/p","parent":{"session":"../../../../etc/hosts-like","seq":4,"offset":10,"hash":"ab"}}
"#,
    )?;
    let out = env
        .run(&["sessions", "import", crate::common::path_str(&evil)?])
        .fails(1);
    assert!(
        out.stderr.contains("`parent.session` is not a session id"),
        "{out}"
    );
    assert!(env.session_ids()?.is_empty());
    Ok(())
}

/// A read of a private key (`~/.ssh`), or of a `.env` file outside the project, is refused
/// headless unless allowed: nothing of it goes to the provider.
#[test]
fn a_secret_file_is_not_read_unasked() -> TestResult {
    let env = Env::new()?;
    let ssh = env.root().join(".ssh");
    std::fs::create_dir_all(&ssh)?;
    let key = "-----BEGIN OPENSSH PRIVATE KEY----- very-secret-key-bytes";
    std::fs::write(ssh.join("id_ed25519"), key)?;
    let dotenv = env.root().join("other-project").join(".env");
    std::fs::create_dir_all(dotenv.parent().ok_or("a parent")?)?;
    std::fs::write(&dotenv, "DATABASE_PASSWORD=hunter2-very-secret")?;
    let key_path = ssh.join("id_ed25519").display().to_string();
    let dotenv_path = dotenv.display().to_string();
    for (path, secret) in [
        (&key_path, "very-secret-key-bytes"),
        (&dotenv_path, "hunter2"),
    ] {
        for mode in ["default", "plan"] {
            let fake = FakeLlm::start(Config::scripted([
                Reply::text("").with_tool("read", json!({ "path": path })),
                Reply::text("Done."),
            ]))?;
            let out = env
                .agent(&fake, &["-p", "read it", "--permission-mode", mode])
                .ok();
            let back = requests(&fake)?[1].to_string();
            assert!(
                !back.contains(secret),
                "{mode}: the secret went out: {back}"
            );
            assert!(
                back.contains("would read where secrets are kept"),
                "{mode}: {back}"
            );
            assert!(back.contains("--allow read"), "{out}");
        }
    }
    // Allowed by name, it is read.
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("read", json!({ "path": key_path })),
        Reply::text("Done."),
    ]))?;
    env.agent(&fake, &["-p", "read it", "--allow", "read"]).ok();
    assert!(
        requests(&fake)?[1]
            .to_string()
            .contains("very-secret-key-bytes")
    );
    Ok(())
}
