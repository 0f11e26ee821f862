//! A TCP proxy between hotl and the test's S3 server that plays the network: it can hold the
//! answer to one request (the request reaches the server: what it writes lands, and hotl waits
//! for an answer that never comes), hold a request back (nothing lands), or drop every
//! connection and refuse new ones, then come back. Bytes are passed as they come; only request
//! lines are looked at.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use hotl_testkit::TestResult;

/// What the proxy does with a request whose first line matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// Forward the request, keep its answer.
    Answer,
    /// Keep the request from the server.
    Request,
}

#[derive(Default)]
struct State {
    /// Request lines must hold every one of these to be held.
    pattern: Vec<String>,
    hold: Option<Hold>,
    /// A request or an answer is held now (the request line).
    held: Option<String>,
    /// The held request's answer came from the server (what it wrote landed).
    answered: bool,
    /// What is held.
    holding: Option<Hold>,
    /// The network is down: connections are dropped, new ones refused.
    down: bool,
    /// Open connections (both ends), to drop them.
    open: Vec<TcpStream>,
}

/// The proxy (see the module docs). Listens on loopback until dropped.
pub struct Proxy {
    pub port: u16,
    upstream: u16,
    state: Arc<(Mutex<State>, Condvar)>,
}

impl Proxy {
    /// A proxy to `127.0.0.1:upstream`.
    pub fn start(upstream: u16) -> TestResult<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let proxy = Proxy {
            port,
            upstream,
            state: Arc::default(),
        };
        proxy.serve(listener);
        Ok(proxy)
    }

    fn serve(&self, listener: TcpListener) {
        let (state, upstream) = (Arc::clone(&self.state), self.upstream);
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let down = lock(&state).down;
                match TcpStream::connect(("127.0.0.1", upstream)) {
                    Ok(server) if !down => connect(&state, client, server),
                    // The network is down: the connection is closed at once.
                    _ => drop(client.shutdown(Shutdown::Both)),
                }
            }
        });
    }

    /// From now on, the first request whose line holds every word of `pattern` is held as
    /// `hold` says.
    pub fn hold(&self, hold: Hold, pattern: &[&str]) {
        let mut state = lock(&self.state);
        state.pattern = pattern.iter().map(|p| (*p).to_owned()).collect();
        state.hold = Some(hold);
    }

    /// Waits until a request is held, or the answer to one came from the server and is held;
    /// returns its request line.
    pub fn wait_held(&self) -> TestResult<String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        let (mutex, cond) = &*self.state;
        let mut state = mutex.lock().unwrap_or_else(|e| e.into_inner());
        while state.held.is_none() || (state.holding == Some(Hold::Answer) && !state.answered) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err("nothing was held".into());
            }
            state = cond
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        Ok(state.held.clone().unwrap_or_default())
    }

    /// The network drops: every connection is closed, new ones are refused.
    pub fn cut(&self) {
        let mut state = lock(&self.state);
        state.down = true;
        state.hold = None;
        for stream in state.open.drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
        self.state.1.notify_all();
    }

    /// The network is back, passing everything.
    pub fn restore(&self) {
        let mut state = lock(&self.state);
        state.down = false;
        state.held = None;
        state.hold = None;
        state.holding = None;
        state.answered = false;
    }
}

fn lock(state: &(Mutex<State>, Condvar)) -> std::sync::MutexGuard<'_, State> {
    state.0.lock().unwrap_or_else(|e| e.into_inner())
}

/// Passes bytes both ways between `client` and `server`, holding as the state says.
fn connect(state: &Arc<(Mutex<State>, Condvar)>, client: TcpStream, server: TcpStream) {
    let clones = (client.try_clone(), server.try_clone());
    let (Ok(client_in), Ok(server_in)) = clones else {
        return;
    };
    {
        let mut s = lock(state);
        for stream in [&client, &server] {
            if let Ok(stream) = stream.try_clone() {
                s.open.push(stream);
            }
        }
    }
    // Set when this connection's answer is to be kept from the client.
    let keep_answer = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (up_state, up_keep) = (Arc::clone(state), Arc::clone(&keep_answer));
    std::thread::spawn(move || requests(&up_state, client_in, server, &up_keep));
    let down_state = Arc::clone(state);
    std::thread::spawn(move || answers(&down_state, server_in, client, &keep_answer));
}

/// Client to server: each read is looked at for a request line to hold.
fn requests(
    state: &Arc<(Mutex<State>, Condvar)>,
    mut from: TcpStream,
    mut to: TcpStream,
    keep_answer: &std::sync::atomic::AtomicBool,
) {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        let line = String::from_utf8_lossy(chunk.split(|&b| b == b'\n').next().unwrap_or(&[]))
            .trim_end()
            .to_owned();
        let mut s = lock(state);
        let matches = s.held.is_none()
            && !s.pattern.is_empty()
            && s.pattern.iter().all(|p| line.contains(p.as_str()));
        match s.hold.filter(|_| matches) {
            Some(Hold::Request) => {
                s.held = Some(line);
                s.holding = Some(Hold::Request);
                s.hold = None;
                state.1.notify_all();
                // Nothing more goes up this connection.
                return;
            }
            Some(Hold::Answer) => {
                s.hold = None;
                keep_answer.store(true, std::sync::atomic::Ordering::SeqCst);
                s.held = Some(line);
                s.holding = Some(Hold::Answer);
            }
            _ => {}
        }
        drop(s);
        if to.write_all(chunk).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

/// Server to client: an answer to keep is read and dropped (the server answered: what it was
/// asked to write landed), and the test told.
fn answers(
    state: &Arc<(Mutex<State>, Condvar)>,
    mut from: TcpStream,
    mut to: TcpStream,
    keep: &std::sync::atomic::AtomicBool,
) {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if keep.load(std::sync::atomic::Ordering::SeqCst) {
            lock(state).answered = true;
            state.1.notify_all();
            continue;
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}
