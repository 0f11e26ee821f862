//! The agents whose sessions hotl imports, and what each is called.

use std::fmt;
use std::str::FromStr;

/// An agent whose session files hotl can import.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// Claude Code (`~/.claude/projects/<dir>/<id>.jsonl`).
    Claude,
    /// The Codex CLI (`~/.codex/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl[.zst]`).
    Codex,
    /// pi (`~/.pi/agent/sessions/--<cwd>--/<ts>_<id>.jsonl`).
    Pi,
}

impl Source {
    /// Every source, in the order help lists them.
    pub const ALL: [Source; 3] = [Source::Claude, Source::Codex, Source::Pi];

    /// The name the `import` record gives it (`claude-code`, `codex`, `pi`).
    pub fn record_name(self) -> &'static str {
        match self {
            Source::Claude => "claude-code",
            Source::Codex => "codex",
            Source::Pi => "pi",
        }
    }

    /// The word the command line takes (`claude`, `codex`, `pi`).
    pub fn arg(self) -> &'static str {
        match self {
            Source::Claude => "claude",
            Source::Codex => "codex",
            Source::Pi => "pi",
        }
    }

    /// How people call it.
    pub fn display(self) -> &'static str {
        match self {
            Source::Claude => "Claude Code",
            Source::Codex => "Codex",
            Source::Pi => "pi",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display())
    }
}

impl FromStr for Source {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "claude" | "claude-code" => Ok(Source::Claude),
            "codex" => Ok(Source::Codex),
            "pi" => Ok(Source::Pi),
            other => Err(format!("unknown source {other:?} (claude, codex or pi)")),
        }
    }
}
