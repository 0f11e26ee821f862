//! `hotl sessions show <ref> --tree`: the delegation tree (`hotl_agent::tree`) as text and
//! JSON: one line per session with its agent, state, task and spending, and the tree's total.

use std::io::Write;

use hotl_agent::tree::{Node, Total, flatten, total};
use serde_json::{Value, json};

/// The widest task shown in the text, in characters.
const TASK_WIDTH: usize = 40;

/// The text: a header, one line per session with tree branches, and the total.
pub fn write_text(out: &mut impl Write, root: &Node) -> std::io::Result<()> {
    let total = total(root);
    let rows = flatten(root);
    let label_w = rows
        .iter()
        .map(|(lead, n)| lead.chars().count() + label(n).chars().count())
        .max()
        .unwrap_or(0)
        .max("total".len());
    let agent_w = rows
        .iter()
        .map(|(_, n)| agent_text(n).chars().count())
        .max()
        .unwrap_or(0)
        .max("agent".len());
    let state_w = rows
        .iter()
        .map(|(_, n)| n.state.chars().count())
        .max()
        .unwrap_or(0)
        .max("state".len());
    let line = |first: &str, agent: &str, state: &str, task: &str, rest: [&str; 4]| {
        let text = format!(
            "{first:<label_w$}  {agent:<agent_w$}  {state:<state_w$}  {task:<TASK_WIDTH$}  {:>10}  {:>10}  {:>10}  {:>5}",
            rest[0], rest[1], rest[2], rest[3]
        );
        text.trim_end().to_owned()
    };
    let head = line(
        "session",
        "agent",
        "state",
        "task",
        ["tokens", "cache rd", "cost", "share"],
    );
    writeln!(out, "{head}")?;
    for (lead, node) in &rows {
        let first = format!("{lead}{}", label(node));
        if let Some(why) = &node.unreadable {
            let agent = agent_text(node);
            writeln!(
                out,
                "{first:<label_w$}  {agent:<agent_w$}  (unreadable: {why})"
            )?;
            continue;
        }
        let s = &node.spent;
        let tokens = hotl_export::thousands(s.input + s.cache_write + s.output);
        let read = hotl_export::thousands(s.cache_read);
        let cost = cost_text(node.cost(), !node.unpriced.is_empty());
        let share = share(node, &total).map_or_else(|| "-".to_owned(), |p| format!("{p:.0}%"));
        let task = hotl_text::clip(hotl_text::first_line(&node.task).trim(), TASK_WIDTH);
        writeln!(
            out,
            "{}",
            line(
                &first,
                &agent_text(node),
                &node.state,
                &task,
                [&tokens, &read, &cost, &share]
            )
        )?;
    }
    let t = &total;
    let all_unpriced = t.partly_unpriced && t.cost == 0.0;
    let patches: Vec<(&Node, &std::path::PathBuf)> = rows
        .iter()
        .filter_map(|(_, n)| n.patch.as_ref().map(|p| (*n, p)))
        .collect();
    let cost = cost_text((!all_unpriced).then_some(t.cost), t.partly_unpriced);
    let share = if t.cost > 0.0 { "100%" } else { "-" };
    writeln!(
        out,
        "{}",
        line(
            "total",
            "",
            "",
            "",
            [
                &hotl_export::thousands(t.input + t.cache_write + t.output),
                &hotl_export::thousands(t.cache_read),
                &cost,
                share
            ]
        )
    )?;
    // What isolated children changed waits in their patches, applied only when asked.
    for (node, patch) in patches {
        writeln!(
            out,
            "patch of {}: git apply {}",
            label(node),
            patch.display()
        )?;
    }
    Ok(())
}

/// The JSON: the tree, nested, with the total on the top object.
pub fn to_json(root: &Node) -> Value {
    let total = total(root);
    let mut body = node_json(root, &total);
    body["total"] = json!({
        "tokens": {
            "input": total.input,
            "cache_read": total.cache_read,
            "cache_write": total.cache_write,
            "output": total.output,
        },
        "cost": total.cost,
        "partly_unpriced": total.partly_unpriced,
    });
    body
}

