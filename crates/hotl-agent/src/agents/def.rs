//! One agent definition: its fields, how a file's header becomes one (and what is refused),
//! and what it lets a child do ([`AgentDef::allows`], [`AgentDef::shape`]).

use std::path::{Path, PathBuf};

use super::frontmatter::{self, Value};
use crate::permission::Mode;

/// The keys a definition's header may have; any other is an error naming it.
const KEYS: &[&str] = &[
    "name",
    "description",
    "tools",
    "disallowed_tools",
    "model",
    "permission_mode",
    "max_steps",
    "background",
    "context",
    "isolation",
];

/// The longest name a definition may have.
pub const MAX_NAME_LEN: usize = 64;

/// What a child made from a definition starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// A fork of the parent: its messages so far, then the task.
    Fork,
    /// Only the definition's prompt and the task.
    Clean,
    /// The user's messages verbatim and the working-tree diff of the session's work; never the
    /// assistant's text, reasoning or tool calls (the task it was handed excepted, capped).
    Reviewer,
}

impl Context {
    /// The name as written in a header.
    pub fn name(self) -> &'static str {
        match self {
            Context::Fork => "fork",
            Context::Clean => "clean",
            Context::Reviewer => "reviewer",
        }
    }
}

/// Where a child's changes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// A git worktree of its own (so a background child may write).
    Worktree,
}

/// Where a definition came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Compiled into hotl.
    BuiltIn,
    /// The user's `~/.config/hotl/agents/` (this file).
    User(PathBuf),
    /// The project's `.hotl/agents/` (this file).
    Project(PathBuf),
}

impl Source {
    /// The file, for user and project definitions.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::BuiltIn => None,
            Source::User(path) | Source::Project(path) => Some(path),
        }
    }

    /// `built-in`, `user` or `project`.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::BuiltIn => "built-in",
            Source::User(_) => "user",
            Source::Project(_) => "project",
        }
    }
}

/// How a child is started for one call, given its definition and whether the call asked for a
/// fork ([`AgentDef::shape`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Today's fork: the parent's prompt, tools and messages, then the task.
    Fork,
    /// A fork whose system prompt or model is the definition's: the parent's messages handed
    /// over as context under the definition's prompt.
    Wrapped,
    /// A fresh session: the definition's prompt and the task only.
    Clean,
    /// The reviewer's view: the user's messages and the diff (see [`Context::Reviewer`]).
    Reviewer,
}

/// An agent definition: a Markdown file whose `---` header sets these fields and whose body is
/// the child's system prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentDef {
    /// The name the `spawn` tool is called with: the file's stem (`reviewer.md` is
    /// `reviewer`); a `name:` in the header must equal it.
    pub name: String,
    /// When to use it, shown to the model (required).
    pub description: String,
    /// The tools it may call (names, or `mcp__server__*` for every tool of a server); `None`:
    /// the parent's tools (without MCP tools, which come only when listed).
    pub tools: Option<Vec<String>>,
    /// Tools taken away, even when `tools` lists them.
    pub disallowed_tools: Vec<String>,
    /// The model, as `--model` takes it; `None`: the parent's.
    pub model: Option<String>,
    /// The permission mode; never wider than the parent's when the child runs.
    pub permission_mode: Option<Mode>,
    /// At most this many steps (model calls) per run.
    pub max_steps: Option<u32>,
    /// Runs in the background by default.
    pub background: bool,
    /// What the child starts with; `None`: a fork when the call asks for one, else clean.
    pub context: Option<Context>,
    /// Where its changes go.
    pub isolation: Option<Isolation>,
    /// The system prompt (the body, trimmed); empty for a plain fork.
    pub prompt: String,
    /// Where it came from.
    pub source: Source,
    /// The file as read, byte for byte: a child freezes these in its `agent_blob`.
    pub bytes: Vec<u8>,
}

