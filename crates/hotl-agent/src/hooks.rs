//! Hooks: a user's commands run at points of a session's life (its start, before and after a
//! switch, before and after each tool call, the end of each turn). Each gets the event as one
//! JSON object on stdin (a hook that does not read it is not an error), runs with `sh -c` in
//! the session's directory with the environment tools get (no provider keys), and is ended
//! after its timeout. A hook at a `before_*` point that fails (exits non-zero, cannot start,
//! times out) cancels what was about to happen, and what it wrote on stderr says why (a tool
//! call it cancels is answered with that text, so the model reads it); a hook after the fact
//! cannot undo it, and its failure is only told. A tool hook may name the tools it is for
//! (`matcher`: a name or a glob such as `mcp__*`).

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
    /// An agent started on a session (new or resumed), before its first command.
    SessionStart,
    /// Before the console switches to another session (`/new`, `/resume`, `/fork`, `/drop`):
    /// a failing hook keeps the console where it is.
    BeforeSwitch,
    /// After a switch.
    Switch,
    /// Before a tool call runs (before its permission is asked): a failing hook cancels the
    /// call, and the model is told what the hook said.
    BeforeTool,
    /// After a tool call ran, with its result.
    AfterTool,
    /// A turn ended (answered, cancelled or failed).
    Stop,
}

impl HookPoint {
    /// Every point, by the name the config uses.
    pub const ALL: &[HookPoint] = &[
        HookPoint::SessionStart,
        HookPoint::BeforeSwitch,
        HookPoint::Switch,
        HookPoint::BeforeTool,
        HookPoint::AfterTool,
        HookPoint::Stop,
    ];

    /// The name the config and the event's `event` field use.
    pub fn name(self) -> &'static str {
        match self {
            HookPoint::SessionStart => "session_start",
            HookPoint::BeforeSwitch => "before_switch",
            HookPoint::Switch => "switch",
            HookPoint::BeforeTool => "before_tool",
            HookPoint::AfterTool => "after_tool",
            HookPoint::Stop => "stop",
        }
    }

    /// Whether hooks at this point are about one tool call (and may name the tools they are
    /// for with a matcher).
    pub fn is_about_a_tool(self) -> bool {
        matches!(self, HookPoint::BeforeTool | HookPoint::AfterTool)
    }

    /// The point `name` names.
    pub fn from_name(name: &str) -> Option<HookPoint> {
        HookPoint::ALL.iter().copied().find(|p| p.name() == name)
    }

    /// Whether a failing hook cancels what is about to happen.
    pub fn cancels(self) -> bool {
        matches!(self, HookPoint::BeforeSwitch | HookPoint::BeforeTool)
    }
}

/// One configured hook.
#[derive(Clone, Debug)]
pub struct Hook {
    /// When it runs.
    pub point: HookPoint,
    /// The command, run with `sh -c`.
    pub command: String,
    /// How long it may take.
    pub timeout: Duration,
    /// For a tool hook: the tools it is for (a name or a glob); `None`: every tool.
    pub matcher: Option<ToolMatcher>,
}

impl Hook {
    /// The default timeout (10 s).
    pub const TIMEOUT: Duration = Duration::from_secs(10);

    /// Whether it runs for a call of `tool` (every hook runs when there is no tool).
    fn applies_to(&self, tool: Option<&str>) -> bool {
        match (&self.matcher, tool) {
            (Some(matcher), Some(tool)) => matcher.matches(tool),
            _ => true,
        }
    }
}

/// The tools a hook is for: a tool's name, or a glob over names (`mcp__*`, `{read,grep}`).
#[derive(Clone, Debug)]
pub struct ToolMatcher {
    text: String,
    glob: globset::GlobMatcher,
}

impl ToolMatcher {
    /// A matcher from its text; `Err` says why the glob is bad.
    pub fn new(text: &str) -> Result<ToolMatcher, String> {
        let glob = globset::Glob::new(text)
            .map_err(|e| format!("bad matcher {text:?}: {e}"))?
            .compile_matcher();
        Ok(ToolMatcher {
            text: text.to_owned(),
            glob,
        })
    }

    /// Whether `tool` is one of its tools.
    pub fn matches(&self, tool: &str) -> bool {
        self.text == tool || self.glob.is_match(tool)
    }

    /// The text it was made from.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl PartialEq for Hook {
    fn eq(&self, other: &Self) -> bool {
        self.point == other.point
            && self.command == other.command
            && self.timeout == other.timeout
            && self.matcher.as_ref().map(ToolMatcher::as_str)
                == other.matcher.as_ref().map(ToolMatcher::as_str)
    }
}

