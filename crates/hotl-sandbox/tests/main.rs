//! hotl-sandbox's integration tests: rules applied to real processes.

mod kernel;
