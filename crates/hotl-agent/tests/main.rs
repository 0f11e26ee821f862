//! Integration tests of the agent crate, one module per concern.

mod alongside;
mod checkpoints;
mod common;
mod delegation;
mod late_tools;
mod moves_compact;
mod moves_fold;
mod protocol;
mod snapshot_manifest;
mod switching;
