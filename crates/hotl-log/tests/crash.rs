//! A writer killed with SIGKILL at random points loses nothing it acknowledged, and nothing is
//! ever truncated.

use std::collections::BTreeSet;
use std::time::Duration;

use hotl_log::{SessionStart, Store};
use hotl_testkit::TestResult;

use crate::child::{spawn, wait_for};

#[test]
fn sigkill_while_appending_keeps_every_acknowledged_record() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::new(dir.path());
    let id = store
        .create(SessionStart::new("/p"), 1, vec![])?
        .id()
        .to_owned();
    let path = store.layout().log(&id);
    let mut acked = BTreeSet::new();
    let mut torn_seen = 0;
    // A cheap deterministic spread of kill delays.
    let delays = [3u64, 17, 41, 8, 29, 1, 55, 12, 36, 22, 5, 47];
    for (round, delay) in delays.iter().enumerate() {
        let before = std::fs::read(&path)?;
        let (mut child, mut out) = spawn("appender", dir.path(), &id);
        // At least one acknowledged record per round, then a kill at an arbitrary moment.
        let first = wait_for(&mut out, "ACK ").ok_or("the appender started")?;
        acked.insert(first.parse::<u64>()?);
        std::thread::sleep(Duration::from_millis(*delay));
        child.kill()?;
        child.wait()?;
        while let Some(seq) = wait_for(&mut out, "ACK ") {
            acked.insert(seq.parse::<u64>()?);
        }
        let after = std::fs::read(&path)?;
        assert!(
            after.starts_with(&before),
            "round {round}: earlier bytes changed"
        );

        let log = store.read(&id)?;
        let loaded: BTreeSet<u64> = log.records.iter().map(|r| r.seq).collect();
        let missing: Vec<_> = acked.difference(&loaded).collect();
        assert!(
            missing.is_empty(),
            "round {round}: acknowledged seqs lost: {missing:?}"
        );
        if log.report.torn_tail.is_some() {
            torn_seen += 1;
            let check = store.check(&id)?;
            assert!(!check.is_healthy());
            assert!(
                check.findings.iter().any(|f| f.message.contains("torn")),
                "{:?}",
                check.findings
            );
        }
    }
    // The next writer terminates any torn tail with a newline and carries on numbering.
    let size = std::fs::metadata(&path)?.len();
    let mut writer = store.writer(&id)?;
    let next = writer.next_seq();
    assert!(acked.iter().all(|&s| s < next));
    writer.append(hotl_log::Body::Clear)?;
    drop(writer);
    assert!(std::fs::metadata(&path)?.len() > size);
    let log = store.read(&id)?;
    assert!(log.report.torn_tail.is_none());
    eprintln!("torn tails observed: {torn_seen} of {}", delays.len());
    Ok(())
}
