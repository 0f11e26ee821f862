//! The store behind hotl's encrypted shares (`hotl share-server`): it keeps sealed blobs it
//! cannot read (the key never reaches it: it lives in the link's fragment) and serves the
//! viewer page that opens them in the browser. No accounts and no logs of content: a share is
//! a random id and an opaque body.
//!
//! [`serve`] runs it on a listener until the future it is given resolves:
//!
//! ```no_run
//! # async fn run() -> Result<(), hotl_share_server::ServeError> {
//! let config = hotl_share_server::Config::new("/var/lib/hotl-shares".into());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await.unwrap();
//! hotl_share_server::serve(config, listener, std::future::pending()).await
//! # }
//! ```

#![deny(missing_docs)]

mod limits;

pub use crate::limits::Limits;

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use ring::rand::{SecureRandom, SystemRandom};

/// How a share server runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where sealed shares are kept (made when missing).
    pub dir: PathBuf,
    /// The largest share accepted, in bytes.
    pub max_bytes: usize,
    /// Where the viewer reads gists from, for shares stored as gists.
    pub gist_api: String,
    /// Append every request (line, headers, body) to this file.
    pub request_log: Option<PathBuf>,
    /// Uploads a client may make, bytes kept in all, how long a share is kept.
    pub limits: Limits,
}

impl Config {
    /// Shares kept in `dir`, at most [`hotl_export::SERVER_LIMIT`] bytes each, gists read
    /// from GitHub's API, no request log.
    pub fn new(dir: PathBuf) -> Config {
        Config {
            dir,
            max_bytes: hotl_export::SERVER_LIMIT,
            gist_api: "https://api.github.com/gists".to_owned(),
            request_log: None,
            limits: Limits::default(),
        }
    }
}

/// Why a share server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Its directory or request log cannot be used.
    #[error("cannot use {path}: {source}")]
    Path {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The server stopped on an error.
    #[error("the share server stopped: {0}")]
    Stopped(std::io::Error),
}

/// Serves shares on `listener` with `config` until `shutdown` resolves.
pub async fn serve(
    config: Config,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    std::fs::create_dir_all(&config.dir).map_err(|source| ServeError::Path {
        path: config.dir.clone(),
        source,
    })?;
    let log = match &config.request_log {
        Some(path) => Some(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|source| ServeError::Path {
                    path: path.clone(),
                    source,
                })?,
        )),
        None => None,
    };
    let server = Arc::new(Server {
        dir: config.dir.clone(),
        max_bytes: config.max_bytes,
        gist_api: config.gist_api.trim_end_matches('/').to_owned(),
        log,
        rng: SystemRandom::new(),
        keeper: limits::Keeper::new(config.limits.clone(), &config.dir),
    });
    let app = Router::new()
        .route("/s", axum::routing::post(put))
        .route("/s/{id}", get(viewer))
        .route("/s/{id}/raw", get(raw))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/", get(index))
        .fallback(not_found)
        // A little over the limit, so an oversized body reaches the handler's own answer.
        .layer(DefaultBodyLimit::max(config.max_bytes + 1))
        .with_state(server);
    // Each client's address, for its upload allowance.
    let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(ServeError::Stopped)
}

struct Server {
    dir: PathBuf,
    max_bytes: usize,
    gist_api: String,
    log: Option<Mutex<std::fs::File>>,
    rng: SystemRandom,
    keeper: limits::Keeper,
}

impl Server {
    fn log(&self, method: &Method, uri: &Uri, headers: &HeaderMap, body: &[u8]) {
        let Some(log) = &self.log else { return };
        let mut entry = format!("{method} {uri} HTTP/1.1\n").into_bytes();
        for (name, value) in headers {
            entry.extend_from_slice(name.as_str().as_bytes());
            entry.extend_from_slice(b": ");
            entry.extend_from_slice(value.as_bytes());
            entry.push(b'\n');
        }
        entry.push(b'\n');
        entry.extend_from_slice(body);
        entry.extend_from_slice(b"\n\n");
        if let Ok(mut file) = log.lock() {
            let _ = file.write_all(&entry);
        }
    }

