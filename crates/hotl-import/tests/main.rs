//! hotl-import integration tests.
