//! Credentials hotl reads from its environment, kept in memory and wiped from the process's
//! initial environment block.
//!
//! `/proc/<pid>/environ` shows the block a process started with, whatever `remove_var` does
//! later, and a process running as root reads any other's. So at start, before any thread,
//! hotl copies each credential out and overwrites its value's bytes in that block (through
//! `/proc/self/mem`): its own tools, and anything else on the machine, then read an empty
//! value there; hotl reads the kept copy.

use std::collections::HashMap;
use std::os::unix::fs::FileExt;
use std::sync::OnceLock;

/// The variables hotl reads credentials from.
pub const CREDENTIAL_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "GOOGLE_API_KEY",
    "AZURE_STORAGE_KEY",
    "HOTL_SHARE_KEY",
    "HOTL_REMOTE_KEY",
];

static KEPT: OnceLock<HashMap<String, String>> = OnceLock::new();

/// Keeps each of `names` that is set and wipes its value from the environment block; returns
/// how many were wiped. Call once, first thing in `main`.
pub fn scrub(names: &[&str]) -> usize {
    let mut kept = HashMap::new();
    for name in names {
        if let Ok(value) = std::env::var(name)
            && !value.is_empty()
        {
            kept.insert((*name).to_owned(), value);
        }
    }
    let wiped = wipe(kept.keys().map(String::as_str)).unwrap_or(0);
    let _ = KEPT.set(kept);
    wiped
}

/// The value of `name`: the kept credential, else the environment's (empty counts as unset).
pub fn var(name: &str) -> Option<String> {
    KEPT.get()
        .and_then(|kept| kept.get(name).cloned())
        .or_else(|| std::env::var(name).ok())
        .filter(|v| !v.is_empty())
}

/// The environment as hotl started with it: every variable, the kept credentials with their
/// values (the block itself holds them wiped). What a redaction is built from, so that a
/// secret hidden from commands is still known when it must be taken out of a share.
pub fn vars() -> Vec<(String, String)> {
    let kept = KEPT.get();
    let mut vars: Vec<(String, String)> = std::env::vars()
        .filter(|(name, _)| kept.is_none_or(|kept| !kept.contains_key(name)))
        .collect();
    if let Some(kept) = kept {
        vars.extend(kept.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    vars
}

/// Overwrites with NULs the values of `names` in this process's environment block.
fn wipe<'a>(names: impl Iterator<Item = &'a str>) -> std::io::Result<usize> {
    let names: Vec<&str> = names.collect();
    if names.is_empty() {
        return Ok(0);
    }
    let (start, end) = env_block()?;
    let mem = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/proc/self/mem")?;
    let mut block = vec![0u8; (end - start) as usize];
    mem.read_exact_at(&mut block, start)?;
    let mut wiped = 0;
    let mut offset = 0usize;
    for entry in block.split(|&b| b == 0) {
        let here = offset;
        offset += entry.len() + 1;
        let Some(eq) = entry.iter().position(|&b| b == b'=') else {
            continue;
        };
        if !names.iter().any(|n| n.as_bytes() == &entry[..eq]) || eq + 1 == entry.len() {
            continue;
        }
        let value_at = start + (here + eq + 1) as u64;
        mem.write_all_at(&vec![0u8; entry.len() - eq - 1], value_at)?;
        wiped += 1;
    }
    Ok(wiped)
}

/// The addresses of the environment block (`env_start`, `env_end` of `/proc/self/stat`).
fn env_block() -> std::io::Result<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // Fields after the command name (which may hold spaces) start at field 3.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |n: usize| -> std::io::Result<u64> {
        fields
            .get(n - 3)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| std::io::Error::other("no environment block in /proc/self/stat"))
    };
    let (start, end) = (field(50)?, field(51)?);
    if end <= start {
        return Err(std::io::Error::other("an empty environment block"));
    }
    Ok((start, end))
}
