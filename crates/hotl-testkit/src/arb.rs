//! Proptest strategies: random session logs that are always valid, with a model of what their
//! view must show.
//!
//! A log is generated as a raw `Vec<u8>` and *interpreted* ([`Script::interpret`]) against a
//! small [`Model`] of the visible branch: every byte picks among the operations that are valid
//! at that point (a revert only to a turn boundary, a fold only over finished turns and never
//! behind an earlier fold), so every generated log is one hotl could have written. Shrinking
//! works on the raw bytes, and the interpreted [`Script`] prints as the operations it wrote.

use std::fmt;

use hotl_log::{Block, Body, Fold, ReadOptions, Record, RunState, Todo, read_from};
use proptest::prelude::*;

use crate::{FIXED_ID, LogBuilder};

/// The working directory of generated sessions.
pub const CWD: &str = "/project";

/// A quoted user message longer than this is a "long paste" (hotl-view caps quotes at 2000).
const PASTE_MIN: usize = 2001;

/// A proptest config running `default` cases, unless `PROPTEST_CASES` says otherwise.
pub fn config(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

/// Raw operation bytes: the input [`Script::interpret`] reads.
pub fn raw_ops(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..max_len)
}

/// A valid session log of up to about 25 operations.
pub fn script() -> impl Strategy<Value = Script> {
    raw_ops(96).prop_map(|raw| Script::interpret(&raw))
}

/// How a generated turn ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnEnd {
    /// `run started`, the message, steps, a final answer, `run finished`.
    Finished,
    /// `run started`, the message, steps, `run cancelled` (no final answer).
    Cancelled,
    /// `run started`, the message, steps, `run interrupted` (no final answer).
    Interrupted,
    /// No run records (an imported log): the message, steps, a final answer.
    Runless,
    /// Open: `run started`, the message and steps, nothing else.
    Open,
    /// Open: `run started`, the message, steps, then a tool call left unanswered.
    OpenToolUse,
    /// Open and runless: the message and steps, then a tool call left unanswered.
    OpenRunless,
}

impl TurnEnd {
    fn is_open(self) -> bool {
        matches!(
            self,
            TurnEnd::Open | TurnEnd::OpenToolUse | TurnEnd::OpenRunless
        )
    }

    fn has_run(self) -> bool {
        !matches!(self, TurnEnd::Runless | TurnEnd::OpenRunless)
    }
}

/// One generated operation, with the seqs it wrote (this is what a failing case prints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// A turn whose user message has seq `user`, written as `first..=last`.
    Turn {
        /// The user message's seq.
        user: u64,
        /// Tool steps (assistant message plus its results).
        steps: u8,
        /// Whether the message is a long paste.
        paste: bool,
        /// How the turn ends.
        end: TurnEnd,
        /// First seq written.
        first: u64,
        /// Last seq written.
        last: u64,
    },
    /// `revert{to}` at `seq`.
    Revert {
        /// The record's seq.
        seq: u64,
        /// The boundary it returns to.
        to: u64,
    },
    /// `fold{since, until}` at `seq`.
    Fold {
        /// The record's seq.
        seq: u64,
        /// First seq of the span.
        since: u64,
        /// Last seq of the span.
        until: u64,
    },
    /// `compaction{until}` at `seq`.
    Compaction {
        /// The record's seq.
        seq: u64,
        /// Last seq covered.
        until: u64,
    },
    /// A state or unknown record (`clear`, `name`, `todos`, `mode`, `title`, unknown types).
    Other {
        /// The record's seq.
        seq: u64,
        /// Its type.
        kind: String,
    },
}

/// A turn boundary as the model computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelBoundary {
    /// Turns before the cut.
    pub turns: usize,
    /// Original items before the cut.
    pub items: usize,
    /// The last seq before the cut.
    pub seq: u64,
}

#[derive(Clone, Debug)]
struct Entry {
    seq: u64,
    item: bool,
    user: bool,
    clear: bool,
    collapse_until: Option<u64>,
    /// A revert: it ends no turn of its own, so a boundary never moves to it.
    revert: bool,
}

impl Entry {
    fn plain(seq: u64) -> Self {
        Entry {
            seq,
            item: false,
            user: false,
            clear: false,
            collapse_until: None,
            revert: false,
        }
    }
}

