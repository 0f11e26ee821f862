//! A session's life outside its turns: creating one (nothing is written until its first
//! message), forking one whole or cut at a turn, and naming one. Every rule is checked before
//! anything is written: a refused name leaves no session behind.

use std::path::{Path, PathBuf};

use hotl_log::{Body, Inherited, LineageProblem, SessionMeta, Store, Writer};
use hotl_view::View;

use crate::error::{AgentError, Result};
use crate::permission::Mode;
use crate::session::{Session, mode_record};
use hotl_tool::ToolSet;

/// A session not written yet: what it will start with. Made with every check done (the
/// working directory exists, the name is free), so nothing is refused later for what it says;
/// its log appears with [`NewSession::create`], when its first message is submitted.
#[derive(Clone, Debug)]
pub struct NewSession {
    store: Store,
    id: String,
    cwd: PathBuf,
    model: String,
    tools: ToolSet,
    mode: Mode,
    effort: Option<String>,
    /// The model chosen before the first message, and the provider it was chosen on.
    chosen: Option<(String, String)>,
    sandbox: Option<String>,
    name: Option<String>,
    instructions: Vec<String>,
}

impl NewSession {
    /// A session in `cwd` asking `model`, with `tools`; its id is given out now.
    pub fn new(
        store: &Store,
        cwd: impl Into<PathBuf>,
        model: impl Into<String>,
        tools: ToolSet,
    ) -> Result<NewSession> {
        let cwd = cwd.into();
        if !cwd.is_dir() {
            return Err(AgentError::MissingCwd(cwd.display().to_string()));
        }
        Ok(NewSession {
            store: store.clone(),
            id: hotl_log::new_session_id(),
            cwd,
            model: model.into(),
            tools,
            mode: Mode::Default,
            effort: None,
            chosen: None,
            sandbox: None,
            name: None,
            instructions: Vec::new(),
        })
    }

    /// Adds `blocks` to the system prompt frozen with the session (an MCP server's
    /// instructions, say).
    pub fn with_instructions(mut self, blocks: Vec<String>) -> NewSession {
        self.instructions = blocks;
        self
    }

    /// Adds tools that arrived after it was made (an MCP server's) and their instructions;
    /// a tool whose name the set already has is left out and named in the result.
    pub fn add_late(
        &mut self,
        tools: &[std::sync::Arc<dyn hotl_tool::Tool>],
        instructions: &[String],
    ) -> Vec<String> {
        self.instructions.extend(instructions.iter().cloned());
        tools
            .iter()
            .filter_map(|t| self.tools.add(t.clone()).err().map(|e| e.0))
            .collect()
    }

    /// The blocks its system prompt gains (an MCP server's instructions).
    pub fn instructions(&self) -> &[String] {
        &self.instructions
    }

    /// Starts in permission mode `mode` (recorded when it is not the default).
    pub fn with_mode(mut self, mode: Mode) -> NewSession {
        self.mode = mode;
        self
    }

    /// Runs its commands in sandbox mode `mode` (recorded with the session; `None`: the
    /// default, not recorded).
    pub fn with_sandbox(mut self, mode: Option<String>) -> NewSession {
        self.sandbox = mode;
        self
    }

    /// Asks with reasoning effort `effort` (recorded with the session).
    pub fn with_effort(mut self, effort: Option<String>) -> NewSession {
        self.effort = effort;
        self
    }

    /// Named `name`, which must be valid and held by no live session.
    pub fn with_name(mut self, name: Option<&str>) -> Result<NewSession> {
        if let Some(name) = name {
            self.store.check_name(name, None)?;
        }
        self.name = name.map(str::to_owned);
        Ok(self)
    }

    /// The store it will live in.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Its permission mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Its name, when it is given one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The id the session will have.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Its model.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Answers with `model`, chosen on provider `.1` (recorded with the session).
    pub fn with_model(mut self, chosen: Option<(String, String)>) -> NewSession {
        self.chosen = chosen;
        self
    }

    /// Its tools.
    pub fn tools(&self) -> &ToolSet {
        &self.tools
    }

