//! `hotl remote check`: the probes' outcome, and whether the store is used read-only.

use serde::Serialize;

use super::{Report, Shown};
use crate::check::Report as Probed;
use crate::error::Result;
use crate::remote::Remote;

/// What `hotl remote check` found.
#[derive(Clone, Debug, Serialize)]
pub struct Checked {
    /// The name the remote was added under.
    pub name: Option<String>,
    /// Whether every probe held.
    pub ok: bool,
    /// The probes.
    #[serde(flatten)]
    pub report: Probed,
}

impl Remote {
    /// Runs `hotl remote check`'s probes.
    pub async fn checked(&self) -> Result<Checked> {
        let report = self.check().await?;
        Ok(Checked {
            name: self.cfg.name.clone(),
            ok: report.ok(),
            report,
        })
    }
}

impl Report for Checked {
    fn text(&self, _: &Shown) -> String {
        let r = &self.report;
        let mut out = format!("{} ({})\n", self.name.as_deref().unwrap_or(&r.url), r.url);
        for probe in &r.probes {
            let mark = if probe.ok { "ok  " } else { "FAIL" };
            out += &format!("  {mark} {:<13} {}\n", probe.name, probe.detail);
        }
        let on = |b: bool| if b { "on" } else { "off" };
        out += &format!("  encrypt: {}   redact: {}\n", on(r.encrypt), on(r.redact));
        if let Some(skew) = r.skew_ms {
            out += &format!(
                "  this machine's clock is {skew} ms from the store's (as its whole seconds tell)\n"
            );
        }
        out += &match r.read_only_because() {
            None => "every probe held: sessions are published here\n".to_owned(),
            Some(why) => {
                format!("hotl uses this store read-only (pull, list, show), because {why}\n")
            }
        };
        out
    }

    fn ok(&self) -> bool {
        self.ok
    }
}
