//! hotl-import integration tests.

mod claude;
mod codex;
mod common;
mod dag;
mod discover;
mod fuzz;
mod pi;
mod robustness;
