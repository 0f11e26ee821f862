//! The terminal UI: the real binary on a pseudo-terminal (script(1), sized with stty) against
//! the fake provider, its bytes read back through a terminal emulator with scrollback (vt100),
//! as a person would see them.

use std::process::{Command, Stdio};

use hotl_fakellm::{Config, FakeLlm, Fault, Reply};
use hotl_testkit::TestResult;

use crate::common::{Env, Holder, MODEL, has_flock, in_script};
use crate::terminal::{Shown, Step, drive};

use Step::{Idle, Shows, Type};

const COLS: u16 = 100;
const ROWS: u16 = 30;

impl Shown {
    fn count(&self, line: &str) -> usize {
        self.rows.iter().filter(|r| r.trim_end() == line).count()
    }

    fn has(&self, text: &str) -> bool {
        self.rows.iter().any(|r| r.contains(text))
    }

    /// Every row, for a failure's message.
    fn screen(&self) -> String {
        self.rows.join("\n")
    }
}

/// Runs `hotl <args>` in the terminal UI on a COLS×ROWS pseudo-terminal, taking `steps`, then
/// waiting for it to exit; `None` without script(1).
fn tui(env: &Env, fake: &FakeLlm, args: &[&str], steps: &[Step<'_>]) -> TestResult<Option<Shown>> {
    tui_with(env, fake, args, steps, &[])
}

/// [`tui`] with more environment variables for hotl.
fn tui_with(
    env: &Env,
    fake: &FakeLlm,
    args: &[&str],
    steps: &[Step<'_>],
    vars: &[(&str, &std::path::Path)],
) -> TestResult<Option<Shown>> {
    let mut hotl = env.command_against("anthropic", fake, MODEL);
    for (key, value) in vars {
        hotl.env(key, value);
    }
    hotl.args(args);
    let setup = format!("stty cols {COLS} rows {ROWS}; ");
    let Some(mut cmd) = in_script(env, &hotl, &setup)? else {
        return Ok(None);
    };
    cmd.env_remove("HOTL_NO_TUI").env("TERM", "xterm-256color");
    drive(cmd, (COLS, ROWS), steps).map(Some)
}

/// The UI is up: the strip is drawn.
const UP: Step<'static> = Shows("% ctx");
/// `/exit` (after an [`Idle`]: a turn still running would be cancelled by it).
const EXIT: Step<'static> = Type("/exit\r");

#[test]
fn a_500_line_answer_lands_in_the_scrollback_once_and_exit_restores_the_terminal() -> TestResult {
    let env = Env::new()?;
    let answer: String = (1..=500).map(|i| format!("answer line {i}\n")).collect();
    let fake = FakeLlm::start(Config::scripted([Reply::text(answer)]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[UP, Type("go\r"), Shows("answer line 500"), Idle, EXIT],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0, "{}", shown.screen());
    for i in 1..=500 {
        assert_eq!(
            shown.count(&format!("answer line {i}")),
            1,
            "line {i}: {}",
            shown.screen()
        );
    }
    assert_eq!(shown.count("› go"), 1);
    assert!(shown.has("resume with: hotl -r"), "{}", shown.screen());
    assert!(!shown.bytes.contains("\x1b[2J") && !shown.bytes.contains("\x1b[3J"));
    // The tests run with NO_COLOR=1: no colour is set, ever.
    assert!(
        !shown.bytes.contains("\x1b[38;") && !shown.bytes.contains("\x1b[48;"),
        "NO_COLOR is honoured"
    );
    let last_paste_off = shown
        .bytes
        .rfind("\x1b[?2004l")
        .ok_or("bracketed paste left on")?;
    let last_paste_on = shown.bytes.rfind("\x1b[?2004h").ok_or("never turned on")?;
    assert!(
        last_paste_off > last_paste_on,
        "bracketed paste is off at exit"
    );
    Ok(())
}

#[test]
fn an_approval_asks_in_a_modal_and_y_runs_the_call_and_n_refuses_it() -> TestResult {
    // `n` asks why; Enter sends no reason.
    for (answer, ran) in [("y", true), ("n\r", false)] {
        let env = Env::new()?;
        let fake = FakeLlm::start(Config::scripted([
            Reply::text("Running it.").with_tool(
                "bash",
                serde_json::json!({"command": "echo marker-$((40+2))"}),
            ),
            Reply::text("done"),
        ]))?;
        let Some(shown) = tui(
            &env,
            &fake,
            &["--sandbox", "off"],
            &[
                UP,
                Type("run it\r"),
                Shows("Allow?"),
                Type(answer),
                Shows("done"),
                Idle,
                EXIT,
            ],
        )?
        else {
            return Ok(());
        };
        assert_eq!(shown.code, 0);
        assert!(shown.has("Allow?"), "{}", shown.screen());
        assert_eq!(shown.has("marker-42"), ran, "{}", shown.screen());
    }
    Ok(())
}

#[test]
fn an_edits_approval_shows_its_change_first_and_a_no_carries_the_users_reason() -> TestResult {
    let env = Env::new()?;
    std::fs::write(
        std::path::Path::new(&env.cwd()).join("notes.txt"),
        "keep this line\nold wording here\n",
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Editing.").with_tool(
            "edit",
            serde_json::json!({"path": "notes.txt", "old": "old wording here", "new": "new wording here"}),
        ),
        Reply::text("done"),
    ]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("reword it\r"),
            // The change shows before the question is answered, not the call's JSON.
            Shows("- old wording here"),
            Shows("+ new wording here"),
            Shows("edit notes.txt. Allow?"),
            Type("n"),
            Shows("why not?"),
            Type("the old wording is required by the spec\r"),
            Shows("done"),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0, "{}", shown.screen());
    assert!(
        !shown.has(r#"{"path""#),
        "no JSON in the question: {}",
        shown.screen()
    );
    let on_disk = std::fs::read_to_string(std::path::Path::new(&env.cwd()).join("notes.txt"))?;
    assert!(on_disk.contains("old wording here"), "refused: {on_disk}");
    let last = crate::common::requests(&fake)?
        .pop()
        .ok_or("no request")?
        .to_string();
    assert!(
        last.contains("They said: the old wording is required by the spec"),
        "the model reads the reason: {last}"
    );
    Ok(())
}

#[test]
fn the_strip_shows_the_permission_mode_before_the_first_turn() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("done")]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &["--permission-mode", "accept-edits"],
        &[UP, Shows("· accept-edits"), EXIT],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0, "{}", shown.screen());
    assert!(
        !shown.has("· default"),
        "never shown as default: {}",
        shown.screen()
    );
    Ok(())
}

