//! The Anthropic cache prefix: tools, then system blocks, then message blocks, each hashed
//! onto the previous one with its level's salt, counted in tokens, with its breakpoint.
//! Also the breakpoint rules: at most 4, 1h before 5m, the automatic marker.

use crate::api_error::ApiError;
use crate::config::AnthropicCacheConfig;
use crate::json::Json;
use crate::tokens::Counter;

/// A cache breakpoint's lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ttl {
    FiveMinutes,
    OneHour,
}

impl Ttl {
    pub(crate) fn secs(self) -> u64 {
        match self {
            Ttl::FiveMinutes => 300,
            Ttl::OneHour => 3600,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Ttl::FiveMinutes => "5m",
            Ttl::OneHour => "1h",
        }
    }
}

/// One position of the prefix.
#[derive(Clone, Debug)]
pub(crate) struct Unit {
    /// Hash of everything up to and including this block (scope and salts included).
    pub hash: [u8; 32],
    /// Tokens of blocks 0..=this one.
    pub cum: u64,
    /// Its explicit `cache_control`, if any.
    pub mark: Option<Ttl>,
    /// Whether the automatic marker may land here (not thinking, not empty text).
    pub eligible: bool,
    /// Where it is in the request (`tools.0`, `system.1`, `messages.3.content.0`).
    pub path: String,
}

/// Builds the prefix units of a request. `scope` separates API keys and models.
pub(crate) fn flatten(
    req: &Json,
    scope: &[u8; 32],
    counter: &Counter,
    cfg: &AnthropicCacheConfig,
) -> Result<Vec<Unit>, ApiError> {
    let mut b = Builder {
        units: Vec::new(),
        prev: *scope,
        cum: 0,
        counter,
        cfg,
    };
    let tools = req.arr_of("tools").unwrap_or_default();
    let tools_salt = salt(
        tools
            .iter()
            .map(|t| canonical(&t.without("cache_control")).to_compact()),
    );
    for (i, tool) in tools.iter().enumerate() {
        let tokens = counter.count(&tool.without("cache_control").to_compact());
        b.add(tool, "", &tools_salt, tokens, format!("tools.{i}"))?;
    }
    let system_salt = salt([
        hex(&tools_salt),
        req.get("speed").map(Json::to_compact).unwrap_or_default(),
    ]);
    match req.get("system") {
        Some(Json::Str(s)) => b.add_text(s, "", &system_salt, "system".to_string())?,
        Some(Json::Arr(blocks)) => {
            for (i, block) in blocks.iter().enumerate() {
                let tokens = block_tokens(block, counter, cfg);
                b.add(block, "", &system_salt, tokens, format!("system.{i}"))?;
            }
        }
        _ => {}
    }
    let messages = req.arr_of("messages").unwrap_or_default();
    let has_images = messages.iter().any(|m| {
        m.arr_of("content")
            .is_some_and(|c| c.iter().any(|b| b.str_of("type") == Some("image")))
    });
    let message_salt = salt([
        hex(&system_salt),
        req.get("tool_choice")
            .map(Json::to_compact)
            .unwrap_or_default(),
        req.get("thinking")
            .map(Json::to_compact)
            .unwrap_or_default(),
        has_images.to_string(),
    ]);
    for (i, message) in messages.iter().enumerate() {
        let role = message.str_of("role").unwrap_or_default();
        match message.get("content") {
            Some(Json::Str(s)) => {
                b.add_text(s, role, &message_salt, format!("messages.{i}.content"))?
            }
            Some(Json::Arr(blocks)) => {
                for (j, block) in blocks.iter().enumerate() {
                    let tokens = block_tokens(block, counter, cfg);
                    b.add(
                        block,
                        role,
                        &message_salt,
                        tokens,
                        format!("messages.{i}.content.{j}"),
                    )?;
                }
            }
            _ => {}
        }
    }
    Ok(b.units)
}

