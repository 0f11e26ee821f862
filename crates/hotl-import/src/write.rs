//! Writing an imported session: the `session` and `import` records, then the draft's records,
//! each line encoded as hotl encodes it with the provenance added as the extra `src` field
//! (readers keep unknown fields in the file and pass them through). The whole tree (a session
//! and its sub-agents as clean delegated children) appears atomically through the store.

use hotl_log::{Body, ImportInfo, Record, SessionStart, encode_line};
use serde_json::Value;

use crate::draft::Draft;
use crate::error::Result;

/// One session ready to write.
#[derive(Debug)]
pub(crate) struct Session {
    /// Its new id.
    pub id: String,
    pub start: SessionStart,
    pub info: ImportInfo,
    pub draft: Draft,
}

impl Session {
    /// The log's bytes.
    pub fn encode(mut self, now: &str) -> Result<Vec<u8>> {
        // `session` and `import` are hotl's own records, written now; what follows keeps the
        // source's stamps.
        let first_ts = now.to_owned();
        self.start.id.clone_from(&self.id);
        self.info.until = self.draft.last_seq();
        let mut out = Vec::with_capacity(self.draft.entries.len() * 512);
        out.extend(encode_line(&Record::new(
            1,
            first_ts.clone(),
            Body::Session(Box::new(self.start)),
        ))?);
        out.extend(encode_line(&Record::new(
            2,
            first_ts,
            Body::Import(Box::new(self.info)),
        ))?);
        for (seq, entry) in (crate::draft::FIRST_SEQ..).zip(self.draft.entries) {
            let line = encode_line(&Record::new(seq, entry.ts, entry.body))?;
            push_with_src(&mut out, &line, entry.src.as_ref())?;
        }
        Ok(out)
    }
}

/// Appends `line` (`{…}\n`) to `out`, with `"src":…` added as its last field.
fn push_with_src(out: &mut Vec<u8>, line: &[u8], src: Option<&Value>) -> Result<()> {
    match src {
        Some(src) if line.ends_with(b"}\n") => {
            out.extend_from_slice(&line[..line.len() - 2]);
            out.extend_from_slice(b",\"src\":");
            serde_json::to_writer(&mut *out, src)?;
            out.extend_from_slice(b"}\n");
        }
        _ => out.extend_from_slice(line),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn src_is_an_extra_field_readers_skip() -> std::result::Result<(), Box<dyn std::error::Error>> {
        let mut draft = Draft::default();
        draft.push(
            Body::user_text("hi"),
            "2026-01-01T00:00:00.000Z",
            Some(serde_json::json!({"id": "u1", "line": 3})),
        );
        let session = Session {
            id: hotl_log::new_session_id(),
            start: SessionStart::new("/p"),
            info: ImportInfo {
                source: "claude-code".into(),
                ..ImportInfo::default()
            },
            draft,
        };
        let bytes = session.encode("2026-01-02T00:00:00.000Z")?;
        let log = hotl_log::read_from(&bytes[..], hotl_log::ReadOptions::default())?;
        assert!(log.report.skipped.is_empty(), "{:?}", log.report);
        assert_eq!(log.records.len(), 3);
        let Body::Import(info) = &log.records[1].body else {
            panic!("{:?}", log.records[1]);
        };
        assert_eq!(info.until, 3);
        let third: Value =
            serde_json::from_slice(bytes.split(|&b| b == b'\n').nth(2).unwrap_or_default())?;
        assert_eq!(third["src"]["id"], "u1");
        assert_eq!(third["ts"], "2026-01-01T00:00:00.000Z");
        Ok(())
    }
}
