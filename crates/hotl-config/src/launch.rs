//! Where a run's settings are assembled, once for every surface it runs on: the terminal (the
//! UI or the console), headless (`-p`), an editor (`hotl acp`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hotl_agent::{Mode, Policy, Provider, Settings};
use hotl_wire::Ttl;

use crate::resolve::{Resolved, secret_paths};

/// Where a run is driven from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Surface {
    /// A person at a terminal (the terminal UI or the line console): asked before what needs
    /// a yes, sessions titled, the prompt cache kept an hour between turns.
    Terminal,
    /// `hotl -p`: nobody to ask (what needs a yes is refused), no titles, a five-minute cache,
    /// background children waited for.
    Headless,
    /// An editor over ACP: it answers approvals, as a person at a terminal would.
    Editor,
}

/// A run's settings, built from what the configuration resolved and where the run is driven
/// from.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    resolved: &'a Resolved,
    surface: Surface,
    mode: Mode,
    allow: Vec<String>,
    home_dir: Option<PathBuf>,
    reaper: Option<Arc<Path>>,
    ephemeral: bool,
    publisher: Option<Arc<dyn hotl_agent::Publisher>>,
}

impl<'a> Launch<'a> {
    /// A run on `surface` with `resolved`'s provider and model, in the default mode, allowing
    /// nothing beyond it.
    pub fn new(resolved: &'a Resolved, surface: Surface) -> Launch<'a> {
        Launch {
            resolved,
            surface,
            mode: Mode::Default,
            allow: Vec::new(),
            home_dir: None,
            reaper: None,
            ephemeral: false,
            publisher: None,
        }
    }

    /// The permission mode (default: `default`).
    pub fn mode(&mut self, mode: Mode) -> &mut Self {
        self.mode = mode;
        self
    }

    /// Tools allowed without asking (`--allow`, an MCP server's `approval = "allow"`).
    pub fn allow(&mut self, tools: impl IntoIterator<Item = String>) -> &mut Self {
        self.allow.extend(tools);
        self
    }

    /// The user's home, whose secret locations reads are asked before (default: none).
    pub fn home_dir(&mut self, home: Option<PathBuf>) -> &mut Self {
        self.home_dir = home;
        self
    }

    /// The program that leads each command's process group (default: none).
    pub fn reaper(&mut self, reaper: Option<Arc<Path>>) -> &mut Self {
        self.reaper = reaper;
        self
    }

    /// Sessions are kept in memory only (`--no-session`; default: no).
    pub fn ephemeral(&mut self, yes: bool) -> &mut Self {
        self.ephemeral = yes;
        self
    }

    /// The remote store's publisher, when one is configured (default: none). The remote's key
    /// and the cloud's credentials are then kept from the run's tools, hooks and MCP servers.
    pub fn remote(&mut self, follower: Option<&hotl_remote::Follower>) -> &mut Self {
        self.publisher = follower.map(crate::remote::Publishing::of);
        self
    }

    /// The settings: the model, its prices, window and limits, the hooks, what this surface
    /// does (cache lifetime, titles, who answers approvals), and the permission policy.
    pub async fn settings(&self) -> Settings {
        let resolved = self.resolved;
        let mut settings = Settings::new(resolved.model.clone());
        settings.pricing = resolved.pricing.clone();
        settings.explicit_breakpoints = resolved.explicit_breakpoints;
        settings.context_window = context_window(resolved, &resolved.model).await;
        settings.max_tokens = resolved.max_tokens;
        settings.max_depth = resolved.max_depth;
        settings.max_concurrent = resolved.max_concurrent;
        settings.hooks = resolved.hooks.clone().into();
        settings.reaper = self.reaper.clone();
        settings.ephemeral = self.ephemeral;
        if let Some(publisher) = &self.publisher {
            settings.publisher = Some(Arc::clone(publisher));
            let mut hidden = settings.hidden_env.to_vec();
            hidden.extend(hotl_remote::SECRET_VARS.iter().map(|v| (*v).to_owned()));
            settings.hidden_env = hidden.into();
        }
        let headless = self.surface == Surface::Headless;
        settings.ttl = if headless {
            Ttl::FiveMinutes
        } else {
            Ttl::OneHour
        };
        // A person titles nothing headless; a headless run waits for its background children.
        if headless {
            settings.wait_background = true;
        } else {
            settings.title = resolved.title.clone();
        }
        settings.policy = Policy {
            mode: self.mode,
            allow: self.allow.clone(),
            interactive: !headless,
            secrets: secret_paths(self.home_dir.as_deref()),
            sandbox: None,
        };
        settings
    }
}

/// The context window a turn compacts against: the one configured, else the model family's,
/// else the one an OpenAI-compatible server says it serves (llama.cpp, vLLM), else 128K. A
/// local server whose chat template drops tools is warned of on stderr: the model would never
/// call one, and nothing else would say why.
pub async fn context_window(resolved: &Resolved, model: &str) -> u64 {
    let served = match &resolved.provider {
        // Only a local server is asked (see `HttpProvider::served`).
        Provider::Http(http) if http.dialect() == hotl_wire::Dialect::OpenAiChat => {
            http.served(model).await
        }
        _ => hotl_wire::Served::default(),
    };
    if served.ignores_tools {
        eprintln!(
            "hotl: warning: this server's chat template ignores tools, so the model cannot call \
             any (llama.cpp: start llama-server with --jinja and a chat template that has a \
             tools section; the README's paragraph on local models names one)"
        );
    }
    resolved
        .context_window
        .or_else(|| hotl_agent::known_context_window(model))
        .or(served.context_window)
        .unwrap_or_else(|| hotl_agent::default_context_window(model))
}
