//! The page around a transcript: its header (title, models, turns, tokens by kind, cost,
//! cache hits), banners (trimmed, redacted, lineage, log notes), the frozen system prompt and
//! tools, the delegated sessions' sections, the overlay they open in, and the shell that makes
//! it one offline file (inline style and script allowed by hash, nothing fetched) or a share
//! viewer (the same page, its body inserted by a loader after decryption).

use std::fmt::Write as _;
use std::sync::OnceLock;

use base64::Engine as _;

use crate::doc::{Document, SessionInfo};
use crate::economy::Economy;
use crate::html::transcript::{self, Omit};
use crate::html::{escape, markdown};
use crate::names::thousands;
use crate::snapshot::{Child, Snapshot};

const PAGE_JS: &str = include_str!("../../assets/page.js");
const VIEWER_JS: &str = include_str!("../../assets/viewer.js");
const PAGE_CSS: &str = include_str!("../../assets/page.css");

/// The page's stylesheet: its own rules and the code colours for both themes.
fn css() -> &'static str {
    static CSS: OnceLock<String> = OnceLock::new();
    CSS.get_or_init(|| {
        use crate::html::highlight::{dark_css, light_css};
        let mut css = PAGE_CSS.to_owned();
        css.push_str(&light_css());
        css.push_str(&dark_css(":root[data-theme=dark]"));
        // Auto follows the system: its dark rules apply only under a dark preference.
        css.push_str("@media (prefers-color-scheme:dark){");
        css.push_str(&dark_css(":root[data-theme=auto]"));
        css.push('}');
        css
    })
}

/// `'sha256-…'` of an inline script or style, for the content security policy.
fn csp_hash(text: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest.as_ref())
    )
}

/// The policy of an exported file: nothing loads from anywhere but the file itself.
pub fn export_policy() -> String {
    format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data: blob:; connect-src 'none'; base-uri 'none'; form-action 'none'",
        csp_hash(PAGE_JS),
        csp_hash(css())
    )
}

/// The policy of the share viewer: the page may fetch its own blob (and a gist, when the
/// viewer routes hex ids there).
pub fn viewer_policy(gist_api: Option<&str>) -> String {
    let connect = match gist_api.and_then(origin) {
        Some(origin) => format!("'self' {origin}"),
        None => "'self'".to_owned(),
    };
    format!(
        "default-src 'none'; script-src {} {}; style-src {}; img-src data: blob:; connect-src {connect}; base-uri 'none'; form-action 'none'",
        csp_hash(PAGE_JS),
        csp_hash(VIEWER_JS),
        csp_hash(css())
    )
}

fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split('/').next()?;
    Some(format!("{scheme}://{host}"))
}

/// The body of the page: header, banners, frozen prompt and tools, transcript, children, and
/// the overlay they open in; and the long rests of tool outputs it leaves to the document.
pub fn body(snapshot: &Snapshot, doc: &Document, omit: Omit) -> (String, Vec<String>) {
    crate::html::tools::collect_rests(|| {
        crate::html::highlight::with_budget(crate::html::highlight::PAGE_BUDGET, || {
            body_of(snapshot, doc, omit)
        })
    })
}

fn body_of(snapshot: &Snapshot, doc: &Document, omit: Omit) -> String {
    let info = &doc.session;
    let mut out = String::with_capacity(snapshot.records.len() * 400 + 4096);
    header(&mut out, snapshot, info);
    banners(&mut out, snapshot, doc);
    frozen(&mut out, snapshot);
    out.push_str("<main id=\"main\">");
    out.push_str(&transcript::render(snapshot, "", omit));
    out.push_str("</main><div id=\"children\">");
    for child in &snapshot.children {
        child_section(&mut out, child, None, omit);
    }
    out.push_str("</div><div id=\"overlay\"><div class=\"backdrop\"></div><div class=\"panel\" role=\"dialog\" aria-modal=\"true\"><div class=\"crumbs\"></div><div class=\"view\"></div></div></div>");
    out
}

