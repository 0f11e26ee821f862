//! `/dump` and `hotl sessions dump`: the session as the model sees it ([`Dump`]), made from
//! the session's frozen prompt and tools, its view and the body the next request would carry.

use hotl_protocol::{Dump, DumpedTool};
use hotl_view::{model_messages, model_view};
use hotl_wire::Dialect;

use super::{Session, Settings};
use crate::provider::Provider;

impl Session {
    /// The session as the model sees it, and the body a request for it would carry.
    pub fn dump(&self, provider: &Provider, settings: &Settings) -> Dump {
        let messages = model_messages(&self.view);
        let body = (!messages.is_empty()).then(|| {
            let request = self.conversation_request(model_view(&self.view), settings);
            let dialect = match provider {
                Provider::Http(http) => http.dialect(),
                Provider::Demo => Dialect::Anthropic,
            };
            String::from_utf8_lossy(&hotl_wire::encode(dialect, &request)).into_owned()
        });
        Dump {
            id: self.id().to_owned(),
            model: settings.model.clone(),
            system: self.system.clone(),
            tools: self
                .tool_defs
                .iter()
                .map(|t| DumpedTool {
                    name: t.name.clone(),
                    description: t.description.clone(),
                    parameters: t.input_schema.get().to_owned(),
                })
                .collect(),
            messages,
            body,
        }
    }
}
