//! Process groups ended whole: a command, a hook or a server started in a group of its own
//! is killed with everything it started, at a timeout or when its owner lets go.

use std::process::Stdio;

/// SIGKILLs a process group when dropped, unless disarmed: cancelling the tool's future kills
/// whatever the command started.
pub struct GroupKiller {
    pgid: Option<u32>,
}

impl GroupKiller {
    /// A killer of the group `pgid` (a child started with `process_group(0)` leads a group
    /// of its own pid); `None` kills nothing.
    pub fn new(pgid: Option<u32>) -> GroupKiller {
        GroupKiller { pgid }
    }

    /// Kills the group now (once).
    pub fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            kill_group(pgid);
        }
    }

    /// Leaves the group alone from now on.
    pub fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupKiller {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Sends SIGKILL to process group `pgid` (libc is not a dependency, so through `kill(1)`, or
/// the shell's builtin when there is no `kill` binary). Failures are ignored: the group may be
/// gone already, and the shell itself is also killed by `kill_on_drop`.
pub fn kill_group(pgid: u32) {
    let target = format!("-{pgid}");
    let quiet = |cmd: &mut std::process::Command| {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
    };
    let direct = quiet(std::process::Command::new("kill").args(["-KILL", "--", &target]));
    if direct.is_err() {
        let _ =
            quiet(std::process::Command::new("sh").args(["-c", "kill -KILL -- \"$0\"", &target]));
    }
}
