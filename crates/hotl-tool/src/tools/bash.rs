//! `bash`: runs a shell command in its own process group, with a timeout and a capped output.
//!
//! The command gets `bash -c` (or `sh -c` without bash) in the working directory, stdin
//! closed. It leads a new process group, so a timeout, or the caller dropping the future
//! (cancellation), kills the shell and everything it started with one SIGKILL to the group.
//! A command that exits normally leaves its background processes alone (a server started with
//! `&` keeps running); their later output is not captured.
//!
//! Where the session has a sandbox, the group's leader confines itself to the sandbox's rules
//! before it starts the shell, so the command and all it starts are confined; a call that
//! asks `sandbox: false` runs unconfined (the permission layer asks first).

use std::io;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use hotl_log::Blobs;
use hotl_wire::ToolDef;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::Instant;

use crate::args::Fail;
use crate::tool::{Invocation, Tool, ToolFuture, ToolKind, ToolOutput, definition};
use crate::tools::output::cap;

/// The timeout when the call gives none, in milliseconds.
pub(crate) const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The longest timeout a call may ask for, in milliseconds.
pub(crate) const MAX_TIMEOUT_MS: u64 = 600_000;
/// Bytes kept of each stream; the rest is read and dropped so the command never blocks.
const MAX_CAPTURE: usize = 32 << 20;
/// How long output is still collected after the shell exits (background processes may hold
/// the pipes open for much longer).
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(200);
/// How long output is still collected after a timeout killed the group.
const DRAIN_AFTER_KILL: Duration = Duration::from_millis(500);

const DESCRIPTION: &str = "Run a bash command in the working directory, stdin closed. Shows stdout, then stderr after `[stderr]`, then the exit code if not 0. `timeout` in ms (default 120000). A long output shows its head and tail; the rest is a read away. Prefer read, grep, glob and ls to their shell forms. In a sandbox, a refusal names its rule; `sandbox: false` runs outside it if the user agrees.";

const SCHEMA: &str = r#"{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer","minimum":1,"maximum":600000},"sandbox":{"type":"boolean"}},"required":["command"]}"#;

/// The `bash` tool.
pub(crate) struct Bash;

struct Call {
    command: String,
    timeout_ms: u64,
    cwd: PathBuf,
    blobs: Blobs,
    hidden_env: std::sync::Arc<[String]>,
    reaper: Option<std::sync::Arc<Path>>,
    /// The rules the command runs under; `None`: unconfined.
    sandbox: Option<std::sync::Arc<hotl_sandbox::Rules>>,
    /// Where output goes as it is printed, and this call's id.
    progress: Option<(crate::Progress, String)>,
}

impl Tool for Bash {
    fn name(&self) -> &'static str {
        "bash"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Exec
    }

    fn definition(&self) -> ToolDef {
        definition(self.name(), DESCRIPTION, SCHEMA)
    }

    fn sandboxed(&self, args: &crate::args::Args) -> bool {
        args.opt_bool("sandbox").ok().flatten() != Some(false)
    }

    fn preview(&self, args: &crate::args::Args, ctx: &crate::tool::ToolCtx) -> crate::Preview {
        let Ok(command) = args.string("command") else {
            return crate::Preview::of_arguments(args.fields());
        };
        let mut preview = crate::Preview::of_command(&command, &ctx.cwd);
        if !self.sandboxed(args) {
            preview.lines.push(hotl_protocol::PreviewLine::new(
                hotl_protocol::PreviewKind::Note,
                "outside the sandbox",
            ));
        }
        preview
    }

    fn run<'a>(&'a self, invocation: Invocation<'a>) -> ToolFuture<'a> {
        let ctx = invocation.ctx;
        let call = Ok::<_, Fail>(&invocation.args).and_then(|args| {
            let command = args.string("command")?;
            if command.trim().is_empty() {
                return Err("`command` is empty".to_owned());
            }
            let timeout_ms = args.opt_u64("timeout")?.unwrap_or(DEFAULT_TIMEOUT_MS);
            if timeout_ms == 0 {
                return Err("`timeout` must be at least 1 (milliseconds)".to_owned());
            }
            let confined = args.opt_bool("sandbox")? != Some(false);
            Ok(Call {
                command,
                timeout_ms: timeout_ms.min(MAX_TIMEOUT_MS),
                cwd: ctx.cwd.clone(),
                blobs: ctx.blobs.clone(),
                hidden_env: ctx.hidden_env.clone(),
                reaper: ctx.reaper.clone(),
                sandbox: ctx.sandbox.clone().filter(|_| confined),
                progress: ctx.progress.clone().map(|p| (p, invocation.id.to_owned())),
            })
        });
        Box::pin(async move {
            match call {
                Ok(call) => call.run().await.unwrap_or_else(ToolOutput::error),
                Err(message) => ToolOutput::error(message),
            }
        })
    }
}

