//! The ledger file: a JSON array of tickets, each validated field by field, with the line each
//! row starts on so problems can point at it.
//!
//! Parsing has two layers. A file that is not JSON, or not an array, cannot be read at all
//! (exit 2 with line and column). A row that is JSON but has bad fields is still a row: it is
//! kept with the list of its issues, so `check` can report every bad field as an
//! `invalid-ticket` problem on the row's line while the other rows are checked normally.

use std::path::Path;

use jiff::civil::Date;
use lane_core::Error;
use lane_core::clock::parse_date;
use serde::Serialize;
use serde_json::{Map, Value};

/// Every field a row may have; anything else is refused (usually a typo of one of these).
/// The largest ledger freeze-ledger reads: 16 MiB, about 40,000 tickets (a ledger is meant
/// to stay short). A larger file is refused before it is read whole (docs/robustness.md).
pub const LEDGER_MAX_BYTES: u64 = 16 << 20;

pub(crate) const FIELDS: &[&str] = &[
    "test_id",
    "kind",
    "seed",
    "input_sha256",
    "input_path",
    "expires_on",
    "last_replay_job",
    "issue",
    "typed",
    "created_on",
    "owner",
    "reason",
];

/// The fields every flake ticket (the default kind) must have.
pub(crate) const REQUIRED: &[&str] = &[
    "test_id",
    "seed",
    "input_sha256",
    "expires_on",
    "last_replay_job",
];

/// The fields a known-failure ticket must have: a deterministic bug is kept visible by its
/// issue and its owner, not replayed.
pub(crate) const KNOWN_FAILURE_REQUIRED: &[&str] = &["test_id", "issue", "owner", "expires_on"];

/// The replay fields: a flake's, never a known failure's.
pub(crate) const REPLAY_FIELDS: &[&str] = &[
    "seed",
    "input_sha256",
    "input_path",
    "last_replay_job",
    "typed",
];

/// The replay fields a person may type instead of capturing them from a run (`typed` lists
/// those that were).
pub const TYPEABLE: &[&str] = &["input_sha256", "last_replay_job", "seed"];

/// A replay seed: any integer that fits `i64` or `u64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seed(i128);

impl Seed {
    pub fn new(value: i128) -> Option<Seed> {
        (value >= i128::from(i64::MIN) && value <= i128::from(u64::MAX)).then_some(Seed(value))
    }

    /// Parses a command-line seed (decimal, optional leading `-`).
    pub fn parse(text: &str) -> Result<Seed, String> {
        let digits = text.strip_prefix('-').unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("expected an integer seed, found '{text}'"));
        }
        text.parse::<i128>()
            .ok()
            .and_then(Seed::new)
            .ok_or_else(|| format!("seed {text} does not fit in 64 bits"))
    }

    fn from_json(value: &Value) -> Result<Seed, String> {
        match value {
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Ok(Seed(i128::from(i)))
                } else if let Some(u) = n.as_u64() {
                    Ok(Seed(i128::from(u)))
                } else {
                    Err(format!(
                        "seed must be an integer that fits in 64 bits, found {n}"
                    ))
                }
            }
            other => Err(format!(
                "seed must be an integer, found {}",
                describe(other)
            )),
        }
    }

    fn to_json(self) -> Value {
        if let Ok(i) = i64::try_from(self.0) {
            Value::from(i)
        } else {
            // Seed::new keeps the value within u64 when it is not an i64.
            Value::from(u64::try_from(self.0).unwrap_or(u64::MAX))
        }
    }
}

impl std::fmt::Display for Seed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A valid ticket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticket {
    pub test_id: String,
    pub kind: Kind,
    pub expires_on: Date,
    /// A link to the issue that tracks the failure (required for a known failure).
    pub issue: Option<String>,
    pub created_on: Option<Date>,
    pub owner: Option<String>,
    pub reason: Option<String>,
}

/// What a ticket keeps frozen: a flake, replayed from its capsule, or a deterministic known
/// failure (`xfail(strict=True)`), kept visible by its issue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Flake(Replay),
    KnownFailure,
}

/// A flake's capsule: the seed, the input digest (and the capsule's path) and the replay job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    pub seed: Seed,
    pub input_sha256: String,
    pub input_path: Option<String>,
    pub last_replay_job: String,
    /// The replay fields a person typed instead of capturing them from a run (sorted, a subset
    /// of [`TYPEABLE`]).
    pub typed: Vec<String>,
}

