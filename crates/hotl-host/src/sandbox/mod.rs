//! Wiring the sandbox into a run: the mode from the flag, the session and the config file; the
//! rules made once for the session; the one notice when the kernel cannot confine commands.

use std::path::Path;
use std::sync::Arc;

mod check;

pub use self::check::{check, run};

use hotl_agent::Start;
use hotl_sandbox::{Config, Inputs, Mode, Sandbox, Support};

use crate::ctx::Ctx;
use crate::error::CliError;

/// The mode `--sandbox` names.
pub fn parse_mode(flag: Option<&str>) -> Result<Option<Mode>, CliError> {
    flag.map(|name| {
        Mode::from_name(name).ok_or_else(|| {
            CliError::usage(format!(
                "unknown sandbox mode {name:?}; use read-only, workspace-write or off"
            ))
        })
    })
    .transpose()
}

/// The sandbox of a session in `cwd` run in `mode`; `None` when commands run unconfined: the
/// mode is `off`, or the kernel cannot confine them (said once on stderr: commands are then
/// asked before they run, as without a sandbox).
pub async fn prepare(
    ctx: &Ctx,
    mode: Mode,
    config: &Config,
    cwd: &Path,
) -> Result<Option<Arc<Sandbox>>, CliError> {
    if !mode.confines() {
        return Ok(None);
    }
    let support = Support::detect();
    if !support.enforces() {
        eprintln!(
            "hotl: this system cannot sandbox commands ({}): each command is asked before it runs",
            unsupported_reason()
        );
        return Ok(None);
    }
    let inputs = inputs(ctx, mode, config, cwd);
    let sandbox = Sandbox::prepare(inputs)
        .await
        .map_err(|e| CliError::user(format!("cannot set up the sandbox: {e}")))?;
    Ok(Some(Arc::new(sandbox)))
}

/// What a session's rules in `cwd` are made from.
pub fn inputs(ctx: &Ctx, mode: Mode, config: &Config, cwd: &Path) -> Inputs {
    Inputs {
        mode,
        cwd: cwd.to_owned(),
        home: ctx.home_dir.clone(),
        hotl_home: (!ctx.is_in_memory()).then(|| ctx.store.home().to_owned()),
        extra_secrets: hotl_config::config_path()
            .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("api_key")))
            .into_iter()
            .collect(),
        tmpdir: None,
        config: config.clone(),
    }
}

/// The session's sandbox mode: `--sandbox`, else what a resumed session recorded (said when it
/// is not the default), else `[sandbox] mode`, else workspace-write. A new session records a
/// mode other than the default; a resumed one records a flag that changes its own.
pub fn mode_of(
    start: Start,
    flag: Option<Mode>,
    configured: Option<Mode>,
) -> Result<(Start, Mode), CliError> {
    match start {
        Start::New(new) => {
            let mode = flag.or(configured).unwrap_or_default();
            let recorded = (mode != Mode::default()).then(|| mode.name().to_owned());
            Ok((Start::New(new.with_sandbox(recorded)), mode))
        }
        Start::Open(mut session) => {
            let recorded = session.recorded_sandbox().and_then(Mode::from_name);
            let mode = match (flag, recorded) {
                (Some(flag), recorded) => {
                    if recorded.unwrap_or_default() != flag {
                        session.set_sandbox(flag.name())?;
                    }
                    flag
                }
                (None, Some(recorded)) => {
                    if recorded != Mode::default() {
                        eprintln!(
                            "hotl: sandbox: {}, recorded in this session; --sandbox workspace-write to drop it",
                            recorded.name()
                        );
                    }
                    recorded
                }
                (None, None) => configured.unwrap_or_default(),
            };
            Ok((Start::Open(session), mode))
        }
    }
}

/// The exit code of a command that ended with `status` (a signal as the shell says it).
pub fn exit_code(status: std::process::ExitStatus) -> std::process::ExitCode {
    use std::os::unix::process::ExitStatusExt;
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1);
    std::process::ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// Why this system offers no sandbox.
fn unsupported_reason() -> String {
    if cfg!(target_os = "linux") {
        "the kernel has no Landlock, or it is disabled".to_owned()
    } else {
        format!("no sandbox is written for {} yet", std::env::consts::OS)
    }
}