/// Whether `name` may name a definition: `[a-z0-9][a-z0-9-_]*`, at most 64 bytes.
pub fn valid_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        && name.len() <= MAX_NAME_LEN
}

/// Whether `entry` (of `tools` or `disallowed_tools`) covers `tool`: the same name, or an
/// `mcp__server__*` pattern and a tool of that server.
fn covers(entry: &str, tool: &str) -> bool {
    match entry.strip_suffix('*') {
        Some(prefix) => tool.starts_with(prefix) && tool.len() > prefix.len(),
        None => entry == tool,
    }
}

/// The tools hotl has to offer (the built-in tools, the moves and the delegation tools), and
/// whether each only reads ([`Tool::reads_only`](hotl_tool::Tool::reads_only)).
fn known_tools() -> Vec<(String, bool)> {
    let set = crate::with_agents(crate::standard_tools(), Vec::new());
    set.names()
        .into_iter()
        .filter_map(|name| Some((name.to_owned(), set.get(name)?.reads_only())))
        .collect()
}

/// Whether a tool only reads.
fn reads_only(name: &str, known: &[(String, bool)]) -> bool {
    known.iter().any(|(n, reads)| n == name && *reads)
}

impl AgentDef {
    /// Parses a definition file. `stem` is the file's name without `.md`; `source` and
    /// `bytes` are kept as given. The error says what is wrong, with a line number when the
    /// header does not parse.
    pub fn parse(stem: &str, bytes: &[u8], source: Source) -> Result<AgentDef, String> {
        let text = std::str::from_utf8(bytes).map_err(|_| "the file is not UTF-8".to_owned())?;
        let parsed = frontmatter::parse(text)?;
        let mut def = AgentDef {
            name: stem.to_owned(),
            description: String::new(),
            tools: None,
            disallowed_tools: Vec::new(),
            model: None,
            permission_mode: None,
            max_steps: None,
            background: false,
            context: None,
            isolation: None,
            prompt: parsed.body,
            source,
            bytes: bytes.to_vec(),
        };
        for (key, value, line) in parsed.entries {
            let at = |why: String| format!("line {line}: {why}");
            if !KEYS.contains(&key.as_str()) {
                let hint = match KEYS
                    .iter()
                    .find(|k| k.starts_with(&key) || key.starts_with(*k))
                {
                    Some(k) => format!("did you mean `{k}`?"),
                    None => format!("the keys are {}", KEYS.join(", ")),
                };
                return Err(at(format!("unknown key `{key}` ({hint})")));
            }
            match key.as_str() {
                "name" => {
                    let name = text_of(&key, value).map_err(at)?;
                    if name != stem {
                        return Err(at(format!(
                            "`name: {name}` differs from the file's name ({stem}.md): a definition is named by its file"
                        )));
                    }
                }
                "description" => def.description = text_of(&key, value).map_err(at)?,
                "tools" => def.tools = Some(list_of(&key, value).map_err(at)?),
                "disallowed_tools" => def.disallowed_tools = list_of(&key, value).map_err(at)?,
                "model" => def.model = Some(text_of(&key, value).map_err(at)?),
                "permission_mode" => {
                    let mode = text_of(&key, value).map_err(at)?;
                    def.permission_mode = Some(Mode::from_name(&mode).ok_or_else(|| {
                        at(format!(
                            "`permission_mode: {mode}` is not a mode (default, accept-edits, bypass, plan)"
                        ))
                    })?);
                }
                "max_steps" => {
                    let text = plain_of(&key, value).map_err(at)?;
                    let steps = text.parse::<u32>().ok().filter(|n| *n > 0).ok_or_else(|| {
                        at(format!("`max_steps: {text}` is not a number above 0"))
                    })?;
                    def.max_steps = Some(steps);
                }
                "background" => {
                    def.background = match plain_of(&key, value).map_err(at)?.as_str() {
                        "true" => true,
                        "false" => false,
                        other => {
                            return Err(at(format!("`background: {other}` is not true or false")));
                        }
                    }
                }
                "context" => {
                    def.context = Some(match text_of(&key, value).map_err(at)?.as_str() {
                        "fork" => Context::Fork,
                        "clean" => Context::Clean,
                        "reviewer" => Context::Reviewer,
                        other => {
                            return Err(at(format!(
                                "`context: {other}` is not fork, clean or reviewer"
                            )));
                        }
                    });
                }
                "isolation" => {
                    def.isolation = match text_of(&key, value).map_err(at)?.as_str() {
                        "worktree" => Some(Isolation::Worktree),
                        other => {
                            return Err(at(format!("`isolation: {other}` is not worktree")));
                        }
                    }
                }
                _ => unreachable!("every key of KEYS has an arm"),
            }
        }
        def.check()?;
        Ok(def)
    }

