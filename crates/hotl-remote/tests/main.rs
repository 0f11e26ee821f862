//! hotl-remote's integration tests: one binary, a module per concern.

mod support;

mod check;
mod encrypt;
mod faults;
mod gc;
mod lease;
mod publish;
mod race;
