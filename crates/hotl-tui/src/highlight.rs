//! Code blocks to terminal rows: syntect highlighting with foreground colours only, the
//! language found from a fence's info string, diffs coloured by their line marks, and the
//! guards that keep a hostile or huge block from stalling the screen. Also owns the one
//! syntax set and theme (loaded at most once, ahead of time by [`warm_up`]).

use std::sync::{LazyLock, Once};
use std::time::{Duration, Instant};

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{self, FontStyle, Theme, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};

use crate::wrap;

/// A block larger than this is shown plain: highlighting it would stall the screen.
pub const MAX_BLOCK_BYTES: usize = 512 * 1024;
/// A block with more lines than this is shown plain.
pub const MAX_BLOCK_LINES: usize = 10_000;
/// A line longer than this is shown plain; the parser's cost grows faster than a line's length
/// (Codex once hung for 25 minutes on a 4.7 KB one-line command).
pub const MAX_LINE_BYTES: usize = 1_000;
/// After highlighting for this long, the rest of a block is shown plain: a last guard against
/// a grammar that is slow on some input, whatever the caps above let through.
const TIME_BUDGET: Duration = Duration::from_millis(250);

/// A dark theme from syntect's defaults; its background is never used.
const THEME_NAME: &str = "base16-ocean.dark";

static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(SyntaxSet::load_defaults_newlines);
static THEME: LazyLock<Theme> = LazyLock::new(|| {
    ThemeSet::load_defaults()
        .themes
        .remove(THEME_NAME)
        .unwrap_or_default()
});

/// Loads the syntax set and theme on a background thread (and readies the grammars of the
/// commonest languages), so that the first highlighted block does not wait for them. Calling
/// it again does nothing; a block highlighted while the loading runs waits for it rather than
/// loading a second copy.
pub fn warm_up() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("hotl-highlight-warm-up".into())
            .spawn(prime);
        // Without the thread, the first block loads them instead: slower, not wrong.
        drop(spawned);
    });
}

/// Loads the syntax set and theme, then highlights a line or two in the languages answers
/// use most: a grammar's contexts are unpacked and its regexes compiled on first use, which
/// costs more than the loading itself.
fn prime() {
    const SAMPLES: &[(&str, &str)] = &[
        (
            "rs",
            "/// Doc.\n#[derive(Debug)]\npub fn f<'a>(x: &'a str) -> Option<u32> { let n = x.len() as u32; Some(n + 1) } // c\n",
        ),
        ("py", "def f(x: int) -> str:\n    return f\"{x}\" # c\n"),
        (
            "sh",
            "for f in *.rs; do echo \"$f\" | grep -v x > /dev/null; done # c\n",
        ),
        (
            "js",
            "const f = async (x) => { return `${x}` + 1; }; // c\n",
        ),
        ("json", "{\"a\": [1, true, null, \"s\"]}\n"),
    ];
    LazyLock::force(&SYNTAXES);
    LazyLock::force(&THEME);
    for (lang, code) in SAMPLES {
        code_rows(lang, code, 80);
    }
}

/// Rows of one code block in `lang` (a fence's info string, maybe empty or unknown),
/// highlighted and wrapped to `width`.
///
/// Every line of `code` gives at least one row (an empty line an empty row); a final newline
/// ends the last line rather than starting another. Rows are at most `width` columns, a
/// width of zero taken as one.
pub fn code_rows(lang: &str, code: &str, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let lines = split_lines(code);
    let token = lang_token(lang);
    let styled = if token == "diff" || token == "patch" {
        lines.iter().map(|line| diff_line(line)).collect()
    } else if code.len() > MAX_BLOCK_BYTES || lines.len() > MAX_BLOCK_LINES {
        plain_lines(&lines)
    } else {
        match syntax_for(&token) {
            Some(syntax) => highlighted(syntax, &lines),
            None => plain_lines(&lines),
        }
    };
    styled
        .iter()
        .flat_map(|line| wrap::wrap(line, width, &[]))
        .map(|row| fit(row, width))
        .collect()
}

