//! `hotl sessions share`, `/share` and `hotl share-server`: sealed with a fresh key the server
//! never sees, redacted by default, trimmed to the store's limit, stored on the server, as a
//! gist, or by the user's own command.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use base64::Engine as _;
use hotl_log::{Block, Body, Store};
use hotl_testkit::{LogBuilder, TestResult};
use serde_json::json;

use crate::common::{Env, console, fake_answering, run};
use crate::export::{CHILD, rich};

/// A `hotl share-server` on a free port, its requests logged.
pub struct ShareServer {
    child: Child,
    pub url: String,
    pub dir: PathBuf,
    pub log: PathBuf,
}

impl ShareServer {
    pub fn start(env: &Env, extra: &[&str]) -> TestResult<ShareServer> {
        let dir = env.root().join("shares");
        let log = env.root().join("requests.log");
        let mut cmd = env.command();
        cmd.args(["share-server", "--port", "0", "--dir"])
            .arg(&dir)
            .arg("--request-log")
            .arg(&log)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn()?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let url = line
            .trim()
            .strip_prefix("hotl share-server listening on ")
            .ok_or_else(|| format!("unexpected first line {line:?}"))?
            .to_owned();
        Ok(ShareServer {
            child,
            url,
            dir,
            log,
        })
    }

    /// Everything the server was sent and keeps: its request log and its stored blobs.
    pub fn everything_seen(&self) -> TestResult<Vec<u8>> {
        let mut all = std::fs::read(&self.log).unwrap_or_default();
        for entry in std::fs::read_dir(&self.dir)? {
            all.extend(std::fs::read(entry?.path())?);
        }
        Ok(all)
    }
}

impl Drop for ShareServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An answer: its status, its headers (names lowercased), its body.
pub type Answer = (u16, Vec<(String, String)>, Vec<u8>);

