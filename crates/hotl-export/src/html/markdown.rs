//! Markdown to HTML at export time: pulldown-cmark with every piece of raw HTML in the text
//! turned into text, line breaks kept, links kept only to web and mail addresses, images
//! never fetched, and code blocks highlighted by syntect into CSS classes.

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

use crate::html::escape;
use crate::html::highlight;

/// Renders `text` as markdown into `out`.
pub fn push(out: &mut String, text: &str) {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let mut events: Vec<Event> = Vec::new();
    let mut code: Option<(String, String)> = None;
    for event in Parser::new_ext(text, options) {
        if let Some((lang, body)) = &mut code {
            match event {
                Event::Text(t) => body.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let html = highlight::block(lang, body);
                    events.push(Event::Html(CowStr::from(html)));
                    code = None;
                }
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_owned()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                code = Some((lang, String::new()));
            }
            // A line break typed in a message or a note is meant as one (as chat renderers do).
            Event::SoftBreak => events.push(Event::HardBreak),
            // Raw HTML in a message is text the author typed.
            Event::Html(raw) | Event::InlineHtml(raw) => events.push(Event::Text(raw)),
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let dest_url = if safe_url(&dest_url) {
                    dest_url
                } else {
                    CowStr::from("")
                };
                events.push(Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }));
            }
            // An image in a message would be fetched: show where it points instead.
            Event::Start(Tag::Image { dest_url, .. }) => {
                events.push(Event::Text(CowStr::from(format!("[image {dest_url}: "))));
            }
            Event::End(TagEnd::Image) => events.push(Event::Text(CowStr::from("]"))),
            other => events.push(other),
        }
    }
    if let Some((lang, body)) = code {
        events.push(Event::Html(CowStr::from(highlight::block(&lang, &body))));
    }
    let start = out.len();
    pulldown_cmark::html::push_html(out, events.into_iter());
    // Line and paragraph separators are text to HTML but line ends to old script parsers.
    if out[start..].contains(['\u{2028}', '\u{2029}']) {
        let tail = out.split_off(start);
        out.push_str(
            &tail
                .replace('\u{2028}', "&#8232;")
                .replace('\u{2029}', "&#8233;"),
        );
    }
}

/// `text` as markdown HTML.
pub fn render(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    push(&mut out, text);
    out
}

/// Addresses a link may keep: web, mail, and anchors in the page.
fn safe_url(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    lower.starts_with("https://")
        || lower.starts_with("http://")
        || lower.starts_with("mailto:")
        || lower.starts_with('#')
}

/// Plain text with no markdown reading: for tool output and anything that is not prose.
pub fn pre(out: &mut String, text: &str) {
    out.push_str("<pre>");
    escape::push(out, text);
    out.push_str("</pre>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_text() {
        let html = render("hi <img src=x onerror=alert(1)> </script><!-- x -->");
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{html}"
        );
        assert!(!html.contains("</script>"), "{html}");
    }

    #[test]
    fn script_links_are_dropped_and_images_not_fetched() {
        let html = render("[x](javascript:alert(1)) ![a](https://e.invalid/p.png)");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("[image https://e.invalid/p.png: a]"),
            "{html}"
        );
        let html = render("[ok](https://example.com)");
        assert!(html.contains("href=\"https://example.com\""), "{html}");
    }

    #[test]
    fn code_blocks_are_escaped_and_classed() {
        let html = render("```rust\nfn main() { let s = \"</script>\"; }\n```\n");
        assert!(html.contains("<pre class=\"code\""), "{html}");
        assert!(!html.contains("</script>"), "{html}");
        assert!(html.contains("sy-"), "{html}");
    }
}