/// `row` cut to `width` if it is wider: [`wrap::wrap`] lets a wide character overflow a row
/// narrower than the character, and no row may be wider than the screen.
pub(crate) fn fit(row: Line<'static>, width: usize) -> Line<'static> {
    let width = width.max(1);
    if wrap::line_width(&row) <= width {
        return row;
    }
    let cut = wrap::truncate(&row, width);
    if wrap::line_width(&cut) <= width {
        cut
    } else {
        Line::from("…")
    }
}

/// The lines of `code`, a final newline ending the last line and a `\r` before a newline
/// dropped.
fn split_lines(code: &str) -> Vec<&str> {
    if code.is_empty() {
        return Vec::new();
    }
    let code = code.strip_suffix('\n').unwrap_or(code);
    code.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect()
}

/// The language named by a fence's info string: its first word (`rust,ignore` and
/// `python {.numbers}` name rust and python), lower-cased, aliases resolved to a token
/// syntect's default syntaxes know.
fn lang_token(lang: &str) -> String {
    let first = lang
        .trim()
        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .next()
        .unwrap_or("")
        .trim_start_matches('.')
        .to_ascii_lowercase();
    let alias = match first.as_str() {
        "rust" => "rs",
        "python" | "python3" | "py3" => "py",
        // The defaults have no TypeScript; JavaScript's grammar reads most of it well.
        "javascript" | "jsx" | "mjs" | "cjs" | "ts" | "typescript" | "tsx" => "js",
        "shell" | "zsh" | "console" | "shellsession" | "sh-session" | "bash" | "ksh" => "sh",
        "jsonc" | "json5" => "json",
        "yml" => "yaml",
        "markdown" => "md",
        "h" => "c",
        "c++" | "cc" | "cxx" | "hpp" | "hxx" => "cpp",
        "golang" => "go",
        "ruby" => "rb",
        "htm" | "xhtml" => "html",
        other => other,
    };
    alias.to_owned()
}

/// The syntax for a language token, or `None` for plain text.
fn syntax_for(token: &str) -> Option<&'static SyntaxReference> {
    if token.is_empty() || token == "text" || token == "txt" || token == "plain" {
        return None;
    }
    let syntaxes: &'static SyntaxSet = &SYNTAXES;
    syntaxes
        .find_syntax_by_token(token)
        .filter(|syntax| syntax.name != "Plain Text")
}

/// `lines` highlighted one by one, with the guards for long lines and slow grammars.
fn highlighted(syntax: &SyntaxReference, lines: &[&str]) -> Vec<Line<'static>> {
    let theme: &Theme = &THEME;
    let plain_fg = theme.settings.foreground;
    let started = Instant::now();
    let mut highlighter = HighlightLines::new(syntax, theme);
    let mut rest_plain = false;
    let mut rows = Vec::with_capacity(lines.len());
    // The newline-terminated grammars want each line with its newline.
    let mut buffer = String::new();
    for line in lines {
        if rest_plain {
            rows.push(plain_line(line));
            continue;
        }
        if line.len() > MAX_LINE_BYTES {
            rows.push(plain_line(line));
            // The state the long line would have left is unknown; a fresh one costs only a
            // copy of the syntax's first context, and is right again from a statement's start.
            highlighter = HighlightLines::new(syntax, theme);
            continue;
        }
        buffer.clear();
        buffer.push_str(line);
        buffer.push('\n');
        match highlighter.highlight_line(&buffer, &SYNTAXES) {
            Ok(tokens) => rows.push(styled_line(&tokens, plain_fg)),
            Err(_) => {
                rows.push(plain_line(line));
                rest_plain = true;
            }
        }
        if started.elapsed() > TIME_BUDGET {
            rest_plain = true;
        }
    }
    rows
}

/// A highlighted line as spans, without its newline.
fn styled_line(
    tokens: &[(highlighting::Style, &str)],
    plain_fg: Option<highlighting::Color>,
) -> Line<'static> {
    let spans = tokens
        .iter()
        .filter_map(|(style, text)| {
            let text = text.trim_end_matches(['\n', '\r']);
            if text.is_empty() {
                return None;
            }
            Some(Span::styled(
                crate::wrap::visible(text).into_owned(),
                ratatui_style(*style, plain_fg),
            ))
        })
        .collect::<Vec<_>>();
    Line::from(spans)
}

/// A theme's style as a terminal style: the foreground (none where it is the theme's plain
/// text colour, so plain code keeps the terminal's own) and the font style, never the
/// background.
fn ratatui_style(style: highlighting::Style, plain_fg: Option<highlighting::Color>) -> Style {
    let mut out = Style::new();
    let fg = style.foreground;
    if Some(fg) != plain_fg {
        out = out.fg(Color::Rgb(fg.r, fg.g, fg.b));
    }
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

/// A diff line coloured by its mark: added green, removed red, a hunk header cyan.
fn diff_line(line: &str) -> Line<'static> {
    let style = if line.starts_with("@@") {
        Style::new().fg(Color::Cyan)
    } else if line.starts_with('+') {
        Style::new().fg(Color::Green)
    } else if line.starts_with('-') {
        Style::new().fg(Color::Red)
    } else {
        Style::new()
    };
    Line::from(Span::styled(crate::wrap::visible(line).into_owned(), style))
}

