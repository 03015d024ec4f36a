//! The run manifest: what binds a JUnit report to the evidence document it answers.
//!
//! lane-gate gives every pytest run `-o junit_suite_name=MANIFEST`; pytest writes the suite
//! name as the `name` of its `<testsuite>` in every `junit_family`, so every report carries
//! `lanes-run v1 lane=merge shard=2/7 evidence=<sha256>`. lane-tally reads it back and compares
//! the digest with [`evidence_digest`] of the document it votes on (`stale-report`), and the
//! shards of each lane with each other (`missing-shard`, `conflicting-shard`).
//!
//! The digest covers what the runs answer and no more: every top-level field of the document
//! except the sections written after the runs (`gate`, `tally`), and within each section every
//! field except `problems` (an acknowledgment turns problems into warnings after the runs; the
//! problems are derived from the other fields anyway). The `run` section lane-gate writes
//! before the runs (the checkout's content, the date, the seed, the pytest arguments) makes two
//! runs of the same tests on other code, another day or with another seed differ.

use std::collections::BTreeMap;

use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::scan::Lane;
use crate::{Document, hex};

/// The first word of a suite name that is a run manifest.
pub(crate) const PREFIX: &str = "lanes-run";
/// The manifest format's version (the second word).
pub const VERSION: &str = "v1";
/// The section lane-gate writes before the runs: the document of a gated run requires a
/// manifest in every report.
pub const RUN_SECTION: &str = "run";
/// Sections written after the runs: not part of the digest.
pub(crate) const AFTER_RUNS: &[&str] = &["gate", "tally"];
/// The most shards a lane may be split into.
pub const MAX_SHARDS: u32 = 10_000;

/// One report's manifest.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Manifest {
    pub lane: Lane,
    /// 1-based shard index.
    pub shard: u32,
    /// Number of shards.
    pub of: u32,
    /// SHA-256 (hex) of the evidence document the run answers ([`evidence_digest`]).
    pub evidence: String,
}

impl Manifest {
    /// The suite name pytest writes: `lanes-run v1 lane=merge shard=2/7 evidence=<hex>`.
    pub fn suite_name(&self) -> String {
        format!(
            "{PREFIX} {VERSION} lane={} shard={}/{} evidence={}",
            self.lane, self.shard, self.of, self.evidence
        )
    }

    /// Reads a suite name: `None` when it is no run manifest at all (does not start with
    /// `PREFIX`), an error saying what is wrong when it starts like one but is malformed.
    pub fn parse(name: &str) -> Option<Result<Manifest, String>> {
        let mut words = name.split(' ');
        if words.next() != Some(PREFIX) {
            return None;
        }
        Some(Self::parse_rest(words.collect()))
    }

    fn parse_rest(words: Vec<&str>) -> Result<Manifest, String> {
        let expected = format!(
            "expected '{PREFIX} {VERSION} lane=LANE shard=K/N evidence=SHA256' (a run manifest \
             lane-gate writes)"
        );
        let [version, lane, shard, evidence] = words[..] else {
            return Err(expected);
        };
        if version != VERSION {
            return Err(format!(
                "run manifest version '{version}' is not {VERSION}: {expected}"
            ));
        }
        let lane = lane
            .strip_prefix("lane=")
            .and_then(Lane::from_name)
            .ok_or_else(|| format!("'{lane}': {expected}"))?;
        let (shard, of) = shard
            .strip_prefix("shard=")
            .and_then(parse_shard)
            .ok_or_else(|| format!("'{shard}': {expected}"))?;
        let evidence = evidence
            .strip_prefix("evidence=")
            .filter(|h| hex::is_sha256(h))
            .ok_or_else(|| format!("'{evidence}': {expected}"))?;
        Ok(Manifest {
            lane,
            shard,
            of,
            evidence: evidence.to_string(),
        })
    }
}

