//! Discovery and resolution: a picker's list for one directory, newest first; ids and prefixes
//! found under each agent's home; ambiguity named.

use std::path::PathBuf;

use hotl_import::{Homes, ImportError, Source, discover, resolve};

use crate::common::*;

fn homes(root: &std::path::Path) -> Homes {
    Homes {
        claude: vec![root.join("claude")],
        codex: Some(root.join("codex")),
        pi: Some(root.join("pi")),
    }
}

#[test]
fn claude_and_codex_sessions_are_listed_for_their_directory() -> TestResult {
    let home = Home::new()?;
    let root = home.dir.path();
    let proj = root.join("claude/projects/-x");
    std::fs::create_dir_all(&proj)?;
    let text = std::fs::read_to_string(fixture(CC_217))?;
    let cwd = root.join("work");
    std::fs::create_dir_all(&cwd)?;
    let moved = text.replace(
        "\"cwd\":\"/Users/",
        &format!("\"cwd\":\"{}\",\"was\":\"/Users/", cwd.display()),
    );
    std::fs::write(
        proj.join("e9fb405b-169f-40eb-9396-7e75076f045d.jsonl"),
        moved,
    )?;
    std::fs::write(proj.join("other.jsonl"), text)?;
    let found = discover(Source::Claude, &homes(root), &cwd);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].source_id, "e9fb405b-169f-40eb-9396-7e75076f045d");
    assert_eq!(found[0].records, Some(50));
    assert!(found[0].title.is_some());

    let day = root.join("codex/sessions/2026/05/11");
    std::fs::create_dir_all(&day)?;
    let rollout = std::fs::read_to_string(fixture(CODEX))?;
    let codex_cwd = "/Users/Sample_User/repos/codemie-ai/codemie-code";
    let name = "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl";
    std::fs::write(
        day.join(name),
        rollout.replace(codex_cwd, &cwd.to_string_lossy()),
    )?;
    let found = discover(Source::Codex, &homes(root), &cwd);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].title.as_deref(), Some("show tools"));
    Ok(())
}

#[test]
fn ids_resolve_by_prefix_and_ambiguity_lists_candidates() -> TestResult {
    let home = Home::new()?;
    let root = home.dir.path();
    let proj = root.join("claude/projects/-x");
    std::fs::create_dir_all(&proj)?;
    for id in ["abc111", "abc222"] {
        std::fs::write(proj.join(format!("{id}.jsonl")), "{}\n")?;
    }
    let h = homes(root);
    assert_eq!(
        resolve(Source::Claude, &h, "abc1")?,
        proj.join("abc111.jsonl")
    );
    match resolve(Source::Claude, &h, "abc") {
        Err(ImportError::Ambiguous { candidates, .. }) => {
            assert!(candidates.contains("abc111") && candidates.contains("abc222"))
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        resolve(Source::Claude, &h, "zzz"),
        Err(ImportError::NoMatch { .. })
    ));
    let file: PathBuf = proj.join("abc222.jsonl");
    assert_eq!(resolve(Source::Pi, &h, &file.to_string_lossy())?, file);
    Ok(())
}
