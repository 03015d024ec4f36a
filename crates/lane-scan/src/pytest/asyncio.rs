//! pytest-asyncio's modes. In `auto` mode the plugin marks every `async def`
//! test function `asyncio` as it collects it (and runs async fixtures on the event loop); in
//! `strict` mode (its default) only tests marked `asyncio` are its own. The mode is
//! `--asyncio-mode=MODE` in addopts, else the `asyncio_mode` ini value, else strict. It
//! matters only when pytest-asyncio is loaded: installed in the target interpreter's
//! site-packages (pytest loads it through its entry point unless `-p no:asyncio`), or named
//! by `-p` or `required_plugins`. Node ids do not change.

use lane_core::Error;

use crate::pytest::config::{self, Config};
use crate::pytest::installed::Installed;

/// Whether pytest-asyncio is loaded in auto mode. A mode other than `auto` or `strict` is the
/// usage error pytest-asyncio gives (exit 2), naming where it is written.
pub fn auto_mode(config: &Config, installed: &Installed) -> Result<bool, Error> {
    let (mode, line) = match mode_in_addopts(&config.addopts) {
        Some(mode) => (mode, config.addopts_line),
        None => match &config.asyncio_mode {
            Some((mode, line)) => (mode.clone(), Some(*line)),
            None => return Ok(false),
        },
    };
    if mode == "strict" || !loaded(config, installed)? {
        return Ok(false);
    }
    if mode != "auto" {
        let file = config
            .file
            .as_ref()
            .map(|f| f.display().to_string())
            .unwrap_or_else(|| "addopts".to_string());
        return Err(Error::parse(
            file,
            line.unwrap_or(0) as usize,
            0,
            format!("asyncio_mode is {mode:?}: pytest-asyncio accepts auto or strict"),
        ));
    }
    Ok(true)
}

/// The last `--asyncio-mode=MODE` / `--asyncio-mode MODE` of addopts.
fn mode_in_addopts(addopts: &[String]) -> Option<String> {
    let mut found = None;
    let mut it = addopts.iter();
    while let Some(opt) = it.next() {
        if opt == "--asyncio-mode" {
            found = it.next().cloned().or(found);
        } else if let Some(v) = opt.strip_prefix("--asyncio-mode=") {
            found = Some(v.to_string());
        }
    }
    found
}

/// pytest-asyncio is loaded: `-p no:asyncio` turns its entry point off; `-p pytest_asyncio`
/// (or its `.plugin`) or `required_plugins` naming it loads or demands it; else it is loaded
/// when installed.
fn loaded(config: &Config, installed: &Installed) -> Result<bool, Error> {
    let mut disabled = false;
    let mut it = config.addopts.iter();
    while let Some(opt) = it.next() {
        let name = if opt == "-p" {
            it.next().map(String::as_str)
        } else {
            opt.strip_prefix("-p")
        };
        match name {
            Some("no:asyncio" | "no:pytest_asyncio" | "no:pytest_asyncio.plugin") => {
                disabled = true
            }
            Some("pytest_asyncio" | "pytest_asyncio.plugin") => return Ok(true),
            _ => {}
        }
    }
    let required = config::ini_args(config, "required_plugins")?;
    if required.iter().any(|r| {
        let name: String = r
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
            .collect();
        name.eq_ignore_ascii_case("pytest-asyncio") || name.eq_ignore_ascii_case("pytest_asyncio")
    }) {
        return Ok(true);
    }
    Ok(!disabled && installed.has_package("pytest_asyncio"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_last_addopts_mode_wins() {
        let args = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(mode_in_addopts(&args("-q")), None);
        assert_eq!(
            mode_in_addopts(&args("--asyncio-mode=auto -q")).as_deref(),
            Some("auto")
        );
        assert_eq!(
            mode_in_addopts(&args("--asyncio-mode auto --asyncio-mode=strict")).as_deref(),
            Some("strict")
        );
    }
}