#[test]
fn esc_mid_stream_cancels_the_turn_and_keeps_the_session() -> TestResult {
    let env = Env::new()?;
    let long: String = (1..=400).map(|i| format!("slow line {i}\n")).collect();
    let fake = FakeLlm::start(Config::scripted([Reply::text(long), Reply::text("after")]))?;
    fake.push_fault(Fault::split_seeded(7, 40).with_chunk_delay_ms(20));
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("go\r"),
            Shows("slow line 1"),
            Type("\x1b"),
            Shows("cancelled; the session is kept"),
            Idle,
            Type("again\r"),
            Shows("slow line 400"),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0);
    assert!(
        shown.has("cancelled; the session is kept"),
        "{}",
        shown.screen()
    );
    let at = |text: &str| shown.rows.iter().position(|r| r.contains(text));
    let cancelled = at("cancelled; the session is kept").ok_or("not cancelled")?;
    let again = at("› again").ok_or("the next message is not shown")?;
    assert!(cancelled < again);
    let first_turn = &shown.rows[..cancelled];
    assert!(
        !first_turn.iter().any(|r| r.contains("slow line 400")),
        "the stream was cut: {}",
        shown.screen()
    );
    let cancelled = env
        .records(&env.only_session()?)?
        .iter()
        .any(|r| r["type"] == "run" && r["state"] == "cancelled");
    assert!(cancelled, "the run is recorded cancelled");
    Ok(())
}

#[test]
fn a_5000_line_paste_is_one_message() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("got it")]))?;
    let pasted: String = (1..=5000).map(|i| format!("pasted {i}\n")).collect();
    let paste = format!("\x1b[200~{pasted}\x1b[201~");
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[UP, Type(&paste), Type("\r"), Shows("got it"), Idle, EXIT],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0);
    assert!(shown.has("got it"), "{}", shown.screen());
    let users: Vec<String> = env
        .records(&env.only_session()?)?
        .iter()
        .filter(|r| r["type"] == "user")
        .map(|r| r["content"].to_string())
        .collect();
    assert_eq!(users.len(), 1, "one message");
    assert!(users[0].contains("pasted 1\\n") && users[0].contains("pasted 5000"));
    Ok(())
}

