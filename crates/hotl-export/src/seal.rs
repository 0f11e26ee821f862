//! Sealing a share: gzip, then AES-256-GCM under a fresh 32-byte key and 12-byte IV, laid out
//! `[IV][ciphertext+tag]` as WebCrypto reads it. The key goes into the link's fragment as
//! base64url without padding and nowhere else.

use std::io::{Read, Write};

use base64::Engine as _;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};

/// Bytes of the IV in front of a sealed share.
pub const IV_LEN: usize = 12;
/// Bytes of the key.
pub const KEY_LEN: usize = 32;
/// Bytes of the tag after the ciphertext.
pub const TAG_LEN: usize = 16;

/// Why a seal could not be made or opened.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// The system's random source failed.
    #[error("the system's random source failed")]
    Random,
    /// Compression failed.
    #[error("compressing the share failed: {0}")]
    Compress(#[from] std::io::Error),
    /// The key is not 32 bytes of base64url.
    #[error("the key is not a share key (32 bytes, base64url)")]
    BadKey,
    /// The key does not open the blob, or the blob was changed.
    #[error("cannot decrypt: the key does not open this share (or it was changed)")]
    Decrypt,
}

/// A sealed share and the key that opens it.
pub struct Sealed {
    /// `[IV][ciphertext+tag]`.
    pub bytes: Vec<u8>,
    /// The key, base64url without padding (43 characters).
    pub key: String,
}

/// gzip of `plain`, compressed hard (what a share stores).
pub fn gzip(plain: &[u8]) -> Result<Vec<u8>, SealError> {
    gzip_at(plain, Compression::new(6))
}

/// gzip of `plain` compressed fast (what a page embeds: written once, read once).
pub fn gzip_fast(plain: &[u8]) -> Result<Vec<u8>, SealError> {
    gzip_at(plain, Compression::fast())
}

fn gzip_at(plain: &[u8], level: Compression) -> Result<Vec<u8>, SealError> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(plain.len() / 4), level);
    encoder.write_all(plain)?;
    Ok(encoder.finish()?)
}

/// The bytes gzipped in `gz`.
pub fn gunzip(gz: &[u8]) -> Result<Vec<u8>, SealError> {
    let mut out = Vec::with_capacity(gz.len() * 4);
    GzDecoder::new(gz).read_to_end(&mut out)?;
    Ok(out)
}

/// Seals `plain` (gzipped first) under a fresh key and IV.
pub fn seal(plain: &[u8]) -> Result<Sealed, SealError> {
    let rng = SystemRandom::new();
    let mut key = [0u8; KEY_LEN];
    let mut iv = [0u8; IV_LEN];
    rng.fill(&mut key).map_err(|_| SealError::Random)?;
    rng.fill(&mut iv).map_err(|_| SealError::Random)?;
    seal_with(plain, &key, &iv)
}

/// Seals `plain` under a given key and IV (tests pin them to check a known vector).
pub fn seal_with(
    plain: &[u8],
    key: &[u8; KEY_LEN],
    iv: &[u8; IV_LEN],
) -> Result<Sealed, SealError> {
    Ok(Sealed {
        bytes: seal_parts(plain, key, iv, &[])?,
        key: base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(key),
    })
}

/// Seals `plain` (gzipped first) under a key the caller keeps, with a fresh IV, binding `aad`
/// (what the sealed bytes are, such as the name they are stored under: opening them under
/// another fails). The layout is a share's: `[IV][ciphertext+tag]`.
pub fn seal_keyed(plain: &[u8], key: &[u8; KEY_LEN], aad: &[u8]) -> Result<Vec<u8>, SealError> {
    let mut iv = [0u8; IV_LEN];
    SystemRandom::new()
        .fill(&mut iv)
        .map_err(|_| SealError::Random)?;
    seal_parts(plain, key, &iv, aad)
}

/// Opens what [`seal_keyed`] sealed under `key` and `aad`: the plain (gunzipped) bytes.
pub fn open_keyed(sealed: &[u8], key: &[u8; KEY_LEN], aad: &[u8]) -> Result<Vec<u8>, SealError> {
    open_parts(sealed, key, aad)
}

