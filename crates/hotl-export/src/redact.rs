//! Redaction before a session leaves the machine: credentials of the shapes vendors document
//! and the places secrets sit in ordinary text (`rules.rs`: API keys and tokens of some forty
//! services, private keys, JWTs, `Authorization` headers, passwords in URLs and on command
//! lines, `.env` lines whose name says secret, earlier share links), the values of environment
//! variables whose names say they are secrets, secrets the user configured, and the home
//! directory (as `~`). It walks every text a snapshot holds — messages, thinking, tool inputs
//! and outputs, notes, summaries, titles, the system prompt, tools, children — and drops what
//! is opaque (thinking signatures, encrypted reasoning, the prompt-cache key). The report
//! counts replacements by kind and never holds a value.

mod rules;

use std::collections::BTreeMap;
use std::sync::LazyLock;

use hotl_log::{Block, Body, ToolInput};
use regex::{Regex, RegexSet};

use crate::snapshot::Snapshot;

/// Secrets shorter than this are not looked for: they would match ordinary text.
const MIN_SECRET: usize = 8;

/// Replacements made, by kind.
pub type Report = BTreeMap<String, usize>;

/// The built-in rules, compiled once: a set that says which rules can match a text, and each
/// rule's own regex to find where.
struct Compiled {
    set: RegexSet,
    rules: Vec<(&'static str, Regex)>,
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| {
    let patterns = rules::RULES.iter().map(|r| r.pattern);
    Compiled {
        set: RegexSet::new(patterns).expect("the built-in rules are valid regexes"),
        rules: rules::RULES
            .iter()
            .map(|r| {
                let regex = Regex::new(r.pattern).expect("the built-in rules are valid regexes");
                (r.kind, regex)
            })
            .collect(),
    }
});

/// What to look for.
pub struct Redactor {
    literals: Vec<(&'static str, String)>,
    home: Option<String>,
}

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
        let compiled = &*COMPILED;
        for i in compiled.set.matches(text).iter() {
            let (kind, rule) = &compiled.rules[i];
            replace_matches(rule, kind, text, report);
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
        for blob in s.blobs.values_mut().chain(s.frozen.values_mut()) {
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

/// Replaces what `rule` finds in `text` (its `secret` group when it has one) and counts it
/// under `kind`. A value already replaced by an earlier, more specific rule is left alone.
fn replace_matches(rule: &Regex, kind: &str, text: &mut String, report: &mut Report) {
    let mut out = String::new();
    let mut last = 0;
    let mut found = 0;
    for caps in rule.captures_iter(text) {
        let Some(secret) = caps.name("secret").or_else(|| caps.get(0)) else {
            continue;
        };
        if secret.as_str().contains("[REDACTED") {
            continue;
        }
        out.push_str(&text[last..secret.start()]);
        out.push_str(&placeholder(kind));
        last = secret.end();
        found += 1;
    }
    if found > 0 {
        out.push_str(&text[last..]);
        *text = out;
        *report.entry(kind.to_owned()).or_default() += found;
    }
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

    /// One sample of each shape `rules.rs` knows, as it appears in real text, and the value
    /// that must not survive.
    fn shapes() -> Vec<(String, &'static str, String)> {
        let b64 = "Q2hhbmdlTWVQbGVhc2UxMjM0NTY3ODkwYWJjZGVmZ2hpams".repeat(2);
        let raw = |text: String, kind, secret: String| (text, kind, secret);
        let same = |text: String, kind| (text.clone(), kind, text);
        vec![
            raw(
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n".to_owned(),
                "aws secret key",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".to_owned(),
            ),
            same(format!("sk_live_{}", "4eC39HqLyjWDarjtT1zdp7dc"), "stripe key"),
            same(format!("AIza{}", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"), "google api key"),
            same(format!("npm_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"), "npm token"),
            same(format!("pypi-AgEIcHlwaS5vcmc{}", "CJDk5NTQ0OTY3LTNmZjUtNDc5Ni1hODYxLTc0NWIxZWQ"), "pypi token"),
            same(format!("SG.{}.{}", "ngeVfQFYQlKU0ufo8x5d1A", "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"), "sendgrid key"),
            same(format!("hf_{}", "jRkTqGvBnWmXcLpZsYdFhAeUiOoKbNgQwErT"), "hugging face token"),
            same(format!("SK{}", "2f1c3a4b5d6e7f8091a2b3c4d5e6f708"), "twilio key"),
            raw(
                format!("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={b64}==;EndpointSuffix=core.windows.net"),
                "azure storage key",
                format!("{b64}=="),
            ),
            raw(
                "curl -H \"Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0\" https://api.example.com".to_owned(),
                "authorization header",
                "9f8e7d6c5b4a39281706f5e4d3c2b1a0".to_owned(),
            ),
            raw("mysql -u root -pS3cr3tPassw0rd shop".to_owned(), "command-line password", "S3cr3tPassw0rd".to_owned()),
            raw(
                "git clone https://deploy:hunter2-but-longer@git.example.com/app.git".to_owned(),
                "url password",
                "hunter2-but-longer".to_owned(),
            ),
            raw(
                "DATABASE_URL=postgres://app:pg-pass-5521@db:5432/app".to_owned(),
                "url password",
                "pg-pass-5521".to_owned(),
            ),
            raw("PASSWORD=correct-horse-battery".to_owned(), "secret assignment", "correct-horse-battery".to_owned()),
            raw("SECRET_KEY='django-insecure-8f7s6d5f4'".to_owned(), "secret assignment", "django-insecure-8f7s6d5f4".to_owned()),
            raw("export API_TOKEN=tok-778899aabbcc".to_owned(), "secret assignment", "tok-778899aabbcc".to_owned()),
            raw(
                "{\"client_secret\": \"0a1b2c3d4e5f-client\"}".to_owned(),
                "secret assignment",
                "0a1b2c3d4e5f-client".to_owned(),
            ),
            same(format!("dop_v1_{}", "ab12".repeat(16)), "digitalocean token"),
            same(format!("shpat_{}", "ab12".repeat(8)), "shopify token"),
            same(format!("hvs.{}", "CAESIJ8k2mQx7Lp9Rz3Wv5Ty1Nb"), "vault token"),
            same(format!("1234567890:AA{}", "Hk3m9Qx7Lp2Rz5Wv8Ty1Nb4Jc6Fd0Gs3A"), "telegram bot token"),
        ]
    }

    #[test]
    fn every_shape_is_replaced_and_named() {
        for (text, kind, secret) in shapes() {
            let (out, report) = redacted(&text);
            assert!(!out.contains(&secret), "{kind} survived: {out}");
            assert!(out.contains(&format!("[REDACTED {kind}]")), "{kind}: {out}");
            assert_eq!(report.values().sum::<usize>(), 1, "{kind}: {report:?}");
        }
    }

    /// Text that names secrets without holding one is left as it is.
    #[test]
    fn talk_about_secrets_is_not_redacted() {
        let plain = [
            "Authorization: see the docs for the header",
            "set PASSWORD=$DB_PASSWORD before running",
            "export TOKEN=\"${GITHUB_TOKEN}\"",
            "the password field is required; the token expires",
            "open https://example.com:8080/path and git@github.com:org/repo.git",
            "mysql -u root -h db shop",
            "let api_key = config.api_key;",
            "bearer of bad news",
        ];
        for text in plain {
            let (out, report) = redacted(text);
            assert_eq!(out, text);
            assert!(report.is_empty(), "{text}: {report:?}");
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