/// The shell: the first `bash` on `PATH` (or `/bin/bash`), else `sh`.
fn shell() -> &'static Path {
    static SHELL: OnceLock<PathBuf> = OnceLock::new();
    SHELL.get_or_init(|| {
        let on_path = std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .map(|dir| dir.join("bash"))
            .find(|p| p.is_file());
        on_path
            .or_else(|| Some(PathBuf::from("/bin/bash")).filter(|p| p.is_file()))
            .unwrap_or_else(|| PathBuf::from("sh"))
    })
}

/// One output stream as captured so far.
#[derive(Default)]
struct Capture {
    bytes: Vec<u8>,
    dropped: usize,
}

impl Capture {
    /// Takes one read's result, telling `progress` what it read; returns whether the pipe
    /// is still open.
    fn absorb(
        &mut self,
        read: io::Result<usize>,
        buf: &[u8],
        progress: Option<&(crate::Progress, String)>,
    ) -> bool {
        match read {
            Ok(0) | Err(_) => false,
            Ok(n) => {
                if let Some((progress, id)) = progress {
                    (progress.0)(id, &String::from_utf8_lossy(&buf[..n]));
                }
                let keep = n.min(MAX_CAPTURE.saturating_sub(self.bytes.len()));
                self.bytes.extend_from_slice(&buf[..keep]);
                self.dropped += n - keep;
                true
            }
        }
    }

    fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.bytes).into_owned();
        if self.dropped > 0 {
            text.push_str(&format!(
                "\n[{} more bytes of output were dropped]\n",
                self.dropped
            ));
        }
        text
    }
}

/// Reads from `pipe`, or waits forever once it is closed (`None`). Cancel-safe.
async fn read_from<R: AsyncRead + Unpin>(
    pipe: &mut Option<R>,
    buf: &mut [u8],
) -> io::Result<usize> {
    match pipe {
        Some(p) => p.read(buf).await,
        None => std::future::pending().await,
    }
}

impl Call {
    async fn run(self) -> Result<ToolOutput, Fail> {
        if !self.cwd.is_dir() {
            return Err(format!(
                "cannot run the command: the working directory {} does not exist",
                self.cwd.display()
            ));
        }
        let mut command = self.command()?;
        for var in self.hidden_env.iter() {
            command.env_remove(var);
        }
        let mut child = command
            .arg("-c")
            .arg(&self.command)
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", shell().display()))?;
        let mut killer = crate::GroupKiller::new(child.id());
        let mut out_pipe = child.stdout.take();
        let mut err_pipe = child.stderr.take();
        let (mut out, mut err) = (Capture::default(), Capture::default());
        let (mut out_buf, mut err_buf) = (vec![0u8; 8192], vec![0u8; 8192]);
        let deadline = Instant::now() + Duration::from_millis(self.timeout_ms);
        let mut status: Option<io::Result<ExitStatus>> = None;
        let mut timed_out = false;
        // Set once the shell exited or was killed: output is collected until then at most.
        let mut drain: Option<Instant> = None;
        let mut held_open = false;
        loop {
            if out_pipe.is_none() && err_pipe.is_none() && (status.is_some() || timed_out) {
                break;
            }
            tokio::select! {
                read = read_from(&mut out_pipe, &mut out_buf) => {
                    if !out.absorb(read, &out_buf, self.progress.as_ref()) {
                        out_pipe = None;
                    }
                }
                read = read_from(&mut err_pipe, &mut err_buf) => {
                    if !err.absorb(read, &err_buf, self.progress.as_ref()) {
                        err_pipe = None;
                    }
                }
                exit = child.wait(), if status.is_none() => {
                    status = Some(exit);
                    drain.get_or_insert(Instant::now() + DRAIN_AFTER_EXIT);
                }
                _ = tokio::time::sleep_until(drain.unwrap_or(deadline)) => {
                    if drain.is_some() {
                        held_open = !timed_out;
                        break;
                    }
                    timed_out = true;
                    killer.kill();
                    drain = Some(Instant::now() + DRAIN_AFTER_KILL);
                }
            }
        }
        killer.disarm();
        Ok(self.result(&out, &err, status, timed_out, held_open))
    }

