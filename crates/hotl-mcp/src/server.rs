//! One MCP server: started (a child process over stdio, or a streamable-HTTP endpoint), its
//! tools listed, its calls made with a timeout, and a dead stdio server started again, once a turn.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::client_side_sse::NeverRetry;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};

use crate::config::ServerConfig;
use crate::tool::McpTool;

/// What starting the configured servers gave.
#[derive(Default)]
pub struct Started {
    /// Every tool the servers that started offer, named as hotl names them.
    pub tools: Vec<Arc<dyn hotl_tool::Tool>>,
    /// Each started server's `instructions`, by server name.
    pub instructions: Vec<(String, String)>,
    /// Servers that did not start, and why.
    pub failed: Vec<(String, String)>,
    /// Each started server's name and its tools (hotl's name, the server's name).
    pub listed: Vec<(String, Vec<(String, String)>)>,
}

/// Notes a server's `tools/list_changed`: a session's tools never change mid-session.
struct Handler {
    server: String,
    changed: Arc<AtomicBool>,
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        self.changed.store(true, Ordering::Relaxed);
        tracing::info!(
            server = self.server,
            "the server's tools changed; this session keeps the ones it started with"
        );
    }
}

type Client = RunningService<RoleClient, Handler>;

/// A started server, shared by its tools.
pub(crate) struct Server {
    pub(crate) name: String,
    config: ServerConfig,
    cwd: PathBuf,
    hidden_env: Arc<[String]>,
    client: tokio::sync::Mutex<Option<Client>>,
    /// The turn in which it was last started again.
    restarted_in: std::sync::Mutex<Option<u64>>,
    changed: Arc<AtomicBool>,
    /// The running stdio server's process, killed with its group when replaced or dropped.
    process: std::sync::Mutex<Option<Process>>,
    /// Set when it sent a message too large for the transport that named no request.
    oversized: Arc<AtomicBool>,
}

/// A stdio server's process and the killer of its group.
struct Process {
    _child: tokio::process::Child,
    _killer: hotl_tool::GroupKiller,
}

/// hotl's reaper (`hotl --reap-group`), which leads each stdio server's process group when set.
static REAPER: std::sync::OnceLock<Arc<Path>> = std::sync::OnceLock::new();

/// Makes `program` (the `hotl` binary) the leader of every stdio server's process group from
/// now on: a server, and whatever it started, then ends when hotl does, even killed.
pub fn lead_servers_with(program: Option<Arc<Path>>) {
    if let Some(program) = program {
        let _ = REAPER.set(program);
    }
}

impl Server {
    /// Starts the server's command in a process group of its own, led by hotl's reaper when
    /// there is one (the group ends when hotl does, however it ends), else killed whole when
    /// its [`Process`] is dropped.
    fn spawn(
        &self,
        command: &str,
    ) -> Result<(tokio::process::Child, hotl_tool::GroupKiller), String> {
        let mut cmd = match REAPER.get() {
            Some(reaper) => {
                let mut cmd = tokio::process::Command::new(reaper.as_ref());
                cmd.arg(hotl_tool::REAPER_FLAG)
                    .arg(std::process::id().to_string())
                    .arg("--")
                    .arg(command);
                cmd
            }
            None => tokio::process::Command::new(command),
        };
        cmd.args(&self.config.args)
            .current_dir(self.config.cwd.as_deref().unwrap_or(&self.cwd))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .process_group(0);
        for var in self.hidden_env.iter() {
            cmd.env_remove(var);
        }
        cmd.envs(&self.config.env);
        let child = cmd
            .spawn()
            .map_err(|e| format!("{command} did not start: {e}"))?;
        let killer = hotl_tool::GroupKiller::new(child.id());
        Ok((child, killer))
    }

