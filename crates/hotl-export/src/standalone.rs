//! A JSONL export that stands alone: after the records, one `blob` line per blob they name
//! (the frozen system prompt and tools, full outputs, images, diffs), so `sessions import` in
//! another home resumes and checks clean without the blob store it came from.
//!
//! A blob is named by the hash of its bytes. Redaction can change a blob's bytes; its lines
//! then carry the new hash, and the records name it instead of the old one.

use base64::Engine as _;

use crate::snapshot::Snapshot;

/// The `type` of a line carrying a blob (docs/log-format.md, "Exports that stand alone").
pub const BLOB_LINE: &str = "blob";

/// `records` (the flattened log's lines) followed by the snapshot's blobs, each as a line
/// `{"type":"blob","hash":…,"base64":…}`; a blob whose bytes no longer match its name is named
/// anew, in the records too.
pub fn with_blobs(mut records: String, snapshot: &Snapshot) -> String {
    let mut lines = String::new();
    for (hash, bytes) in snapshot.frozen.iter().chain(&snapshot.blobs) {
        let real = hotl_log::blob_hash(bytes);
        if &real != hash {
            records = records.replace(hash.as_str(), &real);
        }
        let line = serde_json::json!({
            "type": BLOB_LINE,
            "hash": real,
            "base64": base64::engine::general_purpose::STANDARD.encode(bytes),
        });
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    records.push_str(&lines);
    records
}