impl Kind {
    /// The `kind` value as written in the ledger.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Flake(_) => "flake",
            Kind::KnownFailure => "known-failure",
        }
    }
}

/// The canonical JSON form of a ticket: fields in a fixed order, absent options left out
/// (`kind` only for a known failure: a row without one is a flake).
#[derive(Serialize)]
pub(crate) struct TicketJson<'a> {
    test_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_sha256: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_path: Option<&'a str>,
    expires_on: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_replay_job: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    issue: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    typed: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    created_on: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    owner: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

impl Ticket {
    /// The flake's capsule (`None` for a known failure).
    pub fn replay(&self) -> Option<&Replay> {
        match &self.kind {
            Kind::Flake(r) => Some(r),
            Kind::KnownFailure => None,
        }
    }

    /// The ticket in canonical field order, ready to serialize.
    pub(crate) fn json(&self) -> TicketJson<'_> {
        let replay = self.replay();
        TicketJson {
            test_id: &self.test_id,
            kind: replay.is_none().then(|| self.kind.name()),
            seed: replay.map(|r| r.seed.to_json()),
            input_sha256: replay.map(|r| r.input_sha256.as_str()),
            input_path: replay.and_then(|r| r.input_path.as_deref()),
            expires_on: self.expires_on.to_string(),
            last_replay_job: replay.map(|r| r.last_replay_job.as_str()),
            issue: self.issue.as_deref(),
            typed: replay
                .filter(|r| !r.typed.is_empty())
                .map(|r| r.typed.as_slice()),
            created_on: self.created_on.map(|d| d.to_string()),
            owner: self.owner.as_deref(),
            reason: self.reason.as_deref(),
        }
    }

    /// The ticket as a JSON value (fields in canonical order when serialized directly).
    pub(crate) fn to_value(&self) -> Value {
        serde_json::to_value(self.json()).unwrap_or(Value::Null)
    }

    /// Pretty JSON in canonical field order, with a trailing newline.
    pub(crate) fn to_pretty(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(&self.json()).unwrap_or_default();
        out.push(b'\n');
        out
    }

    /// Validates a ticket built from command-line values, as a row read from a file would be.
    pub(crate) fn validate(&self) -> Result<(), Vec<FieldIssue>> {
        ticket_from_value(&self.to_value()).map(|_| ())
    }
}

/// One bad field of a row (`field` is empty when the row itself is not an object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldIssue {
    pub field: String,
    pub message: String,
}

impl FieldIssue {
    fn new(field: &str, message: impl Into<String>) -> Self {
        FieldIssue {
            field: field.to_string(),
            message: message.into(),
        }
    }
}

/// A row as read from the file: where it starts, its test id when one can be read, and
/// either the valid ticket or every issue found.
#[derive(Debug, Clone)]
pub struct Row {
    /// 1-based position in the array.
    pub index: usize,
    /// 1-based line the row starts on.
    pub line: u64,
    pub test_id: Option<String>,
    pub raw: Value,
    pub ticket: Result<Ticket, Vec<FieldIssue>>,
}

/// A parsed ledger file.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    pub rows: Vec<Row>,
    /// False when the file did not exist (no tickets).
    pub exists: bool,
}

