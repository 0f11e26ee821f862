//! Segments: a session's log published as immutable pieces, each a header line and the log's
//! own lines byte for byte. Each covers the seqs from its `start` (where the one before it
//! ended, plus one) to its `last`, so a writer that did not see the newest segment names its
//! next one as the newest is already named, and the store refuses it: segments are the fence.

use serde::{Deserialize, Serialize};

/// The header's format.
pub const FORMAT: &str = "hotl-segment/1";

/// The most a segment holds: larger publishes are cut at line boundaries.
pub const MAX_BYTES: usize = 8 << 20;

/// A segment's first line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// [`FORMAT`].
    pub format: String,
    /// The tree's root.
    pub root: String,
    /// The session whose log it is part of.
    pub session: String,
    /// The first seq it covers (its name).
    pub start: u64,
    /// The last seq it holds.
    pub last: u64,
    /// The length of the lines after the header.
    pub bytes: u64,
    /// blake3 (hex) of those lines.
    pub hash: String,
    /// The hash of the segment before it; `None` for a session's first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev: Option<String>,
    /// The lease's epoch it was written under.
    pub epoch: u64,
}

/// A segment as read from the store, checked.
#[derive(Clone, Debug)]
pub struct Segment {
    /// Its header.
    pub header: Header,
    /// The log's lines it holds.
    pub body: Vec<u8>,
}

/// The bytes of a segment (before sealing).
pub fn encode(header: &Header, body: &[u8]) -> Vec<u8> {
    let mut out = serde_json::to_vec(header).expect("a header serializes");
    out.push(b'\n');
    out.extend_from_slice(body);
    out
}

/// Reads and checks a segment: its header parses, names the session and start its object
/// name does, and its lines are whole, as long as it says, hash as it says, and hold only
/// seqs from `start` to `last`. `Err` says what is wrong, for the report naming the object.
pub fn decode(plain: &[u8], root: &str, session: &str, start: u64) -> Result<Segment, String> {
    let cut = memchr(plain).ok_or("it has no header line (cut short?)")?;
    let header: Header = serde_json::from_slice(&plain[..cut])
        .map_err(|e| format!("its header does not parse: {e}"))?;
    if header.format != FORMAT {
        return Err(format!("its format is {:?}, not {FORMAT}", header.format));
    }
    if header.root != root || header.session != session || header.start != start {
        return Err(format!(
            "its header names session {} at seq {} of tree {}: it was put under another name",
            header.session, header.start, header.root
        ));
    }
    let body = &plain[cut + 1..];
    if body.len() as u64 != header.bytes {
        return Err(format!(
            "it holds {} bytes of lines where its header says {} (cut short or grown)",
            body.len(),
            header.bytes
        ));
    }
    if blake3::hash(body).to_hex().as_str() != header.hash {
        return Err("its lines do not hash as its header says (changed)".to_owned());
    }
    if body.last() != Some(&b'\n') {
        return Err("its last line is not whole".to_owned());
    }
    let (low, high) = seq_range(body).ok_or("it holds no record with a seq")?;
    if low < header.start || high != header.last {
        return Err(format!(
            "it holds seqs {low} to {high} where its header says {} to {}",
            header.start, header.last
        ));
    }
    Ok(Segment {
        header,
        body: body.to_vec(),
    })
}

/// The lowest and highest seq of the records in `lines`; `None` when none holds one.
pub fn seq_range(lines: &[u8]) -> Option<(u64, u64)> {
    let mut range: Option<(u64, u64)> = None;
    for line in lines.split_inclusive(|&b| b == b'\n') {
        if let Some(seq) = hotl_log::seq_of(line) {
            range = Some(match range {
                Some((lo, hi)) => (lo.min(seq), hi.max(seq)),
                None => (seq, seq),
            });
        }
    }
    range
}

