//! Redaction before a session leaves the machine: credentials of the shapes vendors document
//! (`sk-ant-…`, `sk-…`, `ghp_…`, `github_pat_…`, `glpat-…`, `AKIA…`, `xox?-…`, private keys,
//! JWTs, earlier share links), the values of environment variables whose names say they are
//! secrets, secrets the user configured, and the home directory (as `~`). It walks every text a
//! snapshot holds — messages, thinking, tool inputs and outputs, notes, summaries, titles,
//! the system prompt, tools, children — and drops what is opaque (thinking signatures,
//! encrypted reasoning, the prompt-cache key). The report counts replacements by kind and
//! never holds a value.

use std::collections::BTreeMap;

use hotl_log::{Block, Body, ToolInput};
use regex::Regex;

use crate::snapshot::Snapshot;

/// Secrets shorter than this are not looked for: they would match ordinary text.
const MIN_SECRET: usize = 8;

/// Replacements made, by kind.
pub type Report = BTreeMap<String, usize>;

/// What to look for.
pub struct Redactor {
    rules: Vec<(&'static str, Regex)>,
    literals: Vec<(&'static str, String)>,
    home: Option<String>,
}

/// The built-in credential shapes, most specific first.
const RULES: &[(&str, &str)] = &[
    (
        "private key",
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    ),
    (
        "share link",
        r"https?://[^\s\x22'<>]+/s/[A-Za-z0-9_-]{10,64}#[A-Za-z0-9_=&-]{20,}",
    ),
    ("anthropic key", r"sk-ant-[A-Za-z0-9_-]{20,}"),
    (
        "openai key",
        r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    ),
    ("github token", r"\bgh[pousr]_[A-Za-z0-9]{30,}"),
    ("github token", r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    ("gitlab token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
    ("aws access key", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
    ("slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
];

/// Environment variable names whose values are secrets.
const SECRET_NAME: &str =
    r"(?i)(?:KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASS|AUTH|CREDENTIAL|CREDENTIALS|PRIVATE)(?:_|$)";

impl Redactor {
    /// The built-in rules, the secret-looking variables of `env`, the `configured` secrets,
    /// and `home` (replaced by `~`).
    pub fn new(
        env: impl IntoIterator<Item = (String, String)>,
        configured: &[String],
        home: Option<String>,
    ) -> Redactor {
        let rules = RULES
            .iter()
            .map(|(kind, pattern)| {
                (
                    *kind,
                    Regex::new(pattern).expect("the built-in rules are valid regexes"),
                )
            })
            .collect();
        let secret_name = Regex::new(SECRET_NAME).expect("the name rule is a valid regex");
        let mut literals: Vec<(&'static str, String)> = Vec::new();
        for (name, value) in env {
            if value.len() >= MIN_SECRET && secret_name.is_match(&name) {
                literals.push(("environment secret", value));
            }
        }
        for secret in configured {
            if secret.len() >= MIN_SECRET {
                literals.push(("configured secret", secret.clone()));
            }
        }
        // Longer first, so a secret holding another is replaced whole.
        literals.sort_by_key(|(_, value)| std::cmp::Reverse(value.len()));
        literals.dedup_by(|a, b| a.1 == b.1);
        Redactor {
            rules,
            literals,
            home: home.filter(|h| h.len() > 1),
        }
    }

    /// Redacts one text in place.
    pub fn text(&self, text: &mut String, report: &mut Report) {
        for (kind, value) in &self.literals {
            if text.contains(value.as_str()) {
                let n = text.matches(value.as_str()).count();
                *text = text.replace(value.as_str(), &placeholder(kind));
                *report.entry((*kind).to_owned()).or_default() += n;
            }
        }
        for (kind, rule) in &self.rules {
            if rule.is_match(text) {
                let n = rule.find_iter(text).count();
                *text = rule
                    .replace_all(text, placeholder(kind).as_str())
                    .into_owned();
                *report.entry((*kind).to_owned()).or_default() += n;
            }
        }
        if let Some(home) = &self.home
            && text.contains(home.as_str())
        {
            let n = text.matches(home.as_str()).count();
            *text = text.replace(home.as_str(), "~");
            *report.entry("home directory".to_owned()).or_default() += n;
        }
    }

    /// Redacts a whole snapshot, children included, and drops what is opaque.
    pub fn snapshot(&self, snapshot: &mut Snapshot) -> Report {
        let mut report = Report::new();
        snapshot.walk_mut(&mut |s| self.one(s, &mut report));
        report
    }

    fn one(&self, s: &mut Snapshot, report: &mut Report) {
        if let Some(system) = &mut s.system {
            self.text(system, report);
        }
        for tool in &mut s.tools {
            self.text(&mut tool.description, report);
            self.text(&mut tool.schema, report);
        }
        for note in &mut s.notes {
            self.text(note, report);
        }
        for child in &mut s.children {
            self.text(&mut child.delegation.description, report);
        }
        for blob in s.blobs.values_mut() {
            // Text blobs (full outputs, diffs) are redacted; images are not text.
            if let Ok(text) = std::str::from_utf8(blob) {
                let mut text = text.to_owned();
                self.text(&mut text, report);
                *blob = text.into_bytes();
            }
        }
        for record in &mut s.records {
            self.body(&mut record.body, report);
        }
    }

    fn body(&self, body: &mut Body, report: &mut Report) {
        match body {
            Body::Session(start) => {
                self.text(&mut start.cwd, report);
                start.cache_key = None;
                if let Some(d) = &mut start.delegated {
                    self.text(&mut d.description, report);
                }
            }
            Body::User { content } | Body::Assistant { content, .. } => {
                self.blocks(content, report)
            }
            Body::ToolResult { content, files, .. } => {
                self.blocks(content, report);
                for f in files {
                    self.text(&mut f.path, report);
                }
            }
            Body::Fold(fold) => {
                self.text(&mut fold.note, report);
                for f in &mut fold.files {
                    self.text(&mut f.path, report);
                }
            }
            Body::Compaction { summary, .. } => self.text(summary, report),
            Body::Name { name: Some(name) } => self.text(name, report),
            Body::Title { title, .. } => self.text(title, report),
            Body::Todos { items } => {
                for todo in items {
                    self.text(&mut todo.text, report);
                }
            }
            Body::Error { message, .. } => self.text(message, report),
            Body::Ask {
                question, answer, ..
            } => {
                self.text(question, report);
                self.text(answer, report);
            }
            Body::Fresh { cache_key } => cache_key.clear(),
            Body::Reroot { cwd } => self.text(cwd, report),
            Body::Import(import) => {
                self.text(&mut import.source_path, report);
                for note in &mut import.notes {
                    self.text(note, report);
                }
            }
            _ => {}
        }
    }

    fn blocks(&self, blocks: &mut [Block], report: &mut Report) {
        for block in blocks.iter_mut() {
            match block {
                Block::Text { text } => self.text(text, report),
                Block::Thinking {
                    thinking,
                    signature,
                } => {
                    self.text(thinking, report);
                    *signature = None;
                }
                Block::RedactedThinking { .. } => {
                    *block = Block::Unknown {
                        kind: "redacted_thinking".to_owned(),
                    };
                }
                Block::ToolUse { input, .. } => self.input(input, report),
                Block::ToolResult { content, .. } => self.blocks(content, report),
                Block::Image { .. } | Block::Unknown { .. } => {}
            }
        }
    }

    /// A tool input's string values, redacted inside the JSON (so it stays JSON).
    fn input(&self, input: &mut ToolInput, report: &mut Report) {
        // A tool input is JSON by construction; one that is not has nothing to walk.
        let Ok(mut value) = input.parse::<serde_json::Value>() else {
            return;
        };
        let mut changed = false;
        self.value(&mut value, report, &mut changed);
        if changed
            && let Ok(text) = serde_json::to_string(&value)
            && let Ok(redacted) = ToolInput::from_json(text)
        {
            *input = redacted;
        }
    }

    fn value(&self, value: &mut serde_json::Value, report: &mut Report, changed: &mut bool) {
        match value {
            serde_json::Value::String(s) => {
                let original = s.clone();
                self.text(s, report);
                *changed |= *s != original;
            }
            serde_json::Value::Array(items) => {
                for v in items {
                    self.value(v, report, changed);
                }
            }
            serde_json::Value::Object(map) => {
                for v in map.values_mut() {
                    self.value(v, report, changed);
                }
            }
            _ => {}
        }
    }
}

fn placeholder(kind: &str) -> String {
    format!("[REDACTED {kind}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor() -> Redactor {
        Redactor::new(
            [
                (
                    "MY_API_KEY".to_owned(),
                    "value-of-my-api-key-123".to_owned(),
                ),
                ("PATH".to_owned(), "/usr/bin:/bin".to_owned()),
            ],
            &["configured-plain-secret".to_owned()],
            Some("/home/ada".to_owned()),
        )
    }

    fn redacted(text: &str) -> (String, Report) {
        let mut text = text.to_owned();
        let mut report = Report::new();
        redactor().text(&mut text, &mut report);
        (text, report)
    }

    #[test]
    fn credential_shapes_are_replaced_and_counted_by_kind() {
        let fake_gh = format!("ghp_{}", "a1B2".repeat(9));
        let samples = [
            (
                format!("key sk-ant-api03-{}", "x".repeat(40)),
                "anthropic key",
            ),
            (format!("key sk-proj-{}", "Y".repeat(40)), "openai key"),
            (format!("token {fake_gh}"), "github token"),
            (format!("github_pat_{}", "Z9".repeat(20)), "github token"),
            (format!("glpat-{}", "q".repeat(20)), "gitlab token"),
            ("id AKIAIOSFODNN7EXAMPLE here".to_owned(), "aws access key"),
            (format!("xoxb-{}", "1234-5678-abcd"), "slack token"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----"
                    .to_owned(),
                "private key",
            ),
            (
                format!(
                    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.{}",
                    "s".repeat(20)
                ),
                "jwt",
            ),
            (
                format!("see http://127.0.0.1:9/s/AbCdEfGhIjKl#{}", "k".repeat(43)),
                "share link",
            ),
            (
                "export MY_API_KEY=value-of-my-api-key-123".to_owned(),
                "environment secret",
            ),
            ("configured-plain-secret".to_owned(), "configured secret"),
        ];
        for (text, kind) in samples {
            let (out, report) = redacted(&text);
            assert!(out.contains(&format!("[REDACTED {kind}]")), "{kind}: {out}");
            assert_eq!(report.get(kind), Some(&1), "{kind}: {report:?}");
        }
    }

    #[test]
    fn home_becomes_tilde_and_ordinary_text_is_unchanged() {
        let (out, report) = redacted("open /home/ada/src/main.rs");
        assert_eq!(out, "open ~/src/main.rs");
        assert_eq!(report.get("home directory"), Some(&1));
        let plain = "skeleton key: sk-short, a ghp_ mention, AKIA alone, /usr/bin";
        let (out, report) = redacted(plain);
        assert_eq!(out, plain);
        assert!(report.is_empty(), "{report:?}");
    }

    #[test]
    fn tool_inputs_stay_json() {
        let r = redactor();
        let mut input = ToolInput::from_json(format!(
            r#"{{"command":"curl -H 'x-api-key: sk-ant-{}' /home/ada/x"}}"#,
            "k".repeat(30)
        ))
        .unwrap();
        let mut report = Report::new();
        r.input(&mut input, &mut report);
        let value: serde_json::Value = input.parse().unwrap();
        let command = value["command"].as_str().unwrap();
        assert!(command.contains("[REDACTED anthropic key]"), "{command}");
        assert!(command.ends_with("~/x"), "{command}");
    }
}
