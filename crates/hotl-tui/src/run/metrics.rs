//! `HOTL_TUI_METRICS`: one JSON line per frame, and the first paint, for the benchmark.

use std::io::Write;
use std::time::Duration;

/// `HOTL_TUI_METRICS`: one JSON line per frame, for the benchmark.
pub(super) struct Metrics {
    out: Option<std::fs::File>,
    frames: u64,
}

impl Metrics {
    pub(super) fn open(path: Option<&std::path::Path>) -> Metrics {
        Metrics {
            out: path.and_then(|p| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .ok()
            }),
            frames: 0,
        }
    }

    pub(super) fn first_paint(&mut self, since_start: Duration, opened: Option<Duration>) {
        if let Some(out) = &mut self.out {
            let _ = writeln!(
                out,
                r#"{{"first_paint_us":{},"opened_us":{}}}"#,
                since_start.as_micros(),
                opened.map_or(0, |d| d.as_micros())
            );
        }
    }

    pub(super) fn frame(&mut self, took: Duration, drawn: crate::screen::Drawn, events: usize) {
        self.frames += 1;
        if let Some(out) = &mut self.out {
            let _ = writeln!(
                out,
                r#"{{"frame":{},"render_us":{},"bytes":{},"cells":{},"history_rows":{},"events":{}}}"#,
                self.frames,
                took.as_micros(),
                drawn.bytes,
                drawn.cells,
                drawn.history,
                events
            );
        }
    }
}
