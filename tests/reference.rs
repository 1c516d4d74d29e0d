//! A deliberately simple, independent implementation of `RULES.md` (array
//! board, 8-direction scans, no bitboards, its own placement and one-line
//! handling) that cross-checks the fast rules core: perft under the three
//! pass conventions and random playouts comparing legal move sets, boards,
//! passes, game ends and final scores at every ply.
//!
//! Nothing here calls the library's move generator; the library is only
//! compared against.

use annex::board::Color;
use annex::moves::Move;
use annex::perft::{Convention, PerftOptions, divide, perft};
use annex::position::Position;
use annex::rules::{Flips, RuleSet, Scoring, Start, Tie};

pub use annex::rng::Rng;

/// A disc colour of the reference.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Disc {
    /// The first player.
    X,
    /// The second player.
    O,
}

impl Disc {
    fn other(self) -> Disc {
        match self {
            Disc::X => Disc::O,
            Disc::O => Disc::X,
        }
    }
}

/// Name, column step, row step; `n` points towards row 1.
const DIRS: [(&str, i32, i32); 8] = [
    ("n", 0, -1),
    ("ne", 1, -1),
    ("e", 1, 0),
    ("se", 1, 1),
    ("s", 0, 1),
    ("sw", -1, 1),
    ("w", -1, 0),
    ("nw", -1, -1),
];

/// The centre squares d4, e4, d5, e5 as (column, row).
const CENTRE: [(i32, i32); 4] = [(3, 3), (4, 3), (3, 4), (4, 4)];

/// A reference move: a square (placement, or every bracketed line), a
/// square with one line (index into `DIRS`), or a pass.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RefMove {
    /// No move possible; the other side moves.
    Pass,
    /// Column, row: placement or all lines (or the single line).
    Square(i32, i32),
    /// Column, row, direction index: one line of several.
    Line(i32, i32, usize),
}

impl RefMove {
    /// The notation of `RULES.md`: `f5`, `f5:ne`, `pass`.
    pub fn name(&self) -> String {
        let sq = |c: i32, r: i32| format!("{}{}", (b'a' + c as u8) as char, r + 1);
        match *self {
            RefMove::Pass => "pass".to_string(),
            RefMove::Square(c, r) => sq(c, r),
            RefMove::Line(c, r, d) => format!("{}:{}", sq(c, r), DIRS[d].0),
        }
    }
}

/// A game under the reference rules.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RefGame {
    /// `cells[row][col]`.
    pub cells: [[Option<Disc>; 8]; 8],
    /// Side to move.
    pub to_move: Disc,
    /// Placement plies still to come (free start).
    pub placements_left: u32,
    /// One-line flips.
    pub one_line: bool,
}

impl RefGame {
    /// The start of `start`, X to move.
    pub fn new(start: Start, one_line: bool) -> RefGame {
        let mut g = RefGame {
            cells: [[None; 8]; 8],
            to_move: Disc::X,
            placements_left: 0,
            one_line,
        };
        match start {
            Start::Diagonal => {
                g.cells[3][3] = Some(Disc::O); // d4
                g.cells[4][4] = Some(Disc::O); // e5
                g.cells[4][3] = Some(Disc::X); // d5
                g.cells[3][4] = Some(Disc::X); // e4
            }
            Start::Parallel => {
                g.cells[3][3] = Some(Disc::O); // d4
                g.cells[3][4] = Some(Disc::O); // e4
                g.cells[4][3] = Some(Disc::X); // d5
                g.cells[4][4] = Some(Disc::X); // e5
            }
            Start::Free => g.placements_left = 4,
        }
        g
    }

    fn at(&self, c: i32, r: i32) -> Option<Option<Disc>> {
        if (0..8).contains(&c) && (0..8).contains(&r) {
            Some(self.cells[r as usize][c as usize])
        } else {
            None
        }
    }

    /// How many discs a disc of `who` on (c, r) turns towards `DIRS[d]`.
    fn run(&self, c: i32, r: i32, d: usize, who: Disc) -> i32 {
        let (_, dc, dr) = DIRS[d];
        let mut n = 0;
        let (mut x, mut y) = (c + dc, r + dr);
        loop {
            match self.at(x, y) {
                Some(Some(d)) if d == who.other() => n += 1,
                Some(Some(_)) => return n,
                _ => return 0,
            }
            x += dc;
            y += dr;
        }
    }

