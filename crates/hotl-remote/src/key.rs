//! The key everything published is sealed under: read from `HOTL_REMOTE_KEY` or `key_file`,
//! and the two keys derived from it (one seals, one names objects), so neither the sealing
//! key nor the content is ever what an object's name is made of.

use std::path::Path;

use base64::Engine as _;

use crate::error::{RemoteError, Result};

/// Bytes of a key.
pub const KEY_LEN: usize = 32;

/// The keys derived from the user's key.
#[derive(Clone)]
pub struct Keys {
    seal: [u8; KEY_LEN],
    names: [u8; KEY_LEN],
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself: only the fingerprint the store's marker records.
        write!(f, "Keys({})", self.fingerprint())
    }
}

impl Keys {
    /// The keys derived from `key`.
    pub fn derive(key: &[u8; KEY_LEN]) -> Keys {
        Keys {
            seal: blake3::derive_key("hotl remote 2026-12 sealing key", key),
            names: blake3::derive_key("hotl remote 2026-12 object names", key),
        }
    }

    /// The key objects are sealed under.
    pub(crate) fn seal_key(&self) -> &[u8; KEY_LEN] {
        &self.seal
    }

    /// A keyed hash of `what`, as hex: the name of an object whose plain name would say
    /// something about its content (a blob's hash).
    pub fn keyed_name(&self, what: &str) -> String {
        blake3::keyed_hash(&self.names, what.as_bytes()).to_hex()[..48].to_owned()
    }

    /// Names the key without revealing it: the store's marker records it, so a key that is
    /// not the one the store was sealed with is named as such before anything is opened.
    pub fn fingerprint(&self) -> String {
        blake3::keyed_hash(&self.names, b"fingerprint").to_hex()[..16].to_owned()
    }

    /// The key from `HOTL_REMOTE_KEY` (`env`: its value, when set) or else `key_file`.
    pub fn load(env: Option<&str>, key_file: Option<&Path>) -> Result<Keys> {
        if let Some(text) = env.filter(|t| !t.trim().is_empty()) {
            let key = parse_text(text.trim()).ok_or_else(|| {
                RemoteError::Config(
                    "HOTL_REMOTE_KEY is not a key: give 32 bytes as 64 hex characters or base64"
                        .to_owned(),
                )
            })?;
            return Ok(Keys::derive(&key));
        }
        let Some(path) = key_file else {
            return Err(RemoteError::Config(
                "[remote] encrypt = true needs a key: set key_file (head -c 32 /dev/urandom > FILE; chmod 600 FILE) or HOTL_REMOTE_KEY".to_owned(),
            ));
        };
        Ok(Keys::derive(&read_key_file(path)?))
    }
}

/// Reads a key file: 32 raw bytes, or 64 hex characters, or base64 of 32 bytes (a trailing
/// newline allowed). Refused when its group or others can read it.
pub fn read_key_file(path: &Path) -> Result<[u8; KEY_LEN]> {
    use std::os::unix::fs::PermissionsExt;
    let shown = path.display();
    let meta = std::fs::metadata(path)
        .map_err(|e| RemoteError::Config(format!("key_file {shown}: {e}")))?;
    let mode = meta.permissions().mode();
    if mode & 0o044 != 0 {
        return Err(RemoteError::Config(format!(
            "key_file {shown} can be read by others (mode {:o}): chmod 600 {shown}",
            mode & 0o777
        )));
    }
    let bytes =
        std::fs::read(path).map_err(|e| RemoteError::Config(format!("key_file {shown}: {e}")))?;
    if let Ok(raw) = <[u8; KEY_LEN]>::try_from(bytes.as_slice()) {
        return Ok(raw);
    }
    std::str::from_utf8(&bytes)
        .ok()
        .and_then(|text| parse_text(text.trim()))
        .ok_or_else(|| {
            RemoteError::Config(format!(
                "key_file {shown} holds no key: 32 raw bytes, 64 hex characters or base64 of 32 bytes"
            ))
        })
}

/// A key written as 64 hex characters or base64 (standard or URL-safe, padded or not).
fn parse_text(text: &str) -> Option<[u8; KEY_LEN]> {
    if text.len() == 2 * KEY_LEN && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        let mut key = [0u8; KEY_LEN];
        for (i, pair) in text.as_bytes().chunks(2).enumerate() {
            let pair = std::str::from_utf8(pair).ok()?;
            key[i] = u8::from_str_radix(pair, 16).ok()?;
        }
        return Some(key);
    }
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(text).ok())
        .and_then(|bytes| <[u8; KEY_LEN]>::try_from(bytes.as_slice()).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn write(dir: &Path, name: &str, bytes: &[u8], mode: u32) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    #[test]
    fn raw_hex_and_base64_files_give_the_same_key() {
        let dir = tempfile::tempdir().unwrap();
        let raw: [u8; 32] = std::array::from_fn(|i| i as u8 * 7);
        let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
        let b64 = base64::engine::general_purpose::STANDARD.encode(raw);
        let a = read_key_file(&write(dir.path(), "raw", &raw, 0o600)).unwrap();
        let b = read_key_file(&write(
            dir.path(),
            "hex",
            format!("{hex}\n").as_bytes(),
            0o400,
        ))
        .unwrap();
        let c = read_key_file(&write(dir.path(), "b64", b64.as_bytes(), 0o600)).unwrap();
        assert_eq!((a, b), (raw, raw));
        assert_eq!(c, raw);
        assert_eq!(
            Keys::load(Some(&hex), None).unwrap().fingerprint(),
            Keys::derive(&raw).fingerprint()
        );
    }

    #[test]
    fn a_key_file_others_can_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "key", &[1u8; 32], 0o644);
        let e = read_key_file(&path).unwrap_err().to_string();
        assert!(
            e.contains("can be read by others") && e.contains("chmod 600"),
            "{e}"
        );
        let path = write(dir.path(), "group", &[1u8; 32], 0o640);
        assert!(read_key_file(&path).is_err());
    }

    #[test]
    fn what_is_not_a_key_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "short", b"0123", 0o600);
        assert!(
            read_key_file(&path)
                .unwrap_err()
                .to_string()
                .contains("holds no key")
        );
        assert!(Keys::load(Some("nope"), None).is_err());
        let none = Keys::load(None, None).unwrap_err().to_string();
        assert!(
            none.contains("key_file") && none.contains("HOTL_REMOTE_KEY"),
            "{none}"
        );
    }

    #[test]
    fn names_and_seals_use_different_keys_and_debug_hides_both() {
        let keys = Keys::derive(&[9u8; 32]);
        assert_ne!(keys.seal_key(), &keys.names);
        assert_ne!(keys.seal_key(), &[9u8; 32]);
        assert_eq!(keys.keyed_name("abc").len(), 48);
        assert!(!format!("{keys:?}").contains("9, 9"));
    }
}