#[test]
fn help_lists_every_command_and_a_resume_shows_the_tail() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("first answer"),
        Reply::text("second answer"),
    ]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("hello\r"),
            Shows("first answer"),
            Idle,
            Type("/help\r"),
            Shows("send \"/text\" to the model"),
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    for command in [
        "/fold", "/recall", "/ask", "/compact", "/revert", "/copy", "/exit",
    ] {
        assert!(shown.has(command), "{command}");
    }
    // A new session's strip shows what it spent; a resumed one's says it is this run's.
    assert!(!shown.has("this run"), "{}", shown.screen());
    let Some(resumed) = tui(
        &env,
        &fake,
        &["-c"],
        &[
            UP,
            Type("more\r"),
            Shows("second answer"),
            Idle,
            Shows("this run"),
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(resumed.count("› hello"), 1, "{}", resumed.screen());
    assert!(resumed.has("first answer"));
    assert!(resumed.has("second answer"));
    Ok(())
}

#[test]
fn a_session_another_process_holds_opens_read_only_and_is_taken_over_when_it_exits() -> TestResult {
    if !hotl_testkit::require("flock(1)", has_flock())? {
        return Ok(());
    }
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("the answer"),
        Reply::text("the second answer"),
    ]))?;
    let Some(_) = tui(
        &env,
        &fake,
        &[],
        &[UP, Type("hello\r"), Shows("the answer"), Idle, EXIT],
    )?
    else {
        return Ok(());
    };
    let id = env.only_session()?;
    let holder = Holder::spawn(&env.home.join("sessions").join(format!("{id}.lock")))?;
    // The other process lets go after a while; until then typing is refused.
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(2500));
        drop(holder);
    });
    let Some(shown) = tui(
        &env,
        &fake,
        &["-r", &id],
        &[
            UP,
            Shows("read-only"),
            Type("typed while read-only\r"),
            // The message stays in the composer; Ctrl+C clears it.
            Type("\x03"),
            Type("/recall answer\r"),
            Shows("it is yours now"),
            Type("after the takeover\r"),
            Shows("the second answer"),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    release.join().map_err(|_| "the release thread panicked")?;
    assert_eq!(shown.code, 0);
    assert!(shown.has("read-only"), "{}", shown.screen());
    assert!(shown.has("the answer"));
    assert!(shown.has("it is yours now"), "{}", shown.screen());
    assert!(
        shown.has("› /recall answer"),
        "recall runs read-only: {}",
        shown.screen()
    );
    assert!(!shown.has("nothing can be sent"), "{}", shown.screen());
    assert!(shown.has("the second answer"), "{}", shown.screen());
    let users: Vec<String> = env
        .records(&id)?
        .iter()
        .filter(|r| r["type"] == "user")
        .map(|r| r["content"].to_string())
        .collect();
    assert_eq!(users.len(), 2, "{users:?}");
    assert!(!users.iter().any(|u| u.contains("typed while read-only")));
    assert!(users[1].contains("after the takeover"));
    Ok(())
}

/// tmux: the terminal a person would use. Every turn's marker is in the scrollback
/// (`capture-pane -S -`) exactly once, also across a window split and resizes; the composer
/// row stays at the bottom.
#[test]
fn in_tmux_each_turn_is_in_the_scrollback_once_across_splits_and_resizes() -> TestResult {
    let has_tmux = Command::new("tmux")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !hotl_testkit::require("tmux", has_tmux)? {
        return Ok(());
    }
    let env = Env::new()?;
    let replies = (1..=6).map(|i| {
        let body: String = (1..=30).map(|j| format!("turn {i} row {j}\n")).collect();
        Reply::text(format!("{body}MARKER-{i}"))
    });
    let fake = FakeLlm::start(Config::scripted(replies))?;
    let socket = env.root().join("tmux.sock");
    let tmux = |args: &[&str]| -> TestResult<String> {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(args)
            .output()?;
        if !out.status.success() {
            return Err(format!("tmux {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let hotl = env.agent_command();
    // env takes its -u options before any assignment.
    let mut line = String::from("env -u HOTL_NO_TUI");
    for (key, value) in hotl.get_envs() {
        if value.is_none() {
            line.push_str(&format!(" -u '{}'", key.to_string_lossy()));
        }
    }
    for (key, value) in hotl.get_envs() {
        if let Some(v) = value {
            line.push_str(&format!(
                " '{}={}'",
                key.to_string_lossy(),
                v.to_string_lossy()
            ));
        }
    }
    line.push_str(&format!(" '{}'", hotl.get_program().to_string_lossy()));
    for arg in hotl.get_args() {
        line.push_str(&format!(" '{}'", arg.to_string_lossy()));
    }
    line.push_str(&format!(
        " --provider anthropic --base-url '{}' --model {MODEL}",
        fake.base_url()
    ));
    let project = env.project.to_string_lossy().into_owned();
    let line = format!("{line}; echo exited $?; sleep 30");
    tmux(&[
        "new-session",
        "-d",
        "-x",
        "100",
        "-y",
        "30",
        "-s",
        "T",
        "-c",
        &project,
        &line,
    ])?;
    let wait_for = |text: &str| -> TestResult<String> {
        for _ in 0..100 {
            let screen = tmux(&["capture-pane", "-p", "-t", "T:0.0", "-S", "-"])?;
            if screen.contains(text) {
                return Ok(screen);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Err(format!("never saw {text:?}").into())
    };
    let result = (|| -> TestResult {
        wait_for("% ctx").map_err(|e| format!("{e}: {line}"))?;
        for i in 1..=6 {
            tmux(&["send-keys", "-t", "T:0.0", "-l", &format!("message {i}")])?;
            tmux(&["send-keys", "-t", "T:0.0", "Enter"])?;
            wait_for(&format!("MARKER-{i}"))?;
            // The window changes between turns: once the turn's live line is gone.
            let mut idle = false;
            for _ in 0..100 {
                let visible = tmux(&["capture-pane", "-p", "-t", "T:0.0"])?;
                if !visible.contains("Esc to interrupt") {
                    idle = true;
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            assert!(idle, "turn {i} never ended");
            match i {
                2 => {
                    tmux(&["split-window", "-t", "T:0", "-v", "-d"])?;
                }
                3 => {
                    tmux(&["kill-pane", "-t", "T:0.1"])?;
                }
                4 => {
                    tmux(&["resize-window", "-t", "T", "-x", "70", "-y", "24"])?;
                }
                _ => {}
            }
            std::thread::sleep(std::time::Duration::from_millis(300));
        }
        let all = wait_for("MARKER-6")?;
        for i in 1..=6 {
            let marker = format!("MARKER-{i}");
            let n = all.lines().filter(|l| l.trim_end() == marker).count();
            assert_eq!(n, 1, "{marker} {n} times:\n{all}");
            let sent = format!("› message {i}");
            assert_eq!(
                all.lines().filter(|l| l.trim_end() == sent).count(),
                1,
                "{sent}:\n{all}"
            );
        }
        let screen = tmux(&["capture-pane", "-p", "-t", "T:0.0"])?;
        let rows: Vec<&str> = screen.lines().collect();
        let strip = rows
            .iter()
            .rposition(|r| r.contains("% ctx"))
            .ok_or("no strip")?;
        assert!(
            rows[strip - 1].starts_with('›'),
            "the composer sits above the strip:\n{screen}"
        );
        Ok(())
    })();
    let _ = tmux(&["kill-server"]);
    result
}

#[test]
fn fork_then_tree_shows_the_lineage_and_enter_switches_back() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("root answer"),
        Reply::text("fork answer"),
    ]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("in the root\r"),
            Shows("root answer"),
            Idle,
            Type("/fork\r"),
            Shows("forked into"),
            Idle,
            Type("in the fork\r"),
            Shows("fork answer"),
            Idle,
            Type("/tree\r"),
            Shows("this session's tree"),
            Type("\x1b[A"),
            Type("\r"),
            Shows("resumed"),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0);
    assert!(shown.has("forked into"), "{}", shown.screen());
    assert!(
        shown.has("resumed"),
        "Enter on the root switches to it: {}",
        shown.screen()
    );
    assert_eq!(env.session_ids()?.len(), 2);
    Ok(())
}

const NOTE: &str = "changed: set up the cache\nlearned: the cache dir must be local (NFS is not supported)\ndecided and rejected: kept static linking\nopen: run the integration tests\nwhere: build.rs";

#[test]
fn fold_lands_as_a_card_and_the_pager_puts_its_handle_into_ask() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("the cache is set up"),
        Reply::text(NOTE),
        Reply::text("NFS broke the cache."),
    ]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("set up the cache\r"),
            Shows("the cache is set up"),
            Idle,
            Type("/fold\r"),
            Shows("▸ fold t"),
            Idle,
            // Ctrl+T opens the pager, Tab focuses the first handle, Enter takes it to /ask.
            Type("\x14"),
            Shows("Tab handles"),
            Type("\t"),
            Shows("Enter ask"),
            Type("\r"),
            Shows("› /ask "),
            Type("what broke?\r"),
            Shows("NFS broke the cache."),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0);
    let card = shown
        .rows
        .iter()
        .find(|r| r.starts_with("▸ fold t"))
        .ok_or_else(|| format!("no fold card: {}", shown.screen()))?;
    let handle = card
        .split(" · ")
        .nth(1)
        .ok_or("a handle")?
        .trim()
        .to_owned();
    assert!(shown.has("changed: set up the cache"));
    // The pager ran in the alternate screen and left it.
    assert!(shown.bytes.contains("\x1b[?1049h") && shown.bytes.contains("\x1b[?1049l"));
    assert_eq!(
        shown.count(&format!("› /ask {handle} what broke?")),
        1,
        "{}",
        shown.screen()
    );
    assert!(shown.has("NFS broke the cache."), "{}", shown.screen());
    let records = env.records(&env.only_session()?)?;
    assert!(
        records.iter().any(|r| r["type"] == "fold"),
        "the log has the fold"
    );
    assert!(
        records.iter().any(|r| r["type"] == "ask"),
        "the log has the ask"
    );
    Ok(())
}

#[test]
fn a_fork_child_runs_as_a_live_card_and_lands_with_its_handle() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("fork", serde_json::json!({ "task": "count the tests" })),
        Reply::text("There are 12 tests."),
        Reply::text("The fork counted 12 tests."),
    ]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("how many tests?\r"),
            Shows("The fork counted 12 tests."),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0);
    assert!(
        shown
            .rows
            .iter()
            .any(|r| r.starts_with("↳ fork ") && r.contains("done")),
        "{}",
        shown.screen()
    );
    assert!(shown.has("count the tests"));
    assert!(shown.has("The fork counted 12 tests."));
    Ok(())
}

