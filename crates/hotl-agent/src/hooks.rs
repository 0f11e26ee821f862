//! Hooks: a user's commands run at points of a session's life. Each gets the event as one
//! JSON object on stdin (a hook that does not read it is not an error), runs with `sh -c` in
//! the session's directory with the environment tools get (no provider keys), and is ended
//! after its timeout. A hook at a `before_*` point that fails (exits non-zero, cannot start,
//! times out) cancels what was about to happen, and what it wrote on stderr says why; a hook
//! after the fact cannot undo it, and its failure is only told.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Where in a session's life a hook runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HookPoint {
    /// Before the console switches to another session (`/new`, `/resume`, `/fork`, `/drop`):
    /// a failing hook keeps the console where it is.
    BeforeSwitch,
    /// After a switch.
    Switch,
}

impl HookPoint {
    /// Every point, by the name the config uses.
    pub const ALL: &[HookPoint] = &[HookPoint::BeforeSwitch, HookPoint::Switch];

    /// The name the config and the event's `event` field use.
    pub fn name(self) -> &'static str {
        match self {
            HookPoint::BeforeSwitch => "before_switch",
            HookPoint::Switch => "switch",
        }
    }

    /// The point `name` names.
    pub fn from_name(name: &str) -> Option<HookPoint> {
        HookPoint::ALL.iter().copied().find(|p| p.name() == name)
    }

    /// Whether a failing hook cancels what is about to happen.
    pub fn cancels(self) -> bool {
        matches!(self, HookPoint::BeforeSwitch)
    }
}

/// One configured hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hook {
    /// When it runs.
    pub point: HookPoint,
    /// The command, run with `sh -c`.
    pub command: String,
    /// How long it may take.
    pub timeout: Duration,
}

impl Hook {
    /// The default timeout (10 s).
    pub const TIMEOUT: Duration = Duration::from_secs(10);
}

/// Runs every hook at `point`, in order, with `event` on stdin; stops at the first that
/// fails when the point cancels. `Err` says why (its stderr, or what went wrong).
pub async fn run_hooks(
    hooks: &[Hook],
    point: HookPoint,
    event: &serde_json::Value,
    cwd: &Path,
    hidden_env: &[String],
) -> Result<(), String> {
    let mut failed = None;
    for hook in hooks.iter().filter(|h| h.point == point) {
        if let Err(why) = run_one(hook, event, cwd, hidden_env).await {
            tracing::warn!(
                point = point.name(),
                command = hook.command,
                "a hook failed: {why}"
            );
            if point.cancels() {
                return Err(why);
            }
            failed.get_or_insert(why);
        }
    }
    failed.map_or(Ok(()), Err)
}

async fn run_one(
    hook: &Hook,
    event: &serde_json::Value,
    cwd: &Path,
    hidden_env: &[String],
) -> Result<(), String> {
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(&hook.command)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for var in hidden_env {
        command.env_remove(var);
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("the hook `{}` did not start: {e}", hook.command))?;
    let mut input = serde_json::to_vec(event).unwrap_or_default();
    input.push(b'\n');
    let stdin = child.stdin.take();
    let stderr = child.stderr.take();
    let exchange = async {
        if let Some(mut stdin) = stdin {
            // A hook that does not read its input closes the pipe: not an error.
            let _ = stdin.write_all(&input).await;
        }
        let mut said = Vec::new();
        if let Some(mut stderr) = stderr {
            let _ = stderr.read_to_end(&mut said).await;
        }
        (child.wait().await, said)
    };
    let (status, said) = tokio::time::timeout(hook.timeout, exchange)
        .await
        .map_err(|_| {
            format!(
                "the hook `{}` took longer than {} s and was stopped",
                hook.command,
                hook.timeout.as_secs()
            )
        })?;
    let status = status.map_err(|e| format!("the hook `{}` failed: {e}", hook.command))?;
    if status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&said).trim().to_owned();
    Err(if said.is_empty() {
        format!("the hook `{}` exited with {status}", hook.command)
    } else {
        said
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(command: &str) -> Hook {
        Hook {
            point: HookPoint::BeforeSwitch,
            command: command.to_owned(),
            timeout: Duration::from_secs(5),
        }
    }

    async fn before(hooks: &[Hook]) -> Result<(), String> {
        let dir = std::env::temp_dir();
        run_hooks(
            hooks,
            HookPoint::BeforeSwitch,
            &serde_json::json!({"event": "before_switch", "reason": "new"}),
            &dir,
            &["HOTL_TEST_SECRET".to_owned()],
        )
        .await
    }

    #[tokio::test]
    async fn a_failing_hook_cancels_with_what_it_said() {
        assert_eq!(before(&[hook("true")]).await, Ok(()));
        assert_eq!(
            before(&[hook("echo not now >&2; exit 3")]).await,
            Err("not now".to_owned())
        );
        let silent = before(&[hook("exit 1")]).await.unwrap_err();
        assert!(silent.contains("exited with"), "{silent}");
        // The event arrives on stdin; a hook that ignores it is fine.
        assert_eq!(
            before(&[hook(r#"grep -q '"reason":"new"' || exit 1"#)]).await,
            Ok(())
        );
        assert_eq!(before(&[hook("exec 0<&-; true")]).await, Ok(()));
    }

    #[tokio::test]
    async fn a_slow_hook_is_stopped_and_cancels() {
        let mut slow = hook("sleep 30");
        slow.timeout = Duration::from_millis(200);
        let why = before(&[slow]).await.unwrap_err();
        assert!(why.contains("took longer than"), "{why}");
    }

    #[tokio::test]
    async fn hooks_do_not_see_hidden_variables() {
        // HOME stands in for a provider key: it is set wherever the tests run.
        let sees = |hidden: Vec<String>| async move {
            run_hooks(
                &[hook(r#"[ -z "$HOME" ] || { echo sees HOME >&2; exit 1; }"#)],
                HookPoint::BeforeSwitch,
                &serde_json::json!({}),
                &std::env::temp_dir(),
                &hidden,
            )
            .await
        };
        assert_eq!(sees(vec!["HOME".to_owned()]).await, Ok(()));
        if std::env::var_os("HOME").is_some() {
            assert_eq!(sees(Vec::new()).await, Err("sees HOME".to_owned()));
        }
    }
}