fn header(out: &mut String, snapshot: &Snapshot, info: &SessionInfo) {
    out.push_str("<header class=\"top\"><h1>");
    escape::push(out, &info.heading(snapshot));
    out.push_str("</h1><div class=\"facts\">");
    let fact = |out: &mut String, text: &str| {
        out.push_str("<span>");
        escape::push(out, text);
        out.push_str("</span>");
    };
    fact(out, &format!("session {}", info.id));
    if let Some(name) = &info.name {
        fact(out, &format!("name {name}"));
    }
    if !info.cwd.is_empty() {
        fact(out, &info.cwd);
    }
    if !info.created.is_empty() {
        fact(out, &format!("started {}", info.created));
    }
    if !info.models.is_empty() {
        fact(out, &info.models.join(", "));
    }
    fact(
        out,
        &format!(
            "{} turn{}",
            info.turns,
            if info.turns == 1 { "" } else { "s" }
        ),
    );
    if let Some(e) = &snapshot.economy {
        economy_facts(out, e);
    }
    if info.children > 0 {
        fact(
            out,
            &format!(
                "{} delegated session{}",
                info.children,
                if info.children == 1 { "" } else { "s" }
            ),
        );
    }
    out.push_str("</div><div class=\"bar\"><input type=\"search\" id=\"q\" placeholder=\"Search everything, archived spans and children too (/)\" aria-label=\"search\"><button type=\"button\" id=\"toggle-thinking\" title=\"T\">thinking</button><button type=\"button\" id=\"toggle-tools\" title=\"O\">tools</button><button type=\"button\" id=\"download\">download log</button><select id=\"theme\" aria-label=\"theme\"><option value=\"auto\">auto</option><option value=\"light\">light</option><option value=\"dark\">dark</option></select></div><div id=\"results\"></div></header>");
}

