//! Markdown to terminal rows: an answer's text as the scrollback shows it. Owns the layout of
//! every construct (paragraphs, headings, lists, quotes, tables, rules, links, images) on
//! pulldown-cmark's events; code blocks go to [`crate::highlight`], wrapping to
//! [`crate::wrap`].
//!
//! As in Codex and Claude Code, a single newline stays a line break: a model writes its
//! answer to be read as it is laid out. Nothing from the text can reach the terminal as a
//! control sequence: raw HTML is shown as the literal text it is, and control characters as
//! visible symbols ([`crate::wrap::visible`]).

use std::mem;

use pulldown_cmark::{
    Alignment, CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd,
};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::highlight;
use crate::wrap;
use crate::wrap::visible;

/// A horizontal rule is this wide, or the width when that is narrower.
const RULE_WIDTH: usize = 40;
/// Quote bars and list indents take at most this share of a row (as a divisor), so that
/// deep nesting cannot leave no room for the text, nor multiply the rows of every line.
const PREFIX_SHARE: usize = 2;

/// Renders markdown `source` into rows at most `width` columns wide.
///
/// A width of zero is taken as one. Blocks are separated by one blank row, with none at the
/// end.
pub fn render(source: &str, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut renderer = Renderer::new(width);
    for event in Parser::new_ext(source, options) {
        renderer.event(event);
    }
    renderer.finish()
}

fn dim() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

/// What a row's prefix is made of, outermost first.
enum Container {
    /// A block quote: a dim bar on every row.
    Quote,
    /// A list item: its marker on its first row, as many spaces on the others (the hanging
    /// indent that lines continuation rows up with the item's text).
    Item {
        /// The marker (`• `, `3. `, `• [x] `) until a row has shown it.
        marker: Option<String>,
        /// The marker's width.
        width: usize,
    },
}

/// A link being rendered.
struct Link {
    url: String,
    /// Its text as plain characters, to see whether the url says anything more.
    text: String,
    /// An autolink or email link: the text is the url already.
    auto: bool,
}

/// A code block being collected.
struct Code {
    lang: String,
    text: String,
}

/// A table cell's inline content: one line.
type Cell = Vec<Span<'static>>;

/// A table being collected: cells are laid out once every column's width is known.
struct Table {
    alignments: Vec<Alignment>,
    head: Vec<Cell>,
    body: Vec<Vec<Cell>>,
    /// The row being read.
    row: Vec<Cell>,
}

/// The state of one rendering: rows out, and what is open.
struct Renderer {
    width: usize,
    rows: Vec<Line<'static>>,
    /// The line being built from inline events, before its prefix and wrapping.
    line: Vec<Span<'static>>,
    /// Inline styles, innermost last; the first is the base.
    styles: Vec<Style>,
    containers: Vec<Container>,
    /// The next number of each open list, innermost last; `None` for a bullet list.
    lists: Vec<Option<u64>>,
    links: Vec<Link>,
    /// An image's alt text being collected, with how many images or links opened inside it
    /// are still open.
    image: Option<(String, usize)>,
    code: Option<Code>,
    table: Option<Table>,
    /// A block ended: the next one starts after a blank row.
    blank_pending: bool,
}

