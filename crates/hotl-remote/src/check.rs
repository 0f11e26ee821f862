//! `hotl remote check`: probes that the store does what leases and segments need. It lists,
//! writes, reads back (whole and by range), refuses a second create of one object, and
//! refuses a replacement that names a version no longer there. A store that lets either of
//! the last two through would let two machines write one tree: hotl uses it read-only.

use std::time::{Duration, SystemTime};

use object_store::{PutMode, UpdateVersion};
use serde::{Deserialize, Serialize};

use crate::error::{RemoteError, Result};
use crate::layout;
use crate::remote::Remote;

/// One probe's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// What was probed (`list`, `write`, `read`, `range`, `create_once`, `stale_update`).
    pub name: String,
    /// Whether the store did what hotl needs.
    pub ok: bool,
    /// What happened, in words.
    pub detail: String,
}

/// What `hotl remote check` found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// The store.
    pub url: String,
    /// Each probe, in order.
    pub probes: Vec<Probe>,
    /// Whether everything is sealed.
    pub encrypt: bool,
    /// Whether what is published is redacted.
    pub redact: bool,
    /// This machine's clock minus the store's, in milliseconds, when measured.
    pub skew_ms: Option<i64>,
    /// When it was checked (RFC 3339).
    pub checked: String,
}

impl Report {
    /// Whether every probe held.
    pub fn ok(&self) -> bool {
        !self.probes.is_empty() && self.probes.iter().all(|p| p.ok)
    }

    /// Why the store is read-only, when a probe failed: the first failure.
    pub fn read_only_because(&self) -> Option<String> {
        self.probes
            .iter()
            .find(|p| !p.ok)
            .map(|p| format!("{}: {}", p.name, p.detail))
    }
}

/// Where a home keeps the verdict, in the store's derived directory.
const CHECK_FILE: &str = "check.json";

/// How long a check's verdict is trusted before it is made again.
const VERDICT_FOR: Duration = Duration::from_secs(24 * 3600);

impl Remote {
    /// Runs every probe (see the module docs) and remembers the verdict.
    pub async fn check(&self) -> Result<Report> {
        let nonce = ulid::Ulid::generate().to_string();
        let mut probes = Vec::new();
        // The clock is read beside the probes; it is reported only when they all held.
        let (result, skew) = tokio::join!(self.probe_all(&nonce, &mut probes), self.skew_ms());
        let removed = ["plain", "once", "versioned"].map(|what| {
            let name = layout::probe(&nonce, what);
            async move { self.bucket.delete(&name).await }
        });
        for removed in futures_util::future::join_all(removed).await {
            if let Err(e) = removed {
                tracing::debug!("a probe object is left: {e}");
            }
        }
        let ran = match result {
            Ok(()) => true,
            // Not reached: nothing is known of what the store can do.
            Err(e) if e.is_unreachable() => return Err(e),
            Err(e) => {
                probes.push(Probe {
                    name: "reach".to_owned(),
                    ok: false,
                    detail: e.to_string(),
                });
                false
            }
        };
        let skew_ms = probes.iter().all(|p| p.ok).then(|| skew.ok()).flatten();
        let report = Report {
            url: self.cfg.url.clone(),
            probes,
            encrypt: self.bucket.keys().is_some(),
            redact: self.redactor.is_some(),
            skew_ms,
            checked: hotl_log::format_ts(SystemTime::now()),
        };
        // A verdict is kept only when every probe ran: credentials fixed later are not
        // held against the store.
        if ran {
            let bytes = serde_json::to_vec(&report).expect("a report serializes");
            if let Err(e) = self
                .store
                .put_derived(&self.state_name(), CHECK_FILE, &bytes)
            {
                tracing::warn!("the check's verdict is not kept: {e}");
            }
        }
        Ok(report)
    }

    /// The probes, in three groups that run at once (what a group writes, no other reads):
    /// reading and writing, creating once, replacing a stale version. Their verdicts come in
    /// that order whatever order they finish in.
    async fn probe_all(&self, nonce: &str, probes: &mut Vec<Probe>) -> Result<()> {
        let (listed, marker) = tokio::join!(
            self.bucket.list_first(layout::SUMMARIES, 100),
            self.marker()
        );
        let listed = listed?;
        probes.push(probe(
            "list",
            true,
            match listed.len() {
                1 => "a tree summary listed".to_owned(),
                0 => "listed (no tree yet)".to_owned(),
                _ => "tree summaries listed".to_owned(),
            },
        ));
        if let Err(e) = marker {
            probes.push(probe("marker", false, e.to_string()));
            return Ok(());
        }
        let (read_write, once, stale) = tokio::try_join!(
            self.probe_read_write(nonce),
            self.probe_create_once(nonce),
            self.probe_stale_update(nonce)
        )?;
        probes.extend(read_write);
        probes.push(once);
        probes.push(stale);
        Ok(())
    }

