//! Where each agent keeps its sessions, finding one by id, and listing a directory's sessions
//! for a picker (`/resume @claude`): newest first, only those whose working directory is the
//! one asked about.
//!
//! Roots: `$CLAUDE_CONFIG_DIR` (one path or a comma-separated list) else `~/.claude`, then
//! `projects/`; `$CODEX_HOME` else `~/.codex`, then `sessions/` and `archived_sessions/`;
//! `$PI_CODING_AGENT_DIR` else `~/.pi/agent`, then `sessions/`. A variable set to blanks
//! counts as unset.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::error::{ImportError, Result};
use crate::source::Source;

/// The agents' home directories.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Homes {
    /// Claude Code's config directories (each holding `projects/`).
    pub claude: Vec<PathBuf>,
    /// Codex's home (holding `sessions/`, `archived_sessions/`).
    pub codex: Option<PathBuf>,
    /// pi's agent directory (holding `sessions/`).
    pub pi: Option<PathBuf>,
}

impl Homes {
    /// From the environment (see the module doc).
    pub fn from_env() -> Homes {
        Homes::from_vars(|k| std::env::var_os(k))
    }

    /// From `var` (an environment lookup; tests pass their own).
    pub fn from_vars(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Homes {
        let set = |k: &str| {
            var(k)
                .map(|v| v.to_string_lossy().trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let home = set("HOME").map(PathBuf::from);
        let claude = match set("CLAUDE_CONFIG_DIR") {
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(PathBuf::from)
                .collect(),
            None => home
                .iter()
                .flat_map(|h| [h.join(".claude"), h.join(".config/claude")])
                .collect(),
        };
        Homes {
            claude,
            codex: set("CODEX_HOME")
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".codex"))),
            pi: set("PI_CODING_AGENT_DIR")
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".pi/agent"))),
        }
    }

    /// The directories holding `source`'s session files.
    pub fn roots(&self, source: Source) -> Vec<PathBuf> {
        match source {
            Source::Claude => self
                .claude
                .iter()
                .map(|c| {
                    // The variable may name the config directory or its `projects/`.
                    if c.ends_with("projects") {
                        c.clone()
                    } else {
                        c.join("projects")
                    }
                })
                .collect(),
            Source::Codex => self
                .codex
                .iter()
                .flat_map(|c| [c.join("sessions"), c.join("archived_sessions")])
                .collect(),
            Source::Pi => self.pi.iter().map(|p| p.join("sessions")).collect(),
        }
    }
}

/// What a cheap look at a session file found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Peek {
    /// The session id the file names.
    pub id: Option<String>,
    /// The working directory it recorded.
    pub cwd: Option<String>,
    /// Its title, else its first typed prompt.
    pub title: Option<String>,
    /// Non-blank lines.
    pub records: u64,
}

/// A session a picker can offer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Which agent wrote it.
    pub source: Source,
    /// The file.
    pub path: PathBuf,
    /// The agent's id for it.
    pub source_id: String,
    /// Its title, else its first typed prompt.
    pub title: Option<String>,
    /// When the file last changed.
    pub modified: SystemTime,
    /// The working directory it recorded.
    pub cwd: Option<String>,
    /// Its line count.
    pub records: Option<u64>,
}

/// `source`'s sessions whose working directory is `cwd`, newest first.
pub fn discover(source: Source, homes: &Homes, cwd: &Path) -> Vec<Candidate> {
    let want = canonical(cwd);
    let mut out: Vec<Candidate> = session_files(source, homes)
        .into_iter()
        .filter_map(|path| {
            let peek = peek(source, &path)?;
            let at = peek.cwd.as_deref().map(|c| canonical(Path::new(c)))?;
            if at != want {
                return None;
            }
            let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
            Some(Candidate {
                source,
                source_id: peek.id.unwrap_or_else(|| id_in_name(source, &path)),
                title: peek.title.map(|t| {
                    hotl_text::first_nonblank_line(&t)
                        .chars()
                        .take(120)
                        .collect()
                }),
                modified,
                cwd: peek.cwd,
                records: Some(peek.records),
                path,
            })
        })
        .collect();
    out.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.path.cmp(&b.path)));
    out
}

