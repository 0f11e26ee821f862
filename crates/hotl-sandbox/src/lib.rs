//! hotl's sandbox: the rules that confine what a tool starts, and the kernel features that
//! enforce them.
//!
//! A session computes its [`Rules`] once ([`Sandbox::prepare`]): the project and its git work
//! tree, a private temporary directory, build caches and `[sandbox] writable_roots` may be
//! written; everything but the home's secrets, hotl's own home and `[sandbox] deny_read` may
//! be read; the network is closed unless `[sandbox]` opens it (a loopback of the command's own,
//! a proxy to `allow_domains`, or all of it). The process that leads a command's group
//! [confines](confine) itself to those rules before it starts the command (Landlock for files
//! and TCP, seccomp for other sockets, a network namespace for a loopback), so the command and
//! all it starts inherit them. hotl's own file tools check the same rules
//! ([`Rules::check_read`], [`Rules::check_write`]).

pub mod config;
#[cfg(target_os = "linux")]
mod confine;
pub mod credentials;
mod explain;
mod git;
#[cfg(target_os = "linux")]
pub mod landlock;
mod mode;
#[cfg(target_os = "linux")]
mod netns;
mod programs;
pub mod proxy;
mod rules;
mod safe_git;
#[cfg(target_os = "linux")]
pub mod seccomp;

pub use config::Config;
#[cfg(target_os = "linux")]
pub use confine::{Applied, Error, confine};
pub use explain::explain;
pub use mode::Mode;
pub use programs::runs_programs;
pub use rules::{
    Denied, DenyRead, Granted, HOME_SECRETS, Inputs, Net, Refusal, Rules, Writable, resolve,
};
pub use safe_git::{git, git_with};

/// The flag that carries a command's rules (JSON) to the process that leads its group.
pub const RULES_FLAG: &str = "--sandbox-rules";

/// The sandbox of one session: its rules, the private temporary directory they name (removed
/// with it), and the proxy for `allow_domains` (stopped with it).
#[derive(Debug)]
pub struct Sandbox {
    rules: Rules,
    _tmp: Option<tempfile::TempDir>,
    _proxy: Option<proxy::Proxy>,
}

impl Sandbox {
    /// Makes the session's temporary directory (workspace-write), starts the proxy
    /// (`allow_domains`) and computes the rules. Must run inside a Tokio runtime when the
    /// proxy is wanted.
    pub async fn prepare(mut inputs: Inputs) -> std::io::Result<Sandbox> {
        let tmp = if inputs.mode == Mode::WorkspaceWrite {
            let dir = tempfile::Builder::new().prefix("hotl-sandbox-").tempdir()?;
            inputs.tmpdir = Some(dir.path().to_owned());
            Some(dir)
        } else {
            None
        };
        let mut rules = Rules::compute(&inputs);
        let proxy = if !rules.net.open && !rules.net.allow_domains.is_empty() {
            let proxy = proxy::Proxy::start(rules.net.allow_domains.clone()).await?;
            rules.net.proxy = Some(proxy.port());
            Some(proxy)
        } else {
            None
        };
        Ok(Sandbox {
            rules,
            _tmp: tmp,
            _proxy: proxy,
        })
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
}

impl Rules {
    /// The environment a confined command gets on top of its own: `TMPDIR` (the session's
    /// private directory) and, with a proxy, the `HTTP(S)_PROXY` variables.
    pub fn command_env(&self) -> Vec<(String, String)> {
        let mut env = Vec::new();
        if let Some(tmp) = &self.tmpdir
            && self.mode == Mode::WorkspaceWrite
        {
            env.push(("TMPDIR".to_owned(), tmp.display().to_string()));
        }
        if let Some(port) = self.net.proxy {
            let url = format!("http://127.0.0.1:{port}");
            for var in [
                "HTTP_PROXY",
                "HTTPS_PROXY",
                "ALL_PROXY",
                "http_proxy",
                "https_proxy",
                "all_proxy",
            ] {
                env.push((var.to_owned(), url.clone()));
            }
            env.push(("NO_PROXY".to_owned(), String::new()));
            env.push(("no_proxy".to_owned(), String::new()));
        }
        env
    }

    /// These rules with nothing writable (plan mode's commands).
    pub fn read_only(&self) -> Rules {
        let mut rules = self.clone();
        rules.mode = Mode::ReadOnly;
        rules.writable.clear();
        rules
    }
}

/// Confines this process to the rules `arg` carries (JSON, as [`RULES_FLAG`] passes them).
pub fn confine_arg(arg: &std::ffi::OsStr) -> Result<(), String> {
    let json = arg.to_str().ok_or("the rules are not UTF-8")?;
    let rules: Rules =
        serde_json::from_str(json).map_err(|e| format!("the rules do not parse: {e}"))?;
    #[cfg(target_os = "linux")]
    return confine(&rules).map(drop).map_err(|e| e.to_string());
    #[cfg(not(target_os = "linux"))]
    return Err(format!("no sandbox on {}", std::env::consts::OS));
}

/// What this machine's kernel offers the sandbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI (0: none).
    pub landlock_abi: u8,
}

impl Support {
    /// Asks the kernel.
    pub fn detect() -> Support {
        #[cfg(target_os = "linux")]
        let landlock_abi = landlock::abi();
        #[cfg(not(target_os = "linux"))]
        let landlock_abi = 0;
        Support { landlock_abi }
    }

    /// Whether commands can be confined.
    pub fn enforces(self) -> bool {
        self.landlock_abi > 0
    }

    /// Whether TCP can be confined by Landlock (ABI 4 and later); without it a closed
    /// network closes internet sockets altogether.
    pub fn tcp(self) -> bool {
        self.landlock_abi >= 4
    }
}
