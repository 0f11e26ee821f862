//! Where a Claude Code session's sub-agent transcripts are: `<session>/subagents/agent-<id>.jsonl`
//! (2.1.x, with `agent-<id>.meta.json` in later builds) or `agent-<id>.jsonl` beside the
//! session (2.0.x, which also holds other sessions' agents: the first record's `sessionId`
//! says whose). The compaction summariser (`acompact-*`) and side questions are not
//! sub-agents of the conversation.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// A sub-agent transcript found for a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SubAgentFile {
    pub path: PathBuf,
    /// The id in its name (`agent-<id>.jsonl`).
    pub agent_id: String,
    /// The call that started it, from its `.meta.json`.
    pub call: Option<String>,
    /// Its agent type and description, from its `.meta.json`.
    pub agent: Option<String>,
    pub description: Option<String>,
}

/// The sub-agent transcripts of the session in `session_file` (whose id is `session_id`).
pub(crate) fn find_subagents(session_file: &Path, session_id: &str) -> Vec<SubAgentFile> {
    let Some(dir) = session_file.parent() else {
        return Vec::new();
    };
    let stem = file_stem(session_file);
    let mut out = Vec::new();
    let nested = dir.join(&stem).join("subagents");
    for path in agent_files(&nested) {
        out.push(describe(path));
    }
    for path in agent_files(dir) {
        if first_session_id(&path).as_deref() == Some(session_id) {
            out.push(describe(path));
        }
    }
    out.retain(|a| {
        !a.agent_id.starts_with("acompact") && !a.agent_id.starts_with("aside_question")
    });
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The session file a sub-agent transcript belongs to, when it is where Claude Code puts it.
pub(crate) fn parent_session_file(agent_file: &Path, session_id: &str) -> Option<PathBuf> {
    let dir = agent_file.parent()?;
    let candidates = [
        dir.join(format!("{session_id}.jsonl")),
        dir.parent()?.parent()?.join(format!("{session_id}.jsonl")),
    ];
    candidates.into_iter().find(|p| p.is_file())
}

fn agent_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("agent-") && name.ends_with(".jsonl")
        })
        .collect()
}

fn file_stem(path: &Path) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.trim_end_matches(".zst")
        .trim_end_matches(".jsonl")
        .to_owned()
}

fn describe(path: PathBuf) -> SubAgentFile {
    let stem = file_stem(&path);
    let agent_id = stem.trim_start_matches("agent-").to_owned();
    let meta: Option<Value> = std::fs::read(path.with_file_name(format!("{stem}.meta.json")))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let field = |k: &str| {
        meta.as_ref()
            .and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    SubAgentFile {
        call: field("toolUseId"),
        agent: field("agentType"),
        description: field("description"),
        agent_id,
        path,
    }
}

/// The `sessionId` of the first record that has one (a few lines in).
pub(crate) fn first_session_id(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    for line in std::io::BufReader::new(file).lines().take(20) {
        let value: Value = serde_json::from_str(&line.ok()?).ok()?;
        if let Some(id) = value.get("sessionId").and_then(Value::as_str) {
            return Some(id.to_owned());
        }
    }
    None
}
