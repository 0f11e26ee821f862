//! The remote store end to end: two homes stand for two machines, sharing a real
//! S3-compatible server (moto) started by the test; `hotl remote check` against one that
//! keeps conditional writes and one that does not (s3rver).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};

use hotl_testkit::{TestResult, require};

use crate::common::{Env, Run, run};

/// A server on loopback, stopped on drop.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> TestResult<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Waits until the server accepts connections (it says nothing when it is ready).
fn wait_for(port: u16, child: &mut Child) -> TestResult {
    for _ in 0..400 {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        if let Some(status) = child.try_wait()? {
            return Err(format!("the server exited: {status}").into());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Err("the server never listened".into())
}

/// A raw HTTP request to the server; returns the status line.
fn http(port: u16, method: &str, path: &str, body: &[u8]) -> TestResult<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body)?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    Ok(answer.lines().next().unwrap_or_default().to_owned())
}

/// moto's server from `HOTL_MOTO_SERVER` or the PATH, with a bucket `sessions`.
fn moto() -> TestResult<Option<Server>> {
    let program = std::env::var("HOTL_MOTO_SERVER").unwrap_or_else(|_| "moto_server".to_owned());
    let present = Command::new(&program)
        .arg("--help")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !require("moto_server (pip install 'moto[server]==5.2.5')", present)? {
        return Ok(None);
    }
    let port = free_port()?;
    let mut child = Command::new(&program)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    wait_for(port, &mut child)?;
    let created = http(port, "PUT", "/sessions", b"")?;
    assert!(created.contains("200"), "{created}");
    Ok(Some(Server { child, port }))
}

/// A machine: its home, and `[remote]` pointing at the server.
fn machine(server: &Server, ttl: u64) -> TestResult<Env> {
    let env = Env::new()?;
    let config = env.root().join(".config/hotl");
    std::fs::create_dir_all(&config)?;
    std::fs::write(
        config.join("config.toml"),
        format!(
            "[remote]\nname = \"team\"\nurl = \"s3://sessions/team\"\nendpoint = \"http://127.0.0.1:{}\"\nallow_http = true\nlease_ttl_sec = {ttl}\n",
            server.port
        ),
    )?;
    Ok(env)
}

/// `hotl <args>` on `env` with the store's credentials and the demo provider.
fn hotl(env: &Env, host: &str, args: &[&str]) -> Run {
    hotl_as(env, host, "test", args)
}

/// [`hotl`] with the key pair `key` (both halves).
fn hotl_as(env: &Env, host: &str, key: &str, args: &[&str]) -> Run {
    let mut cmd = env.command();
    cmd.env("AWS_ACCESS_KEY_ID", key)
        .env("AWS_SECRET_ACCESS_KEY", key)
        .env("HOTL_PROVIDER", "demo")
        .env("HOTL_HOSTNAME", host)
        .args(args);
    run(cmd)
}

/// Takes `root`'s lease as a hotl process on the machine "far-away" (pid 777) would.
fn hold_lease(server: &Server, root: &str) -> TestResult {
    // Opening a store installs the TLS provider hotl's HTTP clients use.
    hotl_remote::Bucket::open(&hotl_remote::RemoteConfig::new("s3://sessions"), None)?;
    let s3 = object_store::aws::AmazonS3Builder::new()
        .with_bucket_name("sessions")
        .with_region("us-east-1")
        .with_endpoint(format!("http://127.0.0.1:{}", server.port))
        .with_allow_http(true)
        .with_access_key_id("test")
        .with_secret_access_key("test")
        .build()?;
    let home = tempfile::tempdir()?;
    let mut cfg = hotl_remote::RemoteConfig::new("s3://sessions/team");
    cfg.lease_ttl_sec = 2;
    let bucket = hotl_remote::Bucket::from_store(std::sync::Arc::new(s3), "team", &cfg.url, None);
    let remote = hotl_remote::Remote::new(bucket, cfg, None, hotl_log::Store::new(home.path()))
        .with_me(hotl_remote::Me {
            nonce: "far-away-process".to_owned(),
            host: "far-away".to_owned(),
            pid: 777,
        });
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(remote.acquire(root))?;
    Ok(())
}

fn first_id(list: &Run) -> TestResult<String> {
    let rows: serde_json::Value = serde_json::from_str(&list.stdout)?;
    Ok(rows[0]["id"]
        .as_str()
        .ok_or("no session listed")?
        .to_owned())
}

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
