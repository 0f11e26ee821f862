//! `hotl agents`: definitions from the project's `.hotl/agents/` and the user's
//! `$XDG_CONFIG_HOME/hotl/agents/` beside the built-ins, a project one replacing a user one of
//! its name, and a file that does not load told on stderr by path and left out.

use hotl_testkit::TestResult;

use crate::common::{Env, run};

/// A project with one good definition and one with a typo'd key, and a user reviewer.
fn setup() -> TestResult<Env> {
    let env = Env::new()?;
    let project = env.project.join(".hotl").join("agents");
    std::fs::create_dir_all(&project)?;
    std::fs::write(
        project.join("docs.md"),
        "---\ndescription: Checks the docs against the code\ntools: [read, grep, mcp__wiki__*]\nmodel: small\n---\nYou check docs.\n",
    )?;
    std::fs::write(
        project.join("bad.md"),
        "---\ndescription: Too open\ntool: [read]\n---\n",
    )?;
    let user = env.root().join("config").join("hotl").join("agents");
    std::fs::create_dir_all(&user)?;
    std::fs::write(
        user.join("reviewer.md"),
        "---\ndescription: My reviewer\ncontext: reviewer\n---\nBe strict.\n",
    )?;
    std::fs::write(
        user.join("docs.md"),
        "---\ndescription: The user's docs agent\n---\n",
    )?;
    Ok(env)
}

fn agents(env: &Env, args: &[&str]) -> crate::common::Run {
    let mut cmd = env.agent_command();
    cmd.arg("agents").args(args);
    run(cmd)
}

#[test]
fn list_shows_every_source_and_tells_what_was_left_out() -> TestResult {
    let env = setup()?;
    let listed = agents(&env, &["list"]).ok();
    let lines: Vec<&str> = listed.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{listed}");
    assert!(lines[0].starts_with("NAME"), "{listed}");
    let row = |name: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(&format!("{name} ")))
            .copied()
            .unwrap_or_default()
    };
    assert!(
        row("docs").contains(".hotl/agents/docs.md")
            && row("docs").contains("small")
            && row("docs").contains("read, grep, mcp__wiki__*"),
        "the project's replaces the user's: {listed}"
    );
    assert!(
        row("reviewer").contains("~/config/hotl/agents/reviewer.md"),
        "{listed}"
    );
    assert!(
        row("explore").contains("built-in") && row("explore").contains("clean"),
        "{listed}"
    );
    assert!(row("general-purpose").contains("fork"), "{listed}");
    assert!(!listed.stdout.contains("bad"), "{listed}");
    assert_eq!(
        listed.stderr.trim(),
        "hotl: .hotl/agents/bad.md: line 3: unknown key `tool` (did you mean `tools`?) (left out)"
    );
    Ok(())
}

#[test]
fn list_json_has_the_definitions_and_the_problems() -> TestResult {
    let env = setup()?;
    let listed = agents(&env, &["list", "--json"]).ok();
    let doc = listed.json()?;
    let defs = doc["agents"].as_array().ok_or("agents")?;
    let names: Vec<&str> = defs.iter().filter_map(|d| d["name"].as_str()).collect();
    assert_eq!(names, ["docs", "explore", "general-purpose", "reviewer"]);
    assert_eq!(
        defs[0],
        serde_json::json!({
            "name": "docs",
            "description": "Checks the docs against the code",
            "source": "project",
            "path": ".hotl/agents/docs.md",
            "context": null,
            "model": "small",
            "tools": ["read", "grep", "mcp__wiki__*"],
            "disallowed_tools": [],
            "permission_mode": null,
            "max_steps": null,
            "background": false,
            "isolation": null,
            "prompt": "You check docs.",
        })
    );
    assert_eq!(defs[3]["source"], "user");
    assert_eq!(defs[3]["context"], "reviewer");
    assert_eq!(defs[1]["source"], "built-in");
    assert_eq!(defs[1]["path"], serde_json::Value::Null);
    let problems = doc["problems"].as_array().ok_or("problems")?;
    assert_eq!(problems.len(), 1, "{doc}");
    assert_eq!(problems[0]["path"], ".hotl/agents/bad.md");
    assert_eq!(problems[0]["name"], "bad");
    assert!(listed.stderr.contains("bad.md"), "{listed}");
    Ok(())
}

#[test]
fn show_prints_one_and_check_fails_naming_what_was_left_out() -> TestResult {
    let env = setup()?;
    let shown = agents(&env, &["show", "reviewer"]).ok();
    assert!(
        shown.stdout.contains("context: reviewer") && shown.stdout.ends_with("Be strict.\n"),
        "{shown}"
    );
    let builtin = agents(&env, &["show", "explore", "--json"]).ok().json()?;
    assert_eq!(builtin["context"], "clean");
    assert!(
        builtin["prompt"]
            .as_str()
            .unwrap_or_default()
            .contains("path")
    );
    let missing = agents(&env, &["show", "bad"]).fails(1);
    assert!(
        missing.stderr.contains("no agent definition named bad")
            && missing.stderr.contains("bad.md was left out"),
        "{missing}"
    );
    let checked = agents(&env, &["check"]).fails(1);
    assert!(
        checked
            .stderr
            .contains("a definition was left out: .hotl/agents/bad.md"),
        "{checked}"
    );
    std::fs::remove_file(env.project.join(".hotl/agents/bad.md"))?;
    let fine = agents(&env, &["check"]).ok();
    assert_eq!(fine.stdout, "4 definitions load\n");
    assert_eq!(fine.stderr, "");
    Ok(())
}

#[test]
fn with_no_files_the_builtins_are_listed() -> TestResult {
    let env = Env::new()?;
    let listed = agents(&env, &["list"]).ok();
    assert_eq!(listed.stderr, "");
    let names: Vec<&str> = listed
        .stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names, ["explore", "general-purpose", "reviewer"]);
    Ok(())
}
