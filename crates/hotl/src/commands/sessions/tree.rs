//! `hotl sessions show <ref> --tree`: the session and every session delegated beneath it, each
//! with its agent, state, task and what it spent, and the tree's total.

use std::collections::HashMap;
use std::io::Write;

use hotl_agent::Spent;
use hotl_log::{Body, Delegated, Record, RunState, SessionMeta, Store};
use hotl_wire::Pricing;
use serde_json::{Value, json};

use crate::error::CliError;

/// The widest task shown in the text, in characters.
const TASK_WIDTH: usize = 40;

/// One session of the tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Node {
    /// Its id.
    pub id: String,
    /// The handle its delegating session knows it by.
    pub handle: Option<String>,
    /// The agent definition it ran (`fork` for a fork-tool child), `None` for a session not
    /// delegated.
    pub agent: Option<String>,
    /// `finished`, `open`, `interrupted`, `failed` or `cancelled`.
    pub state: String,
    /// Its task (a delegated session's description, another's title).
    pub task: String,
    /// What its own requests spent (inherited history was its parent's).
    pub spent: Spent,
    /// Models of its requests the pricing table does not know.
    pub unpriced: Vec<String>,
    /// Why its log could not be read, when it could not.
    pub unreadable: Option<String>,
    /// The patch of what it changed in a worktree of its own (`isolation: worktree`), while
    /// that patch is on disk.
    pub patch: Option<std::path::PathBuf>,
    /// The sessions it delegated, oldest first.
    pub children: Vec<Node>,
}

impl Node {
    /// Its dollars: `None` when it made requests and none of them could be priced.
    fn cost(&self) -> Option<f64> {
        let all_unpriced = !self.unpriced.is_empty() && self.spent.cost == 0.0;
        (!all_unpriced).then_some(self.spent.cost)
    }

    /// Every node of the tree, this one first, depth first.
    fn walk(&self) -> Vec<&Node> {
        let mut out = vec![self];
        for child in &self.children {
            out.extend(child.walk());
        }
        out
    }
}

/// What a whole tree spent: its sessions' own spending summed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Total {
    /// Tokens by kind.
    pub input: u64,
    /// Tokens read from the prompt cache.
    pub cache_read: u64,
    /// Tokens written to the prompt cache.
    pub cache_write: u64,
    /// Output tokens.
    pub output: u64,
    /// Dollars of the priced requests.
    pub cost: f64,
    /// Whether some requests could not be priced (then `cost` is a lower bound).
    pub partly_unpriced: bool,
}

/// The tree's total.
pub fn total(root: &Node) -> Total {
    let mut t = Total::default();
    for node in root.walk() {
        t.input += node.spent.input;
        t.cache_read += node.spent.cache_read;
        t.cache_write += node.spent.cache_write;
        t.output += node.spent.output;
        t.cost += node.spent.cost;
        t.partly_unpriced |= !node.unpriced.is_empty();
    }
    t
}

/// The tree under `meta`: the sessions delegated by it, by them in turn, and so on, each
/// priced by `pricing`. Dropped sessions are left out; one whose log cannot be read is kept
/// with the reason.
pub fn build(store: &Store, meta: &SessionMeta, pricing: &Pricing) -> Result<Node, CliError> {
    let visible = store.visible_delegated(&meta.id)?;
    let mut by: HashMap<&str, Vec<&Delegated>> = HashMap::new();
    for d in &visible {
        by.entry(d.delegation.by.as_str()).or_default().push(d);
    }
    let top_delegation = store.read_start(&meta.id).ok().and_then(|s| s.delegated);
    let mut root = node(store, &meta.id, pricing);
    root.handle = top_delegation.as_ref().and_then(|d| d.handle.clone());
    root.agent = top_delegation.as_ref().map(agent_of);
    root.task = match &top_delegation {
        Some(d) => d.description.clone(),
        None => meta.display_title().to_owned(),
    };
    root.children = children_of(store, &meta.id, &by, pricing, 0);
    // A log in the tree whose first line cannot be read says neither who delegated it nor
    // where: shown under the tree's root, so it is not silently missing.
    if store.root_of(&meta.id) == meta.id {
        for id in store.tree_children(&meta.id)? {
            if let Err(e) = store.read_start(&id) {
                root.children.push(Node {
                    id,
                    unreadable: Some(e.to_string()),
                    ..Node::default()
                });
            }
        }
    }
    Ok(root)
}

/// Delegated children deeper than this are not followed (a cycle in damaged logs).
const MAX_DEPTH: usize = 64;

fn children_of(
    store: &Store,
    id: &str,
    by: &HashMap<&str, Vec<&Delegated>>,
    pricing: &Pricing,
    depth: usize,
) -> Vec<Node> {
    let Some(mine) = by.get(id) else {
        return Vec::new();
    };
    if depth >= MAX_DEPTH {
        return Vec::new();
    }
    let mut out = Vec::new();
    // `visible_delegated` sorts by id: oldest first.
    for d in mine {
        if store.meta(&d.id).is_ok_and(|m| m.dropped) {
            continue;
        }
        let mut child = node(store, &d.id, pricing);
        child.handle = d.delegation.handle.clone();
        child.agent = Some(agent_of(&d.delegation));
        child.task = d.delegation.description.clone();
        child.children = children_of(store, &d.id, by, pricing, depth + 1);
        out.push(child);
    }
    out
}

/// The patch file of the worktree a child worked in (`cwd` inside it), when it worked in one
/// and its patch is still there.
fn worktree_patch(store: &Store, cwd: &str) -> Option<std::path::PathBuf> {
    let worktrees = store.home().join("worktrees");
    let cwd = std::path::Path::new(cwd);
    let name = cwd.strip_prefix(&worktrees).ok()?.components().next()?;
    let patch = worktrees.join(name).with_extension("patch");
    patch.is_file().then_some(patch)
}

