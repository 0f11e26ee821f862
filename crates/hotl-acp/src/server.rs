//! The ACP connection: `initialize`, `session/new`, `session/load`, `session/prompt`,
//! `session/cancel` and `session/set_mode`, and the hotl sessions the connection holds.
//!
//! A handler holds the connection's incoming loop until it returns, so a prompt runs in a task
//! of its own: `session/cancel` and the editor's answers to permission requests keep arriving
//! while it runs. When the editor goes away (stdin closes), every session still held is shut
//! down as a terminal front end's would be: what runs is cancelled and recorded, locks are
//! released, and each log stays valid and resumable.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::{ConnectionTo, Responder, schema as s};
use agent_client_protocol::{
    Agent as AcpAgent, ByteStreams, Client, ConnectTo, Error, on_receive_notification,
    on_receive_request,
};
use hotl_protocol::{Agent, Canceller, Command, LaunchError, Launcher, Mode};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// An ACP server: one connection's sessions.
#[derive(Clone)]
pub struct Server {
    state: Arc<State>,
}

struct State {
    /// Makes and opens the editor's sessions (the engine, behind the protocol; its settings
    /// should be interactive: the editor answers approvals).
    launcher: Arc<dyn Launcher>,
    sessions: Mutex<HashMap<String, Arc<Live>>>,
    /// The editor shows notices apart from the conversation (`session.notices`).
    notices: AtomicBool,
}

/// A session the connection holds.
pub(crate) struct Live {
    /// The agent; a prompt holds it while it runs.
    pub(crate) agent: tokio::sync::Mutex<Option<Agent>>,
    /// Stops what runs without waiting for the agent.
    canceller: Canceller,
    /// A prompt is running.
    busy: AtomicBool,
}

impl Server {
    /// A server making and opening sessions with `launcher`.
    pub fn new(launcher: Arc<dyn Launcher>) -> Server {
        Server {
            state: Arc::new(State {
                launcher,
                sessions: Mutex::new(HashMap::new()),
                notices: AtomicBool::new(false),
            }),
        }
    }

    /// Serves one editor over this process's stdin and stdout until stdin closes, then shuts
    /// every session down.
    /// Each line is checked first (see `guard.rs`): one that is not JSON-RPC is answered
    /// with its error and the connection goes on.
    pub async fn serve_stdio(self) -> Result<(), Error> {
        let (to_protocol, protocol_in) = tokio::io::duplex(1 << 16);
        let (protocol_out, from_protocol) = tokio::io::duplex(1 << 16);
        let (answers, lines) = tokio::sync::mpsc::unbounded_channel();
        let writer = tokio::spawn(crate::guard::write_lines(lines, tokio::io::stdout()));
        let forward = tokio::spawn(crate::guard::forward_output(from_protocol, answers.clone()));
        let filter = tokio::spawn(crate::guard::filter_input(
            tokio::io::stdin(),
            to_protocol,
            answers,
        ));
        let transport = ByteStreams::new(protocol_out.compat_write(), protocol_in.compat());
        let served = self.component().connect_to(transport).await;
        self.close().await;
        // The last answers reach the editor before the process ends.
        filter.abort();
        let wait = std::time::Duration::from_secs(2);
        if tokio::time::timeout(wait, forward).await.is_err() {
            tracing::warn!("the protocol's last output did not end; leaving without it");
        }
        let _ = tokio::time::timeout(wait, writer).await;
        served
    }

