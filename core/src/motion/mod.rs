//! How a character moves: clip clocks (`control`), root motion and warp points, Just Cause 3's motion
//! corrections, and locomotion phase. Motion reads data and stages; it never imports the character.

pub mod control;
pub mod motion_correction;
pub mod phase;
pub mod root_motion;
