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
    out.push_str("| expires_on | test | seed | input | last replay job | owner | reason |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for t in tickets {
        let input = match &t.input_path {
            Some(p) => format!("`{}`", cell(p)),
            None => format!("`{}…`", &t.input_sha256[..12.min(t.input_sha256.len())]),
        };
        out.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {} | {} |\n",
            t.expires_on,
            cell(&t.test_id),
            t.seed,
            input,
            cell(&t.last_replay_job),
            cell(t.owner.as_deref().unwrap_or("")),
            cell(t.reason.as_deref().unwrap_or("")),
        ));
    }
    out
}
