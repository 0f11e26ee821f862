//! What the commands that run one move from the shell (`hotl fold`, `hotl ask`, `hotl
//! compact`) share: the provider resolved from flags, environment and config (only when the
//! move calls the model), a person's note read from a file instead of one the model writes,
//! and the smallest front end on the agent: it sends the move, prints notices to stderr as
//! they come, and returns the result.

use hotl_agent::{Command, Event, Move, MoveResult, Outcome, Provider, Session, Settings, Start};

use crate::commands::run::ProviderFlags;
use crate::error::CliError;
use hotl_config as config;

/// Who answers the move's model calls: the provider the flags, environment and config give,
/// or `None` for a move that calls no model.
pub enum Model<'a> {
    /// Resolve a provider from these flags.
    From(&'a ProviderFlags),
    /// The move calls no model.
    None,
}

/// Runs `step` on `session` and returns what it gave; a failure is a user error naming why.
pub fn run_move(session: Session, step: Move, model: Model<'_>) -> Result<MoveResult, CliError> {
    let runtime = crate::ctx::runtime()?;
    runtime.block_on(async {
        let (provider, settings) = match model {
            Model::From(flags) => prepare(flags).await?,
            // No model is asked: the session's own stands in, so nothing says it changed.
            Model::None => (
                Provider::Demo,
                Settings::new(session.last_model().unwrap_or_else(|| "none".to_owned())),
            ),
        };
        let mut agent = hotl_agent::spawn(Start::Open(Box::new(session)), provider, settings);
        let id = agent.send(Command::Move(step));
        agent.close();
        let done = agent
            .until_done(id, |envelope| {
                if let Event::Notice { message } = &envelope.event {
                    eprintln!("hotl: {}", hotl_text::printable(message));
                }
            })
            .await;
        agent.join().await;
        let Some(done) = done else {
            return Err(CliError::Internal(
                "the agent stopped before the move ended".to_owned(),
            ));
        };
        match done.result {
            Ok(Outcome::MoveEnded(result)) => Ok(result),
            Err(failure) if failure.kind == hotl_agent::FailureKind::Cancelled => {
                Err(CliError::user(format!(
                    "{} cancelled; nothing was recorded",
                    failure.command
                )))
            }
            Err(failure) => Err(CliError::user(failure.message)),
            Ok(other) => Err(CliError::Internal(format!("the move ended with {other:?}"))),
        }
    })
}

/// The provider and settings for the move's model calls. Says so on stderr when the offline
/// demo answers.
async fn prepare(flags: &ProviderFlags) -> Result<(Provider, Settings), CliError> {
    let resolved = config::resolve(config::load_file()?, &flags.overrides())?;
    if let Some(notice) = resolved.demo_notice {
        eprintln!("hotl: {notice}");
    }
    let settings = config::Launch::new(&resolved, config::Surface::Headless)
        .settings()
        .await;
    Ok((resolved.provider, settings))
}

/// A note read from `path`, checked against the fold template (what `--note-file` gives).
pub fn note_file(path: &std::path::Path) -> Result<String, CliError> {
    let note = std::fs::read_to_string(path)
        .map_err(|e| CliError::user(format!("{}: {e}", path.display())))?;
    hotl_agent::check_note(&note).map_err(CliError::user)?;
    Ok(note)
}
