//! The rules of a session: what a confined command (and hotl's own file tools) may read, write
//! and reach. Computed once per session from the project, the home and `[sandbox]`; the same
//! value is checked by the file tools and applied to each command by the kernel.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::{Config, Mode, config::expand};

/// Where the secrets a user keeps in their home live, relative to it: nothing confined reads
/// them.
pub const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".config/op",
    ".netrc",
    ".git-credentials",
    ".docker/config.json",
    ".kube",
    ".gnupg",
    ".password-store",
    ".local/share/keyrings",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    // Browser profiles: cookies and saved passwords.
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    "snap/firefox",
];

/// Build caches commands expect to write, relative to the home (when they exist).
const HOME_CACHES: &[&str] = &[
    ".cache",
    ".cargo/registry",
    ".cargo/git",
    ".npm",
    "go/pkg/mod",
    ".m2/repository",
    ".gradle/caches",
];

/// Devices a confined command may write: writing to them changes no file.
pub const WRITABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// Terminals are kept from commands: reading one would take the user's keystrokes.
const TERMINALS: &[&str] = &["/dev/tty", "/dev/console", "/dev/pts"];

/// Why a path may not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Denied {
    /// One of the home's secrets ([`HOME_SECRETS`]).
    Secret,
    /// hotl's own home: sessions, blobs, keys.
    HotlHome,
    /// `[sandbox] deny_read`.
    Configured,
    /// A terminal.
    Terminal,
}

/// A path nothing confined reads, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DenyRead {
    /// The path, symlinks resolved.
    pub path: PathBuf,
    /// Why.
    pub why: Denied,
}

/// Why a path may be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Granted {
    /// The project: its git work tree.
    Project,
    /// The project's git directory when it lies outside the work tree (a linked worktree).
    GitDir,
    /// The session's private temporary directory (`TMPDIR`).
    Temp,
    /// A build cache.
    Cache,
    /// `[sandbox] writable_roots`.
    Configured,
}

/// A directory a confined command may write under.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Writable {
    /// The directory, symlinks resolved.
    pub path: PathBuf,
    /// Why.
    pub why: Granted,
}

/// What a confined command may reach on the network.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Net {
    /// Everything (`[sandbox] network = true`).
    pub open: bool,
    /// A network of its own with a loopback interface (`[sandbox] loopback = true`).
    pub loopback: bool,
    /// The TCP port on 127.0.0.1 of hotl's proxy for `[sandbox] allow_domains`.
    pub proxy: Option<u16>,
    /// The hosts the proxy lets through.
    pub allow_domains: Vec<String>,
}

/// The rules of one session.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rules {
    /// The mode.
    pub mode: Mode,
    /// The working directory the rules were made for.
    pub cwd: PathBuf,
    /// Where writes may go (empty in read-only mode).
    pub writable: Vec<Writable>,
    /// What may not be read (anything under these).
    pub deny_read: Vec<DenyRead>,
    /// The session's private temporary directory, given to commands as `TMPDIR`.
    pub tmpdir: Option<PathBuf>,
    /// The network.
    pub net: Net,
}

/// What the rules are made from.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// The mode.
    pub mode: Mode,
    /// The session's working directory.
    pub cwd: PathBuf,
    /// The user's home directory.
    pub home: Option<PathBuf>,
    /// hotl's home (sessions, blobs, keys).
    pub hotl_home: Option<PathBuf>,
    /// More paths to keep from reading (hotl's config file when it holds a key).
    pub extra_secrets: Vec<PathBuf>,
    /// The session's private temporary directory.
    pub tmpdir: Option<PathBuf>,
    /// `[sandbox]`.
    pub config: Config,
}