struct Builder<'a> {
    units: Vec<Unit>,
    prev: [u8; 32],
    cum: u64,
    counter: &'a Counter,
    cfg: &'a AnthropicCacheConfig,
}

impl Builder<'_> {
    fn add_text(
        &mut self,
        text: &str,
        role: &str,
        salt: &[u8; 32],
        path: String,
    ) -> Result<(), ApiError> {
        // A plain string is one text block; hash it as such so both forms share entries.
        let block = crate::json::obj! {"type": "text", "text": text};
        let tokens = self.counter.count(text);
        self.add(&block, role, salt, tokens, path)
    }

    fn add(
        &mut self,
        block: &Json,
        role: &str,
        salt: &[u8; 32],
        tokens: u64,
        path: String,
    ) -> Result<(), ApiError> {
        let kind = block.str_of("type").unwrap_or_default();
        let empty_text = kind == "text" && block.str_of("text").is_some_and(str::is_empty);
        let thinking = matches!(kind, "thinking" | "redacted_thinking");
        let mark = match block.get("cache_control") {
            None | Some(Json::Null) => None,
            Some(cc) => {
                if thinking {
                    return Err(ApiError::invalid(format!(
                        "{path}.{kind}.cache_control: Extra inputs are not permitted"
                    )));
                }
                if empty_text {
                    return Err(ApiError::invalid(format!(
                        "{path}.text: cache_control cannot be set for empty text blocks"
                    )));
                }
                Some(parse_ttl(cc, &format!("{path}.cache_control"))?)
            }
        };
        let mut h = blake3::Hasher::new();
        h.update(&self.prev);
        h.update(salt);
        h.update(role.as_bytes());
        h.update(b"\0");
        h.update(
            canonical(&block.without("cache_control"))
                .to_compact()
                .as_bytes(),
        );
        self.prev = *h.finalize().as_bytes();
        self.cum += tokens + self.cfg.block_overhead;
        self.units.push(Unit {
            hash: self.prev,
            cum: self.cum,
            mark,
            eligible: !thinking && !empty_text,
            path,
        });
        Ok(())
    }
}

fn salt<S: AsRef<str>>(parts: impl IntoIterator<Item = S>) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    for p in parts {
        h.update(p.as_ref().as_bytes());
        h.update(b"\0");
    }
    *h.finalize().as_bytes()
}

