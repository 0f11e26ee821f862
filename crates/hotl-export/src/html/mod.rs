//! The HTML renderer: markdown and code rendered and escaped in Rust, tool cards, the
//! transcript, and the page around it.

pub mod escape;
pub mod highlight;
pub mod markdown;
pub mod page;
pub mod tools;
pub mod transcript;
