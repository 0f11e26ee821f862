//! Test helpers shared by hotl's crates: temporary homes and log builders.
