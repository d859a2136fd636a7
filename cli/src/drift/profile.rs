//! `--profile FILE`: the traffic profile of what was read, the versions that carry most events, in the
//! generator's format (`energy_codegen::profile`, which reads it; docs/traffic-profile.md).

pub(crate) use energy_codegen::profile::DEFAULT_SHARE;
use energy_codegen::profile::Profile;
use energy_runtime::drift::Report;
use std::path::Path;

/// Writes the traffic profile of `report` to `path` (left alone when it would not change), and says on
/// standard error what it holds.
pub(crate) fn write(
    report: &Report,
    path: &Path,
    share: f64,
    versions: Option<u64>,
) -> Result<(), String> {
    let counts: Vec<(String, String, u64)> = report
        .kinds
        .iter()
        .map(|k| (k.event.clone(), k.version.clone(), k.events))
        .collect();
    let limit = versions.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let profile = Profile::choose(&counts, share, limit);
    let mut command = format!("energy events drift --profile {}", path.display());
    if share != DEFAULT_SHARE {
        command += &format!(" --profile-share {share}");
    }
    if let Some(n) = versions {
        command += &format!(" --profile-versions {n}");
    }
    let text = profile.render(&command);
    if std::fs::read(path).ok().as_deref() != Some(text.as_bytes()) {
        std::fs::write(path, &text)
            .map_err(|e| format!("cannot write the profile `{}`: {e}", path.display()))?;
    }
    eprintln!(
        "profile: {}, written to `{}`",
        profile.summary(),
        path.display()
    );
    Ok(())
}
