//! View checkpoints: a session reopens from its checkpoint and the records after it with the
//! view, status and context the whole log gives; a checkpoint that is damaged, truncated,
//! made for another session or left behind by an edited log is ignored, and the session opens
//! from its log.

use hotl_agent::{CheckpointState, checkpoint_state};
use hotl_fakellm::Reply;
use hotl_log::Body;
use hotl_view::{View, model_messages};

use crate::moves_fold::{Fixture, NOTE, bash};

/// The seq of the session's latest user message.
fn last_user(f: &Fixture) -> u64 {
    f.store
        .lineage(f.session.id())
        .expect("lineage")
        .records
        .iter()
        .rev()
        .find(|r| matches!(r.body, Body::User { .. }))
        .map(|r| r.seq)
        .expect("a user message")
}

/// Two turns folded one by one (the first ran a command), and a third left inline.
fn folded() -> Fixture {
    let mut f = Fixture::new(
        vec![
            bash("echo quokkaword"),
            Reply::text("First done."),
            Reply::text("Second done."),
            Reply::text("Third done."),
            Reply::text("Fourth done."),
            Reply::text("Fifth done."),
        ],
        false,
        &["bash"],
    );
    for (i, prompt) in ["first", "second"].into_iter().enumerate() {
        f.submit(prompt);
        let since = last_user(&f);
        f.runtime
            .block_on(f.session.fold(since, None, NOTE))
            .unwrap_or_else(|e| panic!("fold {i}: {e}"));
    }
    f.submit("third");
    f
}

/// What the model is sent, and where the session stands, as comparable text.
fn seen(f: &Fixture) -> String {
    let status = f.session.status(&f.settings);
    format!(
        "{}\n{:?}\n{}|{}|{:?}|{:?}\n{:?}",
        serde_json::to_string(&model_messages(f.session.view())).expect("serialises"),
        f.session.view().boundaries,
        status.context_used,
        status.todos,
        status.mode,
        f.session.last_model(),
        f.session.context_parts(),
    )
}

/// The same session opened from its log alone (its checkpoint moved aside meanwhile).
fn seen_from_log(f: &mut Fixture) -> String {
    let id = f.session.id().to_owned();
    let path = f.store.view_checkpoint_path(&id);
    let aside = path.with_extension("aside");
    std::fs::rename(&path, &aside).expect("a checkpoint to move aside");
    f.restart();
    assert!(!f.session.is_thin());
    let text = seen(f);
    let id = f.release();
    std::fs::rename(&aside, &path).expect("put back");
    f.open(&id);
    text
}

#[test]
fn a_session_reopens_from_its_checkpoint_as_its_log_would_open_it() {
    let mut f = folded();
    let id = f.session.id().to_owned();
    // The second fold wrote one; the third turn came after it.
    let CheckpointState::Current { after, .. } = checkpoint_state(&f.store, &id) else {
        panic!("{}", checkpoint_state(&f.store, &id));
    };
    assert!(after > 0, "the third turn is after the checkpoint");
    f.restart();
    assert!(f.session.is_thin(), "opened from the checkpoint");
    let from_checkpoint = seen(&f);
    assert_eq!(from_checkpoint, seen_from_log(&mut f));
    // The archived originals are still there for whoever needs them.
    let full = View::of(&f.store.lineage(&id).expect("lineage"));
    assert!(!full.is_thin() && f.session.view().is_thin());
    assert!(f.recall("quokkaword", Some("exact")).contains("quokkaword"));

    // A turn after it goes on as from the log: the request carries the notes, not the span.
    f.restart();
    let outcome = f.submit("fourth");
    assert_eq!(outcome.text, "Fourth done.");
    let last = f.fake.captured().last().expect("a request").body_text();
    assert!(last.contains("<folded handle=") && !last.contains("echo quokkaword"));
    f.restart();
    assert_eq!(seen(&f), seen_from_log(&mut f));
}