    /// Legal moves of the side to move, in square order (a1, b1, …) and
    /// direction order; empty when it must pass or the game is over.
    pub fn moves(&self) -> Vec<RefMove> {
        let mut out = Vec::new();
        if self.placements_left > 0 {
            let mut sq: Vec<(i32, i32)> = CENTRE
                .iter()
                .copied()
                .filter(|&(c, r)| self.cells[r as usize][c as usize].is_none())
                .collect();
            sq.sort_by_key(|&(c, r)| r * 8 + c);
            return sq.into_iter().map(|(c, r)| RefMove::Square(c, r)).collect();
        }
        for r in 0..8 {
            for c in 0..8 {
                if self.cells[r as usize][c as usize].is_some() {
                    continue;
                }
                let lines: Vec<usize> = (0..8)
                    .filter(|&d| self.run(c, r, d, self.to_move) > 0)
                    .collect();
                if lines.is_empty() {
                    continue;
                }
                if !self.one_line || lines.len() == 1 {
                    out.push(RefMove::Square(c, r));
                } else {
                    out.extend(lines.into_iter().map(|d| RefMove::Line(c, r, d)));
                }
            }
        }
        out
    }

    /// Plays a legal move.
    pub fn play(&mut self, m: RefMove) {
        let me = self.to_move;
        match m {
            RefMove::Pass => self.to_move = me.other(),
            RefMove::Square(c, r) if self.placements_left > 0 => {
                self.cells[r as usize][c as usize] = Some(me);
                self.placements_left -= 1;
                // X places two, then O places two, then X moves.
                if self.placements_left.is_multiple_of(2) {
                    self.to_move = me.other();
                }
            }
            RefMove::Square(c, r) => {
                for d in 0..8 {
                    self.turn(c, r, d);
                }
                self.cells[r as usize][c as usize] = Some(me);
                self.to_move = me.other();
            }
            RefMove::Line(c, r, d) => {
                self.turn(c, r, d);
                self.cells[r as usize][c as usize] = Some(me);
                self.to_move = me.other();
            }
        }
    }

    fn turn(&mut self, c: i32, r: i32, d: usize) {
        let n = self.run(c, r, d, self.to_move);
        let (_, dc, dr) = DIRS[d];
        for k in 1..=n {
            self.cells[(r + k * dr) as usize][(c + k * dc) as usize] = Some(self.to_move);
        }
    }

    /// The game after a pass (the same discs, the other side to move).
    fn passed(&self) -> RefGame {
        let mut g = self.clone();
        g.to_move = g.to_move.other();
        g
    }

    /// Neither side can move.
    pub fn is_over(&self) -> bool {
        self.moves().is_empty() && self.passed().moves().is_empty()
    }

    /// Discs of `who` on the board.
    pub fn count(&self, who: Disc) -> i32 {
        self.cells
            .iter()
            .flatten()
            .filter(|&&c| c == Some(who))
            .count() as i32
    }

    /// X's final margin: discs counted, empties to the winner under `wof`.
    pub fn score_x(&self, wof: bool) -> i32 {
        let (x, o) = (self.count(Disc::X), self.count(Disc::O));
        let empty = 64 - x - o;
        if !wof || x == o {
            x - o
        } else if x > o {
            x - o + empty
        } else {
            x - o - empty
        }
    }

    /// The winner (`None` = draw); equal discs go to O under `tie second`.
    pub fn winner(&self, tie_second: bool) -> Option<Disc> {
        let (x, o) = (self.count(Disc::X), self.count(Disc::O));
        if x > o {
            Some(Disc::X)
        } else if o > x || tie_second {
            Some(Disc::O)
        } else {
            None
        }
    }

    /// Leaf count at `depth` under a pass convention.
    pub fn perft(&self, depth: u32, conv: Convention) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves();
        if moves.is_empty() {
            let p = self.passed();
            if p.moves().is_empty() {
                return match conv {
                    Convention::Oeis => 0,
                    _ => 1,
                };
            }
            let d = if conv == Convention::NoPass {
                depth
            } else {
                depth - 1
            };
            return p.perft(d, conv);
        }
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|m| {
                let mut g = self.clone();
                g.play(m);
                g.perft(depth - 1, conv)
            })
            .sum()
    }

    /// The same position in the library's form.
    pub fn to_position(&self) -> Position {
        let (mut x, mut o) = (0u64, 0u64);
        for r in 0..8 {
            for c in 0..8 {
                match self.cells[r][c] {
                    Some(Disc::X) => x |= 1 << (r * 8 + c),
                    Some(Disc::O) => o |= 1 << (r * 8 + c),
                    None => {}
                }
            }
        }
        let side = match self.to_move {
            Disc::X => Color::Black,
            Disc::O => Color::White,
        };
        Position::from_colors(x, o, side)
    }
}