    /// The agent side of the protocol, to connect to a transport (stdio, a pipe, or a client
    /// in the same process).
    pub fn component(&self) -> impl ConnectTo<Client> + 'static {
        let (init, new, load, prompt, cancel, mode) = (
            self.state.clone(),
            self.state.clone(),
            self.state.clone(),
            self.state.clone(),
            self.state.clone(),
            self.state.clone(),
        );
        AcpAgent
            .v1()
            .name("hotl")
            .on_receive_request(
                async move |req: s::InitializeRequest,
                            r: Responder<s::InitializeResponse>,
                            _cx: ConnectionTo<Client>| { init.initialize(req, r) },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: s::NewSessionRequest,
                            r: Responder<s::NewSessionResponse>,
                            cx: ConnectionTo<Client>| {
                    match new.new_session(req) {
                        Ok((id, modes)) => {
                            r.respond(s::NewSessionResponse::new(id.clone()).modes(modes))?;
                            announce(&cx, &id)
                        }
                        Err(e) => r.respond_with_error(e),
                    }
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: s::LoadSessionRequest,
                            r: Responder<s::LoadSessionResponse>,
                            cx: ConnectionTo<Client>| {
                    let id = req.session_id.clone();
                    match load.load_session(&req, &cx) {
                        Ok(modes) => {
                            r.respond(s::LoadSessionResponse::new().modes(modes))?;
                            announce(&cx, &id)
                        }
                        Err(e) => r.respond_with_error(e),
                    }
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: s::PromptRequest,
                            r: Responder<s::PromptResponse>,
                            cx: ConnectionTo<Client>| { prompt.prompt(req, r, cx) },
                on_receive_request!(),
            )
            .on_receive_notification(
                async move |n: s::CancelNotification, _cx: ConnectionTo<Client>| {
                    if let Some(live) = cancel.live(&n.session_id.to_string()) {
                        live.canceller.cancel();
                    }
                    Ok(())
                },
                on_receive_notification!(),
            )
            .on_receive_request(
                async move |req: s::SetSessionModeRequest,
                            r: Responder<s::SetSessionModeResponse>,
                            cx: ConnectionTo<Client>| {
                    mode.set_mode(req, r, &cx)
                },
                on_receive_request!(),
            )
    }

    /// Shuts every session down: what runs is cancelled and recorded, locks are released.
    pub async fn close(&self) {
        let sessions: Vec<Arc<Live>> = self
            .state
            .sessions
            .lock()
            .map(|mut s| s.drain().map(|(_, live)| live).collect())
            .unwrap_or_default();
        for live in sessions {
            live.canceller.cancel();
            if let Some(agent) = live.agent.lock().await.take() {
                agent.shutdown().await;
            }
        }
    }
}

impl State {
    fn live(&self, id: &str) -> Option<Arc<Live>> {
        self.sessions.lock().ok()?.get(id).cloned()
    }

    fn hold(&self, id: String, agent: Agent) {
        let live = Arc::new(Live {
            canceller: agent.canceller(),
            agent: tokio::sync::Mutex::new(Some(agent)),
            busy: AtomicBool::new(false),
        });
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.insert(id, live);
        }
    }

    /// A new hotl session in the editor's directory (written with its first message).
    fn new_session(
        &self,
        req: s::NewSessionRequest,
    ) -> Result<(s::SessionId, s::SessionModeState), Error> {
        let cwd = absolute_dir(&req.cwd)?;
        if !req.mcp_servers.is_empty() {
            tracing::info!(
                servers = req.mcp_servers.len(),
                "the editor's MCP servers are not used: hotl starts the ones its config names"
            );
        }
        let launched = self
            .launcher
            .new_session(&cwd)
            .map_err(|e| Error::invalid_params().data(e.to_string()))?;
        self.hold(launched.id.clone(), launched.agent);
        Ok((s::SessionId::new(launched.id), modes(launched.mode)))
    }

    /// Opens hotl session `req.session_id` for writing and replays its visible transcript.
    fn load_session(
        &self,
        req: &s::LoadSessionRequest,
        cx: &ConnectionTo<Client>,
    ) -> Result<s::SessionModeState, Error> {
        let id = req.session_id.to_string();
        if self.live(&id).is_some() {
            return Err(Error::invalid_request()
                .data(format!("session {id} is already open on this connection")));
        }
        let opened = self.launcher.open_session(&id).map_err(|e| match e {
            LaunchError::NoSuchSession(_) => unknown_session(&id),
            e => Error::invalid_request().data(e.to_string()),
        })?;
        for update in crate::replay::updates(&opened.view) {
            cx.send_notification(s::SessionNotification::new(req.session_id.clone(), update))?;
        }
        self.hold(id, opened.agent);
        Ok(modes(opened.mode))
    }

    /// Answers `initialize`, noting whether the editor shows notices apart.
    fn initialize(
        &self,
        req: s::InitializeRequest,
        r: Responder<s::InitializeResponse>,
    ) -> Result<(), Error> {
        let notices = req
            .client_capabilities
            .session
            .as_ref()
            .is_some_and(|s| s.notices.is_some());
        self.notices.store(notices, Ordering::Relaxed);
        r.respond(initialized(req.protocol_version))
    }

