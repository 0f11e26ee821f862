//! One synthetic session, turn by turn: `run` started, a user message, tool steps, an answer,
//! `run` finished; between turns now and then a fold, todos, a title or a name.
//!
//! A *folded* session is what a long-lived one looks like: long agentic turns (one message,
//! many steps), each folded once it is done, a compaction every few folds, and no thinking
//! blocks (their signatures would be refused by a provider that did not sign them).

use std::collections::HashSet;
use std::time::{Duration, SystemTime};

use hotl_log::{Block, Body, FileTouch, Fold, RunState, Todo, Usage};

use crate::content::{self, Tool};
use crate::rng::Rng;

/// The model every synthetic assistant record names.
pub(crate) const MODEL: &str = "claude-sonnet-4-5";

/// Rough wall time of one turn including the pause before it, for spreading timestamps.
const MEAN_TURN_MS: f64 = 1_890_000.0;

/// Rough records per turn.
const MEAN_TURN_RECORDS: f64 = 10.4;

/// Tool steps in a folded session's turn, on average (from half to one and a half times).
const FOLDED_TURN_STEPS: usize = 60;

/// A folded session compacts after this many folds.
const FOLDS_PER_COMPACTION: u64 = 10;

/// A record to write: its seq, when it happened and what it says.
pub(crate) struct Event {
    pub(crate) seq: u64,
    pub(crate) at: SystemTime,
    pub(crate) body: Body,
}

/// Generates the records of one session after its `session` record.
pub(crate) struct SessionGen {
    rng: Rng,
    /// The seq the next record gets.
    seq: u64,
    at: SystemTime,
    /// Multiplies every pause so the session fits its time window.
    scale: f64,
    /// Names are `synth-<index>`, then `synth-<index>-<k>` on renames: unique across sessions.
    index: usize,
    renames: u32,
    turns: usize,
    /// User seqs of finished turns since the last fold, and the last record of the latest one.
    foldable: Vec<u64>,
    last_finished: u64,
    next_fold_after: usize,
    handles: HashSet<String>,
    /// A long-lived session: long turns, each folded, compactions now and then.
    folded: bool,
    /// Tool steps in a folded session's turn, on average.
    turn_steps: usize,
    folds: u64,
}

impl SessionGen {
    /// A session numbered `index` whose next record is `first_seq`, starting at `start`. Pauses
    /// are scaled so that about `records` records end before `deadline`.
    pub(crate) fn new(
        rng: Rng,
        index: usize,
        first_seq: u64,
        start: SystemTime,
        deadline: SystemTime,
        records: usize,
    ) -> Self {
        let window = deadline
            .duration_since(start)
            .unwrap_or(Duration::from_secs(600))
            .as_millis() as f64;
        let expected = records as f64 / MEAN_TURN_RECORDS * MEAN_TURN_MS;
        let mut maker = SessionGen {
            rng,
            seq: first_seq,
            at: start,
            scale: (0.9 * window / expected).min(1.0),
            index,
            renames: 0,
            turns: 0,
            foldable: Vec::new(),
            last_finished: 0,
            next_fold_after: 0,
            handles: HashSet::new(),
            folded: false,
            turn_steps: FOLDED_TURN_STEPS,
            folds: 0,
        };
        maker.next_fold_after = maker.rng.urange(12, 18);
        maker
    }

    /// Makes it a long-lived session's history: long turns, each folded when done, a
    /// compaction after every [`FOLDS_PER_COMPACTION`] folds, no thinking.
    /// `turn_steps`: tool steps per turn on average (default [`FOLDED_TURN_STEPS`]).
    pub(crate) fn folded(mut self, turn_steps: Option<usize>) -> Self {
        self.folded = true;
        self.turn_steps = turn_steps.unwrap_or(FOLDED_TURN_STEPS).max(2);
        self.scale /= self.turn_steps as f64 / 3.0;
        self.next_fold_after = 1;
        self
    }

