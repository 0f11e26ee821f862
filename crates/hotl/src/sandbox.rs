//! Wiring the sandbox into a run: the mode from the flag, the session and the config file; the
//! rules made once for the session; the one notice when the kernel cannot confine commands.

use std::path::Path;
use std::sync::Arc;

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
        extra_secrets: crate::config::config_path()
            .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("api_key")))
            .into_iter()
            .collect(),
        tmpdir: None,
        config: config.clone(),
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