    /// An object written reads back, whole and by a byte range.
    async fn probe_read_write(&self, nonce: &str) -> Result<Vec<Probe>> {
        let plain = layout::probe(nonce, "plain");
        let body = format!("hotl probe {nonce}").into_bytes();
        self.bucket
            .put_raw(&plain, body.clone(), PutMode::Overwrite)
            .await
            .map_err(|e| RemoteError::store(format!("writing {}", self.bucket.shown(&plain)), e))?;
        let mut out = vec![probe("write", true, "an object was written".to_owned())];
        let read = self.bucket.get_raw(&plain).await?.map(|(b, _)| b.to_vec());
        let same = read.as_deref() == Some(body.as_slice());
        out.push(probe(
            "read",
            same,
            if same {
                "it read back the same".to_owned()
            } else {
                "it did not read back as written".to_owned()
            },
        ));
        let range = self.bucket.get_range_raw(&plain, 5..10).await?;
        let ranged = range.as_ref() == &body[5..10];
        out.push(probe(
            "range",
            ranged,
            if ranged {
                "a byte range read back".to_owned()
            } else {
                format!(
                    "a byte range read back as {} bytes that differ",
                    range.len()
                )
            },
        ));
        Ok(out)
    }

    /// A second conditional create of one object is refused.
    async fn probe_create_once(&self, nonce: &str) -> Result<Probe> {
        let once = layout::probe(nonce, "once");
        self.bucket
            .put_raw(&once, b"1".to_vec(), PutMode::Create)
            .await
            .map_err(|e| RemoteError::store(format!("creating {}", self.bucket.shown(&once)), e))?;
        let second = self
            .bucket
            .put_raw(&once, b"2".to_vec(), PutMode::Create)
            .await;
        let (ok, detail) = match second {
            Err(object_store::Error::AlreadyExists { .. }) => {
                (true, "a second create of one object was refused".to_owned())
            }
            Ok(_) => (
                false,
                "a second create of one object was accepted: two machines could both take a tree"
                    .to_owned(),
            ),
            Err(e) => (false, format!("a second create failed oddly: {e}")),
        };
        Ok(probe("create_once", ok, detail))
    }

    /// A replacement naming the current version lands; one naming a version no longer there
    /// is refused.
    async fn probe_stale_update(&self, nonce: &str) -> Result<Probe> {
        let versioned = layout::probe(nonce, "versioned");
        let first = self
            .bucket
            .put_raw(&versioned, b"1".to_vec(), PutMode::Overwrite)
            .await
            .map_err(|e| {
                RemoteError::store(format!("writing {}", self.bucket.shown(&versioned)), e)
            })?;
        let stale = UpdateVersion::from(first);
        let (ok, detail) = match self
            .bucket
            .put_raw(&versioned, b"2".to_vec(), PutMode::Update(stale.clone()))
            .await
        {
            Err(e) => (
                false,
                format!("a replacement naming the current version failed: {e}"),
            ),
            Ok(_) => match self
                .bucket
                .put_raw(&versioned, b"3".to_vec(), PutMode::Update(stale))
                .await
            {
                Err(object_store::Error::Precondition { .. }) => (
                    true,
                    "a replacement naming a version no longer there was refused".to_owned(),
                ),
                Ok(_) => (
                    false,
                    "a replacement naming a version no longer there was accepted: a lost lease would not be noticed".to_owned(),
                ),
                Err(e) => (false, format!("a stale replacement failed oddly: {e}")),
            },
        };
        Ok(probe("stale_update", ok, detail))
    }

    /// The last verdict of [`Remote::check`], while it is recent (a day) and of this store.
    fn recent_verdict(&self) -> Option<Report> {
        let path = self.store.derived_dir(&self.state_name()).join(CHECK_FILE);
        let report: Report = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        let checked = hotl_log::parse_ts(&report.checked)?;
        let recent = SystemTime::now()
            .duration_since(checked)
            .is_ok_and(|age| age < VERDICT_FOR);
        (recent && report.url == self.cfg.url).then_some(report)
    }

    /// The last verdict of [`Remote::check`], while it is recent: `Some(why)` when the store
    /// failed a probe (it is used read-only).
    pub fn read_only(&self) -> Option<String> {
        self.recent_verdict()?.read_only_because()
    }

    /// Makes sure the store may be written: checks it once a day (the verdict is kept), and
    /// refuses with why when a probe failed.
    pub async fn writable(&self) -> Result<()> {
        let fresh = self.recent_verdict();
        let report = match fresh {
            Some(report) => report,
            None => self.check().await?,
        };
        match report.read_only_because() {
            None => Ok(()),
            Some(why) => Err(RemoteError::ReadOnly {
                url: self.cfg.url.clone(),
                why,
            }),
        }
    }
}

/// A probe's verdict.
fn probe(name: &str, ok: bool, detail: String) -> Probe {
    Probe {
        name: name.to_owned(),
        ok,
        detail,
    }
}
