//! pytest's model, read without running anything: what pytest would configure (the
//! configuration files and their keys: [`config`], [`ini`]), discover (the test files,
//! conftests and doctest files under the arguments: [`discover`], [`fnmatch`],
//! [`collect_ignore`]) and collect (each test module's functions and classes with every mark
//! reaching them: [`collect`], [`marks`], [`names`], [`fixtures`], test-class bases from
//! installed packages: [`installed`], pytest-asyncio's marks: [`asyncio`], doctest items:
//! [`doctest`]).
//!
//! Its public face is the configuration a caller reads too (lane-gate: `config::load`,
//! `config::normalize`, `config::ini_args`, `fnmatch::fnmatch`); the rest serves the scan.

pub(crate) mod asyncio;
pub(crate) mod collect;
pub(crate) mod collect_ignore;
pub mod config;
pub(crate) mod discover;
pub(crate) mod doctest;
pub(crate) mod fixtures;
pub mod fnmatch;
pub(crate) mod ini;
pub(crate) mod installed;
pub(crate) mod marks;
pub(crate) mod names;
