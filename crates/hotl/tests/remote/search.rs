//! Searching and collecting the store from the command line: `hotl recall --remote` over the
//! whole text of every session there (fetched into a cache once, then only what is new), and
//! `hotl gc --remote`, which keeps what a kept session descends from.

use hotl_testkit::{FIXED_ID, TestResult};

use super::{first_id, hotl, machine, moto, segments};
use crate::common::{OTHER_ID, THIRD_ID};

/// `hotl <args> --json` on `env` as `host`, parsed.
fn json(env: &crate::common::Env, host: &str, args: &[&str]) -> TestResult<serde_json::Value> {
    let mut args = args.to_vec();
    args.push("--json");
    Ok(serde_json::from_str(&hotl(env, host, &args).ok().stdout)?)
}

#[test]
fn recall_searches_every_session_in_the_store_and_fetches_once() -> TestResult {
    let Some(server) = moto()? else { return Ok(()) };
    let (laptop, build_box) = (machine(&server, 60)?, machine(&server, 60)?);
    // A session whose first turn is folded away (the archive), and one more.
    let mut log = laptop.log(FIXED_ID);
    let first = log.turn("why does the quokka build fail");
    let end = log.seq();
    log.fold(first, end, "q1k2", "quokka build fixed: cfg was undefined");
    log.turn("now the numbat tests");
    laptop.import(&log)?;
    laptop.import(&laptop.log_with_turns(OTHER_ID, 1))?;
    hotl(&laptop, "laptop", &["sessions", "push", "--all"]).ok();

    let found = json(&build_box, "box", &["recall", "--remote", "quokka"])?;
    let hits = found["hits"].as_array().ok_or("hits")?;
    assert!(
        hits.iter()
            .any(|h| h["handle"] == "q1k2" && h["kind"] == "user" && h["session"] == FIXED_ID),
        "the archive is searched: {found}"
    );
    // `hotl search --remote` is the same search.
    let searched = json(&build_box, "box", &["search", "--remote", "quokka"])?;
    assert_eq!(searched["hits"], found["hits"], "{searched}");
    let live = json(&build_box, "box", &["recall", "--remote", "numbat"])?;
    assert!(
        live["hits"]
            .as_array()
            .ok_or("hits")?
            .iter()
            .any(|h| h["handle"].is_null() && h["session"] == FIXED_ID),
        "the live transcript is searched: {live}"
    );
    assert_eq!(found["searched"], 2, "{found}");
    assert!(found["fetched"]["segments"].as_u64() >= Some(2), "{found}");
    // Fetched into the cache, not into the box's sessions; a second search fetches nothing.
    assert!(build_box.session_ids()?.is_empty());
    assert_eq!(live["fetched"]["segments"], 0, "{live}");

    // One more turn on the laptop: only what it published is fetched.
    let before = segments(&server, FIXED_ID, FIXED_ID)?.len();
    hotl(
        &laptop,
        "laptop",
        &["-r", FIXED_ID, "-p", "the echidna step"],
    )
    .ok();
    let new = segments(&server, FIXED_ID, FIXED_ID)?.len() - before;
    assert!(new >= 1);
    let grown = json(
        &build_box,
        "box",
        &["recall", "--remote", "echidna", "--exact"],
    )?;
    assert_eq!(grown["fetched"]["segments"], new, "{grown}");
    assert_eq!(grown["hits"][0]["session"], FIXED_ID, "{grown}");

    // What the box holds itself is searched where it is.
    hotl(&build_box, "box", &["sessions", "pull", OTHER_ID]).ok();
    let here = json(&build_box, "box", &["recall", "--remote", "message"])?;
    let other = here["hits"]
        .as_array()
        .ok_or("hits")?
        .iter()
        .find(|h| h["session"] == OTHER_ID)
        .ok_or("a hit in the pulled session")?;
    assert_eq!(other["here"], true, "{here}");
    let text = hotl(&build_box, "box", &["recall", "--remote", "quokka"]).ok();
    assert!(text.stdout.contains("[01JD0000 q1k2 t"), "{text}");
    // A query that cannot be searched is said before anything is fetched.
    let bad = hotl(&build_box, "box", &["recall", "--remote", "(", "--regex"]).fails(1);
    assert!(bad.stderr.contains("invalid regex"), "{bad}");
    let both = hotl(&build_box, "box", &["recall", "--remote", "@last", "x"]).fails(2);
    assert!(both.stderr.contains("takes no session"), "{both}");
    Ok(())
}

#[test]
fn gc_of_the_store_keeps_what_a_kept_session_descends_from() -> TestResult {
    let Some(server) = moto()? else { return Ok(()) };
    let mut laptop = machine(&server, 60)?;
    // The store's gc reads ages on the real clock: the fork is made now.
    laptop.now = hotl_log::format_ts(std::time::SystemTime::now());
    let old = "2020-01-02T03:04:05.000Z";
    laptop.import_at(&laptop.log_with_turns(FIXED_ID, 1), old)?;
    laptop.import_at(&laptop.log_with_turns(THIRD_ID, 1), old)?;
    // A fresh fork of the old parent keeps it.
    hotl(
        &laptop,
        "laptop",
        &["--fork-from", FIXED_ID, "-p", "on from here"],
    )
    .ok();
    hotl(&laptop, "laptop", &["sessions", "push", "--all"]).ok();
    let fork = first_id(&hotl(&laptop, "laptop", &["sessions", "list", "--json"]))?;
    assert_ne!(fork, FIXED_ID);

    let dry = json(&laptop, "laptop", &["gc", "--remote", "--dry-run"])?;
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["trees"][0]["root"], THIRD_ID, "{dry}");
    assert_eq!(dry["kept_for_descendants"][0], FIXED_ID, "{dry}");
    let listed = || -> TestResult<Vec<String>> {
        let rows = json(&laptop, "laptop", &["sessions", "list", "--remote"])?;
        let mut ids: Vec<String> = rows
            .as_array()
            .ok_or("rows")?
            .iter()
            .filter_map(|r| r["id"].as_str().map(str::to_owned))
            .collect();
        ids.sort();
        Ok(ids)
    };
    assert_eq!(listed()?.len(), 3, "a dry run removes nothing");

    let done = hotl(&laptop, "laptop", &["gc", "--remote"]).ok();
    assert!(
        done.stdout.contains(&format!("removed tree {THIRD_ID}")),
        "{done}"
    );
    let mut kept = vec![FIXED_ID.to_owned(), fork.clone()];
    kept.sort();
    assert_eq!(listed()?, kept);
    // The fork still comes whole to another machine, its parent with it.
    let build_box = machine(&server, 60)?;
    hotl(&build_box, "box", &["sessions", "pull", &fork]).ok();
    hotl(&build_box, "box", &["sessions", "check", &fork]).ok();
    assert_eq!(build_box.session_ids()?.len(), 2);
    Ok(())
}
