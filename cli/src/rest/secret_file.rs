//! Credentials from a file (`--api-key-file`, `--token-file`): off the command line, which other
//! users of the machine can see, and out of the environment; refused, as ssh refuses a private key,
//! when the file is open to other users.

use std::fs::File;
use std::io::Read as _;
use std::path::Path;

/// The largest credentials file read: a key or a token is a line, not a document.
const MAX_BYTES: u64 = 64 * 1024;

/// The secret in the file at `path`: its first line, without surrounding whitespace. An error
/// message never holds any of the file's content.
pub fn read(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let file =
        File::open(path).map_err(|e| format!("cannot read the credentials file `{shown}`: {e}"))?;
    // The checks are made on the file opened, so that it cannot be swapped between check and read.
    let metadata = file
        .metadata()
        .map_err(|e| format!("cannot read the credentials file `{shown}`: {e}"))?;
    if !metadata.is_file() {
        return Err(format!(
            "the credentials file `{shown}` is not a regular file"
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(format!(
                "permissions {mode:04o} for the credentials file `{shown}` are too open: other users \
                 may read or change it; it must be readable by its owner only (chmod 600 {shown})"
            ));
        }
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the credentials file `{shown}`: {e}"))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(format!(
            "the credentials file `{shown}` is larger than 64 KiB: it should hold one line"
        ));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("the credentials file `{shown}` is not UTF-8 text"))?;
    let secret = text.lines().next().unwrap_or_default().trim();
    if secret.is_empty() {
        return Err(format!(
            "the credentials file `{shown}` is empty (its first line holds no key or token)"
        ));
    }
    Ok(secret.to_owned())
}
