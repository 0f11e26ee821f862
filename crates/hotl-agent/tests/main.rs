//! Integration tests of the agent crate, one module per concern.

mod alongside;
mod checkpoints;
mod common;
mod delegation;
mod held;
mod json_lines;
mod late_tools;
mod moves_compact;
mod moves_fold;
mod protocol;
mod snapshot_manifest;
mod switching;
