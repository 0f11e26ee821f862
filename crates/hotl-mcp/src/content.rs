//! An MCP tool result's content as the text a tool result carries. Text stays text, an embedded
//! text resource its text; what cannot be text (an image, audio, a binary resource) is kept
//! as a blob and named in its place, so nothing the server sent is lost and the model knows
//! what was there.

use base64::Engine as _;
use rmcp::model::ContentBlock;

/// `block` as text; binary content goes to `blobs` (through `put`) and is named.
pub(crate) fn block_text(block: &ContentBlock, put: &dyn Fn(&[u8]) -> Option<String>) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => binary("image", &image.mime_type, &image.data, put),
        ContentBlock::Audio(audio) => binary("audio", &audio.mime_type, &audio.data, put),
        other => resource(other, put),
    }
}

/// An embedded resource (its text, or its bytes kept) or a link to one (its address).
fn resource(block: &ContentBlock, put: &dyn Fn(&[u8]) -> Option<String>) -> String {
    let value = serde_json::to_value(block).unwrap_or_default();
    let field = |v: &serde_json::Value, key: &str| {
        v.get(key)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    if let Some(inner) = value.get("resource") {
        let uri = field(inner, "uri").unwrap_or_default();
        if let Some(text) = field(inner, "text") {
            return format!("[resource {uri}]\n{text}");
        }
        let mime = field(inner, "mimeType").unwrap_or_else(|| "application/octet-stream".into());
        let data = field(inner, "blob").unwrap_or_default();
        return format!("{} ({uri})", binary("resource", &mime, &data, put));
    }
    match field(&value, "uri") {
        Some(uri) => format!("[resource link: {uri}]"),
        None => "[a result of a kind hotl does not know]".to_owned(),
    }
}

/// `[image image/png, 12 KB, not shown: tool results reach the model as text; kept as
/// blob:<prefix>]`.
fn binary(what: &str, mime: &str, data: &str, put: &dyn Fn(&[u8]) -> Option<String>) -> String {
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data.trim()) else {
        return format!("[{what} {mime}: its data is not base64; left out]");
    };
    let size = bytes.len().div_ceil(1024);
    let kept = match put(&bytes) {
        Some(hash) => format!("kept as {}", hotl_tool::blob_ref(&hash)),
        None => "it could not be stored".to_owned(),
    };
    format!("[{what} {mime}, {size} KB, not shown: tool results reach the model as text; {kept}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_kept_and_named_text_stays() {
        let stored = std::cell::RefCell::new(Vec::new());
        let put = |bytes: &[u8]| {
            stored.borrow_mut().push(bytes.to_vec());
            Some("ab".repeat(32))
        };
        let text = ContentBlock::text("hello");
        assert_eq!(block_text(&text, &put), "hello");
        let png = base64::engine::general_purpose::STANDARD.encode([0x89, b'P', b'N', b'G']);
        let image = ContentBlock::image(png, "image/png");
        let said = block_text(&image, &put);
        assert!(
            said.starts_with("[image image/png, 1 KB, not shown"),
            "{said}"
        );
        assert!(
            said.contains(&format!("kept as blob:{}", "ab".repeat(8))),
            "{said}"
        );
        assert_eq!(stored.borrow()[0], [0x89, b'P', b'N', b'G']);
    }
}
