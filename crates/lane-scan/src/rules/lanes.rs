//! What each lane allows and requires: the one table of lane rights in lane-core
//! ([`lane_core::rights`]), which the detectors ask instead of matching on the lane themselves.

pub use lane_core::rights::{LaneRights as Rights, Needs, RIGHTS, of as rights};
