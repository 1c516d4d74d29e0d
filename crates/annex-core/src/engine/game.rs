//! The engine's game: the one owner of the game and its rules.
//!
//! The protocols keep no game of their own: they set it up here
//! ([`Engine::set_game`], [`Engine::play`], [`Engine::undo`]) and read it
//! back ([`Engine::game`]). A rule option changes the rules here and
//! starts a new game under them, so that no copy of the old rules lives
//! on anywhere (see [`Engine::set_rules`]).

use super::{Engine, OptionError};
use crate::board::Color;
use crate::moves::{Move, MoveError};
use crate::record::game::Game;
use crate::rules::RuleSet;

impl Engine {
    /// The rule set in use: the game's.
    pub fn rules(&self) -> RuleSet {
        self.game.rules()
    }

    /// The game: its start, moves and current position.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Makes `game` the game. Its rules become the engine's: when they
    /// differ, the table is cleared as [`Engine::set_rules`] does.
    ///
    /// # Errors
    /// The rules differ and a search is running; the game stays then.
    pub fn set_game(&mut self, game: Game) -> Result<(), OptionError> {
        if game.rules() != self.rules() {
            self.set_rules(game.rules())?;
        }
        self.game = game;
        Ok(())
    }

    /// Plays `m` for the side to move in the game.
    ///
    /// # Errors
    /// Illegal or ambiguous move; the game stays.
    pub fn play(&mut self, m: Move) -> Result<Move, MoveError> {
        self.game.play(m)
    }

    /// Plays `m` for `color`, a forced pass of the side to move first (see
    /// [`Game::play_for`]).
    ///
    /// # Errors
    /// Not `color`'s move, or an illegal move; the game stays.
    pub fn play_for(&mut self, color: Color, m: Move) -> Result<Move, MoveError> {
        self.game.play_for(color, m)
    }

    /// Takes back the last move; `false` at the start.
    pub fn undo(&mut self) -> bool {
        self.game.undo()
    }
}
