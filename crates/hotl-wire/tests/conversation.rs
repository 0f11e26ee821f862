//! A conversation built the way the agent will build it: records in, model view out, each
//! reply appended as the assistant record it would be logged as.

use hotl_log::{Block, Body, Record, SessionStart};
use hotl_view::{View, model_view, project};
use hotl_wire::{Reply, Request, ToolDef};
use serde_json::value::RawValue;

pub struct Conversation {
    records: Vec<Record>,
    pub system: Vec<String>,
    pub tools: Vec<ToolDef>,
    pub model: String,
}

impl Conversation {
    pub fn new(model: &str) -> Self {
        Conversation {
            records: vec![Record::new(
                1,
                "T",
                Body::Session(Box::new(SessionStart::new("/p"))),
            )],
            system: vec!["You are hotl, a careful coding agent.".to_owned()],
            tools: vec![ToolDef {
                name: "bash".into(),
                description: "Run a shell command".into(),
                input_schema: RawValue::from_string(
                    r#"{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}"#
                        .to_owned(),
                )
                .expect("schema"),
            }],
            model: model.to_owned(),
        }
    }

    fn push(&mut self, body: Body) {
        let seq = self.records.last().map_or(1, |r| r.seq + 1);
        self.records.push(Record::new(seq, "T", body));
    }

    pub fn user(&mut self, text: &str) {
        self.push(Body::user_text(text));
    }

    /// Records `reply`, then answers each of its tool calls with `output`.
    pub fn reply(&mut self, reply: &Reply, output: &str) {
        self.push(Body::Assistant {
            content: reply.content.clone(),
            model: reply.model.clone(),
            stop: None,
            stop_raw: None,
            usage: Some(reply.usage.to_log()),
        });
        let calls: Vec<String> = reply.tool_calls().map(|(id, _, _)| id.to_owned()).collect();
        for call in calls {
            self.push(Body::ToolResult {
                call,
                content: vec![Block::text(output)],
                blob: None,
                is_error: false,
                files: vec![],
            });
        }
    }

    pub fn view(&self) -> View {
        project(&self.records, 0)
    }

    pub fn request<'a>(&self, view: &'a View) -> Request<'a> {
        let mut request = Request::new(self.model.clone(), model_view(view));
        request.system = self.system.clone();
        request.tools = self.tools.clone();
        request.cache.key = Some("session-key".to_owned());
        request
    }
}
