//! The fold tool in a real loop against the fake provider: a build loop that fails three times
//! and then passes, folded by the model; the log, the view and the request bytes after it.

use hotl_agent::{Context, NewSession, Policy, Provider, Session, Settings};
use hotl_fakellm::{Config, FakeLlm, Fault, Reply, Tokenizer};
use hotl_log::{Body, Store};
use hotl_view::Item;
use hotl_wire::{Dialect, HttpProvider};

/// A session in a temporary project, talking to a scripted fake provider.
pub(crate) struct Fixture {
    pub(crate) _dir: tempfile::TempDir,
    pub(crate) project: std::path::PathBuf,
    pub(crate) store: Store,
    pub(crate) fake: FakeLlm,
    pub(crate) provider: Provider,
    pub(crate) settings: Settings,
    pub(crate) runtime: tokio::runtime::Runtime,
    pub(crate) session: Session,
}

impl Fixture {
    /// `long_prompt`: a long AGENTS.md, so the frozen prefix is above the minimum cacheable
    /// length. `allow`: tools the headless policy allows.
    pub(crate) fn new(replies: Vec<Reply>, long_prompt: bool, allow: &[&str]) -> Fixture {
        let agents = long_prompt.then(|| "Keep the build green. ".repeat(300));
        Fixture::with_agents(replies, agents.as_deref(), allow)
    }

    /// A fixture whose project has `agents` as its AGENTS.md (joined to the frozen prompt).
    pub(crate) fn with_agents(
        replies: Vec<Reply>,
        agents: Option<&str>,
        allow: &[&str],
    ) -> Fixture {
        let dir = tempfile::tempdir().expect("temp");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).expect("project");
        if let Some(agents) = agents {
            std::fs::write(project.join("AGENTS.md"), agents).expect("agents");
        }
        let store = Store::new(dir.path().join("home"));
        let fake = FakeLlm::start(Config::scripted(replies).with_tokenizer(Tokenizer::Bytes4))
            .expect("fake");
        let provider = Provider::Http(
            HttpProvider::new(Dialect::Anthropic, &fake.base_url(), Some("k".into()))
                .expect("http"),
        );
        let mut settings = Settings::new("claude-sonnet-5");
        settings.policy = Policy {
            allow: allow.iter().map(|t| (*t).to_owned()).collect(),
            ..Policy::default()
        };
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        let session = new_session(&store, &project);
        Fixture {
            _dir: dir,
            project,
            store,
            fake,
            provider,
            settings,
            runtime,
            session,
        }
    }

    /// The process dies and a new one opens the session: the old session (and its tree lock)
    /// is dropped first, as a dead process's would be.
    pub(crate) fn restart(&mut self) {
        let id = self.release();
        self.open(&id);
    }

    /// Lets go of the session (and its tree lock), as a process that exits does; returns its
    /// id. A placeholder in another home stands in until [`Fixture::open`].
    pub(crate) fn release(&mut self) -> String {
        let id = self.session.id().to_owned();
        let elsewhere = Store::new(self._dir.path().join("elsewhere"));
        let placeholder = new_session(&elsewhere, &self.project);
        drop(std::mem::replace(&mut self.session, placeholder));
        id
    }

    /// Opens session `id` of the store as the fixture's session.
    pub(crate) fn open(&mut self, id: &str) {
        self.session =
            Session::open(&self.store, id, hotl_agent::standard_tools()).expect("opened");
    }

    /// Submits `prompt` and lets the process "die" after `ms` milliseconds: the turn's future
    /// is dropped mid-flight, leaving the log as a killed process would.
    fn die_during(&mut self, prompt: &str, ms: u64) {
        let cx = self.cx();
        let died = self.runtime.block_on(async {
            tokio::time::timeout(
                std::time::Duration::from_millis(ms),
                self.session.submit(prompt, &cx),
            )
            .await
        });
        assert!(died.is_err(), "the turn was still running");
    }

    /// Makes the project a git repository; `false` (said on stderr) when git is not there.
    fn git_init(&self) -> bool {
        let done = std::process::Command::new("git")
            .arg("-C")
            .arg(&self.project)
            .args(["init", "-q"])
            .status()
            .is_ok_and(|s| s.success());
        hotl_testkit::require("git", done).expect("git, under CI")
    }

    /// The first fold record of the session's lineage.
    fn the_fold(&self) -> hotl_log::Fold {
        self.store
            .lineage(self.session.id())
            .expect("lineage")
            .records
            .iter()
            .find_map(|r| match &r.body {
                Body::Fold(fold) => Some((**fold).clone()),
                _ => None,
            })
            .expect("folded")
    }

    /// Puts `question` to the archived thread `handle`.
    pub(crate) fn ask(&mut self, handle: &str, question: &str) -> hotl_agent::Result<String> {
        let cx = self.cx();
        self.runtime
            .block_on(self.session.ask(handle, question, &cx))
    }

    pub(crate) fn submit(&mut self, prompt: &str) -> hotl_agent::TurnOutcome {
        let cx = self.cx();
        self.runtime
            .block_on(self.session.submit(prompt, &cx))
            .expect("turn")
    }

    /// What a turn runs with: the fixture's provider and settings as they are now.
    pub(crate) fn cx(&self) -> Context {
        Context::new(self.provider.clone(), self.settings.clone())
    }

    /// Searches the session's archive.
    pub(crate) fn recall(&self, query: &str, mode: Option<&str>) -> String {
        self.runtime
            .block_on(self.session.recall(query, mode, 5))
            .expect("recall")
    }
}

/// A new session in `project`, written now.
pub(crate) fn new_session(store: &Store, project: &std::path::Path) -> Session {
    NewSession::new(
        store,
        project,
        "claude-sonnet-5",
        hotl_agent::standard_tools(),
    )
    .and_then(|new| new.create())
    .expect("session")
}

/// A step running `cmd` with bash.
pub(crate) fn bash(cmd: &str) -> Reply {
    Reply::text("").with_tool("bash", serde_json::json!({ "command": cmd }))
}

pub(crate) const NOTE: &str = "changed: src/main.rs creates cfg before use\nlearned: the build needs Config::default(); caveat: only on Linux\ndecided and rejected: kept the old API, rejected a new constructor\nopen: run the integration tests\nwhere: src/main.rs:3";

