//! `read`: numbered lines, windows, cut lines, binary files and the errors a model can act on.

use hotl_testkit::TestResult;
use hotl_tool::content_hash;
use serde_json::json;

use crate::support::{Project, assert_error, shown};

#[tokio::test]
async fn lines_are_numbered_from_one_and_the_read_is_recorded() -> TestResult {
    let p = Project::new()?;
    p.file("src/a.txt", "alpha\nbeta\r\ngamma")?;
    let out = p.call("read", json!({"path": "src/a.txt"})).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(out.content, "     1\talpha\n     2\tbeta\n     3\tgamma\n");
    assert_eq!(out.files.len(), 1);
    let touch = &out.files[0];
    assert_eq!(touch.path, shown(&p.path("src/a.txt")));
    assert_eq!(touch.op, "read");
    assert_eq!(
        touch.hash.as_deref(),
        Some(content_hash(b"alpha\nbeta\r\ngamma").as_str())
    );
    Ok(())
}

#[tokio::test]
async fn absolute_paths_are_read_as_given() -> TestResult {
    let p = Project::new()?;
    p.file("a.txt", "x\n")?;
    let abs = shown(&p.path("a.txt"));
    let out = p.call("read", json!({"path": abs})).await;
    assert_eq!(out.content, "     1\tx\n");
    Ok(())
}

#[tokio::test]
async fn offset_and_limit_select_a_window_and_say_where_to_continue() -> TestResult {
    let p = Project::new()?;
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    p.file("f.txt", &text)?;
    let out = p
        .call("read", json!({"path": "f.txt", "offset": 4, "limit": 3}))
        .await;
    assert_eq!(
        out.content,
        "     4\tline 4\n     5\tline 5\n     6\tline 6\n[showing lines 4-6 of 10; continue with offset=7]"
    );
    let tail = p.call("read", json!({"path": "f.txt", "offset": 9})).await;
    assert_eq!(tail.content, "     9\tline 9\n    10\tline 10\n");
    Ok(())
}

#[tokio::test]
async fn the_default_limit_is_2000_lines() -> TestResult {
    let p = Project::new()?;
    let text: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    p.file("long.txt", &text)?;
    let out = p.call("read", json!({"path": "long.txt"})).await;
    assert!(out.content.contains("  2000\t2000\n"));
    assert!(!out.content.contains("\t2001\n"));
    assert!(
        out.content
            .ends_with("[showing lines 1-2000 of 2500; continue with offset=2001]")
    );
    Ok(())
}

#[tokio::test]
async fn an_offset_past_the_end_is_an_error_with_the_line_count() -> TestResult {
    let p = Project::new()?;
    p.file("f.txt", "one\ntwo\n")?;
    let out = p.call("read", json!({"path": "f.txt", "offset": 5})).await;
    assert_error(&out, &["has 2 lines", "offset 5 is past the end"]);
    let zero = p.call("read", json!({"path": "f.txt", "limit": 0})).await;
    assert_error(&zero, &["`limit` must be at least 1"]);
    Ok(())
}

#[tokio::test]
async fn long_lines_are_cut_at_2000_chars_with_a_marker() -> TestResult {
    let p = Project::new()?;
    p.file("wide.txt", format!("{}\nshort\n", "é".repeat(2500)))?;
    let out = p.call("read", json!({"path": "wide.txt"})).await;
    let first = out.content.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!("     1\t{}… [line cut: 2500 chars]", "é".repeat(2000))
    );
    assert!(out.content.contains("     2\tshort"));
    Ok(())
}

#[tokio::test]
async fn missing_files_and_directories_get_clear_errors() -> TestResult {
    let p = Project::new()?;
    let missing = p.call("read", json!({"path": "nope.txt"})).await;
    assert_error(&missing, &["file not found", &shown(&p.path("nope.txt"))]);
    std::fs::create_dir(p.path("dir"))?;
    let dir = p.call("read", json!({"path": "dir"})).await;
    assert_error(&dir, &["is a directory", "use ls"]);
    assert!(dir.files.is_empty());
    Ok(())
}

#[tokio::test]
async fn binary_files_are_described_not_dumped() -> TestResult {
    let p = Project::new()?;
    p.file("nul.bin", b"abc\0def")?;
    p.file("latin1.txt", [b'c', b'a', b'f', 0xe9, b'\n'])?;
    for (name, size) in [("nul.bin", 7), ("latin1.txt", 5)] {
        let out = p.call("read", json!({"path": name})).await;
        assert!(!out.is_error);
        assert!(
            out.content
                .contains(&format!("is a binary file ({size} bytes)")),
            "{}",
            out.content
        );
        assert_eq!(out.files[0].op, "read");
    }
    Ok(())
}

#[tokio::test]
async fn an_empty_file_says_so() -> TestResult {
    let p = Project::new()?;
    p.file("empty.txt", "")?;
    let out = p.call("read", json!({"path": "empty.txt"})).await;
    assert!(!out.is_error);
    assert!(out.content.ends_with("is empty (0 bytes)"));
    Ok(())
}

/// A capped command output points at its blob, and `read` pages through the blob like a file.
#[tokio::test]
async fn a_capped_outputs_blob_is_read_a_window_at_a_time() -> TestResult {
    let p = Project::new()?;
    let out = p
        .call("bash", json!({"command": "seq 1 5000 | sed 's/^/row /'"}))
        .await;
    let hash = out.blob.clone().ok_or("a 5000-line output is capped")?;
    // The pointer names the blob by a prefix of its hash, which read resolves.
    let short = &hash[..hotl_tool::BLOB_REF_CHARS];
    let pointer = format!("read blob:{short}]");
    assert!(out.content.contains(&pointer), "{}", out.content);
    let page = p
        .call(
            "read",
            json!({"path": format!("blob:{short}"), "offset": 2500, "limit": 2}),
        )
        .await;
    assert!(!page.is_error, "{}", page.content);
    assert_eq!(
        page.content,
        "  2500\trow 2500\n  2501\trow 2501\n[showing lines 2500-2501 of 5000; continue with offset=2502]"
    );
    assert!(page.files.is_empty(), "a blob is no file of the project");
    let bad = p
        .call("read", json!({"path": "blob:../../etc/passwd"}))
        .await;
    assert!(bad.is_error);
    let missing = p
        .call("read", json!({"path": format!("blob:{}", "0".repeat(32))}))
        .await;
    assert_error(&missing, &["there is no blob"]);
    Ok(())
}

/// A blob's long line goes on in rows marked `+`: a one-line output is read whole.
#[tokio::test]
async fn a_blobs_long_line_is_read_whole() -> TestResult {
    let p = Project::new()?;
    let line: String = (0..3000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let hash = p.ctx.blobs.put(format!("{line}\nend\n").as_bytes())?;
    let page = p
        .call("read", json!({"path": format!("blob:{}", &hash[..16])}))
        .await;
    assert!(!page.is_error, "{}", page.content);
    let rows: Vec<&str> = page.content.lines().collect();
    assert_eq!(rows.len(), 3, "{}", page.content);
    assert_eq!(rows[0], format!("     1\t{}", &line[..2000]));
    assert_eq!(rows[1], format!("     +\t{}", &line[2000..]));
    assert_eq!(rows[2], "     2\tend");
    Ok(())
}
