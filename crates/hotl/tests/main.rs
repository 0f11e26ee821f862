//! End-to-end tests of the `hotl` binary: each runs the real executable against a temp home
//! and project with a pinned clock. One file per concern.

mod common;

mod acp;
mod agent_failures;
mod agent_fork;
mod agent_headless;
mod agent_moves;
mod agent_resume;
mod agent_tools;
mod agents;
mod browser;
mod check;
mod cli_conventions;
mod console_sessions;
mod console_slash;
mod damage;
mod debug_decode;
mod delegation_faults;
mod drop_gc;
mod dump;
mod edit;
mod export;
mod failures_told;
mod first_hour;
mod fork;
mod home;
mod hooks;
mod import;
mod import_foreign;
mod list;
mod locking;
mod mcp;
mod pipe;
mod real_llm;
mod redaction;
mod refs;
mod remote;
mod sandbox;
mod seam;
mod search;
mod security;
mod share;
mod show;
mod show_tree;
mod small_models;
mod spawn;
mod stats;
mod terminal;
mod titles;
mod tui;

/// Every test file is declared above (a file left out would silently never run).
#[test]
fn every_test_file_is_declared() -> hotl_testkit::TestResult {
    let main = include_str!("main.rs");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs") && stem != "main" {
            assert!(
                main.contains(&format!("mod {stem};")),
                "tests/{stem}.rs is not in main.rs"
            );
        }
    }
    Ok(())
}
