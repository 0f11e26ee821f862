//! The proxy a confined command reaches the allowed hosts through (`[sandbox] allow_domains`):
//! HTTP `CONNECT` tunnels (HTTPS and any TCP a client tunnels) and plain HTTP requests with an
//! absolute URL, to the listed hosts only. Everything else gets `403` naming the rule.

use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The most a request's head may take.
const MAX_HEAD: usize = 64 << 10;

/// A running proxy; dropping it stops it.
#[derive(Debug)]
pub struct Proxy {
    port: u16,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Starts a proxy on `127.0.0.1` (a free port) letting through `domains`.
    pub async fn start(domains: Vec<String>) -> std::io::Result<Proxy> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        let domains: Arc<[String]> = domains.into();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let domains = domains.clone();
                tokio::spawn(async move {
                    let _ = serve(stream, &domains).await;
                });
            }
        });
        Ok(Proxy { port, task })
    }

    /// Its port on `127.0.0.1`.
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Whether `host` is one of `domains` (`*.example.com` matches its subdomains).
pub fn allowed(host: &str, domains: &[String]) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    domains.iter().any(|d| {
        let d = d.trim_end_matches('.').to_ascii_lowercase();
        match d.strip_prefix("*.") {
            Some(suffix) => host.len() > suffix.len() + 1 && host.ends_with(&format!(".{suffix}")),
            None => host == d,
        }
    })
}

/// One client connection.
async fn serve(mut client: TcpStream, domains: &[String]) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(1024);
    let end = loop {
        let mut buf = [0u8; 4096];
        let n = client.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
        if let Some(at) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if head.len() > MAX_HEAD {
            return refuse(
                &mut client,
                "400 Bad Request",
                "the request head is too long",
            )
            .await;
        }
    };
    let text = String::from_utf8_lossy(&head[..end]).into_owned();
    let first = text.lines().next().unwrap_or_default().to_owned();
    let mut words = first.split_whitespace();
    let (Some(method), Some(target)) = (words.next(), words.next()) else {
        return refuse(&mut client, "400 Bad Request", "not an HTTP request").await;
    };
    let version = words.next().unwrap_or("HTTP/1.1");
    let (host, port, path) = if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = split_host_port(target, 443);
        (host, port, None)
    } else if let Some(rest) = target.strip_prefix("http://") {
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let (host, port) = split_host_port(authority, 80);
        let path = if path.is_empty() { "/" } else { path };
        (host, port, Some(path.to_owned()))
    } else {
        return refuse(
            &mut client,
            "400 Bad Request",
            "the proxy takes CONNECT or an absolute http:// URL",
        )
        .await;
    };
    if !allowed(&host, domains) {
        let why = format!(
            "hotl's sandbox refused {host}: it is not in [sandbox] allow_domains ({})",
            domains.join(", ")
        );
        return refuse(&mut client, "403 Forbidden", &why).await;
    }
    let mut upstream = match TcpStream::connect((host.as_str(), port)).await {
        Ok(stream) => stream,
        Err(e) => {
            return refuse(
                &mut client,
                "502 Bad Gateway",
                &format!("cannot reach {host}:{port}: {e}"),
            )
            .await;
        }
    };
    match path {
        None => {
            client
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await?;
            upstream.write_all(&head[end..]).await?;
        }
        Some(path) => {
            let mut request = format!("{method} {path} {version}\r\n");
            for line in text.lines().skip(1) {
                if !line.is_empty() && !line.to_ascii_lowercase().starts_with("proxy-") {
                    request.push_str(line);
                    request.push_str("\r\n");
                }
            }
            request.push_str("\r\n");
            upstream.write_all(request.as_bytes()).await?;
            upstream.write_all(&head[end..]).await?;
        }
    }
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}

/// `host:port` (or `[v6]:port`) split, with `default` when no port is given.
fn split_host_port(authority: &str, default: u16) -> (String, u16) {
    if let Some(rest) = authority.strip_prefix('[')
        && let Some((host, after)) = rest.split_once(']')
    {
        let port = after.strip_prefix(':').and_then(|p| p.parse().ok());
        return (host.to_owned(), port.unwrap_or(default));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.parse::<u16>().is_ok() => {
            (host.to_owned(), port.parse().unwrap_or(default))
        }
        _ => (authority.to_owned(), default),
    }
}

async fn refuse(client: &mut TcpStream, status: &str, why: &str) -> std::io::Result<()> {
    let body = format!("{why}\n");
    let answer = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    client.write_all(answer.as_bytes()).await?;
    client.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_wildcards() {
        let domains = vec!["crates.io".to_owned(), "*.github.com".to_owned()];
        assert!(allowed("crates.io", &domains));
        assert!(allowed("CRATES.IO.", &domains));
        assert!(!allowed("static.crates.io", &domains));
        assert!(allowed("api.github.com", &domains));
        assert!(!allowed("github.com", &domains));
        assert!(!allowed("evilgithub.com", &domains));
        assert_eq!(split_host_port("a:8080", 80), ("a".to_owned(), 8080));
        assert_eq!(split_host_port("[::1]:1", 80), ("::1".to_owned(), 1));
        assert_eq!(split_host_port("a", 443), ("a".to_owned(), 443));
    }
}