/// A refusal by the rules, naming the rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A read under a denied path.
    Read {
        /// What was to be read.
        path: PathBuf,
        /// The denied path it lies under.
        under: PathBuf,
        /// Why that path is denied.
        why: Denied,
    },
    /// A write outside every writable directory (or any write in read-only mode).
    Write {
        /// What was to be written.
        path: PathBuf,
        /// The mode.
        mode: Mode,
        /// Where writes may go.
        writable: Vec<PathBuf>,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Read { path, under, why } => {
                let rule = match why {
                    Denied::Secret => "the home's secrets are not readable",
                    Denied::HotlHome => "hotl's own home (sessions, blobs, keys) is not readable",
                    Denied::Configured => "[sandbox] deny_read",
                    Denied::Terminal => "terminals are not readable",
                };
                write!(
                    f,
                    "the sandbox refused to read {}: it is under {} ({rule})",
                    path.display(),
                    under.display()
                )
            }
            Refusal::Write { path, mode, .. } if *mode == Mode::ReadOnly => write!(
                f,
                "the sandbox refused to write {}: the sandbox is read-only (nothing may be written)",
                path.display()
            ),
            Refusal::Write { path, writable, .. } => {
                let places: Vec<String> =
                    writable.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "the sandbox refused to write {}: writes go only to {} ([sandbox] writable_roots adds more)",
                    path.display(),
                    places.join(", ")
                )
            }
        }
    }
}

impl Rules {
    /// The rules for `inputs`; paths that do not exist are left out (a rule needs a file).
    pub fn compute(inputs: &Inputs) -> Rules {
        let home = inputs.home.as_deref();
        let mut deny_read = Vec::new();
        let mut deny = |path: PathBuf, why: Denied| {
            if let Ok(path) = path.canonicalize()
                && !deny_read.iter().any(|d: &DenyRead| d.path == path)
            {
                deny_read.push(DenyRead { path, why });
            }
        };
        if let Some(home) = home {
            for secret in HOME_SECRETS {
                deny(home.join(secret), Denied::Secret);
            }
        }
        for secret in &inputs.extra_secrets {
            deny(secret.clone(), Denied::Secret);
        }
        if let Some(hotl_home) = &inputs.hotl_home {
            deny(hotl_home.clone(), Denied::HotlHome);
        }
        for path in &inputs.config.deny_read {
            deny(expand(path, home), Denied::Configured);
        }
        for terminal in TERMINALS {
            deny(PathBuf::from(terminal), Denied::Terminal);
        }
        let mut rules = Rules {
            mode: inputs.mode,
            cwd: inputs.cwd.clone(),
            writable: Vec::new(),
            deny_read,
            tmpdir: inputs.tmpdir.clone(),
            net: net(&inputs.config),
        };
        if inputs.mode == Mode::WorkspaceWrite {
            rules.writable = writable(inputs);
        }
        rules
    }

    /// These rules for a command run in `cwd` (an isolated child's worktree): the project is
    /// the one `cwd` is in; the rest is the same.
    pub fn for_cwd(&self, cwd: &Path) -> Rules {
        let mut rules = self.clone();
        if cwd == self.cwd || self.mode != Mode::WorkspaceWrite {
            rules.cwd = cwd.to_owned();
            return rules;
        }
        rules
            .writable
            .retain(|w| !matches!(w.why, Granted::Project | Granted::GitDir));
        let mut project = Vec::new();
        push_project(cwd, &mut project);
        project.append(&mut rules.writable);
        rules.writable = project;
        rules.cwd = cwd.to_owned();
        rules
    }

    /// Whether a confined process may read `path` (symlinks resolved as far as it exists).
    pub fn check_read(&self, path: &Path) -> Result<(), Refusal> {
        let real = resolve(path);
        if self.writable_root(&real).is_some() {
            return Ok(());
        }
        match self.deny_read.iter().find(|d| real.starts_with(&d.path)) {
            Some(denied) => Err(Refusal::Read {
                path: path.to_owned(),
                under: denied.path.clone(),
                why: denied.why,
            }),
            None => Ok(()),
        }
    }