    /// A fresh id: 16 characters of base64url, never all hex (hex ids are gists').
    fn new_id(&self) -> Option<String> {
        use base64::Engine as _;
        loop {
            let mut bytes = [0u8; 12];
            self.rng.fill(&mut bytes).ok()?;
            let id = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
            if !id.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Some(id);
            }
        }
    }
}

fn private(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

async fn put(
    State(server): State<Arc<Server>>,
    ConnectInfo(client): ConnectInfo<std::net::SocketAddr>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    server.log(&method, &uri, &headers, &body);
    let octets = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().unwrap_or("").trim() == "application/octet-stream");
    if !octets {
        return private(
            (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "a share is sent as application/octet-stream\n",
            )
                .into_response(),
        );
    }
    if body.len() > server.max_bytes {
        return private(
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("a share may be at most {} bytes\n", server.max_bytes),
            )
                .into_response(),
        );
    }
    if body.len() < hotl_export::seal::IV_LEN + hotl_export::seal::TAG_LEN {
        return private((StatusCode::BAD_REQUEST, "not a sealed share\n").into_response());
    }
    let size = body.len() as u64;
    match server.keeper.admit(client.ip(), size) {
        Ok(()) => {}
        Err(limits::Refusal::Rate(wait)) => {
            let secs = wait.as_secs().max(1);
            return private(
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    [(header::RETRY_AFTER, secs.to_string())],
                    format!("too many shares from this address: try again in {secs} s\n"),
                )
                    .into_response(),
            );
        }
        Err(limits::Refusal::Full) => {
            return private(
                (
                    StatusCode::INSUFFICIENT_STORAGE,
                    "the share server is full: it takes no more shares until old ones expire\n",
                )
                    .into_response(),
            );
        }
    }
    let Some(id) = server.new_id() else {
        server.keeper.forget(size);
        return private((StatusCode::INTERNAL_SERVER_ERROR, "no randomness\n").into_response());
    };
    let path = server.dir.join(&id);
    let tmp = server.dir.join(format!(".{id}.tmp"));
    let stored = std::fs::write(&tmp, &body).and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = stored {
        server.keeper.forget(size);
        tracing::warn!("cannot store share {id}: {e}");
        return private(
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot store the share\n",
            )
                .into_response(),
        );
    }
    private(
        (
            StatusCode::CREATED,
            [(header::CONTENT_TYPE, "application/json")],
            serde_json::json!({ "id": id }).to_string(),
        )
            .into_response(),
    )
}

fn is_gist(id: &str) -> bool {
    (20..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_hexdigit())
}

fn stored(server: &Server, id: &str) -> Option<PathBuf> {
    hotl_export::deliver::valid_share_id(id)
        .then(|| server.dir.join(id))
        .filter(|p| p.is_file() && !server.keeper.expired(p))
}

async fn viewer(
    State(server): State<Arc<Server>>,
    Path(id): Path<String>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    server.log(&method, &uri, &headers, b"");
    let gist = is_gist(&id);
    if !gist && stored(&server, &id).is_none() {
        return not_found_page();
    }
    let api = gist.then_some(server.gist_api.as_str());
    let policy = hotl_export::html::page::viewer_policy(api);
    let mut response = (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        hotl_export::html::page::viewer_page(&id, api),
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&policy) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, value);
    }
    private(response)
}

async fn raw(
    State(server): State<Arc<Server>>,
    Path(id): Path<String>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    server.log(&method, &uri, &headers, b"");
    let Some(path) = stored(&server, &id) else {
        return not_found_page();
    };
    match std::fs::read(&path) {
        Ok(bytes) => {
            private(([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response())
        }
        Err(_) => not_found_page(),
    }
}

async fn index(
    State(server): State<Arc<Server>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    server.log(&method, &uri, &headers, b"");
    private(
        (
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "hotl share server: POST /s stores a sealed share; GET /s/<id> opens it with the key in the link\n",
        )
            .into_response(),
    )
}

async fn not_found(
    State(server): State<Arc<Server>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    server.log(&method, &uri, &headers, b"");
    not_found_page()
}

fn not_found_page() -> Response {
    private((StatusCode::NOT_FOUND, "no such share\n").into_response())
}
