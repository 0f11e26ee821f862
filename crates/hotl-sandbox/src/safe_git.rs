//! hotl's own git, with the programs a repository's configuration names turned off: an
//! fsmonitor, hooks, filters (`clean`, `smudge`, `process`), diff and merge drivers,
//! `core.sshCommand`, pagers, credential helpers, signing programs. A repository a model can
//! write (`.git/config`, `.gitattributes`, a `.git` file naming another directory) then gains
//! nothing when hotl runs git in it, whatever its configuration says.

use std::io;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Settings that name no program, whatever the repository set.
const OFF: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.sshCommand", ""),
    ("core.gitProxy", ""),
    ("core.askPass", ""),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("core.alternateRefsCommand", ""),
    ("diff.external", ""),
    ("credential.helper", ""),
    ("gpg.program", ""),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("protocol.allow", "never"),
    ("submodule.recurse", "false"),
    ("sequence.editor", "true"),
];

/// Keys of per-driver settings that name programs (`filter.<driver>.clean`, ...).
const DRIVER_PROGRAMS: &[(&str, &[&str])] = &[
    ("filter.", &["clean", "smudge", "process"]),
    ("diff.", &["textconv", "command"]),
    ("merge.", &["driver"]),
];

/// `git -C dir` with every program its configuration names turned off (through
/// `GIT_CONFIG_COUNT`, which outranks every configuration file), and no pager.
pub fn git(dir: &Path) -> Command {
    git_with(dir, Command::output)
}

/// [`git`], its configuration read by running `probe` on a `git config` command: for a caller
/// that keeps track of the processes it starts (so that one ending first ends them too).
pub fn git_with(dir: &Path, probe: impl FnOnce(&mut Command) -> io::Result<Output>) -> Command {
    let mut settings: Vec<(String, String)> = OFF
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    for key in driver_keys(dir, probe) {
        settings.push((key.clone(), String::new()));
        if key.starts_with("filter.")
            && let Some(driver) = key.rsplit_once('.').map(|(d, _)| d)
        {
            settings.push((format!("{driver}.required"), "false".to_owned()));
        }
    }
    let mut command = Command::new("git");
    command.arg("-C").arg(dir).arg("--no-pager");
    apply(&mut command, &settings);
    command
}

fn apply(command: &mut Command, settings: &[(String, String)]) {
    command.env("GIT_CONFIG_COUNT", settings.len().to_string());
    for (n, (key, value)) in settings.iter().enumerate() {
        command.env(format!("GIT_CONFIG_KEY_{n}"), key);
        command.env(format!("GIT_CONFIG_VALUE_{n}"), value);
    }
    command.env("GIT_TERMINAL_PROMPT", "0");
}

/// The driver settings naming programs in `dir`'s configuration (read with git itself, which
/// runs nothing to read it).
fn driver_keys(dir: &Path, probe: impl FnOnce(&mut Command) -> io::Result<Output>) -> Vec<String> {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .args(["config", "--list", "--includes", "--name-only", "-z"])
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    apply(&mut command, &[]);
    let Ok(out) = probe(&mut command) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut keys: Vec<String> = text
        .split('\0')
        .map(str::to_ascii_lowercase)
        .filter(|key| {
            DRIVER_PROGRAMS.iter().any(|(section, names)| {
                key.starts_with(section)
                    && key.matches('.').count() >= 2
                    && names.iter().any(|n| key.ends_with(&format!(".{n}")))
            })
        })
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_programs_do_not_run() {
        let present = Command::new("git").arg("--version").output().is_ok();
        if !hotl_testkit::require("git", present).expect("git, under CI") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("r");
        let marker = dir.path().join("ran");
        assert!(
            Command::new("git")
                .args(["init", "-q"])
                .arg(&repo)
                .status()
                .unwrap()
                .success()
        );
        let touch = format!("touch {}; false", marker.display());
        let config = format!(
            "[core]\n\tfsmonitor = \"{touch}\"\n\thooksPath = hooks\n[filter \"evil\"]\n\tclean = \"{touch}\"\n\trequired = true\n"
        );
        let mut existing = std::fs::read_to_string(repo.join(".git/config")).unwrap();
        existing.push_str(&config);
        std::fs::write(repo.join(".git/config"), existing).unwrap();
        std::fs::write(repo.join(".gitattributes"), "* filter=evil\n").unwrap();
        std::fs::write(repo.join("a.txt"), "a\n").unwrap();
        let status = git(&repo).args(["status", "--porcelain"]).output().unwrap();
        assert!(status.status.success());
        let add = git(&repo).args(["add", "-A"]).output().unwrap();
        assert!(
            add.status.success(),
            "{}",
            String::from_utf8_lossy(&add.stderr)
        );
        assert!(!marker.exists(), "a configured program ran");
        // Plain git runs it: the test does test something.
        let _ = Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(["add", "-A"])
            .output();
        assert!(marker.exists(), "plain git runs the configured programs");
    }
}
