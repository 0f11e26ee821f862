//! Integration tests of the agent crate, one module per concern.

mod checkpoints;
mod common;
mod delegation;
mod late_tools;
mod moves_compact;
mod moves_fold;
mod protocol;
mod snapshot_manifest;
mod switching;
mod tools_bash;
mod tools_edit;
mod tools_glob;
mod tools_grep;
mod tools_ls;
mod tools_read;
mod tools_schema;
mod tools_support;
mod tools_todo;
mod tools_write;
