//! The clock: dates come from `--today` or `LANES_TODAY`. Under CI a tool that needs a date and
//! has neither refuses to guess; outside CI it takes the local date, and what it writes says the
//! clock was local.

use jiff::civil::Date;

use crate::error::Error;

pub(crate) const TODAY_ENV: &str = "LANES_TODAY";

/// What a verdict says when its date came from the machine's clock, not a pinned one.
pub const LOCAL_NOTE: &str = "local clock: not a CI verdict";

/// The variables that say a process runs under CI, besides `CI` itself: each names the CI that
/// sets it (GitHub Actions, GitLab CI, Buildkite, Jenkins, CircleCI, Travis CI, Azure Pipelines,
/// TeamCity, Bitbucket Pipelines, AWS CodeBuild, Drone, AppVeyor). Tests remove them all so
/// that the developer's environment does not leak in.
pub const CI_VARIABLES: &[&str] = &[
    "CI",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "BUILDKITE",
    "JENKINS_URL",
    "CIRCLECI",
    "TRAVIS",
    "TF_BUILD",
    "TEAMCITY_VERSION",
    "BITBUCKET_BUILD_NUMBER",
    "CODEBUILD_BUILD_ID",
    "DRONE",
    "APPVEYOR",
];

/// The variable that says this process runs under CI, or None outside CI. `CI` counts unless it
/// is empty, `0` or `false` (any case); the others count when set and not empty.
pub fn under_ci(env: &dyn Fn(&str) -> Option<String>) -> Option<&'static str> {
    CI_VARIABLES.iter().copied().find(|name| match env(name) {
        None => false,
        Some(v) if *name == "CI" => {
            let v = v.trim();
            !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false"))
        }
        Some(v) => !v.trim().is_empty(),
    })
}

/// Today's date and whether it came from the machine's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Today {
    pub date: Date,
    /// True when neither `--today` nor `LANES_TODAY` was given outside CI: what is written with
    /// this date says [`LOCAL_NOTE`].
    pub local: bool,
}

impl Today {
    /// A pinned date (tests and callers that already hold one).
    pub fn pinned(date: Date) -> Today {
        Today { date, local: false }
    }

    /// Says on stderr, as `tool`, that the date came from this machine (nothing when pinned).
    pub fn say_if_local(&self, tool: &str) {
        if self.local {
            eprintln!("{tool}: {}", local_line(&self.date.to_string()));
        }
    }
}

/// What a tool writes where a local date was used: [`LOCAL_NOTE`], the date, how to pin it.
pub fn local_line(date: &str) -> String {
    format!(
        "{LOCAL_NOTE}: today is {date} from this machine (pass --today or set {TODAY_ENV} to \
         pin it)"
    )
}

/// Today from `--today` (when given) or `LANES_TODAY`; with neither, an error under CI and the
/// local date outside it.
pub fn today(flag: Option<&str>) -> Result<Today, Error> {
    today_in(flag, &|name| std::env::var(name).ok(), local_date)
}

/// The machine's date in its own time zone (UTC when it has none).
pub fn local_date() -> Date {
    jiff::ZonedDateTime::now().date()
}

fn today_in(
    flag: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    local: fn() -> Date,
) -> Result<Today, Error> {
    let (text, from) = match flag {
        Some(t) => (t.to_string(), "--today"),
        None => match env(TODAY_ENV) {
            Some(t) if !t.is_empty() => (t, TODAY_ENV),
            _ => {
                if let Some(var) = under_ci(env) {
                    return Err(Error::usage(format!(
                        "this command needs today's date, and under CI ({var} is set) the job's \
                         clock must be pinned: pass --today YYYY-MM-DD or set {TODAY_ENV} to the \
                         date the run started"
                    )));
                }
                return Ok(Today {
                    date: local(),
                    local: true,
                });
            }
        },
    };
    parse_date(&text)
        .map(Today::pinned)
        .map_err(|e| Error::usage(format!("{from}: {e}")))
}

/// Parses `YYYY-MM-DD` strictly (a real calendar date, four-digit year).
pub fn parse_date(text: &str) -> Result<Date, String> {
    let bytes = text.as_bytes();
    let shape_ok = bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
    if !shape_ok {
        return Err(format!("expected a date as YYYY-MM-DD, found '{text}'"));
    }
    text.parse::<Date>()
        .map_err(|_| format!("'{text}' is not a calendar date"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn strict_dates() {
        assert!(parse_date("2028-02-29").is_ok());
        for bad in [
            "2026-02-30",
            "2027-02-29",
            "2026-2-3",
            "26-02-03",
            "2026-02-03T00:00",
            "",
            "2026/02/03",
        ] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
    }

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_string())
        }
    }

    fn fixed() -> Date {
        jiff::civil::date(2031, 7, 4)
    }

    #[test]
    fn without_a_date_ci_refuses_and_a_local_run_takes_the_local_date() {
        let local = today_in(None, &env_of(&[]), fixed).unwrap();
        assert_eq!(
            local,
            Today {
                date: fixed(),
                local: true
            }
        );
        for ci in [
            &[("CI", "true")][..],
            &[("CI", "1")],
            &[("GITHUB_ACTIONS", "true")],
            &[("JENKINS_URL", "https://jenkins.example/")],
            &[("CI", "false"), ("GITLAB_CI", "true")],
        ] {
            let pairs: &'static [(&'static str, &'static str)] = ci;
            let err = today_in(None, &env_of(pairs), fixed).unwrap_err();
            assert!(err.to_string().contains("clock must be pinned"), "{err}");
            assert!(err.to_string().contains("LANES_TODAY"), "{err}");
        }
        for not_ci in [
            &[("CI", "false")][..],
            &[("CI", "0")],
            &[("CI", "")],
            &[("GITHUB_ACTIONS", "")],
        ] {
            let pairs: &'static [(&'static str, &'static str)] = not_ci;
            assert!(
                today_in(None, &env_of(pairs), fixed).unwrap().local,
                "{not_ci:?}"
            );
        }
        // A pinned date wins under CI and outside it, and is never local.
        let pinned = today_in(
            None,
            &env_of(&[("CI", "true"), ("LANES_TODAY", "2026-05-06")]),
            fixed,
        )
        .unwrap();
        assert_eq!(pinned, Today::pinned(jiff::civil::date(2026, 5, 6)));
        assert!(
            !today_in(Some("2026-05-06"), &env_of(&[]), fixed)
                .unwrap()
                .local
        );
    }

    #[test]
    fn flag_wins() {
        assert_eq!(
            today(Some("2026-01-02")).unwrap().date.to_string(),
            "2026-01-02"
        );
        assert!(
            today(Some("2026-13-01"))
                .unwrap_err()
                .to_string()
                .contains("--today")
        );
    }
}