fn node_json(node: &Node, total: &Total) -> Value {
    let s = &node.spent;
    let readable = node.unreadable.is_none();
    json!({
        "id": node.id,
        "handle": node.handle,
        "agent": node.agent,
        "state": readable.then_some(node.state.as_str()),
        "task": node.task,
        "patch": node.patch,
        "tokens": readable.then(|| json!({
            "input": s.input,
            "cache_read": s.cache_read,
            "cache_write": s.cache_write,
            "output": s.output,
        })),
        "cost": if readable { node.cost() } else { None },
        "share": share(node, total).map(|p| p / 100.0),
        "unpriced": node.unpriced,
        "unreadable": node.unreadable,
        "children": node.children.iter().map(|c| node_json(c, total)).collect::<Vec<_>>(),
    })
}

/// Its share of the tree's dollars, in percent: `None` when it or the tree has none priced.
fn share(node: &Node, total: &Total) -> Option<f64> {
    if node.unreadable.is_some() || total.cost <= 0.0 {
        return None;
    }
    node.cost().map(|c| c / total.cost * 100.0)
}

/// `$0.0123`; `≥$0.0123` when some requests are not in it; `unpriced` when none is.
fn cost_text(cost: Option<f64>, partly_unpriced: bool) -> String {
    match cost {
        None => "unpriced".to_owned(),
        Some(c) if partly_unpriced => format!("≥${c:.4}"),
        Some(c) => format!("${c:.4}"),
    }
}

fn label(node: &Node) -> String {
    node.handle
        .clone()
        .unwrap_or_else(|| node.id.get(..8).unwrap_or(&node.id).to_owned())
}

fn agent_text(node: &Node) -> String {
    node.agent.clone().unwrap_or_else(|| "-".to_owned())
}

#[cfg(test)]
mod tests {
    use hotl_agent::Spent;

    use super::*;

    fn leaf(handle: &str, cost: f64) -> Node {
        Node {
            id: format!("01JE00000000000000000000{handle}"),
            handle: Some(handle.to_owned()),
            agent: Some("fork".to_owned()),
            state: "finished".to_owned(),
            task: "a task\nits second line".to_owned(),
            spent: Spent {
                requests: 1,
                input: 10,
                cache_read: 1000,
                cache_write: 100,
                output: 5,
                cost,
                ..Spent::default()
            },
            ..Node::default()
        }
    }

    fn sample() -> Node {
        let mut a = leaf("aa", 0.25);
        a.children = vec![leaf("a1", 0.25), leaf("a2", 0.0)];
        a.children[1].unpriced = vec!["mystery".to_owned()];
        let b = leaf("bb", 0.0);
        let mut root = leaf("rt", 0.5);
        root.handle = None;
        root.agent = None;
        root.children = vec![a, b];
        root
    }

    #[test]
    fn text_prices_shares_and_names_what_has_no_price() -> Result<(), Box<dyn std::error::Error>> {
        let mut out = Vec::new();
        write_text(&mut out, &sample())?;
        let text = String::from_utf8(out)?;
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 7, "{text}");
        assert!(lines[0].starts_with("session"), "{text}");
        assert!(
            lines[1].contains("$0.5000") && lines[1].ends_with("50%"),
            "{text}"
        );
        assert!(
            lines[2].contains("├─ aa") && lines[2].ends_with("25%"),
            "{text}"
        );
        assert!(
            lines[4].contains("unpriced") && lines[4].ends_with('-'),
            "{text}"
        );
        assert!(
            lines[5].contains("$0.0000") && lines[5].ends_with("0%"),
            "{text}"
        );
        assert!(lines[6].starts_with("total"), "{text}");
        assert!(
            lines[6].contains("≥$1.0000") && lines[6].ends_with("100%"),
            "{text}"
        );
        // Tokens: input + cache writes + output, cache reads apart, five sessions.
        assert!(lines[6].contains("   575   "), "{text}");
        assert!(lines[6].contains("5,000"), "{text}");
        assert!(lines[1].contains("a task ") && !text.contains("second line"));
        Ok(())
    }

    #[test]
    fn an_unreadable_child_says_why_and_counts_nothing() -> Result<(), Box<dyn std::error::Error>> {
        let mut root = leaf("rt", 0.5);
        root.children = vec![Node {
            id: "01JE0000000000000000000BAD".to_owned(),
            unreadable: Some("first line is not a session record".to_owned()),
            ..Node::default()
        }];
        let mut out = Vec::new();
        write_text(&mut out, &root)?;
        let text = String::from_utf8(out)?;
        assert!(
            text.contains("└─ 01JE0000  -      (unreadable: first line is not a session record)"),
            "{text}"
        );
        let json = to_json(&root);
        assert_eq!(json["children"][0]["cost"], Value::Null);
        assert_eq!(json["total"]["cost"], 0.5);
        Ok(())
    }
}