fn seal_parts(
    plain: &[u8],
    key: &[u8; KEY_LEN],
    iv: &[u8; IV_LEN],
    aad: &[u8],
) -> Result<Vec<u8>, SealError> {
    let mut data = gzip(plain)?;
    let sealing =
        LessSafeKey::new(UnboundKey::new(&AES_256_GCM, key).map_err(|_| SealError::BadKey)?);
    sealing
        .seal_in_place_append_tag(Nonce::assume_unique_for_key(*iv), Aad::from(aad), &mut data)
        .map_err(|_| SealError::Random)?;
    let mut bytes = Vec::with_capacity(IV_LEN + data.len());
    bytes.extend_from_slice(iv);
    bytes.extend_from_slice(&data);
    Ok(bytes)
}

fn open_parts(sealed: &[u8], key: &[u8; KEY_LEN], aad: &[u8]) -> Result<Vec<u8>, SealError> {
    if sealed.len() < IV_LEN + TAG_LEN {
        return Err(SealError::Decrypt);
    }
    let opening =
        LessSafeKey::new(UnboundKey::new(&AES_256_GCM, key).map_err(|_| SealError::BadKey)?);
    let mut iv = [0u8; IV_LEN];
    iv.copy_from_slice(&sealed[..IV_LEN]);
    let mut data = sealed[IV_LEN..].to_vec();
    let plain = opening
        .open_in_place(Nonce::assume_unique_for_key(iv), Aad::from(aad), &mut data)
        .map_err(|_| SealError::Decrypt)?;
    gunzip(plain)
}

/// Opens a sealed share with its key: the plain (gunzipped) bytes.
pub fn open(sealed: &[u8], key: &str) -> Result<Vec<u8>, SealError> {
    let key = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(key.trim())
        .map_err(|_| SealError::BadKey)?;
    let key: [u8; KEY_LEN] = key.try_into().map_err(|_| SealError::BadKey)?;
    open_parts(sealed, &key, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_opens_with_its_key_and_only_with_it() {
        let sealed = seal(b"{\"format\":\"hotl-export/1\"}").unwrap();
        assert_eq!(sealed.key.len(), 43);
        assert_eq!(
            open(&sealed.bytes, &sealed.key).unwrap(),
            b"{\"format\":\"hotl-export/1\"}"
        );
        let other = seal(b"x").unwrap();
        assert!(matches!(
            open(&sealed.bytes, &other.key),
            Err(SealError::Decrypt)
        ));
        let mut flipped = sealed.bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(matches!(
            open(&flipped, &sealed.key),
            Err(SealError::Decrypt)
        ));
        assert!(matches!(
            open(&sealed.bytes, "short"),
            Err(SealError::BadKey)
        ));
    }

    #[test]
    fn the_layout_is_iv_then_ciphertext_and_tag() {
        let key = [7u8; KEY_LEN];
        let iv = [9u8; IV_LEN];
        let sealed = seal_with(b"hello", &key, &iv).unwrap();
        assert_eq!(&sealed.bytes[..IV_LEN], &iv);
        assert_eq!(
            sealed.bytes.len(),
            IV_LEN + gzip(b"hello").unwrap().len() + TAG_LEN
        );
    }

    #[test]
    fn a_keyed_seal_opens_only_with_its_key_and_its_aad() {
        let key = [3u8; KEY_LEN];
        let sealed = seal_keyed(b"segment", &key, b"trees/a/b/1").unwrap();
        assert_eq!(
            open_keyed(&sealed, &key, b"trees/a/b/1").unwrap(),
            b"segment"
        );
        assert!(matches!(
            open_keyed(&sealed, &key, b"trees/a/b/2"),
            Err(SealError::Decrypt)
        ));
        assert!(matches!(
            open_keyed(&sealed, &[4u8; KEY_LEN], b"trees/a/b/1"),
            Err(SealError::Decrypt)
        ));
        assert!(matches!(
            open_keyed(&sealed[..20], &key, b"trees/a/b/1"),
            Err(SealError::Decrypt)
        ));
    }

    #[test]
    fn every_seal_has_a_fresh_key_and_iv() {
        let mut keys = std::collections::HashSet::new();
        let mut ivs = std::collections::HashSet::new();
        for _ in 0..1000 {
            let sealed = seal(b"x").unwrap();
            assert!(keys.insert(sealed.key));
            assert!(ivs.insert(sealed.bytes[..IV_LEN].to_vec()));
        }
    }
}