#[test]
fn the_revert_picker_names_the_files_it_puts_back_and_puts_them_back() -> TestResult {
    let env = Env::new()?;
    let (id, _) = crate::edit::session_that_changed_files(&env)?;
    let project = std::path::Path::new(&env.cwd()).to_owned();
    let fake = FakeLlm::start(Config::scripted([Reply::text("unused")]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &["-r", &id],
        &[
            UP,
            Idle,
            Type("/revert\r"),
            Shows("puts back new.txt, notes.txt"),
            // The newest message first: the turn that wrote both files.
            Type("\r"),
            Shows("notes.txt restored"),
            Idle,
            Type("\x03"),
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0, "{}", shown.screen());
    assert!(shown.has("new.txt removed"), "{}", shown.screen());
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "as it was\n"
    );
    assert!(!project.join("new.txt").exists());
    Ok(())
}

#[test]
fn esc_esc_reverts_to_a_picked_message_and_puts_it_back_in_the_composer() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("first answer"),
        Reply::text("second answer"),
    ]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("first message\r"),
            Shows("first answer"),
            Idle,
            Type("second message\r"),
            Shows("second answer"),
            Idle,
            Type("\x1b"),
            Shows("Esc again to revert"),
            Type("\x1b"),
            Shows("revert the conversation and the code to before"),
            // The picker lists the newest first: Enter takes the second message.
            Type("\r"),
            Shows("reverted to t"),
            Idle,
            Type("\x03"),
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0);
    assert!(
        shown
            .bytes
            .contains("revert the conversation and the code to before"),
        "the picker was shown"
    );
    assert!(shown.has("reverted to t"), "{}", shown.screen());
    let records = env.records(&env.only_session()?)?;
    assert!(
        records.iter().any(|r| r["type"] == "revert"),
        "the log has the revert"
    );
    Ok(())
}

