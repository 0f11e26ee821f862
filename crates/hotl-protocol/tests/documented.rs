//! The slash-command table and the docs cannot drift: `docs/commands.md` holds the table as
//! [`hotl_protocol::slash::reference`] renders it, and the README's paragraph on the commands
//! names every command of the table and no other. `HOTL_BLESS=1` rewrites the reference page after a change to the table.

use std::path::PathBuf;

const BEGIN: &str = "<!-- begin: generated from hotl_protocol::slash::COMMANDS -->\n";
const END: &str = "<!-- end: generated -->\n";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_reference_page_is_the_table() -> Result<(), Box<dyn std::error::Error>> {
    let path = repo().join("docs/commands.md");
    let page = std::fs::read_to_string(&path)?;
    let start = page
        .find(BEGIN)
        .ok_or("docs/commands.md has no generated block")?
        + BEGIN.len();
    let end = page[start..]
        .find(END)
        .ok_or("the generated block is not closed")?
        + start;
    let table = hotl_protocol::slash::reference();
    if page[start..end] == table {
        return Ok(());
    }
    if std::env::var_os("HOTL_BLESS").is_some() {
        std::fs::write(&path, format!("{}{table}{}", &page[..start], &page[end..]))?;
        return Ok(());
    }
    Err("docs/commands.md is not the table: run `HOTL_BLESS=1 cargo test -p hotl-protocol --test hotl-protocol-tests documented` and commit it".into())
}

/// The `/name`s a passage quotes (in backticks, maybe with arguments after the name).
fn quoted_commands(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|quoted| {
            let rest = quoted.strip_prefix('/')?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase())
                .collect();
            let after = rest[name.len()..].chars().next();
            let whole_word = matches!(after, None | Some(' ') | Some(','));
            (!name.is_empty() && whole_word).then_some(name)
        })
        .collect()
}

#[test]
fn the_readme_names_every_command_and_only_those() -> Result<(), Box<dyn std::error::Error>> {
    let readme = std::fs::read_to_string(repo().join("README.md"))?;
    // The README's paragraph on the console's commands (the one that says what /help does).
    let passage = readme
        .split("\n\n")
        .find(|p| p.contains("`/help` lists the commands"))
        .ok_or("the README has no paragraph on the slash commands")?;
    let named = quoted_commands(passage);
    // `//text` sends `/text`: the escape, not a command.
    let unknown: Vec<&String> = named
        .iter()
        .filter(|n| *n != "text" && hotl_protocol::slash::find(n).is_none())
        .collect();
    assert!(
        unknown.is_empty(),
        "the README names commands the table lacks: {unknown:?}"
    );
    let missing: Vec<&str> = hotl_protocol::slash::COMMANDS
        .iter()
        .map(|c| c.name)
        .filter(|name| !named.iter().any(|n| n == name))
        .collect();
    assert!(
        missing.is_empty(),
        "the README's commands paragraph leaves out {missing:?}"
    );
    Ok(())
}