    /// The time of the latest record.
    pub(crate) fn now(&self) -> SystemTime {
        self.at
    }

    fn emit(&mut self, out: &mut Vec<Event>, pause_ms: u64, body: Body) -> u64 {
        let ms = ((pause_ms as f64 * self.scale) as u64).max(1);
        self.at += Duration::from_millis(ms);
        let seq = self.seq;
        self.seq += 1;
        out.push(Event {
            seq,
            at: self.at,
            body,
        });
        seq
    }

    fn pause_between_turns(&mut self) -> u64 {
        let p = self.rng.unit();
        if p < 0.70 {
            self.rng.range(20_000, 300_000)
        } else if p < 0.95 {
            self.rng.range(300_000, 3_600_000)
        } else {
            self.rng.range(3_600_000, 43_200_000)
        }
    }

    fn usage(&mut self, output: u64) -> Usage {
        Usage {
            input: self.rng.range(3, 60),
            cache_read: self.rng.range(4_000, 150_000),
            cache_write: self.rng.range(0, 6_000),
            cache_write_1h: 0,
            output,
            thinking: 0,
        }
    }

    /// Appends one turn, and whatever state records follow it, to `out`.
    pub(crate) fn turn(&mut self, out: &mut Vec<Event>) {
        let run = format!("run_{}", self.rng.hex(12));
        let pause = self.pause_between_turns();
        self.emit(
            out,
            pause,
            Body::Run {
                run: run.clone(),
                state: RunState::Started,
            },
        );
        let text = content::user_message(&mut self.rng);
        let user_seq = self.emit(out, 3, Body::user_text(text));
        let steps = if self.folded {
            self.rng
                .urange(self.turn_steps / 2, self.turn_steps * 3 / 2)
        } else {
            *self.rng.pick(&[1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6])
        };
        for step in 0..steps {
            self.tool_step(out, step == 0);
        }
        if self.rng.chance(0.01) {
            let pause = self.rng.range(1_000, 20_000);
            self.emit(
                out,
                pause,
                Body::Run {
                    run,
                    state: RunState::Cancelled,
                },
            );
            self.turns += 1;
            return;
        }
        let mut blocks = Vec::new();
        if !self.folded && self.rng.chance(0.10) {
            blocks.push(self.thinking());
        }
        let answer = content::answer(&mut self.rng);
        let output = answer.len() as u64 / 4;
        blocks.push(Block::text(answer));
        let usage = self.usage(output);
        let pause = self.rng.range(3_000, 40_000);
        self.emit(
            out,
            pause,
            Body::Assistant {
                content: blocks,
                model: Some(MODEL.to_owned()),
                stop: Some("end_turn".to_owned()),
                stop_raw: None,
                usage: Some(usage),
            },
        );
        let end = self.emit(
            out,
            5,
            Body::Run {
                run,
                state: RunState::Finished,
            },
        );
        self.turns += 1;
        self.foldable.push(user_seq);
        self.last_finished = end;
        self.after_turn(out);
    }

    fn thinking(&mut self) -> Block {
        Block::Thinking {
            thinking: content::thinking(&mut self.rng),
            signature: Some(self.rng.base62(344)),
        }
    }

