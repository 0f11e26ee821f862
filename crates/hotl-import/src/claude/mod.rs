//! Claude Code transcripts (`~/.claude/projects/<dir>/<session>.jsonl`) converted into hotl
//! records, with their sub-agent transcripts (`<session>/subagents/agent-<id>.jsonl`, or flat
//! `agent-<id>.jsonl` beside the session in 2.0.x) as clean delegated children.
//!
//! The file is a graph (`parentUuid`), written in the order things happened. Walking it in
//! file order keeps that order; the graph is used only where it says more than the order:
//! the chunks of one streamed response (one `message.id`) become one assistant record, a
//! typed prompt whose parent is not where the conversation stood is a rewind (a `revert` to
//! that parent, the older branch kept), and a compaction boundary names what it covers.
//! Parallel tool results are graph siblings; they are paired with their calls by id, never by
//! position. A conversation that went back to an earlier branch is laid out branch by branch,
//! the active one last (`order`).

mod blocks;
mod convert;
mod order;
mod peek;
mod subagents;

pub(crate) use convert::{Mode, convert};
pub(crate) use peek::peek;
pub(crate) use subagents::{find_subagents, parent_session_file};
