//! The socket families Landlock does not cover, and a few system calls a confined command has
//! no business making, refused with seccomp (the filter is built by `seccompiler`).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// What the filter lets through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sockets {
    /// Every socket family (the network is open).
    All,
    /// Unix, netlink and internet sockets: the command has a network of its own.
    Namespaced,
    /// Unix and netlink sockets, and TCP (the only TCP port Landlock grants is the proxy's).
    StreamOnly,
    /// Unix and netlink sockets: no internet socket at all.
    Local,
}

/// An error building or loading the filter.
#[derive(Debug, thiserror::Error)]
#[error("seccomp: {0}")]
pub struct Error(String);

fn err(e: impl std::fmt::Display) -> Error {
    Error(e.to_string())
}

/// System calls refused whatever the rules: loading kernel code, reaching other namespaces,
/// the kernel keyring (which may hold credentials), io_uring (whose operations seccomp does
/// not see), and handle-based opens (which skip path checks).
const REFUSED: &[libc::c_long] = &[
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_open_by_handle_at,
    libc::SYS_bpf,
    libc::SYS_setns,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
];

fn arg(index: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, Error> {
    SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value).map_err(err)
}

/// The rules on `socket(2)` for `sockets`.
fn socket_rules(sockets: Sockets) -> Result<Vec<SeccompRule>, Error> {
    use SeccompCmpOp::{Eq, MaskedEq, Ne};
    let family = |f: libc::c_int| f as u64;
    let mut rules = Vec::new();
    if sockets == Sockets::All {
        return Ok(rules);
    }
    // Any family but these four.
    rules.push(
        SeccompRule::new(vec![
            arg(0, Ne, family(libc::AF_UNIX))?,
            arg(0, Ne, family(libc::AF_INET))?,
            arg(0, Ne, family(libc::AF_INET6))?,
            arg(0, Ne, family(libc::AF_NETLINK))?,
        ])
        .map_err(err)?,
    );
    for inet in [libc::AF_INET, libc::AF_INET6] {
        match sockets {
            Sockets::Local => {
                rules.push(SeccompRule::new(vec![arg(0, Eq, family(inet))?]).map_err(err)?);
            }
            Sockets::StreamOnly => {
                for kind in [
                    libc::SOCK_DGRAM,
                    libc::SOCK_RAW,
                    libc::SOCK_SEQPACKET,
                    libc::SOCK_RDM,
                    // SOCK_PACKET (obsolete, but the kernel still takes it).
                    10,
                ] {
                    rules.push(
                        SeccompRule::new(vec![
                            arg(0, Eq, family(inet))?,
                            arg(1, MaskedEq(0xf), kind as u64)?,
                        ])
                        .map_err(err)?,
                    );
                }
            }
            Sockets::Namespaced | Sockets::All => {}
        }
    }
    Ok(rules)
}

/// The filter for `sockets`: matching calls fail with `EACCES` ("Permission denied").
pub fn program(sockets: Sockets) -> Result<BpfProgram, Error> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        REFUSED.iter().map(|&call| (call, Vec::new())).collect();
    let socket = socket_rules(sockets)?;
    if !socket.is_empty() {
        rules.insert(libc::SYS_socket, socket);
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(err)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(err)?;
    filter.try_into().map_err(err)
}

/// Loads the filter for `sockets` on this thread (inherited by what it starts). Needs
/// `no_new_privs`, which Landlock has set.
pub fn apply(sockets: Sockets) -> Result<(), Error> {
    seccompiler::apply_filter(&program(sockets)?).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_filter_builds() {
        for sockets in [
            Sockets::All,
            Sockets::Namespaced,
            Sockets::StreamOnly,
            Sockets::Local,
        ] {
            let program = program(sockets).expect("builds");
            assert!(!program.is_empty());
        }
    }
}
