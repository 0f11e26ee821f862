//! Code highlighting (placeholder until the highlighter lands).

use ratatui::text::Line;

/// Rows of one code block in `lang` (a fence's info string, maybe empty), highlighted and
/// wrapped to `width`.
pub fn code_rows(_lang: &str, code: &str, width: usize) -> Vec<Line<'static>> {
    code.lines()
        .flat_map(|l| crate::wrap::wrap(&Line::from(l.to_owned()), width, &[]))
        .collect()
}