/// A block's cache identity: its own fields in sorted order (their order on the wire does
/// not change what the model reads), but free-form JSON that is rendered as written — tool
/// `input` and schemas — keeps its key order, as the real cache does.
fn canonical(value: &Json) -> Json {
    match value {
        Json::Obj(fields) => {
            let mut fields: Vec<(String, Json)> = fields
                .iter()
                .map(|(k, v)| match k.as_str() {
                    "input" | "input_schema" => (k.clone(), v.clone()),
                    _ => (k.clone(), canonical(v)),
                })
                .collect();
            fields.sort_by(|a, b| a.0.cmp(&b.0));
            Json::Obj(fields)
        }
        Json::Arr(items) => Json::Arr(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

fn hex(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn parse_ttl(cc: &Json, path: &str) -> Result<Ttl, ApiError> {
    if cc.str_of("type") != Some("ephemeral") {
        return Err(ApiError::invalid(format!(
            "{path}.type: Input should be 'ephemeral'"
        )));
    }
    match cc.get("ttl") {
        None | Some(Json::Null) => Ok(Ttl::FiveMinutes),
        Some(t) if t.as_str() == Some("5m") => Ok(Ttl::FiveMinutes),
        Some(t) if t.as_str() == Some("1h") => Ok(Ttl::OneHour),
        Some(_) => Err(ApiError::invalid(format!(
            "{path}.ttl: Input should be '5m' or '1h'"
        ))),
    }
}

/// Tokens of one content block.
pub(crate) fn block_tokens(block: &Json, counter: &Counter, cfg: &AnthropicCacheConfig) -> u64 {
    let text = |k: &str| counter.count(block.str_of(k).unwrap_or_default());
    match block.str_of("type").unwrap_or_default() {
        "text" => text("text"),
        "thinking" => text("thinking"),
        "redacted_thinking" => text("data"),
        "image" => cfg.image_tokens,
        "tool_use" => {
            text("name")
                + counter.count(&block.get("input").map(Json::to_compact).unwrap_or_default())
        }
        "tool_result" => match block.get("content") {
            Some(Json::Str(s)) => counter.count(s),
            Some(Json::Arr(parts)) => parts.iter().map(|p| block_tokens(p, counter, cfg)).sum(),
            _ => 0,
        },
        _ => counter.count(&block.without("cache_control").to_compact()),
    }
}

/// The request's breakpoints `(unit index, ttl)` in prefix order, after the automatic
/// marker and the rules the API enforces with a 400.
pub(crate) fn marks(
    units: &[Unit],
    top: Option<&Json>,
    max: usize,
) -> Result<Vec<(usize, Ttl)>, ApiError> {
    let mut marks: Vec<(usize, Ttl)> = units
        .iter()
        .enumerate()
        .filter_map(|(i, u)| u.mark.map(|t| (i, t)))
        .collect();
    if let Some(cc) = top.filter(|c| !matches!(c, Json::Null)) {
        let ttl = parse_ttl(cc, "cache_control")?;
        if let Some(i) = units.iter().rposition(|u| u.eligible) {
            match units[i].mark {
                Some(t) if t == ttl => {}
                Some(t) => {
                    return Err(ApiError::invalid(format!(
                        "cache_control.ttl: the automatic cache_control (ttl='{}') lands on {}, \
                         which already has an explicit cache_control with ttl='{}'",
                        ttl.name(),
                        units[i].path,
                        t.name()
                    )));
                }
                None => {
                    marks.push((i, ttl));
                    marks.sort_by_key(|(i, _)| *i);
                }
            }
        }
    }
    if marks.len() > max {
        return Err(ApiError::invalid(format!(
            "A maximum of {max} blocks with cache_control may be provided. Found {}.",
            marks.len()
        )));
    }
    let mut seen_5m = false;
    for &(i, ttl) in &marks {
        match ttl {
            Ttl::FiveMinutes => seen_5m = true,
            Ttl::OneHour if seen_5m => {
                return Err(ApiError::invalid(format!(
                    "{}.cache_control.ttl: a ttl='1h' cache_control block must not come after a \
                     ttl='5m' cache_control block. Note that blocks are processed in the \
                     following order: `tools`, `system`, `messages`.",
                    units[i].path
                )));
            }
            Ttl::OneHour => {}
        }
    }
    Ok(marks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Tokenizer;

    fn hashes(body: &str) -> Vec<[u8; 32]> {
        let req = Json::parse(body.as_bytes()).expect("test JSON");
        let counter = Counter::new(Tokenizer::Bytes4);
        let units = flatten(&req, &[0; 32], &counter, &AnthropicCacheConfig::default());
        units.expect("valid").iter().map(|u| u.hash).collect()
    }

    #[test]
    fn field_order_and_string_form_do_not_matter_but_input_key_order_does() {
        let a = hashes(r#"{"messages":[{"role":"user","content":"hi"}]}"#);
        let b = hashes(
            r#"{"messages":[{"role":"user","content":[{"text":"hi","type":"text","cache_control":{"type":"ephemeral"}}]}]}"#,
        );
        assert_eq!(a, b);
        let tool = |input: &str| {
            hashes(&format!(
                r#"{{"messages":[{{"role":"assistant","content":[{{"type":"tool_use","id":"t","name":"n","input":{input}}}]}}]}}"#
            ))
        };
        assert_ne!(tool(r#"{"a":1,"b":2}"#), tool(r#"{"b":2,"a":1}"#));
        let user = hashes(r#"{"messages":[{"role":"assistant","content":"hi"}]}"#);
        assert_ne!(a, user, "the role is part of the prefix");
    }
}
