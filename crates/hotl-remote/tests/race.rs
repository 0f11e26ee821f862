//! Two machines adopting one tree, in any interleaving: exactly one holds it at a time, and
//! the store never holds two segments whose seqs overlap.

use std::collections::BTreeMap;

use hotl_remote::{Lease, RemoteError};
use proptest::prelude::*;

use crate::support::{Cloud, Machine};

#[derive(Clone, Copy, Debug)]
enum Step {
    /// Both machines take the lease at once.
    AcquireBoth,
    /// One machine takes it (and catches up).
    Acquire(usize),
    /// One machine writes records (whether or not its lease is still good).
    Write(usize, usize),
    /// One machine publishes.
    Publish(usize),
    /// One machine's lease runs out without it knowing (it goes on as a zombie).
    Expire(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::AcquireBoth),
        (0..2usize).prop_map(Step::Acquire),
        (0..2usize, 1..4usize).prop_map(|(m, n)| Step::Write(m, n)),
        (0..2usize).prop_map(Step::Publish),
        (0..2usize).prop_map(Step::Expire),
    ]
}

/// Every session's segments in the store are whole and follow one another.
async fn segments_never_overlap(cloud: &Cloud, reader: &Machine) {
    let mut by_session: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    for name in cloud.names().await {
        let rel = name.trim_start_matches("team/");
        if let Some(hotl_remote::layout::TreeObject::Segment { session, start, .. }) =
            hotl_remote::layout::parse_tree_object(rel)
        {
            by_session.entry(session).or_default().push((start, name));
        }
    }
    for (session, mut segments) in by_session {
        segments.sort();
        let mut last = 0;
        for (start, name) in segments {
            let bytes = cloud.read(&name).await;
            let seg = hotl_remote::segment::decode(&bytes, &session, &session, start)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                last == 0 || start == last + 1,
                "{name} starts at {start} after {last}"
            );
            last = seg.header.last;
        }
    }
    let _ = reader;
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn two_machines_never_both_hold_or_overlap(steps in proptest::collection::vec(step(), 1..14)) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let cloud = Cloud::new();
            let machines = [cloud.machine("one", 60, None), cloud.machine("two", 60, None)];
            let root = machines[0].session(1);
            machines[1].store.import(&machines[0].store.layout().log(&root), false).unwrap();
            let mut leases: [Option<Lease>; 2] = [None, None];
            for step in steps {
                match step {
                    Step::AcquireBoth => {
                        let (a, b) = tokio::join!(
                            machines[0].remote.acquire(&root),
                            machines[1].remote.acquire(&root)
                        );
                        let oks = [a.is_ok(), b.is_ok()];
                        assert_eq!(oks.iter().filter(|ok| **ok).count(), 1, "{a:?} / {b:?}");
                        for (m, got) in [a, b].into_iter().enumerate() {
                            match got {
                                Ok(lease) => leases[m] = Some(lease),
                                Err(RemoteError::Held { .. }) => {}
                                Err(e) => panic!("{e}"),
                            }
                        }
                        for (m, lease) in leases.iter().enumerate() {
                            if lease.is_some() && !oks[m] {
                                // It thinks it holds, but the other machine does: a zombie.
                            }
                        }
                    }
                    Step::Acquire(m) => match machines[m].remote.acquire(&root).await {
                        Ok(lease) => {
                            leases[m] = Some(lease);
                            match machines[m].remote.pull(&root).await {
                                Ok(_) | Err(RemoteError::NoMatch(_)) => {}
                                Err(e) => panic!("{e}"),
                            }
                        }
                        Err(RemoteError::Held { .. }) => {}
                        Err(e) => panic!("{e}"),
                    },
                    Step::Write(m, n) => {
                        if leases[m].is_some() {
                            machines[m].grow(&root, n);
                        }
                    }
                    Step::Publish(m) => {
                        if let Some(lease) = leases[m].as_mut() {
                            match machines[m].remote.publish(lease).await {
                                Ok(_) => {}
                                Err(RemoteError::Fenced { .. } | RemoteError::Diverged { .. }) => {
                                    leases[m] = None;
                                }
                                Err(e) => panic!("{e}"),
                            }
                        }
                    }
                    Step::Expire(m) => {
                        if let Some(lease) = &leases[m] {
                            machines[m].remote.release(lease).await.unwrap();
                        }
                    }
                }
                segments_never_overlap(&cloud, &machines[0]).await;
            }
        });
    }
}