fn rules(start: Start, flips: Flips) -> RuleSet {
    RuleSet {
        start,
        flips,
        ..RuleSet::default()
    }
}

const CONVENTIONS: [Convention; 3] = [Convention::Oeis, Convention::Carry, Convention::NoPass];

fn combos() -> Vec<(Start, Flips)> {
    let mut v = Vec::new();
    for s in Start::ALL {
        for f in Flips::ALL {
            v.push((*s, *f));
        }
    }
    v
}

fn names(list: &annex::moves::MoveList) -> Vec<String> {
    list.iter().map(|m| m.to_string()).collect()
}

fn ref_names(moves: &[RefMove]) -> Vec<String> {
    moves.iter().map(RefMove::name).collect()
}

/// Perft from every start x flips combination to depth 6, all three
/// conventions, one and two threads; divide names the reference's moves.
#[test]
fn perft_start_positions_match_reference() {
    for (start, flips) in combos() {
        let r = rules(start, flips);
        let g = RefGame::new(start, flips == Flips::OneLine);
        let pos = Position::start(&r);
        assert_eq!(g.to_position(), pos, "{start} {flips}: start position");
        for depth in 0..=6 {
            let want = g.perft(depth, Convention::Oeis);
            for conv in CONVENTIONS {
                // No game ends or passes this early: all conventions agree.
                assert_eq!(g.perft(depth, conv), want);
                for threads in [1, 2] {
                    let got = perft(&pos.board, &r, depth, conv, threads);
                    assert_eq!(
                        got, want,
                        "{start} {flips} depth {depth} {conv} threads {threads}"
                    );
                }
            }
        }
        let parts = divide(&pos.board, &r, 4, PerftOptions::default());
        let ref_moves = g.moves();
        let got: Vec<String> = parts.iter().map(|(m, _)| m.to_string()).collect();
        assert_eq!(got, ref_names(&ref_moves), "{start} {flips}: divide moves");
        for ((m, n), rm) in parts.iter().zip(&ref_moves) {
            let mut c = g.clone();
            c.play(*rm);
            assert_eq!(
                *n,
                c.perft(3, Convention::Oeis),
                "{start} {flips}: divide {m}"
            );
        }
    }
}

/// Plays random moves on the reference from the start of (start, flips)
/// until `empties` squares are left or the game ends.
fn random_game(start: Start, one_line: bool, empties: i32, rng: &mut Rng) -> RefGame {
    let mut g = RefGame::new(start, one_line);
    while 64 - g.count(Disc::X) - g.count(Disc::O) > empties {
        let moves = g.moves();
        if moves.is_empty() {
            if g.is_over() {
                break;
            }
            g.play(RefMove::Pass);
        } else {
            g.play(moves[rng.index(moves.len())]);
        }
    }
    g
}

/// Perft near the end of random games, where passes and game ends make the
/// three conventions differ: depth 6 to 8 against the reference.
#[test]
fn perft_endgames_match_reference() {
    let mut rng = Rng::new(7);
    let mut differ = 0;
    for (start, flips) in combos() {
        let r = rules(start, flips);
        let one_line = flips == Flips::OneLine;
        for i in 0..12 {
            // One-line trees are much wider: start them nearer the end.
            let empties = if one_line { 5 } else { 7 } + (i % 6);
            let g = random_game(start, one_line, empties, &mut rng);
            let pos = g.to_position();
            let depth = if empties <= 8 { 8 } else { 6 };
            let mut seen = Vec::new();
            for conv in CONVENTIONS {
                let want = g.perft(depth, conv);
                seen.push(want);
                for threads in [1, 2] {
                    let got = perft(&pos.board, &r, depth, conv, threads);
                    assert_eq!(
                        got, want,
                        "{start} {flips} {pos} depth {depth} {conv} threads {threads}"
                    );
                }
            }
            if seen[0] != seen[1] || seen[1] != seen[2] {
                differ += 1;
            }
        }
    }
    // The conventions must really have been told apart.
    assert!(
        differ >= 20,
        "only {differ} positions separate the conventions"
    );
}

