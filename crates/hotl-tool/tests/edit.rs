//! `edit`: one exact replacement, or all of them; refusals say what to change.

use hotl_testkit::TestResult;
use hotl_tool::content_hash;
use serde_json::json;

use crate::support::{Project, assert_error, shown};

const CODE: &str = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n    let x = 1;\n}\n";

#[tokio::test]
async fn replaces_a_unique_match_and_shows_the_result() -> TestResult {
    let p = Project::new()?;
    p.file("m.rs", CODE)?;
    let out = p
        .call(
            "edit",
            json!({"path": "m.rs", "old": "println!(\"{x}\");", "new": "dbg!(x);"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    let expected = CODE.replace("println!(\"{x}\");", "dbg!(x);");
    assert_eq!(p.read("m.rs")?, expected);
    assert!(
        out.content.starts_with(&format!(
            "replaced 1 occurrence in {} at line 3:",
            shown(&p.path("m.rs"))
        )),
        "{}",
        out.content
    );
    assert!(
        out.content.contains("     3\t    dbg!(x);"),
        "{}",
        out.content
    );
    assert_eq!(out.files.len(), 1);
    assert_eq!(out.files[0].op, "edit");
    assert_eq!(
        out.files[0].hash.as_deref(),
        Some(content_hash(expected.as_bytes()).as_str())
    );
    Ok(())
}

#[tokio::test]
async fn an_ambiguous_match_is_refused_with_its_count_and_lines() -> TestResult {
    let p = Project::new()?;
    p.file("m.rs", CODE)?;
    let out = p
        .call(
            "edit",
            json!({"path": "m.rs", "old": "let x = 1;", "new": "let x = 2;"}),
        )
        .await;
    assert_error(
        &out,
        &["occurs 2 times", "lines 2, 4", "surrounding lines", "`all`"],
    );
    assert_eq!(p.read("m.rs")?, CODE);
    assert!(out.files.is_empty());
    Ok(())
}

#[tokio::test]
async fn all_replaces_every_occurrence() -> TestResult {
    let p = Project::new()?;
    p.file("m.rs", CODE)?;
    let out = p
        .call(
            "edit",
            json!({"path": "m.rs", "old": "let x = 1;", "new": "let x = 2;", "all": true}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.starts_with("replaced 2 occurrences"),
        "{}",
        out.content
    );
    assert_eq!(p.read("m.rs")?, CODE.replace("let x = 1;", "let x = 2;"));
    Ok(())
}

#[tokio::test]
async fn not_found_says_so_and_hints_at_whitespace() -> TestResult {
    let p = Project::new()?;
    p.file("m.rs", CODE)?;
    let absent = p
        .call(
            "edit",
            json!({"path": "m.rs", "old": "let y", "new": "let z"}),
        )
        .await;
    assert_error(&absent, &["was not found in", "copy the text exactly"]);
    let padded = p
        .call(
            "edit",
            json!({"path": "m.rs", "old": "fn main() {  \n", "new": "fn run() {"}),
        )
        .await;
    assert_error(
        &padded,
        &["was not found", "leading and trailing whitespace"],
    );
    let unindented = p
        .call(
            "edit",
            json!({"path": "m.rs", "old": "let x = 1;\nprintln!(\"{x}\");", "new": "x"}),
        )
        .await;
    assert_error(
        &unindented,
        &[
            "was not found",
            "lines 2-3 match when indentation",
            "     2\t    let x = 1;",
        ],
    );
    assert_eq!(p.read("m.rs")?, CODE);
    Ok(())
}

#[tokio::test]
async fn same_text_empty_old_missing_file_and_binary_are_errors() -> TestResult {
    let p = Project::new()?;
    p.file("m.rs", CODE)?;
    let same = p
        .call(
            "edit",
            json!({"path": "m.rs", "old": "main", "new": "main"}),
        )
        .await;
    assert_error(&same, &["`old` and `new` are the same"]);
    let empty = p
        .call("edit", json!({"path": "m.rs", "old": "", "new": "x"}))
        .await;
    assert_error(&empty, &["`old` is empty", "use write"]);
    let missing = p
        .call("edit", json!({"path": "gone.rs", "old": "a", "new": "b"}))
        .await;
    assert_error(&missing, &["file not found", "use write"]);
    p.file("b.bin", b"a\0b")?;
    let binary = p
        .call("edit", json!({"path": "b.bin", "old": "a", "new": "c"}))
        .await;
    assert_error(&binary, &["binary file"]);
    Ok(())
}

#[tokio::test]
async fn crlf_files_accept_old_text_with_plain_newlines() -> TestResult {
    let p = Project::new()?;
    p.file("w.txt", "one\r\ntwo\r\nthree\r\n")?;
    let out = p
        .call(
            "edit",
            json!({"path": "w.txt", "old": "one\ntwo", "new": "1\n2"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(p.read("w.txt")?, "1\r\n2\r\nthree\r\n");
    Ok(())
}

#[tokio::test]
async fn writes_names_the_resolved_path() -> TestResult {
    let p = Project::new()?;
    assert_eq!(
        p.writes(
            "edit",
            json!({"path": "src/lib.rs", "old": "a", "new": "b"})
        ),
        [p.path("src/lib.rs")]
    );
    Ok(())
}
