//! Integration tests of hotl-wire, one module per concern.

mod decode_cases;
mod decode_fixtures;
mod fixtures;
mod requests;
mod sse;
