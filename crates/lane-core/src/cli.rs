//! Flags every tool shares, and the one place a tool's result becomes an exit status.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::document::Document;
use crate::error::Error;
use crate::exit::Status;
use crate::problem::Problem;
use crate::render;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// The whole evidence document (the default when stdout is not a terminal).
    #[default]
    Json,
    /// A short summary: the counts, each problem on one line, the next steps (the default
    /// when stdout is a terminal).
    Human,
    /// A PR comment / step summary.
    Markdown,
    /// GitHub Actions workflow annotations.
    Github,
    /// A SARIF 2.1.0 log (code scanning).
    Sarif,
}

/// The flags every binary takes, flattened into its arguments: the document's
/// ([`DocumentArgs`]) and the tool's ([`ToolArgs`]). freeze-ledger, whose `add --input` names a
/// capsule, takes [`ToolArgs`] at the top and [`DocumentArgs`] in the commands that read and
/// write the document.
#[derive(Debug, Clone, clap::Args)]
pub struct CommonArgs {
    #[command(flatten)]
    pub document: DocumentArgs,
    #[command(flatten)]
    pub tool: ToolArgs,
}

/// `--rootdir`, `--explain RULE` and the hidden `--generate`.
#[derive(Debug, Clone, clap::Args)]
pub struct ToolArgs {
    /// The project's root: test ids, locked paths, capsules and replay artifacts are relative
    /// to it (default: the current folder; lane-scan finds it from the pytest config, as pytest
    /// does).
    #[arg(long, value_name = "DIR", global = true)]
    pub rootdir: Option<PathBuf>,
    /// Print what a rule means and how to fix it, then exit.
    #[arg(long, value_name = "RULE")]
    pub explain: Option<String>,
    /// Write shell completions or a man page to stdout.
    #[arg(long, value_enum, hide = true)]
    pub generate: Option<Generate>,
}

impl ToolArgs {
    /// `--explain` or `--generate`, when given: the whole run, before anything is read.
    /// `command` is the binary's clap command (for `--generate`).
    pub fn meta(&self, command: impl FnOnce() -> clap::Command) -> Option<Result<Status, Error>> {
        if let Some(rule) = &self.explain {
            return Some(explain(rule));
        }
        self.generate.map(|what| generate(command(), what))
    }

    /// `--rootdir`, checked to be a folder, or the current folder.
    pub fn rootdir(&self) -> Result<PathBuf, Error> {
        rootdir(self.rootdir.as_deref())
    }
}

/// `--input`, `--output`, `--format`, `--verbose`: the document's flags.
#[derive(Debug, Clone, clap::Args)]
pub struct DocumentArgs {
    /// Read the evidence document from FILE instead of stdin ('-' is stdin).
    #[arg(long, value_name = "FILE", global = true)]
    pub input: Option<PathBuf>,
    /// Also write the evidence document to FILE (replaced atomically).
    #[arg(long, value_name = "FILE", global = true)]
    pub output: Option<PathBuf>,
    /// What to print on stdout [default: human on a terminal, else json].
    #[arg(long, value_enum, global = true)]
    pub format: Option<Format>,
    /// Print a human summary on stderr even when stderr is not a terminal.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
}

/// `given`, else `human` when stdout is a terminal, else `piped`.
pub fn format_for_stdout(given: Option<Format>, piped: Format) -> Format {
    given.unwrap_or_else(|| {
        if std::io::stdout().is_terminal() {
            Format::Human
        } else {
            piped
        }
    })
}

impl DocumentArgs {
    /// The format stdout gets: `--format`, else human on a terminal, else JSON.
    pub fn format(&self) -> Format {
        format_for_stdout(self.format, Format::Json)
    }

    pub fn read(&self) -> Result<Document, Error> {
        crate::io::read_document(self.input.as_deref())
    }

    /// Writes the document to `--output` and, by `--format`, the document, markdown or
    /// annotations to stdout; prints the summary on stderr when asked. `section` is the tool's
    /// own section (for the summary and the markdown heading); `problems` are the ones to
    /// annotate and summarize.
    pub fn emit(
        &self,
        tool: &str,
        doc: &Document,
        section: &str,
        markdown: Option<String>,
    ) -> Result<(), Error> {
        self.emit_shown(tool, doc, section, markdown, None)
    }

    /// [`DocumentArgs::emit`], annotating and summarizing `shown` instead of the section's
    /// problems when given (lane-tally shows the reasons of its decision and its warnings).
    pub fn emit_shown(
        &self,
        tool: &str,
        doc: &Document,
        section: &str,
        markdown: Option<String>,
        shown: Option<&[Problem]>,
    ) -> Result<(), Error> {
        let written = self.write_output(|| doc.to_bytes())?;
        // The section was just written by the tool, so its problems are only read back when
        // something shows them (a large scan section is not parsed twice for nothing).
        let problems = match shown {
            Some(shown) => shown.to_vec(),
            None if self.format() != Format::Json || self.wants_summary() => {
                doc.problems_of(section, "<document>")?
            }
            None => Vec::new(),
        };
        self.show(tool, section, &problems, markdown, |out| match &written {
            Some(bytes) => out.write_all(bytes),
            None => doc.write_to(out),
        })
    }

