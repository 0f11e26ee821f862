//! The credential shapes redaction looks for: one row per kind, written from the formats the
//! vendors document (prefixes, lengths, alphabets) and the places secrets sit in ordinary text
//! (`.env` lines, URLs, `Authorization` headers, command lines). A rule with a `secret` group
//! replaces only that group, so `AccountKey=` or `https://user:` stays readable around it.
//!
//! Order matters: a more specific shape comes first, so a Stripe key is named a Stripe key and
//! not a generic assignment, and text already replaced is not matched again.

/// A kind of credential and the pattern that finds it.
pub(super) struct Rule {
    /// What the report calls it.
    pub(super) kind: &'static str,
    /// A regex; a named group `secret`, when present, is the part replaced.
    pub(super) pattern: &'static str,
}

const fn rule(kind: &'static str, pattern: &'static str) -> Rule {
    Rule { kind, pattern }
}

/// Every built-in rule, most specific first.
pub(super) const RULES: &[Rule] = &[
    rule(
        "private key",
        r"-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY( BLOCK)?-----",
    ),
    rule("age key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"),
    rule(
        "share link",
        r"https?://[^\s\x22'<>]+/s/[A-Za-z0-9_-]{10,64}#[A-Za-z0-9_=&-]{20,}",
    ),
    rule(
        "slack webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
    ),
    rule(
        "discord webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{30,}",
    ),
    rule("anthropic key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    rule("stripe key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    rule("stripe key", r"\bwhsec_[A-Za-z0-9+/=]{24,}"),
    rule(
        "openai key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    ),
    rule("github token", r"\bgh[pousr]_[A-Za-z0-9]{30,}"),
    rule("github token", r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    rule(
        "gitlab token",
        r"\bgl(?:pat|ptt|dt|rt|cbt|ft|imt|soat|agent)-[A-Za-z0-9_-]{20,}",
    ),
    rule("aws access key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    // The secret key has no prefix of its own: it is the 40 characters after a name that
    // says what it is (`aws_secret_access_key = …`, `AWS_SECRET_ACCESS_KEY=…`, JSON).
    rule(
        "aws secret key",
        r#"(?i)aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
    ),
    rule("google api key", r"\bAIza[0-9A-Za-z_-]{35}"),
    rule("google oauth secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}"),
    rule("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    rule("pypi token", r"\bpypi-[A-Za-z0-9_-]{50,}"),
    rule(
        "sendgrid key",
        r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}",
    ),
    rule("hugging face token", r"\bhf_[A-Za-z0-9]{30,}"),
    rule("twilio key", r"\bSK[0-9a-fA-F]{32}\b"),
    rule(
        "azure storage key",
        r"(?i)AccountKey=(?P<secret>[A-Za-z0-9+/=]{20,})",
    ),
    rule(
        "azure signature",
        r"(?i)[?&]sig=(?P<secret>[A-Za-z0-9%+/=]{20,})",
    ),
    rule("slack token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}"),
    rule("digitalocean token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    rule("shopify token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    rule("databricks token", r"\bdapi[a-f0-9]{32}\b"),
    rule("vault token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}"),
    rule("linear key", r"\blin_api_[A-Za-z0-9]{40}\b"),
    rule("postman key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    rule("grafana token", r"\bgl(?:sa|c)_[A-Za-z0-9+/=_-]{32,}"),
    rule("mailgun key", r"\bkey-[0-9a-f]{32}\b"),
    rule("telegram bot token", r"\b[0-9]{8,10}:AA[A-Za-z0-9_-]{33}\b"),
    rule(
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    // Where secrets sit rather than what they look like.
    rule(
        "authorization header",
        r#"(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot)\s+(?P<secret>[A-Za-z0-9._~+/=-]{8,})"#,
    ),
    rule(
        "bearer token",
        r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{20,}=*)",
    ),
    rule(
        "url password",
        r#"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@'"<>]{1,100}:(?P<secret>[^\s@/'"<>]{1,200})@"#,
    ),
    rule(
        "command-line password",
        r#"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb|mariadb-dump)\b[^\n]*?\s(?:-p|--password=)(?P<secret>'[^'\n]+'|"[^"\n]+"|[^\s'"]+)"#,
    ),
    rule(
        "command-line password",
        r#"(?i)\s--(?:password|passwd|token|api-key|secret|client-secret)[= ](?P<secret>'[^'\n]+'|"[^"\n]+"|[^\s'"-][^\s'"]{3,})"#,
    ),
    // `.env` and shell lines: a name in capitals that says it holds a secret.
    rule(
        "secret assignment",
        r##"(?m)(?:^|[\s;])(?:export\s+)?[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|AUTH_?KEY|SIGNING_?KEY)[A-Z0-9_]*[ \t]*=[ \t]*(?P<secret>'[^'\n$][^'\n]{3,}'|"[^"\n$][^"\n]{3,}"|[^\s'"#$][^\s'"#]{3,})"##,
    ),
    // JSON, YAML and TOML keys that say so, with a quoted value.
    rule(
        "secret assignment",
        r#"(?i)["']?[a-z0-9_.-]*(?:password|passwd|passphrase|secret|api_?key|apikey|access_?token|auth_?token|refresh_?token|private_?key)["']?\s*[:=]\s*(?P<secret>"[^"\n]{4,}"|'[^'\n]{4,}')"#,
    ),
];
