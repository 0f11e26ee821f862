//! Permissions: which tool calls run, which are refused, which need the user's yes.

use std::path::{Path, PathBuf};

use hotl_tool::ToolKind;

pub use hotl_protocol::Mode;

/// The verdict on one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Run it.
    Allow,
    /// Ask the user (the console) — headless runs turn this into a refusal.
    Ask(String),
    /// Do not run it; the reason goes to the model as the tool's error.
    Deny(String),
}

/// Permission settings of a run.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// The mode.
    pub mode: Mode,
    /// Tools allowed without asking (`--allow TOOL`).
    pub allow: Vec<String>,
    /// Whether a person can be asked (console) or not (headless).
    pub interactive: bool,
    /// Where secrets live (`~/.ssh`, `~/.aws`, a config file holding a key, ...): reading
    /// anything under one asks, as does reading a `.env*` file outside the project.
    pub secrets: Vec<PathBuf>,
    /// The sandbox, when commands are confined: a confined command needs no question, and
    /// its rules bind the file tools too.
    pub sandbox: Option<std::sync::Arc<hotl_sandbox::Sandbox>>,
}

/// The `--allow` entry that lets a command run outside the sandbox without a question.
pub const ALLOW_UNSANDBOXED: &str = "bash:unsandboxed";

/// What one call would touch, for the permission decision.
#[derive(Clone, Copy, Debug)]
pub struct Access<'a> {
    /// The tool.
    pub tool: &'a str,
    /// What it may do.
    pub kind: ToolKind,
    /// The paths it would write.
    pub writes: &'a [PathBuf],
    /// The paths it would read.
    pub reads: &'a [PathBuf],
    /// The project directory.
    pub root: &'a Path,
    /// Whether the call's commands run in the sandbox ([`Tool::sandboxed`](crate::Tool)).
    pub sandboxed: bool,
}

impl Policy {
    /// Decides on calling `tool` (of `kind`) that writes `writes`, in project `root`.
    pub fn decide(&self, tool: &str, kind: ToolKind, writes: &[PathBuf], root: &Path) -> Decision {
        self.decide_access(&Access {
            tool,
            kind,
            writes,
            reads: &[],
            root,
            sandboxed: false,
        })
    }

