//! The order a transcript's lines are converted in: the file's, except that a conversation
//! that went back to an earlier branch has its branches laid out depth first, the branch
//! holding the last message last at every fork. hotl's `revert` hides what lies between its
//! target and itself for good, so the active branch must come after every branch it left.
//!
//! The unit is the turn: a typed prompt and the lines after it up to the next prompt. A turn
//! hangs off the turn holding its prompt's parent (through records that are not turns'
//! prompts); a turn whose prompt has no parent follows the one before it in the file.

use std::collections::HashMap;

use serde_json::Value;

use super::convert::injected;
use crate::lines::{Line, str_of};

/// `lines` in conversion order (unchanged when the conversation never went back).
pub(crate) fn branch_order(lines: Vec<Line>) -> Vec<Line> {
    // Which turn each line is in, and each turn's parent turn (ids borrowed from the lines).
    let mut turn_of_uuid: HashMap<&str, usize> = HashMap::new();
    let mut parents: HashMap<&str, &str> = HashMap::new();
    let mut turn_of_line: Vec<usize> = Vec::with_capacity(lines.len());
    let mut parent_of: Vec<Option<usize>> = vec![None];
    let mut last_message_turn = 0;
    for line in &lines {
        let uuid = str_of(&line.obj, "uuid");
        if let Some(u) = uuid
            && let Some(p) =
                str_of(&line.obj, "logicalParentUuid").or(str_of(&line.obj, "parentUuid"))
        {
            parents.insert(u, p);
        }
        if is_prompt(&line.obj) {
            let current = parent_of.len() - 1;
            let parent = uuid
                .and_then(|u| parents.get(u))
                .and_then(|p| owning_turn(p, &parents, &turn_of_uuid))
                .unwrap_or(current);
            parent_of.push(Some(parent));
        }
        let at = parent_of.len() - 1;
        if let Some(u) = uuid {
            turn_of_uuid.insert(u, at);
        }
        if matches!(str_of(&line.obj, "type"), Some("user" | "assistant"))
            && line.obj.get("isSidechain").and_then(Value::as_bool) != Some(true)
        {
            last_message_turn = at;
        }
        turn_of_line.push(at);
    }
    let linear = parent_of
        .iter()
        .enumerate()
        .skip(1)
        .all(|(i, p)| *p == Some(i - 1));
    if linear {
        return lines;
    }
    let mut turns: Vec<Vec<Line>> = (0..parent_of.len()).map(|_| Vec::new()).collect();
    for (line, t) in lines.into_iter().zip(turn_of_line) {
        turns[t].push(line);
    }
    // Children in file order; the one on the way to the last message goes last.
    let mut on_path = vec![false; turns.len()];
    let mut at = Some(last_message_turn);
    while let Some(t) = at {
        on_path[t] = true;
        at = parent_of[t];
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); turns.len()];
    for (t, p) in parent_of.iter().enumerate() {
        if let Some(p) = p {
            children[*p].push(t);
        }
    }
    for c in &mut children {
        c.sort_by_key(|&t| (on_path[t], t));
    }
    let mut order = Vec::with_capacity(turns.len());
    let mut stack = vec![0];
    while let Some(t) = stack.pop() {
        order.push(t);
        stack.extend(children[t].iter().rev());
    }
    let mut slots: Vec<Option<Vec<Line>>> = turns.into_iter().map(Some).collect();
    order
        .into_iter()
        .flat_map(|t| slots[t].take().unwrap_or_default())
        .collect()
}

/// The turn holding `uuid`, or its nearest ancestor that is in one.
fn owning_turn(
    uuid: &str,
    parents: &HashMap<&str, &str>,
    turn_of: &HashMap<&str, usize>,
) -> Option<usize> {
    let mut at = uuid;
    for _ in 0..10_000 {
        if let Some(&t) = turn_of.get(at) {
            return Some(t);
        }
        at = parents.get(at)?;
    }
    None
}

/// A message the user typed (what starts a turn).
fn is_prompt(obj: &serde_json::Map<String, Value>) -> bool {
    let flag = |k: &str| obj.get(k).and_then(Value::as_bool) == Some(true);
    if str_of(obj, "type") != Some("user")
        || flag("isMeta")
        || flag("isCompactSummary")
        || flag("isSidechain")
    {
        return false;
    }
    match obj.get("message").and_then(|m| m.get("content")) {
        Some(Value::String(text)) => injected(text).is_none(),
        Some(Value::Array(items)) => !items
            .iter()
            .any(|i| i.get("type").and_then(Value::as_str) == Some("tool_result")),
        _ => false,
    }
}
