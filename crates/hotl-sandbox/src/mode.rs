//! The sandbox's modes: what a command may write.

use std::fmt;

/// How much a confined command may do (`--sandbox`, `[sandbox] mode`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Reads the system and the project; writes nothing (plan mode runs commands this way).
    ReadOnly,
    /// Writes the project, a private temporary directory, build caches and the configured
    /// roots; reads all but the secrets. The default.
    #[default]
    WorkspaceWrite,
    /// No sandbox: commands run as hotl does, asked first unless the mode says otherwise.
    Off,
}

impl Mode {
    /// Every mode, in the order help lists them.
    pub const ALL: [Mode; 3] = [Mode::ReadOnly, Mode::WorkspaceWrite, Mode::Off];

    /// Its name on the command line and in the config file.
    pub fn name(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read-only",
            Mode::WorkspaceWrite => "workspace-write",
            Mode::Off => "off",
        }
    }

    /// The mode named `name`.
    pub fn from_name(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether commands are confined at all.
    pub fn confines(self) -> bool {
        self != Mode::Off
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for mode in Mode::ALL {
            assert_eq!(Mode::from_name(mode.name()), Some(mode));
        }
        assert_eq!(Mode::from_name("on"), None);
        assert_eq!(Mode::default(), Mode::WorkspaceWrite);
    }
}
