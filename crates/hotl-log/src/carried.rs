//! Blobs carried in a log file that stands alone (`sessions export --format jsonl`): lines
//! `{"type":"blob","hash":…,"base64":…}` after the records. An import stores each blob whose
//! bytes match its hash and takes the lines out, so the adopted log holds records only; a line
//! that does not match is reported and left out, and nothing else is lost.

use base64::Engine as _;

use crate::blob::{Blobs, blob_hash};
use crate::error::Result;
use crate::read::Skipped;

/// What taking the blob lines out of a file found.
#[derive(Debug, Default)]
pub struct Carried {
    /// Blobs stored.
    pub stored: usize,
    /// Blob lines left out, and why.
    pub refused: Vec<Skipped>,
}

/// `bytes` without its blob lines; the blobs they carry go to `blobs`.
pub fn take_blobs(bytes: &[u8], blobs: &Blobs) -> Result<(Vec<u8>, Carried)> {
    let mut kept = Vec::with_capacity(bytes.len());
    let mut carried = Carried::default();
    let mut offset = 0u64;
    for (n, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        match blob_line(line) {
            None => kept.extend_from_slice(line),
            Some(Ok((hash, data))) => {
                blobs.put(&data)?;
                carried.stored += 1;
                debug_assert_eq!(blob_hash(&data), hash);
            }
            Some(Err(reason)) => carried.refused.push(Skipped {
                line: n as u64 + 1,
                offset,
                reason,
            }),
        }
        offset += line.len() as u64;
    }
    Ok((kept, carried))
}

/// A blob line's hash and bytes; `None` when `line` is not a blob line (a record).
fn blob_line(line: &[u8]) -> Option<std::result::Result<(String, Vec<u8>), String>> {
    // Records never have `base64` as a key at the top level; checking the bytes first keeps
    // an import of a long log from parsing each line twice.
    if !line.windows(8).any(|w| w == b"\"base64\"") {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(line).ok()?;
    if value.get("type")?.as_str()? != "blob" {
        return None;
    }
    let hash = value
        .get("hash")
        .and_then(|h| h.as_str())
        .unwrap_or_default();
    let Some(data) = value.get("base64").and_then(|d| d.as_str()) else {
        return Some(Err("blob line without base64 data".to_owned()));
    };
    let Ok(data) = base64::engine::general_purpose::STANDARD.decode(data) else {
        return Some(Err(format!("blob {hash}: its data is not base64")));
    };
    if blob_hash(&data) != hash {
        return Some(Err(format!("blob {hash}: its bytes do not match its hash")));
    }
    Some(Ok((hash.to_owned(), data)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(hash: &str, data: &[u8]) -> String {
        let b64 = base64::engine::general_purpose::STANDARD.encode(data);
        format!("{{\"base64\":\"{b64}\",\"hash\":\"{hash}\",\"type\":\"blob\"}}\n")
    }

    #[test]
    fn blob_lines_are_stored_and_taken_out_and_bad_ones_reported() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = Blobs::new(dir.path().join("blobs"));
        let good = blob_hash(b"the frozen prompt");
        let record = "{\"seq\":1,\"type\":\"user\",\"content\":\"a \\\"base64\\\" word\"}\n";
        let file = format!(
            "{record}{}{}{{\"type\":\"blob\",\"hash\":\"ab\",\"base64\":\"!!\"}}\n",
            line(&good, b"the frozen prompt"),
            line(&good, b"other bytes"),
        );
        let (kept, carried) = take_blobs(file.as_bytes(), &blobs).unwrap();
        assert_eq!(kept, record.as_bytes());
        assert_eq!(carried.stored, 1);
        assert_eq!(blobs.get(&good).unwrap(), b"the frozen prompt");
        let reasons: Vec<_> = carried
            .refused
            .iter()
            .map(|s| (s.line, s.reason.as_str()))
            .collect();
        assert_eq!(
            reasons,
            [
                (
                    3,
                    format!("blob {good}: its bytes do not match its hash").as_str()
                ),
                (4, "blob ab: its data is not base64"),
            ]
        );
    }
}