#[test]
fn a_build_loop_folded_by_the_model_leaves_a_note_a_handle_and_a_valid_log() {
    let mut f = Fixture::new(
        vec![
            bash("echo 'error[E0425]: cannot find value cfg' >&2; exit 101"),
            bash("echo 'error[E0425] again' >&2; exit 101"),
            bash("echo 'error: linker failed' >&2; exit 1"),
            bash("echo 'Finished dev profile'"),
            Reply::text("").with_tool("fold", serde_json::json!({ "since": "t3", "note": NOTE })),
            Reply::text("The build passes; I folded the loop into one note."),
            Reply::text("Next I will run the integration tests."),
        ],
        true,
        &["bash"],
    );
    let first = f.submit("make the build pass");
    assert_eq!(
        first.text,
        "The build passes; I folded the loop into one note."
    );
    f.submit("what next?");

    // The log holds one fold over the loop, from the message that started it.
    let lineage = f.store.lineage(f.session.id()).expect("lineage");
    let folds: Vec<_> = lineage
        .records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Fold(fold) => Some((**fold).clone()),
            _ => None,
        })
        .collect();
    assert_eq!(folds.len(), 1);
    let fold = &folds[0];
    assert_eq!(fold.since, 3);
    assert_eq!(fold.handle.len(), 4);
    // The view shows the note where the span stood; the fold call and its result stay visible.
    let view = f.session.view();
    assert!(
        view.items
            .iter()
            .any(|i| matches!(i, Item::Folded { handle, .. } if *handle == fold.handle))
    );
    assert!(view.anomalies.is_empty(), "{:?}", view.anomalies);

    // The request after the fold carries the folded block instead of the loop's outputs, and
    // the next turn's request reminds the open items.
    let sent = f.fake.captured();
    let after_fold = sent[5].body_text();
    assert!(
        after_fold.contains(&format!("<folded handle={} span=t3..", fold.handle)),
        "{after_fold}"
    );
    assert!(after_fold.contains("[t3] make the build pass"));
    assert!(
        !after_fold.contains("linker failed"),
        "the loop's outputs are folded away"
    );
    let next_turn = sent[6].body_text();
    assert!(
        next_turn.contains("open: run the integration tests</reminder>"),
        "{next_turn}"
    );

    // The request after the fold still reads the prefix before `since` from cache: it extends
    // the previous request up to the last breakpoint before the folded span.
    let usage_after_fold = answer_usages(&lineage.records)[5];
    assert!(usage_after_fold.cache_read > 0, "{usage_after_fold:?}");
    let json =
        |i: usize| -> serde_json::Value { serde_json::from_slice(&sent[i].body).expect("json") };
    let (before, after) = (json(4), json(5));
    assert_eq!(
        without_marks(&before["system"]),
        without_marks(&after["system"])
    );
    assert_eq!(before["tools"], after["tools"]);
}

#[test]
fn a_fold_with_an_incomplete_note_is_an_error_the_model_can_fix() {
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool(
                "fold",
                serde_json::json!({ "since": "t3", "note": "changed: x" }),
            ),
            Reply::text("I will write the whole note next time."),
        ],
        false,
        &[],
    );
    f.submit("fold");
    let second = f.fake.captured()[1].body_text();
    assert!(second.contains("the note lacks learned:"), "{second}");
    let records = f.store.lineage(f.session.id()).expect("lineage").records;
    assert!(records.iter().all(|r| !matches!(r.body, Body::Fold(_))));
}

#[test]
fn touching_a_file_an_archived_thread_touched_cues_the_next_request() {
    let read = || Reply::text("").with_tool("read", serde_json::json!({ "path": "config.rs" }));
    let mut f = Fixture::new(
        vec![
            read(),
            Reply::text("").with_tool("fold", serde_json::json!({ "since": "t3", "note": NOTE })),
            Reply::text("Folded."),
            read(),
            Reply::text("Read it again."),
        ],
        false,
        &[],
    );
    std::fs::write(f.project.join("config.rs"), "pub struct Config;\n").expect("file");
    f.submit("look at the config");
    f.submit("and once more");
    let sent = f.fake.captured();
    assert!(
        !sent[3].body_text().contains("<cue>"),
        "no cue before the file is touched again"
    );
    let cued = sent[4].body_text();
    assert!(
        cued.contains("config.rs was also touched by the archived thread"),
        "{cued}"
    );
}

#[test]
fn touching_a_file_a_fork_touched_cues_the_next_request_with_the_forks_handle() {
    let read = || Reply::text("").with_tool("read", serde_json::json!({ "path": "config.rs" }));
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "check the config" })),
            // The fork reads the file and reports.
            read(),
            Reply::text("the config is fine"),
            Reply::text("The fork says the config is fine."),
            // Later the parent reads the same file.
            read(),
            Reply::text("Read it myself."),
        ],
        false,
        &[],
    );
    std::fs::write(f.project.join("config.rs"), "pub struct Config;\n").expect("file");
    f.submit("have a fork check the config");
    let handle = f
        .store
        .read_start(&f.store.tree_children(f.session.id()).expect("tree")[0])
        .expect("start")
        .delegated
        .and_then(|d| d.handle)
        .expect("handle");
    f.submit("now read it yourself");
    let sent = f.fake.captured();
    let cued = sent.last().expect("requests").body_text();
    assert!(
        cued.contains(&format!(
            "config.rs was also touched by the archived thread {handle} (fork: check the config)"
        )),
        "{cued}"
    );
}

