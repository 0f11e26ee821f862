//! Forks: a fork's view is its parent's at the cut followed by its own; its state is chosen by
//! `fork_state`.

use hotl_log::{Body, Modes, SessionMeta, Todo};
use hotl_testkit::{FIXED_ID, LogBuilder, TestHome, TestResult};
use hotl_view::{Cut, Item, View, fork_state};

use crate::common::{originals, user_seqs};

fn todo(text: &str) -> Todo {
    Todo {
        text: text.into(),
        status: "pending".into(),
    }
}

fn parent_meta() -> SessionMeta {
    SessionMeta {
        name: Some("alpha".into()),
        title: Some("Fix the parser".into()),
        first_message: Some("please fix".into()),
        modes: Modes {
            permission: Some("accept-edits".into()),
            plan: true,
            effort: None,
            sandbox: None,
            model: Some("claude-opus-9".into()),
            provider: Some("anthropic https://api.anthropic.com/v1".into()),
        },
        todos: vec![todo("a")],
        ..SessionMeta::default()
    }
}

#[test]
fn fork_state_gives_modes_always_todos_at_the_head_and_a_fork_title() {
    let parent = parent_meta();
    let mode = Body::Mode {
        permission: Some("accept-edits".into()),
        plan: Some(true),
        effort: None,
        sandbox: None,
        model: Some("claude-opus-9".into()),
        provider: Some("anthropic https://api.anthropic.com/v1".into()),
    };
    let title = Body::title("Fix the parser (fork)".into());
    assert_eq!(
        fork_state(&parent, true),
        [
            mode.clone(),
            Body::Todos {
                items: vec![todo("a")],
            },
            title.clone(),
        ]
    );
    assert_eq!(fork_state(&parent, false), [mode, title]);
}

#[test]
fn fork_state_never_carries_the_name() {
    for at_head in [true, false] {
        let state = fork_state(&parent_meta(), at_head);
        assert!(
            state.iter().all(|b| !matches!(b, Body::Name { .. })),
            "{state:?}"
        );
    }
}

#[test]
fn fork_state_titles_from_the_first_message_and_skips_what_is_unset() {
    let parent = SessionMeta {
        first_message: Some("please fix".into()),
        ..SessionMeta::default()
    };
    assert_eq!(
        fork_state(&parent, true),
        [Body::title("please fix (fork)".into())]
    );
    assert!(fork_state(&SessionMeta::default(), true).is_empty());
}

#[test]
fn a_fork_of_a_fork_is_not_titled_fork_twice() {
    let parent = SessionMeta {
        title: Some("Fix the parser (fork)".into()),
        ..SessionMeta::default()
    };
    assert_eq!(
        fork_state(&parent, false),
        [Body::title("Fix the parser (fork)".into())]
    );
}

/// A parent with two turns, a name, modes and todos; returns (home, id).
fn parent() -> TestResult<(TestHome, String)> {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.record(Body::Name {
        name: Some("alpha".into()),
    });
    log.record(Body::Mode {
        permission: Some("accept-edits".into()),
        plan: None,
        effort: None,
        sandbox: None,
        model: None,
        provider: None,
    });
    log.turn("one");
    log.todos(&[("ship it", "pending")]);
    log.turn("two");
    let id = home.import(&log)?;
    Ok((home, id))
}

/// Forks `parent` at `cut` the way `hotl sessions fork` does; appends `then`.
fn fork(home: &TestHome, parent: &str, cut: Cut, then: &[Body]) -> TestResult<String> {
    let lineage = home.store.lineage(parent)?;
    let view = View::of(&lineage);
    let pin = home.store.pin(
        parent,
        cut.boundary.seq,
        lineage.offset_for(cut.boundary.seq),
    )?;
    let mut writer = home
        .store
        .fork(pin, "/p", fork_state(&view.state, cut.at_head), None)?;
    for body in then {
        writer.append(body.clone())?;
    }
    Ok(writer.id().to_owned())
}

#[test]
fn a_fork_sees_the_parent_at_the_cut_then_its_own() -> TestResult {
    let (home, parent) = parent()?;
    let parent_view = View::of(&home.store.lineage(&parent)?);
    let cut = parent_view.cut_after_turns(1)?;
    let child = fork(&home, &parent, cut, &[Body::user_text("three")])?;

    let lineage = home.store.lineage(&child)?;
    assert!(lineage.problems.is_empty(), "{:?}", lineage.problems);
    let view = View::of(&lineage);
    let own_user = lineage.own().last().expect("the appended message").seq;
    assert_eq!(view.items[..4], parent_view.items[..cut.boundary.items]);
    assert_eq!(
        view.items[4..],
        [Item::User {
            seq: own_user,
            content: vec![hotl_log::Block::text("three")],
        }]
    );
    assert_eq!(user_seqs(&view.items), [5, own_user]);
    assert!(own_user > cut.boundary.seq);

    // Its state: the parent's modes, a fork title, no todos (not at the head), never the name.
    assert_eq!(view.state.name, None);
    assert_eq!(view.state.title.as_deref(), Some("one (fork)"));
    assert!(view.state.todos.is_empty());
    assert_eq!(view.state.modes.permission.as_deref(), Some("accept-edits"));
    Ok(())
}

#[test]
fn a_fork_at_the_head_takes_the_todos() -> TestResult {
    let (home, parent) = parent()?;
    let parent_view = View::of(&home.store.lineage(&parent)?);
    let cut = parent_view.cut_at_head()?;
    assert!(cut.at_head);
    let child = fork(&home, &parent, cut, &[])?;
    let view = View::of(&home.store.lineage(&child)?);
    assert_eq!(view.items, parent_view.items);
    assert_eq!(view.state.todos[0].text, "ship it");
    assert_eq!(view.state.name, None);
    Ok(())
}

#[test]
fn a_fork_of_a_fork_cut_in_inherited_history() -> TestResult {
    let (home, root) = parent()?;
    let root_view = View::of(&home.store.lineage(&root)?);
    let mid = fork(
        &home,
        &root,
        root_view.cut_at_head()?,
        &[Body::user_text("mid's own")],
    )?;
    let mid_view = View::of(&home.store.lineage(&mid)?);
    let early = mid_view.cut_after_turns(1)?;
    let leaf = fork(&home, &mid, early, &[Body::user_text("leaf's own")])?;
    let lineage = home.store.lineage(&leaf)?;
    let view = View::of(&lineage);
    let leaf_user = lineage.own().last().expect("appended").seq;
    assert_eq!(
        originals(&view.items)[..early.boundary.items],
        originals(&root_view.items)[..early.boundary.items]
    );
    assert_eq!(user_seqs(&view.items), [5, leaf_user]);
    Ok(())
}

#[test]
fn a_fold_in_the_parent_after_the_cut_does_not_reach_the_fork() -> TestResult {
    let (home, parent) = parent()?;
    let parent_view = View::of(&home.store.lineage(&parent)?);
    let cut = parent_view.cut_after_turns(1)?;
    let child = fork(&home, &parent, cut, &[])?;
    {
        let mut writer = home.store.writer(&parent)?;
        writer.append(Body::Fold(Box::new(hotl_log::Fold {
            since: 5,
            until: 9,
            handle: "b2e4".into(),
            note: "n".into(),
            files: vec![],
            diff_blob: None,
        })))?;
    }
    let folded = View::of(&home.store.lineage(&parent)?);
    assert!(matches!(folded.items[0], Item::Folded { .. }));
    let view = View::of(&home.store.lineage(&child)?);
    assert_eq!(view.items, parent_view.items[..4]);
    Ok(())
}
