//! hotl-remote's integration tests: one binary, a module per concern.

mod support;

mod check;
mod encrypt;
mod faults;
mod gc;
mod lazy;
mod lease;
mod listing;
mod publish;
mod race;
