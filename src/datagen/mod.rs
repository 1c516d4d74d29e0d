//! Self-play training data (`annex datagen`): games played by the engine
//! from varied openings, every position labelled with the result of good
//! play from it. The file format is in [`format`].

pub mod format;
