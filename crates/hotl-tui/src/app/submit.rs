//! A typed line: a message for the model, or a slash command planned by the protocol's table
//! ([`slash::plan`]) and carried out here.

use hotl_protocol::Command;
use hotl_protocol::slash::{self, Front, Local, Plan, Slash};
use hotl_protocol::words;

use super::{App, Busy, Effect, Modal};
use crate::cells::{Entry, Tone};

impl App {
    /// Sends a typed line: a message, or a slash command.
    pub fn submit(&mut self, text: String) {
        let text = text.trim_end().to_owned();
        if text.trim().is_empty() {
            return;
        }
        self.composer.remember(&text);
        let parsed = slash::parse(&text);
        let is_message = matches!(parsed, Slash::Message(_));
        if is_message && self.read_only.is_some() {
            self.hint = Some((slash::READ_ONLY.to_owned(), std::time::Instant::now()));
            self.composer.set_text(&text);
            return;
        }
        if !is_message {
            // What was typed stays in the scrollback above what it did.
            self.end_stream();
            self.commit(Entry::User { seq: None, text });
        }
        let name = parsed.name();
        match &parsed {
            Slash::Recall { query, .. } => self.last_recall = Some(query.clone()),
            Slash::Stats | Slash::Cost => self.stats_view = name,
            _ => {}
        }
        let front = Front {
            session: &self.session,
            saved: self.saved,
            busy: self.is_busy(),
            read_only: self.read_only.is_some(),
            terminal: true,
        };
        match slash::plan(parsed, &front) {
            Plan::Send(Command::Submit { text }) => self.send_message(text),
            Plan::Send(command) => self.run(command, name),
            Plan::Pick(pick) => self.effects.push(Effect::Pick(pick)),
            Plan::Confirm { question, then } => {
                self.modal = Some(Modal::Confirm {
                    question,
                    then: Box::new(Effect::Send(then)),
                });
            }
            Plan::Local(local) => self.local(local),
            Plan::Usage(why) => self.say(why, Tone::Error),
        }
    }

    /// A message for the model: sent now, or after the turn that runs.
    fn send_message(&mut self, message: String) {
        if self.is_busy() {
            self.queued.push_back(message);
            return;
        }
        self.end_stream();
        self.commit(Entry::User {
            seq: None,
            text: message.clone(),
        });
        self.wait_for(Busy::Turn);
        self.effects
            .push(Effect::Send(Command::Submit { text: message }));
    }

    /// Something the app does itself, or asks its host for.
    fn local(&mut self, local: Local) {
        match local {
            Local::Help => self.say(slash::help(true).trim_end().to_owned(), Tone::Output),
            Local::Exit => self.effects.push(Effect::Exit),
            Local::Copy(n) => self.copy(n),
            Local::Raw(n) => match self.answer(n) {
                Some(text) => self.say(text, Tone::Output),
                None => self.say("no answer to show yet", Tone::Error),
            },
            Local::Effort => self.say(words::effort_line(self.status.as_ref()), Tone::Info),
            Local::Cost => self.say(words::spent_line(self.status.as_ref()), Tone::Output),
            Local::Export(path) => self.effects.push(Effect::Export(path)),
            Local::Share => {
                self.say("sealing and uploading…", Tone::Info);
                self.effects.push(Effect::Share);
            }
            Local::Resume(query) => self.effects.push(Effect::Resume(query)),
            Local::Search(query) => self.effects.push(Effect::Search(query)),
            Local::Import { agent, query } => self.effects.push(Effect::Import { agent, query }),
            Local::Recall { query, mode, limit } => self.effects.push(Effect::Recall {
                query,
                mode: Some(mode),
                limit,
            }),
        }
    }

    /// Sends a command; when nothing runs, the app waits for its end (a command sent while a
    /// turn runs does not end the turn's wait).
    pub fn run(&mut self, command: Command, name: &'static str) {
        if !self.is_busy() {
            self.wait_for(Busy::Command(name));
        }
        self.effects.push(Effect::Send(command));
    }

    /// The N-th answer from the end (default the last), as written.
    fn answer(&self, n: Option<usize>) -> Option<String> {
        self.transcript
            .iter()
            .rev()
            .filter_map(Entry::answer_text)
            .nth(n.unwrap_or(1).max(1) - 1)
            .map(str::to_owned)
    }

    fn copy(&mut self, n: Option<usize>) {
        match self.answer(n) {
            Some(text) => {
                let lines = text.lines().count();
                self.effects.push(Effect::Copy(text));
                self.say(format!("copied an answer ({lines} lines)"), Tone::Info);
            }
            None => self.say("no answer to copy yet", Tone::Error),
        }
    }
}
