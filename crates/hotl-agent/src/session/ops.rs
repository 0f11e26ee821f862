//! What a person does to a session besides talking to it: clear the model's context, start the
//! provider side fresh, move the session to another directory. Each is one record; the
//! transcript keeps everything.

use std::path::Path;

use hotl_log::Body;

use super::Session;
use crate::error::{AgentError, Result};

impl Session {
    /// Records a `clear`: the model sees nothing before it from now on (resumes and forks
    /// too); `sessions show` still does. Returns its seq.
    pub fn clear(&mut self) -> Result<u64> {
        self.append(Body::Clear)?;
        Ok(self.view.head_seq)
    }

    /// Records a `fresh` with a new prompt-cache key, which every request carries from now on
    /// (after a resume too), and forgets the encodings this process reuses between requests.
    /// Returns the new key.
    pub fn fresh(&mut self) -> Result<String> {
        let key = hotl_log::new_session_id();
        self.append(Body::Fresh {
            cache_key: key.clone(),
        })?;
        self.cache_key.clone_from(&key);
        // Requests reuse encoded messages under a key made with the epoch: a new epoch
        // encodes everything again.
        self.epoch += 1;
        Ok(key)
    }

    /// Records a `revert` to just before user message `t<seq>`: that message and every later
    /// turn leave the visible branch (the log keeps them, and `sessions show` marks the
    /// revert). Returns the last stamp kept and the message's text, so a front end can put it
    /// back in the composer.
    pub fn revert_before(&mut self, seq: u64) -> Result<(u64, String)> {
        let (to, text) = self.revert_target(seq)?;
        self.append(Body::Revert { to })?;
        Ok((to, text))
    }

    /// The last stamp kept by a revert to just before user message `t<seq>`, and the
    /// message's text; nothing is recorded.
    pub(super) fn revert_target(&self, seq: u64) -> Result<(u64, String)> {
        let mut text = None;
        for item in &self.view.items {
            item.for_each_user(&mut |s, content| {
                if s == seq {
                    text = Some(hotl_log::plain_text(content));
                }
            });
        }
        let Some(text) = text else {
            return Err(AgentError::Refused(format!(
                "t{seq} is not a user message of this session"
            )));
        };
        let to = self
            .view
            .boundaries
            .iter()
            .rev()
            .find(|b| b.seq < seq)
            .map(|b| b.seq)
            .ok_or_else(|| {
                AgentError::Refused(format!("there is nothing before t{seq} to go back to"))
            })?;
        Ok((to, text))
    }

    /// The prompt-cache key requests carry.
    pub fn cache_key(&self) -> &str {
        &self.cache_key
    }

    /// Records a `reroot`: the session works in `cwd` from now on (its recorded directory is
    /// gone, say). Its frozen prompt stays as it was, so the prompt cache still holds.
    pub fn reroot(&mut self, cwd: &Path) -> Result<()> {
        if !cwd.is_dir() {
            return Err(AgentError::MissingCwd(cwd.display().to_string()));
        }
        self.append(Body::Reroot {
            cwd: cwd.display().to_string(),
        })?;
        self.cwd = cwd.to_path_buf();
        Ok(())
    }
}
