//! The remote store's sessions where sessions are picked: the terminal UI's resume picker has
//! them in its last tab, the line console's `/resume` lists them after this home's; picking one
//! pulls it and resumes it.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;

use super::{command_with, first_id, hotl, machine, moto};
use crate::common::{in_pty, in_script};
use crate::terminal::{Step, drive};

#[test]
fn the_resume_pickers_last_tab_is_the_remote_store() -> TestResult {
    let Some(server) = moto()? else { return Ok(()) };
    let (laptop, build_box) = (machine(&server, 60)?, machine(&server, 60)?);
    hotl(&laptop, "laptop", &["-p", "far away work"]).ok();
    let id = first_id(&hotl(&laptop, "laptop", &["sessions", "list", "--json"]))?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("unused")]))?;
    let hotl_ui = command_with(&build_box, "box", &fake, &[]);
    let Some(mut cmd) = in_script(&build_box, &hotl_ui, "stty cols 100 rows 30; ")? else {
        return Ok(());
    };
    cmd.env_remove("HOTL_NO_TUI").env("TERM", "xterm-256color");
    let shown = drive(
        cmd,
        (100, 30),
        &[
            Step::Shows("% ctx"),
            Step::Type("/resume\r"),
            // This home holds nothing: the picker opens on all projects, Tab goes on.
            Step::Shows("Tab: the remote store"),
            Step::Type("\t"),
            Step::Shows("far away work"),
            Step::Shows("from the remote store"),
            Step::Type("\r"),
            Step::Shows(&format!("resumed {id}")),
            Step::Idle,
            Step::Type("/exit\r"),
        ],
    )?;
    assert_eq!(shown.code, 0);
    assert_eq!(build_box.session_ids()?, std::slice::from_ref(&id));
    assert_eq!(laptop.log_bytes(&id)?, build_box.log_bytes(&id)?);
    Ok(())
}

#[test]
fn the_consoles_resume_lists_the_remote_stores_sessions_after_this_homes() -> TestResult {
    let Some(server) = moto()? else { return Ok(()) };
    let (laptop, build_box) = (machine(&server, 60)?, machine(&server, 60)?);
    hotl(&laptop, "laptop", &["-p", "far away work"]).ok();
    hotl(&build_box, "box", &["-p", "work done here"]).ok();
    let far = first_id(&hotl(&laptop, "laptop", &["sessions", "list", "--json"]))?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("unused")]))?;
    let console = command_with(&build_box, "box", &fake, &[]);
    let typed = [("/resume\n", 0), ("2\n", 1500), ("/exit\n", 1500)];
    let Some(out) = in_pty(&build_box, &console, &typed)? else {
        return Ok(());
    };
    let out = out.ok();
    let listed: Vec<&str> = out.stdout.lines().filter(|l| l.contains("work")).collect();
    assert!(
        listed.iter().any(|l| l.contains("1  work done here"))
            && listed
                .iter()
                .any(|l| l.contains("2  far away work") && l.contains("remote · ")),
        "{out}"
    );
    assert!(out.stdout.contains(&format!("resumed {far}")), "{out}");
    assert!(build_box.session_ids()?.contains(&far));
    Ok(())
}
