//! `hotl gc --remote`: what gc of the store removed, and what it kept and why.

use hotl_text::plural;

use super::{Report, Shown, short};
use crate::gc::GcReport;

impl Report for GcReport {
    fn text(&self, _: &Shown) -> String {
        let verb = if self.dry_run {
            "would remove"
        } else {
            "removed"
        };
        let mut out = String::new();
        for t in &self.trees {
            out += &format!(
                "{verb} tree {} from {} ({}, {} bytes)\n",
                t.root, self.remote, t.reason, t.bytes
            );
        }
        for b in &self.blobs {
            out += &format!("{verb} {} ({} bytes)\n", b.name, b.bytes);
        }
        for root in &self.kept_for_descendants {
            out += &format!("kept {}: a kept session descends from it\n", short(root));
        }
        for root in &self.spared_held {
            out += &format!("kept {}: another process holds its lease\n", short(root));
        }
        out += &format!(
            "{} in {}: {}, {}; {} bytes\n",
            if self.dry_run { "dry run" } else { "done" },
            self.remote,
            plural(self.trees.len(), "tree"),
            plural(self.blobs.len(), "blob"),
            self.freed_bytes
        );
        out
    }
}