impl Ledger {
    /// Reads a ledger file. A missing file is a ledger with no tickets; a path that exists but
    /// is not a regular file, unreadable bytes, or JSON that is not an array is an error.
    pub fn read(path: &Path, name: &str) -> Result<Ledger, Error> {
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Ledger::default()),
            _ => {
                let bytes = lane_core::io::read_file_capped(path, LEDGER_MAX_BYTES, "a ledger")
                    .map_err(|e| e.renamed(name))?;
                let mut ledger = Ledger::parse(&bytes, name)?;
                ledger.exists = true;
                Ok(ledger)
            }
        }
    }

    /// Parses ledger bytes. Empty (all-whitespace) input is an empty ledger.
    pub fn parse(bytes: &[u8], name: &str) -> Result<Ledger, Error> {
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return Ok(Ledger {
                rows: Vec::new(),
                exists: true,
            });
        }
        let value: Value = serde_json::from_slice(bytes).map_err(|e| Error::json(name, &e))?;
        let Value::Array(items) = value else {
            let (line, column) = first_token(bytes);
            return Err(Error::parse(
                name,
                line,
                column,
                "expected a JSON array of tickets ([] for none)",
            ));
        };
        let lines = element_lines(bytes);
        // serde_json keeps the last of two equal keys; a row that says two things is refused.
        let keys: Vec<RowKeys> = serde_json::from_slice(bytes).unwrap_or_default();
        let rows = items
            .into_iter()
            .enumerate()
            .map(|(i, raw)| {
                let test_id = raw
                    .get("test_id")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let mut ticket = ticket_from_value(&raw);
                let row_keys = keys.get(i);
                if let (Err(issues), Some(text)) =
                    (&mut ticket, row_keys.and_then(|k| k.seed_number.as_deref()))
                {
                    // A number serde_json could only read as a float (beyond 64 bits, or
                    // `1e3`) is shown as written, not as its rounded float.
                    let unread = |i: &&mut FieldIssue| {
                        i.field == "seed" && i.message.starts_with("seed must be")
                    };
                    for issue in issues.iter_mut().filter(unread) {
                        issue.message = format!(
                            "seed must be an integer that fits in 64 bits, found {}",
                            clip(text)
                        );
                    }
                }
                if let Some(RowKeys { repeated, .. }) = row_keys
                    && !repeated.is_empty()
                {
                    let mut issues = ticket.err().unwrap_or_default();
                    for key in repeated {
                        issues.push(FieldIssue::new(
                            key,
                            format!("field {key:?} appears more than once in the row"),
                        ));
                    }
                    ticket = Err(issues);
                }
                Row {
                    index: i + 1,
                    line: lines.get(i).copied().unwrap_or(0),
                    test_id,
                    raw,
                    ticket,
                }
            })
            .collect();
        Ok(Ledger { rows, exists: true })
    }

    /// The valid tickets, or the first problem as an error naming row line and field (for
    /// commands that need a fully valid ledger: edits and `list`).
    pub fn require_valid(&self, name: &str) -> Result<Vec<Ticket>, Error> {
        let mut tickets = Vec::with_capacity(self.rows.len());
        for row in &self.rows {
            match &row.ticket {
                Ok(t) => tickets.push(t.clone()),
                Err(issues) => {
                    let what: Vec<String> = issues.iter().map(|i| i.message.clone()).collect();
                    return Err(Error::parse(
                        name,
                        usize::try_from(row.line).unwrap_or(0),
                        0,
                        format!(
                            "row {} is not a valid ticket: {}; fix or remove it first",
                            row.index,
                            what.join("; ")
                        ),
                    ));
                }
            }
        }
        if let Some((id, line)) = first_duplicate(&self.rows) {
            return Err(Error::parse(
                name,
                usize::try_from(line).unwrap_or(0),
                0,
                format!("a second ticket for {id}; remove the duplicate first"),
            ));
        }
        Ok(tickets)
    }
}

/// The first row (line) whose test id an earlier row already has.
fn first_duplicate(rows: &[Row]) -> Option<(String, u64)> {
    let mut seen = std::collections::BTreeSet::new();
    rows.iter().find_map(|row| {
        let id = row.test_id.as_deref()?;
        (!seen.insert(id)).then(|| (id.to_string(), row.line))
    })
}

/// The canonical file bytes: rows sorted by test id, two-space pretty JSON, trailing newline.
pub(crate) fn to_bytes(tickets: &[Ticket]) -> Vec<u8> {
    let mut sorted: Vec<&Ticket> = tickets.iter().collect();
    sorted.sort_by(|a, b| a.test_id.cmp(&b.test_id));
    let rows: Vec<TicketJson<'_>> = sorted.iter().map(|t| t.json()).collect();
    let mut out = serde_json::to_vec_pretty(&rows).unwrap_or_else(|_| b"[]".to_vec());
    out.push(b'\n');
    out
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

/// A pytest node id without parametrization: `path/to/test_x.py::[Class::]name`.
pub fn check_test_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("test_id must not be empty".to_string());
    }
    if id.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(format!(
            "test_id {id:?} contains whitespace or control characters"
        ));
    }
    if !id.contains("::") || id.starts_with("::") || id.ends_with("::") {
        return Err(format!(
            "test_id {id:?} is not a pytest node id (expected FILE::NAME)"
        ));
    }
    if id.contains('[') || id.contains(']') {
        return Err(format!(
            "test_id {id:?} has parametrization brackets; use the test's id without them"
        ));
    }
    Ok(())
}

