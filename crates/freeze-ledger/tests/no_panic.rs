//! Parsers get arbitrary input and must not panic: ledger bytes, rows, seeds, node ids, URLs.
#![allow(clippy::unwrap_used)]

use freeze_ledger::check::{CheckOptions, check};
use freeze_ledger::diff::diff;
use freeze_ledger::ledger::{
    Ledger, Seed, check_test_id, check_url, element_lines, ticket_from_value,
};
use proptest::prelude::*;

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<u64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(serde_json::Value::from),
        "[a-z_:./0-9-]{0,40}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 32, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("test_id".to_string()),
                    Just("seed".to_string()),
                    Just("input_sha256".to_string()),
                    Just("input_path".to_string()),
                    Just("expires_on".to_string()),
                    Just("last_replay_job".to_string()),
                    Just("created_on".to_string()),
                    "[a-z_]{1,12}",
                ],
                inner,
                0..9
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn ledger_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = element_lines(&bytes);
        if let Ok(ledger) = Ledger::parse(&bytes, "l.json") {
            let _ = ledger.require_valid("l.json");
            let opts = CheckOptions {
                root: std::path::Path::new("."),
                ledger_name: "l.json",
                today: lane_core::clock::Today::pinned(jiff::civil::date(2026, 3, 1)),
                max_days: 90,
            };
            let _ = check(&ledger, None, &opts);
            let _ = diff(&ledger, "a", &ledger, "b");
        }
    }

    #[test]
    fn json_rows_never_panic(rows in prop::collection::vec(json_value(), 0..6)) {
        let text = serde_json::to_string_pretty(&rows).unwrap();
        let ledger = Ledger::parse(text.as_bytes(), "l.json").unwrap();
        prop_assert_eq!(ledger.rows.len(), rows.len());
        prop_assert_eq!(element_lines(text.as_bytes()).len(), rows.len());
        for row in &rows {
            let _ = ticket_from_value(row);
        }
        let opts = CheckOptions {
            root: std::path::Path::new("/nonexistent-root"),
            ledger_name: "l.json",
            today: lane_core::clock::Today::pinned(jiff::civil::date(2026, 3, 1)),
            max_days: 90,
        };
        let section = check(&ledger, None, &opts);
        prop_assert_eq!(section.tickets.len(), rows.len());
    }

    #[test]
    fn text_checks_never_panic(s in "\\PC{0,60}") {
        let _ = Seed::parse(&s);
        let _ = check_test_id(&s);
        let _ = check_url(&s);
    }
}