#[derive(Clone, Debug)]
struct Turn {
    /// Its first record (`run started`, or the message when runless).
    start: u64,
    user: u64,
    /// The assistant message of each tool step.
    steps: Vec<u64>,
    /// The last item (message, assistant or tool result).
    last_item: u64,
    /// The last record.
    end: u64,
}

/// What the visible branch of a generated log holds, tracked independently of hotl-view.
#[derive(Clone, Debug, Default)]
pub struct Model {
    entries: Vec<Entry>,
    turns: Vec<Turn>,
    open: bool,
}

impl Model {
    /// User message seqs on the visible branch, in order.
    pub fn visible_users(&self) -> Vec<u64> {
        self.entries
            .iter()
            .filter(|e| e.user)
            .map(|e| e.seq)
            .collect()
    }

    /// The seq of the latest visible `clear`, 0 when none.
    pub fn model_after(&self) -> u64 {
        self.entries
            .iter()
            .rev()
            .find(|e| e.clear)
            .map_or(0, |e| e.seq)
    }

    /// Visible user seqs after the latest `clear`: the ones the model must see.
    pub fn model_users(&self) -> Vec<u64> {
        let after = self.model_after();
        self.visible_users()
            .into_iter()
            .filter(|&s| s > after)
            .collect()
    }

    /// Visible turns, the open one included.
    pub fn turns(&self) -> usize {
        self.turns.len()
    }

    /// Whether the last turn is open.
    pub fn open(&self) -> bool {
        self.open
    }

    /// The last seq on the visible branch.
    pub fn head(&self) -> u64 {
        self.entries.last().map_or(0, |e| e.seq)
    }

    /// Turn boundaries: before each turn (the last record before its first), and the head when
    /// no turn is open.
    pub fn boundaries(&self) -> Vec<ModelBoundary> {
        let mut out = Vec::new();
        for (i, turn) in self.turns.iter().enumerate() {
            let idx = self
                .entries
                .iter()
                .position(|e| e.seq == turn.start)
                .expect("a visible turn's first record is visible");
            out.push(ModelBoundary {
                turns: i,
                items: self.entries[..idx].iter().filter(|e| e.item).count(),
                seq: Self::end_of(&self.entries[..idx]),
            });
        }
        if !self.open {
            out.push(ModelBoundary {
                turns: self.turns.len(),
                items: self.entries.iter().filter(|e| e.item).count(),
                seq: Self::end_of(&self.entries),
            });
        }
        out
    }

    /// Where a turn ending with `entries` ends: its last record that is not a revert.
    fn end_of(entries: &[Entry]) -> u64 {
        entries
            .iter()
            .rev()
            .find(|e| !e.revert)
            .map_or(0, |e| e.seq)
    }

    /// The last seq any visible fold or compaction covers: a new fold must start after it.
    fn collapse_floor(&self) -> u64 {
        self.entries
            .iter()
            .filter_map(|e| e.collapse_until)
            .max()
            .unwrap_or(0)
    }

    fn revert(&mut self, to: u64) {
        self.entries.retain(|e| e.seq <= to);
        self.turns.retain(|t| t.start <= to);
        debug_assert!(
            self.turns.iter().all(|t| t.end <= to),
            "reverts cut whole turns"
        );
    }
}

/// Reads raw bytes one decision at a time; 0 once they run out.
struct Cursor<'a> {
    raw: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn op(&mut self) -> Option<u8> {
        let b = self.raw.get(self.at).copied();
        self.at += 1;
        b
    }

    fn next(&mut self) -> u8 {
        self.op().unwrap_or(0)
    }

    fn pick<'v, T>(&mut self, from: &'v [T]) -> Option<&'v T> {
        if from.is_empty() {
            return None;
        }
        Some(&from[self.next() as usize % from.len()])
    }
}

/// A generated log: the operations, the records they wrote and the model of their view.
#[derive(Clone)]
pub struct Script {
    /// The operations, in order.
    pub ops: Vec<Op>,
    /// Every record after the `session` record (seq 1), with its seq.
    pub bodies: Vec<(u64, Body)>,
    /// What the view must show.
    pub model: Model,
    next_seq: u64,
    calls: u64,
}

impl fmt::Debug for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.ops).finish()
    }
}

impl Default for Script {
    fn default() -> Self {
        Self::new()
    }
}

