//! What every lanes tool shares: the evidence document and its sections, problems and the
//! rule catalogue, exit status, reading and writing documents, atomic file replacement, the
//! pinned clock, root-relative paths and the markdown / github renderers.

pub mod cli;
pub mod clock;
pub mod document;
pub mod error;
pub mod exit;
pub mod hex;
pub mod io;
pub mod paths;
pub mod position;
pub mod problem;
pub mod render;
pub mod rule;
pub mod scan;

pub use document::{DOCUMENT_VERSION, Document};
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
