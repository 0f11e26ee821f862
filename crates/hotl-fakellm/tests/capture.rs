//! Request capture: in memory and as NNNN-<endpoint>.json files, bytes exactly as received.

use hotl_fakellm::{Config, Endpoint, FakeLlm, Reply, Tokenizer};

use crate::common::{TestResult, post_raw};

#[tokio::test]
async fn every_request_is_kept_in_order_with_exact_bytes() -> TestResult {
    let dir = tempfile::tempdir()?;
    let config = Config::scripted([Reply::text("a"), Reply::text("b"), Reply::text("c")])
        .with_tokenizer(Tokenizer::Bytes4)
        .with_capture_dir(dir.path().join("capture"));
    let fake = FakeLlm::spawn(config).await;
    let bodies: [(&str, &[u8]); 4] = [
        ("/v1/messages", b"{ \"model\":\"claude-sonnet-5\", \"max_tokens\":5,\n \"messages\":[{\"role\":\"user\",\"content\":\"h\xc3\xa9\"}] }"),
        ("/v1/chat/completions", b"{\"model\":\"gpt-5.1\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}   "),
        ("/v1/responses", b"{\"model\":\"gpt-5.1\",\"input\":\"hi\"}"),
        ("/v1/messages/count_tokens", b"{\"model\":\"claude-sonnet-5\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"),
    ];
    for (path, body) in bodies {
        let resp = post_raw(&fake, path, body.to_vec()).await?;
        assert_eq!(resp.status(), 200, "{path}");
    }
    let captured = fake.captured();
    let endpoints: Vec<Endpoint> = captured.iter().map(|c| c.endpoint).collect();
    assert_eq!(
        endpoints,
        [
            Endpoint::Messages,
            Endpoint::ChatCompletions,
            Endpoint::Responses,
            Endpoint::CountTokens
        ]
    );
    for (c, (path, body)) in captured.iter().zip(bodies) {
        assert_eq!(c.body.as_ref(), body);
        assert_eq!(c.path, path);
        assert_eq!(c.method, "POST");
    }
    assert_eq!(captured[0].header("X-Api-Key"), Some("test-key"));
    assert_eq!(captured[1].header("authorization"), Some("Bearer test-key"));
    assert!(captured[0].json().is_some());
    let mut files: Vec<String> = std::fs::read_dir(dir.path().join("capture"))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "0001-messages.json",
            "0002-chat-completions.json",
            "0003-responses.json",
            "0004-count-tokens.json"
        ]
    );
    for (file, (_, body)) in files.iter().zip(bodies) {
        assert_eq!(std::fs::read(dir.path().join("capture").join(file))?, body);
    }
    Ok(())
}
