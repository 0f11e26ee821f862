//! What users expect of a Rust CLI: completions and a man page, the effective configuration
//! with where each value came from, config errors that name the key and the file, one shape
//! for errors and the usual exit statuses.

use hotl_testkit::TestResult;
use serde_json::Value;

use crate::common::{Env, run};

fn config_file(env: &Env, toml: &str) -> TestResult<std::path::PathBuf> {
    let dir = env.root().join("config").join("hotl");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("config.toml");
    std::fs::write(&path, toml)?;
    Ok(path)
}

/// `hotl config --json` as (key → (value, source)).
fn settings(
    env: &Env,
    args: &[&str],
    vars: &[(&str, &str)],
) -> TestResult<Vec<(String, String, String)>> {
    let mut cmd = env.agent_command();
    cmd.args(args).args(["config", "--json"]);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = run(cmd).ok();
    let json: Value = out.json()?;
    Ok(json
        .as_array()
        .ok_or("an array")?
        .iter()
        .map(|s| {
            (
                s["key"].as_str().unwrap_or_default().to_owned(),
                s["value"].as_str().unwrap_or_default().to_owned(),
                s["source"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect())
}

fn find<'a>(all: &'a [(String, String, String)], key: &str) -> (&'a str, &'a str) {
    all.iter()
        .find(|(k, _, _)| k == key)
        .map(|(_, v, s)| (v.as_str(), s.as_str()))
        .unwrap_or_default()
}

#[test]
fn config_shows_each_value_and_where_it_came_from() -> TestResult {
    let env = Env::new()?;
    let path = config_file(
        &env,
        "[provider]\nkind = \"openai-chat\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"from-file\"\nmax_tokens = 4096\n\n[tui]\nfullscreen = true\n",
    )?;
    let all = settings(&env, &[], &[])?;
    let file = format!("file {}", path.display());
    assert_eq!(find(&all, "provider.kind"), ("openai-chat", file.as_str()));
    assert_eq!(find(&all, "provider.model"), ("from-file", file.as_str()));
    assert_eq!(find(&all, "provider.max_tokens"), ("4096", file.as_str()));
    assert_eq!(find(&all, "tui.fullscreen"), ("true", file.as_str()));
    assert_eq!(find(&all, "cache.cold_console").1, "default");
    // The environment over the file, a flag over both.
    let all = settings(&env, &[], &[("HOTL_MODEL", "from-env")])?;
    assert_eq!(find(&all, "provider.model"), ("from-env", "env HOTL_MODEL"));
    let all = settings(
        &env,
        &["--model", "from-flag"],
        &[("HOTL_MODEL", "from-env")],
    )?;
    assert_eq!(find(&all, "provider.model"), ("from-flag", "flag --model"));
    // A key is never shown.
    let all = settings(&env, &[], &[("OPENAI_API_KEY", "sk-secret-value")])?;
    assert_eq!(
        find(&all, "provider.api_key"),
        ("set (not shown)", "env OPENAI_API_KEY")
    );

    let text = env.agent_command();
    let out = run({
        let mut cmd = text;
        cmd.arg("config");
        cmd
    })
    .ok();
    assert!(out.stdout.contains("provider.model"), "{out}");
    let where_ = run({
        let mut cmd = env.agent_command();
        cmd.args(["config", "path"]);
        cmd
    })
    .ok();
    assert_eq!(where_.stdout.trim(), path.display().to_string());
    Ok(())
}

#[test]
fn an_unknown_key_in_the_config_names_the_key_and_the_file() -> TestResult {
    let env = Env::new()?;
    let path = config_file(&env, "[provider]\nmodle = \"typo\"\n")?;
    let out = run({
        let mut cmd = env.agent_command();
        cmd.arg("config");
        cmd
    })
    .fails(1);
    assert!(
        out.stderr.starts_with(&format!("hotl: {}", path.display()))
            && out.stderr.contains("modle"),
        "{out}"
    );
    Ok(())
}

#[test]
fn completions_and_the_man_page_print() -> TestResult {
    let env = Env::new()?;
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = env.run(&["completions", shell]).ok();
        assert!(out.stdout.contains("sessions"), "{shell}: {out}");
    }
    let bad = env.run(&["completions", "tcsh"]).fails(2);
    assert!(
        bad.stderr.starts_with("hotl: invalid value 'tcsh'"),
        "{bad}"
    );
    let man = env.run(&["man"]).ok();
    assert!(
        man.stdout.starts_with(".ie") && man.stdout.contains(".SH NAME"),
        "{man}"
    );
    Ok(())
}

/// Completion offers `--permission-mode`'s values (never file names), and `resume --help`
/// lists no flag that picks another session or names a new one.
#[test]
fn completion_offers_modes_and_resume_help_only_what_applies() -> TestResult {
    let env = Env::new()?;
    let bash = env.run(&["completions", "bash"]).ok().stdout;
    let mut after = bash.split("--permission-mode)").skip(1).peekable();
    assert!(after.peek().is_some(), "no --permission-mode case");
    for case in after {
        let reply = case.lines().nth(1).unwrap_or_default();
        assert!(
            reply.contains("compgen -W \"default accept-edits bypass plan\""),
            "{reply}"
        );
    }
    let help = env.run(&["resume", "--help"]).ok().stdout;
    for flag in [
        "--resume",
        "--continue",
        "--fork-from",
        "--keep-turns",
        "--keep ",
        "--name",
    ] {
        assert!(!help.contains(flag), "resume --help offers {flag}:\n{help}");
    }
    assert!(help.contains("--print"), "{help}");
    // Global flags only where they mean something: no `--all` on commands that take no
    // session, no `--home` on those that read no home; both still taken there.
    for (args, all, home) in [
        (vec!["completions", "--help"], false, false),
        (vec!["man", "--help"], false, false),
        (vec!["config", "--help"], false, true),
        (vec!["mcp", "list", "--help"], false, true),
        (vec!["sessions", "list", "--help"], true, true),
        (vec!["fold", "--help"], true, true),
    ] {
        let help = env.run(&args).ok().stdout;
        assert_eq!(help.contains("--all"), all, "{args:?}:\n{help}");
        assert_eq!(help.contains("--home"), home, "{args:?}:\n{help}");
    }
    env.run(&["completions", "bash", "--all", "--home", "elsewhere"])
        .ok();
    Ok(())
}