#[test]
fn model_picks_from_the_providers_list_and_the_next_request_uses_it() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("first answer"),
        Reply::text("second answer"),
    ]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("hello\r"),
            Shows("first answer"),
            Idle,
            Type("/model\r"),
            Shows("answer with"),
            // The picker filters as you type: the one haiku model is left.
            Type("haiku"),
            Type("\r"),
            Shows("from the next request on"),
            Type("again\r"),
            Shows("second answer"),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0);
    assert!(
        shown.has("model: claude-haiku-4-5 from the next request on"),
        "{}",
        shown.screen()
    );
    let models: Vec<String> = crate::common::requests(&fake)?
        .iter()
        .filter_map(|r| r["model"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        models,
        [MODEL, "claude-haiku-4-5"],
        "the second request uses the new model"
    );
    Ok(())
}

#[test]
fn effort_is_recorded_asked_for_and_kept_by_a_resume() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("first answer"),
        Reply::text("second answer"),
    ]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("/effort high\r"),
            Shows("effort: high from the next request on"),
            Type("think hard\r"),
            Shows("first answer"),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert!(
        shown.has("effort: high from the next request on"),
        "{}",
        shown.screen()
    );
    let Some(_) = tui(
        &env,
        &fake,
        &["-c"],
        &[
            // The strip says the recorded effort once the session's status came.
            Shows("effort high"),
            Type("/effort\r"),
            Shows("recorded in this session"),
            Type("again\r"),
            Shows("second answer"),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    let requests = crate::common::requests(&fake)?;
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request["thinking"]["budget_tokens"], 24576, "{request}");
        assert!(request["max_tokens"].as_u64().unwrap_or(0) > 24576);
    }
    let recorded = env
        .records(&env.only_session()?)?
        .iter()
        .any(|r| r["type"] == "mode" && r["effort"] == "high");
    assert!(recorded, "the effort is recorded");
    Ok(())
}

#[test]
fn a_10000_line_tool_output_is_a_collapsed_card_naming_its_blob() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Counting.").with_tool("bash", serde_json::json!({"command": "seq 1 10000"})),
        Reply::text("counted"),
    ]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &["--allow", "bash"],
        &[
            UP,
            Type("count\r"),
            Shows("counted"),
            Idle,
            Type("\x14"),
            Shows("Tab handles"),
            Type("G"),
            Type("q"),
            UP,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0);
    assert!(shown.has("● bash $ seq 1 10000"), "{}", shown.screen());
    assert!(shown.has("more lines (Ctrl+T shows them)"));
    assert!(shown.has("read blob:"), "{}", shown.screen());
    assert!(shown.has("counted"));
    let card_rows = shown
        .rows
        .iter()
        .skip_while(|r| !r.starts_with("● bash"))
        .take_while(|r| !r.starts_with("counted"))
        .count();
    assert!(card_rows < 12, "collapsed: {card_rows} rows");
    Ok(())
}