/// A plain HTTP/1.1 exchange.
pub fn http(
    url: &str,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: &[u8],
) -> TestResult<Answer> {
    let host = url.strip_prefix("http://").ok_or("not http")?;
    let mut stream = TcpStream::connect(host)?;
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(ct) = content_type {
        request.push_str(&format!("Content-Type: {ct}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes())?;
    stream.write_all(body)?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no header end")?;
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Ok((status, headers, response[split + 4..].to_vec()))
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The share's id and key from its link.
fn parts(link: &str) -> TestResult<(String, String)> {
    let (path, key) = link.split_once('#').ok_or("no fragment")?;
    let id = path.rsplit('/').next().ok_or("no id")?.to_owned();
    Ok((id, key.to_owned()))
}

/// The document a link opens (decrypted as the viewer would).
pub fn open(server: &ShareServer, link: &str) -> TestResult<serde_json::Value> {
    let (id, key) = parts(link)?;
    let (status, _, sealed) = http(&server.url, "GET", &format!("/s/{id}/raw"), None, b"")?;
    assert_eq!(status, 200);
    Ok(serde_json::from_slice(&hotl_export::seal::open(
        &sealed, &key,
    )?)?)
}

fn share(env: &Env, server: &ShareServer, id: &str, extra: &[&str]) -> crate::common::Run {
    let mut cmd = env.command();
    cmd.args(["sessions", "share", id, "--server", &server.url])
        .args(extra);
    run(cmd)
}

#[test]
fn the_server_keeps_to_its_contract() -> TestResult {
    let env = Env::new()?;
    let server = ShareServer::start(&env, &["--max-bytes", "1000"])?;
    let (status, _, _) = http(
        &server.url,
        "POST",
        "/s",
        Some("text/plain"),
        b"0123456789abcdefghijklmnopqrstuvwxyz",
    )?;
    assert_eq!(status, 415, "a wrong content type");
    let (status, _, _) = http(
        &server.url,
        "POST",
        "/s",
        Some("application/octet-stream"),
        &[7u8; 1001],
    )?;
    assert_eq!(status, 413, "over the limit");
    let (status, headers, body) = http(
        &server.url,
        "POST",
        "/s",
        Some("application/octet-stream"),
        &[7u8; 1000],
    )?;
    assert_eq!(status, 201);
    assert_eq!(header(&headers, "cache-control"), Some("no-store"));
    let id = serde_json::from_slice::<serde_json::Value>(&body)?["id"]
        .as_str()
        .ok_or("no id")?
        .to_owned();
    assert!((10..=64).contains(&id.len()), "{id}");
    assert!(
        id.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "{id}"
    );
    assert!(
        !id.bytes().all(|b| b.is_ascii_hexdigit()),
        "never pure hex: {id}"
    );
    let (status, headers, blob) = http(&server.url, "GET", &format!("/s/{id}/raw"), None, b"")?;
    assert_eq!(status, 200);
    assert_eq!(blob, vec![7u8; 1000]);
    assert_eq!(
        header(&headers, "content-type"),
        Some("application/octet-stream")
    );
    assert_eq!(header(&headers, "cache-control"), Some("no-store"));
    assert_eq!(header(&headers, "referrer-policy"), Some("no-referrer"));
    let (status, headers, page) = http(&server.url, "GET", &format!("/s/{id}"), None, b"")?;
    assert_eq!(status, 200);
    let policy = header(&headers, "content-security-policy").ok_or("no policy")?;
    assert!(
        policy.contains("default-src 'none'") && policy.contains("connect-src 'self'"),
        "{policy}"
    );
    assert!(String::from_utf8_lossy(&page).contains(&format!("content=\"{id}\"")));
    for path in [
        "/s/NoSuchShare0",
        "/s/NoSuchShare0/raw",
        "/s/../../etc/passwd",
        "/nothing",
    ] {
        let (status, _, _) = http(&server.url, "GET", path, None, b"")?;
        assert_eq!(status, 404, "{path}");
    }
    Ok(())
}

#[test]
fn a_share_opens_with_its_key_which_the_server_never_sees() -> TestResult {
    let env = Env::new()?;
    let rich = rich(&env)?;
    let server = ShareServer::start(&env, &[])?;
    let out = share(&env, &server, &rich.root, &[]).ok();
    let link = out.line().to_owned();
    assert!(link.starts_with(&format!("{}/s/", server.url)), "{out}");
    let (id, key) = parts(&link)?;
    assert_eq!(key.len(), 43, "32 bytes, base64url without padding");
    let doc = open(&server, &link)?;
    assert_eq!(doc["format"], "hotl-export/1");
    let html = doc["html"].as_str().ok_or("no rendered body")?;
    assert!(
        html.contains("CHILD-TOKEN-BETA"),
        "children are in the share"
    );
    assert!(
        html.contains("ARCHIVED-TOKEN-ALPHA"),
        "archived items are in the share"
    );
    // Let the viewer's requests reach the log too.
    http(&server.url, "GET", &format!("/s/{id}"), None, b"")?;
    http(&server.url, "GET", &format!("/s/{id}/raw"), None, b"")?;
    let seen = server.everything_seen()?;
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(&key)?;
    let encodings = [
        key.as_bytes().to_vec(),
        base64::engine::general_purpose::STANDARD
            .encode(&raw)
            .into_bytes(),
        raw.iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
            .into_bytes(),
        raw.clone(),
    ];
    for encoding in encodings {
        assert!(
            !seen
                .windows(encoding.len())
                .any(|w| w == encoding.as_slice()),
            "the key reached the server"
        );
    }
    // A second share of the same session: another key, another IV.
    let again = share(&env, &server, &rich.root, &[]).ok();
    let (_, key2) = parts(again.line())?;
    assert_ne!(key, key2);
    Ok(())
}

/// Secrets of every kind, each placed somewhere else in a session.
fn secret_session(env: &Env) -> TestResult<(String, Vec<String>)> {
    let anthropic = format!("sk-ant-api03-{}", "A".repeat(40));
    let github = format!("ghp_{}", "b1C2".repeat(9));
    let pat = format!("github_pat_{}", "D3".repeat(20));
    let gitlab = format!("glpat-{}", "e".repeat(20));
    let aws = "AKIAQWERTYUIOPASDFGH".to_owned();
    let slack = "xoxb-1234567890-abcdefghij".to_owned();
    let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----".to_owned();
    let jwt = format!(
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyMTIzNDUifQ.{}",
        "S".repeat(30)
    );
    let env_secret = "value-from-the-environment-42".to_owned();
    let configured = "configured-plain-secret-77".to_owned();
    let old_link = format!("http://127.0.0.1:9/s/OldShareId01#{}", "K".repeat(43));
    let home_path = format!("{}/notes/private.txt", env.root().display());
    let id = "01JE0000000000000000000S01";
    let mut log = LogBuilder::new(id, &env.cwd());
    log.record(Body::title(format!("deploy with {aws}")));
    let first = log.user(&format!("use {anthropic} and read {home_path}"));
    log.record(Body::Assistant {
        content: vec![
            Block::Thinking {
                thinking: format!("the token {github} looks handy"),
                signature: Some("SIGNATURE-OF-THE-PROVIDER".to_owned()),
            },
            Block::RedactedThinking {
                data: "ENCRYPTED-REASONING-BLOB".to_owned(),
            },
            Block::ToolUse {
                id: "call_s1".to_owned(),
                name: "bash".to_owned(),
                input: json!({"command": format!("curl -H 'PRIVATE-TOKEN: {gitlab}' x")}).into(),
            },
        ],
        model: Some("demo".to_owned()),
        stop: Some("tool_use".to_owned()),
        stop_raw: None,
        usage: None,
    });
    log.tool_result("call_s1", &format!("{pat}\n{pem}\n{slack}"));
    let last = log.assistant(&format!("done; the old share was {old_link}"));
    log.fold(
        first,
        last,
        "a1b2c3d4",
        &format!("learned: the JWT is {jwt}"),
    );
    log.user(&format!("and MY_API_KEY={env_secret} and {configured}"));
    log.assistant("ok");
    log.record(Body::Compaction {
        until: log.seq(),
        summary: format!("summary: keys {anthropic} were used"),
    });
    log.user("after the compaction");
    log.assistant("fine");
    let mut child = LogBuilder::delegated(
        CHILD,
        &env.cwd(),
        hotl_log::Delegation {
            by: id.to_owned(),
            description: format!("check {github}"),
            handle: Some("kid".to_owned()),
            at: Some(first),
            ..Default::default()
        },
    );
    child.user(&format!("the child saw {anthropic}"));
    child.assistant("child done");
    Store::new(&env.home).create_encoded((id, &log.text()), &[(CHILD.to_owned(), child.text())])?;
    let secrets = vec![
        anthropic,
        github,
        pat,
        gitlab,
        aws,
        slack,
        pem,
        jwt,
        env_secret,
        configured,
        old_link,
        env.root().display().to_string(),
    ];
    Ok((id.to_owned(), secrets))
}

fn write_config(env: &Env, toml: &str) -> TestResult<PathBuf> {
    let dir = env.root().join("config/hotl");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("config.toml");
    std::fs::write(&path, toml)?;
    Ok(path)
}

#[test]
fn shares_are_redacted_by_default_everywhere() -> TestResult {
    let env = Env::new()?;
    let (id, secrets) = secret_session(&env)?;
    write_config(
        &env,
        "[share]\nsecrets = [\"configured-plain-secret-77\"]\n",
    )?;
    let server = ShareServer::start(&env, &[])?;
    let mut cmd = env.agent_command();
    cmd.env("MY_API_KEY", "value-from-the-environment-42")
        .args(["sessions", "share", &id, "--server", &server.url]);
    let out = run(cmd).ok();
    for kind in [
        "anthropic key",
        "github token",
        "gitlab token",
        "aws access key",
        "slack token",
        "private key",
        "jwt",
        "environment secret",
        "configured secret",
        "share link",
        "home directory",
    ] {
        assert!(out.stderr.contains(kind), "{kind} not reported: {out}");
    }
    let doc = open(&server, out.line())?;
    let text = doc.to_string();
    for secret in &secrets {
        let escaped = serde_json::to_string(secret)?;
        let escaped = escaped.trim_matches('"');
        assert!(!text.contains(escaped), "{secret} is in the share");
        assert!(
            !out.stderr.contains(secret.as_str()),
            "the report holds no values"
        );
    }
    assert!(text.contains("[REDACTED anthropic key]"));
    assert!(text.contains("~/notes/private.txt"), "the home became ~");
    for opaque in ["SIGNATURE-OF-THE-PROVIDER", "ENCRYPTED-REASONING-BLOB"] {
        assert!(!text.contains(opaque), "{opaque} is in the share");
    }
    assert!(
        text.contains("CHILD-") || text.contains("the child saw"),
        "the child is shared"
    );
    Ok(())
}

#[test]
fn no_redact_shares_as_it_is_and_warns() -> TestResult {
    let env = Env::new()?;
    let (id, secrets) = secret_session(&env)?;
    let server = ShareServer::start(&env, &[])?;
    let out = share(&env, &server, &id, &["--no-redact"]).ok();
    assert!(out.stderr.contains("warning: redaction is off"), "{out}");
    let doc = open(&server, out.line())?;
    assert!(doc.to_string().contains(&secrets[0]));
    Ok(())
}

#[test]
fn an_ordinary_session_shares_unchanged() -> TestResult {
    let env = Env::new()?;
    let id = env.import(&env.log_with_turns("01JE0000000000000000000N01", 2))?;
    let server = ShareServer::start(&env, &[])?;
    let out = share(&env, &server, &id, &[]).ok();
    // The project lives under HOME: only that is redacted.
    let reported: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(reported, ["hotl: redacted: 1 home directory"], "{out}");
    let doc = open(&server, out.line())?;
    let exported = env
        .run(&[
            "sessions", "export", &id, "--format", "jsonl", "-o", "x.jsonl",
        ])
        .ok();
    let log = std::fs::read_to_string(exported.line())?;
    // The project path is under the test's HOME: written as ~ in the share.
    let home = env.root().display().to_string();
    assert_eq!(doc["log"].as_str(), Some(log.replace(&home, "~").as_str()));
    Ok(())
}

#[test]
fn an_oversized_session_is_trimmed_in_order_or_refused() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log("01JE0000000000000000000T01");
    let noise = |i: u64| -> String {
        // Text that compresses badly (xorshift letters), so sizes stay large once sealed.
        let mut x = 0x9E37_79B9_7F4A_7C15_u64 ^ (i + 1);
        (0..40_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'a' + (x % 26) as u8)
            })
            .collect()
    };
    for i in 0..8 {
        log.user(&format!("turn {i}"));
        let (_, call) = log.tool_call("bash", json!({"command": "cat big"}));
        log.tool_result(&call, &noise(i));
        log.assistant("ok");
    }
    // An image: the first thing to go.
    use base64::Engine as _;
    let pixels: Vec<u8> = noise(99).into_bytes();
    log.record(Body::User {
        content: vec![Block::Image {
            media_type: "image/png".to_owned(),
            data: Some(base64::engine::general_purpose::STANDARD.encode(&pixels)),
            blob: None,
        }],
    });
    log.assistant("a picture");
    let id = env.import(&log)?;
    let server = ShareServer::start(&env, &["--max-bytes", "60000"])?;
    let out = share(&env, &server, &id, &["--max-bytes", "60000"]).ok();
    let steps: Vec<&str> = out
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("hotl: trimmed: "))
        .collect();
    assert!(steps.len() >= 2, "{out}");
    assert_eq!(steps[0], "1 image replaced by a placeholder", "{steps:?}");
    assert!(
        steps.iter().any(|s| s.contains("strings cut to")),
        "{steps:?}"
    );
    let doc = open(&server, out.line())?;
    assert_eq!(doc["trimmed"].as_array().map(Vec::len), Some(steps.len()));
    assert!(
        doc["html"]
            .as_str()
            .unwrap_or("")
            .contains("Trimmed to fit:")
    );
    let refused = share(&env, &server, &id, &["--max-bytes", "200"]).fails(1);
    assert!(
        refused.stderr.contains("too large") && refused.stderr.contains("limit of 200 bytes"),
        "{refused}"
    );
    Ok(())
}

