//! The pinned clock: dates come from `--today` or `LANES_TODAY`, never the machine.

use jiff::civil::Date;

use crate::error::Error;

pub(crate) const TODAY_ENV: &str = "LANES_TODAY";

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

/// Today from `--today` (when given) or `LANES_TODAY`; neither is an error that says the
/// job's clock must be pinned.
pub fn today(flag: Option<&str>) -> Result<Date, Error> {
    let (text, from) = match flag {
        Some(t) => (t.to_string(), "--today"),
        None => match std::env::var(TODAY_ENV) {
            Ok(t) if !t.is_empty() => (t, TODAY_ENV),
            _ => {
                return Err(Error::usage(format!(
                    "this command needs today's date and the job's clock must be pinned: \
                     pass --today YYYY-MM-DD or set {TODAY_ENV} (the machine's clock is never used)"
                )));
            }
        },
    };
    parse_date(&text).map_err(|e| Error::usage(format!("{from}: {e}")))
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

    #[test]
    fn flag_wins() {
        assert_eq!(today(Some("2026-01-02")).unwrap().to_string(), "2026-01-02");
        assert!(
            today(Some("2026-13-01"))
                .unwrap_err()
                .to_string()
                .contains("--today")
        );
    }
}