    /// [`DocumentArgs::emit`] for a tool's own large section, given as a value rather than
    /// stored in `doc`: `head` with its list `field` empty, and the list's items as `runs`
    /// (see `Document::write_with_split_section`). The section goes straight to stdout and
    /// never exists as text. `problems` are the section's own.
    #[allow(clippy::too_many_arguments)]
    pub fn emit_split_section<H: serde::Serialize, I: crate::document::SplitItem>(
        &self,
        tool: &str,
        doc: &Document,
        name: &str,
        head: &H,
        field: &str,
        runs: &[Vec<I>],
        problems: &[Problem],
    ) -> Result<(), Error> {
        let written = self.write_output(|| {
            let mut bytes = Vec::new();
            doc.write_with_split_section(&mut bytes, name, head, field, runs)
                .unwrap_or_else(|e| panic!("writing to memory failed: {e}"));
            bytes
        })?;
        self.show(tool, name, problems, None, |out| match &written {
            Some(bytes) => out.write_all(bytes),
            None => doc.write_with_split_section(out, name, head, field, runs),
        })
    }

    /// With `--output`: the document `render`s, replacing the file, and kept so that stdout
    /// shows the same bytes without rendering them again.
    fn write_output(&self, render: impl FnOnce() -> Vec<u8>) -> Result<Option<Vec<u8>>, Error> {
        let Some(path) = &self.output else {
            return Ok(None);
        };
        let bytes = render();
        crate::io::atomic_write(path, &bytes)?;
        Ok(Some(bytes))
    }

    /// Stdout by `--format`, then the summary on stderr.
    fn show(
        &self,
        tool: &str,
        section: &str,
        problems: &[Problem],
        markdown: Option<String>,
        json: impl FnOnce(&mut crate::io::BufferedStdout) -> std::io::Result<()>,
    ) -> Result<(), Error> {
        let format = self.format();
        match format {
            Format::Json => crate::io::write_stdout_with(json)?,
            Format::Human => {
                let text = render::human(
                    &render::counts(tool, problems),
                    problems,
                    "The whole evidence document: --format json (what a pipe gets); a report: \
                     --format markdown",
                );
                crate::io::write_stdout(text.as_bytes())?;
                // The terminal has the summary already.
                return Ok(());
            }
            Format::Markdown => {
                let text = match markdown {
                    Some(t) => t,
                    None => render::markdown::section(tool, section, problems),
                };
                // A step summary's size at most; the rest is in the JSON.
                let text = render::markdown::fit(
                    &text,
                    render::markdown::SUMMARY_MAX_BYTES,
                    "the JSON evidence document (--format json, or --output FILE)",
                );
                crate::io::write_stdout(text.as_bytes())?
            }
            Format::Github => {
                crate::io::write_stdout(render::github::annotations(problems).as_bytes())?
            }
            Format::Sarif => {
                crate::io::write_stdout(render::sarif::log(tool, problems).as_bytes())?
            }
        }
        self.summarize(tool, problems);
        Ok(())
    }

    fn wants_summary(&self) -> bool {
        self.verbose || std::io::stderr().is_terminal()
    }

    /// The human summary on stderr: only for a terminal or `--verbose`.
    pub fn summarize(&self, tool: &str, problems: &[Problem]) {
        if self.wants_summary() {
            eprint!("{}", render::summary(tool, problems));
        }
    }
}

/// Runs a tool's body and maps its result to an exit status once: errors print one line
/// `TOOL: error: MESSAGE` on stderr and exit 2.
pub fn run(tool: &str, body: impl FnOnce() -> Result<Status, Error>) -> ExitCode {
    crate::signals::install();
    match body() {
        Ok(status) => status.into(),
        Err(err) => {
            eprintln!("{tool}: error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}

/// `--explain RULE`: prints the rule's entry.
pub fn explain(rule: &str) -> Result<Status, Error> {
    let text = crate::rule::explain(rule)?;
    crate::io::write_stdout(text.as_bytes())?;
    Ok(Status::Clean)
}

/// The root folder: `--rootdir` or the current folder.
pub fn rootdir(flag: Option<&Path>) -> Result<PathBuf, Error> {
    let root = match flag {
        Some(p) => p.to_path_buf(),
        None => PathBuf::from("."),
    };
    if !root.is_dir() {
        return Err(Error::usage(format!(
            "rootdir {} is not a folder",
            root.display()
        )));
    }
    Ok(root)
}

/// What `--generate` writes: shell completions or a man page, from the clap definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Generate {
    Bash,
    Zsh,
    Fish,
    Man,
}

/// Writes completions or a man page for `cmd` to stdout (the hidden `--generate` flag every
/// binary has; `make docs` collects them).
pub fn generate(mut cmd: clap::Command, what: Generate) -> Result<Status, Error> {
    let name = cmd.get_name().to_string();
    let mut out = Vec::new();
    match what {
        Generate::Bash => {
            clap_complete::generate(clap_complete::Shell::Bash, &mut cmd, &name, &mut out)
        }
        Generate::Zsh => {
            clap_complete::generate(clap_complete::Shell::Zsh, &mut cmd, &name, &mut out)
        }
        Generate::Fish => {
            clap_complete::generate(clap_complete::Shell::Fish, &mut cmd, &name, &mut out)
        }
        Generate::Man => clap_mangen::Man::new(cmd)
            .render(&mut out)
            .map_err(|e| Error::io("<man page>", e))?,
    }
    crate::io::write_stdout(&out)?;
    Ok(Status::Clean)
}

/// Parses the command line like `T::parse()`, but a usage error is one line,
/// `TOOL: error: ... (see --help)`, and exit 2, as every other failure; `--help` and
/// `--version` print and exit 0 as usual.
pub fn parse<T: clap::Parser>(tool: &str) -> T {
    match T::try_parse() {
        Ok(args) => args,
        Err(err) => {
            use clap::error::ErrorKind;
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                err.exit();
            }
            let rendered = err.render().to_string();
            let first = rendered
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid arguments");
            let message = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("{tool}: error: {message} (see --help)");
            std::process::exit(i32::from(Status::Failure.code()));
        }
    }
}
