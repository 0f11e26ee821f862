//! A fixture MCP server for hotl's tests, on rmcp's server side: `hotl-mcp-fixture stdio`, or
//! `hotl-mcp-fixture http --port N` (prints `listening URL`). Tools with hyphenated names, a
//! slow one, a slow one marked read-only (`peek`), a failing one, one that ends the process, one that says the tool list changed,
//! and one that answers a large result.

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService, stdio};
use rmcp::{Peer, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct SlowArgs {
    /// How long to wait, in milliseconds.
    ms: u64,
}

#[derive(Deserialize, JsonSchema)]
struct LinesArgs {
    /// How many lines to answer.
    count: usize,
}

#[derive(Clone)]
struct Fixture;

#[tool_router]
impl Fixture {
    #[tool(name = "echo-text", description = "Answers the text it is given")]
    async fn echo_text(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        format!("echo: {}", args.text)
    }

    #[tool(description = "Waits ms milliseconds, then answers done")]
    async fn slow(
        &self,
        Parameters(args): Parameters<SlowArgs>,
        cx: RequestContext<RoleServer>,
    ) -> String {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(args.ms)) => "done".to_owned(),
            () = cx.ct.cancelled() => "cancelled".to_owned(),
        }
    }

    #[tool(
        description = "Waits ms milliseconds, then answers what it looked at (changes nothing)",
        annotations(read_only_hint = true)
    )]
    async fn peek(
        &self,
        Parameters(args): Parameters<SlowArgs>,
        cx: RequestContext<RoleServer>,
    ) -> String {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(args.ms)) => format!("peeked for {} ms", args.ms),
            () = cx.ct.cancelled() => "cancelled".to_owned(),
        }
    }

    #[tool(description = "Always fails")]
    async fn fail(&self) -> Result<String, String> {
        Err("the fixture fails on purpose".to_owned())
    }

    #[tool(name = "many-lines", description = "Answers count numbered lines")]
    async fn many_lines(&self, Parameters(args): Parameters<LinesArgs>) -> String {
        (1..=args.count).map(|i| format!("line {i}\n")).collect()
    }

    #[tool(description = "Ends the server process without answering")]
    async fn exit(&self) -> String {
        std::process::exit(3)
    }

    #[tool(name = "touch-tools", description = "Says the tool list changed")]
    async fn touch_tools(&self, peer: Peer<RoleServer>) -> Result<String, String> {
        peer.notify_tool_list_changed()
            .await
            .map_err(|e| e.to_string())?;
        Ok("notified".to_owned())
    }
}

#[tool_handler]
impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("hotl-mcp-fixture", "0.1.0"))
            .with_instructions("The fixture's tools echo, wait, fail and exit on request.")
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["stdio"] => {
            Fixture.serve(stdio()).await?.waiting().await?;
        }
        ["http", "--port", port] => {
            let mcp = StreamableHttpService::new(
                || Ok(Fixture),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default(),
            );
            let app = axum::Router::new().nest_service("/mcp", mcp);
            let listener =
                tokio::net::TcpListener::bind(("127.0.0.1", port.parse::<u16>()?)).await?;
            println!("listening http://{}/mcp", listener.local_addr()?);
            axum::serve(listener, app).await?;
        }
        _ => return Err("usage: hotl-mcp-fixture stdio | http --port N".into()),
    }
    Ok(())
}
