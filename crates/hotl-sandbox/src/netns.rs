//! A network of the command's own: a new network namespace whose only interface is a loopback
//! brought up here. Unprivileged users get it inside a user namespace that maps them to
//! themselves.

use std::io;

use nix::sched::{CloneFlags, unshare};
use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketType, netlink, recv, sendto, socket};

/// `RTM_NEWLINK`, `NLM_F_REQUEST | NLM_F_ACK`, `IFF_UP`, `NLMSG_ERROR`.
const RTM_NEWLINK: u16 = 16;
const NLM_F_REQUEST_ACK: u16 = 1 | 4;
const IFF_UP: u32 = 1;
const NLMSG_ERROR: u16 = 2;

/// Moves this process into a new network namespace with its loopback up.
pub fn enter() -> io::Result<()> {
    let root = rustix::process::geteuid().is_root();
    if root {
        unshare(CloneFlags::CLONE_NEWNET)?;
    } else {
        let (uid, gid) = (rustix::process::getuid(), rustix::process::getgid());
        unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET)?;
        std::fs::write("/proc/self/setgroups", "deny")?;
        std::fs::write("/proc/self/uid_map", format!("{0} {0} 1", uid.as_raw()))?;
        std::fs::write("/proc/self/gid_map", format!("{0} {0} 1", gid.as_raw()))?;
    }
    loopback_up()
}

/// Brings up interface 1 (a new namespace's loopback) with one rtnetlink request.
fn loopback_up() -> io::Result<()> {
    let fd = socket(AddressFamily::NETLINK, SocketType::RAW, None)?; // None: NETLINK_ROUTE
    let mut message = Vec::with_capacity(32);
    message.extend_from_slice(&32u32.to_ne_bytes()); // nlmsg_len
    message.extend_from_slice(&RTM_NEWLINK.to_ne_bytes()); // nlmsg_type
    message.extend_from_slice(&NLM_F_REQUEST_ACK.to_ne_bytes()); // nlmsg_flags
    message.extend_from_slice(&1u32.to_ne_bytes()); // nlmsg_seq
    message.extend_from_slice(&0u32.to_ne_bytes()); // nlmsg_pid
    message.extend_from_slice(&[0, 0]); // ifi_family (AF_UNSPEC), pad
    message.extend_from_slice(&0u16.to_ne_bytes()); // ifi_type
    message.extend_from_slice(&1i32.to_ne_bytes()); // ifi_index: lo
    message.extend_from_slice(&IFF_UP.to_ne_bytes()); // ifi_flags
    message.extend_from_slice(&IFF_UP.to_ne_bytes()); // ifi_change
    sendto(
        &fd,
        &message,
        SendFlags::empty(),
        &netlink::SocketAddrNetlink::new(0, 0),
    )?;
    let mut answer = [0u8; 1024];
    let (n, _) = recv(&fd, &mut answer, RecvFlags::empty())?;
    // An acknowledgement is an NLMSG_ERROR whose code is 0.
    if n >= 20 && u16::from_ne_bytes([answer[4], answer[5]]) == NLMSG_ERROR {
        let code = i32::from_ne_bytes([answer[16], answer[17], answer[18], answer[19]]);
        if code != 0 {
            return Err(io::Error::from_raw_os_error(-code));
        }
    }
    Ok(())
}
