//! A session's delegation tree: the session and every session delegated beneath it (fork-tool
//! children, spawned agents, theirs in turn), each with its agent, state, task and what it
//! spent, and the tree's total. `hotl sessions show --tree` prints it and the terminal UI's
//! `/tree` draws it.

use std::collections::HashMap;

use hotl_log::{Body, Delegated, Record, RunState, SessionMeta, Store};
use hotl_protocol::Spent;
use hotl_wire::Pricing;

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
    pub fn cost(&self) -> Option<f64> {
        let all_unpriced = !self.unpriced.is_empty() && self.spent.cost == 0.0;
        (!all_unpriced).then_some(self.spent.cost)
    }

    /// Every node of the tree, this one first, depth first.
    pub fn walk(&self) -> Vec<&Node> {
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
pub fn build(store: &Store, meta: &SessionMeta, pricing: &Pricing) -> hotl_log::Result<Node> {
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
            let stats = crate::stats::stats(id, &lineage.records, lineage.own_start, pricing);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(handle: &str) -> Node {
        Node {
            id: format!("01JE00000000000000000000{handle}"),
            handle: Some(handle.to_owned()),
            ..Node::default()
        }
    }

    #[test]
    fn branches_show_siblings_and_depth() {
        let mut a = leaf("aa");
        a.children = vec![leaf("a1"), leaf("a2")];
        let mut root = leaf("rt");
        root.children = vec![a, leaf("bb")];
        let drawn: Vec<String> = flatten(&root)
            .iter()
            .map(|(lead, n)| format!("{lead}{}", n.handle.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(drawn, ["rt", "├─ aa", "│  ├─ a1", "│  └─ a2", "└─ bb"]);
    }

    #[test]
    fn the_last_childs_descendants_hang_under_blanks() {
        let mut root = leaf("rt");
        let mut only = leaf("c1");
        only.children = vec![leaf("g1")];
        root.children = vec![only];
        let drawn: Vec<String> = flatten(&root).into_iter().map(|(lead, _)| lead).collect();
        assert_eq!(drawn, ["", "└─ ", "   └─ "]);
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
