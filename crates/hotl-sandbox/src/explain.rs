//! Naming the rule behind a failed command: a confined command's errors say only "Permission
//! denied"; the tool result adds which rule refused what, so the model can change course (or
//! ask to run the command outside the sandbox).

use std::path::{Path, PathBuf};

use crate::Rules;

/// Words of errors the rules cause: denied opens and writes, refused sockets, names that no
/// longer resolve.
const DENIED: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
];
const NETWORK: &[&str] = &[
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "No address associated with hostname",
    "Failed to connect",
    "Couldn't connect to server",
    "Connection refused",
    "nodename nor servname",
    "getaddrinfo",
    "dns error",
];

/// A note on what the rules refused in a failed command's `output`, run in `cwd`; `None`
/// when nothing in it looks like the sandbox's doing.
pub fn explain(rules: &Rules, output: &str, cwd: &Path) -> Option<String> {
    let mut notes: Vec<String> = Vec::new();
    let sockets = mentions_socket(output);
    for line in output.lines() {
        let denied = DENIED.iter().any(|w| line.contains(w));
        if denied {
            for path in paths_in(line, cwd) {
                let refusal = rules
                    .check_read(&path)
                    .err()
                    .or_else(|| rules.check_write(&path).err());
                if let Some(refusal) = refusal {
                    let note = refusal.to_string();
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
            }
        }
        let network =
            !rules.net.open && (NETWORK.iter().any(|w| line.contains(w)) || (denied && sockets));
        if network {
            let note = network_note(rules);
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    if notes.is_empty() {
        return None;
    }
    notes.truncate(5);
    Some(format!(
        "[sandbox] {}. To run this command outside the sandbox, call bash again with \"sandbox\": false (the user is asked).",
        notes.join("; ")
    ))
}

fn mentions_socket(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    ["socket", "connect", "network", "http", "tcp", "udp", "bind"]
        .iter()
        .any(|w| lower.contains(w))
}

fn network_note(rules: &Rules) -> String {
    let net = &rules.net;
    if net.proxy.is_some() {
        format!(
            "the sandbox's network rule: connections go only through hotl's proxy (HTTP_PROXY), to {}",
            net.allow_domains.join(", ")
        )
    } else if net.loopback {
        "the sandbox's network rule: the command has a network of its own (loopback only); nothing outside is reachable".to_owned()
    } else {
        "the sandbox's network rule: no network connection (TCP, UDP, DNS) is allowed ([sandbox] network, loopback or allow_domains opens it)".to_owned()
    }
}

/// Paths an error line names: quoted ones (`'...'`, `‘...’`, `"..."`), and the words before a
/// `: ` that look like paths (`bash: ../outside: Permission denied`).
fn paths_in(line: &str, cwd: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for (open, close) in [('\'', '\''), ('‘', '’'), ('"', '"'), ('`', '\'')] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else {
                break;
            };
            found.push(after[..end].to_owned());
            rest = &after[end + close.len_utf8()..];
        }
    }
    for part in line.split(": ") {
        let part = part.trim();
        if part.contains('/') || part.starts_with('.') || part.starts_with('~') {
            found.push(part.to_owned());
        }
    }
    found
        .into_iter()
        .filter(|p| !p.is_empty() && !p.contains(' ') && !p.contains("://"))
        .map(|p| {
            let path = PathBuf::from(&p);
            if path.is_absolute() {
                path
            } else {
                cwd.join(path)
            }
        })
        .collect()
}
