//! Integration tests of hotl-wire, one module per concern.

mod requests;
