//! Confining this process to a session's rules: the network first (a namespace of its own,
//! when the rules ask for loopback), then Landlock, then seccomp. Called by the process that
//! leads a command's group, before it starts the command, so the command and everything it
//! starts inherit the rules and none can drop them.

use crate::landlock::Enforced;
use crate::seccomp::Sockets;
use crate::{Mode, Rules};

/// What was applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Applied {
    /// What Landlock enforces.
    pub landlock: Enforced,
    /// Whether the command has a network of its own.
    pub own_network: bool,
}

/// Why the rules could not be applied (the command must then not run).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Landlock refused or is missing.
    #[error(transparent)]
    Landlock(#[from] crate::landlock::Error),
    /// The kernel has no Landlock (or it is disabled).
    #[error("this kernel does not enforce Landlock, so the command cannot be confined")]
    Unsupported,
    /// The seccomp filter could not be loaded.
    #[error(transparent)]
    Seccomp(#[from] crate::seccomp::Error),
}

/// Confines this process (single-threaded: Landlock and seccomp bind the calling thread and
/// what it starts) to `rules`. A loopback that cannot be had (no network namespaces here)
/// closes the network instead, said on stderr.
pub fn confine(rules: &Rules) -> Result<Applied, Error> {
    if rules.mode == Mode::Off {
        return Err(Error::Unsupported);
    }
    let net = &rules.net;
    let mut own_network = false;
    let sockets = if net.open {
        Sockets::All
    } else if net.loopback {
        match crate::netns::enter() {
            Ok(()) => {
                own_network = true;
                Sockets::Namespaced
            }
            Err(e) => {
                eprintln!(
                    "hotl: sandbox: no network namespace for the loopback ({e}); the network is closed"
                );
                closed(rules)
            }
        }
    } else {
        closed(rules)
    };
    let tcp = !net.open && !own_network;
    let landlock = crate::landlock::apply(rules, tcp)?;
    if landlock.abi == 0 {
        return Err(Error::Unsupported);
    }
    // Without Landlock's TCP rules (before ABI 4), seccomp closes internet sockets instead.
    let sockets = if tcp && !landlock.tcp {
        Sockets::Local
    } else {
        sockets
    };
    crate::seccomp::apply(sockets)?;
    Ok(Applied {
        landlock,
        own_network,
    })
}

/// The sockets of a closed network: TCP to the proxy when there is one, else none.
fn closed(rules: &Rules) -> Sockets {
    if rules.net.proxy.is_some() {
        Sockets::StreamOnly
    } else {
        Sockets::Local
    }
}
