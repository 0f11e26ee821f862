//! Foreign sessions brought in: Claude Code, Codex and pi files converted into hotl records.
