//! The engine's own tools: the moves (fold, recall, ask) and delegation (fork, spawn,
//! continue, cancel) work on the session itself, so they are [`SessionTool`]s, run by the call
//! seam with a [`Host`]. In a session's [`ToolSet`] each stands as an [`OnSession`] entry:
//! to the registry, the permission layer and a front end it is a tool like any other.

use std::sync::Arc;

use hotl_tool::{Args, BoxFuture, Tool, ToolFuture, ToolKind, ToolOutput};
use hotl_wire::ToolDef;

use crate::context::Context;
use crate::session::{Session, Started};

/// What a session tool gets of the session it runs in.
pub(crate) struct Host<'a> {
    /// The session: its log, view and store.
    pub(crate) session: &'a mut Session,
    /// The provider, settings, events and cancel signal of the turn.
    pub(crate) cx: &'a Context,
}

/// One call of a session tool.
pub(crate) struct SessionCall<'a> {
    /// The call's id.
    pub(crate) id: &'a str,
    /// The call's arguments, parsed.
    pub(crate) args: Args,
    /// The session and what its turn runs with.
    pub(crate) host: Host<'a>,
}

impl<'a> SessionCall<'a> {
    /// The session this call runs in.
    pub(crate) fn host(&mut self) -> &mut Host<'a> {
        &mut self.host
    }
}

/// A tool that works on the session it runs in.
///
/// Contract as [`Tool`]'s: a failure is a [`ToolOutput::error`], never a panic; dropping the
/// future stops the work unless the tool [delegates](SessionTool::delegates).
pub(crate) trait SessionTool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// Its definition as sent to the model.
    fn definition(&self) -> ToolDef;
    /// Whether its calls start a child (see [`Tool::delegates`]).
    fn delegates(&self) -> bool {
        false
    }
    /// Runs the call.
    fn run<'a>(&'a self, call: SessionCall<'a>) -> ToolFuture<'a>;
    /// Starts the call and hands back the child it delegates to, to be run beside the step's
    /// other delegations; a call it answers at once is answered by [`run`](Self::run), the
    /// default.
    fn delegate<'a>(&'a self, call: SessionCall<'a>) -> BoxFuture<'a, Started> {
        Box::pin(async move { Started::Answered(self.run(call).await) })
    }
    /// Finishes a call a dead process left running, when the tool can (a fork resumes its
    /// child); `None` leaves it to be answered "interrupted".
    fn resume<'a>(&'a self, _call: SessionCall<'a>) -> BoxFuture<'a, Option<Started>> {
        Box::pin(async { None })
    }
}

/// A session tool as an entry of a [`ToolSet`](hotl_tool::ToolSet): it reads, as far as
/// permissions go (its children ask for their own calls), and it runs only through the seam.
pub(crate) struct OnSession(pub(crate) Arc<dyn SessionTool>);

impl OnSession {
    /// `tool` as a set's entry.
    pub(crate) fn entry(tool: impl SessionTool + 'static) -> Arc<dyn Tool> {
        Arc::new(OnSession(Arc::new(tool)))
    }
}

impl Tool for OnSession {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn delegates(&self) -> bool {
        self.0.delegates()
    }

    fn needs_session(&self) -> bool {
        true
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn definition(&self) -> ToolDef {
        self.0.definition()
    }

    fn run<'a>(&'a self, _call: hotl_tool::Invocation<'a>) -> ToolFuture<'a> {
        let name = self.0.name().to_owned();
        Box::pin(async move { ToolOutput::error(format!("{name} works only inside a session")) })
    }
}

/// The session tool behind a set's entry, when it is one.
pub(crate) fn session_tool(tool: &dyn Tool) -> Option<&dyn SessionTool> {
    tool.as_any()?
        .downcast_ref::<OnSession>()
        .map(|entry| entry.0.as_ref())
}