    /// What no single key shows: a name, a description, tool entries that name tools, a
    /// reviewer that only reads.
    fn check(&self) -> Result<(), String> {
        if !valid_name(&self.name) {
            return Err(format!(
                "{:?} is not a definition name ([a-z0-9][a-z0-9-_]*, at most {MAX_NAME_LEN}); rename the file",
                self.name
            ));
        }
        if self.description.trim().is_empty() {
            return Err("`description` is required: say when the agent is for".to_owned());
        }
        let known = known_tools();
        let names: Vec<&str> = known.iter().map(|(n, _)| n.as_str()).collect();
        for (key, entries) in [
            ("tools", self.tools.as_deref().unwrap_or_default()),
            ("disallowed_tools", &self.disallowed_tools),
        ] {
            for entry in entries {
                let ok = if let Some(rest) = entry.strip_prefix("mcp__") {
                    match rest.split_once("__") {
                        Some((server, tool)) => {
                            !server.is_empty()
                                && !tool.is_empty()
                                && (tool == "*" || !tool.contains('*'))
                        }
                        None => false,
                    }
                } else {
                    names.contains(&entry.as_str())
                };
                if !ok {
                    return Err(format!(
                        "`{key}`: {entry:?} is not a tool (hotl's tools: {}; MCP tools: mcp__SERVER__TOOL or mcp__SERVER__*)",
                        names.join(", ")
                    ));
                }
            }
        }
        let writes = self.tools.iter().flatten().find(|t| !reads_only(t, &known));
        if let (Some(Context::Reviewer), Some(writes)) = (self.context, writes) {
            return Err(format!(
                "`context: reviewer` only reads, but `tools` lists {writes:?}"
            ));
        }
        Ok(())
    }

    /// Whether a child made from this definition may call `tool`: listed in `tools` (by name
    /// or `mcp__server__*`) or, with no `tools`, any non-MCP tool (a reviewer: read-only ones);
    /// and not in `disallowed_tools`. An MCP tool is allowed only when `tools` lists it.
    pub fn allows(&self, tool: &str) -> bool {
        if self.disallowed_tools.iter().any(|e| covers(e, tool)) {
            return false;
        }
        match &self.tools {
            Some(list) => list.iter().any(|e| covers(e, tool)),
            None if tool.starts_with("mcp__") => false,
            None if self.context == Some(Context::Reviewer) => reads_only(tool, &known_tools()),
            None => true,
        }
    }