    /// Writes the session: its `session` record, mode and name in one write. The name is
    /// checked again, since another process may have taken it since.
    pub fn create(&self) -> Result<Session> {
        let mut state = Vec::new();
        if self.mode != Mode::Default {
            state.push(mode_record(self.mode));
        }
        if let Some(sandbox) = &self.sandbox {
            state.push(Body::sandbox(sandbox));
        }
        if let Some(effort) = &self.effort {
            state.push(Body::effort(effort));
        }
        if let Some((model, provider)) = &self.chosen {
            state.push(Body::chosen_model(model, provider));
        }
        if let Some(name) = &self.name {
            self.store.check_name(name, None)?;
            state.push(Body::Name {
                name: Some(name.clone()),
            });
        }
        Session::start(
            &self.store,
            &self.id,
            &self.cwd,
            &self.model,
            self.tools.clone(),
            &self.instructions,
            state,
        )
    }
}

pub use hotl_protocol::ForkAt;

/// Forks `parent` at `at` into a new root session named `name` (checked first), in `cwd`.
/// Nothing is copied and the parent is only read; the fork inherits the parent's final modes,
/// its todos when forked at the head, a `(fork)` title, never its name. Returns the fork's
/// writer, holding its lock.
pub fn fork(
    store: &Store,
    parent: &SessionMeta,
    at: ForkAt,
    name: Option<&str>,
    cwd: &str,
) -> Result<Writer> {
    if !Path::new(cwd).is_dir() {
        // A fork that could not work there would be left behind, broken.
        return Err(AgentError::MissingCwd(cwd.to_owned()));
    }
    if let Some(name) = name {
        store.check_name(name, None)?;
    }
    let (pin, mut state, inherited) = match at {
        ForkAt::Head => at_head(store, parent)?,
        cut => at_cut(store, parent, cut)?,
    };
    if let Some(name) = name {
        state.push(Body::Name {
            name: Some(name.to_owned()),
        });
    }
    Ok(store.fork(pin, cwd, state, Some(inherited))?)
}

/// [`fork`], the fork working in a new git worktree checked out at the code as the parent's
/// snapshots had it at the fork point (the tree as it is now when the parent never changed a
/// file), so the current tree is left alone. The worktree is under `<home>/worktrees/`, on no
/// branch; `hotl gc` removes it once no session works in it. Returns the fork and the
/// worktree's top directory.
pub fn fork_into_worktree(
    store: &Store,
    parent: &SessionMeta,
    at: ForkAt,
    name: Option<&str>,
) -> Result<(Writer, PathBuf)> {
    if let Some(name) = name {
        store.check_name(name, None)?;
    }
    let (pin, mut state, inherited) = match at {
        ForkAt::Head => at_head(store, parent)?,
        cut => at_cut(store, parent, cut)?,
    };
    let cwd = Path::new(&parent.cwd);
    if !cwd.is_dir() {
        return Err(AgentError::MissingCwd(parent.cwd.clone()));
    }
    let worktree = crate::snapshot::worktree_at(store, &parent.id, cwd, pin.seq)
        .map_err(|why| AgentError::Refused(format!("no worktree for the fork: {why}")))?;
    if let Some(name) = name {
        state.push(Body::Name {
            name: Some(name.to_owned()),
        });
    }
    let writer = store.fork(pin, &worktree.1.to_string_lossy(), state, Some(inherited))?;
    Ok((writer, worktree.0))
}

/// Names the session `id` (not open elsewhere): the name rule is checked first.
pub fn rename(store: &Store, id: &str, name: &str) -> Result<()> {
    store.check_name(name, Some(id))?;
    store.writer(id)?.append(Body::Name {
        name: Some(name.to_owned()),
    })?;
    Ok(())
}

/// Where a fork pins, the state it starts with, and what it inherits.
type ForkPoint = (hotl_log::Pin, Vec<Body>, Inherited);