#[test]
fn fullscreen_draws_in_the_alternate_screen_and_gives_the_screen_back() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("an answer")]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &["--fullscreen"],
        &[
            Type("hello\r"),
            Shows("an answer"),
            Idle,
            Type("\x1b[5~"),
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0);
    assert!(shown.bytes.contains("\x1b[?1049h"), "the alternate screen");
    assert!(shown.bytes.contains("\x1b[?1000h"), "the mouse is reported");
    let leave = shown
        .bytes
        .rfind("\x1b[?1049l")
        .ok_or("never left the alternate screen")?;
    assert!(
        shown
            .bytes
            .rfind("\x1b[?1000l")
            .is_some_and(|off| off > shown.bytes.rfind("\x1b[?1000h").unwrap_or(0))
    );
    assert!(
        shown.bytes[leave..].contains("resume with: hotl -r"),
        "the goodbye goes to the shell's screen"
    );
    // The answer was drawn in the alternate screen, so the shell's screen does not keep it.
    assert!(!shown.has("an answer"), "{}", shown.screen());
    Ok(())
}

#[test]
fn keys_typed_while_hotl_starts_are_kept() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("answered early")]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[Type("typed early\r"), Shows("answered early"), Idle, EXIT],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0);
    assert!(shown.has("answered early"), "{}", shown.screen());
    assert_eq!(shown.count("› typed early"), 1, "{}", shown.screen());
    Ok(())
}

/// MCP servers start after the first frame, never before it: a slow server (it takes a
/// second to start) finds the first paint already in the metrics when it starts, the UI is
/// usable meanwhile, and its tools reach the model once they came.
#[test]
fn mcp_servers_start_after_the_first_frame_and_their_tools_arrive_later() -> TestResult {
    let env = Env::new()?;
    let metrics = env.root().join("metrics.jsonl");
    let seen = env.root().join("seen-at-start");
    let dir = env.root().join("config").join("hotl");
    std::fs::create_dir_all(&dir)?;
    let script = format!(
        "cat \"$METRICS\" > \"$SEEN\" 2>/dev/null || echo none > \"$SEEN\"; sleep 1; exec {:?} stdio",
        crate::mcp::fixture()?
    );
    std::fs::write(
        dir.join("config.toml"),
        format!(
            "[mcp_servers.slow]\ncommand = \"sh\"\nargs = [\"-c\", {script:?}]\napproval = \"allow\"\n\
             [mcp_servers.slow.env]\nMETRICS = {:?}\nSEEN = {:?}\n",
            metrics.display().to_string(),
            seen.display().to_string()
        ),
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool("mcp__slow__echo-text", serde_json::json!({"text": "hi"})),
        Reply::text("Echoed by the slow server."),
    ]))?;
    let Some(shown) = tui_with(
        &env,
        &fake,
        &[],
        &[
            UP,
            // The tools are there before the first message: its request offers them.
            Shows("tools ready: mcp__slow__echo-text"),
            Type("go\r"),
            Shows("Echoed by the slow server."),
            Idle,
            EXIT,
        ],
        &[("HOTL_TUI_METRICS", &metrics)],
    )?
    else {
        return Ok(());
    };
    let at_start = std::fs::read_to_string(&seen)?;
    assert!(
        at_start.contains("first_paint_us"),
        "the server started before the first frame: {at_start}"
    );
    assert!(
        shown.has("tools ready: mcp__slow__echo-text"),
        "{}",
        shown.screen()
    );
    assert!(
        shown.has("Echoed by the slow server."),
        "{}",
        shown.screen()
    );
    let sent = crate::common::requests(&fake)?;
    assert!(
        sent[0]["tools"]
            .to_string()
            .contains("mcp__slow__echo-text")
    );
    assert!(sent[1]["messages"].to_string().contains("echo: hi"));
    Ok(())
}

#[test]
fn resume_at_claude_picks_an_imported_session_and_shows_its_transcript() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("carried on")]))?;
    let claude = crate::console_sessions::claude_home(&env)?;
    let codex = env.root().join("codex");
    let Some(shown) = tui_with(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("/resume @codex\r"),
            Shows("no Codex sessions"),
            Type("/resume @claude\r"),
            Shows("resume a Claude Code session"),
            // The picker shows the one session of this directory: Enter takes it.
            Type("\r"),
            Shows("resumed "),
            Idle,
            Type("what next?\r"),
            Shows("carried on"),
            Idle,
            EXIT,
        ],
        &[("CLAUDE_CONFIG_DIR", &claude), ("CODEX_HOME", &codex)],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0, "{}", shown.screen());
    assert!(
        shown.has("no Codex sessions for ~/project in ~/codex/sessions"),
        "{}",
        shown.screen()
    );
    assert!(
        shown.bytes.contains("resume a Claude Code session")
            && shown.bytes.contains("Claude Code · 4c2ddfdc"),
        "the picker showed the row"
    );
    let id = env.only_session()?;
    assert!(
        shown.has("imported Claude Code session"),
        "{}",
        shown.screen()
    );
    let short = id.get(..10).ok_or("a short id")?;
    assert!(shown.has(&format!("resumed {short}")), "{}", shown.screen());
    // The imported conversation is the transcript, and the next message continues it.
    assert!(
        shown.has("create hello.py, md and js"),
        "{}",
        shown.screen()
    );
    assert!(shown.has("carried on"), "{}", shown.screen());
    let records = env.records(&id)?;
    assert_eq!(records[1]["type"], "import", "{records:?}");
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "user" && r["content"].to_string().contains("what next?")),
        "{records:?}"
    );
    Ok(())
}

