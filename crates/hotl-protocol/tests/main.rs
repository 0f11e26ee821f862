//! hotl-protocol's integration tests: one binary.

mod json_lines;
