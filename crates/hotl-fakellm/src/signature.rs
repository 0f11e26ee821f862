//! Thinking signatures and sealed reasoning: a blake3 keyed hash over the thinking text, so
//! a replayed block can be checked and a modified one refused like the real APIs do.

/// The Anthropic `signature` of a thinking block: hex of a keyed hash of its text.
pub(crate) fn sign(key: &[u8; 32], thinking: &str) -> String {
    let mut h = blake3::Hasher::new_keyed(key);
    h.update(b"thinking\0");
    h.update(thinking.as_bytes());
    h.finalize().to_hex().to_string()
}

/// Whether `signature` was issued by [`sign`] for exactly this text.
pub(crate) fn verify(key: &[u8; 32], thinking: &str, signature: &str) -> bool {
    // The comparison need not be constant-time: this is a test double, not a secret.
    sign(key, thinking) == signature
}

const SEAL_PREFIX: &str = "fakeenc1.";

/// A Responses `encrypted_content`: the reasoning text (hex) plus its signature, so the
/// server can recover and check it when the item is sent back.
pub(crate) fn seal(key: &[u8; 32], reasoning: &str) -> String {
    let hex: String = reasoning.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{SEAL_PREFIX}{hex}.{}", sign(key, reasoning))
}

/// The reasoning text inside a sealed `encrypted_content`, if it is intact.
pub(crate) fn open(key: &[u8; 32], sealed: &str) -> Option<String> {
    let rest = sealed.strip_prefix(SEAL_PREFIX)?;
    let (hex, sig) = rest.split_once('.')?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    let text = String::from_utf8(bytes).ok()?;
    verify(key, &text, sig).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_bind_the_text() {
        let key = [7u8; 32];
        let sig = sign(&key, "27 * 453");
        assert!(verify(&key, "27 * 453", &sig));
        assert!(!verify(&key, "27 * 454", &sig));
        let sealed = seal(&key, "plan: é");
        assert_eq!(open(&key, &sealed).as_deref(), Some("plan: é"));
        assert_eq!(
            open(&key, &sealed.replace("fakeenc1.70", "fakeenc1.71")),
            None
        );
    }
}
