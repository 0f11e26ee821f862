//! hotl's sessions taken out: a session gathered into a [`Snapshot`] (its lineage, frozen
//! prompt and tools, blobs, delegated children and spending), redacted, trimmed to a size
//! budget, and written as one self-contained HTML page, Markdown, or a JSONL log, or sealed
//! into an encrypted share whose viewer is the same page, and delivered ([`deliver`]): to a
//! file, or to a share store (a `hotl share-server`, a gist, the user's command). Depends on
//! the log and the view: the caller prices the session and reads the configuration.

#![deny(missing_docs)]

pub mod deliver;
pub mod doc;
pub mod economy;
pub mod export;
pub mod html;
pub mod md;
mod names;
pub mod redact;
pub mod seal;
pub mod snapshot;
pub mod standalone;
pub mod text;
pub mod trim;

pub use crate::doc::{Document, FORMAT, SessionInfo, flattened, flattened_log};
pub use crate::economy::{ChildSpend, Economy, Spend, TurnSpend};
pub use crate::export::{
    DEFAULT_BUDGET, ExportError, SERVER_LIMIT, Written, html as export_html, share,
};
pub use crate::names::{ShortIds, relative_time, thousands};
pub use crate::redact::Redactor;
pub use crate::snapshot::{Child, Snapshot, ToolInfo};