#[test]
fn a_damaged_foreign_or_stale_checkpoint_is_ignored_and_the_log_opens() {
    let mut f = folded();
    let id = f.session.id().to_owned();
    let path = f.store.view_checkpoint_path(&id);
    let good = std::fs::read(&path).expect("a checkpoint");
    let expected = seen_from_log(&mut f);
    let reopen = |f: &mut Fixture| {
        f.restart();
        assert!(!f.session.is_thin(), "opened from the log");
        assert_eq!(seen(f), expected);
    };

    std::fs::write(&path, b"{\"format\": \"hotl-view-checkpoint/1\", garbage").expect("write");
    assert!(
        matches!(checkpoint_state(&f.store, &id), CheckpointState::Ignored(why) if why.starts_with("damaged"))
    );
    reopen(&mut f);

    std::fs::write(&path, &good[..good.len() / 2]).expect("truncate");
    assert!(matches!(
        checkpoint_state(&f.store, &id),
        CheckpointState::Ignored(_)
    ));
    reopen(&mut f);

    // Another session's checkpoint under this one's name.
    let other = String::from_utf8(good.clone())
        .expect("utf-8")
        .replace(&id, "01M8V2Y1ZG0ZDXZPMJXBQ42XTP");
    std::fs::write(&path, other).expect("write");
    assert!(
        matches!(checkpoint_state(&f.store, &id), CheckpointState::Ignored(why) if why.contains("made for session"))
    );
    reopen(&mut f);

    // The log changed under it (bytes before its offset edited).
    std::fs::write(&path, &good).expect("restore");
    let log = f.store.layout().log(&id);
    let text = std::fs::read_to_string(&log).expect("log");
    std::fs::write(&log, text.replacen("First done.", "First DONE.", 1)).expect("edit");
    assert!(
        matches!(checkpoint_state(&f.store, &id), CheckpointState::Ignored(why) if why.contains("no longer matches"))
    );
    f.restart();
    assert!(!f.session.is_thin());
}

#[test]
fn a_log_appended_without_a_new_checkpoint_is_read_after_it() {
    let mut f = folded();
    // Records appended by a version that knows no checkpoints: the checkpoint covers a
    // prefix, and everything after it is read.
    f.submit("fourth");
    f.submit("fifth");
    let id = f.session.id().to_owned();
    let CheckpointState::Current { after, .. } = checkpoint_state(&f.store, &id) else {
        panic!("{}", checkpoint_state(&f.store, &id));
    };
    assert!(after >= 12, "three turns after it: {after}");
    f.restart();
    assert!(f.session.is_thin());
    let text = seen(&f);
    assert!(text.contains("fifth") && text.contains("Fifth done."));
    assert_eq!(text, seen_from_log(&mut f));
}

/// A fork cut at a turn finds its cut from the parent's checkpoint and its pin by reading the
/// log only up to the cut: the same fork the whole log gives.
#[test]
fn a_fork_cut_from_the_checkpoint_pins_where_the_log_would() {
    let mut f = folded();
    let id = f.release();
    let meta = f.store.meta(&id).expect("meta");
    let fork_at = |f: &Fixture, turns| {
        let writer = hotl_agent::fork(
            &f.store,
            &meta,
            hotl_agent::ForkAt::Turns(turns),
            None,
            &f.project.display().to_string(),
        )
        .expect("forked");
        let fork = writer.id().to_owned();
        drop(writer);
        let start = f.store.read_start(&fork).expect("start");
        let lineage = f.store.lineage(&fork).expect("lineage");
        (start.parent, View::of(&lineage).turns)
    };
    let from_checkpoint = [fork_at(&f, 1), fork_at(&f, 2)];
    assert!(matches!(
        checkpoint_state(&f.store, &id),
        CheckpointState::Current { .. }
    ));
    let path = f.store.view_checkpoint_path(&id);
    std::fs::remove_file(&path).expect("a checkpoint");
    let from_log = [fork_at(&f, 1), fork_at(&f, 2)];
    assert_eq!(from_checkpoint, from_log);
    assert_eq!(from_checkpoint[0].1, 1);
    assert_eq!(from_checkpoint[1].1, 2);
    f.open(&id);
}
