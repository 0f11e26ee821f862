//! `hotl sandbox check` (what the sandbox enforces here, and a self-test: a confined shell
//! tries what the rules refuse and what they allow) and `hotl sandbox run` (a command under
//! the rules a session in this directory would have).

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use hotl_sandbox::{Mode, Rules, Sandbox, Support};

use crate::ctx::Ctx;
use crate::error::CliError;

/// The session's sandbox for this directory, or why there is none.
async fn sandbox(ctx: &Ctx, flag: Option<Mode>) -> Result<Result<Sandbox, String>, CliError> {
    let config = hotl_config::load_file()?.sandbox;
    let mode = flag.or(config.mode).unwrap_or_default();
    if mode == Mode::Off {
        return Ok(Err(
            "the sandbox is off ([sandbox] mode or --sandbox)".to_owned()
        ));
    }
    let support = Support::detect();
    if !support.enforces() {
        return Ok(Err(
            "this system does not enforce Landlock: commands cannot be confined".to_owned(),
        ));
    }
    let inputs = super::inputs(ctx, mode, &config, Path::new(&ctx.cwd));
    Sandbox::prepare(inputs)
        .await
        .map(Ok)
        .map_err(|e| CliError::user(format!("cannot set up the sandbox: {e}")))
}

/// The reaper process, confined to `rules`, running `program` with `args`.
fn confined(rules: &Rules, program: &OsString, args: &[OsString]) -> Result<Command, CliError> {
    let exe = std::env::current_exe()?;
    let json = serde_json::to_string(rules)?;
    let mut command = Command::new(exe);
    command
        .arg(hotl_tool::REAPER_FLAG)
        .arg(std::process::id().to_string())
        .arg(hotl_sandbox::RULES_FLAG)
        .arg(json)
        .arg("--")
        .arg(program)
        .args(args)
        .envs(rules.command_env());
    for var in hotl_sandbox::credentials::CREDENTIAL_VARS {
        command.env_remove(var);
    }
    Ok(command)
}

/// Runs `program` with `args` under the rules a session in this directory would have (the
/// mode `flag` names, else the configured one); its exit status.
pub async fn run(
    ctx: &Ctx,
    flag: Option<Mode>,
    program: &OsString,
    args: &[OsString],
) -> Result<std::process::ExitStatus, CliError> {
    let sandbox = sandbox(ctx, flag).await?.map_err(CliError::user)?;
    Ok(confined(sandbox.rules(), program, args)?.status()?)
}

/// What the sandbox enforces here, and a self-test of it: the report, and whether the rules
/// are enforced and the test passed.
pub async fn check(ctx: &Ctx, flag: Option<Mode>) -> Result<(String, bool), CliError> {
    let mut out = Vec::new();
    let support = Support::detect();
    writeln!(out, "landlock: ABI {}", support.landlock_abi)?;
    let sandbox = match sandbox(ctx, flag).await? {
        Ok(sandbox) => sandbox,
        Err(why) => {
            writeln!(out, "not enforced: {why}")?;
            return Ok((String::from_utf8_lossy(&out).into_owned(), false));
        }
    };
    let rules = sandbox.rules();
    describe(&mut out, rules, support)?;
    let failures = self_test(rules)?;
    if failures.is_empty() {
        writeln!(out, "self-test: passed")?;
    }
    for failure in &failures {
        writeln!(out, "self-test: FAILED: {failure}")?;
    }
    Ok((
        String::from_utf8_lossy(&out).into_owned(),
        failures.is_empty(),
    ))
}

/// What the rules say, one line a rule.
fn describe(out: &mut impl Write, rules: &Rules, support: Support) -> std::io::Result<()> {
    writeln!(out, "mode: {}", rules.mode)?;
    for dir in &rules.writable {
        writeln!(out, "write: {} ({:?})", dir.path.display(), dir.why)?;
    }
    for denied in &rules.deny_read {
        writeln!(
            out,
            "deny read: {} ({:?})",
            denied.path.display(),
            denied.why
        )?;
    }
    let net = &rules.net;
    let network = if net.open {
        "open".to_owned()
    } else if let Some(port) = net.proxy {
        format!(
            "through the proxy on 127.0.0.1:{port} to {}",
            net.allow_domains.join(", ")
        )
    } else if net.loopback {
        "a loopback of the command's own (a network namespace)".to_owned()
    } else if support.tcp() {
        "closed (TCP by Landlock, other sockets by seccomp)".to_owned()
    } else {
        "closed (internet sockets refused by seccomp: Landlock before ABI 4 has no TCP rules)"
            .to_owned()
    };
    writeln!(out, "network: {network}")
}

/// Runs a confined shell that tries what the rules refuse and what they allow; the failures.
fn self_test(rules: &Rules) -> Result<Vec<String>, CliError> {
    let scratch = tempfile::tempdir()?;
    let project = scratch.path().join("project");
    let secret = scratch.path().join("secret");
    std::fs::create_dir_all(&project)?;
    std::fs::write(&secret, "secret")?;
    let mut test = rules.for_cwd(&project);
    if test.mode == Mode::ReadOnly {
        test.writable.clear();
    }
    test.deny_read.push(hotl_sandbox::DenyRead {
        path: secret.canonicalize()?,
        why: hotl_sandbox::Denied::Configured,
    });
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let script = format!(
        "cd '{p}'; echo x > inside 2>/dev/null && echo WROTE-INSIDE; echo x > ../outside 2>/dev/null && echo WROTE-OUTSIDE; cat ../secret >/dev/null 2>&1 && echo READ-SECRET; (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo CONNECTED; exit 0",
        p = project.display()
    );
    let shell = if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "sh"
    };
    let output = confined(&test, &shell.into(), &["-c".into(), script.into()])?
        .stdin(Stdio::null())
        .output()?;
    let said = String::from_utf8_lossy(&output.stdout);
    let mut failures = Vec::new();
    if !output.status.success() {
        failures.push(format!(
            "the confined shell failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let writes = test.mode == Mode::WorkspaceWrite;
    if writes != said.contains("WROTE-INSIDE") {
        failures.push(format!(
            "a write in the project was {}",
            if writes {
                "refused"
            } else {
                "allowed in read-only mode"
            }
        ));
    }
    for (marker, what) in [
        ("WROTE-OUTSIDE", "a write outside the project was allowed"),
        ("READ-SECRET", "a denied file was read"),
    ] {
        if said.contains(marker) {
            failures.push(what.to_owned());
        }
    }
    let closed = !test.net.open && !test.net.loopback && shell.ends_with("bash");
    if closed && said.contains("CONNECTED") {
        failures.push("a TCP connection was made with the network closed".to_owned());
    }
    Ok(failures)
}