    /// Connects within the server's startup timeout.
    async fn connect(&self) -> Result<(Client, Option<String>), String> {
        let handler = Handler {
            server: self.name.clone(),
            changed: self.changed.clone(),
        };
        let connecting = async {
            let client = match (&self.config.command, &self.config.url) {
                (Some(command), _) => {
                    let (mut child, killer) = self.spawn(command)?;
                    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take())
                    else {
                        return Err(format!("{command} started without its pipes"));
                    };
                    let read = crate::guard::LineGuard::new(stdout, self.oversized.clone());
                    *self
                        .process
                        .lock()
                        .map_err(|_| "the MCP client's state is poisoned".to_owned())? =
                        Some(Process {
                            _child: child,
                            _killer: killer,
                        });
                    handler
                        .serve((read, stdin))
                        .await
                        .map_err(|e| format!("it did not initialize: {e}"))?
                }
                (None, Some(url)) => {
                    // reqwest is built without a TLS provider of its own: hotl uses ring's.
                    let _ = rustls::crypto::ring::default_provider().install_default();
                    let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                    if let Some(var) = &self.config.bearer_token_env_var {
                        // Read from the copy kept when hotl started and wiped the variable from
                        // its environment block.
                        let token = hotl_sandbox::credentials::var(var)
                            .ok_or_else(|| format!("{var} (its bearer token) is not set"))?;
                        config = config.auth_header(token);
                    }
                    let mut headers = std::collections::HashMap::new();
                    for (k, v) in &self.config.headers {
                        let name = k
                            .parse()
                            .map_err(|e| format!("bad header name {k:?}: {e}"))?;
                        let value = v
                            .parse()
                            .map_err(|e| format!("bad value for header {k}: {e}"))?;
                        headers.insert(name, value);
                    }
                    config = config.custom_headers(headers);
                    // A call in flight when the server dies must fail, not wait for ever.
                    config.retry_config = Arc::new(NeverRetry::default());
                    handler
                        .serve(StreamableHttpClientTransport::from_config(config))
                        .await
                        .map_err(|e| format!("it did not initialize: {e}"))?
                }
                (None, None) => return Err("it has neither command nor url".to_owned()),
            };
            let instructions = client
                .peer_info()
                .and_then(|info| info.instructions.clone());
            Ok((client, instructions))
        };
        tokio::time::timeout(self.config.startup_timeout(), connecting)
            .await
            .map_err(|_| {
                // The first run of `npx -y …` downloads the package, which often takes
                // longer than a start should.
                let secs = self.config.startup_timeout().as_secs();
                format!(
                    "it did not start within {secs} s (a first `npx`/`uvx` run downloads its \
                     package: raise `startup_timeout_sec` in its [mcp_servers] table, e.g. to 60)"
                )
            })?
    }

    /// Calls the server's tool `tool` in turn `turn`; a dead stdio server is started again,
    /// at most once a turn.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        turn: u64,
    ) -> Result<CallToolResult, String> {
        let mut held = self.client.lock().await;
        let dead = held.as_ref().is_none_or(|c| c.is_transport_closed());
        if dead {
            let may_restart = {
                let mut restarted_in = self
                    .restarted_in
                    .lock()
                    .map_err(|_| "the MCP client's state is poisoned".to_owned())?;
                let first = *restarted_in != Some(turn);
                *restarted_in = Some(turn);
                first
            };
            if !may_restart {
                return Err(format!(
                    "the MCP server {} stopped and was already started again once in this \
                     turn; its tools are unavailable until the next turn",
                    self.name
                ));
            }
            tracing::warn!(
                server = self.name,
                "the MCP server stopped; starting it again"
            );
            let (client, _) = self.connect().await.map_err(|e| {
                format!(
                    "the MCP server {} stopped, and restarting it failed: {e}",
                    self.name
                )
            })?;
            *held = Some(client);
        }
        let Some(client) = held.as_ref() else {
            return Err(format!("the MCP server {} is not running", self.name));
        };
        // The lock guards starting the server again, not its calls: the server answers calls
        // made side by side (a step's reads run together).
        let peer = client.peer().clone();
        drop(held);
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let timeout = self.config.tool_timeout();
        match tokio::time::timeout(timeout, peer.call_tool(params)).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(e)) => Err(format!("the MCP server {} failed the call: {e}", self.name)),
            Err(_) if self.oversized.swap(false, Ordering::Relaxed) => Err(format!(
                "the MCP server {} sent a message larger than {} MiB, the most hotl reads, so \
                 it was dropped; the call got no other answer within {} s: ask for less",
                self.name,
                crate::guard::MAX_LINE >> 20,
                timeout.as_secs()
            )),
            Err(_) => Err(format!(
                "the MCP server {} did not answer within {} s (tool_timeout_sec); the call was \
                 cancelled",
                self.name,
                timeout.as_secs()
            )),
        }
    }

    /// Whether the server said its tools changed since it started.
    pub(crate) fn tools_changed(&self) -> bool {
        self.changed.load(Ordering::Relaxed)
    }
}