    /// The sandbox commands run in, as the status line says it: its mode, or `off` when
    /// commands run unconfined.
    pub fn sandbox_name(&self) -> &'static str {
        self.sandbox
            .as_ref()
            .map_or("off", |s| s.rules().mode.name())
    }

    /// The sandbox's rules for calls made in `cwd` (read-only in plan mode), when commands
    /// are confined.
    pub fn rules_for(&self, cwd: &Path) -> Option<hotl_sandbox::Rules> {
        let rules = self.sandbox.as_ref()?.rules().for_cwd(cwd);
        Some(if self.mode == Mode::Plan {
            rules.read_only()
        } else {
            rules
        })
    }

    /// Decides on a call that touches what `access` says.
    pub fn decide_access(&self, access: &Access<'_>) -> Decision {
        let Access {
            tool,
            kind,
            writes,
            reads,
            root,
            sandboxed,
        } = *access;
        // A confined command is safe to run in every mode: plan mode's are read-only.
        let confined = kind == ToolKind::Exec && sandboxed && self.sandbox.is_some();
        if self.mode == Mode::Plan && kind != ToolKind::Read && !confined {
            return Decision::Deny(format!(
                "{tool} is not available in plan mode (read-only tools and sandboxed commands only)"
            ));
        }
        if let Some(refusal) = self.sandbox_refusal(writes, reads, root) {
            return Decision::Deny(refusal);
        }
        if let Some(decision) = self.unconfined(access) {
            return decision;
        }
        if self.mode == Mode::Bypass || confined {
            return Decision::Allow;
        }
        let allowed = self.allow.iter().any(|a| allows(a, tool));
        let secret: Vec<String> = reads
            .iter()
            .filter(|p| self.is_secret(p, root))
            .map(|p| p.display().to_string())
            .collect();
        if !secret.is_empty() && !allowed {
            return self.ask(
                format!(
                    "{tool} would read where secrets are kept: {}",
                    secret.join(", ")
                ),
                &format!("--allow {tool} or --permission-mode bypass"),
            );
        }
        let outside: Vec<String> = writes
            .iter()
            .filter(|p| !inside(p, root))
            .map(|p| p.display().to_string())
            .collect();
        if !outside.is_empty() {
            return self.ask(
                format!(
                    "{tool} would write outside the project directory: {}",
                    outside.join(", ")
                ),
                "--permission-mode bypass",
            );
        }
        match kind {
            ToolKind::Read => Decision::Allow,
            _ if allowed => Decision::Allow,
            ToolKind::Write if self.mode == Mode::AcceptEdits => Decision::Allow,
            ToolKind::Write => self.ask(
                format!("{tool} changes files"),
                &format!("--allow {tool} or --permission-mode accept-edits|bypass"),
            ),
            // Another program's tool (an MCP server's): what it does is the program's to say,
            // so it asks.
            ToolKind::External => self.ask(
                format!("{tool} is an MCP server's tool"),
                &format!(
                    "--allow {tool}, --allow with the server's prefix and *, approval = \"allow\" \
                     for the server, or --permission-mode bypass"
                ),
            ),
            ToolKind::Exec => self.ask(
                format!("{tool} runs commands"),
                &format!("--allow {tool} or --permission-mode bypass"),
            ),
        }
    }

    /// What the sandbox's rules refuse of a file tool's reads and writes, naming the rule.
    fn sandbox_refusal(
        &self,
        writes: &[PathBuf],
        reads: &[PathBuf],
        root: &Path,
    ) -> Option<String> {
        let rules = self.rules_for(root)?;
        let refused = reads
            .iter()
            .find_map(|p| rules.check_read(p).err())
            .or_else(|| writes.iter().find_map(|p| rules.check_write(p).err()))?;
        Some(refused.to_string())
    }

    /// The decision on a call that would run a program outside the sandbox: a command that
    /// asks `sandbox: false` while the sandbox is on, or a write to a file that makes a
    /// program run (git's configuration, hooks and attributes, hotl's project config). Asked
    /// in every mode unless `--allow bash:unsandboxed` (or bypass with the sandbox off, where
    /// nothing is confined anyway); `None` for any other call.
    fn unconfined(&self, access: &Access<'_>) -> Option<Decision> {
        let why = if access.kind == ToolKind::Exec
            && !access.sandboxed
            && self.sandbox.is_some()
            && !access.tool.starts_with("mcp__")
        {
            format!("{} would run outside the sandbox", access.tool)
        } else {
            let (path, why) = access
                .writes
                .iter()
                .find_map(|p| Some((p, hotl_sandbox::runs_programs(p)?)))?;
            format!(
                "{} would write {}, which makes programs run ({why})",
                access.tool,
                path.display()
            )
        };
        let unguarded = self.mode == Mode::Bypass && self.sandbox.is_none();
        if unguarded || self.allow.iter().any(|a| a == ALLOW_UNSANDBOXED) {
            return Some(Decision::Allow);
        }
        Some(self.ask(
            why,
            &format!("--allow {ALLOW_UNSANDBOXED}, or --permission-mode bypass with --sandbox off"),
        ))
    }

    /// Whether reading `path` reads a secret: under one of [`Policy::secrets`], or a `.env`
    /// file (`.env`, `.env.local`, ...) outside `root`.
    pub fn is_secret(&self, path: &Path, root: &Path) -> bool {
        let real = resolve(path);
        let env_file = real
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n == ".env" || n.starts_with(".env."));
        if env_file && !inside(&real, root) {
            return true;
        }
        self.secrets
            .iter()
            .any(|secret| real.starts_with(resolve(secret)))
    }

    /// Asks the person, or (headless) refuses, naming the flags that would allow it.
    fn ask(&self, why: String, flags: &str) -> Decision {
        if self.interactive {
            Decision::Ask(why)
        } else {
            Decision::Deny(format!(
                "permission denied: {why}; this headless run does not allow it (use {flags})"
            ))
        }
    }
}

/// Whether the `--allow` entry `entry` names `tool`: its name, or a prefix ending in `*`
/// (`mcp__github__*`: every tool of that MCP server).
pub fn allows(entry: &str, tool: &str) -> bool {
    match entry.strip_suffix('*') {
        Some(prefix) => tool.starts_with(prefix),
        None => entry == tool,
    }
}

