//! `hotl sessions fork`: a new root session seeded with another's history, nothing copied.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use hotl_log::{Body, Inherited, LineageProblem, SessionMeta, Store};
use hotl_view::View;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Start a new session from another's history; prints the new session's id
#[derive(Debug, Args)]
pub struct ForkArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// Fork at the end of the N-th completed turn instead of the head
    #[arg(long, value_name = "N", conflicts_with = "keep")]
    pub keep_turns: Option<usize>,
    /// Fork after N transcript items; must land on a turn boundary
    #[arg(long, value_name = "N")]
    pub keep: Option<usize>,
    /// Name for the fork (the parent's name is never inherited)
    #[arg(short = 'n', long, value_name = "NAME")]
    pub name: Option<String>,
}

pub fn run(ctx: &Ctx, args: &ForkArgs) -> Result<ExitCode, CliError> {
    let parent = ctx.resolve(&args.session)?;
    let writer = create_fork(
        &ctx.store,
        &parent,
        args.keep_turns,
        args.keep,
        args.name.as_deref(),
    )?;
    let mut out = ctx.out();
    writeln!(out, "{}", writer.id())?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

/// Forks `parent` at its head, after `keep_turns` completed turns, or after `keep` items, and
/// names the fork. The parent is only read.
pub fn create_fork(
    store: &Store,
    parent: &SessionMeta,
    keep_turns: Option<usize>,
    keep: Option<usize>,
    name: Option<&str>,
) -> Result<hotl_log::Writer, CliError> {
    if let Some(name) = name {
        ensure_name_free(store, name, None)?;
    }
    let (pin, mut state, inherited) = match (keep_turns, keep) {
        (None, None) => fork_point_at_head(store, parent)?,
        _ => fork_point_at_cut(store, parent, keep_turns, keep)?,
    };
    if let Some(name) = name {
        state.push(Body::Name {
            name: Some(name.to_owned()),
        });
    }
    Ok(store.fork(pin, &parent.cwd, state, Some(inherited))?)
}

/// Where a fork pins, the state it starts with, and what it inherits.
type ForkPoint = (hotl_log::Pin, Vec<Body>, Inherited);

/// The head needs no projection: the cached summary knows the tip, the modes and the todos, so
/// forking costs the same whatever the parent's size.
fn fork_point_at_head(store: &Store, parent: &SessionMeta) -> Result<ForkPoint, CliError> {
    if parent.turns == 0 {
        return Err(CliError::user(format!(
            "session {} has no user message to fork from",
            parent.id
        )));
    }
    check_ancestors(store, parent)?;
    let pin = store.pin(&parent.id, parent.last_seq, parent.complete_end)?;
    let inherited = Inherited {
        turns: parent.turns,
        first_message: parent.first_message.clone(),
    };
    Ok((pin, hotl_view::fork_state(parent, true), inherited))
}

fn fork_point_at_cut(
    store: &Store,
    parent: &SessionMeta,
    keep_turns: Option<usize>,
    keep: Option<usize>,
) -> Result<ForkPoint, CliError> {
    let lineage = store.lineage(&parent.id)?;
    refuse_missing(&lineage.problems)?;
    let view = View::of(&lineage);
    let cut = match (keep_turns, keep) {
        (Some(n), _) => view.cut_after_turns(n)?,
        (None, Some(n)) => view.cut_after_items(n)?,
        (None, None) => view.cut_at_head()?,
    };
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

/// Walks the parent chain through the metadata cache: every ancestor must still be on disk.
fn check_ancestors(store: &Store, meta: &SessionMeta) -> Result<(), CliError> {
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

fn refuse_missing(problems: &[LineageProblem]) -> Result<(), CliError> {
    for p in problems {
        if let LineageProblem::MissingAncestor { ancestor, child } = p {
            return Err(missing(ancestor, child));
        }
    }
    Ok(())
}

fn missing(ancestor: &str, child: &str) -> CliError {
    CliError::user(format!(
        "cannot fork: ancestor {ancestor} (parent of {child}) is missing"
    ))
    .hint("`hotl sessions check` lists what the lineage lacks")
}

/// Names are unique among live sessions.
pub fn ensure_name_free(store: &Store, name: &str, except: Option<&str>) -> Result<(), CliError> {
    hotl_log::validate_name(name)?;
    let taken = store
        .list()?
        .into_iter()
        .find(|m| !m.dropped && m.name.as_deref() == Some(name) && Some(m.id.as_str()) != except);
    match taken {
        Some(m) => Err(CliError::user(format!(
            "the name {name:?} is taken by session {}",
            m.id
        ))),
        None => Ok(()),
    }
}
