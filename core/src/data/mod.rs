//! The data the stages read: a validated skeleton, a skin, Hermite curves, clips and their codec, and the baked
//! asset that holds them all. Data imports only `math`, `error`, `limits` and `arena`.

pub mod asset;
pub mod clip;
pub mod curve;
pub mod motion_database;
pub mod skeleton;
pub mod skin;
