//! The hidden deal and a game in progress.

use super::{Layout, MoveEffect, Objective, SoloError, SoloMove, SoloState, TILES, Tile, full_set};
use crate::bitboard::Squares;
use crate::rng::{self, Rng};
use crate::rules::Start;
use crate::square::Square;

/// The hidden truth: the tile dealt to each square.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Deal {
    at: [Option<Tile>; 64],
}

impl Deal {
    /// The 24 tiles shuffled onto `layout` by a generator seeded with `seed`.
    pub fn from_seed(layout: &Layout, seed: u64) -> Deal {
        let mut kinds: Vec<Tile> = Vec::with_capacity(TILES);
        let set = full_set();
        for t in Tile::all() {
            kinds.extend(std::iter::repeat_n(t, set[t.index()].into()));
        }
        Rng::new(rng::mix(seed ^ 0x5eed_d1a1)).shuffle(&mut kinds);
        Deal::from_pairs(Squares(layout.bits()).zip(kinds))
    }

    /// A deal from (square, tile) pairs.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (Square, Tile)>) -> Deal {
        let mut at = [None; 64];
        for (sq, t) in pairs {
            at[sq.index()] = Some(t);
        }
        Deal { at }
    }

    /// A deal consistent with what `state` shows, chosen uniformly: the
    /// face-up tiles where they are, the hidden multiset shuffled onto the
    /// face-down squares.
    pub fn sample(state: &SoloState, rng: &mut Rng) -> Deal {
        let mut kinds: Vec<Tile> = Vec::with_capacity(TILES);
        for t in Tile::all() {
            kinds.extend(std::iter::repeat_n(t, state.hidden[t.index()].into()));
        }
        rng.shuffle(&mut kinds);
        let mut d = Deal::from_pairs(Squares(state.face_down()).zip(kinds));
        for sq in Squares(state.up[0] | state.up[1]) {
            d.at[sq.index()] = state.up_kind[sq.index()];
        }
        d
    }

    /// The tile dealt to `sq`.
    pub fn at(&self, sq: Square) -> Option<Tile> {
        self.at[sq.index()]
    }
}

/// A game in progress: the player's view plus the hidden deal.
#[derive(Clone, Debug)]
pub struct SoloGame {
    state: SoloState,
    deal: Deal,
    history: Vec<(SoloMove, MoveEffect)>,
    stopped: bool,
}

impl SoloGame {
    /// A new game on `layout`, tiles dealt from `seed`.
    pub fn deal(layout: &Layout, seed: u64) -> SoloGame {
        SoloGame::from_deal(SoloState::new(layout), Deal::from_seed(layout, seed))
    }

    /// A new game with the centre discs of `start`.
    ///
    /// # Errors
    /// The `free` start (see [`SoloState::with_start`]).
    pub fn deal_with(layout: &Layout, start: Start, seed: u64) -> Result<SoloGame, SoloError> {
        let state = SoloState::with_start(layout, start)?;
        Ok(SoloGame::from_deal(state, Deal::from_seed(layout, seed)))
    }

    /// A game from a state and a deal that agrees with it (`deal` must name
    /// a tile for every face-down square, from the hidden multiset).
    pub fn from_deal(state: SoloState, deal: Deal) -> SoloGame {
        SoloGame {
            state,
            deal,
            history: Vec::new(),
            stopped: false,
        }
    }

    /// What the player sees.
    pub fn state(&self) -> &SoloState {
        &self.state
    }

    /// The hidden deal.
    pub fn deal_ref(&self) -> &Deal {
        &self.deal
    }

    /// Moves played, with their effects.
    pub fn history(&self) -> &[(SoloMove, MoveEffect)] {
        &self.history
    }

    /// Plays `m`; on error nothing changes.
    ///
    /// # Errors
    /// Illegal move, game over (or stopped), or a deal that disagrees.
    pub fn play(&mut self, m: SoloMove) -> Result<MoveEffect, SoloError> {
        if self.is_over() {
            return Err(SoloError::GameOver);
        }
        let to_reveal = self.state.reveals(m);
        if let Some(sq) = Squares(to_reveal).find(|&sq| self.deal.at(sq).is_none()) {
            return Err(SoloError::Inconsistent(format!(
                "the deal has no tile on {sq}"
            )));
        }
        let deal = &self.deal;
        let fx = self.state.play(m, |sq| deal.at(sq).expect("checked above"));
        let fx = fx?;
        self.history.push((m, fx));
        Ok(fx)
    }

    /// The player stops; the score is final.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// Stopped, no tile left, or no move left.
    pub fn is_over(&self) -> bool {
        self.stopped || self.state.is_over()
    }

    /// The score under `obj`.
    pub fn score(&self, obj: Objective) -> u32 {
        self.state.score(obj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::Squares;
    use crate::solo::{KINDS, Layout, full_set};

    #[test]
    fn deal_is_a_permutation() {
        let l = Layout::default();
        let d = Deal::from_seed(&l, 3);
        let mut c = [0u8; KINDS];
        for sq in Squares(l.bits()) {
            c[d.at(sq).unwrap().index()] += 1;
        }
        assert_eq!(c, full_set());
        assert_ne!(d, Deal::from_seed(&l, 4));
    }
}
