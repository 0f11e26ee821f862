//! Where the home is: `--home` beats `HOTL_HOME`, which beats `XDG_DATA_HOME/hotl`, which
//! beats `~/.local/share/hotl`.

use std::path::Path;

use hotl_testkit::{FIXED_ID, TestResult};

use crate::common::{Env, path_str, run};

/// Imports a log with the given home settings; returns where the log landed.
fn import_with(env: &Env, home: Option<&Path>, vars: &[(&str, &Path)]) -> TestResult {
    let file = env.scratch("log.jsonl", &env.log_with_turns(FIXED_ID, 1).text())?;
    let mut cmd = env.command_without_home();
    if let Some(home) = home {
        cmd.arg("--home").arg(home);
    }
    for (key, value) in vars {
        cmd.env(key, value);
    }
    cmd.args(["sessions", "import", path_str(&file)?]);
    let out = run(cmd).ok();
    assert_eq!(out.line(), FIXED_ID);
    Ok(())
}

fn holds_the_log(home: &Path) -> bool {
    home.join("sessions")
        .join(format!("{FIXED_ID}.jsonl"))
        .is_file()
}

#[test]
fn flag_beats_hotl_home_beats_xdg() -> TestResult {
    let env = Env::new()?;
    let root = env.root();
    let (flag, hotl, xdg) = (root.join("flag"), root.join("hotl-home"), root.join("xdg"));
    let all = [
        ("HOTL_HOME", hotl.as_path()),
        ("XDG_DATA_HOME", xdg.as_path()),
    ];

    import_with(&env, Some(&flag), &all)?;
    assert!(holds_the_log(&flag));
    assert!(!holds_the_log(&hotl) && !holds_the_log(&xdg.join("hotl")));

    import_with(&env, None, &all)?;
    assert!(holds_the_log(&hotl));
    assert!(!holds_the_log(&xdg.join("hotl")));

    import_with(&env, None, &all[1..])?;
    assert!(holds_the_log(&xdg.join("hotl")));
    Ok(())
}

#[test]
fn an_empty_hotl_home_is_ignored_and_home_is_the_last_resort() -> TestResult {
    let env = Env::new()?;
    let root = env.root();
    let xdg = root.join("xdg");
    import_with(
        &env,
        None,
        &[("HOTL_HOME", Path::new("")), ("XDG_DATA_HOME", &xdg)],
    )?;
    assert!(holds_the_log(&xdg.join("hotl")));

    import_with(&env, None, &[])?;
    assert!(holds_the_log(&root.join(".local/share/hotl")));
    Ok(())
}

#[test]
fn every_command_reads_the_same_home() -> TestResult {
    let env = Env::new()?;
    let hotl = env.root().join("hotl-home");
    import_with(&env, None, &[("HOTL_HOME", &hotl)])?;
    let mut cmd = env.command_without_home();
    cmd.env("HOTL_HOME", &hotl)
        .args(["sessions", "list", "--json"]);
    let out = run(cmd).ok();
    assert!(out.stdout.contains(FIXED_ID), "{out}");
    // The test's own --home is a different, empty one.
    assert_eq!(
        env.run(&["sessions", "list", "--all"]).ok().stdout,
        "no sessions\n"
    );
    Ok(())
}