/// Checks every ply of a game against the reference: moves, boards,
/// passes, the rejection of illegal moves, game end and the final score.
/// Returns the number of plies.
fn playout(r: &RuleSet, rng: &mut Rng) -> usize {
    let one_line = r.flips == Flips::OneLine;
    let mut g = RefGame::new(r.start, one_line);
    let mut pos = Position::start(r);
    let mut transcript = Vec::new();
    let mut with_passes = Vec::new();
    let mut plies = 0;
    loop {
        assert_eq!(pos, g.to_position(), "{r}: {}", with_passes.join(" "));
        let ctx = || format!("{r}: {} at {pos}", with_passes.join(" "));
        let ref_moves = g.moves();
        let list = pos.legal_moves(r);
        assert_eq!(names(&list), ref_names(&ref_moves), "{}", ctx());
        let over = g.is_over();
        assert_eq!(pos.is_game_over(r), over, "{}", ctx());
        assert_eq!(pos.must_pass(r), ref_moves.is_empty() && !over, "{}", ctx());
        assert_eq!(
            pos.play(r, Move::PASS).is_ok(),
            ref_moves.is_empty() && !over
        );
        // A random square that is no move must be refused, as must a
        // direction that brackets nothing.
        let sq = rng.index(64) as i32;
        let (c, row) = (sq % 8, sq / 8);
        let legal_here = ref_moves.iter().any(|m| match *m {
            RefMove::Square(x, y) | RefMove::Line(x, y, _) => (x, y) == (c, row),
            RefMove::Pass => false,
        });
        let plain: Move = RefMove::Square(c, row).name().parse().unwrap();
        assert_eq!(
            pos.play(r, plain).is_ok(),
            legal_here && {
                // Under one-line a square with several lines needs a direction.
                ref_moves.contains(&RefMove::Square(c, row))
            }
        );
        if g.placements_left == 0 && !legal_here {
            let d = rng.index(8);
            let line: Move = RefMove::Line(c, row, d).name().parse().unwrap();
            assert!(pos.play(r, line).is_err(), "{line} accepted: {}", ctx());
        }
        if over {
            let (x, o) = (g.count(Disc::X), g.count(Disc::O));
            assert_eq!(pos.black().count_ones() as i32, x);
            assert_eq!(pos.white().count_ones() as i32, o);
            let wof = r.scoring == Scoring::Wof;
            assert_eq!(
                pos.final_score_for(r.scoring, Color::Black),
                g.score_x(wof),
                "{}",
                ctx()
            );
            assert_eq!(
                pos.final_score_for(r.scoring, Color::White),
                -g.score_x(wof)
            );
            let want = g.winner(r.tie == Tie::Second).map(|d| match d {
                Disc::X => Color::Black,
                Disc::O => Color::White,
            });
            assert_eq!(pos.winner(r), want, "{}", ctx());
            break;
        }
        let m = if ref_moves.is_empty() {
            RefMove::Pass
        } else {
            ref_moves[rng.index(ref_moves.len())]
        };
        let name = m.name();
        let parsed: Move = name.parse().unwrap();
        let (played, next) = pos
            .play(r, parsed)
            .unwrap_or_else(|e| panic!("{name} refused ({e}): {}", ctx()));
        assert_eq!(played.to_string(), name);
        g.play(m);
        pos = next;
        plies += 1;
        if m != RefMove::Pass {
            transcript.push(name.clone());
        }
        with_passes.push(name);
    }
    // The transcript replays with passes left out and with them written.
    let joined = transcript.concat();
    assert_eq!(
        Position::from_transcript(&joined, r).unwrap(),
        pos,
        "{r}: {joined}"
    );
    let spaced = with_passes.join(" ");
    let (p2, moves) = Position::start(r).play_transcript(&spaced, r).unwrap();
    assert_eq!(p2, pos);
    assert_eq!(moves.len(), with_passes.len());
    plies
}

/// 12,000 random games, 2,000 per start x flips combination, with random
/// tie and scoring options: every ply is compared with the reference.
#[test]
fn random_playouts_match_reference() {
    let mut rng = Rng::new(2024);
    let mut games = 0;
    let mut plies = 0;
    for (start, flips) in combos() {
        for _ in 0..2000 {
            let r = RuleSet {
                start,
                flips,
                tie: Tie::ALL[rng.index(2)],
                scoring: Scoring::ALL[rng.index(2)],
            };
            plies += playout(&r, &mut rng);
            games += 1;
        }
    }
    assert_eq!(games, 12_000);
    assert!(plies > 12_000 * 55, "games too short: {plies} plies");
}