/// An `http://` or `https://` URL with a host.
pub fn check_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    let Some(rest) = rest else {
        return Err(format!(
            "last_replay_job must be an http(s) URL of the replay job, found {url:?}"
        ));
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() || url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(format!(
            "last_replay_job must be an http(s) URL with a host and no spaces, found {url:?}"
        ));
    }
    Ok(())
}

fn check_sha(sha: &str) -> Result<(), String> {
    if lane_core::hex::is_sha256(sha) {
        Ok(())
    } else {
        Err(format!(
            "input_sha256 must be 64 lowercase hex digits, found {sha:?} ({} characters)",
            sha.chars().count()
        ))
    }
}

/// A root-relative `/` path: not empty, not absolute, no `..`, no backslashes.
pub(crate) fn check_input_path(path: &str) -> Result<(), String> {
    let bad = path.is_empty()
        || path.starts_with('/')
        || path.contains('\\')
        || path.split('/').any(|part| part == ".." || part.is_empty())
        || path.chars().any(char::is_control);
    if bad {
        Err(format!(
            "input_path must be a root-relative '/' path without '..', found {path:?}"
        ))
    } else {
        Ok(())
    }
}

/// Validates one row; on failure returns every issue, in field order.
pub fn ticket_from_value(value: &Value) -> Result<Ticket, Vec<FieldIssue>> {
    let Value::Object(map) = value else {
        return Err(vec![FieldIssue::new(
            "",
            format!("a ticket must be a JSON object, found {}", describe(value)),
        )]);
    };
    let mut issues = Vec::new();
    for key in map.keys() {
        if !FIELDS.contains(&key.as_str()) {
            issues.push(FieldIssue::new(
                key,
                format!(
                    "unknown field {key:?} (expected one of {})",
                    FIELDS.join(", ")
                ),
            ));
        }
    }
    let known_failure = kind_field(map, &mut issues);
    let test_id = string_field(map, "test_id", &mut issues, check_test_id);
    let seed = map.get("seed").and_then(|v| match Seed::from_json(v) {
        Ok(s) => Some(s),
        Err(m) => {
            issues.push(FieldIssue::new("seed", m));
            None
        }
    });
    let input_sha256 = string_field(map, "input_sha256", &mut issues, check_sha);
    let input_path = string_field(map, "input_path", &mut issues, check_input_path);
    let expires_on = date_field(map, "expires_on", &mut issues);
    let last_replay_job = string_field(map, "last_replay_job", &mut issues, check_url);
    let issue = string_field(map, "issue", &mut issues, |s| {
        check_url(s).map_err(|_| format!("issue must be an http(s) URL of the issue, found {s:?}"))
    });
    let typed = typed_field(map, &mut issues);
    let created_on = date_field(map, "created_on", &mut issues);
    let owner = string_field(map, "owner", &mut issues, |s| non_blank("owner", s));
    let reason = string_field(map, "reason", &mut issues, |s| non_blank("reason", s));
    if let (Some(created), Some(expires)) = (created_on, expires_on)
        && created > expires
    {
        issues.push(FieldIssue::new(
            "created_on",
            format!("created_on {created} is after expires_on {expires}"),
        ));
    }
    if !issues.is_empty() {
        return Err(issues);
    }
    let kind = match (known_failure, seed, input_sha256, last_replay_job) {
        (true, ..) => Kind::KnownFailure,
        (false, Some(seed), Some(input_sha256), Some(last_replay_job)) => Kind::Flake(Replay {
            seed,
            input_sha256,
            input_path,
            last_replay_job,
            typed,
        }),
        // Every missing required field was reported above.
        _ => return Err(vec![FieldIssue::new("", "incomplete ticket")]),
    };
    match (test_id, expires_on) {
        (Some(test_id), Some(expires_on)) => Ok(Ticket {
            test_id,
            kind,
            expires_on,
            issue,
            created_on,
            owner,
            reason,
        }),
        _ => Err(vec![FieldIssue::new("", "incomplete ticket")]),
    }
}

