//! hotl-export integration tests.
