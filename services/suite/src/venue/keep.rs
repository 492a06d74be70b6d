//! What a venue keeps on its laptop, each in a file of its own readable by its owner only: for
//! each event it pulled, the checkout's private key with the federation's URL and the event's id
//! (`<venue dir>/<event id>.json`), and the admin key of the venue's own suite
//! (`<venue dir>/admin-key`). The federation's API key is never kept.

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catan_kit::venue_signature::SigningKey;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use uuid::Uuid;

/// One pulled event's file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VenueFile {
    /// The federation's base URL.
    pub federation: String,
    pub event_id: Uuid,
    /// The venue's name, as the federation's checkout names it.
    pub venue: String,
    /// The checkout's public key, as the federation was given it (base64url, no padding).
    pub public_key: String,
    /// The checkout's private key (its 32-byte seed, base64url, no padding): what the venue signs
    /// its publish with.
    pub private_key: String,
    /// When the federation checked the event out (absent in a file of an older suite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked_out_at: Option<DateTime<Utc>>,
    /// When the venue released the checkout (`venue publish --release`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released_at: Option<DateTime<Utc>>,
    /// The venue's last publish of the event, and its outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_publish: Option<LastPublish>,
}

/// A publish as the venue keeps it: when, what came of it, and what the venue had then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastPublish {
    pub at: DateTime<Utc>,
    /// What came of it, in a line ("published", "refused: ...", "the federation did not answer").
    pub outcome: String,
    /// Whether the federation has everything the venue had then.
    pub published: bool,
    /// What the venue had when it last published successfully (kept across refused publishes):
    /// what `venue status` counts the changes since from.
    #[serde(default)]
    pub had: Option<Tally>,
}

/// How much of an event the venue has: its results sheets' versions (every result posted or
/// corrected), and its audit records (every change made at the venue).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub rounds: u32,
    pub sheet_versions: u32,
    pub changes: u32,
}

impl VenueFile {
    /// A file for a new key pair.
    pub fn new(federation: &str, event_id: Uuid, venue: &str) -> VenueFile {
        let (key, public_key) = catan_kit::venue_signature::new_venue_key();
        VenueFile {
            federation: federation.to_owned(),
            event_id,
            venue: venue.to_owned(),
            public_key,
            private_key: URL_SAFE_NO_PAD.encode(key.to_bytes()),
            checked_out_at: None,
            released_at: None,
            last_publish: None,
        }
    }

    /// The checkout's signing key.
    pub fn signing_key(&self) -> anyhow::Result<SigningKey> {
        let seed: [u8; 32] = URL_SAFE_NO_PAD
            .decode(&self.private_key)
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .context("the venue file's private_key is not 32 bytes of base64url")?;
        Ok(SigningKey::from_bytes(&seed))
    }

    /// Where the file of `event_id` is kept in `dir`.
    pub fn path(dir: &Path, event_id: Uuid) -> PathBuf {
        dir.join(format!("{event_id}.json"))
    }

    /// The file of `event_id` in `dir`, if the venue pulled it before.
    pub fn read(dir: &Path, event_id: Uuid) -> anyhow::Result<Option<VenueFile>> {
        let path = Self::path(dir, event_id);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .with_context(|| format!("reading {}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }

    /// The files of every event the venue pulled into `dir`, by event id.
    pub fn all(dir: &Path) -> anyhow::Result<Vec<VenueFile>> {
        let listed = match std::fs::read_dir(dir) {
            Ok(listed) => listed,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
        };
        let mut files = Vec::new();
        for entry in listed {
            let name = entry?.file_name();
            let event_id = name
                .to_str()
                .and_then(|name| name.strip_suffix(".json"))
                .and_then(|id| id.parse::<Uuid>().ok());
            if let Some(file) = event_id
                .map(|id| Self::read(dir, id))
                .transpose()?
                .flatten()
            {
                files.push(file);
            }
        }
        files.sort_by_key(|file| file.event_id);
        Ok(files)
    }

    /// Keeps the file in `dir` (made for its owner only), replacing any earlier one: its path.
    pub fn write(&self, dir: &Path) -> anyhow::Result<PathBuf> {
        let path = Self::path(dir, self.event_id);
        write_private(&path, &serde_json::to_vec_pretty(self)?)?;
        Ok(path)
    }
}

/// The admin key of the venue's own suite kept in `dir`, made there on the first pull: whether
/// it was made now, and the key.
pub fn venue_admin_key(dir: &Path) -> anyhow::Result<(bool, String)> {
    let path = dir.join("admin-key");
    match std::fs::read_to_string(&path) {
        Ok(key) => return Ok((false, key.trim().to_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    }
    let key = format!("cvk_{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple());
    write_private(&path, format!("{key}\n").as_bytes())?;
    Ok((true, key))
}

/// Writes `bytes` to `path` readable and writable by its owner only (its folder too), through a
/// file beside it renamed over it, so that a cut-off write leaves the old file whole.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("making {}", dir.display()))?;
    }
    let partial = path.with_extension("partial");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&partial)
        .with_context(|| format!("writing {}", partial.display()))?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&partial, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_venue_file_is_kept_private_and_read_back_with_its_key() {
        let dir = std::env::temp_dir().join(format!("catan-venue-{}", Uuid::new_v4()));
        let file = VenueFile::new("http://federation.example", Uuid::new_v4(), "Casal");
        let path = file.write(&dir).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "only its owner reads it");
        let read = VenueFile::read(&dir, file.event_id).unwrap().unwrap();
        assert_eq!(read, file);
        let signature = catan_kit::venue_signature::sign(&read.signing_key().unwrap(), b"bundle");
        catan_kit::venue_signature::verify(&file.public_key, b"bundle", &signature).unwrap();
        assert!(VenueFile::read(&dir, Uuid::new_v4()).unwrap().is_none());
        let (made, key) = venue_admin_key(&dir).unwrap();
        assert!(made);
        assert_eq!(venue_admin_key(&dir).unwrap(), (false, key));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
