//! hotl's recall: search over what a session's tree holds off its main line (folded and
//! compacted spans, earlier asks, the work of forks) with no model call.
//!
//! It owns the archive index and its search: ranked (BM25), exact (case-insensitive substring)
//! and regex ([`Mode`]), the file touches of each archived thread and their staleness. It never
//! calls a model and never writes logs; its only writes are derived index files under the
//! store's `index/recall/`, which can always be deleted.
//!
//! An [`Archive`] holds the [`Thread`]s a session's view folded or compacted and their
//! documents ([`Doc`]: user text, assistant text and tool calls, reasoning, tool outputs, the
//! note). [`Archive::from_records`] builds one in memory from a lineage's records;
//! [`open_index`] loads the persisted index and brings it up to date incrementally;
//! [`open_archive`] adds the sessions delegated from the lineage (forks), each a thread under
//! its handle plus the threads its own log archived (a fork can fold inside itself, so the
//! archive is a tree; search runs flat over it and names each line's innermost thread).
//! [`Archive::search`] returns [`Hit`]s, each naming its thread and the touched files that
//! changed since ([`staleness`]; an earlier ask's are those of the thread it asked);
//! [`render_hits`] is what the model and the shell see. [`search_archive`] opens and searches
//! in one call, rebuilding and searching again when an index file turns out damaged;
//! [`Archive::stale_files`] is the staleness of one handle, for `ask`. [`search_whole`] searches
//! the main line too (a session's whole text, for searching sessions from elsewhere).
//!
//! The key choice: what counts as archived is decided by projecting the records with
//! `hotl-view` and walking its folded and compacted items, never by re-implementing fold rules.
//!
//! ```
//! use hotl_log::{Block, Body, Fold, Record, SessionStart};
//! use hotl_recall::{Archive, Mode, render_hits};
//!
//! let records = vec![
//!     Record::new(1, "T", Body::Session(Box::new(SessionStart::new("/p")))),
//!     Record::new(2, "T", Body::user_text("why does the build fail with TS2322?")),
//!     Record::new(3, "T", Body::Assistant {
//!         content: vec![Block::text("a string went where a number belongs")],
//!         model: None, stop: Some("end_turn".into()), stop_raw: None, usage: None,
//!     }),
//!     Record::new(4, "T", Body::Fold(Box::new(Fold {
//!         since: 2, until: 3, handle: "b2e4".into(), note: "fixed the TS2322 type error".into(),
//!         files: vec![], diff_blob: None,
//!     }))),
//! ];
//! let archive = Archive::from_records(&records, 0);
//! let hits = archive.search("number belongs", Mode::Ranked, 5).unwrap();
//! assert_eq!(render_hits(&hits), "[b2e4 t3 assistant] a string went where a number belongs\n");
//! ```

#![deny(missing_docs)]

mod archive;
mod codec;
mod corpus;
mod error;
mod extract;
mod persist;
mod prefilter;
mod search;
mod segment;
mod stale;
mod terms;
mod token;
mod tree;
mod types;

pub use crate::archive::{Archive, IndexStats};
pub use crate::corpus::{
    Found, MAX_QUERY_CHARS, Refreshed, Scope, SessionHit, SessionIndex, SessionIndexStats,
    search_sessions,
};
pub use crate::error::{RecallError, Result};
pub use crate::persist::{index_path, open_index};
pub use crate::stale::{render_hits, render_search, staleness};
pub use crate::tree::{open_archive, search_archive, search_recall, search_whole};
pub use crate::types::{Doc, DocKind, Hit, Mode, Thread, compaction_handle, is_compaction_handle};