#[test]
fn ask_answers_from_the_archived_thread_and_only_the_answer_enters_the_main_line() {
    let mut f = Fixture::new(
        vec![
            bash("echo 'linker failed: needs libfoo on Linux' >&2; exit 1"),
            bash("echo 'Finished'"),
            Reply::text("").with_tool("fold", serde_json::json!({ "since": "t3", "note": NOTE })),
            Reply::text("Folded."),
            // The asked thread first strays into a tool call, which is answered with an
            // error; asked again, it answers in words.
            bash("uname"),
            Reply::text("Linux: the linker needed libfoo there."),
        ],
        true,
        &["bash"],
    );
    f.submit("fix the build");
    let handle = first_handle(&f.session);
    let answer = f
        .runtime
        .block_on(
            f.session
                .ask(&handle, "which platform needed libfoo?", &f.cx()),
        )
        .expect("answered");
    assert_eq!(answer, "Linux: the linker needed libfoo there.");
    let sent = f.fake.captured();
    assert_eq!(
        sent.len(),
        6,
        "four main requests, the ask, the ask after its stray call"
    );
    let retry = sent[5].body_text();
    assert!(
        retry.contains("tools are unavailable while answering a question"),
        "{retry}"
    );
    let ask_request: serde_json::Value = serde_json::from_slice(&sent[4].body).expect("json");
    let main_request: serde_json::Value = serde_json::from_slice(&sent[3].body).expect("json");
    assert_eq!(
        ask_request["tools"], main_request["tools"],
        "tools unchanged"
    );
    assert_eq!(
        ask_request.get("tool_choice"),
        main_request.get("tool_choice")
    );
    let text = ask_request.to_string();
    assert!(
        text.contains("needs libfoo on Linux"),
        "the thread's own context, unfolded"
    );
    assert!(text.contains("Tools are unavailable for this question"));
    assert!(
        !text.contains("<folded handle="),
        "the thread sees itself as it was"
    );
    let asks: Vec<_> = f
        .store
        .lineage(f.session.id())
        .expect("lineage")
        .records
        .into_iter()
        .filter_map(|r| match r.body {
            Body::Ask {
                handle: h, usage, ..
            } => Some((h, usage)),
            _ => None,
        })
        .collect();
    assert_eq!(asks.len(), 1);
    assert_eq!(asks[0].0, handle);
    let usage = asks[0].1.expect("usage");
    assert!(
        usage.cache_read > 0,
        "the thread's prefix is read from cache: {usage:?}"
    );
}

#[test]
fn the_fork_tool_runs_a_child_from_this_view_and_returns_its_report() {
    let mut f = Fixture::new(
        vec![
            // The parent calls fork beside another call: the other is answered first.
            Reply::text("")
                .with_tool(
                    "fork",
                    serde_json::json!({ "task": "summarise the build logs" }),
                )
                .with_tool("bash", serde_json::json!({ "command": "echo side" })),
            Reply::text("child report: the logs show one linker error"),
            Reply::text("done: the fork found one linker error"),
            Reply::text("the linker error was in the wombat module"),
        ],
        true,
        &["bash"],
    );
    let outcome = f.submit("look into the logs");
    assert_eq!(outcome.text, "done: the fork found one linker error");

    let sent = f.fake.captured();
    assert_eq!(sent.len(), 3);
    let body =
        |i: usize| -> serde_json::Value { serde_json::from_slice(&sent[i].body).expect("json") };
    let (parent, child, back) = (body(0), body(1), body(2));
    // The child's first request extends the parent's: the same system, tools and messages,
    // then the fork call and the task answering it.
    assert_eq!(parent["tools"], child["tools"]);
    assert_eq!(
        without_marks(&parent["system"]),
        without_marks(&child["system"])
    );
    let pm = parent["messages"].as_array().expect("messages");
    let cm = child["messages"].as_array().expect("messages");
    assert_eq!(without_marks(&pm[0]), without_marks(&cm[0]));
    let child_text = child.to_string();
    assert!(
        child_text.contains("You are a fork of this session"),
        "{child_text}"
    );
    assert!(child_text.contains("Task: summarise the build logs"));
    assert!(
        child_text.contains("side"),
        "the other call was answered first"
    );
    // The report comes back to the parent as the fork call's result, with a handle.
    let back_text = back.to_string();
    assert!(
        back_text.contains("child report: the logs show one linker error"),
        "{back_text}"
    );
    assert!(back_text.contains("fork "), "{back_text}");
    // The child is a delegated session in the parent's tree (not a root), known by the
    // handle the parent was given, and it reads the parent's cached prefix.
    assert_eq!(
        f.store.session_ids().expect("ids"),
        vec![f.session.id().to_owned()]
    );
    let children = f.store.tree_children(f.session.id()).expect("tree");
    assert_eq!(children.len(), 1, "{children:?}");
    let child_id = children[0].clone();
    assert!(
        f.store
            .layout()
            .log(&child_id)
            .starts_with(f.store.layout().tree_dir(f.session.id()))
    );
    assert_eq!(f.store.root_of(&child_id), f.session.id());
    let meta = f.store.meta(&child_id).expect("meta");
    assert!(meta.delegated);
    assert_eq!(meta.display_title(), "summarise the build logs");
    let delegation = f
        .store
        .read_start(&child_id)
        .expect("start")
        .delegated
        .expect("delegated");
    assert_eq!(delegation.by, f.session.id());
    assert_eq!(delegation.description, "summarise the build logs");
    let handle = delegation.handle.expect("a handle");
    assert!(
        back_text.contains(&format!("fork {handle} ")),
        "{back_text}"
    );
    let child_usage = answer_usages(f.store.lineage(&child_id).expect("lineage").own())[0];
    assert!(child_usage.cache_read > 0, "{child_usage:?}");

    // The fork's work is archived: recall finds it under its handle, with no model call...
    let hits = f.recall("linker error report", None);
    assert!(
        hits.starts_with(&format!("[{handle} t")) && hits.contains("child report"),
        "{hits}"
    );
    assert_eq!(f.fake.captured().len(), 3);
    // ...and ask puts a question to the fork's own context: its last request read back from
    // cache, plus the question; only the answer comes back.
    let answer = f
        .runtime
        .block_on(
            f.session
                .ask(&handle, "which module had the linker error?", &f.cx()),
        )
        .expect("answered");
    assert_eq!(answer, "the linker error was in the wombat module");
    let sent = f.fake.captured();
    let asked = sent[3].body_text();
    assert!(
        asked.contains("child report: the logs show one linker error")
            && asked.contains("which module had the linker error?"),
        "{asked}"
    );
    let asked: serde_json::Value = serde_json::from_slice(&sent[3].body).expect("json");
    assert_eq!(
        asked["tools"], child["tools"],
        "the tools block is unchanged"
    );
    let ask_usage = f
        .store
        .lineage(f.session.id())
        .expect("lineage")
        .own()
        .iter()
        .find_map(|r| match &r.body {
            Body::Ask {
                handle: h, usage, ..
            } if *h == handle => *usage,
            _ => None,
        })
        .expect("an ask record under the fork's handle");
    assert!(ask_usage.cache_read > 0, "{ask_usage:?}");
    // An unknown handle names the ones there are.
    let err = f.ask("zzzz", "?").expect_err("no such thread");
    assert!(err.to_string().contains(&handle), "{err}");
}