    /// The process that runs the shell. With a reaper, it leads the group and runs the
    /// shell: the group ends with this process, however this process ends; with a sandbox, it
    /// confines itself first (a sandbox without a reaper cannot confine, so nothing runs).
    fn command(&self) -> Result<tokio::process::Command, Fail> {
        let Some(reaper) = &self.reaper else {
            if self.sandbox.is_some() {
                return Err(
                    "cannot run the command in the sandbox: no process to confine it".to_owned(),
                );
            }
            return Ok(tokio::process::Command::new(shell()));
        };
        let mut command = tokio::process::Command::new(reaper.as_ref());
        command
            .arg(crate::REAPER_FLAG)
            .arg(std::process::id().to_string());
        if let Some(rules) = &self.sandbox {
            let json = serde_json::to_string(rules.as_ref())
                .map_err(|e| format!("cannot pass the sandbox's rules on: {e}"))?;
            command.arg(hotl_sandbox::RULES_FLAG).arg(json);
            command.envs(rules.command_env());
        }
        command.arg("--").arg(shell());
        Ok(command)
    }

    fn result(
        &self,
        out: &Capture,
        err: &Capture,
        status: Option<io::Result<ExitStatus>>,
        timed_out: bool,
        held_open: bool,
    ) -> ToolOutput {
        let mut body = out.text();
        if !err.bytes.is_empty() || err.dropped > 0 {
            if !body.is_empty() && !body.ends_with('\n') {
                body.push('\n');
            }
            body.push_str("[stderr]\n");
            body.push_str(&err.text());
        }
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        let capped = cap(&body, &self.blobs);
        let mut content = if body.is_empty() {
            "(no output)\n".to_owned()
        } else {
            capped.text
        };
        if held_open {
            content.push_str(
                "[background processes still hold the output open; what they print later is not captured]\n",
            );
        }
        let (last, is_error) = if timed_out {
            (
                format!(
                    "timed out after {} ms; the command and its child processes were killed",
                    self.timeout_ms
                ),
                true,
            )
        } else {
            match status {
                Some(Ok(s)) => exit_line(s),
                Some(Err(e)) => (format!("could not get the exit status: {e}"), true),
                None => ("the command's status is unknown".to_owned(), true),
            }
        };
        if last.is_empty() {
            // Success says nothing (the description tells the model so): the output's last
            // newline goes too, as every result is read as ending there.
            content.pop();
        } else {
            content.push_str(&last);
        }
        if is_error
            && let Some(rules) = &self.sandbox
            && let Some(note) = hotl_sandbox::explain(rules, &body, &self.cwd)
        {
            content.push('\n');
            content.push_str(&note);
        }
        ToolOutput {
            content,
            is_error,
            blob: capped.blob,
            ..ToolOutput::default()
        }
    }
}

/// `exit code N` (an error) for a code other than 0, nothing for 0, or the signal that ended
/// the shell.
fn exit_line(status: ExitStatus) -> (String, bool) {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(0), _) => (String::new(), false),
        (Some(code), _) => (format!("exit code {code}"), true),
        (None, Some(signal)) => (format!("killed by signal {signal}"), true),
        (None, None) => (format!("ended with {status}"), true),
    }
}