/// `K/N` with 1 <= K <= N <= [`MAX_SHARDS`], digits only.
pub fn parse_shard(text: &str) -> Option<(u32, u32)> {
    let (k, n) = text.split_once('/')?;
    let num = |s: &str| -> Option<u32> {
        if s.is_empty() || s.len() > 6 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let (k, n) = (num(k)?, num(n)?);
    (1 <= k && k <= n && n <= MAX_SHARDS).then_some((k, n))
}

/// The SHA-256 (hex) of what the runs of `doc` answer: every top-level field except
/// `AFTER_RUNS`, and in each section every field except `problems`, as their JSON text,
/// length-framed. The same document gives the same digest on every machine.
pub fn evidence_digest(doc: &Document) -> Result<String, Error> {
    let mut h = Sha256::new();
    let mut frame = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    for (name, raw) in doc.raw_fields() {
        if AFTER_RUNS.contains(&name) {
            continue;
        }
        frame(name.as_bytes());
        if raw.starts_with('{') {
            let fields: BTreeMap<String, Box<RawValue>> = serde_json::from_str(raw)
                .map_err(|e| Error::parse("<evidence document>", 0, 0, format!("{name}: {e}")))?;
            frame(b"{");
            for (key, value) in &fields {
                if key == "problems" {
                    continue;
                }
                frame(key.as_bytes());
                frame(&compact(value.get()));
            }
            frame(b"}");
        } else {
            frame(&compact(raw));
        }
    }
    Ok(hex::encode(&h.finalize()))
}

/// JSON text without the whitespace between tokens: a section written indented and the same
/// section read back or written compactly digest alike. Runs of bytes are copied whole: only a
/// quote, a backslash inside a string, or whitespace outside one stops a run.
fn compact(json: &str) -> Vec<u8> {
    let bytes = json.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        // Outside a string: copy up to the next quote or whitespace.
        let run = bytes[at..]
            .iter()
            .position(|&b| matches!(b, b'"' | b' ' | b'\n' | b'\r' | b'\t'))
            .map_or(bytes.len(), |n| at + n);
        out.extend_from_slice(&bytes[at..run]);
        at = run;
        if at == bytes.len() {
            break;
        }
        if bytes[at] != b'"' {
            at += 1;
            continue;
        }
        // A string: copy through its closing quote, stepping over escapes.
        let start = at;
        at += 1;
        while at < bytes.len() {
            match memchr::memchr2(b'"', b'\\', &bytes[at..]) {
                Some(n) if bytes[at + n] == b'\\' => at += n + 2,
                Some(n) => {
                    at += n + 1;
                    break;
                }
                None => {
                    at = bytes.len();
                    break;
                }
            }
        }
        let end = at.min(bytes.len());
        out.extend_from_slice(&bytes[start..end]);
        at = end;
    }
    out
}

