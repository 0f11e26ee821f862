//! Provider protocols.
