//! The processes snapshots start (git), known while they run, so a process that ends first
//! (a turn that only talked, its snapshot still being taken) ends them instead of leaving them
//! behind: [`end_children`].

use std::io;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());
static ENDING: AtomicBool = AtomicBool::new(false);

fn running() -> std::sync::MutexGuard<'static, Vec<u32>> {
    // A list of pids stays consistent after any panic.
    RUNNING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `command` started (stdin closed unless it says otherwise, output captured), known until
/// [`Known::wait`]; refused once the process is ending.
pub(super) fn spawn(command: &mut Command) -> io::Result<Known> {
    if ENDING.load(Ordering::SeqCst) {
        return Err(io::Error::other("hotl is ending: no new snapshot process"));
    }
    let child = command.spawn()?;
    running().push(child.id());
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
        running().retain(|p| *p != pid);
        out
    }
}

impl Drop for Known {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            running().retain(|p| *p != child.id());
            // Given up on (a failed read): it must not run on.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Ends every snapshot process still running, and lets no new one start: for a process about
/// to exit, which would otherwise leave them behind (reparented, dying of a closed pipe).
pub fn end_children() {
    ENDING.store(true, Ordering::SeqCst);
    for pid in running().drain(..) {
        let pid = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw);
        if let Some(pid) = pid
            && let Err(e) = rustix::process::kill_process(pid, rustix::process::Signal::KILL)
        {
            tracing::debug!("a snapshot process could not be ended: {e}");
        }
    }
}
