//! `write`: creates directories, replaces atomically, reports what it wrote.

use hotl_testkit::TestResult;
use hotl_tool::content_hash;
use serde_json::json;

use crate::support::{Project, assert_error, shown};

#[tokio::test]
async fn creates_parent_directories_and_records_the_write() -> TestResult {
    let p = Project::new()?;
    let out = p
        .call(
            "write",
            json!({"path": "a/b/c.txt", "content": "one\ntwo\n"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(p.read("a/b/c.txt")?, "one\ntwo\n");
    assert_eq!(
        out.content,
        format!("created {} (2 lines, 8 bytes)", shown(&p.path("a/b/c.txt")))
    );
    assert_eq!(out.files.len(), 1);
    assert_eq!(out.files[0].op, "write");
    assert_eq!(out.files[0].path, shown(&p.path("a/b/c.txt")));
    assert_eq!(
        out.files[0].hash.as_deref(),
        Some(content_hash(b"one\ntwo\n").as_str())
    );
    Ok(())
}

#[tokio::test]
async fn overwrites_without_leaving_temp_files() -> TestResult {
    let p = Project::new()?;
    p.file("f.txt", "old content that is longer")?;
    let out = p
        .call("write", json!({"path": "f.txt", "content": "new"}))
        .await;
    assert!(out.content.starts_with("overwrote "), "{}", out.content);
    assert_eq!(p.read("f.txt")?, "new");
    let names: Vec<_> = std::fs::read_dir(&p.ctx.cwd)?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<Result<_, _>>()?;
    assert_eq!(names, ["f.txt"]);
    Ok(())
}

#[tokio::test]
async fn writing_through_a_symlink_keeps_the_link() -> TestResult {
    let p = Project::new()?;
    p.file("real.txt", "old")?;
    std::os::unix::fs::symlink(p.path("real.txt"), p.path("link.txt"))?;
    let out = p
        .call("write", json!({"path": "link.txt", "content": "new"}))
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        std::fs::symlink_metadata(p.path("link.txt"))?
            .file_type()
            .is_symlink()
    );
    assert_eq!(p.read("real.txt")?, "new");
    Ok(())
}

#[tokio::test]
async fn writes_names_the_resolved_path() -> TestResult {
    let p = Project::new()?;
    assert_eq!(
        p.writes("write", json!({"path": "x/y.rs", "content": ""})),
        [p.path("x/y.rs")]
    );
    assert_eq!(
        p.writes("write", json!({"path": "/etc/passwd", "content": ""})),
        [std::path::PathBuf::from("/etc/passwd")]
    );
    assert!(p.writes("write", json!({"content": ""})).is_empty());
    Ok(())
}

#[tokio::test]
async fn a_directory_or_missing_content_is_an_error() -> TestResult {
    let p = Project::new()?;
    std::fs::create_dir(p.path("d"))?;
    let dir = p.call("write", json!({"path": "d", "content": "x"})).await;
    assert_error(&dir, &["is a directory"]);
    let missing = p.call("write", json!({"path": "f.txt"})).await;
    assert_error(&missing, &["missing required field `content`"]);
    assert!(!p.path("f.txt").exists());
    Ok(())
}
