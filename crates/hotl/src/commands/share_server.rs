//! `hotl share-server`: the store behind encrypted shares. It keeps sealed blobs it cannot
//! read (the key never reaches it: it lives in the link's fragment) and serves the viewer page
//! that opens them in the browser.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use clap::Args;
use ring::rand::{SecureRandom, SystemRandom};

use crate::ctx::Ctx;
use crate::error::CliError;

/// Serve encrypted shares: stores sealed blobs and the viewer that opens them
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl share-server --port 8080 --dir /var/lib/hotl-shares\n  hotl share-server --port 0 --dir shares --max-bytes 5000000\n\nThen: hotl sessions share @last --server http://HOST:8080"
)]
pub struct ShareServerArgs {
    /// The port to listen on (0: any free one; the address is printed)
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Where sealed shares are kept
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The largest share accepted, in bytes
    #[arg(long, value_name = "N", default_value_t = hotl_export::SERVER_LIMIT)]
    pub max_bytes: usize,
    /// The address to listen on
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// Where the viewer reads gists from, for shares stored as gists
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://api.github.com/gists"
    )]
    pub gist_api: String,
    /// Append every request (line, headers, body) to this file
    #[arg(long, value_name = "FILE")]
    pub request_log: Option<PathBuf>,
}

struct Server {
    dir: PathBuf,
    max_bytes: usize,
    gist_api: String,
    log: Option<Mutex<std::fs::File>>,
    rng: SystemRandom,
}

pub fn run(_ctx: &Ctx, args: &ShareServerArgs) -> Result<ExitCode, CliError> {
    std::fs::create_dir_all(&args.dir)
        .map_err(|e| CliError::user(format!("cannot use {}: {e}", args.dir.display())))?;
    let log = match &args.request_log {
        Some(path) => Some(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| CliError::user(format!("cannot open {}: {e}", path.display())))?,
        )),
        None => None,
    };
    let server = Arc::new(Server {
        dir: args.dir.clone(),
        max_bytes: args.max_bytes,
        gist_api: args.gist_api.trim_end_matches('/').to_owned(),
        log,
        rng: SystemRandom::new(),
    });
    let app = Router::new()
        .route("/s", axum::routing::post(put))
        .route("/s/{id}", get(viewer))
        .route("/s/{id}/raw", get(raw))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/", get(index))
        .fallback(not_found)
        // A little over the limit, so an oversized body reaches the handler's own answer.
        .layer(DefaultBodyLimit::max(args.max_bytes + 1))
        .with_state(server);
    let runtime = crate::ctx::runtime()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(args.bind, args.port))
            .await
            .map_err(|e| {
                CliError::user(format!("cannot listen on {}:{}: {e}", args.bind, args.port))
            })?;
        let addr = listener.local_addr()?;
        println!("hotl share-server listening on http://{addr}");
        let _ = std::io::stdout().flush();
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| CliError::user(format!("the share server stopped: {e}")))
    })?;
    Ok(ExitCode::SUCCESS)
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
    let Some(id) = server.new_id() else {
        return private((StatusCode::INTERNAL_SERVER_ERROR, "no randomness\n").into_response());
    };
    let path = server.dir.join(&id);
    let tmp = server.dir.join(format!(".{id}.tmp"));
    let stored = std::fs::write(&tmp, &body).and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = stored {
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
    crate::takeout::valid_id(id)
        .then(|| server.dir.join(id))
        .filter(|p| p.is_file())
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
