//! `diagnostics.log` (issue 40): the host's warnings and errors, and what
//! its standard output could not take (lines dropped on a closed or full
//! pipe), kept in the home so a host whose console nobody reads still
//! leaves the record. Appended, mode 0600; the host writes whole lines.

use crate::private::{FILE_MODE, private_dirs};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The file's name in the home.
pub const DIAGNOSTICS_LOG: &str = "diagnostics.log";

/// Opens the home's diagnostics log for appending, making it (and the home)
/// if missing.
pub fn open(home: &Path) -> io::Result<File> {
    private_dirs(home)?;
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(FILE_MODE)
        .open(home.join(DIAGNOSTICS_LOG))
}
