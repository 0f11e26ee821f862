//! What the commands that make one model call from the shell (`hotl fold`, `hotl ask`,
//! `hotl compact`) share: the provider resolved from flags, environment and config, settings
//! for its model, a runtime to wait on the call, and a person's note read from a file instead
//! of one the model writes.

use hotl_agent::Settings;

use crate::commands::run::ProviderFlags;
use crate::config::{self, Resolved};
use crate::error::CliError;

/// The provider and settings for one call, and a runtime to make it on. Says so on stderr
/// when the offline demo answers.
pub fn prepare(
    flags: &ProviderFlags,
) -> Result<(Resolved, Settings, tokio::runtime::Runtime), CliError> {
    let resolved = config::resolve(config::load_file()?, &flags.overrides())?;
    if let Some(notice) = resolved.demo_notice {
        eprintln!("hotl: {notice}");
    }
    let mut settings = Settings::new(resolved.model.clone());
    settings.pricing = resolved.pricing.clone();
    settings.explicit_breakpoints = resolved.explicit_breakpoints;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Internal(format!("cannot start the runtime: {e}")))?;
    settings.context_window =
        runtime.block_on(crate::config::context_window(&resolved, &resolved.model));
    Ok((resolved, settings, runtime))
}

/// A note read from `path`, checked against the fold template (what `--note-file` gives).
pub fn note_file(path: &std::path::Path) -> Result<String, CliError> {
    let note = std::fs::read_to_string(path)
        .map_err(|e| CliError::user(format!("{}: {e}", path.display())))?;
    hotl_agent::check_note(&note).map_err(CliError::user)?;
    Ok(note)
}
