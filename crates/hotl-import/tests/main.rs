//! hotl-import integration tests.

mod claude;
mod common;