/// Cuts whole lines into pieces of at most [`MAX_BYTES`] (a longer line is a piece of its
/// own), each holding at least one seq; lines at the end that hold none wait for a later
/// publish. Returns the pieces and how many bytes of `lines` they take.
pub fn cut(lines: &[u8]) -> (Vec<&[u8]>, usize) {
    let mut pieces = Vec::new();
    // The piece being made starts at `start`; `seq_end` is the end of its last line that
    // holds a seq (0: none yet).
    let (mut start, mut at, mut seq_end) = (0usize, 0usize, 0usize);
    for line in lines.split_inclusive(|&b| b == b'\n') {
        if line.last() != Some(&b'\n') {
            break;
        }
        if seq_end > start && at - start + line.len() > MAX_BYTES {
            pieces.push(&lines[start..at]);
            start = at;
        }
        at += line.len();
        if hotl_log::seq_of(line).is_some() {
            seq_end = at;
        }
    }
    if seq_end > start {
        pieces.push(&lines[start..seq_end]);
        start = seq_end;
    }
    (pieces, start)
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = "01JD0000000000000000000001";

    fn lines(seqs: std::ops::RangeInclusive<u64>) -> Vec<u8> {
        seqs.flat_map(|s| format!("{{\"seq\":{s},\"ts\":\"T\",\"type\":\"x\"}}\n").into_bytes())
            .collect()
    }

    fn header(body: &[u8], start: u64, last: u64) -> Header {
        Header {
            format: FORMAT.to_owned(),
            root: ROOT.to_owned(),
            session: ROOT.to_owned(),
            start,
            last,
            bytes: body.len() as u64,
            hash: blake3::hash(body).to_hex().to_string(),
            prev: None,
            epoch: 1,
        }
    }

    #[test]
    fn a_segment_reads_back_and_every_damage_is_named() {
        let body = lines(3..=7);
        let bytes = encode(&header(&body, 3, 7), &body);
        let seg = decode(&bytes, ROOT, ROOT, 3).unwrap();
        assert_eq!(seg.body, body);
        // Cut short.
        let e = decode(&bytes[..bytes.len() - 5], ROOT, ROOT, 3).unwrap_err();
        assert!(e.contains("cut short"), "{e}");
        // A byte changed.
        let mut changed = bytes.clone();
        let at = changed.len() - 8;
        changed[at] = b'9';
        assert!(
            decode(&changed, ROOT, ROOT, 3)
                .unwrap_err()
                .contains("changed")
        );
        // Put under another name.
        assert!(
            decode(&bytes, ROOT, ROOT, 4)
                .unwrap_err()
                .contains("another name")
        );
        // Not a segment at all.
        assert!(decode(b"hello", ROOT, ROOT, 3).is_err());
    }

    #[test]
    fn a_header_that_lies_about_its_seqs_is_refused() {
        let body = lines(3..=7);
        let bytes = encode(&header(&body, 5, 7), &body);
        assert!(
            decode(&bytes, ROOT, ROOT, 5)
                .unwrap_err()
                .contains("seqs 3 to 7")
        );
    }

    #[test]
    fn cutting_keeps_whole_lines_and_leaves_a_seqless_tail() {
        let mut body = lines(1..=3);
        body.extend_from_slice(b"damaged line\n");
        body.extend_from_slice(b"{\"seq\":4,\"ts\"");
        let (pieces, taken) = cut(&body);
        assert_eq!(pieces.len(), 1);
        assert_eq!(taken, lines(1..=3).len());
        assert_eq!(seq_range(pieces[0]), Some((1, 3)));
    }

    #[test]
    fn large_publishes_are_cut_into_pieces_that_each_hold_a_seq() {
        let big = lines(1..=400_000);
        let (pieces, taken) = cut(&big);
        assert_eq!(taken, big.len());
        assert!(pieces.len() > 1);
        assert!(
            pieces
                .iter()
                .all(|p| p.len() <= MAX_BYTES && seq_range(p).is_some())
        );
        assert_eq!(pieces.concat(), big);
    }
}
