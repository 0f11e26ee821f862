//! `hotl sessions ...`: the store's moves, one file per verb.

pub mod check;
pub mod clear;
pub mod drop;
pub mod dump;
pub mod export;
pub mod fork;
pub mod import;
pub mod list;
pub mod rename;
pub mod revert;
pub mod share;
pub mod show;
pub mod sync;
pub mod tree;
