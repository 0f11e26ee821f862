//! Integration tests of the store, one module per concern.

mod append;
mod child;
mod crash;
mod gc;
mod import;
mod lineage;
mod lock;
mod meta_cache;
mod tolerance;
mod tree;
