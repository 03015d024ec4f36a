//! Exit status, shared by every tool: 0 clean / approve, 1 findings / reject, 2 failure.

use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// The tool's own section has no errors (lane-tally: approve).
    Clean,
    /// The tool's own section has errors (lane-tally: reject).
    Findings,
    /// The tool could not do its job.
    Failure,
}

impl Status {
    pub fn code(self) -> u8 {
        match self {
            Status::Clean => 0,
            Status::Findings => 1,
            Status::Failure => 2,
        }
    }

    /// Clean when no problem is an error, Findings otherwise.
    pub fn from_problems<'a>(problems: impl IntoIterator<Item = &'a crate::Problem>) -> Self {
        if problems.into_iter().any(|p| p.is_error()) {
            Status::Findings
        } else {
            Status::Clean
        }
    }
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> ExitCode {
        ExitCode::from(s.code())
    }
}
