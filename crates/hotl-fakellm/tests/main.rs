//! The single test binary of hotl-fakellm: one module per concern. Every test talks to the
//! server over real HTTP with plain reqwest (never hotl-wire).

mod anthropic_stream;
mod binary;
mod cache_anthropic;
mod cache_openai;
mod capture;
mod chat_stream;
mod common;
mod demo;
mod faults;
mod non_streaming;
mod replay;
mod responses_stream;
mod script;
mod validation;

/// Guard: every file in tests/ is declared above.
#[test]
fn every_test_file_is_declared() -> common::TestResult {
    let main = include_str!("main.rs");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests");
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".rs").filter(|s| *s != "main") {
            assert!(
                main.contains(&format!("mod {stem};")),
                "tests/{name} is not declared in main.rs"
            );
        }
    }
    Ok(())
}
