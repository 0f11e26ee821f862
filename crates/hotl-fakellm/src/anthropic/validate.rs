//! The Anthropic message rules the real API answers with a 400: roles, every `tool_use`
//! answered in the next user turn, no orphan `tool_result`, tool results first, thinking
//! blocks unmodified (signature check). Messages are the real ones where known.

use std::collections::HashSet;

use crate::api_error::ApiError;
use crate::json::Json;
use crate::signature;

/// Checks `messages` (already known to be a non-empty array); `system_role` says whether
/// the model accepts `system` entries among them.
pub(crate) fn check(messages: &[Json], key: &[u8; 32], system_role: bool) -> Result<(), ApiError> {
    for (i, m) in messages.iter().enumerate() {
        match m.str_of("role") {
            Some("user" | "assistant") => {}
            Some("system") if system_role => {}
            _ => {
                return Err(ApiError::invalid(format!(
                    "messages.{i}.role: Input should be 'user' or 'assistant'"
                )));
            }
        }
        match m.get("content") {
            Some(Json::Str(_) | Json::Arr(_)) => {}
            None => {
                return Err(ApiError::invalid(format!(
                    "messages.{i}.content: Field required"
                )));
            }
            Some(_) => {
                return Err(ApiError::invalid(format!(
                    "messages.{i}.content: Input should be a valid list"
                )));
            }
        }
    }
    check_thinking(messages, key)?;
    check_unique_tool_ids(messages)?;
    check_tool_pairs(messages)
}

/// A `tool_use` id appears once in a conversation (the API refuses a repeated one).
fn check_unique_tool_ids(messages: &[Json]) -> Result<(), ApiError> {
    let mut seen: HashSet<&str> = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        for (j, b) in blocks(m).iter().enumerate() {
            if b.str_of("type") == Some("tool_use")
                && let Some(id) = b.str_of("id")
                && !seen.insert(id)
            {
                return Err(ApiError::invalid(format!(
                    "messages.{i}.content.{j}: `tool_use` ids must be unique; found {id} more \
                     than once"
                )));
            }
        }
    }
    Ok(())
}

fn blocks(m: &Json) -> &[Json] {
    m.arr_of("content").unwrap_or_default()
}

fn check_thinking(messages: &[Json], key: &[u8; 32]) -> Result<(), ApiError> {
    for (i, m) in messages.iter().enumerate() {
        if m.str_of("role") != Some("assistant") {
            continue;
        }
        for (j, b) in blocks(m).iter().enumerate() {
            if b.str_of("type") != Some("thinking") {
                continue;
            }
            let Some(sig) = b.str_of("signature") else {
                return Err(ApiError::invalid(format!(
                    "messages.{i}.content.{j}.thinking.signature: Field required"
                )));
            };
            let text = b.str_of("thinking").unwrap_or_default();
            if !signature::verify(key, text, sig) {
                return Err(ApiError::invalid(format!(
                    "messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
                )));
            }
        }
    }
    Ok(())
}

/// Consecutive messages of one role form one turn (the API merges them).
fn turns(messages: &[Json]) -> Vec<(usize, usize)> {
    let mut turns: Vec<(usize, usize)> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        match turns.last_mut() {
            Some((start, end)) if messages[*start].str_of("role") == m.str_of("role") => *end = i,
            _ => turns.push((i, i)),
        }
    }
    turns
}

fn check_tool_pairs(messages: &[Json]) -> Result<(), ApiError> {
    let turns = turns(messages);
    let mut offered: Vec<String> = Vec::new();
    for (t, &(start, end)) in turns.iter().enumerate() {
        let role = messages[start].str_of("role").unwrap_or_default();
        if role == "assistant" {
            offered.clear();
            let mut last_with_tools = start;
            for (i, m) in messages.iter().enumerate().take(end + 1).skip(start) {
                for b in blocks(m) {
                    if b.str_of("type") == Some("tool_use") {
                        offered.push(b.str_of("id").unwrap_or_default().to_string());
                        last_with_tools = i;
                    }
                }
            }
            let answered: HashSet<&str> = turns
                .get(t + 1)
                .map(|&(s, e)| {
                    messages[s..=e]
                        .iter()
                        .flat_map(blocks)
                        .filter(|b| b.str_of("type") == Some("tool_result"))
                        .filter_map(|b| b.str_of("tool_use_id"))
                        .collect()
                })
                .unwrap_or_default();
            let missing: Vec<&str> = offered
                .iter()
                .map(String::as_str)
                .filter(|id| !answered.contains(id))
                .collect();
            if !missing.is_empty() {
                return Err(ApiError::invalid(format!(
                    "messages.{last_with_tools}: `tool_use` ids were found without `tool_result` \
                     blocks immediately after: {}. Each `tool_use` block must have a \
                     corresponding `tool_result` block in the next message.",
                    missing.join(", ")
                )));
            }
            continue;
        }
        for (i, m) in messages.iter().enumerate().take(end + 1).skip(start) {
            let mut other_seen = false;
            for (j, b) in blocks(m).iter().enumerate() {
                if b.str_of("type") != Some("tool_result") {
                    other_seen = true;
                    continue;
                }
                let id = b.str_of("tool_use_id").unwrap_or_default();
                if !offered.iter().any(|o| o == id) {
                    return Err(ApiError::invalid(format!(
                        "messages.{i}.content.{j}: unexpected `tool_use_id` found in \
                         `tool_result` blocks: {id}. Each `tool_result` block must have a \
                         corresponding `tool_use` block in the previous message."
                    )));
                }
                if other_seen {
                    return Err(ApiError::invalid(format!(
                        "messages.{i}.content.{j}: `tool_result` blocks must come first in the \
                         user message, before any other content"
                    )));
                }
            }
        }
        offered.clear();
    }
    Ok(())
}