#[test]
fn cancelling_during_a_fork_stops_the_child_cleanly_then_the_parent() {
    let slow = Fault::split_seeded(7, 8).with_chunk_delay_ms(100);
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "read everything" })),
            // The child streams slowly; the user cancels while it does.
            Reply::text("still reading the sources ".repeat(20)).with_fault(slow),
        ],
        false,
        &[],
    );
    let (tx, cancel) = tokio::sync::watch::channel(false);
    let cx = f.cx().with_cancel(cancel);
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(400));
        let _ = tx.send(true);
        tx
    });
    let outcome = f
        .runtime
        .block_on(f.session.submit("fork it", &cx))
        .expect("turn");
    drop(stopper.join());
    assert!(outcome.cancelled);
    // The parent's fork call is answered, and its run is recorded as cancelled.
    let parent = f.store.lineage(f.session.id()).expect("lineage");
    let answer = parent
        .own()
        .iter()
        .find_map(|r| match &r.body {
            Body::ToolResult {
                content, is_error, ..
            } => Some((hotl_log::plain_text(content), *is_error)),
            _ => None,
        })
        .expect("the fork call is answered");
    assert!(answer.1 && answer.0.contains("was cancelled"), "{answer:?}");
    let last = |records: &[hotl_log::Record]| {
        records.iter().rev().find_map(|r| match &r.body {
            Body::Run { state, .. } => Some(state.clone()),
            _ => None,
        })
    };
    assert_eq!(last(parent.own()), Some(hotl_log::RunState::Cancelled));
    // The child closed its own log: its run is cancelled too, nothing left open.
    let child = f.store.tree_children(f.session.id()).expect("tree")[0].clone();
    let child_log = f.store.lineage(&child).expect("child");
    assert_eq!(last(child_log.own()), Some(hotl_log::RunState::Cancelled));
}

#[test]
fn a_fork_left_running_by_a_dead_process_is_resumed_and_reports_back() {
    let stall = Fault::split_seeded(3, 4).with_chunk_delay_ms(2_000);
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "survey the logs" })),
            // The child's first answer never arrives: the process dies while it streams.
            Reply::text("a reply nobody will see").with_fault(stall),
            // After the restart: the child finishes its task...
            Reply::text("survey done: two warnings"),
            // ...and the parent carries on with the report.
            Reply::text("The fork found two warnings."),
        ],
        false,
        &[],
    );
    f.die_during("survey", 500);
    let parent_id = f.session.id().to_owned();
    f.restart();
    assert!(f.session.has_open_turn());
    let cx = f.cx();
    let outcome = f
        .runtime
        .block_on(f.session.recover(&cx))
        .expect("recovered")
        .expect("an open turn");
    assert_eq!(outcome.text, "The fork found two warnings.");
    // The fork call is answered with the resumed child's report, not "interrupted".
    let sent = f.fake.captured();
    let last = sent.last().expect("requests").body_text();
    assert!(
        last.contains("survey done: two warnings") && !last.contains("interrupted"),
        "{last}"
    );
    // The child's log is finished too: its run closed, nothing open.
    let child = f.store.tree_children(&parent_id).expect("tree")[0].clone();
    let records = f.store.lineage(&child).expect("child").records;
    let states: Vec<hotl_log::RunState> = records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Run { state, .. } => Some(state.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        states.last(),
        Some(&hotl_log::RunState::Finished),
        "{states:?}"
    );
}

#[test]
fn forks_a_dead_process_left_running_side_by_side_are_resumed_side_by_side() {
    let stall = || Fault::split_seeded(3, 4).with_chunk_delay_ms(2_000);
    let slow = Fault::split_at([5, 10, 15]).with_chunk_delay_ms(1_000);
    let mut f = Fixture::new(
        vec![
            Reply::text("")
                .with_tool("fork", serde_json::json!({ "task": "task A" }))
                .with_tool("fork", serde_json::json!({ "task": "task B" })),
            // The process dies while both children stream.
            Reply::text("nobody sees A")
                .matching("task A")
                .with_fault(stall()),
            Reply::text("nobody sees B")
                .matching("task B")
                .with_fault(stall()),
            // After the restart: A answers slowly, B at once.
            Reply::text("A done").matching("task A").with_fault(slow),
            Reply::text("B done").matching("task B"),
            Reply::text("Both are back."),
        ],
        false,
        &[],
    );
    f.die_during("go", 800);
    let parent_id = f.session.id().to_owned();
    f.restart();
    let cx = f.cx();
    let outcome = f
        .runtime
        .block_on(f.session.recover(&cx))
        .expect("recovered")
        .expect("an open turn");
    assert_eq!(outcome.text, "Both are back.");
    let last = f.fake.captured().last().expect("requests").body_text();
    let (a, b) = (last.find("A done"), last.find("B done"));
    assert!(a.is_some() && b.is_some(), "both reports: {last}");
    assert!(a < b, "in the calls' order: {last}");
    // B ended while A still streamed: they ran at once.
    let ended = |said: &str| {
        f.store
            .tree_children(&parent_id)
            .expect("tree")
            .iter()
            .find_map(|id| {
                f.store
                    .read(id)
                    .expect("log")
                    .records
                    .into_iter()
                    .find_map(|r| match &r.body {
                        Body::Assistant { content, .. }
                            if hotl_log::plain_text(content) == said =>
                        {
                            Some(r.ts.clone())
                        }
                        _ => None,
                    })
            })
            .expect("the child's answer")
    };
    assert!(ended("B done") < ended("A done"));
}

#[test]
fn a_file_written_then_changed_by_bash_is_one_touch_and_not_stale_after_the_fold() {
    let mut f = Fixture::new(
        vec![
            Reply::text("Nothing to do yet."),
            Reply::text("").with_tool(
                "write",
                serde_json::json!({ "path": "main.rs", "content": "fn main() {}\n" }),
            ),
            Reply::text("").with_tool(
                "bash",
                serde_json::json!({ "command": "echo 'fn helper() {}' >> main.rs" }),
            ),
            Reply::text("").with_tool("fold", serde_json::json!({ "since": "t7", "note": NOTE })),
            Reply::text("Folded."),
        ],
        false,
        &["bash", "write"],
    );
    f.submit("look around");
    f.submit("write the program");
    let fold = f.the_fold();
    // The write's touch and the diff's change are one entry, with what bash left.
    let main = f.project.join("main.rs");
    let listed: Vec<&str> = fold.files.iter().map(|t| t.path.as_str()).collect();
    assert_eq!(listed, [main.display().to_string()], "{:?}", fold.files);
    let left = std::fs::read(&main).expect("main.rs");
    let left_hash = blake3::hash(&left).to_hex();
    assert_eq!(fold.files[0].hash.as_deref(), Some(&left_hash[..32]));
    let hits = f.recall("helper", Some("exact"));
    assert!(!hits.contains("stale"), "{hits}");
}

