//! `ls`: one directory, sorted, directories marked, dot-files shown, `.git/` and ignored
//! entries counted but left out unless asked.

use hotl_testkit::TestResult;
use serde_json::json;

use crate::support::{Project, assert_error};

#[tokio::test]
async fn lists_sorted_entries_with_directories_marked() -> TestResult {
    let p = Project::new()?;
    p.file("b.txt", "")?;
    p.file(".env", "")?;
    p.file("src/lib.rs", "")?;
    p.file(".git/HEAD", "")?;
    p.file("a.txt", "")?;
    let out = p.call("ls", json!({})).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        out.content,
        ".env\na.txt\nb.txt\nsrc/\n[1 ignored entry not shown (.git/); all: true lists them]"
    );
    let sub = p.call("ls", json!({"path": "src"})).await;
    assert_eq!(sub.content, "lib.rs");
    Ok(())
}

#[tokio::test]
async fn ignored_entries_are_shown_only_when_asked() -> TestResult {
    let p = Project::new()?;
    p.file(".gitignore", "target/\n*.log\n")?;
    p.file("target/debug/hotl", "")?;
    p.file("build.log", "")?;
    p.file("src/lib.rs", "")?;
    p.file("src/.ignore", "gen.rs\n")?;
    p.file("src/gen.rs", "")?;
    p.file(".git/HEAD", "")?;
    let out = p.call("ls", json!({})).await;
    assert_eq!(
        out.content,
        ".gitignore\nsrc/\n[3 ignored entries not shown (.git/, build.log, target/); all: true lists them]"
    );
    let all = p.call("ls", json!({"all": true})).await;
    assert_eq!(all.content, ".git/\n.gitignore\nbuild.log\nsrc/\ntarget/");
    // A subdirectory follows the ignore files above it and its own.
    let sub = p.call("ls", json!({"path": "src"})).await;
    assert_eq!(
        sub.content,
        ".ignore\nlib.rs\n[1 ignored entry not shown (gen.rs); all: true lists them]"
    );
    let only = p.call("ls", json!({"path": "target"})).await;
    assert!(!only.is_error, "{}", only.content);
    assert_error(&p.call("ls", json!({"all": "yes"})).await, &["all"]);
    Ok(())
}

#[tokio::test]
async fn missing_paths_files_and_empty_directories() -> TestResult {
    let p = Project::new()?;
    assert_error(
        &p.call("ls", json!({"path": "nope"})).await,
        &["directory not found"],
    );
    p.file("f.txt", "")?;
    assert_error(
        &p.call("ls", json!({"path": "f.txt"})).await,
        &["is a file, not a directory", "use read"],
    );
    std::fs::create_dir(p.path("empty"))?;
    let empty = p.call("ls", json!({"path": "empty"})).await;
    assert!(!empty.is_error);
    assert!(empty.content.ends_with("is empty"), "{}", empty.content);
    Ok(())
}