/// `kind`, and the issues of the fields that kind requires or refuses: whether the row is a
/// known failure.
fn kind_field(map: &Map<String, Value>, issues: &mut Vec<FieldIssue>) -> bool {
    let mut required = REQUIRED;
    let known_failure = match map.get("kind") {
        None => false,
        Some(Value::String(k)) if k == "flake" => false,
        Some(Value::String(k)) if k == "known-failure" => {
            required = KNOWN_FAILURE_REQUIRED;
            true
        }
        Some(other) => {
            // Which fields it needs depends on the kind it meant: only the common ones.
            required = &["test_id", "expires_on"];
            issues.push(FieldIssue::new(
                "kind",
                format!(
                    "kind must be \"flake\" (the default) or \"known-failure\", found {}",
                    describe(other)
                ),
            ));
            false
        }
    };
    for field in required {
        if !map.contains_key(*field) {
            let why = if known_failure {
                " (a known-failure ticket names the issue that tracks the bug and its owner)"
            } else {
                ""
            };
            issues.push(FieldIssue::new(
                field,
                format!("missing required field {field:?}{why}"),
            ));
        }
    }
    if known_failure {
        for field in REPLAY_FIELDS.iter().filter(|f| map.contains_key(**f)) {
            issues.push(FieldIssue::new(
                field,
                format!(
                    "a known-failure ticket has no {field:?}: a deterministic bug is not replayed \
                     (remove it, or make the ticket a flake)"
                ),
            ));
        }
    }
    known_failure
}

/// `typed`: the replay fields a person typed, each one of [`TYPEABLE`] once, kept sorted.
fn typed_field(map: &Map<String, Value>, issues: &mut Vec<FieldIssue>) -> Vec<String> {
    let Some(value) = map.get("typed") else {
        return Vec::new();
    };
    let bad = || {
        FieldIssue::new(
            "typed",
            format!(
                "typed must be a sorted array of distinct replay field names ({}), found {}",
                TYPEABLE.join(", "),
                clip(&value.to_string())
            ),
        )
    };
    let Value::Array(items) = value else {
        issues.push(bad());
        return Vec::new();
    };
    let names: Vec<String> = items
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let sorted_distinct = names.windows(2).all(|w| w[0] < w[1]);
    if names.len() != items.len()
        || names.is_empty()
        || !sorted_distinct
        || names.iter().any(|n| !TYPEABLE.contains(&n.as_str()))
    {
        issues.push(bad());
        return Vec::new();
    }
    names
}

fn non_blank(field: &str, s: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        Err(format!("{field} must not be blank"))
    } else {
        Ok(())
    }
}

fn string_field(
    map: &Map<String, Value>,
    field: &str,
    issues: &mut Vec<FieldIssue>,
    check: impl Fn(&str) -> Result<(), String>,
) -> Option<String> {
    match map.get(field)? {
        Value::String(s) => match check(s) {
            Ok(()) => Some(s.clone()),
            Err(m) => {
                issues.push(FieldIssue::new(field, m));
                None
            }
        },
        other => {
            issues.push(FieldIssue::new(
                field,
                format!("{field} must be a string, found {}", describe(other)),
            ));
            None
        }
    }
}

fn date_field(map: &Map<String, Value>, field: &str, issues: &mut Vec<FieldIssue>) -> Option<Date> {
    match map.get(field)? {
        Value::String(s) => match parse_date(s) {
            Ok(d) => Some(d),
            Err(m) => {
                issues.push(FieldIssue::new(field, format!("{field}: {m}")));
                None
            }
        },
        other => {
            issues.push(FieldIssue::new(
                field,
                format!(
                    "{field} must be a date string YYYY-MM-DD, found {}",
                    describe(other)
                ),
            ));
            None
        }
    }
}

/// What the typed row cannot tell: the keys a top-level row object repeats, and the `seed`
/// as written when it is a number (all empty for anything that is not an object).
#[derive(Debug, Default)]
struct RowKeys {
    repeated: Vec<String>,
    seed_number: Option<String>,
}