/// Starts every enabled server in `configs` together, each within its timeout, in `cwd`, with
/// the environment less `hidden_env`, and lists their tools. `Err` when a required server did
/// not start; other failures are in [`Started::failed`].
pub async fn start_all(
    configs: &BTreeMap<String, ServerConfig>,
    cwd: &Path,
    hidden_env: Arc<[String]>,
) -> Result<Started, String> {
    let mut starting = tokio::task::JoinSet::new();
    for (name, config) in configs.iter().filter(|(_, c)| c.is_enabled()) {
        config.check(name)?;
        let server = Arc::new(Server {
            name: name.clone(),
            config: config.clone(),
            cwd: cwd.to_owned(),
            hidden_env: hidden_env.clone(),
            client: tokio::sync::Mutex::new(None),
            restarted_in: std::sync::Mutex::new(None),
            changed: Arc::new(AtomicBool::new(false)),
            process: std::sync::Mutex::new(None),
            oversized: Arc::new(AtomicBool::new(false)),
        });
        starting.spawn(async move {
            let started = start_one(&server).await;
            (server, started)
        });
    }
    let mut done = Vec::new();
    while let Some(joined) = starting.join_next().await {
        done.push(joined.map_err(|e| format!("starting an MCP server failed: {e}"))?);
    }
    // In the config's order, so the frozen definitions do not depend on who started first.
    done.sort_by(|(a, _), (b, _)| a.name.cmp(&b.name));
    let mut started = Started::default();
    let mut taken: Vec<String> = Vec::new();
    for (server, result) in done {
        match result {
            Ok((tools, instructions)) => {
                let mut listed = Vec::new();
                for tool in tools {
                    let name = crate::names::tool_name(&server.name, &tool.name, &taken);
                    taken.push(name.clone());
                    listed.push((name.clone(), tool.name.to_string()));
                    started
                        .tools
                        .push(Arc::new(McpTool::new(server.clone(), name, &tool)?));
                }
                if let Some(text) = instructions.filter(|t| !t.trim().is_empty()) {
                    started.instructions.push((server.name.clone(), text));
                }
                started.listed.push((server.name.clone(), listed));
            }
            Err(why) if server.config.required => {
                return Err(format!(
                    "the MCP server {} is required and did not start: {why}",
                    server.name
                ));
            }
            Err(why) => {
                tracing::warn!(server = server.name, "an MCP server did not start: {why}");
                started.failed.push((server.name.clone(), why));
            }
        }
    }
    Ok(started)
}

/// Connects and lists the tools the config offers.
async fn start_one(server: &Server) -> Result<(Vec<rmcp::model::Tool>, Option<String>), String> {
    let (client, instructions) = server.connect().await?;
    let listing = tokio::time::timeout(server.config.startup_timeout(), client.list_all_tools());
    let tools = listing
        .await
        .map_err(|_| "it did not list its tools in time".to_owned())?
        .map_err(|e| format!("it did not list its tools: {e}"))?
        .into_iter()
        .filter(|t| server.config.offers(&t.name))
        .collect();
    *server.client.lock().await = Some(client);
    Ok((tools, instructions))
}
