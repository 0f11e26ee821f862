//! `hotl --reap-group PARENT -- PROGRAM ARGS...`: the leader of a `bash` tool's process group.
//! It runs the command as its child, exits as the command did, and, if hotl dies first (even
//! by SIGKILL, which nothing can catch), ends the whole group within a fraction of a second:
//! a process whose parent is gone is reparented, and the reaper watches for that. A
//! parent-death signal alone would reach only the direct child, not what the command started.
//!
//! With `--sandbox-rules JSON` (before `--`) it first confines itself to those rules, so the
//! command and everything it starts inherit them; if they cannot be applied, nothing runs.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitCode};
use std::time::Duration;

use rustix::process::Signal;

/// This binary, as the program that leads each command's process group: a SIGKILL of hotl
/// then leaves no command running.
pub fn program() -> Option<std::sync::Arc<std::path::Path>> {
    std::env::current_exe().ok().map(std::sync::Arc::from)
}

/// The flag that makes `hotl` a reaper; it comes first, before anything else is parsed.
pub const FLAG: &str = hotl_tool::REAPER_FLAG;

/// The longest the reaper sleeps between looks at its child and its parent.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// Runs the reaper on `args` (what follows [`FLAG`]).
pub fn run(args: &[OsString]) -> ExitCode {
    let parent = args.first().and_then(|p| p.to_str()?.parse::<u32>().ok());
    let (rules, rest) = match args.get(1).and_then(|a| a.to_str()) {
        Some(hotl_sandbox::RULES_FLAG) => (args.get(2), args.get(3..).unwrap_or_default()),
        _ => (None, args.get(1..).unwrap_or_default()),
    };
    let (Some(parent), Some("--"), Some(program)) =
        (parent, rest.first().and_then(|a| a.to_str()), rest.get(1))
    else {
        eprintln!(
            "hotl: usage: hotl {FLAG} PARENT_PID [{} RULES] -- PROGRAM [ARGS...]",
            hotl_sandbox::RULES_FLAG
        );
        return ExitCode::from(2);
    };
    if let Some(rules) = rules
        && let Err(why) = hotl_sandbox::confine_arg(rules)
    {
        eprintln!("hotl: sandbox: {why}; the command did not run");
        return ExitCode::from(126);
    }
    let mut child = match Command::new(program).args(&rest[2..]).spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!("hotl: cannot start {}: {e}", program.to_string_lossy());
            return ExitCode::from(127);
        }
    };
    // Quick at first (most commands are short), then every LOOK_EVERY.
    let mut wait = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return exit_as(status),
            Ok(None) => {}
            Err(_) => return ExitCode::from(1),
        }
        if std::os::unix::process::parent_id() != parent {
            // hotl is gone: so is everything this group runs, the reaper last.
            end_group();
        }
        std::thread::sleep(wait);
        wait = (wait * 2).min(LOOK_EVERY);
    }
}

/// Kills this process's group (the reaper leads it), itself included.
fn end_group() -> ! {
    let _ = rustix::process::kill_current_process_group(Signal::KILL);
    std::process::exit(137)
}

/// Exits as the command did: its exit code, or the signal that ended it (raised again, so
/// whoever waits for the reaper sees the same).
fn exit_as(status: std::process::ExitStatus) -> ExitCode {
    if let Some(code) = status.code() {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    if let Some(raw) = status.signal() {
        if let Some(signal) = Signal::from_named_raw(raw) {
            let _ = rustix::process::kill_process(rustix::process::getpid(), signal);
        }
        return ExitCode::from(u8::try_from(128 + raw).unwrap_or(1));
    }
    ExitCode::from(1)
}
