//! Helper processes: this test binary re-executed in a role (appender, lock holder), so tests
//! exercise real processes, real kills and real OS locks.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Command, Stdio};

use hotl_log::{Block, Body, Store};

const ROLE: &str = "HOTL_TEST_CHILD_ROLE";
const HOME: &str = "HOTL_TEST_CHILD_HOME";
const SESSION: &str = "HOTL_TEST_CHILD_SESSION";

/// Starts this test binary as a helper process in `role` on `session` in `home`.
pub fn spawn(role: &str, home: &std::path::Path, session: &str) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(std::env::current_exe().expect("test binary path"))
        .args([
            "--exact",
            "child::child_role",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ROLE, role)
        .env(HOME, home)
        .env(SESSION, session)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the test binary can re-run itself");
    let stdout = BufReader::new(child.stdout.take().expect("piped"));
    (child, stdout)
}

/// Reads the helper's lines until one holds `marker`; returns what follows it. (The harness
/// may print its own text before the first marker on the same line.)
pub fn wait_for(out: &mut BufReader<ChildStdout>, marker: &str) -> Option<String> {
    let mut line = String::new();
    loop {
        line.clear();
        if out.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some(at) = line.find(marker) {
            return Some(line[at + marker.len()..].trim_end().to_owned());
        }
    }
}

/// Not a test of its own: the entry point of helper processes. Without the role variable it
/// does nothing.
#[test]
fn child_role() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let store = Store::new(std::env::var(HOME).expect("home"));
    let session = std::env::var(SESSION).expect("session");
    let mut stdout = std::io::stdout();
    match role.as_str() {
        // Appends records of varied sizes forever, acknowledging each after it returned (it is
        // then written and synced).
        "appender" => {
            let mut writer = store.writer(&session).expect("the appender gets the lock");
            let mut n: u64 = 0;
            loop {
                n += 1;
                let size = [10usize, 300, 5_000, 120_000, 900_000][(n % 5) as usize];
                let record = writer
                    .append(Body::ToolResult {
                        call: format!("c{n}"),
                        content: vec![Block::text("x".repeat(size))],
                        blob: None,
                        is_error: false,
                        files: Vec::new(),
                    })
                    .expect("append");
                writeln!(stdout, "ACK {}", record.seq).expect("stdout");
                stdout.flush().expect("stdout");
            }
        }
        // Holds the tree lock until killed.
        "holder" => {
            let _writer = store.writer(&session).expect("the holder gets the lock");
            writeln!(stdout, "LOCKED").expect("stdout");
            stdout.flush().expect("stdout");
            loop {
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
        }
        other => panic!("unknown role {other}"),
    }
}