#[test]
fn sigterm_leaves_as_the_user_would_restoring_the_terminal_and_recording_the_children() -> TestResult
{
    let env = Env::new()?;
    let fake = crate::common::slow_background_child()?;
    let (shown, sent) = std::thread::scope(|scope| {
        let killer = scope
            .spawn(|| crate::common::terminate_when(&env, &fake, "started in the background", 800));
        let shown = tui(&env, &fake, &[], &[UP, Type("go look\r")]);
        (shown, killer.join())
    });
    let Some(shown) = shown? else {
        return Ok(());
    };
    assert_eq!(sent.ok(), Some(true), "SIGTERM was sent");
    // It left as on /exit: the goodbye line, and the terminal given back (cursor shown,
    // bracketed paste off).
    assert!(shown.has("resume with: hotl -r"), "{}", shown.screen());
    assert!(shown.bytes.contains("\x1b[?2004l"), "bracketed paste off");
    assert!(shown.bytes.contains("\x1b[?25h"), "cursor shown");
    let id = env.only_session()?;
    let finished: Vec<serde_json::Value> = env.child_ends(&id)?;
    assert_eq!(finished.len(), 1, "{finished:?}");
    assert_eq!(finished[0]["state"], "cancelled");
    assert_eq!(shown.code, 143, "{}", shown.screen());
    Ok(())
}

/// What a session looked like while it ran is what it looks like resumed: the transcript
/// replayed from the log draws the same rows as the events drew live (text, Markdown, a code
/// block, tool cards with their output, a refused call).
#[test]
fn a_resumed_session_draws_the_rows_it_drew_live() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Let me **look** first:\n\n- one\n- two\n\n```rust\nfn main() {}\n```")
            .with_tool(
                "bash",
                serde_json::json!({"command": "printf 'a\\nb\\nc\\n'"}),
            ),
        Reply::text("").with_tool(
            "write",
            serde_json::json!({"path": "x.txt", "content": "x"}),
        ),
        Reply::text("Three lines: `a`, `b` and `c`."),
        Reply::text("A second answer\nover two lines."),
    ]))?;
    let Some(live) = tui(
        &env,
        &fake,
        &["--allow", "bash"],
        &[
            UP,
            Type("look around\r"),
            Shows("Allow?"),
            Type("n\r"),
            Shows("Three lines"),
            Idle,
            Type("and then?\r"),
            Shows("over two lines."),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    let Some(resumed) = tui(&env, &fake, &["-c"], &[UP, Idle, EXIT])? else {
        return Ok(());
    };
    // What only a live run says: the turns' footers and its notices (the answer to the
    // approval among them).
    let live_only = |row: &str| row.starts_with("  ↳ ") || row.starts_with("· ");
    let conversation = |shown: &Shown| -> Vec<String> {
        let start = shown
            .rows
            .iter()
            .position(|r| r.starts_with("› look around"));
        let end = shown
            .rows
            .iter()
            .rposition(|r| r.contains("over two lines."));
        match (start, end) {
            (Some(start), Some(end)) => shown.rows[start..=end]
                .iter()
                .map(|r| r.trim_end().to_owned())
                .filter(|r| !live_only(r))
                .collect(),
            _ => Vec::new(),
        }
    };
    let (drawn, replayed) = (conversation(&live), conversation(&resumed));
    assert!(drawn.len() > 10, "{}", live.screen());
    assert_eq!(
        drawn,
        replayed,
        "live:\n{}\n\nresumed:\n{}",
        live.screen(),
        resumed.screen()
    );
    Ok(())
}

#[test]
fn sigterm_mid_answer_ends_the_terminal_ui_without_waiting_for_the_stream() -> TestResult {
    let env = Env::new()?;
    // The answer streams for a minute: a chunk every 2 s, then one after 30 s.
    let fake = FakeLlm::start(Config::scripted([Reply::text(
        "a slow answer that keeps coming for a long while, word after word",
    )
    .with_fault(hotl_fakellm::Fault::split_at((1..16).map(|i| i * 4)).with_chunk_delay_ms(2_000))
    .matching("go slow")]))?;
    let started = std::time::Instant::now();
    let (shown, sent) = std::thread::scope(|scope| {
        let killer = scope.spawn(|| crate::common::terminate_when(&env, &fake, "go slow", 300));
        let shown = tui(&env, &fake, &[], &[UP, Type("go slow\r")]);
        (shown, killer.join())
    });
    let Some(shown) = shown? else {
        return Ok(());
    };
    assert_eq!(sent.ok(), Some(true), "SIGTERM was sent");
    assert_eq!(shown.code, 143, "{}", shown.screen());
    // Long before the first delayed chunk would come: the request was dropped.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "it waited for the stream: {:?}",
        started.elapsed()
    );
    let records = env.records(&env.only_session()?)?;
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "run" && r["state"] == "cancelled"),
        "{records:?}"
    );
    Ok(())
}

