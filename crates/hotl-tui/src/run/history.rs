//! The composer's history file: one entry a line, newlines inside an entry escaped (the format
//! the line console's editor reads and writes too), private to the user.

/// The composer's history file: one entry a line, newlines inside an entry escaped (the
/// format the line console's editor reads and writes too).
pub(super) fn load_history(path: Option<&std::path::Path>) -> Vec<String> {
    let Some(path) = path else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.starts_with("#V"))
        .map(|l| l.replace("\\n", "\n"))
        .filter(|l| !l.is_empty())
        .collect()
}

pub(super) fn save_history(path: Option<&std::path::Path>, entries: &[String]) {
    let Some(path) = path else {
        return;
    };
    let keep = entries.len().saturating_sub(1000);
    let mut text = String::from("#V2\n");
    for entry in &entries[keep..] {
        text.push_str(&entry.replace('\n', "\\n"));
        text.push('\n');
    }
    let written = std::fs::write(path, text).and_then(|()| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
    });
    if let Err(e) = written {
        tracing::warn!("cannot save the composer history: {e}");
    }
}