/// The file `query` names: a path, else a session id or a prefix of one.
pub fn resolve(source: Source, homes: &Homes, query: &str) -> Result<PathBuf> {
    let path = Path::new(query);
    if path.is_file() {
        return Ok(path.to_owned());
    }
    let q = query.to_ascii_lowercase();
    let mut hits: Vec<PathBuf> = session_files(source, homes)
        .into_iter()
        .filter(|p| id_in_name(source, p).to_ascii_lowercase().starts_with(&q))
        .collect();
    if q.is_empty() || query.contains('/') {
        hits.clear();
    }
    match hits.len() {
        0 => Err(ImportError::NoMatch {
            agent: source.display(),
            query: query.to_owned(),
            looked: homes
                .roots(source)
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        }),
        1 => Ok(hits.remove(0)),
        _ => {
            hits.sort();
            Err(ImportError::Ambiguous {
                agent: source.display(),
                query: query.to_owned(),
                candidates: hits
                    .iter()
                    .map(|p| format!("  {}  {}", id_in_name(source, p), p.display()))
                    .collect::<Vec<_>>()
                    .join("\n"),
            })
        }
    }
}

/// Every session file of `source` (not sub-agent transcripts; a `.zst` only when no plain
/// file of the same name exists).
pub fn session_files(source: Source, homes: &Homes) -> Vec<PathBuf> {
    let depth = match source {
        Source::Claude | Source::Pi => 2,
        Source::Codex => 5,
    };
    let mut out = Vec::new();
    for root in homes.roots(source) {
        walk(&root, depth, &mut out);
    }
    out.retain(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let plain = name.ends_with(".jsonl");
        let packed = name.ends_with(".jsonl.zst");
        match source {
            Source::Claude => plain && !name.starts_with("agent-"),
            Source::Codex => {
                name.starts_with("rollout-")
                    && (plain || (packed && !p.with_extension("").is_file()))
            }
            Source::Pi => plain,
        }
    });
    out.sort();
    out
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() && depth > 1 => walk(&path, depth - 1, out),
            Ok(t) if t.is_file() => out.push(path),
            _ => {}
        }
    }
}

/// The session id a file's name carries: Claude `<id>.jsonl`, Codex
/// `rollout-<time>-<id>.jsonl[.zst]`, pi `<time>_<id>.jsonl`.
pub(crate) fn id_in_name(source: Source, path: &Path) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.trim_end_matches(".zst").trim_end_matches(".jsonl");
    match source {
        Source::Claude => stem.to_owned(),
        Source::Codex => {
            // rollout-YYYY-MM-DDThh-mm-ss-<id>
            let rest = stem.strip_prefix("rollout-").unwrap_or(stem);
            rest.get(20..).unwrap_or(rest).to_owned()
        }
        Source::Pi => stem.rsplit('_').next().unwrap_or(stem).to_owned(),
    }
}

/// The cheap look at one file.
pub(crate) fn peek(source: Source, path: &Path) -> Option<Peek> {
    match source {
        Source::Claude => crate::claude::peek(path),
        Source::Codex => crate::codex::peek(path),
        Source::Pi => crate::pi::peek(path),
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_variables_count_as_unset() {
        let homes = Homes::from_vars(|k| match k {
            "HOME" => Some("/h".into()),
            "CLAUDE_CONFIG_DIR" => Some("  ".into()),
            "CODEX_HOME" => Some("/c".into()),
            _ => None,
        });
        assert_eq!(
            homes.claude,
            [PathBuf::from("/h/.claude"), "/h/.config/claude".into()]
        );
        assert_eq!(homes.codex, Some("/c".into()));
        assert_eq!(homes.pi, Some("/h/.pi/agent".into()));
        let list =
            Homes::from_vars(|k| (k == "CLAUDE_CONFIG_DIR").then(|| "/a, /b/projects".into()));
        assert_eq!(
            list.roots(Source::Claude),
            [PathBuf::from("/a/projects"), "/b/projects".into()]
        );
    }

    #[test]
    fn ids_in_file_names() {
        let codex =
            Path::new("rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl.zst");
        assert_eq!(
            id_in_name(Source::Codex, codex),
            "019e1625-789d-76c0-80ab-3724b5ddb799"
        );
        let pi = Path::new("2026-01-01T10-00-00-000Z_0193aabb-cc.jsonl");
        assert_eq!(id_in_name(Source::Pi, pi), "0193aabb-cc");
    }
}