#[test]
fn a_local_unpriced_server_shows_no_price_and_no_cache_clock() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("Paris.")]))?;
    let hotl = env.command_against("openai-chat", &fake, "smollm2");
    let setup = format!("stty cols {COLS} rows {ROWS}; ");
    let Some(mut cmd) = in_script(&env, &hotl, &setup)? else {
        return Ok(());
    };
    cmd.env_remove("HOTL_NO_TUI").env("TERM", "xterm-256color");
    // The strip says so once the answer's status comes (the step waits for it).
    let shown = drive(
        cmd,
        (COLS, ROWS),
        &[
            UP,
            Type("capital of France?\r"),
            Shows("Paris."),
            Shows("unpriced"),
            Idle,
            EXIT,
        ],
    )?;
    // Nothing ever drawn showed a price or a cache clock.
    assert!(!shown.bytes.contains("$0.0000"), "{}", shown.screen());
    assert!(!shown.bytes.contains("m left"), "{}", shown.screen());
    Ok(())
}

/// A person looks for an earlier session by what was said in it: `/resume`, then typing a word
/// that only a tool's output held; the session shows below the titles with the line, and
/// Enter resumes it. `/search WORD` opens the same picker with the word typed.
#[test]
fn the_resume_picker_finds_a_session_by_what_was_said() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("back on it")]))?;
    let mut log = env.log("01J0000000000000000000000A");
    log.turn("read the roadmap");
    let (_, call) = log.tool_call("read", serde_json::json!({"path": "notes.txt"}));
    log.record(hotl_log::Body::ToolResult {
        call,
        content: vec![hotl_log::Block::text("the papaya-roadmap is due friday")],
        blob: None,
        is_error: false,
        files: vec![],
    });
    log.assistant("noted");
    let id = env.import(&log)?;
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("/resume\r"),
            Shows("resume a session"),
            Type("papaya"),
            Shows("the papaya-roadmap is due friday"),
            Type("\x1b"),
            // Back on the main screen (the strip shows again) before typing on.
            UP,
            Type("/search papaya\r"),
            Shows("filter: papaya"),
            Shows("the papaya-roadmap is due friday"),
            Type("\r"),
            Shows("resumed "),
            Idle,
            Type("and now?\r"),
            Shows("back on it"),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0, "{}", shown.screen());
    let last = crate::common::requests(&fake)?;
    assert!(
        last[0]["messages"].to_string().contains("papaya-roadmap"),
        "the resumed session's history was sent"
    );
    assert!(env.session_ids()?.contains(&id));
    Ok(())
}

/// A named session shows its name in the `/resume` picker, typing the name finds it, and the
/// goodbye tells to resume it by name.
#[test]
fn a_sessions_name_is_shown_found_and_told() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("back on it")]))?;
    let mut log = env.log("01J0000000000000000000000N");
    log.turn("tune the cache");
    let id = env.import(&log)?;
    env.run(&["sessions", "rename", &id, "cache-tuning"]).ok();
    let Some(shown) = tui(
        &env,
        &fake,
        &[],
        &[
            UP,
            Type("/resume\r"),
            Shows("resume a session"),
            Type("cache-tun"),
            Shows("cache-tuning · tune the cache"),
            Type("\r"),
            Shows("resumed "),
            Idle,
            Type("and now?\r"),
            Shows("back on it"),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0, "{}", shown.screen());
    assert!(
        shown.has(&format!("session {id} · resume with: hotl -r cache-tuning")),
        "{}",
        shown.screen()
    );
    Ok(())
}

/// A command's output shows under its card as it is printed, and Esc keeps what it had
/// printed: the cancelled call's result carries it, for the user and the model.
#[test]
fn a_running_commands_output_streams_and_survives_esc() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool(
            "bash",
            serde_json::json!({"command": "for i in 1 2 3; do echo tick-$i; sleep 0.2; done; sleep 30"}),
        ),
        Reply::text("after"),
    ]))?;
    let Some(shown) = tui(
        &env,
        &fake,
        &["--allow", "bash"],
        &[
            UP,
            Type("count\r"),
            Shows("│ tick-3"),
            Type("\x1b"),
            Shows("cancelled; the session is kept"),
            Idle,
            Type("and?\r"),
            Shows("after"),
            Idle,
            EXIT,
        ],
    )?
    else {
        return Ok(());
    };
    assert_eq!(shown.code, 0, "{}", shown.screen());
    let id = env.only_session()?;
    let result = env
        .records(&id)?
        .into_iter()
        .find(|r| r["type"] == "tool_result")
        .ok_or("the call was answered")?;
    let text = result["content"].to_string();
    assert!(
        text.contains("output so far") && text.contains("tick-1") && text.contains("tick-3"),
        "{result}"
    );
    let sent = crate::common::requests(&fake)?;
    assert!(
        sent[1]["messages"].to_string().contains("tick-3"),
        "the model sees it"
    );
    Ok(())
}
