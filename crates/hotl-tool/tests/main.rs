//! Integration tests of the built-in tools, one module per tool.

mod bash;
mod edit;
mod glob;
mod grep;
mod ls;
mod read;
mod schema;
mod support;
mod todo;
mod write;
