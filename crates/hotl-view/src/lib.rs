//! hotl's projection: a lineage's records become the transcript a person reads and the
//! messages a model is sent.
//!
//! It owns the visible transcript ([`View`], [`Item`]), the model view ([`model_messages`]),
//! stamps ([`stamp`]), turn boundaries and cuts ([`Cut`]), and the application of folds,
//! compactions, clears and reverts. It never does I/O, reads a clock, draws randomness or runs
//! async code: the same records always give the same view, byte for byte.
//!
//! ```
//! use hotl_log::{Body, Record};
//! use hotl_view::{Role, model_messages, project};
//!
//! let records = vec![
//!     Record::new(1, "T", Body::Session(Box::new(hotl_log::SessionStart::new("/p")))),
//!     Record::new(2, "T", Body::user_text("hi")),
//! ];
//! let view = project(&records, 0);
//! let messages = model_messages(&view);
//! assert_eq!(messages[0].role, Role::User);
//! assert_eq!(messages[0].content[0].as_text(), Some("[t2] hi"));
//! ```

#![deny(missing_docs)]

mod cut;
mod error;
mod fold;
mod item;
mod model;
mod project;
mod thin;
mod typed;

pub use crate::cut::{Cut, fork_state};
pub use crate::error::{Result, ViewError};
pub use crate::fold::{FoldSpan, NOTE_HEADINGS, missing_headings, open_items};
pub use crate::item::{Item, compaction_handle, is_compaction_handle};
pub use crate::model::{
    Message, MessageRef, Part, QUOTE_CAP, Role, model_messages, model_view, stamp,
};
pub use crate::project::{Boundary, Failure, View, project, project_owned};
pub use crate::thin::ThinView;
pub use crate::typed::{parse_stamp, stamp_seq};