impl Renderer {
    fn new(width: usize) -> Renderer {
        Renderer {
            width,
            rows: Vec::new(),
            line: Vec::new(),
            styles: vec![Style::new()],
            containers: Vec::new(),
            lists: Vec::new(),
            links: Vec::new(),
            image: None,
            code: None,
            table: None,
            blank_pending: false,
        }
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        self.flush();
        while self
            .rows
            .last()
            .is_some_and(|row| wrap::line_width(row) == 0)
        {
            self.rows.pop();
        }
        let width = self.width;
        self.rows
            .into_iter()
            .map(|row| highlight::fit(row, width))
            .collect()
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => self.inline_code(&code),
            Event::Html(html) | Event::InlineHtml(html) => self.literal(&html),
            Event::InlineMath(math) | Event::DisplayMath(math) => self.literal(&math),
            Event::FootnoteReference(name) => self.literal(&format!("[^{name}]")),
            Event::SoftBreak | Event::HardBreak => self.line_break(),
            Event::Rule => self.rule(),
            Event::TaskListMarker(done) => self.task_marker(done),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock | Tag::MetadataBlock(_) => self.start_block(),
            Tag::Heading { level, .. } => self.start_heading(level),
            Tag::BlockQuote(_) => {
                self.start_block();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.start_block();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(Code {
                    lang,
                    text: String::new(),
                });
            }
            Tag::List(start) => {
                self.start_block();
                self.lists.push(start);
            }
            Tag::Item => self.start_item(),
            Tag::Table(alignments) => {
                self.start_block();
                self.table = Some(Table {
                    alignments,
                    head: Vec::new(),
                    body: Vec::new(),
                    row: Vec::new(),
                });
            }
            Tag::TableHead | Tag::TableRow | Tag::TableCell => self.line.clear(),
            Tag::Emphasis => self.push_style(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Superscript | Tag::Subscript => self.push_style(Style::new()),
            Tag::Link {
                link_type,
                dest_url,
                ..
            } => self.start_link(link_type, &dest_url),
            Tag::Image { .. } => self.start_image(),
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition => self.start_block(),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph
            | TagEnd::HtmlBlock
            | TagEnd::MetadataBlock(_)
            | TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition => self.end_block(),
            TagEnd::Heading(_) => {
                self.pop_style();
                self.end_block();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.containers.pop();
                self.blank_pending = true;
            }
            TagEnd::CodeBlock => self.end_code(),
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                // A list nested in an item is part of the item: the next item follows
                // without a gap.
                self.blank_pending =
                    !matches!(self.containers.last(), Some(Container::Item { .. }));
            }
            TagEnd::Item => self.end_item(),
            TagEnd::Table => self.end_table(),
            TagEnd::TableHead => {
                if let Some(table) = &mut self.table {
                    table.head = mem::take(&mut table.row);
                }
            }
            TagEnd::TableRow => {
                if let Some(table) = &mut self.table {
                    let row = mem::take(&mut table.row);
                    table.body.push(row);
                }
            }
            TagEnd::TableCell => {
                let cell = mem::take(&mut self.line);
                if let Some(table) = &mut self.table {
                    table.row.push(cell);
                }
            }
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript => self.pop_style(),
            TagEnd::Link => self.end_link(),
            TagEnd::Image => self.end_image(),
        }
    }

    // Blocks.

    /// Finishes the line before a block and puts the gap after the last one.
    fn start_block(&mut self) {
        self.flush();
        if self.blank_pending && !self.rows.is_empty() {
            let blank = self.blank_row();
            self.rows.push(blank);
        }
        self.blank_pending = false;
    }

    fn end_block(&mut self) {
        self.flush();
        self.blank_pending = true;
    }

    fn start_heading(&mut self, level: HeadingLevel) {
        self.start_block();
        let marks = "#".repeat(level as usize);
        self.line.push(Span::styled(format!("{marks} "), dim()));
        let mut style = Style::new().add_modifier(Modifier::BOLD);
        if level == HeadingLevel::H1 {
            style = style.add_modifier(Modifier::UNDERLINED);
        }
        self.push_style(style);
    }

    fn start_item(&mut self) {
        self.flush();
        let marker = match self.lists.last_mut() {
            Some(Some(number)) => {
                let marker = format!("{number}. ");
                *number = number.saturating_add(1);
                marker
            }
            _ => "• ".to_owned(),
        };
        self.containers.push(Container::Item {
            width: wrap::width(&marker),
            marker: Some(marker),
        });
    }

    fn end_item(&mut self) {
        self.flush();
        // An empty item still shows its marker.
        if let Some(Container::Item {
            marker: Some(_), ..
        }) = self.containers.last()
        {
            self.emit(Vec::new());
        }
        self.containers.pop();
    }

    /// `[ ]` or `[x]` joins the item's marker, so that wrapped rows line up with the text
    /// after it.
    fn task_marker(&mut self, done: bool) {
        let box_ = if done { "[x] " } else { "[ ] " };
        match self.containers.last_mut() {
            Some(Container::Item {
                marker: Some(marker),
                width,
            }) if self.line.is_empty() => {
                marker.push_str(box_);
                *width += wrap::width(box_);
            }
            _ => self.literal(box_),
        }
    }

    fn rule(&mut self) {
        self.start_block();
        let room = self.width.saturating_sub(self.prefix_width()).max(1);
        self.line
            .push(Span::styled("─".repeat(room.min(RULE_WIDTH)), dim()));
        self.end_block();
    }

    fn end_code(&mut self) {
        let Some(code) = self.code.take() else {
            return;
        };
        let (first, rest) = self.prefixes();
        let room = self.width.saturating_sub(spans_width(&rest)).max(1);
        let rows = highlight::code_rows(&code.lang, &code.text, room);
        if !rows.is_empty() {
            self.mark_shown();
        }
        for (i, row) in rows.into_iter().enumerate() {
            let mut spans = if i == 0 { first.clone() } else { rest.clone() };
            spans.extend(row.spans);
            self.rows.push(Line::from(spans));
        }
        self.blank_pending = true;
    }

    // Tables.

    fn end_table(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        let columns = table
            .body
            .iter()
            .map(Vec::len)
            .chain([table.head.len()])
            .max()
            .unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                table
                    .body
                    .iter()
                    .chain([&table.head])
                    .filter_map(|row| row.get(c))
                    .map(|cell| spans_width(cell))
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let total = widths.iter().sum::<usize>() + 3 * columns.saturating_sub(1);
        if total + self.prefix_width() <= self.width {
            self.aligned_table(&table, &widths);
        } else {
            self.stacked_table(&table);
        }
        self.end_block();
    }

    /// Columns padded to their widest cell, ` │ ` between them, `─┼─` under the head.
    fn aligned_table(&mut self, table: &Table, widths: &[usize]) {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let head: Vec<_> = table.head.iter().map(|cell| restyled(cell, bold)).collect();
        self.table_row(&head, widths, &table.alignments);
        let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
        self.emit(vec![Span::styled(rule.join("─┼─"), dim())]);
        for row in &table.body {
            self.table_row(row, widths, &table.alignments);
        }
    }

    fn table_row(&mut self, cells: &[Cell], widths: &[usize], alignments: &[Alignment]) {
        let mut spans = Vec::new();
        let last = widths.len().saturating_sub(1);
        for (c, &width) in widths.iter().enumerate() {
            if c > 0 {
                spans.push(Span::styled(" │ ", dim()));
            }
            let cell = cells.get(c).map_or(&[][..], Vec::as_slice);
            let gap = width.saturating_sub(spans_width(cell));
            let (before, after) = match alignments.get(c) {
                Some(Alignment::Right) => (gap, 0),
                Some(Alignment::Center) => (gap / 2, gap - gap / 2),
                _ => (0, gap),
            };
            push_spaces(&mut spans, before);
            spans.extend(cell.iter().cloned());
            if c < last {
                push_spaces(&mut spans, after);
            }
        }
        self.emit(spans);
    }

    /// A table too wide for the screen: each row as `header: value` lines, rows apart.
    fn stacked_table(&mut self, table: &Table) {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        if table.body.is_empty() {
            for cell in &table.head {
                self.emit(restyled(cell, bold));
            }
            return;
        }
        for (r, row) in table.body.iter().enumerate() {
            if r > 0 {
                let blank = self.blank_row();
                self.rows.push(blank);
            }
            for (c, cell) in row.iter().enumerate() {
                let mut spans = table
                    .head
                    .get(c)
                    .map(|head| restyled(head, bold))
                    .unwrap_or_default();
                spans.push(Span::styled(": ", bold));
                spans.extend(cell.iter().cloned());
                self.emit(spans);
            }
        }
    }

    // Inline content.

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, patch: Style) {
        let style = self.style().patch(patch);
        self.styles.push(style);
    }

    fn pop_style(&mut self) {
        // The base style stays, whatever the events.
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(code) = &mut self.code {
            code.text.push_str(text);
            return;
        }
        self.literal(text);
    }

    /// `text` shown as it is in the current style, whatever markup it holds.
    fn literal(&mut self, text: &str) {
        if let Some((alt, _)) = &mut self.image {
            alt.push_str(text);
            return;
        }
        if let Some(link) = self.links.last_mut() {
            link.text.push_str(text);
        }
        let style = self.style();
        let text = visible(text);
        let mut parts = text.split('\n');
        if let Some(first) = parts.next() {
            self.push_span(first, style);
        }
        for part in parts {
            self.line_break();
            self.push_span(part, style);
        }
    }

    fn inline_code(&mut self, code: &str) {
        if let Some((alt, _)) = &mut self.image {
            alt.push_str(code);
            return;
        }
        if let Some(link) = self.links.last_mut() {
            link.text.push_str(code);
        }
        let style = self.style().fg(Color::Cyan);
        self.push_span(&visible(code), style);
    }

    fn push_span(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        match self.line.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.line.push(Span::styled(text.to_owned(), style)),
        }
    }

    fn line_break(&mut self) {
        if let Some((alt, _)) = &mut self.image {
            alt.push(' ');
        } else if self.table.is_some() {
            // A cell is one line.
            let style = self.style();
            self.push_span(" ", style);
        } else {
            self.flush();
        }
    }

    fn start_link(&mut self, link_type: LinkType, url: &str) {
        if let Some((_, nested)) = &mut self.image {
            *nested += 1;
            return;
        }
        self.push_style(Style::new().add_modifier(Modifier::UNDERLINED));
        self.links.push(Link {
            url: url.to_owned(),
            text: String::new(),
            auto: matches!(link_type, LinkType::Autolink | LinkType::Email),
        });
    }

    fn end_link(&mut self) {
        if let Some((_, nested)) = &mut self.image {
            *nested = nested.saturating_sub(1);
            return;
        }
        self.pop_style();
        let Some(link) = self.links.pop() else {
            return;
        };
        if !link.auto && !link.url.is_empty() && link.url != link.text {
            let style = self.style().patch(dim());
            self.push_span(&format!(" ({})", visible(&link.url)), style);
        }
    }

    fn start_image(&mut self) {
        match &mut self.image {
            Some((_, nested)) => *nested += 1,
            None => self.image = Some((String::new(), 0)),
        }
    }

    fn end_image(&mut self) {
        if let Some((_, nested)) = &mut self.image
            && *nested > 0
        {
            *nested -= 1;
            return;
        }
        let Some((alt, _)) = self.image.take() else {
            return;
        };
        let alt = alt.trim();
        let shown = if alt.is_empty() {
            "[image]".to_owned()
        } else {
            format!("[image: {alt}]")
        };
        // Through `literal`, so that a link around the image takes it as its text.
        self.push_style(dim());
        self.literal(&shown);
        self.pop_style();
    }

    // Rows.

    /// Puts the line being built out as rows, if it has anything.
    fn flush(&mut self) {
        if !self.line.is_empty() {
            let line = mem::take(&mut self.line);
            self.emit(line);
        }
    }

    /// `spans` as rows: the prefix of the open containers first, wrapped with the hanging
    /// indent.
    fn emit(&mut self, spans: Vec<Span<'static>>) {
        let (mut first, rest) = self.prefixes();
        self.mark_shown();
        first.extend(spans);
        let rows = wrap::wrap(&Line::from(first), self.width, &rest);
        self.rows.extend(rows);
    }

    /// A blank row between blocks: the quote bars alone.
    fn blank_row(&self) -> Line<'static> {
        let (_, mut rest) = self.prefixes();
        while rest.last().is_some_and(|s| s.content.trim().is_empty()) {
            rest.pop();
        }
        if let Some(last) = rest.last_mut() {
            let trimmed = last.content.trim_end().to_owned();
            last.content = trimmed.into();
        }
        Line::from(rest)
    }

    /// The prefix of the next row, and of the rows after it: quote bars, and item markers
    /// or the spaces in their place. The outermost parts go when it would take more than its
    /// share of the row.
    fn prefixes(&self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let parts: Vec<(Span<'static>, Span<'static>, usize)> = self
            .containers
            .iter()
            .map(|container| match container {
                Container::Quote => {
                    let bar = Span::styled("│ ", dim());
                    (bar.clone(), bar, 2)
                }
                Container::Item { marker, width } => {
                    let spaces = Span::raw(" ".repeat(*width));
                    let first = marker.clone().map_or_else(|| spaces.clone(), Span::raw);
                    (first, spaces, *width)
                }
            })
            .collect();
        let limit = self.width / PREFIX_SHARE;
        let mut total: usize = parts.iter().map(|p| p.2).sum();
        let mut skip = 0;
        while total > limit && skip < parts.len() {
            total -= parts[skip].2;
            skip += 1;
        }
        parts
            .into_iter()
            .skip(skip)
            .map(|(first, rest, _)| (first, rest))
            .unzip()
    }

    fn prefix_width(&self) -> usize {
        spans_width(&self.prefixes().1)
    }

    /// Every item's marker has been shown: the rows after it take spaces.
    fn mark_shown(&mut self) {
        for container in &mut self.containers {
            if let Container::Item { marker, .. } = container {
                *marker = None;
            }
        }
    }
}

fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| wrap::width(&s.content)).sum()
}

/// `spans` with `patch` over each one's style.
fn restyled(spans: &[Span<'static>], patch: Style) -> Vec<Span<'static>> {
    spans
        .iter()
        .map(|s| Span::styled(s.content.clone(), s.style.patch(patch)))
        .collect()
}

fn push_spaces(spans: &mut Vec<Span<'static>>, count: usize) {
    if count > 0 {
        spans.push(Span::raw(" ".repeat(count)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text(rows: &[Line<'static>]) -> Vec<String> {
        rows.iter().map(crate::wrap::plain).collect()
    }

    fn rows(source: &str) -> Vec<String> {
        text(&render(source, 80))
    }

    /// The first span holding `needle`.
    fn span<'a>(rows: &'a [Line<'static>], needle: &str) -> &'a Span<'static> {
        rows.iter()
            .flat_map(|l| &l.spans)
            .find(|s| s.content.contains(needle))
            .unwrap_or_else(|| panic!("no span holds {needle:?} in {rows:?}"))
    }

    fn has(span: &Span<'_>, modifier: Modifier) -> bool {
        span.style.add_modifier.contains(modifier)
    }

    #[test]
    fn a_single_newline_is_a_line_break() {
        assert_eq!(
            rows("first line\nsecond line"),
            ["first line", "second line"]
        );
    }

    #[test]
    fn paragraphs_are_one_blank_row_apart_with_none_at_the_end() {
        assert_eq!(rows("one\n\n\n\ntwo\n\n"), ["one", "", "two"]);
        assert!(render("", 80).is_empty());
        assert!(render("\n\n  \n", 80).is_empty());
    }

    #[test]
    fn headings_are_bold_with_dim_marks_and_a_blank_row_after() {
        let out = render("# Title\n## Section\ntext", 80);
        assert_eq!(text(&out), ["# Title", "", "## Section", "", "text"]);
        assert!(has(span(&out, "# "), Modifier::DIM));
        let title = span(&out, "Title");
        assert!(has(title, Modifier::BOLD) && has(title, Modifier::UNDERLINED));
        let section = span(&out, "Section");
        assert!(has(section, Modifier::BOLD) && !has(section, Modifier::UNDERLINED));
    }

    #[test]
    fn emphasis_strong_and_strikethrough_are_styled() {
        let out = render("*it* **bold** ~~gone~~ ***both***", 80);
        assert_eq!(text(&out), ["it bold gone both"]);
        assert!(has(span(&out, "it"), Modifier::ITALIC));
        assert!(has(span(&out, "bold"), Modifier::BOLD));
        assert!(has(span(&out, "gone"), Modifier::CROSSED_OUT));
        let both = span(&out, "both");
        assert!(has(both, Modifier::BOLD) && has(both, Modifier::ITALIC));
    }

    #[test]
    fn inline_code_is_coloured_without_backticks() {
        let out = render("run `cargo test` now", 80);
        assert_eq!(text(&out), ["run cargo test now"]);
        assert_eq!(span(&out, "cargo").style.fg, Some(Color::Cyan));
        assert_eq!(span(&out, "run").style.fg, None);
    }

    #[test]
    fn links_are_underlined_with_the_url_dim_when_it_differs() {
        let out = render(
            "see [the docs](https://docs.rs) and [https://a.b](https://a.b)",
            80,
        );
        assert_eq!(
            text(&out),
            ["see the docs (https://docs.rs) and https://a.b"]
        );
        assert!(has(span(&out, "the docs"), Modifier::UNDERLINED));
        let url = span(&out, "(https://docs.rs)");
        assert!(has(url, Modifier::DIM) && !has(url, Modifier::UNDERLINED));
    }

    #[test]
    fn autolinks_show_just_the_url() {
        assert_eq!(
            rows("<https://example.com> or <me@example.com>"),
            ["https://example.com or me@example.com"]
        );
    }

    #[test]
    fn bullet_lists_nest_two_columns_a_level() {
        assert_eq!(
            rows("before\n- one\n- two\n  - inner\n    - innermost\n- three\n\nafter"),
            [
                "before",
                "",
                "• one",
                "• two",
                "  • inner",
                "    • innermost",
                "• three",
                "",
                "after"
            ]
        );
    }

    #[test]
    fn ordered_lists_count_from_their_start() {
        assert_eq!(
            rows("3. three\n4. four\n5. five\n   1. inner"),
            ["3. three", "4. four", "5. five", "   1. inner"]
        );
    }

    #[test]
    fn wrapped_list_items_hang_under_their_text() {
        let out = render("- the quick brown fox\n10. jumps over the lazy dog", 12);
        assert_eq!(
            text(&out),
            [
                "• the quick",
                "  brown fox",
                "",
                "10. jumps",
                "    over the",
                "    lazy dog"
            ]
        );
    }

    #[test]
    fn loose_list_items_are_a_blank_row_apart() {
        assert_eq!(rows("- one\n\n- two"), ["• one", "", "• two"]);
    }

    #[test]
    fn task_list_items_show_their_boxes() {
        let out = render("- [x] done\n- [ ] to do, wrapped", 14);
        assert_eq!(text(&out), ["• [x] done", "• [ ] to do,", "      wrapped"]);
    }

    #[test]
    fn block_quotes_have_a_bar_on_every_row() {
        let out = render("> quoted text that wraps\n>\n> > nested\n\nafter", 14);
        assert_eq!(
            text(&out),
            [
                "│ quoted text",
                "│ that wraps",
                "│",
                "│ │ nested",
                "",
                "after"
            ]
        );
        assert!(has(span(&out, "│"), Modifier::DIM));
    }

    #[test]
    fn fenced_code_is_highlighted_verbatim_without_fences() {
        let out = render(
            "text\n```rust\nfn main() {\n    let x = 1;\n\n}\n```\nafter",
            80,
        );
        assert_eq!(
            text(&out),
            [
                "text",
                "",
                "fn main() {",
                "    let x = 1;",
                "",
                "}",
                "",
                "after"
            ]
        );
        assert!(matches!(span(&out, "fn").style.fg, Some(Color::Rgb(..))));
    }

    #[test]
    fn indented_code_is_plain_and_keeps_its_indentation() {
        let out = render("para\n\n    if x:\n        y()\n", 80);
        assert_eq!(text(&out), ["para", "", "if x:", "    y()"]);
        assert_eq!(span(&out, "y()").style, Style::new());
    }

    #[test]
    fn code_in_a_list_item_is_indented_under_its_text() {
        assert_eq!(
            rows("- run:\n\n  ```sh\n  cargo test\n  ```"),
            ["• run:", "", "  cargo test"]
        );
    }

    const TABLE: &str = "| name | size |\n|:-----|-----:|\n| a.rs | 12 |\n| lib.rs | 3456 |";

    #[test]
    fn tables_align_their_columns_when_they_fit() {
        let out = render(TABLE, 80);
        assert_eq!(
            text(&out),
            [
                "name   │ size",
                "───────┼─────",
                "a.rs   │   12",
                "lib.rs │ 3456"
            ]
        );
        assert!(has(span(&out, "name"), Modifier::BOLD));
        assert!(has(span(&out, "┼"), Modifier::DIM));
    }

    #[test]
    fn tables_too_wide_become_header_value_lines() {
        let out = render(TABLE, 10);
        assert_eq!(
            text(&out),
            [
                "name: a.rs",
                "size: 12",
                "",
                "name:",
                "lib.rs",
                "size: 3456"
            ]
        );
        for row in &out {
            assert!(wrap::line_width(row) <= 10);
        }
    }

    #[test]
    fn a_rule_is_a_dim_line_of_at_most_forty_columns() {
        let out = render("above\n\n---\n\nbelow", 80);
        assert_eq!(text(&out), ["above", "", &"─".repeat(40), "", "below"]);
        assert!(has(span(&out, "─"), Modifier::DIM));
        assert_eq!(text(&render("***", 12)), ["─".repeat(12)]);
    }

    #[test]
    fn raw_html_is_literal_text() {
        assert_eq!(
            rows("<script>alert(1)</script>\n\nan <b>inline</b> tag"),
            ["<script>alert(1)</script>", "", "an <b>inline</b> tag"]
        );
        assert_eq!(
            rows("<div>\n<p>block</p>\n</div>"),
            ["<div>", "<p>block</p>", "</div>"]
        );
    }

    #[test]
    fn images_show_their_alt_text_dimmed() {
        let out = render("look: ![a *cat*](cat.png) and ![](x.png)", 80);
        assert_eq!(text(&out), ["look: [image: a cat] and [image]"]);
        assert!(has(span(&out, "[image: a cat]"), Modifier::DIM));
    }

    #[test]
    fn control_characters_are_made_visible() {
        let out = rows("clear \u{1b}[2J bell\u{7} del\u{7f} csi\u{9b}\ttab");
        assert_eq!(out, ["clear ␛[2J bell␇ del␡ csi\u{FFFD}    tab"]);
        let out = rows("`\u{1b}]0;title\u{7}` [x](http://a\u{9b}b)\n\n```\n\u{1b}[31mred\n```");
        assert_eq!(out, ["␛]0;title␇ x (http://a\u{FFFD}b)", "", "␛[31mred"]);
    }

    #[test]
    fn nothing_wider_than_the_width_even_at_zero() {
        for row in render("# 日本語のテキスト 🙂🙂\n\n> - 漢字 | x", 0) {
            assert!(wrap::line_width(&row) <= 1, "{row:?}");
        }
    }

    #[test]
    fn deep_nesting_does_not_multiply_rows() {
        let source = format!("{} x\n{}", "> ".repeat(2_000), "lazy line\n".repeat(2_000));
        let out = render(&source, 40);
        assert!(out.len() <= 2_100, "{} rows", out.len());
        let source = format!("{}x", "- ".repeat(2_000));
        let out = render(&source, 40);
        assert!(out.len() <= 100, "{} rows", out.len());
    }

    #[test]
    fn a_sample_answer_snapshot() {
        let answer = "## Plan\n\nI'll change **two** files:\n1. `wrap.rs`: the [wrapper](https://example.com/wrap)\n2. `markdown.rs`, with a table:\n\n| step | done |\n|------|:----:|\n| parse | yes |\n| render | no |\n\n> Note: a quote\n> on two lines\n\n```diff\n-old\n+new\n```\n\nDone.";
        insta::assert_snapshot!(text(&render(answer, 40)).join("\n"));
    }

    /// Pieces of markdown syntax and of awkward text, to build hostile documents from.
    const PIECES: &[&str] = &[
        "#",
        "# ",
        "*",
        "**",
        "_",
        "`",
        "```",
        "~~~",
        "~~",
        ">",
        "> ",
        "- ",
        "* ",
        "1. ",
        "9) ",
        "|",
        "|---|",
        ":-:",
        "---",
        "\n",
        "\n\n",
        " ",
        "    ",
        "\t",
        "[",
        "]",
        "(",
        ")",
        "!",
        "<",
        ">",
        "</",
        "<div>",
        "[x] ",
        "[ ] ",
        "\\",
        "&amp;",
        "http://a.b/c",
        "word",
        "日本語",
        "漢字かな",
        "🙂",
        "👩\u{200d}👩\u{200d}👧",
        "e\u{301}",
        "\u{1b}[2J",
        "\u{9b}",
        "\u{7f}",
        "\u{0}",
        "\r\n",
        "\r",
        "\u{feff}",
        "\u{200b}",
    ];

    fn document() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            proptest::collection::vec(proptest::sample::select(PIECES), 0..120)
                .prop_map(|pieces| pieces.concat()),
        ]
    }

    proptest! {
        #[test]
        fn never_panics_and_every_row_fits(source in document(), width in 1usize..120) {
            for row in render(&source, width) {
                prop_assert!(wrap::line_width(&row) <= width, "{width}: {row:?}");
                for span in &row.spans {
                    prop_assert!(
                        !span.content.chars().any(char::is_control),
                        "a control character in {span:?}"
                    );
                }
            }
        }
    }

    /// `cargo test [--release] -p hotl-tui --lib markdown -- --ignored --nocapture`
    #[test]
    #[ignore = "prints timings"]
    fn timings() {
        let time = |name: &str, source: &str| {
            let started = std::time::Instant::now();
            let rows = render(source, 100).len();
            eprintln!(
                "{name} ({} KiB): {:?}, {rows} rows",
                source.len() / 1024,
                started.elapsed()
            );
        };
        let answer = "## Heading\n\nSome *text* with `code` and a [link](https://x.y).\nA second line.\n\n- item one\n- item two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n";
        time("an ordinary answer x10", &answer.repeat(10));
        time("an ordinary answer x100", &answer.repeat(100));
        time("an ordinary answer x1000", &answer.repeat(1000));
        time("brackets", &"[".repeat(100_000));
        time("emphasis runs", &"*a **b ".repeat(20_000));
        time("backticks", &"`a ``b ".repeat(20_000));
        time("nested quotes", &">".repeat(100_000));
        time("nested lists", &"- ".repeat(50_000));
    }
}