/// The process dies mid-fork, and the process that recovers dies too, while the resumed child
/// streams: the turn (and the child's) stays open, and the third process finishes both.
#[test]
fn a_recovery_that_dies_leaves_the_turn_open_for_the_next() {
    let stall = || Fault::split_seeded(3, 4).with_chunk_delay_ms(2_000);
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "survey the logs" })),
            Reply::text("a reply nobody will see").with_fault(stall()),
            Reply::text("again nobody sees this").with_fault(stall()),
            Reply::text("survey done: two warnings"),
            Reply::text("The fork found two warnings."),
        ],
        false,
        &[],
    );
    f.die_during("survey", 500);
    f.restart();
    let recover = |f: &mut Fixture, ms: Option<u64>| {
        let cx = f.cx();
        let recovery = f.session.recover(&cx);
        f.runtime.block_on(async {
            match ms {
                Some(ms) => tokio::time::timeout(std::time::Duration::from_millis(ms), recovery)
                    .await
                    .ok(),
                None => Some(recovery.await),
            }
        })
    };
    assert!(recover(&mut f, Some(500)).is_none(), "recovery died midway");
    f.restart();
    assert!(f.session.has_open_turn());
    let outcome = recover(&mut f, None)
        .expect("ran to the end")
        .expect("recovered")
        .expect("an open turn");
    assert_eq!(outcome.text, "The fork found two warnings.");
    let records = f.store.lineage(f.session.id()).expect("lineage").records;
    let states: Vec<hotl_log::RunState> = records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Run { state, .. } => Some(state.clone()),
            _ => None,
        })
        .collect();
    use hotl_log::RunState::{Finished, Interrupted, Started};
    assert_eq!(
        states,
        [
            Started,
            Interrupted,
            Started,
            Interrupted,
            Started,
            Finished
        ],
        "each death is marked, and the run goes on"
    );
    assert!(!f.session.has_open_turn());
}

#[test]
fn a_root_fork_of_a_session_left_mid_fork_recovers_with_the_call_answered_interrupted() {
    let stall = Fault::split_seeded(3, 4).with_chunk_delay_ms(2_000);
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "survey the logs" })),
            Reply::text("a reply nobody will see").with_fault(stall),
            Reply::text("The fork was interrupted; I will survey myself."),
        ],
        false,
        &[],
    );
    f.die_during("survey", 500);
    // `hotl sessions fork` of the parent at its head: a root of its own, with the open call
    // but not the child (which lives in the parent's tree).
    let parent = f.session.id().to_owned();
    let meta = f.store.meta(&parent).expect("meta");
    let pin = f
        .store
        .pin(&parent, meta.last_seq, meta.complete_end)
        .expect("pin");
    let writer = f
        .store
        .fork(pin, &f.project.display().to_string(), vec![], None)
        .expect("fork");
    let mut forked =
        Session::from_writer(&f.store, writer, hotl_agent::standard_tools()).expect("session");
    let cx = f.cx();
    let outcome = f
        .runtime
        .block_on(forked.recover(&cx))
        .expect("recovered")
        .expect("an open turn");
    assert_eq!(
        outcome.text,
        "The fork was interrupted; I will survey myself."
    );
    let last = f.fake.captured().last().expect("requests").body_text();
    assert!(last.contains("interrupted: may have partly run"), "{last}");
}

#[test]
fn a_forks_changes_are_not_counted_in_a_later_span() {
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "make c" })),
            bash("echo c > c.txt"),
            Reply::text("c made"),
            Reply::text("The fork made c."),
        ],
        false,
        &["bash"],
    );
    f.submit("have a fork make c");
    let since = f.store.meta(f.session.id()).expect("meta").last_seq + 2;
    f.fake.push_replies([
        bash("echo b > b.txt"),
        Reply::text("").with_tool(
            "fold",
            serde_json::json!({ "since": format!("t{since}"), "note": NOTE }),
        ),
        Reply::text("Folded."),
    ]);
    f.submit("now make b");
    let fold = f.the_fold();
    let listed: Vec<&str> = fold.files.iter().map(|t| t.path.as_str()).collect();
    assert_eq!(
        listed,
        [f.project.join("b.txt").display().to_string()],
        "only what the span did"
    );
}

#[test]
fn two_forks_of_one_step_run_side_by_side_from_one_prefix() {
    // A's answer streams slowly: run one after the other, B would ask only once A is done.
    let slow = hotl_fakellm::Fault::split_at([5, 10, 15]).with_chunk_delay_ms(1_000);
    let mut f = Fixture::new(
        vec![
            Reply::text("")
                .with_tool("fork", serde_json::json!({ "task": "task A" }))
                .with_tool("fork", serde_json::json!({ "task": "task B" })),
            Reply::text("A done").matching("task A").with_fault(slow),
            Reply::text("B done").matching("task B"),
            Reply::text("both done"),
        ],
        false,
        &[],
    );
    assert_eq!(f.submit("go").text, "both done");
    let sent = f.fake.captured();
    assert_eq!(sent.len(), 4);
    // The fake validates every request like the real services: a call without a result is a
    // 400. Each child answers its sibling's call with the same placeholder and gets its own
    // task last, so the two requests differ only in that last message.
    let child = |task: &str| {
        sent[1..3]
            .iter()
            .filter_map(|r| r.json())
            .find(|b| b.to_string().contains(task))
            .expect("a child's request")
    };
    let (a, b) = (
        without_marks(&child("task A")),
        without_marks(&child("task B")),
    );
    let (a, b) = (
        a["messages"].as_array().unwrap(),
        b["messages"].as_array().unwrap(),
    );
    assert_eq!(a.len(), b.len());
    assert_eq!(a[..a.len() - 1], b[..b.len() - 1], "one shared prefix");
    for last in [&a[a.len() - 1], &b[b.len() - 1]] {
        assert!(
            last.to_string()
                .contains("the parent session runs this call"),
            "{last}"
        );
    }
    assert!(
        !b[b.len() - 1].to_string().contains("A done"),
        "B did not wait for A"
    );
    // Both read the prefix the parent's request cached, and B ended while A still streamed.
    let children = f.store.tree_children(f.session.id()).expect("tree");
    assert_eq!(children.len(), 2, "{children:?}");
    let answer = |id: &String| {
        let log = f.store.lineage(id).expect("lineage");
        let own = log.own();
        let usage = answer_usages(own)[0];
        let text = own
            .iter()
            .find_map(|r| match &r.body {
                Body::Assistant { content, .. } => {
                    Some((hotl_log::plain_text(content), r.ts.clone()))
                }
                _ => None,
            })
            .expect("an answer");
        (text, usage)
    };
    let ends: Vec<_> = children.iter().map(answer).collect();
    for (_, usage) in &ends {
        assert!(usage.cache_read > 0, "{usage:?}");
    }
    let at = |said: &str| {
        ends.iter()
            .find(|((text, _), _)| text == said)
            .map(|((_, ts), _)| ts.clone())
            .expect("the child's answer")
    };
    assert!(
        at("B done") < at("A done"),
        "B finished first: they ran at once"
    );
    let back = sent[3].body_text();
    let (ia, ib) = (back.find("A done").unwrap(), back.find("B done").unwrap());
    assert!(
        ia < ib,
        "the reports answer the calls in their order: {back}"
    );
}

