//! hotl-import integration tests.

mod claude;
mod codex;
mod common;
mod discover;
mod pi;
mod robustness;