/// Whether `path` lies inside `root` once `..` and symlinks are resolved. A path that does
/// not exist yet is judged by its nearest existing ancestor.
pub fn inside(path: &Path, root: &Path) -> bool {
    let root = root.canonicalize().unwrap_or_else(|_| resolve(root));
    resolve(path).starts_with(&root)
}

pub use hotl_sandbox::resolve;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_allow_lists() {
        let root = std::env::temp_dir();
        let inner = vec![root.join("a.txt")];
        let headless = Policy::default();
        assert_eq!(
            headless.decide("read", ToolKind::Read, &[], &root),
            Decision::Allow
        );
        // Each refusal names the flags that would allow it.
        let Decision::Deny(why) = headless.decide("bash", ToolKind::Exec, &[], &root) else {
            panic!("bash is refused headless");
        };
        assert!(
            why.ends_with("(use --allow bash or --permission-mode bypass)"),
            "{why}"
        );
        let Decision::Deny(why) = headless.decide("write", ToolKind::Write, &inner, &root) else {
            panic!("write is refused headless");
        };
        assert!(
            why.ends_with("(use --allow write or --permission-mode accept-edits|bypass)"),
            "{why}"
        );
        let edits = Policy {
            mode: Mode::AcceptEdits,
            ..Policy::default()
        };
        assert_eq!(
            edits.decide("write", ToolKind::Write, &inner, &root),
            Decision::Allow
        );
        let allow = Policy {
            allow: vec!["bash".into()],
            ..Policy::default()
        };
        assert_eq!(
            allow.decide("bash", ToolKind::Exec, &[], &root),
            Decision::Allow
        );
        let plan = Policy {
            mode: Mode::Plan,
            allow: vec!["bash".into()],
            ..Policy::default()
        };
        assert!(matches!(
            plan.decide("bash", ToolKind::Exec, &[], &root),
            Decision::Deny(_)
        ));
        let console = Policy {
            interactive: true,
            ..Policy::default()
        };
        assert!(matches!(
            console.decide("bash", ToolKind::Exec, &[], &root),
            Decision::Ask(_)
        ));
    }

    #[test]
    fn secret_locations_and_env_files_outside_the_project_ask() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let ssh = dir.path().join("home/.ssh");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&ssh).unwrap();
        std::os::unix::fs::symlink(&ssh, root.join("keys")).unwrap();
        let policy = Policy {
            secrets: vec![ssh.clone()],
            ..Policy::default()
        };
        let read = |p: PathBuf| {
            policy.decide_access(&Access {
                tool: "read",
                kind: ToolKind::Read,
                writes: &[],
                reads: &[p],
                root: &root,
                sandboxed: false,
            })
        };
        assert!(matches!(read(ssh.join("id_ed25519")), Decision::Deny(_)));
        assert!(
            matches!(read(root.join("keys/id_ed25519")), Decision::Deny(_)),
            "through a link"
        );
        assert!(matches!(
            read(dir.path().join("elsewhere/.env.local")),
            Decision::Deny(_)
        ));
        assert_eq!(
            read(root.join(".env")),
            Decision::Allow,
            "the project's own"
        );
        assert_eq!(read(root.join("src/main.rs")), Decision::Allow);
        let console = Policy {
            interactive: true,
            ..policy.clone()
        };
        assert!(matches!(
            console.decide_access(&Access {
                tool: "grep",
                kind: ToolKind::Read,
                writes: &[],
                reads: std::slice::from_ref(&ssh),
                root: &root,
                sandboxed: false,
            }),
            Decision::Ask(_)
        ));
    }

    #[test]
    fn dot_dot_and_symlinks_are_resolved_before_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(&root).unwrap();
        let outside = dir.path().join("elsewhere");
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        assert!(inside(&root.join("src/new.rs"), &root));
        assert!(!inside(&root.join("../elsewhere/x"), &root));
        assert!(!inside(&root.join("link/x"), &root));
        let edits = Policy {
            mode: Mode::AcceptEdits,
            ..Policy::default()
        };
        assert!(matches!(
            edits.decide("write", ToolKind::Write, &[root.join("link/x")], &root),
            Decision::Deny(_)
        ));
        let bypass = Policy {
            mode: Mode::Bypass,
            ..Policy::default()
        };
        assert_eq!(
            bypass.decide("write", ToolKind::Write, &[root.join("link/x")], &root),
            Decision::Allow
        );
    }
}
