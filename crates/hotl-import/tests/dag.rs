//! Property: random Claude-Code-shaped graphs (streamed chunks, parallel calls whose results
//! are siblings written in any order, rewinds to an earlier turn) import with every call
//! answered before the conversation goes on, seqs increasing, and the visible branch holding
//! exactly the prompts of the source's active branch.

use hotl_import::Source;
use hotl_log::Body;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::*;

/// One turn: where its prompt hangs (`Some(k)`: after turn `k`, a rewind), its responses
/// (each with how many parallel calls), and how its results are shuffled.
#[derive(Clone, Debug)]
struct Turn {
    rewind: Option<usize>,
    responses: Vec<usize>,
    shuffle: u64,
}

fn turns() -> impl Strategy<Value = Vec<Turn>> {
    prop::collection::vec(
        (
            prop::option::weighted(0.25, 0usize..8),
            prop::collection::vec(0usize..4, 1..4),
            any::<u64>(),
        )
            .prop_map(|(rewind, responses, shuffle)| Turn {
                rewind,
                responses,
                shuffle,
            }),
        1..8,
    )
}

/// The source's lines and the prompts of its active branch.
fn build(turns: &[Turn]) -> (Vec<Value>, Vec<String>) {
    let mut lines = Vec::new();
    // Each turn's last record and the turn it continues.
    let mut ends: Vec<String> = Vec::new();
    let mut parent_turn: Vec<Option<usize>> = Vec::new();
    let mut n = 0;
    let mut uuid = || {
        n += 1;
        format!("u{n}")
    };
    let ts = |i: usize| format!("2026-01-01T00:{:02}:{:02}Z", (i / 60) % 60, i % 60);
    for (t, turn) in turns.iter().enumerate() {
        let from = match turn.rewind {
            Some(k) if k < t => Some(k),
            _ => t.checked_sub(1),
        };
        parent_turn.push(from);
        let prompt = uuid();
        lines.push(
            json!({"type": "user", "uuid": prompt, "parentUuid": from.map(|k| ends[k].clone()),
            "sessionId": "s", "cwd": "/tmp", "timestamp": ts(lines.len()),
            "message": {"role": "user", "content": format!("prompt {t}")}}),
        );
        let mut last = prompt;
        for (r, &calls) in turn.responses.iter().enumerate() {
            let msg = format!("msg_{t}_{r}");
            let text = uuid();
            lines.push(
                json!({"type": "assistant", "uuid": text, "parentUuid": last,
                "sessionId": "s", "timestamp": ts(lines.len()),
                "message": {"id": msg, "role": "assistant", "model": "m",
                    "content": [{"type": "text", "text": format!("reply {t}.{r}")}],
                    "usage": {"input_tokens": 1, "output_tokens": 1}}}),
            );
            last = text;
            let mut chunk_of = Vec::new();
            for c in 0..calls {
                let chunk = uuid();
                lines.push(
                    json!({"type": "assistant", "uuid": chunk, "parentUuid": last,
                    "sessionId": "s", "timestamp": ts(lines.len()),
                    "message": {"id": msg, "role": "assistant", "model": "m",
                        "content": [{"type": "tool_use", "id": format!("call_{t}_{r}_{c}"),
                            "name": "Bash", "input": {"command": "true"}}],
                        "usage": {"input_tokens": 1, "output_tokens": 1}}}),
                );
                chunk_of.push(chunk.clone());
                last = chunk;
            }
            // Results hang off their own call's chunk, written in a shuffled order.
            let mut order: Vec<usize> = (0..calls).collect();
            let mut seed = turn.shuffle ^ (r as u64);
            for i in (1..order.len()).rev() {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                order.swap(i, (seed >> 33) as usize % (i + 1));
            }
            for c in order {
                let result = uuid();
                lines.push(
                    json!({"type": "user", "uuid": result, "parentUuid": chunk_of[c],
                    "sessionId": "s", "timestamp": ts(lines.len()),
                    "message": {"role": "user", "content": [{"type": "tool_result",
                        "tool_use_id": format!("call_{t}_{r}_{c}"), "content": "ok"}]}}),
                );
                last = result;
            }
        }
        ends.push(last);
    }
    let mut active = Vec::new();
    let mut at = Some(turns.len() - 1);
    while let Some(t) = at {
        active.push(format!("prompt {t}"));
        at = parent_turn[t];
    }
    active.reverse();
    (lines, active)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_claude_graphs_import_faithfully(turns in turns()) {
        let (lines, active) = build(&turns);
        let home = Home::new().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let path = write_lines(home.dir.path(), "s.jsonl", &lines)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let out = home.import(Source::Claude, &path).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let records = home.records(&out.id).map_err(|e| TestCaseError::fail(e.to_string()))?;
        assert_answered(&records);
        prop_assert!(records.windows(2).all(|w| w[0].seq < w[1].seq));
        let visible: Vec<String> = hotl_log::visible_branch(&records)
            .into_iter()
            .filter_map(|i| match &records[i].body {
                Body::User { content } => Some(hotl_log::plain_text(content)),
                _ => None,
            })
            .collect();
        prop_assert_eq!(visible, active);
        let source_calls = lines
            .iter()
            .filter(|l| l.to_string().contains("\"tool_use\""))
            .count();
        prop_assert_eq!(calls(&records).len(), source_calls);
    }
}
