//! Where each object lives under the store's prefix. Names hold only session ids, seqs and
//! (for blobs) content hashes, keyed hashes when the store is sealed.
//!
//! ```text
//! hotl-remote.json                   the marker: this prefix is hotl's, sealed or not, by which key
//! trees/<root>/lease                 who writes the tree: {holder, host, pid, epoch, ttl}
//! trees/<root>/<session>/<start>     an immutable segment of a session's log (start: 20 digits)
//! trees/<root>/<session>/view        its view checkpoint and first line (derived; opens it lazily)
//! summaries/<root>                   the tree's summaries, for listing without reading logs
//! changes/<ms>-<root>                 a journal: the tree's summary changed at <ms> (store time)
//! listing                            every summary as of a point in the journal (derived)
//! blobs/<2 hex>/<hash>               content-addressed artifacts
//! probes/<nonce>/<what>              `hotl remote check`'s probes (removed after)
//! clocks/<nonce>                     how far this machine's clock is from the store's
//! ```

/// The marker object.
pub const MARKER: &str = "hotl-remote.json";

/// A tree's lease.
pub fn lease(root: &str) -> String {
    format!("trees/{root}/lease")
}

/// Everything of a tree.
pub fn tree_prefix(root: &str) -> String {
    format!("trees/{root}/")
}

/// A session's segment starting at seq `start`.
pub fn segment(root: &str, session: &str, start: u64) -> String {
    format!("trees/{root}/{session}/{start:020}")
}

/// A session's published view checkpoint.
pub fn view(root: &str, session: &str) -> String {
    format!("trees/{root}/{session}/view")
}

/// A tree's summary.
pub fn summary(root: &str) -> String {
    format!("summaries/{root}")
}

/// Every summary.
pub const SUMMARIES: &str = "summaries/";

/// The journal of summary changes.
pub const CHANGES: &str = "changes/";

/// A change to `root`'s summary at `ms` milliseconds since the epoch, on the store's clock:
/// names sort in time order, so a listing reads only the journal's end.
pub fn change(ms: u64, root: &str) -> String {
    format!("changes/{ms:016}-{root}")
}

/// The journal entry's time and tree; `None` for anything else.
pub fn parse_change(name: &str) -> Option<(u64, &str)> {
    let (ms, root) = name.strip_prefix(CHANGES)?.split_once('-')?;
    (ms.len() == 16 && hotl_log::is_session_id(root)).then_some((ms.parse().ok()?, root))
}

/// Every summary in one object, as of a point in the journal.
pub const LISTING: &str = "listing";

/// Every tree.
pub const TREES: &str = "trees/";

/// Every blob.
pub const BLOBS: &str = "blobs/";

/// A blob by its object name (its hash, or its keyed hash when sealed).
pub fn blob(name: &str) -> String {
    let prefix = name.get(..2).unwrap_or("00");
    format!("blobs/{prefix}/{name}")
}

/// A probe object of `hotl remote check`.
pub fn probe(nonce: &str, what: &str) -> String {
    format!("probes/{nonce}/{what}")
}

/// The object a process writes to learn the store's clock.
pub fn clock(nonce: &str) -> String {
    format!("clocks/{nonce}")
}

/// What a name under `trees/` is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeObject {
    /// `trees/<root>/lease`.
    Lease {
        /// The tree.
        root: String,
    },
    /// `trees/<root>/<session>/<start>`.
    Segment {
        /// The tree.
        root: String,
        /// The session.
        session: String,
        /// The first seq it covers.
        start: u64,
    },
}

/// Reads a name under `trees/` (relative to the prefix); `None` for anything else, which is
/// left alone.
pub fn parse_tree_object(name: &str) -> Option<TreeObject> {
    let rest = name.strip_prefix(TREES)?;
    let parts: Vec<&str> = rest.split('/').collect();
    match parts.as_slice() {
        [root, "lease"] if hotl_log::is_session_id(root) => Some(TreeObject::Lease {
            root: (*root).to_owned(),
        }),
        [root, session, start]
            if hotl_log::is_session_id(root)
                && hotl_log::is_session_id(session)
                && start.len() == 20
                && start.bytes().all(|b| b.is_ascii_digit()) =>
        {
            Some(TreeObject::Segment {
                root: (*root).to_owned(),
                session: (*session).to_owned(),
                start: start.parse().ok()?,
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = "01JD0000000000000000000001";
    const CHILD: &str = "01JD0000000000000000000002";

    #[test]
    fn names_read_back() {
        assert_eq!(
            parse_tree_object(&segment(ROOT, CHILD, 42)),
            Some(TreeObject::Segment {
                root: ROOT.to_owned(),
                session: CHILD.to_owned(),
                start: 42
            })
        );
        assert_eq!(
            parse_tree_object(&lease(ROOT)),
            Some(TreeObject::Lease {
                root: ROOT.to_owned()
            })
        );
        assert_eq!(parse_tree_object("trees/x/lease"), None);
        assert_eq!(parse_tree_object(&format!("trees/{ROOT}/{CHILD}/12")), None);
        assert_eq!(blob("abcdef"), "blobs/ab/abcdef");
        assert_eq!(parse_change(&change(42, ROOT)), Some((42, ROOT)));
        assert_eq!(parse_change("changes/12-x"), None);
    }

    /// Segments of a session list in seq order: their starts are padded.
    #[test]
    fn segments_sort_by_start() {
        let mut names = [segment(ROOT, CHILD, 100), segment(ROOT, CHILD, 9)];
        names.sort();
        assert!(names[0].ends_with("00000000000000000009"));
    }
}
