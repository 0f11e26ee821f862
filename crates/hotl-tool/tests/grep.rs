//! `grep`: sorted `path:line:text`, ignore files, hidden and binary files, globs, the cap.

use hotl_testkit::TestResult;
use serde_json::json;

use crate::support::{Project, assert_error, shown};

#[tokio::test]
async fn matches_are_sorted_by_path_then_line() -> TestResult {
    let p = Project::new()?;
    p.file("b.txt", "needle one\nhay\nneedle two\n")?;
    p.file("a/x.txt", "a needle\n")?;
    p.file("a.txt", "no\nno\nneedle\n")?;
    let out = p.call("grep", json!({"pattern": "needle"})).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        out.content,
        "a/x.txt:1:a needle\na.txt:3:needle\nb.txt:1:needle one\nb.txt:3:needle two"
    );
    Ok(())
}

#[tokio::test]
async fn gitignored_hidden_and_binary_files_are_skipped() -> TestResult {
    let p = Project::new()?;
    p.file(".gitignore", "target/\n*.log\n")?;
    p.file("target/out.txt", "needle\n")?;
    p.file("run.log", "needle\n")?;
    p.file(".hidden/h.txt", "needle\n")?;
    p.file("blob.bin", b"needle\0\n")?;
    p.file("src/keep.rs", "// needle\n")?;
    let out = p.call("grep", json!({"pattern": "needle"})).await;
    assert_eq!(out.content, "src/keep.rs:1:// needle");
    Ok(())
}

#[tokio::test]
async fn a_glob_filters_by_name_or_by_path() -> TestResult {
    let p = Project::new()?;
    p.file("src/a.rs", "fn x() {}\n")?;
    p.file("src/deep/b.rs", "fn y() {}\n")?;
    p.file("src/c.ts", "function z() {}\n")?;
    let by_name = p
        .call("grep", json!({"pattern": "fn", "glob": "*.rs"}))
        .await;
    assert_eq!(
        by_name.content,
        "src/a.rs:1:fn x() {}\nsrc/deep/b.rs:1:fn y() {}"
    );
    let by_path = p
        .call("grep", json!({"pattern": "fn", "glob": "src/*.rs"}))
        .await;
    assert_eq!(by_path.content, "src/a.rs:1:fn x() {}");
    let bad = p
        .call("grep", json!({"pattern": "fn", "glob": "src/[a"}))
        .await;
    assert_error(&bad, &["invalid glob `src/[a`"]);
    Ok(())
}

#[tokio::test]
async fn path_narrows_the_search_to_a_directory_or_a_file() -> TestResult {
    let p = Project::new()?;
    p.file("one/a.txt", "hit\n")?;
    p.file("two/b.txt", "hit\n")?;
    let dir = p
        .call("grep", json!({"pattern": "hit", "path": "two"}))
        .await;
    assert_eq!(dir.content, "two/b.txt:1:hit");
    let file = p
        .call("grep", json!({"pattern": "hit", "path": "one/a.txt"}))
        .await;
    assert_eq!(file.content, "one/a.txt:1:hit");
    let missing = p
        .call("grep", json!({"pattern": "hit", "path": "three"}))
        .await;
    assert_error(&missing, &[&shown(&p.path("three")), "does not exist"]);
    Ok(())
}

#[tokio::test]
async fn an_invalid_regex_is_an_error_naming_the_problem() -> TestResult {
    let p = Project::new()?;
    let out = p.call("grep", json!({"pattern": "fn (unclosed"})).await;
    assert_error(&out, &["invalid regex `fn (unclosed`", "unclosed group"]);
    Ok(())
}

#[tokio::test]
async fn no_match_is_not_an_error() -> TestResult {
    let p = Project::new()?;
    p.file("a.txt", "hay\n")?;
    let out = p.call("grep", json!({"pattern": "needle"})).await;
    assert!(!out.is_error);
    assert!(
        out.content.starts_with("no matches for `needle`"),
        "{}",
        out.content
    );
    Ok(())
}

#[tokio::test]
async fn results_stop_at_500_matches_with_a_note() -> TestResult {
    let p = Project::new()?;
    let text: String = (1..=600).map(|i| format!("match {i}\n")).collect();
    p.file("many.txt", &text)?;
    let out = p.call("grep", json!({"pattern": "^match"})).await;
    let lines: Vec<&str> = out.content.lines().collect();
    assert_eq!(lines.len(), 501);
    assert_eq!(lines[499], "many.txt:500:match 500");
    assert!(
        lines[500].starts_with("[stopped after 500 matches"),
        "{}",
        lines[500]
    );
    Ok(())
}