    /// An assistant record calling one tool (sometimes two at once) and their results.
    fn tool_step(&mut self, out: &mut Vec<Event>, first: bool) {
        let mut blocks = Vec::new();
        if first && !self.folded && self.rng.chance(0.15) {
            blocks.push(self.thinking());
        }
        if self.rng.chance(0.4) {
            blocks.push(Block::text(content::preamble(&mut self.rng)));
        }
        let parallel = if self.rng.chance(0.1) { 2 } else { 1 };
        let mut calls = Vec::new();
        for _ in 0..parallel {
            let tool = Tool::pick(&mut self.rng);
            let (input, file) = content::tool_input(&mut self.rng, tool);
            let id = format!("toolu_{}", self.rng.base62(24));
            blocks.push(Block::ToolUse {
                id: id.clone(),
                name: tool.name().to_owned(),
                input: input.into(),
            });
            calls.push((id, tool, file));
        }
        let output = self.rng.range(30, 400);
        let usage = self.usage(output);
        let pause = self.rng.range(2_000, 25_000);
        self.emit(
            out,
            pause,
            Body::Assistant {
                content: blocks,
                model: Some(MODEL.to_owned()),
                stop: Some("tool_use".to_owned()),
                stop_raw: None,
                usage: Some(usage),
            },
        );
        for (call, tool, file) in calls {
            let size = content::output_size(&mut self.rng);
            let text = content::tool_output(&mut self.rng, tool, file, size);
            let files = match tool {
                Tool::Read | Tool::Edit => vec![FileTouch {
                    path: file.to_owned(),
                    op: tool.name().to_owned(),
                    hash: Some(self.rng.hex(64)),
                }],
                Tool::Bash | Tool::Grep => Vec::new(),
            };
            let is_error = matches!(tool, Tool::Bash) && self.rng.chance(0.05);
            let pause = self.rng.range(50, 30_000);
            self.emit(
                out,
                pause,
                Body::ToolResult {
                    call,
                    content: vec![Block::text(text)],
                    blob: None,
                    is_error,
                    files,
                },
            );
        }
    }

    /// State records between turns: a fold about every 15 turns, and now and then todos, a
    /// title or a name.
    fn after_turn(&mut self, out: &mut Vec<Event>) {
        if self.foldable.len() >= self.next_fold_after {
            self.fold(out);
        }
        if self.rng.chance(0.08) {
            let items = (0..self.rng.urange(2, 6))
                .map(|i| Todo {
                    text: content::todo(&mut self.rng),
                    status: match i {
                        0 => "done",
                        1 => "in_progress",
                        _ => "pending",
                    }
                    .to_owned(),
                })
                .collect();
            self.emit(out, 40, Body::Todos { items });
        }
        if (self.turns == 1 && self.rng.chance(0.6)) || self.rng.chance(0.01) {
            let title = content::title(&mut self.rng);
            self.emit(out, 900, Body::title(title));
        }
        if (self.turns == 1 && self.rng.chance(0.3)) || self.rng.chance(0.002) {
            let name = match self.renames {
                0 => format!("synth-{}", self.index),
                k => format!("synth-{}-{k}", self.index),
            };
            self.renames += 1;
            self.emit(out, 2_000, Body::Name { name: Some(name) });
        }
    }

    /// Folds from the user message of an earlier finished turn (after the previous fold) to
    /// the end of the latest finished turn.
    fn fold(&mut self, out: &mut Vec<Event>) {
        let from = if self.folded || self.rng.chance(0.7) {
            0
        } else {
            self.rng.urange(0, self.foldable.len() / 2)
        };
        let since = self.foldable[from];
        // Four hex digits, unique in the session (wider once they would run out).
        let digits = if self.handles.len() < 30_000 { 4 } else { 8 };
        let mut handle = self.rng.hex(digits);
        while !self.handles.insert(handle.clone()) {
            handle = self.rng.hex(digits);
        }
        let note = content::fold_note(&mut self.rng);
        let fold = Fold {
            since,
            until: self.last_finished,
            handle,
            note,
            files: Vec::new(),
            diff_blob: None,
        };
        self.emit(out, 4_000, Body::Fold(Box::new(fold)));
        self.foldable.clear();
        self.next_fold_after = if self.folded {
            1
        } else {
            self.rng.urange(12, 18)
        };
        self.folds += 1;
        if self.folded && self.folds.is_multiple_of(FOLDS_PER_COMPACTION) {
            let summary = content::fold_note(&mut self.rng);
            let until = self.last_finished;
            self.emit(out, 6_000, Body::Compaction { until, summary });
        }
    }
}
