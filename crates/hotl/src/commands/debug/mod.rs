//! `hotl debug ...`: tools for looking at what providers send.

pub mod decode;