    /// How a child starts for a call that asked for a fork (`fork_requested`) or not:
    ///
    /// | definition | fork asked | shape |
    /// |---|---|---|
    /// | `context: reviewer` | no | [`Shape::Reviewer`] |
    /// | `context: reviewer` | yes | error |
    /// | `context: clean` | either | [`Shape::Clean`] |
    /// | `context: fork`, or none and a fork asked; no body, no model | — | [`Shape::Fork`] |
    /// | `context: fork`, or none and a fork asked; a body or a model | — | [`Shape::Wrapped`] |
    /// | no `context`, no fork asked | no | [`Shape::Clean`] |
    pub fn shape(&self, fork_requested: bool) -> Result<Shape, String> {
        match self.context {
            Some(Context::Reviewer) if fork_requested => Err(format!(
                "{} reviews independently: it never sees the conversation, so it cannot be a fork (leave out fork)",
                self.name
            )),
            Some(Context::Reviewer) => Ok(Shape::Reviewer),
            Some(Context::Clean) => Ok(Shape::Clean),
            None if !fork_requested => Ok(Shape::Clean),
            Some(Context::Fork) | None => {
                if self.prompt.is_empty() && self.model.is_none() {
                    Ok(Shape::Fork)
                } else {
                    Ok(Shape::Wrapped)
                }
            }
        }
    }
}

/// A string: a scalar (quoted or not).
fn text_of(key: &str, value: Value) -> Result<String, String> {
    match value {
        Value::Scalar { text, .. } => Ok(text),
        Value::List(items) if items.is_empty() => Err(format!("`{key}` has no value")),
        Value::List(_) => Err(format!("`{key}` takes one value, not a list")),
    }
}

/// A bare scalar (a number or a boolean: quotes make it a string).
fn plain_of(key: &str, value: Value) -> Result<String, String> {
    match value {
        Value::Scalar {
            text,
            quoted: false,
        } => Ok(text),
        Value::Scalar { text, quoted: true } => {
            Err(format!("`{key}` takes {text} unquoted, not a string"))
        }
        Value::List(_) => Err(format!("`{key}` takes one value, not a list")),
    }
}

