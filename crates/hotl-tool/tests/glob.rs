//! `glob`: sorted paths relative to the working directory, ignore files honoured, a cap.

use hotl_testkit::TestResult;
use serde_json::json;

use crate::support::{Project, assert_error};

#[tokio::test]
async fn paths_are_sorted_and_relative() -> TestResult {
    let p = Project::new()?;
    for f in ["src/z.rs", "src/a.rs", "src/m/b.rs", "main.rs", "README.md"] {
        p.file(f, "")?;
    }
    let all = p.call("glob", json!({"pattern": "**/*.rs"})).await;
    assert!(!all.is_error, "{}", all.content);
    assert_eq!(all.content, "main.rs\nsrc/a.rs\nsrc/m/b.rs\nsrc/z.rs");
    let top = p.call("glob", json!({"pattern": "*.rs"})).await;
    assert_eq!(top.content, "main.rs");
    let under = p.call("glob", json!({"pattern": "src/*.{rs,md}"})).await;
    assert_eq!(under.content, "src/a.rs\nsrc/z.rs");
    let literal = p.call("glob", json!({"pattern": "src/m/b.rs"})).await;
    assert_eq!(literal.content, "src/m/b.rs");
    Ok(())
}

#[tokio::test]
async fn ignored_and_hidden_files_are_left_out_unless_named() -> TestResult {
    let p = Project::new()?;
    p.file(".gitignore", "build/\n")?;
    p.file("build/gen.rs", "")?;
    p.file(".cache/x.rs", "")?;
    p.file(".git/config.rs", "")?;
    p.file("lib.rs", "")?;
    let out = p.call("glob", json!({"pattern": "**/*.rs"})).await;
    assert_eq!(out.content, "lib.rs");
    let named = p.call("glob", json!({"pattern": ".cache/*.rs"})).await;
    assert_eq!(named.content, ".cache/x.rs");
    let dotfiles = p.call("glob", json!({"pattern": ".*"})).await;
    assert_eq!(dotfiles.content, ".gitignore");
    Ok(())
}

#[tokio::test]
async fn no_match_invalid_pattern_and_the_cap() -> TestResult {
    let p = Project::new()?;
    let none = p.call("glob", json!({"pattern": "*.zig"})).await;
    assert!(!none.is_error);
    assert_eq!(none.content, "no files match `*.zig`");
    let bad = p.call("glob", json!({"pattern": "src/[z"})).await;
    assert_error(&bad, &["invalid glob `src/[z`"]);
    for i in 0..1005 {
        p.file(&format!("many/f{i:04}.txt"), "")?;
    }
    let many = p.call("glob", json!({"pattern": "many/*.txt"})).await;
    let lines: Vec<&str> = many.content.lines().collect();
    assert_eq!(lines.len(), 1001);
    assert_eq!(lines[0], "many/f0000.txt");
    assert_eq!(lines[999], "many/f0999.txt");
    assert_eq!(
        lines[1000],
        "[showing the first 1000 of 1005 files; narrow the pattern]"
    );
    Ok(())
}
