//! Building a book from game records.
//!
//! Every game is replayed from the Othello start for its first `plies`
//! moves; each (position, move) pair collects the number of games and the
//! sum of their outcomes for the mover. A move enters the book when at
//! least `min_games` games played it. Its score is then negamaxed through
//! the book: a move leading to a book position scores minus that
//! position's best score; any other move scores the mean outcome of its
//! games. Positions and moves are stored in symmetry-canonical form, so
//! transpositions and mirror images share statistics.

use super::Book;
use crate::board::Board;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::rules::RuleSet;
use crate::square::Square;
use std::collections::HashMap;

/// Options of a book build.
#[derive(Clone, Copy, Debug)]
pub struct BuildOptions {
    /// Plies of each game taken into the book.
    pub plies: usize,
    /// Games a move needs to enter the book.
    pub min_games: u32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            plies: 20,
            min_games: 4,
        }
    }
}

#[derive(Default, Clone, Copy)]
struct Stat {
    games: u32,
    sum: i64,
}

/// Collects statistics and computes the book.
#[derive(Default)]
pub struct Builder {
    opt: BuildOptions,
    stats: HashMap<Board, HashMap<u8, Stat>>,
    games: usize,
    rejected: usize,
}

impl Builder {
    /// A builder with `opt`.
    pub fn new(opt: BuildOptions) -> Builder {
        Builder {
            opt,
            ..Builder::default()
        }
    }

    /// Games added so far, and games rejected (an illegal move in the
    /// book plies).
    pub fn counts(&self) -> (usize, usize) {
        (self.games, self.rejected)
    }

    /// Adds one game from the Othello start: its moves (passes may be left
    /// out) and its final disc difference for Black (empties to the winner).
    pub fn add_game(&mut self, moves: &[Move], black_diff: i32) {
        let rules = RuleSet::default();
        let mut pos = Position::start(&rules);
        let mut seen = Vec::with_capacity(self.opt.plies);
        for &m in moves.iter().take(self.opt.plies) {
            if pos.must_pass(&rules) {
                break;
            }
            let Ok((m, next)) = pos.play(&rules, m) else {
                self.rejected += 1;
                return;
            };
            let Some(sq) = m.to_square() else { break };
            let (key, s) = pos.board.unique();
            let csq = crate::bitboard::symmetry_square(sq, s).index() as u8;
            let outcome = if pos.side == crate::board::Color::Black {
                black_diff
            } else {
                -black_diff
            };
            seen.push((key, csq, outcome));
            pos = next;
        }
        // A game that repeats a canonical position (a mirror transposition)
        // counts once per (position, move).
        seen.sort_unstable_by_key(|x| (x.0, x.1));
        seen.dedup_by_key(|x| (x.0, x.1));
        for (key, csq, outcome) in seen {
            let st = self.stats.entry(key).or_default().entry(csq).or_default();
            st.games += 1;
            st.sum += outcome as i64;
        }
        self.games += 1;
    }

    fn qualifying(&self, key: &Board) -> Vec<(u8, Stat)> {
        let mut v: Vec<(u8, Stat)> = self
            .stats
            .get(key)
            .map(|m| {
                m.iter()
                    .filter(|(_, s)| s.games >= self.opt.min_games)
                    .map(|(&sq, &s)| (sq, s))
                    .collect()
            })
            .unwrap_or_default();
        v.sort_unstable_by_key(|x| x.0);
        v
    }

    fn move_scores(&self, key: &Board, memo: &mut HashMap<Board, i32>) -> Vec<(u8, i32, u32)> {
        let rules = RuleSet::default();
        let legal = MoveList::generate(key, &rules);
        let mut out = Vec::new();
        for (sq, st) in self.qualifying(key) {
            let square = Square::from_index_unchecked(sq);
            if !legal.contains(Move::square(square)) {
                continue;
            }
            let child = key.play_square(sq as usize).unique().0;
            let mean = (st.sum as f64 / st.games as f64).round() as i32;
            let score = match self.value(&child, memo) {
                Some(v) => -v,
                None => mean,
            };
            out.push((sq, score.clamp(-64, 64), st.games));
        }
        out
    }

    /// Negamax value of a book position, `None` when it has no book move.
    fn value(&self, key: &Board, memo: &mut HashMap<Board, i32>) -> Option<i32> {
        if let Some(&v) = memo.get(key) {
            return Some(v);
        }
        let best = self.move_scores(key, memo).iter().map(|x| x.1).max()?;
        memo.insert(*key, best);
        Some(best)
    }

    /// The finished book.
    pub fn finish(&self) -> Book {
        let mut memo = HashMap::new();
        let mut book = Book::default();
        let mut keys: Vec<&Board> = self.stats.keys().collect();
        keys.sort();
        for key in keys {
            let moves = self.move_scores(key, &mut memo);
            if !moves.is_empty() {
                book.insert(
                    key,
                    moves
                        .into_iter()
                        .map(|(sq, s, g)| (Square::from_index_unchecked(sq), s as i8, g))
                        .collect(),
                );
            }
        }
        book
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(t: &str) -> Vec<Move> {
        Position::start(&RuleSet::default())
            .play_transcript(t, &RuleSet::default())
            .unwrap()
            .1
    }

    #[test]
    fn negamax_through_the_book() {
        let mut b = Builder::new(BuildOptions {
            plies: 3,
            min_games: 2,
        });
        // After f5 d6 White answers; f5 d6 c3 wins for Black (+10) twice,
        // f5 f6 loses for Black (-20) twice, one odd game is ignored.
        for _ in 0..2 {
            b.add_game(&moves("f5d6c3"), 10);
            b.add_game(&moves("f5f6e6"), -20);
        }
        b.add_game(&moves("f5f4e3"), 64);
        let book = b.finish();
        let start = Board::start();
        let best = book.best_move(&start).unwrap();
        // From the start, f5 is worth White's best reply: f6 (-20 for Black).
        assert_eq!(best.score, -20);
        let after = Position::from_transcript("f5", &RuleSet::default()).unwrap();
        let reply = book.best_move(&after.board).unwrap();
        assert_eq!(reply.mv.to_string(), "f6");
        assert_eq!(reply.score, 20);
        assert_eq!(b.counts(), (5, 0));
        // Mirror images share statistics: d3 is f5's image.
        let d3 = Position::from_transcript("d3", &RuleSet::default()).unwrap();
        assert_eq!(book.best_move(&d3.board).unwrap().score, 20);
    }
}
