//! The `[sandbox]` table of `config.toml`.

use std::path::PathBuf;

use crate::Mode;

/// What the user configured (`[sandbox]`); every field may be left out.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// `read-only`, `workspace-write` (the default) or `off`.
    pub mode: Option<Mode>,
    /// More paths commands and the file tools may not read (`~` is the home directory).
    pub deny_read: Vec<String>,
    /// More paths commands may write (`~` is the home directory).
    pub writable_roots: Vec<String>,
    /// Commands get a network of their own with a loopback interface: servers they start
    /// answer them; nothing outside is reachable.
    pub loopback: bool,
    /// Commands reach the network as hotl does.
    pub network: bool,
    /// Hosts commands may reach through hotl's proxy (`HTTP_PROXY`, `HTTPS_PROXY`): a name, or
    /// `*.example.com` for its subdomains.
    pub allow_domains: Vec<String>,
}

/// `path` with a leading `~` replaced by `home`.
pub fn expand(path: &str, home: Option<&std::path::Path>) -> PathBuf {
    match (path.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            home.join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_parses_and_unknown_keys_are_refused() {
        let config: Config = toml_like(
            r#"{"mode":"read-only","deny_read":["~/secret"],"allow_domains":["crates.io"]}"#,
        );
        assert_eq!(config.mode, Some(Mode::ReadOnly));
        assert_eq!(config.deny_read, ["~/secret"]);
        assert!(!config.network);
        assert!(serde_json::from_str::<Config>(r#"{"netwrk":true}"#).is_err());
        assert!(serde_json::from_str::<Config>(r#"{"mode":"on"}"#).is_err());
    }

    fn toml_like(json: &str) -> Config {
        serde_json::from_str(json).expect("valid")
    }

    #[test]
    fn tilde_is_the_home() {
        let home = std::path::Path::new("/home/u");
        assert_eq!(expand("~/.aws", Some(home)), home.join(".aws"));
        assert_eq!(expand("~", Some(home)), home);
        assert_eq!(expand("~other/x", Some(home)), PathBuf::from("~other/x"));
        assert_eq!(expand("/etc", Some(home)), PathBuf::from("/etc"));
    }
}
