//! How a character moves: clip clocks (`control`), root motion and warp points, Just Cause 3's motion
//! corrections, locomotion phase, and the speed ranges that pick the core locomotion clips. Motion reads data and
//! stages; it never imports the character.

pub mod control;
pub mod motion_correction;
pub mod motion_matching;
pub mod phase;
pub mod root_motion;
pub mod speed_ranges;
pub mod trajectory;
