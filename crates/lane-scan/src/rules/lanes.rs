//! What each lane allows and requires: the one table the detectors ask instead of matching on
//! the lane themselves.

use lane_core::scan::Lane;

/// What a test in one lane must carry besides its mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Nothing,
    /// An `owner:` docstring line, or for a hypothesis property its domain and a `shrinking:`
    /// note.
    OwnerOrPropertyNotes,
    /// `fixture=` (locked golden bytes) or `locked_on=` (a lock date) on the witness mark.
    FixtureOrLockDate,
}

/// One lane's rights.
#[derive(Debug, Clone, Copy)]
pub struct Rights {
    pub lane: Lane,
    /// An expected failure (`xfail`, `expectedFailure`) is refused.
    pub no_xfail: bool,
    /// A retry on failure (`flaky`, `--reruns`) is refused.
    pub no_retry: bool,
    pub needs: Needs,
    /// Its assertions must be able to fail (no-assertion, tautology).
    pub real_assertions: bool,
}

/// The lanes' rights; a voting lane refuses expected failures and retries.
pub const RIGHTS: [Rights; 3] = [
    Rights {
        lane: Lane::Merge,
        no_xfail: true,
        no_retry: true,
        needs: Needs::OwnerOrPropertyNotes,
        real_assertions: true,
    },
    Rights {
        lane: Lane::Witness,
        no_xfail: true,
        no_retry: true,
        needs: Needs::FixtureOrLockDate,
        real_assertions: false,
    },
    Rights {
        lane: Lane::Freeze,
        no_xfail: false,
        no_retry: false,
        needs: Needs::Nothing,
        real_assertions: false,
    },
];

/// The rights of `lane`.
pub fn rights(lane: Lane) -> &'static Rights {
    match RIGHTS.iter().find(|r| r.lane == lane) {
        Some(rights) => rights,
        // Every lane has a row (the test below).
        None => &RIGHTS[0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lane_has_one_row_and_voting_lanes_refuse_xfail_and_retry() {
        for lane in Lane::ALL {
            assert_eq!(
                RIGHTS.iter().filter(|r| r.lane == lane).count(),
                1,
                "{lane}"
            );
            let r = rights(lane);
            assert_eq!(r.lane, lane);
            assert_eq!(r.no_xfail, lane.votes(), "{lane}");
            assert_eq!(r.no_retry, lane.votes(), "{lane}");
        }
    }
}