/// The head needs no projection: the cached summary knows the tip, the modes and the todos, so
/// forking costs the same whatever the parent's size.
fn at_head(store: &Store, parent: &SessionMeta) -> Result<ForkPoint> {
    if parent.turns == 0 {
        return Err(AgentError::NothingToFork(parent.id.clone()));
    }
    check_ancestors(store, parent)?;
    let pin = store.pin(&parent.id, parent.last_seq, parent.complete_end)?;
    let inherited = Inherited {
        turns: parent.turns,
        first_message: parent.first_message.clone(),
    };
    Ok((pin, hotl_view::fork_state(parent, true), inherited))
}

fn at_cut(store: &Store, parent: &SessionMeta, at: ForkAt) -> Result<ForkPoint> {
    // The parent's checkpoint gives its boundaries and state without reading its history;
    // the pin's offset is then found by reading lines only up to the cut.
    if let Some(view) = crate::session::checkpoint_view(store, &parent.id) {
        let cut = cut_of(&view, at)?;
        let offset = store.offset_through(&parent.id, cut.boundary.seq)?;
        let pin = store.pin(&parent.id, cut.boundary.seq, offset)?;
        let inherited = Inherited {
            turns: cut.boundary.turns as u64,
            first_message: view.state.first_message.clone(),
        };
        return Ok((
            pin,
            hotl_view::fork_state(&view.state, cut.at_head),
            inherited,
        ));
    }
    let lineage = store.lineage(&parent.id)?;
    for p in &lineage.problems {
        if let LineageProblem::MissingAncestor { ancestor, child } = p {
            return Err(missing(ancestor, child));
        }
    }
    let view = View::of(&lineage);
    let cut = cut_of(&view, at)?;
    let offset = lineage.offset_for(cut.boundary.seq);
    let pin = store.pin(&parent.id, cut.boundary.seq, offset)?;
    let inherited = Inherited {
        turns: cut.boundary.turns as u64,
        first_message: view.state.first_message.clone(),
    };
    Ok((
        pin,
        hotl_view::fork_state(&view.state, cut.at_head),
        inherited,
    ))
}

/// Where `at` cuts `view`.
fn cut_of(view: &View, at: ForkAt) -> Result<hotl_view::Cut> {
    Ok(match at {
        ForkAt::Turns(n) => view.cut_after_turns(n)?,
        ForkAt::Items(n) => view.cut_after_items(n)?,
        ForkAt::Message(seq) => view.cut_after_message(seq)?,
        ForkAt::Head => view.cut_at_head()?,
    })
}

/// Walks the parent chain through the metadata cache: every ancestor must still be on disk.
fn check_ancestors(store: &Store, meta: &SessionMeta) -> Result<()> {
    let mut child = meta.clone();
    for _ in 0..hotl_log::MAX_ANCESTORS {
        let Some(parent) = &child.parent else {
            return Ok(());
        };
        if !store.exists(&parent.session) {
            return Err(missing(&parent.session, &child.id));
        }
        child = store.meta(&parent.session)?;
    }
    Ok(())
}

fn missing(ancestor: &str, child: &str) -> AgentError {
    AgentError::MissingAncestor {
        ancestor: ancestor.to_owned(),
        child: child.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_name_writes_nothing() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(home.path().join("home"));
        let cwd = home.path();
        for bad in ["123", "a/b", "@last", " padded"] {
            let err = NewSession::new(&store, cwd, "demo", crate::standard_tools())
                .unwrap()
                .with_name(Some(bad))
                .unwrap_err();
            assert!(
                err.to_string().contains("invalid session name"),
                "{bad}: {err}"
            );
        }
        assert!(store.list().unwrap().is_empty());
        let first = NewSession::new(&store, cwd, "demo", crate::standard_tools())
            .unwrap()
            .with_name(Some("work"))
            .unwrap();
        let session = first.create().unwrap();
        assert_eq!(
            session.id(),
            first.id(),
            "the id given out is the one written"
        );
        drop(session);
        let err = NewSession::new(&store, cwd, "demo", crate::standard_tools())
            .unwrap()
            .with_name(Some("work"))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("the name \"work\" is taken by session {}", first.id())
        );
        assert_eq!(store.list().unwrap().len(), 1);
    }
}