/// The usage each model answer in `records` recorded, in order.
fn answer_usages(records: &[hotl_log::Record]) -> Vec<hotl_log::Usage> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Assistant { usage: Some(u), .. } => Some(*u),
            _ => None,
        })
        .collect()
}

/// The handle of the first folded span in the session's view.
fn first_handle(session: &Session) -> String {
    session
        .view()
        .items
        .iter()
        .find_map(|i| match i {
            Item::Folded { handle, .. } => Some(handle.clone()),
            _ => None,
        })
        .expect("folded")
}

/// A request body with its cache markers removed, to compare prefixes.
fn without_marks(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => m
            .iter()
            .filter(|(k, _)| *k != "cache_control")
            .map(|(k, v)| (k.clone(), without_marks(v)))
            .collect(),
        serde_json::Value::Array(a) => a.iter().map(without_marks).collect(),
        other => other.clone(),
    }
}

#[test]
fn recall_finds_a_caveat_only_the_folded_span_held() {
    let mut f = Fixture::new(
        vec![
            bash("echo 'warning: the cache directory must be on a local disk' >&2; exit 1"),
            bash("echo 'Finished'"),
            Reply::text("").with_tool("fold", serde_json::json!({ "since": "t3", "note": NOTE })),
            Reply::text("Folded."),
            Reply::text("").with_tool(
                "recall",
                serde_json::json!({ "query": "cache directory disk" }),
            ),
            Reply::text("The cache directory must be on a local disk."),
        ],
        false,
        &["bash"],
    );
    f.submit("set up the build");
    let outcome = f.submit("where may the cache directory live?");
    assert_eq!(outcome.text, "The cache directory must be on a local disk.");
    let sent = f.fake.captured();
    let after_recall = sent.last().expect("requests").body_text();
    let handle = first_handle(&f.session);
    assert!(
        after_recall.contains(&format!("[{handle} t")),
        "{after_recall}"
    );
    assert!(
        after_recall.contains("must be on a local disk"),
        "{after_recall}"
    );
}

#[test]
fn a_fold_right_after_a_long_loop_still_reads_the_history_before_since_from_cache() {
    let bash = |i: usize| {
        Reply::text("").with_tool(
            "bash",
            serde_json::json!({ "command": format!("echo step {i}; seq 1 80") }),
        )
    };
    let mut replies: Vec<Reply> = (0..10).map(bash).collect();
    replies.push(Reply::text("Set up."));
    replies.extend((10..22).map(bash));
    replies.push(
        Reply::text("").with_tool("fold", serde_json::json!({ "since": "t28", "note": NOTE })),
    );
    replies.push(Reply::text("Folded the loop."));
    let mut f = Fixture::new(replies, true, &["bash"]);
    f.submit("set things up");
    // The second turn's user message is t28: after the run start (t27) that follows the first
    // turn's 26 records (session, run, message, the tree before the first step, 10 steps of
    // two, answer, run end).
    let second_user = f.store.meta(f.session.id()).expect("meta").last_seq + 2;
    assert_eq!(second_user, 28, "the fold's since names this message");
    f.submit("now the long loop");
    let lineage = f.store.lineage(f.session.id()).expect("lineage");
    let usages = answer_usages(&lineage.records);
    let first = usages[0];
    let after_fold = *usages.last().expect("the answer after the fold");
    assert!(
        lineage
            .records
            .iter()
            .any(|r| matches!(r.body, Body::Fold(_))),
        "the loop was folded"
    );
    // The whole first turn, not just the frozen prefix, is read back from cache after the
    // fold replaced the loop: every step before `since` wrote an entry within the 20-block
    // lookback of the folded request.
    assert!(
        after_fold.cache_read > first.cache_write + 500,
        "after the fold: {after_fold:?}; first request: {first:?}"
    );
}

#[test]
fn a_step_with_many_parallel_calls_still_reads_the_previous_write() {
    let mut many = Reply::text("Checking everything at once.");
    for i in 0..25 {
        many = many.with_tool(
            "bash",
            serde_json::json!({ "command": format!("echo {i}; seq 1 30") }),
        );
    }
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool("bash", serde_json::json!({ "command": "seq 1 200" })),
            many,
            Reply::text("All 25 checks pass."),
        ],
        true,
        &["bash"],
    );
    f.submit("check everything");
    let usages = answer_usages(&f.store.lineage(f.session.id()).expect("lineage").records);
    let (second, last) = (usages[1], usages[2]);
    // The last request comes 50 blocks after the second request's write, out of reach of one
    // marker's 20-block lookback: a marker on that earlier write keeps it readable.
    assert!(
        last.cache_read >= second.cache_read + second.cache_write,
        "second: {second:?}; last: {last:?}"
    );
}

#[test]
fn a_fold_stores_the_working_tree_diff_its_span_made() {
    fold_stores_the_diff(true);
}

#[test]
fn outside_git_a_fold_stores_the_diff_from_content_hash_snapshots() {
    fold_stores_the_diff(false);
}

