//! The engine behind a [`Launcher`]: sessions made and opened with one store, provider,
//! settings and tool set, each run by an agent ([`crate::spawn`]).

use std::path::Path;

use hotl_protocol::{LaunchError, Launched, Launcher, Mode, Opened};

use crate::agent::{Start, spawn};
use crate::error::AgentError;
use crate::lifecycle::NewSession;
use crate::provider::Provider;
use crate::session::{Session, Settings};
use hotl_tool::ToolSet;

/// What sessions are made with: the store, the provider and the settings a run resolved, and
/// the tools each session starts with.
#[derive(Clone, Debug)]
pub struct SessionLauncher {
    /// Where sessions live.
    pub store: hotl_log::Store,
    /// Who answers.
    pub provider: Provider,
    /// How turns run.
    pub settings: Settings,
    /// The tools a session starts with (MCP servers' among them).
    pub tools: ToolSet,
    /// Blocks a new session's frozen system prompt gets (MCP servers' instructions).
    pub instructions: Vec<String>,
}

impl Launcher for SessionLauncher {
    fn new_session(&self, cwd: &Path) -> Result<Launched, LaunchError> {
        let new = NewSession::new(
            &self.store,
            cwd,
            self.settings.model.clone(),
            self.tools.clone(),
        )
        .map_err(|e| LaunchError::Refused(e.to_string()))?
        .with_instructions(self.instructions.clone())
        .with_mode(self.settings.policy.mode);
        let (id, mode) = (new.id().to_owned(), new.mode());
        let agent = spawn(
            Start::New(new),
            self.provider.clone(),
            self.settings.clone(),
        );
        Ok(Launched { id, mode, agent })
    }

    fn open_session(&self, id: &str) -> Result<Opened, LaunchError> {
        if let Some(publisher) = &self.settings.publisher
            && self.store.exists(id)
        {
            // Another machine may write the tree: its lease is taken (and this home brought up
            // to date) before the session is opened for writing.
            let root = self.store.root_of(id);
            let handle = tokio::runtime::Handle::current();
            tokio::task::block_in_place(|| handle.block_on(publisher.adopt(&root)))
                .map_err(LaunchError::Refused)?;
        }
        let session = Session::open(&self.store, id, self.tools.clone()).map_err(|e| match e {
            AgentError::Log(hotl_log::LogError::NoSuchSession { .. }) => {
                LaunchError::NoSuchSession(id.to_owned())
            }
            e => LaunchError::Refused(e.to_string()),
        })?;
        let view = session.view().clone();
        let mode = session.recorded_mode().unwrap_or(Mode::Default);
        let agent = spawn(
            Start::Open(Box::new(session)),
            self.provider.clone(),
            self.settings.clone(),
        );
        Ok(Opened { mode, view, agent })
    }
}