fn plain_lines(lines: &[&str]) -> Vec<Line<'static>> {
    lines.iter().map(|line| plain_line(line)).collect()
}

fn plain_line(line: &str) -> Line<'static> {
    Line::from(crate::wrap::visible(line).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn text(rows: &[Line<'static>]) -> Vec<String> {
        rows.iter().map(crate::wrap::plain).collect()
    }

    fn colours(rows: &[Line<'static>]) -> HashSet<Color> {
        rows.iter()
            .flat_map(|l| l.spans.iter().filter_map(|s| s.style.fg))
            .collect()
    }

    fn never_a_background(rows: &[Line<'static>]) -> bool {
        rows.iter()
            .flat_map(|l| &l.spans)
            .all(|s| s.style.bg.is_none())
    }

    const RUST: &str = "fn main() {\n    let x = 42; // the answer\n    println!(\"{x}\");\n}\n";

    #[test]
    fn rust_gets_more_than_one_colour_and_keeps_its_text() {
        let rows = code_rows("rust", RUST, 80);
        assert_eq!(
            text(&rows),
            [
                "fn main() {",
                "    let x = 42; // the answer",
                "    println!(\"{x}\");",
                "}"
            ]
        );
        assert!(colours(&rows).len() > 1, "{rows:?}");
        assert!(never_a_background(&rows));
        assert!(
            colours(&rows).iter().all(|c| matches!(c, Color::Rgb(..))),
            "{rows:?}"
        );
    }

    #[test]
    fn aliases_and_info_strings_find_a_syntax() {
        for lang in [
            "rs",
            "rust,ignore",
            "py",
            "python",
            "js",
            "ts",
            "sh",
            "bash",
            "shell",
            "zsh",
            "console",
            "json",
            "yaml",
            "yml",
            "md",
            "c",
            "cpp",
            "go",
            "java",
            "rb",
            "html",
            "css",
            "sql",
            "  Python {.numbers}",
        ] {
            let token = lang_token(lang);
            assert!(syntax_for(&token).is_some(), "{lang} → {token}");
        }
    }

    #[test]
    fn unknown_or_empty_language_is_plain() {
        for lang in ["", "no-such-language", "text"] {
            let rows = code_rows(lang, "fn main() {}\nlet x = 1;", 80);
            assert_eq!(text(&rows), ["fn main() {}", "let x = 1;"]);
            assert!(
                rows.iter()
                    .flat_map(|l| &l.spans)
                    .all(|s| s.style == Style::new()),
                "{lang}: {rows:?}"
            );
        }
    }

    #[test]
    fn diff_lines_are_coloured_by_their_mark() {
        let diff = "@@ -1,2 +1,2 @@\n-old\n+new\n same";
        for lang in ["diff", "patch"] {
            let rows = code_rows(lang, diff, 80);
            assert_eq!(text(&rows), ["@@ -1,2 +1,2 @@", "-old", "+new", " same"]);
            let fg: Vec<_> = rows.iter().map(|l| l.spans[0].style.fg).collect();
            assert_eq!(
                fg,
                [
                    Some(Color::Cyan),
                    Some(Color::Red),
                    Some(Color::Green),
                    None
                ]
            );
        }
    }

    #[test]
    fn empty_lines_give_empty_rows_and_indentation_is_kept() {
        let rows = code_rows("py", "def f():\n\n\treturn 1\n\n", 80);
        assert_eq!(text(&rows), ["def f():", "", "    return 1", ""]);
        assert!(code_rows("rs", "", 80).is_empty());
    }

    #[test]
    fn rows_are_wrapped_to_the_width() {
        let line = format!("let s = \"{}\";", "日本語🙂".repeat(20));
        for width in [0, 1, 2, 3, 7, 40] {
            let rows = code_rows("rs", &line, width);
            assert!(rows.len() > 1);
            for row in &rows {
                assert!(wrap::line_width(row) <= width.max(1), "{width}: {row:?}");
            }
        }
    }

    #[test]
    fn control_characters_are_made_visible() {
        let rows = code_rows("sh", "echo \u{1b}[2J\u{7}\u{7f}\u{9b}", 80);
        assert_eq!(text(&rows), ["echo ␛[2J␇␡\u{FFFD}"]);
        let rows = code_rows("", "a\u{0}b\r\nc\r", 80);
        assert_eq!(text(&rows), ["a␀b", "c"]);
    }

    #[test]
    fn a_long_line_is_plain_and_the_next_lines_are_highlighted() {
        let long = format!("let s = \"{}\";", "x".repeat(5_000));
        let code = format!("{long}\nfn main() {{ let y = 1; }}\n");
        let started = Instant::now();
        let rows = code_rows("rust", &code, 100);
        let took = started.elapsed();
        let long_rows = long.len().div_ceil(100);
        assert_eq!(rows.len(), long_rows + 1);
        assert!(colours(&rows[..long_rows]).is_empty());
        assert!(
            colours(&rows[long_rows..]).len() > 1,
            "{:?}",
            rows[long_rows]
        );
        // Generous for a loaded debug build; the release timing is in the ignored test.
        assert!(took < Duration::from_secs(2), "{took:?}");
    }

    #[test]
    fn a_block_over_the_cap_is_plain_with_a_row_a_line() {
        let line = "let value = compute(argument, another_argument, yet_another_one); // a line of about a hundred bytes\n";
        let code = line.repeat(600 * 1024 / line.len() + 1);
        assert!(code.len() > MAX_BLOCK_BYTES);
        // The byte cap alone, not the line cap.
        assert!(code.lines().count() <= MAX_BLOCK_LINES);
        let lines = code.lines().count();
        let rows = code_rows("rust", &code, 200);
        assert_eq!(rows.len(), lines);
        assert!(colours(&rows).is_empty());
    }

    #[test]
    fn a_block_over_the_line_cap_is_plain() {
        let code = "x = 1\n".repeat(MAX_BLOCK_LINES + 1);
        let rows = code_rows("py", &code, 80);
        assert_eq!(rows.len(), MAX_BLOCK_LINES + 1);
        assert!(colours(&rows).is_empty());
    }

    #[test]
    fn warm_up_loads_once_and_can_be_called_again() {
        warm_up();
        warm_up();
        assert!(!code_rows("rs", "fn f() {}", 80).is_empty());
    }

    /// A 200-line Rust file, made of varied but ordinary code.
    fn rust_file() -> String {
        (0..25)
            .map(|i| {
                format!(
                    "/// Adds {i}.\n#[inline]\npub fn add_{i}(a: u32, b: &str) -> Result<u32, String> {{\n    let parsed: u32 = b.parse().map_err(|e| format!(\"bad {{e}}\"))?;\n    // Why: the sum may overflow.\n    Ok(a.checked_add(parsed + {i}).unwrap_or(u32::MAX))\n}}\n\n"
                )
            })
            .collect()
    }

    /// `cargo test [--release] -p hotl-tui --lib highlight::tests::cold -- --ignored --nocapture`,
    /// alone: the first block without [`warm_up`].
    #[test]
    #[ignore = "prints a timing; run alone"]
    fn cold_timing() {
        let started = Instant::now();
        code_rows("rust", &rust_file(), 100);
        eprintln!(
            "the first 200-line Rust block, cold: {:?}",
            started.elapsed()
        );
    }

    /// `cargo test [--release] -p hotl-tui --lib highlight::tests::timings -- --ignored
    /// --nocapture`
    #[test]
    #[ignore = "prints timings"]
    fn timings() {
        let time = |name: &str, lang: &str, code: &str| {
            // Once to load the syntaxes, then the best of three.
            code_rows(lang, code, 100);
            let best = (0..3)
                .map(|_| {
                    let started = Instant::now();
                    let rows = code_rows(lang, code, 100);
                    (started.elapsed(), rows.len())
                })
                .min()
                .expect("three runs");
            eprintln!("{name}: {:?} ({} rows)", best.0, best.1);
        };
        let started = Instant::now();
        LazyLock::force(&SYNTAXES);
        LazyLock::force(&THEME);
        eprintln!("loading syntaxes and theme: {:?}", started.elapsed());
        let started = Instant::now();
        prime();
        eprintln!("priming the common grammars: {:?}", started.elapsed());
        let file = rust_file();
        let started = Instant::now();
        code_rows("rust", &file, 100);
        eprintln!(
            "the first 200-line Rust block, primed: {:?}",
            started.elapsed()
        );
        let long = format!("echo {}", "word ".repeat(999));
        time("one 5,000-byte line", "sh", &long);
        assert_eq!(file.lines().count(), 200);
        time("a 200-line Rust file", "rust", &file);
        let mib = "let value = compute(argument, another_argument); // 60 bytes\n"
            .repeat(1024 * 1024 / 61);
        time("1 MiB of Rust (over the cap)", "rust", &mib);
        let just_under = mib[..MAX_BLOCK_BYTES - 100].to_owned();
        time("512 KiB of Rust (under the cap)", "rust", &just_under);
    }
}
