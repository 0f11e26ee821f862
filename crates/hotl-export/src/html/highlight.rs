//! Code highlighting at export time: syntect turns a fenced block into spans with CSS classes
//! (no inline styles, so the page's style policy stays strict), and the page's stylesheet
//! carries the classes' colours for the light and the dark theme.

use std::cell::Cell;
use std::sync::OnceLock;

use syntect::html::{ClassStyle, ClassedHTMLGenerator, css_for_theme_with_class_style};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

use crate::html::escape;

const CLASSES: ClassStyle = ClassStyle::SpacedPrefixed { prefix: "sy-" };

/// Blocks larger than this are shown plain: highlighting them costs more than it shows.
const MAX_BLOCK: usize = 32 * 1024;

/// How much code one page highlights at most: syntect runs at a few MB/s, so a session with
/// megabytes of code shows the rest plain rather than taking seconds.
pub const PAGE_BUDGET: usize = 128 * 1024;

thread_local! {
    static BUDGET: Cell<usize> = const { Cell::new(PAGE_BUDGET) };
}

/// Runs `f` with a fresh highlighting budget of `bytes`.
pub fn with_budget<T>(bytes: usize, f: impl FnOnce() -> T) -> T {
    let before = BUDGET.with(|b| b.replace(bytes));
    let out = f();
    BUDGET.with(|b| b.set(before));
    out
}

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// A code block: highlighted when its language is known, escaped text otherwise.
pub fn block(lang: &str, code: &str) -> String {
    let mut out = String::with_capacity(code.len() * 2 + 48);
    out.push_str("<pre class=\"code\"");
    if !lang.is_empty() {
        out.push_str(" data-lang=\"");
        escape::push(&mut out, lang);
        out.push('"');
    }
    out.push_str("><code>");
    match highlighted(lang, code) {
        Some(html) => out.push_str(&html),
        None => escape::push(&mut out, code),
    }
    out.push_str("</code></pre>");
    out
}

fn highlighted(lang: &str, code: &str) -> Option<String> {
    if lang.is_empty() || code.len() > MAX_BLOCK {
        return None;
    }
    let left = BUDGET.with(Cell::get);
    if code.len() > left {
        return None;
    }
    BUDGET.with(|b| b.set(left - code.len()));
    let set = syntaxes();
    let syntax = set.find_syntax_by_token(lang)?;
    let mut generator = ClassedHTMLGenerator::new_with_class_style(syntax, set, CLASSES);
    for line in LinesWithEndings::from(code) {
        generator
            .parse_html_for_line_which_includes_newline(line)
            .ok()?;
    }
    Some(generator.finalize())
}

/// The classes' colours in the light theme.
pub fn light_css() -> String {
    theme_css("InspiredGitHub", None)
}

/// The classes' colours in the dark theme, each rule under `scope` (a selector prefix such as
/// `:root[data-theme=dark]`).
pub fn dark_css(scope: &str) -> String {
    theme_css("base16-ocean.dark", Some(scope))
}

fn theme_css(name: &str, scope: Option<&str>) -> String {
    let themes = syntect::highlighting::ThemeSet::load_defaults();
    let Some(theme) = themes.themes.get(name) else {
        return String::new();
    };
    let Ok(css) = css_for_theme_with_class_style(theme, CLASSES) else {
        return String::new();
    };
    match scope {
        Some(scope) => scoped(&css, scope),
        None => without_comments(&css),
    }
}

/// Each rule of `css` with its selectors under `scope`.
fn scoped(css: &str, scope: &str) -> String {
    let css = without_comments(css);
    let mut out = String::with_capacity(css.len() * 2);
    for rule in css.split_inclusive('}') {
        let Some((selectors, body)) = rule.split_once('{') else {
            out.push_str(rule);
            continue;
        };
        let selectors: Vec<String> = selectors
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| format!("{scope} {s}"))
            .collect();
        if selectors.is_empty() {
            continue;
        }
        out.push_str(&selectors.join(","));
        out.push('{');
        out.push_str(body);
    }
    out
}

fn without_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        match rest[start..].find("*/") {
            Some(end) => rest = &rest[start + end + 2..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}
