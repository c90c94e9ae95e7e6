//! `owner-token` (issue 29): the owner's sign-in token, made on the home's
//! first start and kept at mode 0600, the way Jupyter keeps its token. The
//! host prints it as a link, `flybot token` prints it again, and a client
//! sends it as `Authorization: Bearer`. It is the one credential the home
//! keeps in the clear, since the owner must be able to read it back.

use crate::atomic::atomic_write;
use std::io;
use std::path::Path;

/// The file's name in the home.
pub const OWNER_TOKEN_FILE: &str = "owner-token";

/// The shortest token this build trusts: a file cut short or edited by hand
/// to something guessable is refused, not used.
const MIN_LEN: usize = 20;

/// The home's owner token, if it has one; a file that holds no usable token
/// is an error, so a host fails closed instead of opening without one.
pub fn read(home: &Path) -> io::Result<Option<String>> {
    let text = match std::fs::read_to_string(home.join(OWNER_TOKEN_FILE)) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let token = text.trim();
    if token.len() < MIN_LEN || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(io::Error::other(format!(
            "{OWNER_TOKEN_FILE} in the home holds no usable token; delete it and start the host again to make a new one"
        )));
    }
    Ok(Some(token.to_owned()))
}

/// The home's owner token, made with `make` (and written at mode 0600) when
/// the home has none yet.
pub fn read_or_make(home: &Path, make: impl FnOnce() -> Option<String>) -> io::Result<String> {
    if let Some(token) = read(home)? {
        return Ok(token);
    }
    let token = make().ok_or_else(|| io::Error::other("the system gave no randomness"))?;
    atomic_write(
        &home.join(OWNER_TOKEN_FILE),
        format!("{token}\n").as_bytes(),
    )?;
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_home_makes_its_token_once_at_mode_0600_and_reads_it_back_29() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(read(home.path()).unwrap(), None);
        let made = read_or_make(home.path(), || Some("a".repeat(22))).unwrap();
        let again = read_or_make(home.path(), || Some("b".repeat(22))).unwrap();
        assert_eq!(made, again);
        let mode = std::fs::metadata(home.path().join(OWNER_TOKEN_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_token_cut_short_is_refused_not_used_29() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join(OWNER_TOKEN_FILE), "short\n").unwrap();
        assert!(read(home.path()).is_err());
        assert!(read_or_make(home.path(), || Some("c".repeat(22))).is_err());
    }
}