/// Runs the hooks at `point` for a session in `cwd` (its id `session_id`): `event` gets the
/// fields every hook event has (`event`, `session_id`, `cwd`), and only hooks whose matcher
/// takes `tool` run. What [`run_hooks`] returns.
pub(crate) async fn fire(
    settings: &crate::Settings,
    point: HookPoint,
    tool: Option<&str>,
    session_id: &str,
    cwd: &Path,
    mut event: serde_json::Value,
) -> Result<(), String> {
    if !settings
        .hooks
        .iter()
        .any(|h| h.point == point && h.applies_to(tool))
    {
        return Ok(());
    }
    if let Some(fields) = event.as_object_mut() {
        fields.insert("event".to_owned(), point.name().into());
        fields.insert("session_id".to_owned(), session_id.into());
        fields.insert("cwd".to_owned(), cwd.display().to_string().into());
    }
    run_hooks_for(
        &settings.hooks,
        point,
        tool,
        &event,
        cwd,
        &settings.hidden_env,
    )
    .await
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
    run_hooks_for(hooks, point, None, event, cwd, hidden_env).await
}

async fn run_hooks_for(
    hooks: &[Hook],
    point: HookPoint,
    tool: Option<&str>,
    event: &serde_json::Value,
    cwd: &Path,
    hidden_env: &[String],
) -> Result<(), String> {
    let mut failed = None;
    for hook in hooks
        .iter()
        .filter(|h| h.point == point && h.applies_to(tool))
    {
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
        .kill_on_drop(true)
        // A group of its own: at its timeout (or when hotl lets go of it) whatever it started
        // ends with it.
        .process_group(0);
    for var in hidden_env {
        command.env_remove(var);
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("the hook `{}` did not start: {e}", hook.command))?;
    let mut killer = hotl_tool::GroupKiller::new(child.id());
    let mut input = serde_json::to_vec(event).unwrap_or_default();
    input.push(b'\n');
    let stdin = child.stdin.take();
    let stderr = child.stderr.take();
    let exchange = async {
        if let Some(mut stdin) = stdin {
            // A hook that does not read its input closes the pipe: not an error.
            let _ = stdin.write_all(&input).await;
        }
        let mut said = Said::default();
        if let Some(mut stderr) = stderr {
            let mut buf = vec![0u8; 8192];
            while let Ok(n) = stderr.read(&mut buf).await
                && n > 0
            {
                said.take(&buf[..n]);
            }
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
    // It ended in time: what it left running in the background is its own business.
    killer.disarm();
    let status = status.map_err(|e| format!("the hook `{}` failed: {e}", hook.command))?;
    if status.success() {
        return Ok(());
    }
    let said = said.text();
    Err(if said.is_empty() {
        format!("the hook `{}` exited with {status}", hook.command)
    } else {
        said
    })
}

/// The most of a hook's stderr kept from its start, and from its end: what a hook says is a
/// reason, not a data stream, and one that prints without end must not fill memory, the log
/// or a request.
const SAID_HEAD: usize = 64 * 1024;
const SAID_TAIL: usize = 16 * 1024;

/// A hook's stderr as read: its head, its tail, and how much between was left out.
#[derive(Default)]
struct Said {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    dropped: u64,
}

impl Said {
    fn take(&mut self, mut bytes: &[u8]) {
        let room = SAID_HEAD - self.head.len();
        let (head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(head);
        bytes = rest;
        self.tail.extend(bytes);
        let over = self.tail.len().saturating_sub(SAID_TAIL);
        self.tail.drain(..over);
        self.dropped += over as u64;
    }

    /// What it said, trimmed, with what was left out counted between head and tail, its
    /// control characters made visible (it is shown on terminals).
    fn text(&self) -> String {
        hotl_text::printable(&self.raw_text())
    }

    fn raw_text(&self) -> String {
        let head = String::from_utf8_lossy(&self.head);
        if self.tail.is_empty() {
            return head.trim().to_owned();
        }
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let gap = if self.dropped > 0 {
            format!("\n[{} bytes of the hook's stderr left out]\n", self.dropped)
        } else {
            String::new()
        };
        format!("{head}{gap}{}", String::from_utf8_lossy(&tail))
            .trim()
            .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(command: &str) -> Hook {
        Hook {
            point: HookPoint::BeforeSwitch,
            command: command.to_owned(),
            timeout: Duration::from_secs(5),
            matcher: None,
        }
    }

    #[test]
    fn a_matcher_takes_a_name_or_a_glob() {
        let exact = ToolMatcher::new("bash").expect("matcher");
        assert!(exact.matches("bash") && !exact.matches("bash2"));
        let glob = ToolMatcher::new("mcp__*").expect("matcher");
        assert!(glob.matches("mcp__fixture__echo-text") && !glob.matches("read"));
        let either = ToolMatcher::new("{read,grep}").expect("matcher");
        assert!(either.matches("grep") && !either.matches("glob"));
        assert!(ToolMatcher::new("[").is_err());
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