fn fake_gh(env: &Env, logged_in: bool) -> TestResult<PathBuf> {
    let bin = env.root().join("bin");
    std::fs::create_dir_all(&bin)?;
    let record = env.root().join("gh-calls");
    let script = format!(
        "#!/bin/sh\necho \"$@\" >> '{}'\nif [ \"$1\" = auth ]; then exit {}; fi\nfor last; do :; done\ncp \"$last\" '{}'\necho https://gist.github.com/someone/0123456789abcdef0123456789abcdef\n",
        record.display(),
        if logged_in { 0 } else { 1 },
        env.root().join("gist-content").display()
    );
    let gh = bin.join("gh");
    std::fs::write(&gh, script)?;
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755))?;
    Ok(bin)
}

fn with_path(cmd: &mut Command, dir: &Path) {
    let path = std::env::var("PATH").unwrap_or_default();
    cmd.env("PATH", format!("{}:{path}", dir.display()));
}

#[test]
fn a_gist_share_goes_through_gh_and_falls_back_without_it() -> TestResult {
    let env = Env::new()?;
    let id = env.import(&env.log_with_turns("01JE0000000000000000000G02", 1))?;
    let server = ShareServer::start(&env, &[])?;
    let bin = fake_gh(&env, true)?;
    let mut cmd = env.command();
    with_path(&mut cmd, &bin);
    cmd.args(["sessions", "share", &id, "--gist", "--server", &server.url]);
    let out = run(cmd).ok();
    let link = out.line();
    assert!(
        link.starts_with(&format!(
            "{}/s/0123456789abcdef0123456789abcdef#",
            server.url
        )),
        "{out}"
    );
    let calls = std::fs::read_to_string(env.root().join("gh-calls"))?;
    let create = calls
        .lines()
        .find(|l| l.starts_with("gist create"))
        .ok_or("no gist create")?;
    assert!(
        create.starts_with("gist create --public=false "),
        "{create}"
    );
    assert!(create.ends_with("session.hotlshare.txt"), "{create}");
    let file = create.rsplit(' ').next().ok_or("no file")?;
    assert!(!Path::new(file).exists(), "the temporary file is removed");
    let sealed = base64::engine::general_purpose::STANDARD
        .decode(std::fs::read_to_string(env.root().join("gist-content"))?.trim())?;
    let (_, key) = parts(link)?;
    let doc: serde_json::Value = serde_json::from_slice(&hotl_export::seal::open(&sealed, &key)?)?;
    assert_eq!(doc["format"], "hotl-export/1");
    // The server's viewer routes the hex id to the gist API.
    let (status, _, page) = http(
        &server.url,
        "GET",
        "/s/0123456789abcdef0123456789abcdef",
        None,
        b"",
    )?;
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&page).contains("hotl-gist-api"));

    std::fs::remove_file(env.root().join("gh-calls"))?;
    let bin = fake_gh(&env, false)?;
    let mut cmd = env.command();
    with_path(&mut cmd, &bin);
    cmd.args(["sessions", "share", &id, "--gist", "--server", &server.url]);
    let out = run(cmd).ok();
    assert!(out.stderr.contains("gh is not logged in"), "{out}");
    assert!(out.stderr.contains("through the server instead"), "{out}");
    open(&server, out.line())?;
    Ok(())
}

