//! `freeze-ledger list`: the tickets sorted by expiry, as JSON rows or a markdown table.

use lane_core::render::markdown::cell;

use crate::ledger::Ticket;

/// Tickets sorted by expiry, then test id.
pub(crate) fn sorted(mut tickets: Vec<Ticket>) -> Vec<Ticket> {
    tickets.sort_by(|a, b| (a.expires_on, &a.test_id).cmp(&(b.expires_on, &b.test_id)));
    tickets
}

/// The rows as a pretty JSON array (each row in canonical field order), trailing newline.
pub(crate) fn json(tickets: &[Ticket]) -> Vec<u8> {
    let rows: Vec<_> = tickets.iter().map(Ticket::json).collect();
    let mut out = serde_json::to_vec_pretty(&rows).unwrap_or_else(|_| b"[]".to_vec());
    out.push(b'\n');
    out
}

/// A markdown table for a step summary.
pub(crate) fn markdown(ledger_name: &str, tickets: &[Ticket]) -> String {
    let mut out = format!("### freeze-ledger tickets (`{}`)\n\n", cell(ledger_name));
    if tickets.is_empty() {
        out.push_str("No tickets.\n");
        return out;
    }
    out.push_str(&format!(
        "{} ticket{}, soonest expiry first.\n\n",
        tickets.len(),
        lane_core::render::plural(tickets.len())
    ));
    out.push_str(
        "| expires_on | test | kind | seed | input | last replay job or issue | owner | reason |\n",
    );
    out.push_str("|---|---|---|---|---|---|---|---|\n");
    for t in tickets {
        let (seed, input, job) = match t.replay() {
            Some(r) => (
                r.seed.to_string(),
                match &r.input_path {
                    Some(p) => format!("`{}`", cell(p)),
                    None => format!("`{}…`", &r.input_sha256[..12.min(r.input_sha256.len())]),
                },
                r.last_replay_job.clone(),
            ),
            None => (
                String::new(),
                String::new(),
                t.issue.clone().unwrap_or_default(),
            ),
        };
        out.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {} | {} | {} |\n",
            t.expires_on,
            cell(&t.test_id),
            t.kind.name(),
            seed,
            input,
            cell(&job),
            cell(t.owner.as_deref().unwrap_or("")),
            cell(t.reason.as_deref().unwrap_or("")),
        ));
    }
    out
}
