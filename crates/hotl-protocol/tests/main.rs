//! hotl-protocol's integration tests: one binary.

mod documented;
mod json_lines;
