//! Applying the rules' file and TCP parts to this process with Landlock.
//!
//! Every access right the kernel knows is handled; the grants are: reading (and executing)
//! everything but the denied paths, listing every directory, writing the writable
//! directories and a few devices, and, when the network is closed, no TCP port (or only the
//! proxy's). What is not granted is refused with `EACCES`.

use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, LandlockStatus, NetPort,
    PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};

use crate::Rules;
use crate::rules::WRITABLE_DEVICES;

/// The newest Landlock ABI hotl asks for; older kernels get what they offer.
const ABI_WANTED: ABI = ABI::V7;

/// What Landlock enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enforced {
    /// The kernel's Landlock ABI (0: none).
    pub abi: u8,
    /// Whether TCP is confined too (ABI 4 and later).
    pub tcp: bool,
    /// Whether every asked right is enforced.
    pub full: bool,
}

/// An error applying the rules.
#[derive(Debug, thiserror::Error)]
#[error("landlock: {0}")]
pub struct Error(String);

fn err(e: impl std::fmt::Display) -> Error {
    Error(e.to_string())
}

/// Confines this thread (and what it starts) to `rules`; `tcp` says whether TCP is handled
/// here (not when the command has a network of its own).
pub fn apply(rules: &Rules, tcp: bool) -> Result<Enforced, Error> {
    let abi = ABI_WANTED;
    let read = AccessFs::Execute | AccessFs::ReadFile;
    let write = AccessFs::from_write(abi) | AccessFs::ReadFile | AccessFs::ReadDir;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(err)?
        .scope(Scope::Signal)
        .map_err(err)?;
    if tcp {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(err)?;
    }
    let mut created = ruleset.create().map_err(err)?;
    // Listing any directory: a denied directory's names can be listed, not its files read.
    created = created
        .add_rule(PathBeneath::new(
            PathFd::new("/").map_err(err)?,
            AccessFs::ReadDir,
        ))
        .map_err(err)?;
    for path in rules.read_grants() {
        created = add(created, &path, read)?;
    }
    for device in WRITABLE_DEVICES {
        created = add(created, Path::new(device), AccessFs::from_file(abi))?;
    }
    for dir in &rules.writable {
        created = add(created, &dir.path, write | read)?;
    }
    if tcp && let Some(port) = rules.net.proxy {
        created = created
            .add_rule(NetPort::new(port, AccessNet::ConnectTcp))
            .map_err(err)?;
    }
    let status = created.restrict_self().map_err(err)?;
    let abi = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi as u8,
        _ => 0,
    };
    Ok(Enforced {
        abi,
        tcp: tcp && abi >= 4,
        full: status.ruleset == RulesetStatus::FullyEnforced,
    })
}

/// Adds a grant of `access` under `path` (a file gets only the rights a file can have); a path
/// that cannot be opened is skipped.
fn add(
    created: landlock::RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
) -> Result<landlock::RulesetCreated, Error> {
    let Ok(fd) = PathFd::new(path) else {
        return Ok(created);
    };
    let access = if path.is_dir() {
        access
    } else {
        access & AccessFs::from_file(ABI_WANTED)
    };
    created.add_rule(PathBeneath::new(fd, access)).map_err(err)
}

/// The kernel's Landlock ABI, found by confining a short-lived thread (Landlock confines a
/// thread, not its siblings): 0 when Landlock is missing or disabled.
pub fn abi() -> u8 {
    std::thread::spawn(|| {
        let status = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::Execute)
            .and_then(|r| r.create())
            .and_then(|r| r.restrict_self());
        match status.map(|s| s.landlock) {
            Ok(LandlockStatus::Available { effective_abi, .. }) => effective_abi as u8,
            _ => 0,
        }
    })
    .join()
    .unwrap_or(0)
}
