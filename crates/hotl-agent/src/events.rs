//! Where the agent's events go: the protocol's [`Event`]s, put in [`Envelope`]s naming the
//! command and the child whose work produced them.
//!
//! A front end that goes away (drops its receiver) cancels the work in progress: the next
//! event that cannot be delivered sets the cancel signal, and the turn closes its run cleanly,
//! so the log stays valid and resumable.

use std::sync::Arc;

use hotl_protocol::{CommandId, Envelope, Event};
use tokio::sync::{mpsc, watch};

/// Where events go: a channel to the front end, or nowhere. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Events {
    tx: Option<mpsc::UnboundedSender<Envelope>>,
    /// The command whose work sends them.
    command: Option<CommandId>,
    child: Option<Arc<str>>,
    /// Set when the receiver is gone: the work in progress stops.
    cancel: Option<Arc<watch::Sender<bool>>>,
}

impl Events {
    /// Events for a new channel, and its receiving end.
    pub fn channel() -> (Events, mpsc::UnboundedReceiver<Envelope>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Events::to(tx), rx)
    }

    /// Events sent on `tx`.
    pub fn to(tx: mpsc::UnboundedSender<Envelope>) -> Events {
        Events {
            tx: Some(tx),
            ..Events::default()
        }
    }

    /// These events, as command `id`'s (none: between commands).
    pub(crate) fn for_command(&self, id: Option<CommandId>) -> Events {
        Events {
            command: id,
            ..self.clone()
        }
    }

    /// Events nobody receives.
    pub fn discard() -> Events {
        Events::default()
    }

    /// These events, setting `cancel` when the receiver is gone.
    pub fn cancelling(mut self, cancel: Arc<watch::Sender<bool>>) -> Events {
        self.cancel = Some(cancel);
        self
    }

    /// These events, marked as the child `handle`'s.
    pub(crate) fn child(&self, handle: &str) -> Events {
        Events {
            child: Some(Arc::from(handle)),
            ..self.clone()
        }
    }

    /// Sends `event`; a receiver that is gone cancels the work in progress.
    pub(crate) fn send(&self, event: Event) {
        let Some(tx) = &self.tx else {
            return;
        };
        let envelope = Envelope {
            command: self.command,
            child: self.child.as_deref().map(str::to_owned),
            event,
        };
        if tx.send(envelope).is_err()
            && let Some(cancel) = &self.cancel
        {
            tracing::debug!("the front end is gone: cancelling");
            cancel.send_replace(true);
        }
    }

    /// Sends a notice.
    pub(crate) fn notice(&self, message: impl Into<String>) {
        self.send(Event::Notice {
            message: message.into(),
        });
    }

    /// Resolves once nobody receives these events any more (never for events that go
    /// nowhere).
    pub(crate) async fn closed(&self) {
        match &self.tx {
            Some(tx) => tx.closed().await,
            None => std::future::pending().await,
        }
    }

    /// Whether nobody receives these events any more (a channel whose receiver is gone).
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.as_ref().is_some_and(|tx| tx.is_closed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialize_flat_with_their_type_and_child() {
        let plain = Envelope {
            command: None,
            child: None,
            event: Event::Notice {
                message: "hi".into(),
            },
        };
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            r#"{"type":"notice","message":"hi"}"#
        );
        let call = Envelope {
            command: None,
            child: None,
            event: Event::ToolUse {
                id: "c1".into(),
                name: "bash".into(),
                input: hotl_log::ToolInput::from_json(r#"{"command": "ls", "a": 1}"#).unwrap(),
            },
        };
        assert_eq!(
            serde_json::to_string(&call).unwrap(),
            r#"{"type":"tool_use","id":"c1","name":"bash","input":{"command": "ls", "a": 1}}"#,
            "the arguments as written, key order and spacing kept"
        );
        let from_child = Envelope {
            command: Some(CommandId(2)),
            child: Some("ab12".into()),
            event: Event::ToolResult {
                id: "c1".into(),
                name: "bash".into(),
                is_error: false,
                content: "ok".into(),
            },
        };
        assert_eq!(
            serde_json::to_string(&from_child).unwrap(),
            r#"{"command_id":2,"child":"ab12","type":"tool_result","id":"c1","name":"bash","is_error":false,"content":"ok"}"#
        );
    }

    #[test]
    fn a_receiver_that_is_gone_cancels() {
        let (cancel, watching) = watch::channel(false);
        let (events, rx) = Events::channel();
        let events = events.cancelling(Arc::new(cancel));
        events.notice("delivered");
        assert!(!*watching.borrow());
        drop(rx);
        assert!(events.is_closed());
        events.child("ab12").notice("nobody hears this");
        assert!(*watching.borrow(), "cancelled");
    }
}
