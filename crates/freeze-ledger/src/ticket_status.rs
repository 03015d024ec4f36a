//! A ticket's status, and the status each of `check`'s per-row rules gives the ticket it is
//! about: a row's status is the worst its problems give it.

use lane_core::{Problem, Rule};
use serde::{Deserialize, Serialize};

/// A ticket's status: the worst thing found about it (the first variant is the worst).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TicketStatus {
    Invalid,
    Duplicate,
    Missing,
    Orphan,
    CapsuleMismatch,
    Expired,
    ExpiryTooFar,
    ExpiringSoon,
    Ok,
}

/// The status each rule reported about a ledger row gives that row's ticket.
const GIVEN_BY: &[(Rule, TicketStatus)] = &[
    (Rule::InvalidTicket, TicketStatus::Invalid),
    (Rule::DuplicateTicket, TicketStatus::Duplicate),
    (Rule::OrphanTicket, TicketStatus::Orphan),
    (Rule::CapsuleMismatch, TicketStatus::CapsuleMismatch),
    (Rule::ExpiredTicket, TicketStatus::Expired),
    (Rule::ExpiryTooFar, TicketStatus::ExpiryTooFar),
    (Rule::ExpiringSoon, TicketStatus::ExpiringSoon),
];

impl TicketStatus {
    /// The worst of `status` and what each of a row's `problems` gives its ticket.
    pub(crate) fn worst(status: TicketStatus, problems: &[Problem]) -> TicketStatus {
        problems
            .iter()
            .filter_map(|p| GIVEN_BY.iter().find(|(rule, _)| rule.id() == p.rule))
            .map(|(_, given)| *given)
            .fold(status, TicketStatus::min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_s_status_is_the_worst_its_problems_give() {
        let problems = [
            Problem::new(Rule::ExpiringSoon, "soon"),
            Problem::new(Rule::OrphanTicket, "orphan"),
        ];
        assert_eq!(
            TicketStatus::worst(TicketStatus::Ok, &problems),
            TicketStatus::Orphan
        );
        assert_eq!(
            TicketStatus::worst(TicketStatus::Invalid, &problems),
            TicketStatus::Invalid
        );
        assert_eq!(TicketStatus::worst(TicketStatus::Ok, &[]), TicketStatus::Ok);
    }

    /// Every rule `check` reports about a row gives its ticket a status.
    #[test]
    fn every_row_rule_gives_a_status() {
        for rule in Rule::ALL.iter().filter(|r| r.tool() == "freeze-ledger") {
            let row_rule = !matches!(
                rule,
                Rule::MissingTicket | Rule::TicketAdded | Rule::TicketRenewed | Rule::TicketChanged
            );
            assert_eq!(GIVEN_BY.iter().any(|(r, _)| r == rule), row_rule, "{rule}");
        }
    }
}
