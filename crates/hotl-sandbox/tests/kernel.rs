//! The rules as the kernel enforces them: each test confines one thread of its own (Landlock
//! and seccomp bind a thread and what it starts, not its siblings) and tries what a command
//! would. Under `CI=true` a kernel without Landlock fails these tests.

use std::io::ErrorKind;
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::path::Path;

use hotl_sandbox::{Config, Inputs, Mode, Rules, Support};
use hotl_testkit::TestResult;

/// Rules for a project in `root/project`, with `root/home` as the home (its `.ssh` denied).
fn rules(root: &Path, config: Config, mode: Mode) -> Rules {
    std::fs::create_dir_all(root.join("project")).expect("project");
    std::fs::create_dir_all(root.join("home/.ssh")).expect("home");
    std::fs::write(root.join("home/.ssh/id_ed25519"), "KEY").expect("key");
    Rules::compute(&Inputs {
        mode,
        cwd: root.join("project"),
        home: Some(root.join("home")),
        config,
        ..Inputs::default()
    })
}

/// Runs `f` on a thread confined to `rules`.
fn confined<T: Send + 'static>(rules: Rules, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(move || {
        hotl_sandbox::confine(&rules).expect("the rules apply");
        f()
    })
    .join()
    .expect("the confined thread")
}

fn landlock() -> TestResult<bool> {
    hotl_testkit::require(
        "Landlock (a kernel that enforces it)",
        Support::detect().enforces(),
    )
}

#[test]
fn writes_stay_in_the_project_and_secrets_stay_unread() -> TestResult {
    if !landlock()? {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    let rules = rules(&root, Config::default(), Mode::WorkspaceWrite);
    let r = root.clone();
    let (inside, outside, secret, listed, system) = confined(rules, move || {
        (
            std::fs::write(r.join("project/inside"), "x").map_err(|e| e.kind()),
            std::fs::write(r.join("outside"), "x").map_err(|e| e.kind()),
            std::fs::read(r.join("home/.ssh/id_ed25519")).map_err(|e| e.kind()),
            std::fs::read_dir(r.join("home")).is_ok(),
            std::fs::read("/etc/hostname")
                .or_else(|_| std::fs::read("/etc/passwd"))
                .is_ok(),
        )
    });
    assert_eq!(inside, Ok(()));
    assert_eq!(outside, Err(ErrorKind::PermissionDenied));
    assert_eq!(secret, Err(ErrorKind::PermissionDenied));
    assert!(
        listed && system,
        "the system and the home's names stay readable"
    );
    assert!(!root.join("outside").exists());
    Ok(())
}

#[test]
fn read_only_writes_nothing() -> TestResult {
    if !landlock()? {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    let rules = rules(&root, Config::default(), Mode::ReadOnly);
    let r = root.clone();
    let wrote = confined(rules, move || {
        std::fs::write(r.join("project/inside"), "x").map_err(|e| e.kind())
    });
    assert_eq!(wrote, Err(ErrorKind::PermissionDenied));
    Ok(())
}

#[test]
fn the_network_is_closed_then_opened() -> TestResult {
    if !landlock()? {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let closed = rules(&root, Config::default(), Mode::WorkspaceWrite);
    let (tcp, udp) = confined(closed, move || {
        (
            TcpStream::connect(("127.0.0.1", port))
                .map_err(|e| e.kind())
                .map(drop),
            UdpSocket::bind("127.0.0.1:0")
                .map_err(|e| e.kind())
                .map(drop),
        )
    });
    assert_eq!(tcp, Err(ErrorKind::PermissionDenied));
    assert_eq!(udp, Err(ErrorKind::PermissionDenied));
    let open = rules(
        &root,
        Config {
            network: true,
            ..Config::default()
        },
        Mode::WorkspaceWrite,
    );
    let tcp = confined(open, move || {
        TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    assert!(tcp, "network = true connects");
    Ok(())
}

#[test]
fn a_loopback_of_its_own_reaches_its_own_servers_only() -> TestResult {
    if !landlock()? {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    let outside = TcpListener::bind("127.0.0.1:0")?;
    let port = outside.local_addr()?.port();
    let rules = rules(
        &root,
        Config {
            loopback: true,
            ..Config::default()
        },
        Mode::WorkspaceWrite,
    );
    let (own, host) = confined(rules, move || {
        let own = TcpListener::bind("127.0.0.1:0").and_then(|l| {
            let port = l.local_addr()?.port();
            TcpStream::connect(("127.0.0.1", port)).map(drop)
        });
        (own.is_ok(), TcpStream::connect(("127.0.0.1", port)).is_ok())
    });
    assert!(own, "a server the command starts answers it");
    assert!(!host, "the host's loopback is out of reach");
    Ok(())
}
