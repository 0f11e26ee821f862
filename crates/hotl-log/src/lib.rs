//! hotl's session store: append-only logs of typed records, read tolerantly, written by one
//! process per session tree.
//!
//! It owns records and content blocks ([`Record`], [`Body`], [`Block`]), appending
//! ([`Writer`]), tolerant reading ([`read_log`] returns what it could read plus a
//! [`LoadReport`]), the metadata cache ([`SessionMeta`]), tree locks ([`TreeLock`]), blobs
//! ([`Blobs`]), lineage through fork pins ([`Lineage`]), the visible branch after reverts
//! ([`visible_branch`]), reference resolution ([`resolve`]), checks and gc. It never projects
//! a view, never runs async code, never touches the network and never prints.
//!
//! The key choice: nothing is ever rewritten. A fork reads its parent up to a pinned byte
//! offset instead of copying it; revert, clear, fold and drop are records; only derived caches
//! are replaced (atomically).
//!
//! ```
//! use hotl_log::{Body, SessionStart, Store};
//!
//! let home = tempfile::tempdir().unwrap();
//! let store = Store::new(home.path());
//! let start = SessionStart::new("/project");
//! let mut writer = store.create(start, 1, vec![]).unwrap();
//! writer.append(Body::user_text("hello")).unwrap();
//! let id = writer.id().to_owned();
//! drop(writer);
//! assert_eq!(store.meta(&id).unwrap().turns, 1);
//! ```

#![deny(missing_docs)]

mod atomic;
mod blob;
mod block;
mod branch;
mod carried;
mod check;
mod clock;
mod encoded;
mod error;
mod fsutil;
mod gc;
mod hole;
#[cfg(feature = "layout")]
mod layout;
mod lineage;
mod lock;
mod meta;
mod read;
mod record;
mod resolve;
mod store;
mod tree;
mod write;

pub use crate::atomic::{Atomic, Perms, write_file_atomic};
pub use crate::blob::{Blobs, blob_hash, blob_refs, read_frozen};
pub use crate::block::{Block, ToolInput, plain_text};
pub use crate::branch::{RevertMark, revert_marks, visible_branch, visible_mask};
pub use crate::check::{CheckReport, Finding, Severity};
pub use crate::clock::{Clock, format_ts, parse_ts};
pub use crate::error::{IoResultExt, LogError, Result};
pub use crate::gc::{Dropped, GcOptions, GcReport, GcSession};
pub use crate::hole::{Filler, Hole};
#[cfg(feature = "layout")]
pub use crate::layout::Layout;
pub use crate::lineage::{
    Lineage, LineageProblem, MAX_ANCESTORS, pin_hash, pin_hash_of, pinned_bytes,
};
pub use crate::lock::TreeLock;
pub use crate::meta::{
    META_FORMAT, Modes, ParentRef, ProblemCounts, SessionMeta, summarize, summarize_visible,
};
pub use crate::read::{
    LoadReport, Log, ReadOptions, SeqProblem, Skipped, Span, TornTail, read_from, read_log,
};
pub use crate::record::{
    Body, Delegation, ENGINE_VERSION, FileTouch, Fold, ImportInfo, Pin, Record, RunState,
    SessionStart, Todo, Usage, encode_line, stop_name,
};
pub use crate::resolve::{Resolution, describe, listed, resolve, validate_name};
pub use crate::store::{Store, is_session_id, new_session_id, seq_of};
pub use crate::tree::Delegated;
pub use crate::write::{Imported, Inherited, Writer};
