//! The processes snapshots start (git), known while they run, so a process that ends first
//! (a turn that only talked, its snapshot still being taken) ends them instead of leaving them
//! behind: [`end_children`]. An ended git is reaped (no `<defunct>` left) and the lock it held
//! on hotl's own index removed, so the next snapshot of that session is not refused.

use std::io;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// A running snapshot process: its pid, and the index it works on (hotl's own, through
/// `GIT_INDEX_FILE`), whose lock it may hold.
type Running = (u32, Option<PathBuf>);

static RUNNING: Mutex<Vec<Running>> = Mutex::new(Vec::new());
static ENDING: AtomicBool = AtomicBool::new(false);

fn running() -> std::sync::MutexGuard<'static, Vec<Running>> {
    // A list of pids stays consistent after any panic.
    RUNNING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `command` started (stdin closed unless it says otherwise, output captured), known until
/// [`Known::wait`]; refused once the process is ending.
pub(super) fn spawn(command: &mut Command) -> io::Result<Known> {
    let index = command
        .get_envs()
        .find(|(key, _)| *key == "GIT_INDEX_FILE")
        .and_then(|(_, value)| value.map(PathBuf::from));
    // Held from the check to the push: a process ending meanwhile waits for this one to be
    // known, then ends it.
    let mut running = running();
    if ENDING.load(Ordering::SeqCst) {
        return Err(io::Error::other("hotl is ending: no new snapshot process"));
    }
    let child = command.spawn()?;
    running.push((child.id(), index));
    Ok(Known { child: Some(child) })
}

/// [`Command::output`], with the process known while it runs.
pub(super) fn output(command: &mut Command) -> io::Result<Output> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    spawn(command)?.wait_with_output()
}

/// `hotl_sandbox::git(dir)` with its configuration probe known too: every git a snapshot
/// runs, down to the one reading the configuration, is ended with the process.
pub(super) fn git(dir: &std::path::Path) -> Command {
    hotl_sandbox::git_with(dir, output)
}

/// A process started through [`spawn`].
pub(super) struct Known {
    child: Option<Child>,
}

impl Known {
    /// The child, to take its pipes.
    pub(super) fn child(&mut self) -> &mut Child {
        self.child
            .as_mut()
            .expect("the child is there until waited for")
    }

    /// Waits for it and collects its output.
    pub(super) fn wait_with_output(mut self) -> io::Result<Output> {
        let child = self
            .child
            .take()
            .expect("the child is there until waited for");
        let pid = child.id();
        let out = child.wait_with_output();
        running().retain(|(p, _)| *p != pid);
        out
    }
}

impl Drop for Known {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let pid = child.id();
            running().retain(|(p, _)| *p != pid);
            // Given up on (a failed read): it must not run on.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Ends every snapshot process still running, and lets no new one start: for a process about
/// to exit, which would otherwise leave them behind (reparented, dying of a closed pipe).
pub fn end_children() {
    let ended: Vec<Running> = {
        let mut running = running();
        ENDING.store(true, Ordering::SeqCst);
        running.drain(..).collect()
    };
    for (pid, index) in ended {
        let Some(pid) = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        else {
            continue;
        };
        if let Err(e) = rustix::process::kill_process(pid, rustix::process::Signal::KILL) {
            tracing::debug!("a snapshot process could not be ended: {e}");
            continue;
        }
        // Reaped here: the thread that started it may never get to wait for it.
        let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty());
        if let Some(index) = index {
            super::git::after_killed(&index);
        }
    }
}
