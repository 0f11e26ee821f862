//! Keys and pastes: the composer, the popup of commands and files, the double presses, and
//! the answers to questions (approvals, confirmations, pickers).

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use hotl_protocol::slash::{self, MessagePick, Pick};
use hotl_protocol::{Answer, Command, Mode};

use super::{App, DOUBLE_PRESS, Effect, Modal};
use crate::cells::Tone;
use crate::composer;

impl App {
    /// A bracketed paste.
    pub fn paste(&mut self, text: &str) {
        if self.read_only.is_some() || self.modal.is_some() {
            return;
        }
        self.composer.paste(text);
        self.refresh_popup();
        self.dirty = true;
    }

    /// Takes a key.
    pub fn key(&mut self, key: KeyEvent, now: Instant) {
        self.dirty = true;
        if let Some(modal) = self.modal.take() {
            self.modal_key(modal, key);
            if self.modal.is_none() {
                self.modal = self.waiting_questions.pop_front();
            }
            return;
        }
        if self.composer.is_searching() {
            // Esc and Ctrl+G end a history search, not a turn.
            if let composer::Action::Submit(text) = self.composer.key(key) {
                self.submit(text);
            }
            return;
        }
        if self.global_key(key, now) || self.popup_key(key) {
            return;
        }
        match self.composer.key(key) {
            composer::Action::Submit(text) => {
                self.refresh_popup();
                self.submit(text);
            }
            composer::Action::Changed => {
                self.popup = 0;
                self.refresh_popup();
            }
            _ => {}
        }
    }