impl Script {
    /// An empty session: only its `session` record (seq 1).
    pub fn new() -> Self {
        Script {
            ops: Vec::new(),
            bodies: Vec::new(),
            model: Model {
                entries: vec![Entry::plain(1)],
                ..Model::default()
            },
            next_seq: 2,
            calls: 0,
        }
    }

    /// Interprets `raw` as operations on an empty session.
    pub fn interpret(raw: &[u8]) -> Self {
        let mut script = Script::new();
        script.extend(raw);
        script
    }

    /// Interprets `raw` as more operations; returns the records they wrote. After an open turn
    /// nothing more is written.
    pub fn extend(&mut self, raw: &[u8]) -> Vec<(u64, Body)> {
        let from = self.bodies.len();
        let mut cur = Cursor { raw, at: 0 };
        while !self.model.open {
            let Some(kind) = cur.op() else { break };
            match kind % 32 {
                0..=15 => self.turn(&mut cur, false),
                16..=18 => self.revert(&mut cur),
                19..=21 => self.fold(&mut cur),
                22 => self.compaction(&mut cur),
                23 | 24 => self.other(Body::Clear),
                25 => {
                    let keep = !cur.next().is_multiple_of(4);
                    let name = keep.then(|| format!("name-{}", self.next_seq));
                    self.other(Body::Name { name })
                }
                26 => {
                    let n = cur.next() % 4;
                    let items = (0..n)
                        .map(|i| Todo {
                            text: format!("todo {i}"),
                            status: ["pending", "in_progress", "done"][i as usize % 3].to_owned(),
                        })
                        .collect();
                    self.other(Body::Todos { items })
                }
                27 => {
                    let b = cur.next();
                    self.other(Body::Mode {
                        permission: b.is_multiple_of(2).then(|| "accept-edits".to_owned()),
                        plan: (!b.is_multiple_of(3)).then_some(b.is_multiple_of(5)),
                        effort: b.is_multiple_of(7).then(|| "high".to_owned()),
                        sandbox: None,
                        model: None,
                        provider: None,
                    })
                }
                28 => self.other(Body::title(format!("title {}", self.next_seq))),
                29 | 30 => self.other(Body::Unknown {
                    kind: format!("future_kind_{}", cur.next() % 3),
                }),
                _ => self.turn(&mut cur, true),
            }
        }
        self.bodies[from..].to_vec()
    }

    /// The log as the testkit's builder writes it (session id [`FIXED_ID`], cwd [`CWD`]).
    pub fn builder(&self) -> LogBuilder {
        let mut log = LogBuilder::new(FIXED_ID, CWD);
        for (seq, body) in &self.bodies {
            let written = log.record(body.clone());
            assert_eq!(written, *seq, "scripts number their records densely from 2");
        }
        log
    }

    /// The log's records, as read back from its bytes.
    pub fn records(&self) -> Vec<Record> {
        let text = self.builder().text();
        read_from(&text[..], ReadOptions::default())
            .expect("reading from memory cannot fail")
            .records
    }

    /// The log as JSON lines, for failure messages.
    pub fn jsonl(&self) -> String {
        String::from_utf8_lossy(&self.builder().text()).into_owned()
    }

