//! End-to-end tests of the `hotl` binary: each runs the real executable against a temp home
//! and project with a pinned clock. One file per concern.

mod common;

mod check;
mod drop_gc;
mod edit;
mod fork;
mod home;
mod import;
mod list;
mod locking;
mod pipe;
mod refs;
mod show;