    /// The keys that mean the same wherever the composer is (cancel, exit, the pager, the
    /// editor, revert, the mode); whether `key` was one.
    fn global_key(&mut self, key: KeyEvent, now: Instant) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => self.ctrl_c_pressed(now),
            KeyCode::Char('d') if ctrl && self.composer.is_empty() => {
                self.effects.push(Effect::Exit);
            }
            KeyCode::Char('t') if ctrl => self.effects.push(Effect::Pager),
            KeyCode::Char('g') if ctrl => self.effects.push(Effect::Editor),
            KeyCode::Esc => self.esc_pressed(now),
            KeyCode::BackTab => {
                let next = Mode::from_name(&self.mode).unwrap_or_default().cycled();
                if self.read_only.is_none() {
                    self.run(Command::SetMode { mode: next }, "mode");
                }
            }
            _ => return false,
        }
        true
    }

    /// Ctrl+C: cancels what runs, else clears the composer, else exits when pressed twice.
    fn ctrl_c_pressed(&mut self, now: Instant) {
        if self.is_busy() {
            self.effects.push(Effect::Send(Command::Cancel));
        } else if !self.composer.is_empty() {
            self.composer.set_text("");
        } else if self
            .ctrl_c
            .is_some_and(|t| now.duration_since(t) < DOUBLE_PRESS)
        {
            self.effects.push(Effect::Exit);
        } else {
            self.ctrl_c = Some(now);
            self.hint = Some(("Ctrl+C again to exit".to_owned(), now));
        }
    }

    /// Esc: cancels what runs, else (on an empty composer) offers to revert when pressed twice.
    fn esc_pressed(&mut self, now: Instant) {
        if self.is_busy() {
            self.effects.push(Effect::Send(Command::Cancel));
        } else if self.composer.is_empty()
            && self
                .esc
                .is_some_and(|t| now.duration_since(t) < DOUBLE_PRESS)
        {
            self.esc = None;
            self.effects
                .push(Effect::Pick(Pick::Message(MessagePick::Revert(
                    hotl_protocol::RevertScope::Both,
                ))));
        } else if self.composer.is_empty() {
            self.esc = Some(now);
            self.hint = Some(("Esc again to revert to an earlier message".to_owned(), now));
        }
    }

    /// Moves through an open popup and takes its choice; whether `key` is spent (Enter on a
    /// command not yet typed out fills it in, and then still submits).
    fn popup_key(&mut self, key: KeyEvent) -> bool {
        if self.popup_rows.is_empty() {
            return false;
        }
        let n = self.popup_rows.len();
        let chosen = self.popup_rows[self.popup.min(n - 1)].0.clone();
        match key.code {
            KeyCode::Up => self.popup = self.popup.checked_sub(1).unwrap_or(n - 1),
            KeyCode::Down => self.popup = (self.popup + 1) % n,
            KeyCode::Tab | KeyCode::Enter if self.popup_files => {
                self.composer
                    .replace_word_before_cursor(&format!("@{chosen} "));
                self.refresh_popup();
            }
            KeyCode::Tab => {
                self.composer.set_text(&format!("{chosen} "));
                self.refresh_popup();
            }
            KeyCode::Enter if chosen != self.composer.shown().trim() => {
                self.composer.set_text(&chosen);
                return false;
            }
            _ => return false,
        }
        true
    }

    /// Works out the popup for what the composer holds now.
    pub(super) fn refresh_popup(&mut self) {
        let word = self.composer.word_before_cursor().to_owned();
        if let Some(query) = word.strip_prefix('@') {
            self.popup_files = true;
            self.popup_rows = self
                .files
                .matching(query)
                .into_iter()
                .map(|p| (p, String::new()))
                .collect();
        } else {
            self.popup_files = false;
            self.popup_rows = self
                .popup_items()
                .into_iter()
                .map(|(name, help)| (name.to_owned(), help.to_owned()))
                .collect();
        }
        self.popup = self.popup.min(self.popup_rows.len().saturating_sub(1));
    }

    /// Shows an approval question, or queues it behind the question shown.
    pub(super) fn ask(&mut self, question: Modal) {
        if self.modal.is_some() {
            self.waiting_questions.push_back(question);
        } else {
            self.modal = Some(question);
        }
    }

    /// A key while a call waits for its yes: `y`/Enter, `n` (then a reason, or Enter or Esc
    /// for none), `a`; Esc and Ctrl+C say no at once.
    fn approval_key(
        &mut self,
        id: u64,
        tool: String,
        question: String,
        preview: Vec<hotl_protocol::PreviewLine>,
        reason: Option<String>,
        key: KeyEvent,
    ) {
        let ctrl_c =
            key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        let (answer, why) = match (reason, key.code) {
            (_, _) if ctrl_c => (Answer::No, None),
            (None, KeyCode::Char('y' | 'Y') | KeyCode::Enter) => (Answer::Yes, None),
            (None, KeyCode::Char('a' | 'A')) => (Answer::Always, None),
            (None, KeyCode::Esc) | (Some(_), KeyCode::Esc) => (Answer::No, None),
            (None, KeyCode::Char('n' | 'N')) => {
                return self.modal = Some(Modal::Approval {
                    id,
                    tool,
                    question,
                    preview,
                    reason: Some(String::new()),
                });
            }
            (Some(typed), KeyCode::Enter) => {
                let typed = typed.trim().to_owned();
                (Answer::No, (!typed.is_empty()).then_some(typed))
            }
            (Some(mut typed), code) => {
                match code {
                    KeyCode::Char(c) => typed.push(c),
                    KeyCode::Backspace => {
                        typed.pop();
                    }
                    _ => {}
                }
                return self.modal = Some(Modal::Approval {
                    id,
                    tool,
                    question,
                    preview,
                    reason: Some(typed),
                });
            }
            (None, _) => {
                return self.modal = Some(Modal::Approval {
                    id,
                    tool,
                    question,
                    preview,
                    reason: None,
                });
            }
        };
        let said = match &why {
            Some(why) => format!("{question} no: {why}"),
            None => format!("{question} {}", answer.word()),
        };
        self.say(said, Tone::Info);
        self.effects.push(Effect::Send(Command::Approve {
            id,
            answer,
            reason: why,
        }));
    }

    fn modal_key(&mut self, modal: Modal, key: KeyEvent) {
        match modal {
            Modal::Approval {
                id,
                tool,
                question,
                preview,
                reason,
            } => self.approval_key(id, tool, question, preview, reason, key),
            Modal::Confirm { question, then } => match key.code {
                KeyCode::Char('y' | 'Y') => self.confirmed(*then),
                KeyCode::Char('n' | 'N') | KeyCode::Esc | KeyCode::Enter => {
                    self.say(format!("{question} no"), Tone::Info);
                }
                _ => self.modal = Some(Modal::Confirm { question, then }),
            },
            Modal::Pick(mut picker) => match picker.key(key) {
                crate::picker::Outcome::Open => self.modal = Some(Modal::Pick(picker)),
                crate::picker::Outcome::Cancelled => {}
                crate::picker::Outcome::Chosen(effect) => self.confirmed(effect),
            },
        }
    }

    /// The slash commands the typed `/word` could be, with their help (the table's rows,
    /// aliases included).
    pub fn popup_items(&self) -> Vec<(String, &'static str)> {
        let text = self.composer.shown();
        if !text.starts_with('/') || text.starts_with("//") || text.contains(char::is_whitespace) {
            return Vec::new();
        }
        slash::popup_rows(true)
            .filter(|(name, _)| name.starts_with(text))
            .collect()
    }

    /// A yes to a question the app asked, or a row picked: what it was for runs.
    pub(super) fn confirmed(&mut self, then: Effect) {
        match then {
            Effect::Send(command) => {
                let name = command.name();
                self.run(command, name);
            }
            other => self.effects.push(other),
        }
    }
}