    /// Starts a prompt in a task of its own, which answers when the turn ends; a session runs
    /// one prompt at a time.
    fn prompt(
        &self,
        req: s::PromptRequest,
        r: Responder<s::PromptResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let id = req.session_id.to_string();
        let Some(live) = self.live(&id) else {
            return r.respond_with_error(unknown_session(&id));
        };
        if live.busy.swap(true, Ordering::AcqRel) {
            return r.respond_with_error(Error::invalid_request().data(
                "a prompt is already running in this session: wait for its answer, \
                 or cancel it",
            ));
        }
        let notices = self.notices.load(Ordering::Relaxed);
        let task_cx = cx.clone();
        cx.spawn(async move {
            let answer = crate::prompt::run(&task_cx, &id, &live, req.prompt, notices).await;
            live.busy.store(false, Ordering::Release);
            // An answer that cannot be sent means the editor is gone: nothing to do.
            let _ = r.respond_with_result(answer);
            Ok(())
        })
    }

    /// Changes a session's permission mode between prompts, and tells the editor it did.
    fn set_mode(
        &self,
        req: s::SetSessionModeRequest,
        r: Responder<s::SetSessionModeResponse>,
        cx: &ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let id = req.session_id.to_string();
        let Some(live) = self.live(&id) else {
            return r.respond_with_error(unknown_session(&id));
        };
        let Some(new_mode) = Mode::from_name(&req.mode_id.to_string()) else {
            return r.respond_with_error(Error::invalid_params().data(format!(
                "unknown mode {:?}: the modes are default, accept-edits, plan and \
                 bypass",
                req.mode_id.to_string()
            )));
        };
        // The agent is held while a prompt runs; the mode is sent without waiting.
        if let Ok(agent) = live.agent.try_lock()
            && let Some(agent) = agent.as_ref()
        {
            agent.send(Command::SetMode { mode: new_mode });
        } else {
            return r.respond_with_error(
                Error::invalid_request()
                    .data("the mode cannot change while a prompt runs in this session"),
            );
        }
        r.respond(s::SetSessionModeResponse::new())?;
        cx.send_notification(s::SessionNotification::new(
            req.session_id,
            s::SessionUpdate::CurrentModeUpdate(s::CurrentModeUpdate::new(new_mode.name())),
        ))
    }
}

/// What hotl says it can do.
fn initialized(version: agent_client_protocol::schema::ProtocolVersion) -> s::InitializeResponse {
    s::InitializeResponse::new(version)
        .agent_capabilities(
            s::AgentCapabilities::new()
                .load_session(true)
                // Text and resources the editor embeds (a file, a selection); MCP servers over
                // stdio are every agent's, and hotl asks for no other kind.
                .prompt_capabilities(s::PromptCapabilities::new().embedded_context(true))
                .mcp_capabilities(s::McpCapabilities::new()),
        )
        .agent_info(s::Implementation::new("hotl", env!("CARGO_PKG_VERSION")))
}

/// The permission modes, as ACP session modes.
fn modes(current: Mode) -> s::SessionModeState {
    let mode =
        |m: Mode, name: &str, about: &str| s::SessionMode::new(m.name(), name).description(about);
    s::SessionModeState::new(
        current.name(),
        vec![
            mode(
                Mode::Default,
                "Default",
                "ask before commands and writes outside the project",
            ),
            mode(
                Mode::AcceptEdits,
                "Accept edits",
                "edits in the project run without asking",
            ),
            mode(Mode::Plan, "Plan", "read only: nothing is changed"),
            mode(Mode::Bypass, "Bypass", "nothing asks: every call runs"),
        ],
    )
}

/// Tells the editor the commands a prompt may start with.
fn announce(cx: &ConnectionTo<Client>, id: &s::SessionId) -> Result<(), Error> {
    cx.send_notification(s::SessionNotification::new(
        id.clone(),
        s::SessionUpdate::AvailableCommandsUpdate(s::AvailableCommandsUpdate::new(
            crate::prompt::commands(),
        )),
    ))
}

fn absolute_dir(cwd: &std::path::Path) -> Result<PathBuf, Error> {
    if !cwd.is_absolute() {
        return Err(Error::invalid_params().data(format!(
            "cwd must be an absolute path, not {}",
            cwd.display()
        )));
    }
    if !cwd.is_dir() {
        return Err(
            Error::invalid_params().data(format!("cwd {} is not a directory", cwd.display()))
        );
    }
    Ok(cwd.to_path_buf())
}

fn unknown_session(id: &str) -> Error {
    s::Error::session_not_found(s::SessionId::new(id.to_owned())).into()
}