    /// Whether a confined process may write `path`.
    pub fn check_write(&self, path: &Path) -> Result<(), Refusal> {
        let real = resolve(path);
        if self.writable_root(&real).is_some() {
            return Ok(());
        }
        Err(Refusal::Write {
            path: path.to_owned(),
            mode: self.mode,
            writable: self.writable.iter().map(|w| w.path.clone()).collect(),
        })
    }

    /// The writable directory `real` lies under.
    pub fn writable_root(&self, real: &Path) -> Option<&Writable> {
        self.writable.iter().find(|w| real.starts_with(&w.path))
    }

    /// The directories and files to grant reading on: everything from `/` down, except the
    /// denied paths (Landlock only grants, so a denial is made by granting its siblings, at
    /// each level down to it). Symbolic links are not followed: a link is reached through its
    /// target's own place.
    pub fn read_grants(&self) -> Vec<PathBuf> {
        let denied: Vec<&Path> = self.deny_read.iter().map(|d| d.path.as_path()).collect();
        let mut grants = Vec::new();
        split(Path::new("/"), &denied, &mut grants);
        grants
    }
}

/// Grants `dir` whole, or (when a denied path lies beneath it) each of its entries that is not
/// denied, recursing towards the denied paths.
fn split(dir: &Path, denied: &[&Path], grants: &mut Vec<PathBuf>) {
    if denied.contains(&dir) {
        return;
    }
    if !denied.iter().any(|d| d.starts_with(dir)) {
        grants.push(dir.to_owned());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            continue;
        }
        split(&entry.path(), denied, grants);
    }
}

/// The network part of `config`.
fn net(config: &Config) -> Net {
    Net {
        open: config.network,
        loopback: config.loopback && !config.network,
        proxy: None,
        allow_domains: if config.network {
            Vec::new()
        } else {
            config.allow_domains.clone()
        },
    }
}

/// The writable directories of workspace-write mode.
fn writable(inputs: &Inputs) -> Vec<Writable> {
    let mut out = Vec::new();
    push_project(&inputs.cwd, &mut out);
    let mut add = |path: PathBuf, why: Granted| {
        if let Ok(path) = path.canonicalize()
            && !out.iter().any(|w: &Writable| w.path == path)
        {
            out.push(Writable { path, why });
        }
    };
    if let Some(tmp) = &inputs.tmpdir {
        add(tmp.clone(), Granted::Temp);
    }
    if let Some(home) = &inputs.home {
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".cargo"));
        add(cargo_home.join("registry"), Granted::Cache);
        add(cargo_home.join("git"), Granted::Cache);
        if let Some(cache) = std::env::var_os("XDG_CACHE_HOME") {
            add(PathBuf::from(cache), Granted::Cache);
        }
        for cache in HOME_CACHES {
            add(home.join(cache), Granted::Cache);
        }
    }
    for root in &inputs.config.writable_roots {
        add(expand(root, inputs.home.as_deref()), Granted::Configured);
    }
    out
}

/// The project `cwd` is in (its git work tree, else `cwd`), and its git directory when that
/// lies elsewhere (a linked worktree's `<repository>/.git/worktrees/<name>`, with the
/// repository's object store, which `git add` writes).
fn push_project(cwd: &Path, out: &mut Vec<Writable>) {
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_owned());
    let (root, git_dir) = crate::git::locate(&cwd);
    out.push(Writable {
        path: root.clone(),
        why: Granted::Project,
    });
    if let Some(git_dir) = git_dir
        && !git_dir.starts_with(&root)
    {
        let objects = crate::git::common_dir(&git_dir).join("objects");
        out.push(Writable {
            path: git_dir,
            why: Granted::GitDir,
        });
        if let Ok(objects) = objects.canonicalize() {
            out.push(Writable {
                path: objects,
                why: Granted::GitDir,
            });
        }
    }
}

/// `path` with symlinks resolved as far as it exists, and `.`/`..` applied lexically beyond.
pub fn resolve(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other),
        }
    }
    let mut existing = normal.clone();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent.to_owned();
            }
            _ => return normal,
        }
    }
}
