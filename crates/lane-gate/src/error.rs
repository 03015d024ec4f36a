//! What stops the gate (exit 2): one error, naming what failed. Each variant's text is the one
//! line printed after `lane-gate: error: `; `lib.rs` maps every variant to the exit status.

use std::path::PathBuf;

/// A failure that stops the gate before it can decide.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GateError {
    /// Arguments or environment the user must fix (`--ack`, `LANES_SEED`, `--timings`, pytest
    /// arguments that would override the gate's own).
    #[error("{0}")]
    Usage(String),
    /// One of the tools the gate calls in-process failed; `tool` names it (and what it was
    /// doing) first.
    #[error("{tool}: {source}")]
    Tool {
        tool: String,
        #[source]
        source: lane_core::Error,
    },
    /// lane-core's own failure, as it says it (the clock, a document, an atomic write).
    #[error(transparent)]
    Core(#[from] lane_core::Error),
    /// Creating, reading, copying or removing a file or folder failed; `what` names the
    /// operation and the path.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// Text the gate writes could not be encoded.
    #[error("cannot write {what}: {source}")]
    Encode {
        what: String,
        #[source]
        source: serde_json::Error,
    },
    /// git could not be started.
    #[error("cannot run git: {0}")]
    GitStart(#[source] std::io::Error),
    /// git failed, or said something the gate cannot read (the command and git's words).
    #[error("{0}")]
    Git(String),
    /// The interpreter (`--python`) cannot run the lanes, or could not answer the gate.
    #[error("{0}")]
    Interpreter(String),
    /// pytest ran but could not run a single lane (a usage error, an internal error, a
    /// conftest that does not import): the lanes hold no evidence, and the log says why.
    #[error("{0}")]
    PytestCouldNotRun(String),
    /// pytest's interpreter could not be started.
    #[error("cannot run {}: {source}", python.display())]
    PytestStart {
        python: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The checkout holds what the gate cannot judge: uncommitted changes, a changed
    /// submodule, a name it cannot carry, a product module imported from elsewhere.
    #[error("{0}")]
    Checkout(String),
    /// An out folder given to `--collect` (or `--evidence` of `--list`) is not a shard's.
    #[error("{0}")]
    Shard(String),
}

impl GateError {
    /// An I/O failure of `what` (the operation and its path).
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> GateError {
        GateError::Io {
            what: what.into(),
            source,
        }
    }
}

/// A library error with the tool that raised it named first.
pub(crate) fn from_tool(tool: &str) -> impl Fn(lane_core::Error) -> GateError + '_ {
    move |source| GateError::Tool {
        tool: tool.to_string(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_reads_as_the_gate_has_always_printed_it() {
        let io = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let cases = [
            (
                GateError::Usage("--ack needs a text".into()),
                "--ack needs a text",
            ),
            (
                from_tool("lane-lock")(lane_core::Error::usage("bad lock")),
                "lane-lock: bad lock",
            ),
            (
                GateError::io("cannot create out/lanes", io()),
                "cannot create out/lanes: entity not found",
            ),
            (
                GateError::GitStart(io()),
                "cannot run git: entity not found",
            ),
            (
                GateError::PytestStart {
                    python: "py".into(),
                    source: io(),
                },
                "cannot run py: entity not found",
            ),
            (
                GateError::Core(lane_core::Error::usage("no date")),
                "no date",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }
}
