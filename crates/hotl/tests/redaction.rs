//! Redaction of credentials in everything that leaves the machine: one session holding 31
//! kinds of secret (in the prompt, a written file, `cat .env`'s output, thinking and the
//! answer), shared and exported as a page, Markdown and JSON lines. Each value is in the plain
//! export (so the check can fail) and in none of the redacted ones.

use hotl_log::{Block, Body};
use hotl_testkit::TestResult;
use serde_json::json;

use crate::common::{Env, run};
use crate::share::{ShareServer, open};

/// Each kind and the value that must not survive.
fn credentials() -> Vec<(&'static str, String)> {
    let b64 = "Q2hhbmdlTWVQbGVhc2UxMjM0NTY3ODkwYWJjZGVmZ2hpams".repeat(2);
    vec![
        ("anthropic", format!("sk-ant-api03-{}", "Ab9".repeat(14))),
        ("openai", format!("sk-proj-{}", "Xy7".repeat(16))),
        ("github classic", format!("ghp_{}", "b1C2".repeat(9))),
        (
            "github fine-grained",
            format!("github_pat_11{}", "D3e".repeat(20)),
        ),
        ("github oauth", format!("gho_{}", "F4g5".repeat(9))),
        ("gitlab", format!("glpat-{}", "h6I7j8".repeat(4))),
        ("slack", "xoxb-2048-4096-AbCdEfGhIjKlMnOp".to_owned()),
        (
            "jwt",
            format!(
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyNDIifQ.{}",
                "Sg".repeat(20)
            ),
        ),
        ("rsa key", "MIIEowIBAAKCAQEAq7BFUAkGMIIRSAKEY".to_owned()),
        ("ec key", "MHcCAQEEIODLECKEYMATERIAL0123".to_owned()),
        (
            "openssh key",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAA".to_owned(),
        ),
        (
            "pkcs8 key in json",
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCJSON".to_owned(),
        ),
        ("aws key id", "AKIAQWERTYUIOPASDFGH".to_owned()),
        (
            "aws secret",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".to_owned(),
        ),
        ("stripe", format!("sk_live_{}", "4eC39HqLyjWDarjtT1zdp7dc")),
        (
            "google",
            format!("AIza{}", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
        ),
        (
            "npm",
            format!("npm_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
        ),
        (
            "pypi",
            format!(
                "pypi-AgEIcHlwaS5vcmc{}",
                "CJDk5NTQ0OTY3LTNmZjUtNDc5Ni1hODYxLTc0NWIxZWQ"
            ),
        ),
        (
            "sendgrid",
            format!(
                "SG.{}.{}",
                "ngeVfQFYQlKU0ufo8x5d1A", "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"
            ),
        ),
        (
            "hugging face",
            format!("hf_{}", "jRkTqGvBnWmXcLpZsYdFhAeUiOoKbNgQwErT"),
        ),
        (
            "twilio",
            format!("SK{}", "2f1c3a4b5d6e7f8091a2b3c4d5e6f708"),
        ),
        ("azure account key", format!("{b64}==")),
        ("bearer", "9f8e7d6c5b4a39281706f5e4d3c2b1a0ffee".to_owned()),
        ("mysql -p", "S3cr3tPassw0rd".to_owned()),
        ("url password", "hunter2-but-longer".to_owned()),
        ("PASSWORD=", "correct-horse-battery".to_owned()),
        ("SECRET_KEY=", "django-insecure-8f7s6d5f4a3".to_owned()),
        ("API_TOKEN=", "tok-778899aabbccddee".to_owned()),
        ("DATABASE_URL", "pg-pass-5521-xyz".to_owned()),
        ("configured", "configured-plain-secret-77".to_owned()),
        ("environment", "value-from-the-environment-42".to_owned()),
    ]
}

/// A session holding every credential, each where people paste, print or write them.
fn session(env: &Env) -> TestResult<String> {
    let c: std::collections::BTreeMap<_, _> = credentials().into_iter().collect();
    let pem = |label: &str, body: &str| {
        format!("-----BEGIN {label}PRIVATE KEY-----\n{body}\n-----END {label}PRIVATE KEY-----")
    };
    let mut log = env.log("01JE0000000000000000000R05");
    log.user(&format!(
        "deploy with {} and {}; the CI uses {} and {}; my MY_SERVICE_TOKEN is {}, also {}",
        c["anthropic"],
        c["openai"],
        c["github classic"],
        c["gitlab"],
        c["environment"],
        c["configured"],
    ));
    let file = format!(
        "{}\n{}\n{}\n{{\"type\": \"service_account\", \"private_key\": \"{}\"}}\n",
        pem("RSA ", &c["rsa key"]),
        pem("EC ", &c["ec key"]),
        pem("OPENSSH ", &c["openssh key"]),
        pem("", &c["pkcs8 key in json"]).replace('\n', "\\n"),
    );
    let dotenv = format!(
        "AWS_ACCESS_KEY_ID={}\nAWS_SECRET_ACCESS_KEY={}\nSTRIPE_KEY={}\nGOOGLE_MAPS={}\n\
         NPM_CONFIG={}\nPYPI={}\nSENDGRID={}\nHF={}\nTWILIO={}\n\
         AZURE=DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net\n\
         PASSWORD={}\nSECRET_KEY='{}'\nAPI_TOKEN={}\nDATABASE_URL=postgres://app:{}@db:5432/app\n",
        c["aws key id"],
        c["aws secret"],
        c["stripe"],
        c["google"],
        c["npm"],
        c["pypi"],
        c["sendgrid"],
        c["hugging face"],
        c["twilio"],
        c["azure account key"],
        c["PASSWORD="],
        c["SECRET_KEY="],
        c["API_TOKEN="],
        c["DATABASE_URL"],
    );
    log.record(Body::Assistant {
        content: vec![
            Block::Thinking {
                thinking: format!(
                    "the {} token and {} will do",
                    c["github fine-grained"], c["jwt"]
                ),
                signature: None,
            },
            Block::ToolUse {
                id: "call_w".to_owned(),
                name: "write".to_owned(),
                input: json!({"path": "keys.txt", "content": file}).into(),
            },
            Block::ToolUse {
                id: "call_e".to_owned(),
                name: "bash".to_owned(),
                input: json!({"command": "cat .env"}).into(),
            },
        ],
        model: Some("demo".to_owned()),
        stop: Some("tool_use".to_owned()),
        stop_raw: None,
        usage: None,
    });
    log.tool_result("call_w", "wrote keys.txt");
    log.tool_result("call_e", &dotenv);
    log.assistant(&format!(
        "Done. I ran `curl -H \"Authorization: Bearer {}\"`, then `mysql -u root -p{} shop` and \
         `git push https://deploy:{}@git.example.com/app.git`; {} and {} are in {}.",
        c["bearer"], c["mysql -p"], c["url password"], c["slack"], c["github oauth"], "~/.config",
    ));
    env.import(&log)
}

#[test]
fn every_credential_kind_is_redacted_in_every_format() -> TestResult {
    let env = Env::new()?;
    let id = session(&env)?;
    let config = env.root().join("config/hotl");
    std::fs::create_dir_all(&config)?;
    std::fs::write(
        config.join("config.toml"),
        "[share]\nsecrets = [\"configured-plain-secret-77\"]\n",
    )?;
    let export = |args: &[&str], file: &str| -> TestResult<String> {
        let mut cmd = env.agent_command();
        cmd.env("MY_SERVICE_TOKEN", "value-from-the-environment-42")
            .args(["sessions", "export", &id, "-o", file])
            .args(args);
        run(cmd).ok();
        Ok(std::fs::read_to_string(env.project.join(file))?)
    };
    let plain = export(&[], "plain.jsonl")?;
    for (kind, value) in credentials() {
        assert!(plain.contains(&value), "the plain export holds {kind}");
    }
    let server = ShareServer::start(&env, &[])?;
    let mut cmd = env.agent_command();
    cmd.env("MY_SERVICE_TOKEN", "value-from-the-environment-42")
        .args(["sessions", "share", &id, "--server", &server.url]);
    let shared = run(cmd).ok();
    let outputs = [
        ("share", open(&server, shared.line())?.to_string()),
        ("html", export(&["--redact"], "red.html")?),
        ("md", export(&["--redact"], "red.md")?),
        ("jsonl", export(&["--redact"], "red.jsonl")?),
    ];
    for (format, text) in &outputs {
        for (kind, value) in credentials() {
            let escaped = serde_json::to_string(&value)?;
            let escaped = escaped.trim_matches('"');
            assert!(
                !text.contains(&value) && !text.contains(escaped),
                "{kind} survives in the {format} output"
            );
        }
        assert!(text.contains("[REDACTED"), "{format}");
    }
    for kind in [
        "aws secret key",
        "stripe key",
        "url password",
        "secret assignment",
    ] {
        assert!(
            shared.stderr.contains(kind),
            "{kind} not reported: {shared}"
        );
    }
    Ok(())
}
