//! What every lanes tool shares: the evidence document and its sections, problems and the
//! rule catalogue, exit status, reading and writing documents, atomic file replacement, the
//! pinned clock, root-relative paths and the markdown / github renderers.

pub mod cli;
pub mod clock;
pub mod detector;
pub mod document;
mod error;
pub mod exit;
pub mod hex;
pub mod io;
pub mod manifest;
pub mod paths;
pub mod position;
pub mod problem;
pub mod render;
pub mod rights;
pub mod rule;
pub mod scan;
mod signals;

pub use document::Document;
pub use error::Error;
pub use exit::Status;
pub use position::Position;
pub use problem::{Problem, Severity};
pub use rule::Rule;

/// What every binary's `--version` prints: the crate version and the git commit it was built
/// from (`unknown` outside a git checkout unless `LANES_GIT_COMMIT` was set at build time).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("LANES_GIT_COMMIT"),
    ")"
);

#[cfg(test)]
mod tests {
    /// `0.1.0 (commit 0123456789ab)`: the crate's version, then the checkout's HEAD as 12 hex
    /// digits (`unknown` outside git, unless `LANES_GIT_COMMIT` was set for the build).
    #[test]
    fn the_version_names_the_commit_it_was_built_from() {
        let rest = super::VERSION
            .strip_prefix(concat!(env!("CARGO_PKG_VERSION"), " (commit "))
            .and_then(|r| r.strip_suffix(')'));
        let Some(commit) = rest else {
            panic!("unexpected version {}", super::VERSION)
        };
        if let Ok(given) = std::env::var("LANES_GIT_COMMIT")
            && !given.trim().is_empty()
        {
            assert_eq!(commit, given.trim());
            return;
        }
        let head = std::process::Command::new("git")
            .args([
                "-C",
                env!("CARGO_MANIFEST_DIR"),
                "rev-parse",
                "--short=12",
                "HEAD",
            ])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        assert_eq!(commit, head.as_deref().unwrap_or("unknown"));
    }
}
