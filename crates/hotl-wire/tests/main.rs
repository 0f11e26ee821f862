//! Integration tests of hotl-wire, one module per concern.

mod conversation;
mod decode_cases;
mod decode_fixtures;
mod fixtures;
mod live;
mod llama;
mod requests;
mod sse;