#[test]
fn a_share_command_gets_the_page_and_prints_the_link() -> TestResult {
    let env = Env::new()?;
    let id = env.import(&env.log_with_turns("01JE0000000000000000000H01", 1))?;
    let script = env.root().join("publish");
    let copy = env.root().join("published.html");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncp \"$1\" '{}'\necho \"https://pages.example/$(basename \"$1\")\"\n",
            copy.display()
        ),
    )?;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    write_config(
        &env,
        &format!("[share]\ncommand = \"{}\"\n", script.display()),
    )?;
    let mut cmd = env.agent_command();
    cmd.args(["sessions", "share", &id]);
    let out = run(cmd).ok();
    assert_eq!(out.line(), format!("https://pages.example/{id}.html"));
    let page = std::fs::read_to_string(&copy)?;
    assert!(
        page.contains("hotl-export") || page.contains("id=\"hotl-data\""),
        "an exported page"
    );
    std::fs::write(&script, "#!/bin/sh\necho cannot publish >&2\nexit 3\n")?;
    let mut cmd = env.agent_command();
    cmd.args(["sessions", "share", &id, "--server", "http://127.0.0.1:9"]);
    let out = run(cmd).fails(1);
    assert!(out.stderr.contains("cannot publish"), "{out}");
    assert!(
        !out.stderr.contains("127.0.0.1:9"),
        "no fallback was tried: {out}"
    );
    Ok(())
}