/// A list: inline, block, or one unquoted scalar of comma-separated names (`read, grep`).
fn list_of(key: &str, value: Value) -> Result<Vec<String>, String> {
    let items = match value {
        Value::List(items) => items,
        Value::Scalar {
            text,
            quoted: false,
        } => text.split(',').map(|s| s.trim().to_owned()).collect(),
        Value::Scalar { quoted: true, .. } => {
            return Err(format!(
                "`{key}` is a list: [a, b], `- a` lines, or a, b unquoted"
            ));
        }
    };
    if items.iter().any(|i| i.is_empty()) {
        return Err(format!("`{key}` has an empty entry"));
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{AgentDef, Context, Isolation, Shape, Source};
    use crate::permission::Mode;

    fn parse(text: &str) -> Result<AgentDef, String> {
        AgentDef::parse("helper-1", text.as_bytes(), Source::BuiltIn)
    }

    fn def(header: &str, body: &str) -> AgentDef {
        parse(&format!("---\ndescription: d\n{header}---\n{body}")).expect(header)
    }

    #[test]
    fn a_definition_may_list_the_delegation_tools() {
        let text = "---\ndescription: plans and hands out work\ntools: [read, spawn, continue, cancel]\n---\n";
        let def = AgentDef::parse("lead", text.as_bytes(), Source::BuiltIn).expect("parses");
        assert!(def.allows("spawn") && def.allows("continue") && def.allows("cancel"));
        let reviewer = "---\ndescription: x\ncontext: reviewer\ntools: [read, spawn]\n---\n";
        assert!(AgentDef::parse("r", reviewer.as_bytes(), Source::BuiltIn).is_err());
    }

    #[test]
    fn every_field() {
        let text = "---\nname: helper-1\ndescription: \"Finds things: quickly\"\ntools:\n  - read\n  - grep\n  - mcp__github__*\ndisallowed_tools: [grep]\nmodel: 'claude-haiku-4-5'\npermission_mode: plan\nmax_steps: 12\nbackground: true\ncontext: clean\nisolation: worktree\n---\n\nYou find things.\n";
        let path = PathBuf::from("/p/.hotl/agents/helper-1.md");
        let def = AgentDef::parse("helper-1", text.as_bytes(), Source::Project(path.clone()))
            .expect("parses");
        assert_eq!(
            def,
            AgentDef {
                name: "helper-1".into(),
                description: "Finds things: quickly".into(),
                tools: Some(vec!["read".into(), "grep".into(), "mcp__github__*".into()]),
                disallowed_tools: vec!["grep".into()],
                model: Some("claude-haiku-4-5".into()),
                permission_mode: Some(Mode::Plan),
                max_steps: Some(12),
                background: true,
                context: Some(Context::Clean),
                isolation: Some(Isolation::Worktree),
                prompt: "You find things.".into(),
                source: Source::Project(path),
                bytes: text.as_bytes().to_vec(),
            }
        );
    }

    #[test]
    fn defaults_and_the_comma_form_of_a_list() {
        let def = def("tools: read, grep\n", "");
        assert_eq!(def.tools, Some(vec!["read".into(), "grep".into()]));
        assert_eq!(def.name, "helper-1", "named by its file");
        assert_eq!(
            (
                def.model,
                def.permission_mode,
                def.max_steps,
                def.background
            ),
            (None, None, None, false)
        );
        assert_eq!((def.context, def.isolation), (None, None));
        assert_eq!(def.prompt, "");
    }

    #[test]
    fn what_is_refused_and_why() {
        for (text, why) in [
            (
                "---\ndescription: d\ntool: [read]\n---\n",
                "unknown key `tool`",
            ),
            (
                "---\ndescription: d\ntool: [read]\n---\n",
                "did you mean `tools`",
            ),
            (
                "---\ndescription: d\ncolour: red\n---\n",
                "unknown key `colour`",
            ),
            (
                "---\ntools: [read]\n---\nBody.\n",
                "`description` is required",
            ),
            (
                "---\ndescription: \"  \"\n---\n",
                "`description` is required",
            ),
            ("---\ndescription:\n---\n", "`description` has no value"),
            (
                "---\ndescription: d\ncontext: forked\n---\n",
                "not fork, clean or reviewer",
            ),
            ("---\ndescription: d\ncontext: [fork]\n---\n", "not a list"),
            (
                "---\ndescription: d\npermission_mode: yolo\n---\n",
                "not a mode",
            ),
            ("---\ndescription: d\nmax_steps: 0\n---\n", "above 0"),
            ("---\ndescription: d\nmax_steps: many\n---\n", "above 0"),
            ("---\ndescription: d\nmax_steps: \"3\"\n---\n", "unquoted"),
            (
                "---\ndescription: d\nbackground: yes\n---\n",
                "not true or false",
            ),
            (
                "---\ndescription: d\nisolation: chroot\n---\n",
                "not worktree",
            ),
            (
                "---\ndescription: d\ntools: [Read]\n---\n",
                "\"Read\" is not a tool",
            ),
            (
                "---\ndescription: d\ntools: [mcp__gh]\n---\n",
                "is not a tool",
            ),
            (
                "---\ndescription: d\ntools: [mcp__gh__a*]\n---\n",
                "is not a tool",
            ),
            ("---\ndescription: d\ntools: \"read\"\n---\n", "is a list"),
            (
                "---\ndescription: d\ndisallowed_tools: [rm]\n---\n",
                "`disallowed_tools`",
            ),
            (
                "---\nname: other\ndescription: d\n---\n",
                "differs from the file's name",
            ),
            (
                "---\ndescription: d\ncontext: reviewer\ntools: [read, edit]\n---\n",
                "only reads, but `tools` lists \"edit\"",
            ),
            (
                "---\ndescription: d\ncontext: reviewer\ntools: [read, bash]\n---\n",
                "\"bash\"",
            ),
            (
                "---\ndescription: d\ncontext: reviewer\ntools: [read, fork]\n---\n",
                "\"fork\"",
            ),
            (
                "---\ndescription: d\ncontext: reviewer\ntools: [mcp__gh__*]\n---\n",
                "\"mcp__gh__*\"",
            ),
            ("no header\n", "no frontmatter"),
        ] {
            let err = parse(text).expect_err(text);
            assert!(err.contains(why), "{text:?}: {err}");
        }
        let bad_name = AgentDef::parse("Big Name", b"---\ndescription: d\n---\n", Source::BuiltIn)
            .expect_err("bad name");
        assert!(bad_name.contains("not a definition name"), "{bad_name}");
        let long = "a".repeat(65);
        assert!(AgentDef::parse(&long, b"---\ndescription: d\n---\n", Source::BuiltIn).is_err());
        assert!(
            AgentDef::parse(&long[..64], b"---\ndescription: d\n---\n", Source::BuiltIn).is_ok()
        );
        assert!(
            AgentDef::parse("x", &[b'-', b'-', b'-', b'\n', 0xff], Source::BuiltIn)
                .expect_err("utf-8")
                .contains("UTF-8")
        );
    }

    #[test]
    fn allows_the_list_minus_the_disallowed() {
        let listed = def(
            "tools: [read, grep, bash, mcp__srv__*]\ndisallowed_tools: [bash]\n",
            "",
        );
        assert!(listed.allows("read") && listed.allows("grep"));
        assert!(!listed.allows("bash"), "disallowed wins");
        assert!(!listed.allows("edit"), "not listed");
        assert!(listed.allows("mcp__srv__search"), "by the server's pattern");
        assert!(
            !listed.allows("mcp__srv__"),
            "a pattern needs a tool after it"
        );
        assert!(!listed.allows("mcp__other__search"), "another server");

        let all = def("disallowed_tools: [write, mcp__srv__drop]\n", "");
        assert!(all.allows("read") && all.allows("bash") && all.allows("edit"));
        assert!(!all.allows("write"));
        assert!(
            !all.allows("mcp__srv__search"),
            "MCP tools only when listed"
        );

        let exact = def(
            "tools: [mcp__srv__search, mcp__srv__drop]\ndisallowed_tools: [mcp__srv__drop]\n",
            "",
        );
        assert!(exact.allows("mcp__srv__search") && !exact.allows("mcp__srv__drop"));
        assert!(!exact.allows("mcp__srv__other"));

        let reviewer = def("context: reviewer\n", "Review.");
        assert!(reviewer.allows("read") && reviewer.allows("grep"));
        assert!(!reviewer.allows("write") && !reviewer.allows("bash") && !reviewer.allows("fork"));
    }

    #[test]
    fn shape_follows_the_table() {
        let plain = def("", "");
        assert_eq!(
            plain.shape(true),
            Ok(Shape::Fork),
            "no body, no model, fork"
        );
        assert_eq!(plain.shape(false), Ok(Shape::Clean), "no fork asked");
        let body = def("", "A prompt.");
        assert_eq!(body.shape(true), Ok(Shape::Wrapped));
        assert_eq!(body.shape(false), Ok(Shape::Clean));
        let model = def("model: small\n", "");
        assert_eq!(model.shape(true), Ok(Shape::Wrapped));
        let clean = def("context: clean\n", "");
        assert_eq!(
            clean.shape(true),
            Ok(Shape::Clean),
            "clean even when a fork is asked"
        );
        assert_eq!(clean.shape(false), Ok(Shape::Clean));
        let fork = def("context: fork\n", "");
        assert_eq!(
            fork.shape(false),
            Ok(Shape::Fork),
            "a fork even when not asked"
        );
        let fork_body = def("context: fork\n", "A prompt.");
        assert_eq!(fork_body.shape(false), Ok(Shape::Wrapped));
        let reviewer = def("context: reviewer\n", "Review.");
        assert_eq!(reviewer.shape(false), Ok(Shape::Reviewer));
        let err = reviewer.shape(true).expect_err("reviewer + fork");
        assert!(err.contains("cannot be a fork"), "{err}");
    }
}