/// A span that edits one file and deletes another, folded: the fold's diff blob holds both,
/// from git tree snapshots (`git`) or content-hash manifests (no repository).
fn fold_stores_the_diff(git_repo: bool) {
    let mut f = Fixture::new(
        vec![
            Reply::text("Nothing to do yet."),
            bash("echo 'fn main() {}' > main.rs"),
            bash("echo 'fn helper() {}' >> main.rs && rm -f old.txt"),
            Reply::text("").with_tool("fold", serde_json::json!({ "since": "t7", "note": NOTE })),
            Reply::text("Folded."),
            Reply::text("It added a helper."),
        ],
        false,
        &["bash"],
    );
    let project = f.project.clone();
    if git_repo && !f.git_init() {
        return;
    }
    std::fs::write(f.project.join("old.txt"), "to be removed\n").expect("file");
    f.submit("look around");
    let since = f.store.meta(f.session.id()).expect("meta").last_seq + 2;
    assert_eq!(since, 7, "the second turn's message is the fold's since");
    f.submit("write the program");
    let records = f.store.lineage(f.session.id()).expect("lineage").records;
    let trees: Vec<&str> = records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Snapshot { tree } => Some(tree.as_str()),
            _ => None,
        })
        .collect();
    assert!(!trees.is_empty());
    assert!(
        trees.iter().all(|t| t.starts_with("manifest:") != git_repo),
        "{trees:?}"
    );
    let fold = f.the_fold();
    let hash = fold.diff_blob.expect("a diff was stored");
    let patch = String::from_utf8(f.store.blobs().get(&hash).expect("blob")).expect("utf-8");
    assert!(patch.contains("+fn helper() {}"), "{patch}");
    assert!(patch.contains("-to be removed"), "{patch}");
    // bash reports no file touches; the fold lists what the diff shows, with what it left,
    // named as tools name them.
    let listed: Vec<(String, &str, bool)> = fold
        .files
        .iter()
        .map(|t| (t.path.clone(), t.op.as_str(), t.hash.is_some()))
        .collect();
    let named = |name: &str| project.join(name).display().to_string();
    assert_eq!(
        listed,
        [
            (named("main.rs"), "changed", true),
            (named("old.txt"), "delete", false)
        ]
    );
    // So recall can say when that changed since.
    let fresh = f.recall("helper", Some("exact"));
    assert!(!fresh.contains("stale"), "{fresh}");
    std::fs::write(project.join("main.rs"), "fn main() { changed() }\n").expect("edit");
    let stale = f.recall("helper", Some("exact"));
    assert!(stale.contains("stale: main.rs changed since"), "{stale}");
    // And so does an answer from that thread.
    let answer = f.ask(&fold.handle, "what changed?").expect("answered");
    assert_eq!(answer, "It added a helper.\n\nstale: main.rs changed since");
    // The user's own index is untouched.
    assert!(
        !git_repo
            || !project.join(".git/index").exists()
            || std::process::Command::new("git")
                .arg("-C")
                .arg(&project)
                .args(["diff", "--cached", "--quiet"])
                .status()
                .is_ok_and(|s| s.success())
    );
}

/// A span's changes run from the tree before its first file-changing step to the tree at its
/// end: a file the user wrote between turns and a file the fold's own step wrote (beside the
/// fold call) are not the span's, while a file a tool only read and bash changed is, with the
/// content the span left (not what the fold's own step made of it).
#[test]
fn a_fold_counts_only_what_its_span_changed() {
    fold_counts_only_its_span(false);
}

#[test]
fn in_git_a_fold_counts_only_what_its_span_changed() {
    fold_counts_only_its_span(true);
}

fn fold_counts_only_its_span(git_repo: bool) {
    let mut f = Fixture::new(
        vec![
            bash("echo a > a.txt"),
            Reply::text("Wrote a."),
            Reply::text("").with_tool("read", serde_json::json!({ "path": "a.txt" })),
            bash("echo more >> a.txt && echo c > c.txt"),
            bash("echo late > late.txt && echo later >> a.txt")
                .with_tool("fold", serde_json::json!({ "since": "t11", "note": NOTE })),
            Reply::text("Folded."),
        ],
        false,
        &["bash"],
    );
    if git_repo && !f.git_init() {
        return;
    }
    f.submit("write a");
    assert_eq!(f.store.meta(f.session.id()).expect("meta").last_seq + 2, 11);
    std::fs::write(f.project.join("b.txt"), "by hand\n").expect("the user edits a file");
    f.submit("look at a, then add c");
    let fold = f.the_fold();
    let named = |name: &str| f.project.join(name).display().to_string();
    let listed: Vec<(String, &str, Option<String>)> = fold
        .files
        .iter()
        .map(|t| (t.path.clone(), t.op.as_str(), t.hash.clone()))
        .collect();
    let hash = |text: &str| Some(hotl_agent::content_hash(text.as_bytes()));
    assert_eq!(
        listed,
        [
            (named("a.txt"), "changed", hash("a\nmore\n")),
            (named("c.txt"), "changed", hash("c\n"))
        ]
    );
    let blob = fold.diff_blob.expect("a diff was stored");
    let patch = String::from_utf8(f.store.blobs().get(&blob).expect("blob")).expect("utf-8");
    assert!(patch.contains("+more") && patch.contains("+c"), "{patch}");
    assert!(
        !patch.contains("by hand") && !patch.contains("late"),
        "{patch}"
    );
}

/// A fork whose process died mid-step and was never resumed ends with a call nobody
/// answered: asking it answers that call in the request, so the provider accepts it.
#[test]
fn asking_a_fork_left_mid_step_answers_its_open_call() {
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "survey the logs" })),
            Reply::text("").with_tool("bash", serde_json::json!({ "command": "sleep 5" })),
            Reply::text("The survey was cut short."),
        ],
        false,
        &["bash"],
    );
    f.die_during("survey", 1_000);
    f.restart();
    let child = f.store.tree_children(f.session.id()).expect("tree")[0].clone();
    let handle = match &f.store.read(&child).expect("child").records[0].body {
        Body::Session(start) => start
            .delegated
            .as_ref()
            .and_then(|d| d.handle.clone())
            .expect("a handle"),
        _ => panic!("a session record first"),
    };
    let answer = f.ask(&handle, "how far did it get?").expect("answered");
    assert_eq!(answer, "The survey was cut short.");
    let sent = f.fake.captured();
    let body = sent.last().expect("the ask").json().expect("json");
    let messages = body["messages"].as_array().expect("messages");
    let last = &messages[messages.len() - 1]["content"];
    assert_eq!(last[0]["type"], "tool_result", "{last}");
    assert!(
        last[0]["content"].to_string().contains("interrupted"),
        "{last}"
    );
    assert!(last.to_string().contains("how far did it get?"), "{last}");
}