#[test]
fn no_server_configured_says_how_to_get_one() -> TestResult {
    let env = Env::new()?;
    let id = env.import(&env.log_with_turns("01JE0000000000000000000J01", 1))?;
    let out = env.run(&["sessions", "share", &id]).fails(1);
    assert!(
        out.stderr.contains("no share server is configured"),
        "{out}"
    );
    assert!(out.stderr.contains("hotl share-server"), "{out}");
    Ok(())
}

#[test]
fn share_works_from_a_session_kept_in_memory() -> TestResult {
    let env = Env::new()?;
    let server = ShareServer::start(&env, &[])?;
    write_config(&env, &format!("[share]\nserver = \"{}\"\n", server.url))?;
    let fake = fake_answering(1)?;
    let Some(out) = console(
        &env,
        &fake,
        &["--no-session"],
        "hello from memory\n/share\n/exit\n",
    )?
    else {
        return Ok(());
    };
    let link = out
        .stdout
        .lines()
        .find_map(|l| l.split("shared: ").nth(1))
        .ok_or_else(|| format!("no link:\n{out}"))?
        .trim()
        .to_owned();
    let doc = open(&server, &link)?;
    assert!(
        doc["html"]
            .as_str()
            .unwrap_or("")
            .contains("hello from memory")
    );
    assert!(
        !env.home.join("sessions").exists(),
        "nothing was written to the home"
    );
    Ok(())
}

