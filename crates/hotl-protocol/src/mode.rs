//! The permission mode: which tool calls run without asking.

use serde::{Deserialize, Serialize};

/// The permission mode (recorded in the log; forks inherit it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// The console asks before commands and writes; headless runs refuse them.
    #[default]
    Default,
    /// Writes inside the project run without asking; commands still ask.
    #[serde(alias = "acceptEdits")]
    AcceptEdits,
    /// Everything runs, writes outside the project included.
    #[serde(alias = "bypassPermissions")]
    Bypass,
    /// Read-only tools only.
    Plan,
}

impl Mode {
    /// Every mode, in the order Shift+Tab does not follow but `--help` lists them.
    pub const ALL: [Mode; 4] = [Mode::Default, Mode::AcceptEdits, Mode::Bypass, Mode::Plan];

    /// The name as typed and recorded.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "accept-edits",
            Mode::Bypass => "bypass",
            Mode::Plan => "plan",
        }
    }

    /// Parses a name (Claude Code's spellings of two of them too).
    pub fn from_name(name: &str) -> Option<Mode> {
        match name {
            "default" => Some(Mode::Default),
            "accept-edits" | "acceptEdits" => Some(Mode::AcceptEdits),
            "bypass" | "bypassPermissions" => Some(Mode::Bypass),
            "plan" => Some(Mode::Plan),
            _ => None,
        }
    }

    /// The mode Shift+Tab moves to: default, accept-edits, plan, and round again (bypass is
    /// never reached by a key: it is asked for by name).
    pub fn cycled(self) -> Mode {
        match self {
            Mode::Default => Mode::AcceptEdits,
            Mode::AcceptEdits => Mode::Plan,
            Mode::Bypass | Mode::Plan => Mode::Default,
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(name: &str) -> Result<Mode, String> {
        Mode::from_name(name).ok_or_else(|| {
            format!("unknown permission mode {name:?}; use default, accept-edits, bypass or plan")
        })
    }
}