fn economy_facts(out: &mut String, e: &Economy) {
    let unpriced = !e.unpriced.is_empty();
    let own = &e.own;
    let _ = write!(
        out,
        "<span class=\"econ\">tokens: in {} · cache read {} · cache write {} · out {}</span>",
        thousands(own.input),
        thousands(own.cache_read),
        thousands(own.cache_write),
        thousands(own.output)
    );
    match (own.cost, unpriced) {
        (Some(cost), false) => {
            let _ = write!(out, "<span class=\"econ\">${cost:.4}</span>");
        }
        _ => {
            out.push_str("<span class=\"econ\">unpriced: the pricing table does not know ");
            escape::push(out, &e.unpriced.join(", "));
            out.push_str("</span>");
        }
    }
    if let Some(hit) = own.cache_hit {
        let _ = write!(
            out,
            "<span class=\"econ\">{:.0}% cached</span>",
            hit * 100.0
        );
    }
    if !e.children.is_empty() {
        let _ = write!(
            out,
            "<span class=\"econ\">children: {}</span><span class=\"econ\">total: {}</span>",
            escape::escape(
                &e.children
                    .iter()
                    .map(|c| match (c.spend.cost, unpriced) {
                        (Some(cost), false) => format!("{} ${cost:.4}", c.handle),
                        _ => format!("{} unpriced", c.handle),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            escape::escape(&e.total.line(unpriced))
        );
    }
}

fn banners(out: &mut String, snapshot: &Snapshot, doc: &Document) {
    if !doc.trimmed.is_empty() {
        out.push_str("<div class=\"banner trim\"><b>Trimmed to fit:</b> ");
        escape::push(out, &doc.trimmed.join("; "));
        out.push_str("</div>");
    }
    if !doc.redacted.is_empty() {
        let counts: Vec<String> = doc
            .redacted
            .iter()
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect();
        out.push_str("<div class=\"banner\">Redacted: ");
        escape::push(out, &counts.join(", "));
        out.push_str("</div>");
    }
    for record in &snapshot.records {
        if let hotl_log::Body::Import(import) = &record.body {
            imported(out, import);
        }
    }
    if !snapshot.ancestors.is_empty() {
        out.push_str("<div class=\"banner\">Forked: lineage ");
        escape::push(out, &snapshot.ancestors.join(" ← "));
        out.push_str(" (nearest first)</div>");
    }
    if let Some(why) = &doc.log_left_out {
        out.push_str("<div class=\"banner\">");
        escape::push(out, why);
        out.push_str("</div>");
    }
    for note in &snapshot.notes {
        out.push_str("<div class=\"banner warn\">");
        escape::push(out, note);
        out.push_str("</div>");
    }
}

/// Where an imported session came from: the agent and its version, the file, what was kept
/// and what was skipped.
fn imported(out: &mut String, import: &hotl_log::ImportInfo) {
    let source = match import.source.as_str() {
        "claude-code" => "Claude Code",
        "codex" => "Codex",
        "pi" => "pi",
        other => other,
    };
    let mut line = format!("Imported from {source}");
    if let Some(version) = &import.source_version {
        line.push_str(&format!(" {version}"));
    }
    line.push_str(&format!(
        " ({}, {} records",
        import.source_path,
        thousands(import.records_total)
    ));
    let skipped: u64 = import.skipped.values().sum();
    if skipped > 0 {
        let kinds: Vec<String> = import
            .skipped
            .iter()
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect();
        line.push_str(&format!(", skipped: {}", kinds.join(", ")));
    }
    line.push_str(&format!("); everything up to t{} ran there", import.until));
    out.push_str("<div class=\"banner import\">");
    escape::push(out, &line);
    out.push_str("</div>");
}

fn frozen(out: &mut String, snapshot: &Snapshot) {
    if let Some(system) = &snapshot.system {
        out.push_str("<details class=\"frozen\"><summary>System prompt</summary>");
        markdown::pre(out, system);
        out.push_str("</details>");
    }
    if !snapshot.tools.is_empty() {
        let _ = write!(
            out,
            "<details class=\"frozen\"><summary>Tools ({})</summary>",
            snapshot.tools.len()
        );
        for tool in &snapshot.tools {
            out.push_str("<div class=\"toolinfo\"><b>");
            escape::push(out, &tool.name);
            out.push_str("</b> — ");
            escape::push(out, &tool.description);
            out.push_str("<details><summary>parameters</summary>");
            markdown::pre(out, &tool.schema);
            out.push_str("</details></div>");
        }
        out.push_str("</details>");
    }
}

fn child_section(out: &mut String, child: &Child, parent: Option<&str>, omit: Omit) {
    let key = format!("c-{}", child.snapshot.id);
    let d = &child.delegation;
    let label = d
        .handle
        .clone()
        .or_else(|| d.agent.clone())
        .unwrap_or_else(|| child.snapshot.id.clone());
    let _ = write!(
        out,
        "<section class=\"child\" id=\"{}\" data-label=\"{}\"",
        escape::escape(&key),
        escape::escape(&label)
    );
    if let Some(parent) = parent {
        let _ = write!(out, " data-parent=\"{}\"", escape::escape(parent));
    }
    out.push_str("><div class=\"child-head\"><div class=\"meta\">");
    escape::push(
        out,
        &format!(
            "{} · session {} · {}",
            d.agent.as_deref().unwrap_or("fork"),
            child.snapshot.id,
            transcript::child_status(child)
        ),
    );
    if let Some(e) = &child.snapshot.economy {
        out.push_str(" · ");
        escape::push(out, &e.total.line(!e.unpriced.is_empty()));
    }
    out.push_str("</div>");
    if !d.description.is_empty() {
        out.push_str("<div class=\"md\">");
        markdown::push(out, &d.description);
        out.push_str("</div>");
    }
    out.push_str("</div>");
    out.push_str(&transcript::render(
        &child.snapshot,
        &format!("{key}-"),
        omit,
    ));
    out.push_str("</section>");
    for grandchild in &child.snapshot.children {
        child_section(out, grandchild, Some(&key), omit);
    }
}

/// The `<head>` both pages share, with their policy.
fn head(out: &mut String, title: &str, policy: &str, extra_meta: &str) {
    out.push_str("<!doctype html><html lang=\"en\" data-theme=\"auto\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta name=\"referrer\" content=\"no-referrer\"><meta http-equiv=\"Content-Security-Policy\" content=\"");
    // hotl's own text, with no quote, angle bracket or ampersand in it.
    out.push_str(policy);
    out.push_str("\"><meta name=\"generator\" content=\"hotl\">");
    out.push_str(extra_meta);
    out.push_str("<title>");
    escape::push(out, title);
    out.push_str("</title><style>");
    out.push_str(css());
    out.push_str("</style></head>");
}

/// The exported file: the rendered body, the document embedded (gzipped JSON, base64) for the
/// log download, and the page script.
pub fn export_page(title: &str, body: &str, embedded: &str) -> String {
    let mut out = String::with_capacity(body.len() + embedded.len() + 64 * 1024);
    head(&mut out, title, &export_policy(), "");
    out.push_str("<body><div id=\"app\">");
    out.push_str(body);
    out.push_str("</div><script type=\"application/octet-stream\" id=\"hotl-data\">");
    // Base64 holds no character that could end the element.
    out.push_str(embedded);
    out.push_str("</script><script>");
    out.push_str(PAGE_JS);
    out.push_str("</script></body></html>\n");
    out
}

/// The share viewer for share `id`: the same page, empty until its loader has decrypted the
/// sealed document with the key in the link's fragment.
pub fn viewer_page(id: &str, gist_api: Option<&str>) -> String {
    let mut meta = format!(
        "<meta name=\"hotl-share-id\" content=\"{}\">",
        escape::escape(id)
    );
    if let Some(api) = gist_api {
        let _ = write!(
            meta,
            "<meta name=\"hotl-gist-api\" content=\"{}\">",
            escape::escape(api)
        );
    }
    let mut out = String::with_capacity(64 * 1024);
    head(&mut out, "hotl session", &viewer_policy(gist_api), &meta);
    // The loader comes first, so the page script sees it and leaves starting to it.
    out.push_str("<body><div id=\"app\"><div id=\"status\">Decrypting the shared session in this browser…</div></div><script id=\"hotl-loader\">");
    out.push_str(VIEWER_JS);
    out.push_str("</script><script>");
    out.push_str(PAGE_JS);
    out.push_str("</script></body></html>\n");
    out
}