    fn push(&mut self, body: Body, entry: impl FnOnce(u64) -> Entry) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.bodies.push((seq, body));
        self.model.entries.push(entry(seq));
        seq
    }

    fn item(&mut self, body: Body) -> u64 {
        self.push(body, |seq| Entry {
            item: true,
            ..Entry::plain(seq)
        })
    }

    fn other(&mut self, body: Body) {
        let kind = body.kind().to_owned();
        let clear = matches!(body, Body::Clear);
        let seq = self.push(body, |seq| Entry {
            clear,
            ..Entry::plain(seq)
        });
        self.ops.push(Op::Other { seq, kind });
    }

    fn tool_call(&mut self, calls: usize) -> (u64, Vec<String>) {
        let ids: Vec<String> = (0..calls)
            .map(|_| {
                self.calls += 1;
                format!("call_{}", self.calls)
            })
            .collect();
        let content = ids
            .iter()
            .map(|id| Block::ToolUse {
                id: id.clone(),
                name: "bash".to_owned(),
                input: serde_json::json!({ "command": format!("echo {id}") }).into(),
            })
            .collect();
        let seq = self.item(Body::Assistant {
            content,
            model: Some("demo".to_owned()),
            stop: Some("tool_use".to_owned()),
            stop_raw: None,
            usage: None,
        });
        (seq, ids)
    }

    fn turn(&mut self, cur: &mut Cursor<'_>, may_open: bool) {
        let steps = cur.next() % 4;
        let flags = cur.next();
        let variant = cur.next();
        let paste = flags & 0b111 == 0;
        let image = (flags >> 3) & 0b111 == 0;
        let parallel = flags & 0b0100_0000 != 0;
        let end = match (may_open, variant % 8) {
            (true, 0..=2) => TurnEnd::Open,
            (true, 3..=5) => TurnEnd::OpenToolUse,
            (true, _) => TurnEnd::OpenRunless,
            (false, 0..=3) => TurnEnd::Finished,
            (false, 4) => TurnEnd::Cancelled,
            (false, 5) => TurnEnd::Interrupted,
            (false, _) => TurnEnd::Runless,
        };
        let first = self.next_seq;
        let run = format!("run_{first}");
        if end.has_run() {
            self.push(
                Body::Run {
                    run: run.clone(),
                    state: RunState::Started,
                },
                Entry::plain,
            );
        }
        let mut text = format!("question {first}: what about ünïcode?");
        if paste {
            let extra = PASTE_MIN + usize::from(cur.next()) * 7;
            let mut long = format!("pasted log {first}\n");
            while long.chars().count() < extra {
                long.push_str("line of pasted output — ok\n");
            }
            text = long;
        }
        let mut content = vec![Block::text(text)];
        if image {
            content.insert(
                0,
                Block::Image {
                    media_type: "image/png".to_owned(),
                    data: None,
                    blob: Some(format!("{first:064x}")),
                },
            );
        }
        let user = self.push(Body::User { content }, |seq| Entry {
            item: true,
            user: true,
            ..Entry::plain(seq)
        });
        let mut last_item = user;
        let mut step_seqs = Vec::new();
        for step in 0..steps {
            let (seq, ids) = self.tool_call(if parallel { 2 } else { 1 });
            step_seqs.push(seq);
            for (i, id) in ids.into_iter().enumerate() {
                let output = if (step as usize + i) % 3 == 2 {
                    Vec::new()
                } else {
                    vec![Block::text(format!("output of {id}"))]
                };
                last_item = self.item(Body::ToolResult {
                    call: id,
                    content: output,
                    blob: None,
                    is_error: step == 2,
                    files: Vec::new(),
                });
            }
        }
        let state = match end {
            TurnEnd::Finished | TurnEnd::Runless => {
                last_item = self.item(Body::Assistant {
                    content: vec![
                        Block::Thinking {
                            thinking: "hmm".to_owned(),
                            signature: Some("sig".to_owned()),
                        },
                        Block::text(format!("answer to t{user}")),
                    ],
                    model: Some("demo".to_owned()),
                    stop: Some("end_turn".to_owned()),
                    stop_raw: None,
                    usage: None,
                });
                (end == TurnEnd::Finished).then_some(RunState::Finished)
            }
            TurnEnd::Cancelled => Some(RunState::Cancelled),
            TurnEnd::Interrupted => Some(RunState::Interrupted),
            TurnEnd::Open => None,
            TurnEnd::OpenToolUse | TurnEnd::OpenRunless => {
                last_item = self.tool_call(1).0;
                None
            }
        };
        if let Some(state) = state {
            self.push(Body::Run { run, state }, Entry::plain);
        }
        let last = self.next_seq - 1;
        self.model.open = end.is_open();
        self.model.turns.push(Turn {
            start: first,
            user,
            steps: step_seqs,
            last_item,
            end: last,
        });
        self.ops.push(Op::Turn {
            user,
            steps,
            paste,
            end,
            first,
            last,
        });
    }

    fn revert(&mut self, cur: &mut Cursor<'_>) {
        let boundaries = self.model.boundaries();
        let to = cur
            .pick(&boundaries)
            .expect("a session without an open turn has a final boundary")
            .seq;
        self.model.revert(to);
        let seq = self.push(Body::Revert { to }, |seq| Entry {
            revert: true,
            ..Entry::plain(seq)
        });
        self.ops.push(Op::Revert { seq, to });
    }

    /// Folds from a message or a step of one finished turn to the end of a later (or the same)
    /// finished turn, after every visible fold and compaction.
    fn fold(&mut self, cur: &mut Cursor<'_>) {
        // A fold never reaches behind a clear: the model saw nothing before it.
        let floor = self.model.collapse_floor().max(self.model.model_after());
        let turns: Vec<Turn> = self
            .model
            .turns
            .iter()
            .filter(|t| t.start > floor)
            .cloned()
            .collect();
        let sinces: Vec<(usize, u64)> = turns
            .iter()
            .enumerate()
            .flat_map(|(i, t)| {
                std::iter::once(t.user)
                    .chain(t.steps.iter().copied())
                    .map(move |s| (i, s))
            })
            .collect();
        let Some(&(i, since)) = cur.pick(&sinces) else {
            return;
        };
        let untils: Vec<u64> = turns[i..]
            .iter()
            .flat_map(|t| [t.last_item, t.end])
            .collect();
        let until = *cur.pick(&untils).expect("the since's own turn ends");
        let seq = self.next_seq;
        self.push(
            Body::Fold(Box::new(Fold {
                since,
                until,
                handle: format!("{seq:04x}"),
                note: format!("note of fold t{seq}"),
                files: Vec::new(),
                diff_blob: None,
            })),
            |seq| Entry {
                collapse_until: Some(until),
                ..Entry::plain(seq)
            },
        );
        self.ops.push(Op::Fold { seq, since, until });
    }

    /// Compacts everything up to the end of a finished turn after every visible collapse.
    fn compaction(&mut self, cur: &mut Cursor<'_>) {
        let floor = self.model.collapse_floor();
        let untils: Vec<u64> = self
            .model
            .turns
            .iter()
            .filter(|t| t.start > floor)
            .flat_map(|t| [t.last_item, t.end])
            .collect();
        let Some(&until) = cur.pick(&untils) else {
            return;
        };
        let seq = self.next_seq;
        self.push(
            Body::Compaction {
                until,
                summary: format!("summary up to t{until}"),
            },
            |seq| Entry {
                collapse_until: Some(until),
                ..Entry::plain(seq)
            },
        );
        self.ops.push(Op::Compaction { seq, until });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreting_is_total_and_dense() {
        for raw in [
            &b""[..],
            &[0, 3, 0, 0, 16, 0, 19, 0, 0],
            &[31, 1, 1, 1, 0],
            &[0; 40],
            &[255; 40],
        ] {
            let script = Script::interpret(raw);
            for (i, (seq, _)) in script.bodies.iter().enumerate() {
                assert_eq!(*seq, i as u64 + 2);
            }
            assert_eq!(script.records().len(), script.bodies.len() + 1);
        }
    }

    /// The generator reaches every kind of operation, so the properties exercise them all.
    #[test]
    fn generated_scripts_cover_every_operation() {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;

        let mut runner = TestRunner::deterministic();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..256 {
            let script = script()
                .new_tree(&mut runner)
                .expect("the strategy never rejects")
                .current();
            for op in &script.ops {
                seen.insert(match op {
                    Op::Turn { end, paste, .. } => format!("turn {end:?} paste={paste}"),
                    Op::Revert { .. } => "revert".to_owned(),
                    Op::Fold { .. } => "fold".to_owned(),
                    Op::Compaction { .. } => "compaction".to_owned(),
                    Op::Other { kind, .. } => kind.clone(),
                });
            }
        }
        let ends = [
            "Finished",
            "Cancelled",
            "Interrupted",
            "Runless",
            "Open",
            "OpenToolUse",
            "OpenRunless",
        ];
        for end in ends {
            assert!(
                seen.contains(&format!("turn {end} paste=false")),
                "{end}: {seen:?}"
            );
        }
        for kind in [
            "turn Finished paste=true",
            "revert",
            "fold",
            "compaction",
            "clear",
            "name",
            "todos",
            "mode",
            "title",
            "future_kind_0",
        ] {
            assert!(seen.contains(kind), "{kind}: {seen:?}");
        }
    }

    #[test]
    fn revert_returns_to_a_boundary() {
        // Two turns, then a revert to the boundary before the second.
        let script = Script::interpret(&[0, 0, 255, 0, 0, 0, 255, 0, 16, 1]);
        assert_eq!(script.model.turns(), 1, "{script:?}");
        assert_eq!(script.model.visible_users(), [3]);
    }
}