impl<'de> serde::Deserialize<'de> for RowKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = RowKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RowKeys, A::Error> {
                let mut seen = std::collections::BTreeSet::new();
                let mut row = RowKeys::default();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "seed" {
                        let raw: Box<serde_json::value::RawValue> = map.next_value()?;
                        let text = raw.get();
                        row.seed_number = text
                            .starts_with(|c: char| c == '-' || c.is_ascii_digit())
                            .then(|| text.to_string());
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                    if !seen.insert(key.clone()) && !row.repeated.contains(&key) {
                        row.repeated.push(key);
                    }
                }
                Ok(row)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<RowKeys, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(RowKeys::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<RowKeys, E> {
                Ok(RowKeys::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<RowKeys, E> {
                Ok(RowKeys::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<RowKeys, E> {
                Ok(RowKeys::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<RowKeys, E> {
                Ok(RowKeys::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<RowKeys, E> {
                Ok(RowKeys::default())
            }
            fn visit_unit<E>(self) -> Result<RowKeys, E> {
                Ok(RowKeys::default())
            }
        }
        d.deserialize_any(Visit)
    }
}

/// At most 40 characters of `text`, marked when cut.
fn clip(text: &str) -> String {
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(40).collect::<String>())
    } else {
        text.to_string()
    }
}

/// Line and column (1-based) of the first non-whitespace byte.
fn first_token(bytes: &[u8]) -> (usize, usize) {
    let first = bytes
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(bytes.len());
    let at = lane_core::Position::of(bytes, first);
    (at.line, at.column)
}

/// The 1-based line on which each element of the top-level array starts. The input must
/// already be known to be a JSON array (serde_json parsed it); the scan only tracks strings
/// (so brackets and commas inside them are ignored) and nesting depth.
pub fn element_lines(bytes: &[u8]) -> Vec<u64> {
    let mut lines = Vec::new();
    let mut line: u64 = 1;
    let mut depth: usize = 0;
    let mut in_string = false;
    let mut escaped = false;
    // Inside the top-level array, waiting for the next element to start.
    let mut expecting = false;
    for &b in bytes {
        if b == b'\n' {
            line += 1;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        if b.is_ascii_whitespace() {
            continue;
        }
        if depth == 1 && expecting && b != b']' {
            lines.push(line);
            expecting = false;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth == 1 {
                    expecting = true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => expecting = true,
            _ => {}
        }
    }
    lines
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn good() -> Value {
        json!({
            "test_id": "tests/test_a.py::test_flaky",
            "seed": 42,
            "input_sha256": "a".repeat(64),
            "expires_on": "2026-03-01",
            "last_replay_job": "https://ci.example.org/jobs/17",
        })
    }

    fn with(field: &str, value: Value) -> Value {
        let mut v = good();
        v[field] = value;
        v
    }

    fn without(field: &str) -> Value {
        let mut v = good();
        v.as_object_mut().map(|m| m.remove(field));
        v
    }

    #[test]
    fn field_validation_table() {
        // (name, row, Some(field expected to be named) or None for valid)
        let cases: Vec<(&str, Value, Option<&str>)> = vec![
            ("good", good(), None),
            ("seed zero", with("seed", json!(0)), None),
            ("seed negative", with("seed", json!(-5)), None),
            ("seed i64 min", with("seed", json!(i64::MIN)), None),
            ("seed u64 max", with("seed", json!(u64::MAX)), None),
            ("seed string", with("seed", json!("42")), Some("seed")),
            ("seed float", with("seed", json!(4.5)), Some("seed")),
            (
                "seed integral float",
                with("seed", json!(42.0)),
                Some("seed"),
            ),
            ("seed null", with("seed", Value::Null), Some("seed")),
            ("seed missing", without("seed"), Some("seed")),
            (
                "sha 63",
                with("input_sha256", json!("a".repeat(63))),
                Some("input_sha256"),
            ),
            (
                "sha 65",
                with("input_sha256", json!("a".repeat(65))),
                Some("input_sha256"),
            ),
            (
                "sha upper",
                with("input_sha256", json!("A".repeat(64))),
                Some("input_sha256"),
            ),
            (
                "sha non-hex",
                with("input_sha256", json!("g".repeat(64))),
                Some("input_sha256"),
            ),
            (
                "sha number",
                with("input_sha256", json!(7)),
                Some("input_sha256"),
            ),
            (
                "date 02-30",
                with("expires_on", json!("2026-02-30")),
                Some("expires_on"),
            ),
            (
                "date 2027 leap",
                with("expires_on", json!("2027-02-29")),
                Some("expires_on"),
            ),
            (
                "date 2028 leap",
                with("expires_on", json!("2028-02-29")),
                None,
            ),
            (
                "date shape",
                with("expires_on", json!("2026-3-1")),
                Some("expires_on"),
            ),
            (
                "date time",
                with("expires_on", json!("2026-03-01T00:00:00")),
                Some("expires_on"),
            ),
            (
                "date number",
                with("expires_on", json!(20260301)),
                Some("expires_on"),
            ),
            (
                "created bad",
                with("created_on", json!("2026-13-01")),
                Some("created_on"),
            ),
            (
                "created after expiry",
                with("created_on", json!("2026-03-02")),
                Some("created_on"),
            ),
            ("created ok", with("created_on", json!("2026-01-01")), None),
            (
                "url ftp",
                with("last_replay_job", json!("ftp://x/1")),
                Some("last_replay_job"),
            ),
            (
                "url bare",
                with("last_replay_job", json!("job 17")),
                Some("last_replay_job"),
            ),
            (
                "url no host",
                with("last_replay_job", json!("https:///x")),
                Some("last_replay_job"),
            ),
            (
                "url space",
                with("last_replay_job", json!("https://ci/x y")),
                Some("last_replay_job"),
            ),
            (
                "url http",
                with("last_replay_job", json!("http://ci.local/1")),
                None,
            ),
            (
                "url missing",
                without("last_replay_job"),
                Some("last_replay_job"),
            ),
            (
                "unknown field",
                with("expires", json!("2026-03-01")),
                Some("expires"),
            ),
            ("test id empty", with("test_id", json!("")), Some("test_id")),
            (
                "test id brackets",
                with("test_id", json!("t.py::test[1]")),
                Some("test_id"),
            ),
            (
                "test id no ::",
                with("test_id", json!("test_flaky")),
                Some("test_id"),
            ),
            ("test id missing", without("test_id"), Some("test_id")),
            (
                "input path ok",
                with("input_path", json!("capsules/seed.bin")),
                None,
            ),
            (
                "input path abs",
                with("input_path", json!("/etc/passwd")),
                Some("input_path"),
            ),
            (
                "input path up",
                with("input_path", json!("a/../../b")),
                Some("input_path"),
            ),
            ("owner blank", with("owner", json!("  ")), Some("owner")),
            ("owner ok", with("owner", json!("alice")), None),
            ("reason number", with("reason", json!(3)), Some("reason")),
        ];
        for (name, row, expected) in cases {
            match (ticket_from_value(&row), expected) {
                (Ok(_), None) => {}
                (Err(issues), Some(field)) => assert!(
                    issues
                        .iter()
                        .any(|i| i.field == field && i.message.contains(field)),
                    "{name}: {issues:?}"
                ),
                (got, want) => panic!("{name}: got {got:?}, wanted issue in {want:?}"),
            }
        }
    }

    #[test]
    fn seed_beyond_64_bits_from_text_is_invalid() {
        let text = format!(
            r#"[{{"test_id":"t.py::t","seed":18446744073709551616,"input_sha256":"{}",
            "expires_on":"2026-03-01","last_replay_job":"https://ci/1"}}]"#,
            "0".repeat(64)
        );
        let ledger = Ledger::parse(text.as_bytes(), "l.json").unwrap();
        let issues = ledger.rows[0].ticket.as_ref().unwrap_err();
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].field, "seed");
        assert_eq!(ledger.rows[0].test_id.as_deref(), Some("t.py::t"));
        // The number is shown as written, not as the float serde_json rounded it to.
        for (written, shown) in [
            ("18446744073709551616", "18446744073709551616"),
            ("-9223372036854775809", "-9223372036854775809"),
            ("1e3", "1e3"),
            ("42.0", "42.0"),
            (
                "123456789012345678901234567890123456789012345",
                "1234567890123456789012345678901234567890...",
            ),
        ] {
            let text = format!(
                r#"[{{"test_id":"t.py::t","seed":{written},"input_sha256":"{}",
                "expires_on":"2026-03-01","last_replay_job":"https://ci/1"}}]"#,
                "0".repeat(64)
            );
            let ledger = Ledger::parse(text.as_bytes(), "l.json").unwrap();
            let issues = ledger.rows[0].ticket.as_ref().unwrap_err();
            assert_eq!(
                issues[0].message,
                format!("seed must be an integer that fits in 64 bits, found {shown}"),
                "{written}"
            );
        }
    }

    #[test]
    fn every_bad_field_is_reported() {
        let row = json!({"test_id": "t.py::t", "seed": "1", "input_sha256": "x",
                         "expires_on": "2026-02-30", "last_replay_job": "nope", "ownr": "a"});
        let fields: Vec<String> = ticket_from_value(&row)
            .unwrap_err()
            .into_iter()
            .map(|i| i.field)
            .collect();
        assert_eq!(
            fields,
            [
                "ownr",
                "seed",
                "input_sha256",
                "expires_on",
                "last_replay_job"
            ]
        );
    }

    #[test]
    fn repeated_keys_are_refused() {
        let text = format!(
            r#"[1, {{"test_id":"t.py::t","seed":1,"input_sha256":"{}","expires_on":"2026-03-01",
            "expires_on":"2099-01-01","last_replay_job":"https://ci/1"}}, {{"a": {{"b": 1, "b": 2}}}}]"#,
            "0".repeat(64)
        );
        let ledger = Ledger::parse(text.as_bytes(), "l.json").unwrap();
        let issues = ledger.rows[1].ticket.as_ref().unwrap_err();
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].field, "expires_on");
        assert!(issues[0].message.contains("more than once"));
        // Only top-level row keys count; a nested repeat is just an unknown field here.
        let nested = ledger.rows[2].ticket.as_ref().unwrap_err();
        assert!(nested.iter().all(|i| !i.message.contains("more than once")));
    }

    #[test]
    fn rows_that_are_not_objects() {
        for row in [json!(1), json!("t.py::t"), json!([]), Value::Null] {
            let issues = ticket_from_value(&row).unwrap_err();
            assert!(issues[0].message.contains("must be a JSON object"), "{row}");
        }
    }

    #[test]
    fn element_lines_table() {
        let cases: &[(&str, &str, &[u64])] = &[
            ("empty", "[]", &[]),
            ("one line", r#"[{"a":1},{"b":2}]"#, &[1, 1]),
            (
                "pretty",
                "[\n  {\n    \"a\": 1\n  },\n  {\n    \"b\": \"]},[\"\n  }\n]\n",
                &[2, 5],
            ),
            ("comma first", "[\n{}\n,\n\n7\n,\"x\\\"\n\"]", &[2, 5, 6]),
            ("nested arrays", "[[1,\n2],\n[3]]", &[1, 3]),
            ("leading blank", "\n\n [ \n\"s\" ]", &[4]),
        ];
        for (name, text, expected) in cases {
            assert_eq!(element_lines(text.as_bytes()), *expected, "{name}");
        }
    }

    #[test]
    fn parse_errors_are_located() {
        let cases: &[(&str, &str, &str)] = &[
            ("truncated", "[\n  {\"seed\": 1,\n", "l.json:3:"),
            (
                "object",
                "\n  {\"test_id\": 1}",
                "l.json:2:3: expected a JSON array",
            ),
            ("trailing comma", "[{}\n,]", "l.json:2:"),
        ];
        for (name, text, expected) in cases {
            let err = Ledger::parse(text.as_bytes(), "l.json")
                .unwrap_err()
                .to_string();
            assert!(err.starts_with(expected), "{name}: {err}");
        }
        assert!(Ledger::parse(b" \n", "l.json").unwrap().rows.is_empty());
    }

    #[test]
    fn canonical_bytes_sort_rows_and_round_trip() {
        let a = ticket_from_value(&with("test_id", json!("tests/b.py::t"))).unwrap();
        let b = ticket_from_value(&with("seed", json!(u64::MAX))).unwrap();
        let bytes = to_bytes(&[a.clone(), b.clone()]);
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.ends_with("}\n]\n"));
        assert!(text.find("tests/b.py").unwrap() < text.find("test_a.py").unwrap());
        assert!(text.contains("\"seed\": 18446744073709551615"));
        let again = Ledger::parse(&bytes, "l.json").unwrap();
        let tickets = again.require_valid("l.json").unwrap();
        assert_eq!(tickets, vec![a, b]);
        assert_eq!(to_bytes(&tickets), bytes);
        assert_eq!(to_bytes(&[]), b"[]\n");
    }

    #[test]
    fn seed_parse_table() {
        let cases: &[(&str, Option<&str>)] = &[
            ("0", Some("0")),
            ("-9223372036854775808", Some("-9223372036854775808")),
            ("18446744073709551615", Some("18446744073709551615")),
            ("18446744073709551616", None),
            ("-9223372036854775809", None),
            ("1.5", None),
            ("", None),
            ("-", None),
            ("+3", None),
            ("0x10", None),
        ];
        for (text, expected) in cases {
            let got = Seed::parse(text).ok().map(|s| s.to_string());
            assert_eq!(got.as_deref(), *expected, "{text}");
        }
    }
}
