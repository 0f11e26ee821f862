//! Markdown to terminal rows (placeholder until the renderer lands).

use ratatui::text::Line;

/// Renders markdown `source` into rows at most `width` columns wide.
pub fn render(source: &str, width: usize) -> Vec<Line<'static>> {
    source
        .lines()
        .flat_map(|l| crate::wrap::wrap(&Line::from(l.to_owned()), width, &[]))
        .collect()
}
