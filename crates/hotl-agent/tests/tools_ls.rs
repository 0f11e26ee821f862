//! `ls`: one directory, sorted, directories marked, dot-files shown.

use hotl_testkit::TestResult;
use serde_json::json;

use crate::tools_support::{Project, assert_error};

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
    assert_eq!(out.content, ".env\n.git/\na.txt\nb.txt\nsrc/");
    let sub = p.call("ls", json!({"path": "src"})).await;
    assert_eq!(sub.content, "lib.rs");
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