fn agent_of(d: &hotl_log::Delegation) -> String {
    d.agent.clone().unwrap_or_else(|| "fork".to_owned())
}

/// One session's state and own spending, from its log.
fn node(store: &Store, id: &str, pricing: &Pricing) -> Node {
    let mut out = Node {
        id: id.to_owned(),
        ..Node::default()
    };
    match store.lineage(id) {
        Ok(lineage) => {
            let stats = hotl_agent::stats(id, &lineage.records, lineage.own_start, pricing);
            out.spent = stats.own;
            out.unpriced = stats.unpriced;
            out.patch = worktree_patch(store, &lineage.start().cwd);
            let open = || hotl_view::View::of(&lineage).open_turn;
            out.state = state(lineage.own(), open).to_owned();
        }
        Err(e) => out.unreadable = Some(e.to_string()),
    }
    out
}

/// A session's state from its own records: its last run's (`failed` when an `error` record
/// follows the run's start); without run records (a log written elsewhere), `failed` after an
/// `error` record since the last user message, else `open` while a turn awaits an answer.
fn state(own: &[Record], open_turn: impl FnOnce() -> bool) -> &str {
    let last_start = own.iter().rposition(|r| {
        matches!(
            &r.body,
            Body::Run {
                state: RunState::Started,
                ..
            }
        )
    });
    let last_run = own.iter().rev().find_map(|r| match &r.body {
        Body::Run { state, .. } => Some(state),
        _ => None,
    });
    let since = match (last_start, last_run) {
        (Some(i), _) => i,
        (None, Some(_)) => 0,
        (None, None) => own
            .iter()
            .rposition(|r| matches!(r.body, Body::User { .. }))
            .unwrap_or(0),
    };
    if own[since..]
        .iter()
        .any(|r| matches!(r.body, Body::Error { .. }))
    {
        return "failed";
    }
    match last_run {
        Some(RunState::Started) => "open",
        Some(RunState::Finished) => "finished",
        Some(RunState::Cancelled) => "cancelled",
        Some(RunState::Interrupted) => "interrupted",
        Some(RunState::Other(word)) => word,
        None if open_turn() => "open",
        None => "finished",
    }
}

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
        let task = clip(first_line(&node.task), TASK_WIDTH);
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

/// Each node with the branches drawn before it: none for the top, `├─ ` or `└─ ` for a
/// child, behind `│  ` or blanks for each ancestor that has (or has no) later sibling.
pub fn flatten(root: &Node) -> Vec<(String, &Node)> {
    fn under<'a>(node: &'a Node, indent: &str, out: &mut Vec<(String, &'a Node)>) {
        let n = node.children.len();
        for (i, child) in node.children.iter().enumerate() {
            let last = i + 1 == n;
            out.push((
                format!("{indent}{}", if last { "└─ " } else { "├─ " }),
                child,
            ));
            let deeper = format!("{indent}{}", if last { "   " } else { "│  " });
            under(child, &deeper, out);
        }
    }
    let mut out = vec![(String::new(), root)];
    under(root, "", &mut out);
    out
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("").trim()
}

fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
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
    fn branches_show_siblings_and_depth() {
        let root = sample();
        let drawn: Vec<String> = flatten(&root)
            .iter()
            .map(|(lead, n)| format!("{lead}{}", label(n)))
            .collect();
        assert_eq!(
            drawn,
            ["01JE0000", "├─ aa", "│  ├─ a1", "│  └─ a2", "└─ bb"]
        );
    }

    #[test]
    fn the_last_childs_descendants_hang_under_blanks() {
        let mut root = leaf("rt", 0.0);
        let mut only = leaf("c1", 0.0);
        only.children = vec![leaf("g1", 0.0)];
        root.children = vec![only];
        let drawn: Vec<String> = flatten(&root).into_iter().map(|(lead, _)| lead).collect();
        assert_eq!(drawn, ["", "└─ ", "   └─ "]);
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

    fn run(state: RunState) -> Record {
        Record::new(
            1,
            "T",
            Body::Run {
                run: "r".to_owned(),
                state,
            },
        )
    }

    fn error() -> Record {
        Record::new(
            1,
            "T",
            Body::Error {
                error: "stream".to_owned(),
                message: "cut".to_owned(),
                status: None,
            },
        )
    }

    #[test]
    fn state_comes_from_the_last_run_and_its_errors() {
        let user = || Record::new(1, "T", Body::user_text("go"));
        let never = || panic!("run records say it");
        assert_eq!(state(&[user(), run(RunState::Started)], never), "open");
        assert_eq!(
            state(&[run(RunState::Started), run(RunState::Finished)], never),
            "finished"
        );
        assert_eq!(
            state(&[run(RunState::Started), run(RunState::Cancelled)], never),
            "cancelled"
        );
        assert_eq!(
            state(&[run(RunState::Started), run(RunState::Interrupted)], never),
            "interrupted"
        );
        assert_eq!(
            state(
                &[run(RunState::Started), run(RunState::Interrupted), error()],
                never
            ),
            "failed"
        );
        // An error of an earlier run does not fail the last one.
        assert_eq!(
            state(
                &[
                    run(RunState::Started),
                    error(),
                    run(RunState::Interrupted),
                    run(RunState::Started),
                    run(RunState::Finished)
                ],
                never
            ),
            "finished"
        );
        // Without run records: an error since the last user message, else the open turn.
        assert_eq!(state(&[user(), error()], || false), "failed");
        assert_eq!(state(&[error(), user()], || true), "open");
        assert_eq!(state(&[user()], || false), "finished");
        assert_eq!(state(&[], || false), "finished");
    }
}