#[test]
fn a_server_that_takes_the_connection_and_never_answers_is_told_so() -> TestResult {
    let env = Env::new()?;
    let id = env.import(&env.log_with_turns("01JE0000000000000000000J02", 1))?;
    // Accepts every connection and holds it, saying nothing.
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}", listener.local_addr()?);
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    write_config(&env, "[share]\ntimeout_sec = 1\n")?;
    let mut cmd = env.agent_command();
    cmd.args(["sessions", "share", &id, "--server", &url]);
    let out = run(cmd).fails(1);
    assert!(
        out.stderr
            .contains("took the connection but did not answer within 1 s"),
        "{out}"
    );
    assert!(!out.stderr.contains("cannot reach"), "{out}");
    Ok(())
}

#[test]
fn the_server_limits_each_client_its_total_and_how_long_it_keeps_shares() -> TestResult {
    let env = Env::new()?;
    let blob = vec![7u8; 1000];
    let post = |server: &ShareServer| -> TestResult<(u16, Vec<u8>)> {
        let (status, _, body) = http(
            &server.url,
            "POST",
            "/s",
            Some("application/octet-stream"),
            &blob,
        )?;
        Ok((status, body))
    };
    // Three uploads a minute from one address: the fourth is refused, saying when to retry.
    let server = ShareServer::start(&env, &["--uploads-per-minute", "3"])?;
    for _ in 0..3 {
        assert_eq!(post(&server)?.0, 201);
    }
    let (status, body) = post(&server)?;
    assert_eq!(status, 429, "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).contains("try again in"));
    drop(server);

    // 2,500 bytes in all: the third share of 1,000 does not fit.
    let env = Env::new()?;
    let server = ShareServer::start(
        &env,
        &["--uploads-per-minute", "0", "--max-total-bytes", "2500"],
    )?;
    assert_eq!(post(&server)?.0, 201);
    let (status, body) = post(&server)?;
    assert_eq!(status, 201);
    let (full, said) = post(&server)?;
    assert_eq!(full, 507, "{}", String::from_utf8_lossy(&said));
    drop(server);

    // A share older than its time is gone, from the viewer and from the disk.
    let kept: serde_json::Value = serde_json::from_slice(&body)?;
    let id = kept["id"].as_str().ok_or("no id")?;
    let server = ShareServer::start(&env, &["--expire-after", "1h"])?;
    let path = server.dir.join(id);
    assert!(path.is_file());
    let aged = Command::new("touch")
        .args(["-d", "2 hours ago"])
        .arg(&path)
        .status()?;
    assert!(aged.success());
    let (status, _, _) = http(&server.url, "GET", &format!("/s/{id}/raw"), None, b"")?;
    assert_eq!(status, 404);
    assert!(!path.exists(), "the expired share is removed");
    Ok(())
}
