//! What a turn or a move runs with: the model to ask, the settings, where events go, the
//! cancel signal, and the user's answers to approval questions.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{oneshot, watch};

use crate::events::Events;
use crate::provider::Provider;
use crate::session::Settings;
use hotl_protocol::Event;

pub use hotl_protocol::Answer;

/// What a turn or a move runs with. Cheap to clone: a fork's child runs with a clone whose
/// events carry its handle.
#[derive(Clone, Debug)]
pub struct Context {
    pub(crate) provider: Provider,
    pub(crate) settings: Arc<Settings>,
    pub(crate) events: Events,
    cancel: watch::Receiver<bool>,
    pub(crate) approvals: Approvals,
}

impl Context {
    /// A context asking `provider` with `settings`; events go nowhere and nothing cancels it
    /// until [`Context::with_events`] and [`Context::with_cancel`] say otherwise.
    pub fn new(provider: Provider, settings: Settings) -> Context {
        let (cancel, watching) = watch::channel(false);
        // Nobody can cancel: the receiver keeps its value, and waiting on it never ends.
        drop(cancel);
        Context {
            provider,
            settings: Arc::new(settings),
            events: Events::discard(),
            cancel: watching,
            approvals: Approvals::default(),
        }
    }

    /// Sends events to `events`.
    pub fn with_events(mut self, events: Events) -> Context {
        self.events = events;
        self
    }

    /// Cancelled when `cancel` turns true.
    pub fn with_cancel(mut self, cancel: watch::Receiver<bool>) -> Context {
        self.cancel = cancel;
        self
    }

    /// Answers approval questions from `approvals` (shared with whoever receives the events).
    pub(crate) fn with_approvals(mut self, approvals: Approvals) -> Context {
        self.approvals = approvals;
        self
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The provider.
    pub fn provider(&self) -> &Provider {
        &self.provider
    }

    /// This context for the child `handle`: its events carry the handle.
    pub(crate) fn child(&self, handle: &str) -> Context {
        Context {
            events: self.events.child(handle),
            ..self.clone()
        }
    }

    /// The same context asking with `settings` (a delegated agent's model, mode and limits).
    pub(crate) fn with_settings(mut self, settings: Settings) -> Context {
        self.settings = Arc::new(settings);
        self
    }

    /// Sends a notice.
    pub(crate) fn notice(&self, message: impl Into<String>) {
        self.events.notice(message);
    }

    /// Whether the work was cancelled.
    pub(crate) fn is_cancelled(&self) -> bool {
        *self.cancel.borrow()
    }

    /// Resolves once the work is cancelled (never, when nothing can cancel it).
    pub(crate) async fn cancelled(&self) {
        let mut cancel = self.cancel.clone();
        if cancel.wait_for(|cancelled| *cancelled).await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    /// Asks the user whether `tool` may run, as `question`: an [`Event::Approval`] goes out and
    /// the answer comes back through [`Approvals::answer`]. `No` when cancelled first, or when
    /// nobody can answer any more. A tool answered [`Answer::Always`] is not asked again.
    /// `preview` (what the call would do) is shown before the question; with the answer comes
    /// the user's reason for a no, when they gave one.
    pub(crate) async fn approve(
        &self,
        tool: &str,
        question: String,
        preview: Vec<hotl_protocol::PreviewLine>,
    ) -> (Answer, Option<String>) {
        if self.approvals.always(tool) {
            return (Answer::Yes, None);
        }
        let (id, answer) = self.approvals.ask();
        self.events.send(Event::Approval {
            id,
            tool: tool.to_owned(),
            question,
            preview,
        });
        let (answer, reason) = tokio::select! {
            answer = answer => answer.unwrap_or((Answer::No, None)),
            () = self.cancelled() => (Answer::No, None),
        };
        self.approvals.forget(id);
        if answer == Answer::Always {
            self.approvals.allow(tool);
        }
        (answer, reason.filter(|r| !r.trim().is_empty()))
    }
}

/// Approval questions waiting for their answer, and the tools answered "always". Shared
/// between the turn that asks and the side that receives the answers.
#[derive(Clone, Debug, Default)]
pub(crate) struct Approvals {
    inner: Arc<Mutex<Waiting>>,
}

#[derive(Debug, Default)]
struct Waiting {
    next: u64,
    open: HashMap<u64, oneshot::Sender<(Answer, Option<String>)>>,
    always: HashSet<String>,
}

impl Approvals {
    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        // The map is consistent after every operation: a panic elsewhere leaves it usable.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new question's id and where its answer arrives.
    fn ask(&self) -> (u64, oneshot::Receiver<(Answer, Option<String>)>) {
        let mut waiting = self.lock();
        waiting.next += 1;
        let id = waiting.next;
        let (tx, rx) = oneshot::channel();
        waiting.open.insert(id, tx);
        (id, rx)
    }

    fn forget(&self, id: u64) {
        self.lock().open.remove(&id);
    }

    fn allow(&self, tool: &str) {
        self.lock().always.insert(tool.to_owned());
    }

    fn always(&self, tool: &str) -> bool {
        self.lock().always.contains(tool)
    }

    /// Delivers the answer to question `id` (and why not, for a no); `false` when no question
    /// has that id (answered already, or given up).
    pub(crate) fn answer(&self, id: u64, answer: Answer, reason: Option<String>) -> bool {
        match self.lock().open.remove(&id) {
            Some(tx) => tx.send((answer, reason)).is_ok(),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> (
        Context,
        tokio::sync::mpsc::UnboundedReceiver<crate::Envelope>,
    ) {
        let (events, rx) = Events::channel();
        let cx = Context::new(Provider::Demo, Settings::new("demo")).with_events(events);
        (cx, rx)
    }

    #[tokio::test]
    async fn an_approval_waits_for_its_answer_and_always_is_remembered() {
        let (cx, mut rx) = context();
        let approvals = cx.approvals.clone();
        let asking = tokio::spawn({
            let cx = cx.clone();
            async move {
                cx.approve("bash", "bash runs commands. Allow?".into(), Vec::new())
                    .await
            }
        });
        let Some(crate::Envelope {
            event: Event::Approval { id, tool, .. },
            ..
        }) = rx.recv().await
        else {
            panic!("an approval request");
        };
        assert_eq!(tool, "bash");
        assert!(approvals.answer(id, Answer::Always, None));
        assert_eq!(asking.await.unwrap().0, Answer::Always);
        assert!(!approvals.answer(id, Answer::Yes, None), "answered once");
        // Not asked again.
        assert_eq!(
            cx.approve("bash", "again?".into(), Vec::new()).await.0,
            Answer::Yes
        );
        assert!(rx.try_recv().is_err());
    }

    #[tokio::test]
    async fn cancelling_declines_a_waiting_approval() {
        let (cx, _rx) = context();
        let (cancel, watching) = watch::channel(false);
        let cx = cx.with_cancel(watching);
        let asking =
            tokio::spawn(async move { cx.approve("write", "Allow?".into(), Vec::new()).await });
        tokio::task::yield_now().await;
        cancel.send_replace(true);
        assert_eq!(asking.await.unwrap().0, Answer::No);
    }
}