/// A fork can fold inside itself; `ask` takes that inner handle from the parent, answering
/// from the child's context as it stood when the inner span ended.
#[test]
fn ask_reaches_a_fold_a_fork_made_inside_itself() {
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "survey the logs" })),
            Reply::text("").with_tool("read", serde_json::json!({ "path": "a.txt" })),
            Reply::text("").with_tool("fold", serde_json::json!({ "since": "t11", "note": NOTE })),
            Reply::text("survey done"),
            Reply::text("The fork is done."),
            Reply::text("It held quokka."),
        ],
        false,
        &[],
    );
    std::fs::write(f.project.join("a.txt"), "quokka\n").expect("file");
    f.submit("survey");
    let child = f.store.tree_children(f.session.id()).expect("tree")[0].clone();
    let inner = f
        .store
        .read(&child)
        .expect("child")
        .records
        .iter()
        .find_map(|r| match &r.body {
            Body::Fold(fold) => Some(fold.handle.clone()),
            _ => None,
        })
        .expect("the fork folded inside itself");
    let answer = f.ask(&inner, "what did a.txt hold?").expect("answered");
    assert_eq!(answer, "It held quokka.");
    let sent = f.fake.captured();
    let asked = sent.last().expect("the ask").body_text();
    assert!(asked.contains("quokka") && asked.contains("what did a.txt hold?"));
    assert!(
        !asked.contains("survey done"),
        "the thread ends where its span ended"
    );
    let unknown = f.ask("ffff", "?").expect_err("no such handle");
    assert!(unknown.to_string().contains(&inner), "{unknown}");
}

/// Handles are unique in the whole tree: a fork reopened later knows the folds its root made
/// after the fork was cut, which its own view never shows.
#[test]
fn a_fork_knows_the_handles_its_root_folded_after_the_cut() {
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "survey the logs" })),
            Reply::text("survey done"),
            Reply::text("The fork is done."),
            Reply::text("Second turn done."),
        ],
        false,
        &[],
    );
    f.submit("survey");
    let second = f.submit("and then");
    assert_eq!(second.text, "Second turn done.");
    let user = f
        .session
        .view()
        .items
        .iter()
        .rev()
        .find_map(|i| match i {
            Item::User { seq, .. } => Some(*seq),
            _ => None,
        })
        .expect("the second turn's message");
    let fold = f
        .runtime
        .block_on(f.session.fold(user, None, NOTE))
        .expect("folded");
    let child = f.store.tree_children(f.session.id()).expect("tree")[0].clone();
    // The root's process is gone; the fork is opened on its own.
    f.release();
    f.open(&child);
    assert!(
        !f.session
            .view()
            .items
            .iter()
            .any(|i| matches!(i, Item::Folded { .. })),
        "the fork's view stops at its cut"
    );
    let taken = f.session.taken_handles().expect("handles");
    assert!(
        taken.contains(&fold.handle),
        "{taken:?} lacks {}",
        fold.handle
    );
}

/// A fold a revert left behind is no archived thread: touching its files cues nothing.
#[test]
fn a_reverted_fold_cues_nothing() {
    let read = || Reply::text("").with_tool("read", serde_json::json!({ "path": "config.rs" }));
    let mut f = Fixture::new(
        vec![
            read(),
            Reply::text("").with_tool("fold", serde_json::json!({ "since": "t3", "note": NOTE })),
            Reply::text("Folded."),
            read(),
            Reply::text("Read it again."),
        ],
        false,
        &[],
    );
    std::fs::write(f.project.join("config.rs"), "pub struct Config;\n").expect("file");
    f.submit("look at the config");
    // Another process reverts the whole turn, fold and all.
    let id = f.release();
    f.store
        .writer(&id)
        .expect("writer")
        .append(Body::Revert { to: 1 })
        .expect("reverted");
    f.open(&id);
    f.submit("and once more");
    let sent = f.fake.captured();
    let last = sent.last().expect("requests").body_text();
    assert!(
        last.contains("Read it") || last.contains("config.rs"),
        "{last}"
    );
    assert!(!last.contains("<cue>"), "{last}");
}

/// What a fork's child spends counts in the turn that forked it; a fork that fails still
/// tells the model where its work is archived.
#[test]
fn a_forks_spending_counts_in_the_turn_and_a_failed_fork_names_its_handle() {
    let mut f = Fixture::new(
        vec![
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "count the files" })),
            Reply::text("three files"),
            Reply::text("The fork counted three."),
            Reply::text("").with_tool("fork", serde_json::json!({ "task": "count again" })),
            Reply::text("never delivered").with_fault(Fault::status(400)),
            Reply::text("The second fork failed."),
        ],
        false,
        &[],
    );
    let outcome = f.submit("count the files with a fork");
    assert_eq!(outcome.text, "The fork counted three.");
    assert_eq!(f.session.totals.requests, 3);
    assert_eq!(
        outcome.usage, f.session.totals.usage,
        "the child's request counts in the turn"
    );
    let before = f.session.totals;
    let outcome = f.submit("count again with a fork");
    assert_eq!(outcome.text, "The second fork failed.");
    let children = f.store.tree_children(f.session.id()).expect("tree");
    let failed = children
        .iter()
        .filter_map(|c| f.store.read_start(c).ok()?.delegated)
        .find(|d| d.description == "count again")
        .and_then(|d| d.handle)
        .expect("the failed fork's handle");
    let sent = f.fake.captured();
    let report = sent.last().expect("requests").body_text();
    assert!(
        report.contains("the fork failed") && report.contains(&format!("archived under {failed}")),
        "{report}"
    );
    assert!(f.session.totals.requests > before.requests);
}

/// A capped output's middle is not in the model's view, and one recall away: the main line's
/// outputs are searched whole, from their blobs, with no fold needed and no model call.
#[test]
fn the_middle_of_a_capped_output_is_one_recall_away() {
    let mut f = Fixture::new(
        vec![
            // The word is spelled out by the shell, so only the output holds it whole.
            bash("seq 1 300 | sed \"s/^/pass /; 150s/.*/the detail code is oka$(echo pi)-7731/\""),
            Reply::text("All passed."),
        ],
        false,
        &["bash"],
    );
    f.submit("run the tests");
    let answer_request = f.fake.captured()[1].body_text();
    assert!(answer_request.contains("pass 1\\n"), "the head is shown");
    assert!(
        !answer_request.contains("okapi-7731"),
        "the middle is left out"
    );
    let calls = f.fake.captured().len();
    let hits = f.recall("okapi-7731", Some("exact"));
    assert!(hits.contains("the detail code is okapi-7731"), "{hits}");
    assert!(
        hits.starts_with("[t"),
        "the main line has no handle: {hits}"
    );
    assert_eq!(f.fake.captured().len(), calls, "no model call");
}
