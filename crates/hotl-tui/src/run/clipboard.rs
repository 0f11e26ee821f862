//! Copying: OSC 52 to the terminal (which works through tmux and ssh), and a local clipboard
//! program where one is found.

use std::io::{self, Write};

use base64::Engine as _;

use crate::screen::Screen;

/// OSC 52: the terminal (also through tmux and ssh) puts `text` on the clipboard; where a
/// local clipboard program is found, it gets the text too (terminals that ignore OSC 52).
pub(super) fn copy<W: Write>(screen: &mut Screen<W>, text: &str) -> io::Result<()> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    let out = screen.writer();
    write!(out, "\x1b]52;c;{encoded}\x07")?;
    out.flush()?;
    copy_locally(text);
    Ok(())
}

/// Hands `text` to the first clipboard program this machine has, if any, without waiting.
fn copy_locally(text: &str) {
    const PROGRAMS: &[(&str, &[&str])] = &[
        ("pbcopy", &[]),
        ("wl-copy", &[]),
        ("xclip", &["-selection", "clipboard"]),
        ("xsel", &["--clipboard", "--input"]),
    ];
    let wayland = std::env::var_os("WAYLAND_DISPLAY").is_some();
    let x11 = std::env::var_os("DISPLAY").is_some();
    for (program, args) in PROGRAMS {
        let usable = match *program {
            "pbcopy" => cfg!(target_os = "macos"),
            "wl-copy" => wayland,
            _ => x11,
        };
        if !usable {
            continue;
        }
        let child = std::process::Command::new(program)
            .args(*args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Ok(mut child) = child {
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(text.as_bytes());
            }
            // Reaped on a thread: xclip stays to serve the selection.
            std::thread::spawn(move || child.wait());
            return;
        }
    }
}