/// Whether `a` and `b` give the same [`evidence_digest`] because every field it reads is the
/// same text in both (a cheap comparison; `false` says only that the digest must be computed).
pub fn same_digest_input(a: &Document, b: &Document) -> bool {
    fn read(d: &Document) -> impl Iterator<Item = (&str, &str)> {
        d.raw_fields()
            .filter(|(name, _)| !AFTER_RUNS.contains(name))
    }
    read(a).eq(read(b))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::Problem;
    use crate::rule::Rule;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_manifest_round_trips_through_its_suite_name() {
        let m = Manifest {
            lane: Lane::Witness,
            shard: 3,
            of: 7,
            evidence: HEX.into(),
        };
        let name = m.suite_name();
        assert_eq!(
            name,
            format!("lanes-run v1 lane=witness shard=3/7 evidence={HEX}")
        );
        assert_eq!(Manifest::parse(&name), Some(Ok(m)));
    }

    #[test]
    fn other_suite_names_are_no_manifest_and_broken_ones_say_why() {
        for other in ["pytest", "", "lanes-runs v1", "my lanes-run"] {
            assert_eq!(Manifest::parse(other), None, "{other}");
        }
        for broken in [
            "lanes-run".to_string(),
            format!("lanes-run v2 lane=merge shard=1/1 evidence={HEX}"),
            format!("lanes-run v1 lane=other shard=1/1 evidence={HEX}"),
            format!("lanes-run v1 lane=merge shard=0/1 evidence={HEX}"),
            format!("lanes-run v1 lane=merge shard=3/2 evidence={HEX}"),
            format!("lanes-run v1 lane=merge shard=1/+2 evidence={HEX}"),
            "lanes-run v1 lane=merge shard=1/1 evidence=abc".to_string(),
            format!("lanes-run v1 lane=merge shard=1/1 evidence={HEX} extra"),
        ] {
            let err = Manifest::parse(&broken).unwrap().unwrap_err();
            assert!(err.contains("expected 'lanes-run v1"), "{broken}: {err}");
        }
    }

    #[test]
    fn shards_are_k_of_n() {
        assert_eq!(parse_shard("1/1"), Some((1, 1)));
        assert_eq!(parse_shard("7/7"), Some((7, 7)));
        for bad in [
            "0/3", "4/3", "1/0", "a/b", "1", "1/2/3", " 1/2", "1/10001", "-1/2",
        ] {
            assert_eq!(parse_shard(bad), None, "{bad}");
        }
    }

    fn doc(json: &str) -> Document {
        Document::parse(json.as_bytes(), "t").unwrap()
    }

    #[test]
    fn the_digest_ignores_problems_and_the_sections_written_after_the_runs() {
        let a = doc(
            r#"{"version":1,"scan":{"tests":[1,2],"problems":[]},"run":{"today":"2026-12-05","problems":[]}}"#,
        );
        let digest = evidence_digest(&a).unwrap();
        assert!(hex::is_sha256(&digest));
        let mut b = a.clone();
        b.set_section("gate", &serde_json::json!({"problems": [], "x": 1}));
        b.set_section(
            "tally",
            &serde_json::json!({"problems": [], "decision": "reject"}),
        );
        let problem = Problem::new(Rule::TestSurfaceChanged, "changed");
        let mut scan = b.section("scan").unwrap();
        scan["problems"] = serde_json::json!([problem]);
        b.set_section("scan", &scan);
        assert_eq!(evidence_digest(&b).unwrap(), digest);
        // written and read back: the same digest
        let again = Document::parse(&b.to_bytes(), "t").unwrap();
        assert_eq!(evidence_digest(&again).unwrap(), digest);
    }

    #[test]
    fn compact_keeps_strings_whole() {
        let text = "{ \"a b\" : [ 1 ,\n 2 ], \"c\": \"x \\\" y\" }";
        assert_eq!(
            compact(text),
            b"{\"a b\":[1,2],\"c\":\"x \\\" y\"}".to_vec()
        );
    }

    /// The byte-at-a-time reading of "whitespace outside strings goes" that `compact`'s runs
    /// must agree with.
    fn compact_by_bytes(json: &str) -> Vec<u8> {
        let (mut out, mut in_string, mut escaped) = (Vec::new(), false, false);
        for &b in json.as_bytes() {
            if in_string {
                out.push(b);
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
            } else if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                in_string = b == b'"';
                out.push(b);
            }
        }
        out
    }

    #[test]
    fn compact_agrees_with_a_byte_by_byte_reading_on_escapes_and_whitespace() {
        for text in [
            "",
            " ",
            "\"\"",
            "\"\\\\\" , \"a\"",
            "[\"\\\" \\\\ \", 1 ,\t2]",
            "{\"k\" :\r\n \"v \\n w\"}",
            "\"unterminated \\",
            "\"ends on a backslash\\\\\"   ",
            "\"é ü\" : \"✓ \"",
        ] {
            assert_eq!(compact(text), compact_by_bytes(text), "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn compact_agrees_with_a_byte_by_byte_reading(text in "[ \\t\\n\"\\\\ab{}:,é]{0,40}") {
            proptest::prop_assert_eq!(compact(&text), compact_by_bytes(&text));
        }
    }

    #[test]
    fn the_same_fields_give_the_same_digest_without_computing_it() {
        let a = doc(r#"{"version":1,"scan":{"tests":[1],"problems":[]},"gate":{"x":1}}"#);
        let b =
            doc(r#"{"version":1,"scan":{"tests":[1],"problems":[]},"gate":{"x":2},"tally":{}}"#);
        let c = doc(r#"{"version":1,"scan":{"tests":[2],"problems":[]}}"#);
        assert!(same_digest_input(&a, &b));
        assert_eq!(evidence_digest(&a).unwrap(), evidence_digest(&b).unwrap());
        assert!(!same_digest_input(&a, &c));
        assert_ne!(evidence_digest(&a).unwrap(), evidence_digest(&c).unwrap());
    }

    #[test]
    fn the_digest_moves_with_the_tests_and_the_run() {
        let base = r#"{"version":1,"scan":{"tests":[1,2],"problems":[]},"run":{"today":"2026-12-05","problems":[]}}"#;
        let digest = evidence_digest(&doc(base)).unwrap();
        for other in [
            base.replace("[1,2]", "[1,3]"),
            base.replace("2026-12-05", "2026-12-06"),
            base.replace(
                r#""run":{"today":"2026-12-05","problems":[]}"#,
                r#""run":{}"#,
            ),
            base.replace(r#","run":{"today":"2026-12-05","problems":[]}"#, ""),
            base.replace(r#""tests""#, r#""test""#),
        ] {
            assert_ne!(evidence_digest(&doc(&other)).unwrap(), digest, "{other}");
        }
    }
}
