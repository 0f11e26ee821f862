//! The remote store end to end: two homes stand for two machines, sharing a real
//! S3-compatible server (moto) started by the test, sometimes through a proxy that plays the
//! network; `hotl remote check` against one that keeps conditional writes and one that does
//! not (s3rver).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};

use hotl_testkit::{TestResult, require};

use crate::common::{Env, Run, run};

mod acp;
mod faults;
mod picker;
mod proxy;
mod real_store;
mod search;
mod sync;

/// A server on loopback, stopped on drop.
pub struct Server {
    child: Child,
    pub port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> TestResult<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Waits until the server accepts connections (it says nothing when it is ready).
pub fn wait_for(port: u16, child: &mut Child) -> TestResult {
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
pub fn moto() -> TestResult<Option<Server>> {
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
pub fn machine(server: &Server, ttl: u64) -> TestResult<Env> {
    machine_at(server.port, ttl)
}

/// A machine whose `[remote]` reaches the store on `port` (the server's, or a proxy's).
pub fn machine_at(port: u16, ttl: u64) -> TestResult<Env> {
    let env = Env::new()?;
    let config = env.root().join(".config/hotl");
    std::fs::create_dir_all(&config)?;
    std::fs::write(
        config.join("config.toml"),
        format!(
            "[remote]\nname = \"team\"\nurl = \"s3://sessions/team\"\nendpoint = \"http://127.0.0.1:{port}\"\nallow_http = true\nlease_ttl_sec = {ttl}\n"
        ),
    )?;
    Ok(env)
}

/// `hotl <args>` on `env` as machine `host`, with the store's credentials and the demo
/// provider.
pub fn hotl(env: &Env, host: &str, args: &[&str]) -> Run {
    run(command(env, host, "test", args))
}

/// [`hotl`] with the key pair `key` (both halves).
pub fn hotl_as(env: &Env, host: &str, key: &str, args: &[&str]) -> Run {
    run(command(env, host, key, args))
}

/// The command [`hotl`] runs (`HOTL_HOSTNAME` names the machine in leases and listings).
pub fn command(env: &Env, host: &str, key: &str, args: &[&str]) -> Command {
    let mut cmd = env.command();
    cmd.env("AWS_ACCESS_KEY_ID", key)
        .env("AWS_SECRET_ACCESS_KEY", key)
        .env("HOTL_PROVIDER", "demo")
        .env("HOTL_HOSTNAME", host)
        .args(args);
    cmd
}

/// [`command`] against the fake provider.
pub fn command_with(env: &Env, host: &str, fake: &hotl_fakellm::FakeLlm, args: &[&str]) -> Command {
    let mut cmd = env.command_against("anthropic", fake, crate::common::MODEL);
    // The machine's config.toml, which agent runs otherwise do without.
    cmd.env("XDG_CONFIG_HOME", env.root().join(".config"))
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("HOTL_HOSTNAME", host)
        .args(args);
    cmd
}

/// The bucket as the test reads it (not through hotl).
pub fn bucket(server: &Server) -> TestResult<object_store::aws::AmazonS3> {
    // Opening a store installs the TLS provider hotl's HTTP clients use.
    hotl_remote::Bucket::open(&hotl_remote::RemoteConfig::new("s3://sessions"), None)?;
    Ok(object_store::aws::AmazonS3Builder::new()
        .with_bucket_name("sessions")
        .with_region("us-east-1")
        .with_endpoint(format!("http://127.0.0.1:{}", server.port))
        .with_allow_http(true)
        .with_access_key_id("test")
        .with_secret_access_key("test")
        .build()?)
}

/// A runtime for the test's own requests.
pub fn runtime() -> TestResult<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

/// Takes `root`'s lease as a hotl process on the machine "far-away" (pid 777) would.
pub fn hold_lease(server: &Server, root: &str) -> TestResult {
    let home = tempfile::tempdir()?;
    let mut cfg = hotl_remote::RemoteConfig::new("s3://sessions/team");
    cfg.lease_ttl_sec = 2;
    let store = std::sync::Arc::new(bucket(server)?);
    let bucket = hotl_remote::Bucket::from_store(store, "team", &cfg.url, None);
    let remote = hotl_remote::Remote::new(bucket, cfg, None, hotl_log::Store::new(home.path()))
        .with_me(hotl_remote::Me {
            nonce: "far-away-process".to_owned(),
            host: "far-away".to_owned(),
            pid: 777,
        });
    runtime()?.block_on(remote.acquire(root))?;
    Ok(())
}

/// Each segment of `session` in tree `root` in the bucket: the first and last seq it holds,
/// read from its header, in order.
pub fn segments(server: &Server, root: &str, session: &str) -> TestResult<Vec<(u64, u64)>> {
    use futures_util::TryStreamExt;
    use object_store::{ObjectStore, ObjectStoreExt};
    let s3 = bucket(server)?;
    let prefix = object_store::path::Path::from(format!("team/trees/{root}/{session}"));
    runtime()?.block_on(async {
        let listed: Vec<object_store::ObjectMeta> = s3.list(Some(&prefix)).try_collect().await?;
        let mut out = Vec::new();
        for meta in listed {
            let bytes = s3.get(&meta.location).await?.bytes().await?;
            let head = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
            let header: serde_json::Value = serde_json::from_slice(head)?;
            let seq = |k: &str| header[k].as_u64().ok_or(format!("no {k} in {header}"));
            out.push((seq("start")?, seq("last")?));
        }
        out.sort_unstable();
        Ok(out)
    })
}

/// Panics unless `segments` follow one another: each starts right after the one before it
/// ends (nothing published twice, nothing left out).
#[track_caller]
pub fn assert_chained(segments: &[(u64, u64)]) {
    assert!(!segments.is_empty(), "no segments");
    for pair in segments.windows(2) {
        assert_eq!(pair[1].0, pair[0].1 + 1, "{segments:?}");
    }
}

pub fn first_id(list: &Run) -> TestResult<String> {
    let rows: serde_json::Value = serde_json::from_str(&list.stdout)?;
    Ok(rows[0]["id"]
        .as_str()
        .ok_or("no session listed")?
        .to_owned())
}
