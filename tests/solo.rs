//! The solo puzzle (RULES.md, "The solo puzzle"): the bitboard rules against
//! an independent array implementation written here, the rulebook's
//! examples by hand, the players, and the `annex solo` command.

use annex::board::Color;
use annex::rng::Rng;
use annex::rules::Start;
use annex::solo::player::{MonteCarlo, MonteCarloConfig, RandomPlayer, SoloPlayer, play_out};
use annex::solo::{Deal, KINDS, Layout, Objective, SoloError, SoloGame, SoloMove, SoloState, Tile};
use annex::square::Square;
use std::io::Write;
use std::process::{Command, Stdio};

// ---------------------------------------------------------------------------
// The reference: an 8×8 array of cells and plain coordinate scans.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cell {
    Empty,
    Disc(Color),
    Tile(Tile, bool), // kind, face up
}

#[derive(Clone)]
struct Reference {
    cells: [Cell; 64],
    won: Vec<Tile>,
}

const DIRS: [(i32, i32); 8] = [
    (0, -1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
];

fn at(col: i32, row: i32) -> Option<usize> {
    if (0..8).contains(&col) && (0..8).contains(&row) {
        Some((row * 8 + col) as usize)
    } else {
        None
    }
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

fn bits(names: &str) -> u64 {
    names.split_whitespace().map(|n| sq(n).bit()).sum()
}

fn tile(c: Color, v: u8) -> Tile {
    Tile::new(c, v).unwrap()
}

impl Reference {
    fn new(layout: &Layout, deal: &Deal, parallel: bool) -> Reference {
        let mut cells = [Cell::Empty; 64];
        for (i, cell) in cells.iter_mut().enumerate() {
            let s = Square::new(i as u8).unwrap();
            if layout.bits() >> i & 1 == 1 {
                *cell = Cell::Tile(deal.at(s).unwrap(), false);
            }
        }
        // Diagonal: d4, e5 O and d5, e4 X; parallel: d4, e4 O and d5, e5 X.
        let (o2, x2) = if parallel { ("e4", "e5") } else { ("e5", "e4") };
        for (n, c) in [
            ("d4", Color::White),
            (o2, Color::White),
            ("d5", Color::Black),
            (x2, Color::Black),
        ] {
            cells[sq(n).index()] = Cell::Disc(c);
        }
        Reference {
            cells,
            won: Vec::new(),
        }
    }

    /// Discs turned by `c` on `s`: a run of other-colour discs ended by own.
    fn flips(&self, c: Color, s: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let (col, row) = ((s % 8) as i32, (s / 8) as i32);
        for (dc, dr) in DIRS {
            let mut run = Vec::new();
            let (mut x, mut y) = (col + dc, row + dr);
            while let Some(i) = at(x, y) {
                match self.cells[i] {
                    Cell::Disc(d) if d != c => run.push(i),
                    Cell::Disc(_) => {
                        out.extend(run.iter().copied());
                        break;
                    }
                    _ => break,
                }
                x += dc;
                y += dr;
            }
        }
        out
    }

    /// Tiles won by a disc of `c` on `s`, on the current cells.
    fn captures(&self, c: Color, s: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let (col, row) = ((s % 8) as i32, (s / 8) as i32);
        for (dc, dr) in DIRS {
            let (Some(a), Some(b)) = (at(col + dc, row + dr), at(col + 2 * dc, row + 2 * dr))
            else {
                continue;
            };
            if let (Cell::Tile(t, true), Cell::Disc(d)) = (self.cells[a], self.cells[b])
                && t.color() != c
                && d == c
            {
                out.push(a);
            }
        }
        out
    }

    fn is_legal(&self, c: Color, s: usize) -> bool {
        self.cells[s] == Cell::Empty
            && !(self.flips(c, s).is_empty() && self.captures(c, s).is_empty())
    }

    fn legal(&self) -> Vec<(Color, usize)> {
        let mut v = Vec::new();
        for c in [Color::Black, Color::White] {
            for s in 0..64 {
                if self.is_legal(c, s) {
                    v.push((c, s));
                }
            }
        }
        v
    }

    /// Place, turn, take, reveal: the rulebook's order, literally.
    fn play(&mut self, c: Color, s: usize) {
        assert!(self.is_legal(c, s));
        let f = self.flips(c, s);
        self.cells[s] = Cell::Disc(c);
        for i in f {
            self.cells[i] = Cell::Disc(c);
        }
        for i in self.captures(c, s) {
            if let Cell::Tile(t, _) = self.cells[i] {
                self.won.push(t);
            }
            self.cells[i] = Cell::Empty;
        }
        let (col, row) = ((s % 8) as i32, (s / 8) as i32);
        for (dc, dr) in [(0, -1), (1, 0), (0, 1), (-1, 0)] {
            if let Some(i) = at(col + dc, row + dr)
                && let Cell::Tile(t, false) = self.cells[i]
            {
                self.cells[i] = Cell::Tile(t, true);
            }
        }
    }

    fn tiles_left(&self) -> usize {
        self.cells
            .iter()
            .filter(|c| matches!(c, Cell::Tile(..)))
            .count()
    }

    fn variant(&self) -> u32 {
        let sum: u32 = self.won.iter().map(|t| u32::from(t.value())).sum();
        let blanks = self.won.iter().filter(|t| t.value() == 0).count();
        if blanks == 4 { 2 * sum } else { sum }
    }

    /// A tile that no move can win: each line through it has an end off the
    /// board or discs at both ends.
    fn is_dead(&self, s: usize) -> bool {
        let (col, row) = ((s % 8) as i32, (s / 8) as i32);
        [(0, 1), (1, 0), (1, 1), (1, -1)].iter().all(|&(dc, dr)| {
            match (at(col + dc, row + dr), at(col - dc, row - dr)) {
                (Some(a), Some(b)) => {
                    matches!(self.cells[a], Cell::Disc(_)) && matches!(self.cells[b], Cell::Disc(_))
                }
                _ => true,
            }
        })
    }

    /// Asserts that `s` shows exactly what the reference holds.
    fn check(&self, s: &SoloState, ctx: &str) {
        let mut hidden = [0u8; KINDS];
        let mut won = [0u8; KINDS];
        for t in &self.won {
            won[t.index()] += 1;
        }
        for (i, cell) in self.cells.iter().enumerate() {
            let q = Square::new(i as u8).unwrap();
            let (disc, tile_up, is_tile) = match *cell {
                Cell::Empty => (None, None, false),
                Cell::Disc(c) => (Some(c), None, false),
                Cell::Tile(t, true) => (None, Some(t), true),
                Cell::Tile(t, false) => {
                    hidden[t.index()] += 1;
                    (None, None, true)
                }
            };
            assert_eq!(s.disc_at(q), disc, "{ctx}: disc on {q}");
            assert_eq!(s.tile_at(q), tile_up, "{ctx}: face-up tile on {q}");
            assert_eq!(s.tiles() >> i & 1 == 1, is_tile, "{ctx}: tile on {q}");
            if is_tile {
                assert_eq!(
                    s.dead_tiles() >> i & 1 == 1,
                    self.is_dead(i),
                    "{ctx}: dead {q}"
                );
            }
        }
        assert_eq!(s.hidden(), &hidden, "{ctx}: hidden multiset");
        assert_eq!(s.won(), &won, "{ctx}: won tiles");
        assert_eq!(s.tiles_won() as usize, self.won.len(), "{ctx}");
        assert_eq!(s.variant_score(), self.variant(), "{ctx}");
        let got: Vec<(Color, usize)> = s
            .legal_moves()
            .iter()
            .map(|m| (m.color, m.square.index()))
            .collect();
        assert_eq!(got, self.legal(), "{ctx}: legal moves");
        let over = self.tiles_left() == 0 || self.legal().is_empty();
        assert_eq!(s.is_over(), over, "{ctx}: game over");
    }
}

fn random_layout(rng: &mut Rng) -> Layout {
    let mut squares: Vec<u8> = (0..64)
        .filter(|&i| ![27, 28, 35, 36].contains(&i))
        .collect();
    rng.shuffle(&mut squares);
    Layout::from_bits(squares[..24].iter().map(|&i| 1u64 << i).sum()).unwrap()
}

/// Plays `games` random games, comparing state, legal moves, effects and
/// scores with the reference after every move.
fn compare_random_games(games: u64, seed: u64) -> usize {
    let mut rng = Rng::new(seed);
    let mut moves = 0;
    for g in 0..games {
        let layout = if g % 4 == 3 {
            random_layout(&mut rng)
        } else {
            Layout::default()
        };
        let deal = Deal::from_seed(&layout, seed ^ g);
        let parallel = g % 5 == 1;
        let start = if parallel {
            Start::Parallel
        } else {
            Start::Diagonal
        };
        let state = SoloState::with_start(&layout, start).unwrap();
        let mut game = SoloGame::from_deal(state, deal.clone());
        let mut r = Reference::new(&layout, &deal, parallel);
        r.check(game.state(), &format!("game {g} start"));
        let mut dead = 0u64;
        while !game.is_over() {
            let legal = r.legal();
            let (c, s) = legal[rng.below(legal.len() as u64) as usize];
            let m = SoloMove {
                color: c,
                square: Square::new(s as u8).unwrap(),
            };
            let flips_ref = r.flips(c, s).len();
            let caps_ref = r.captures(c, s).len();
            let before = game.state().clone();
            let (f, cap) = before.effect(m);
            let fx = game.play(m).unwrap();
            r.play(c, s);
            moves += 1;
            let ctx = format!("game {g} move {} ({m})", game.history().len());
            assert_eq!((fx.flipped, fx.captured), (f, cap), "{ctx}: effect()");
            assert_eq!(fx.flipped.count_ones() as usize, flips_ref, "{ctx}: flips");
            assert_eq!(
                fx.captured.count_ones() as usize,
                caps_ref,
                "{ctx}: captures"
            );
            r.check(game.state(), &ctx);
            // A tile reported dead stays dead and is never won later.
            dead |= before.dead_tiles();
            assert_eq!(fx.captured & dead, 0, "{ctx}: a dead tile was won");
            assert_eq!(dead & !game.state().dead_tiles(), 0, "{ctx}: revived");
        }
    }
    moves
}

#[test]
fn rules_match_reference_on_random_games() {
    let moves = compare_random_games(2500, 11);
    assert!(moves > 40_000, "only {moves} moves checked");
}

#[test]
#[ignore = "long: 50,000 random games against the reference; run with --ignored"]
fn rules_match_reference_on_many_random_games() {
    compare_random_games(50_000, 12);
}

// ---------------------------------------------------------------------------
// The rulebook's examples, by hand.

#[test]
fn start_move_turns_one_disc_and_reveals_two_tiles() {
    let layout = Layout::default();
    let mut g = SoloGame::deal(&layout, 42);
    let moves: Vec<String> = g
        .state()
        .legal_moves()
        .iter()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(
        moves,
        [
            "x d3", "x c4", "x f5", "x e6", "o e3", "o f4", "o c5", "o d6"
        ]
    );
    // Every start move turns one disc and reveals two tiles (the layout is
    // symmetric); the rulebook shows one of them.
    for m in g.state().legal_moves() {
        let (f, cap) = g.state().effect(m);
        assert_eq!((f.count_ones(), cap), (1, 0), "{m}");
        assert_eq!(g.state().reveals(m).count_ones(), 2, "{m}");
    }
    let deal = g.deal_ref().clone();
    let fx = g.play("x d3".parse().unwrap()).unwrap();
    assert_eq!(fx.flipped, bits("d4"));
    assert_eq!(fx.revealed, bits("c3 d2"));
    assert_eq!(fx.captured, 0);
    for n in ["c3", "d2"] {
        assert_eq!(g.state().tile_at(sq(n)), deal.at(sq(n)));
    }
    assert_eq!(g.state().face_down().count_ones(), 22);
    assert_eq!(g.state().discs(Color::Black), bits("d3 d4 d5 e4"));
}

#[test]
fn parallel_start_and_no_free_start() {
    // Parallel centre: X d5 e5, O d4 e4. X's two-player moves c3 d3 e3 f3
    // lose c3 and f3 to tiles; O's c6 d6 e6 f6 lose c6 and f6.
    let g = SoloGame::deal_with(&Layout::default(), Start::Parallel, 4).unwrap();
    let moves: Vec<String> = g
        .state()
        .legal_moves()
        .iter()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(moves, ["x d3", "x e3", "o d6", "o e6"]);
    assert!(SoloGame::deal_with(&Layout::default(), Start::Free, 4).is_err());
    let (out, ok) = annex(&["solo", "--start", "free"], "");
    assert!(!ok && out.is_empty());
}

fn x(n: u8) -> Tile {
    tile(Color::Black, n)
}

fn o(n: u8) -> Tile {
    tile(Color::White, n)
}

fn state(black: &str, white: &str, tiles: &[(&str, Tile)], up: &str) -> SoloState {
    let t: Vec<(Square, Tile)> = tiles.iter().map(|&(n, t)| (sq(n), t)).collect();
    SoloState::from_parts([bits(black), bits(white)], &t, bits(up)).unwrap()
}

fn mv(s: &str) -> SoloMove {
    s.parse().unwrap()
}

#[test]
fn capture_of_a_single_tile() {
    // X d4, face-up O 1 on e4: X on f4 wins it, without turning a disc.
    let mut s = state("d4", "a8", &[("e4", o(1)), ("f5", x(3))], "e4");
    assert!(s.is_legal(mv("x f4")));
    let fx = s.play(mv("x f4"), |_| x(3)).unwrap();
    assert_eq!(
        (fx.flipped, fx.captured, fx.revealed),
        (0, bits("e4"), bits("f5"))
    );
    assert_eq!(s.tiles_won(), 22 + 1); // 22 tiles were off the board already
    assert_eq!(s.won()[o(1).index()], 1);
    assert_eq!(
        s.empty() & bits("e4"),
        bits("e4"),
        "the square becomes empty"
    );
    assert_eq!(s.tile_at(sq("f5")), Some(x(3)));
    // Only the other colour: O on f4 cannot win an O tile.
    let s = state("a8", "d4", &[("e4", o(1))], "e4");
    assert!(!s.is_legal(mv("o f4")));
    assert_eq!(
        s.clone().play(mv("o f4"), |_| x(1)),
        Err(SoloError::NoEffect(mv("o f4")))
    );
    // Face-down tiles cannot be won.
    let s = state("d4", "a8", &[("e4", o(1))], "");
    assert!(!s.is_legal(mv("x f4")));
}

#[test]
fn two_tiles_in_a_row_cannot_be_won() {
    let s = state("c4", "h8", &[("d4", o(2)), ("e4", o(3))], "d4 e4");
    assert!(!s.is_legal(mv("x f4")));
    // A tile interrupts a line like an empty square: X c4, O tile d4, O
    // disc e4, X f4 — an X disc on c4 neither turns e4 nor wins d4.
    let s = state("f4", "e4", &[("d4", o(2))], "d4");
    assert!(!s.is_legal(mv("x c4")));
    assert_eq!(s.effect(mv("x c4")), (0, 0));
}

#[test]
fn capture_in_several_directions() {
    // New X on e5 wins o4 on e4 (X e3), o5 on f6 (X g7) and o6 on d5 (X c5);
    // the X tile on f5 (X g5) is of its own colour and stays.
    let tiles = [("e4", o(4)), ("f6", o(5)), ("d5", o(6)), ("f5", x(7))];
    let mut s = state("e3 g7 c5 g5", "a1", &tiles, "e4 f6 d5 f5");
    let fx = s.play(mv("x e5"), |_| unreachable!()).unwrap();
    assert_eq!(fx.captured, bits("e4 f6 d5"));
    assert_eq!(fx.flipped, 0);
    assert_eq!(s.tiles(), bits("f5"));
    // All tiles but x7 are won now, the four blanks among them: doubled.
    assert_eq!(s.tiles_won(), 23);
    assert_eq!(s.variant_score(), 2 * (110 - 7));
}

#[test]
fn discs_turn_before_tiles_are_taken() {
    // X on d4 turns the O disc e4 (X f4) and wins the O tile c4 (X b4); the
    // O disc d5 beyond a tile-free line (X d6) turns too. The tile's square
    // is empty afterwards and the turned discs are X.
    let mut s = state("f4 b4 d6", "e4 d5", &[("c4", o(9)), ("d3", x(1))], "c4");
    let fx = s
        .play(mv("x d4"), |q| {
            assert_eq!(q, sq("d3"));
            x(1)
        })
        .unwrap();
    assert_eq!(fx.flipped, bits("e4 d5"));
    assert_eq!(fx.captured, bits("c4"));
    assert_eq!(fx.revealed, bits("d3"));
    assert_eq!(s.discs(Color::Black), bits("b4 d4 e4 f4 d5 d6"));
    assert_eq!(s.discs(Color::White), 0);
    // Turn first, then take: the capture uses the disc colours after the
    // turn. A move that turns a disc which then closes a capture in the same
    // line cannot exist (the capture line starts with a tile), so both
    // orders agree; the bitboard code follows the rulebook's order.
    assert_eq!(s.won()[o(9).index()], 1);
}

#[test]
fn reveal_is_orthogonal_and_comes_after_the_capture() {
    // X d6, O d5: X on d4 turns d5; the face-down O tile e4 (X f4 beyond) is
    // turned up but not won (it was face down when tiles were taken); the
    // diagonal c3 stays face down.
    let tiles = [("e4", o(8)), ("c3", o(2))];
    let mut s = state("d6 f4", "d5", &tiles, "");
    let fx = s.play(mv("x d4"), |_| o(8)).unwrap();
    assert_eq!(fx.revealed, bits("e4"));
    assert_eq!(fx.captured, 0);
    assert_eq!(s.tile_at(sq("e4")), Some(o(8)));
    assert_eq!(s.face_down(), bits("c3"));
    // Next move, X on f3 wins it through the turned disc d5 (d5-e4-f3).
    assert_eq!(s.capture_squares(Color::Black), bits("f3"));
    // A reveal must name a hidden tile; the state is unchanged otherwise.
    let mut s = state("d6 f4", "d5", &tiles, "");
    let before = s.clone();
    assert!(matches!(
        s.play(mv("x d4"), |_| x(5)),
        Err(SoloError::Inconsistent(_))
    ));
    assert_eq!(s, before);
}

#[test]
fn game_end_and_scores() {
    // Last tile won: the game is over with all 24 tiles.
    let mut s = state("d4", "a8", &[("e4", o(0))], "e4");
    assert!(!s.is_over());
    s.play(mv("x f4"), |_| unreachable!()).unwrap();
    assert!(s.is_over());
    assert_eq!(s.tiles_won(), 24);
    assert_eq!(s.variant_score(), 2 * 110);
    assert_eq!(s.score(Objective::Tiles), 24);
    // Without one blank: no doubling.
    let s = state("d4", "a8", &[("e4", o(0)), ("h1", x(3))], "");
    assert_eq!(s.variant_score(), 110 - 3);
    // All discs one colour and no capture: no move, game over.
    let s = state("d4 e4", "", &[("a1", o(5))], "a1");
    assert!(s.is_over() && s.is_settled());
    // A tile whose lines are all closed is dead; the score is settled.
    let s = state("a1 h8 d4 e5", "c1 e4", &[("b1", x(4))], "b1");
    assert_eq!(s.dead_tiles(), bits("b1"));
    assert!(s.is_settled());
    // Stopping ends a game.
    let mut g = SoloGame::deal(&Layout::default(), 1);
    g.stop();
    assert!(g.is_over());
    assert_eq!(g.play(mv("x d3")), Err(SoloError::GameOver));
}

#[test]
fn sampled_deals_agree_with_what_was_seen() {
    let mut g = SoloGame::deal(&Layout::default(), 9);
    let mut p = RandomPlayer::new(9);
    for _ in 0..10 {
        if let Some(m) = p.choose(g.state()) {
            g.play(m).unwrap();
        }
    }
    let s = g.state();
    let mut rng = Rng::new(3);
    for _ in 0..50 {
        let d = Deal::sample(s, &mut rng);
        let mut hidden = [0u8; KINDS];
        for i in 0..64u8 {
            let q = Square::new(i).unwrap();
            match (s.tiles() >> i & 1 == 1, s.tile_at(q), d.at(q)) {
                (false, _, t) => assert_eq!(t, None),
                (true, Some(up), t) => assert_eq!(t, Some(up)),
                (true, None, Some(t)) => hidden[t.index()] += 1,
                (true, None, None) => panic!("no tile sampled on {q}"),
            }
        }
        assert_eq!(&hidden, s.hidden());
    }
}

// ---------------------------------------------------------------------------
// Players.

fn mean_score(
    games: std::ops::Range<u64>,
    mut make: impl FnMut(u64) -> Box<dyn SoloPlayer>,
) -> f64 {
    let n = games.end - games.start;
    let mut total = 0;
    for seed in games {
        let mut g = SoloGame::deal(&Layout::default(), seed);
        play_out(&mut g, make(seed).as_mut()).expect("the player made an illegal move");
        total += g.score(Objective::Tiles);
    }
    f64::from(total) / n as f64
}

#[test]
fn monte_carlo_beats_random_play() {
    let mc = |seed: u64| -> Box<dyn SoloPlayer> {
        Box::new(MonteCarlo::new(MonteCarloConfig {
            rollouts: 8,
            objective: Objective::Tiles,
            seed,
            ..MonteCarloConfig::default()
        }))
    };
    let mc_mean = mean_score(100..112, mc);
    let rnd_mean = mean_score(100..300, |s| Box::new(RandomPlayer::new(s)));
    // Measured: about 23 tiles against about 8.5; a margin of 6 tiles is
    // many standard errors wide.
    assert!(
        mc_mean >= rnd_mean + 6.0,
        "mc {mc_mean} vs random {rnd_mean}"
    );
}

#[test]
fn players_make_only_legal_moves_on_other_layouts() {
    let mut rng = Rng::new(77);
    for seed in 0..6 {
        let layout = random_layout(&mut rng);
        let mut g = SoloGame::deal(&layout, seed);
        let mut p = MonteCarlo::new(MonteCarloConfig {
            rollouts: 4,
            objective: if seed % 2 == 0 {
                Objective::Tiles
            } else {
                Objective::Variant
            },
            seed,
            ..MonteCarloConfig::default()
        });
        play_out(&mut g, &mut p).unwrap();
        // Stopped only when settled: nothing more could have been won.
        assert!(g.state().is_settled());
        let mut g = SoloGame::deal(&layout, seed);
        play_out(&mut g, &mut RandomPlayer::new(seed)).unwrap();
        assert!(g.state().is_settled());
    }
}

#[test]
fn monte_carlo_is_deterministic() {
    let run = || {
        let mut g = SoloGame::deal(&Layout::default(), 5);
        let cfg = MonteCarloConfig {
            rollouts: 4,
            ..MonteCarloConfig::default()
        };
        play_out(&mut g, &mut MonteCarlo::new(cfg)).unwrap();
        g.history().iter().map(|h| h.0).collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}

// ---------------------------------------------------------------------------
// The command line.

fn annex(args: &[&str], input: &str) -> (String, bool) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_annex"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (String::from_utf8(out.stdout).unwrap(), out.status.success())
}

#[test]
fn cli_batch_prints_each_game_and_the_mean() {
    let (out, ok) = annex(
        &["solo", "--games", "3", "--seed", "7", "--rollouts", "4"],
        "",
    );
    assert!(ok, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    let mut sum = 0u32;
    for (i, l) in lines[..3].iter().enumerate() {
        assert!(
            l.starts_with(&format!("game {} seed {}: ", i + 1, 7 + i)),
            "{l}"
        );
        let tiles: u32 = l
            .split(": ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(tiles <= 24);
        sum += tiles;
    }
    let mean = format!("mean {:.2} tiles", f64::from(sum) / 3.0);
    assert!(lines[3].starts_with(&mean), "{} vs {mean}", lines[3]);
    let (out, ok) = annex(&["solo", "--layout", "a1 b1"], "");
    assert!(!ok && out.is_empty());
}

#[test]
fn cli_interactive_answers_bad_input_and_ends_on_eof() {
    let input = "x d3\nx d3\nbanana\nx a1\nmoves\n";
    let (out, ok) = annex(&["solo", "--interactive", "--seed", "3"], input);
    assert!(ok, "{out}");
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 3, "{out}");
    assert!(out.contains("x d3: turns 1, wins -, reveals "), "{out}");
    // x d3 turned up c3; if it is an O tile, x b3 wins it (b3-c3-d3).
    let moves = out.lines().find(|l| l.starts_with("moves: ")).unwrap();
    let c3_is_o = out.contains("c3=o");
    assert_eq!(moves.contains("x b3"), c3_is_o, "{out}");
    assert!(
        out.trim_end()
            .ends_with("game over (end of input): 0 tiles, variant 0"),
        "{out}"
    );
    let (out, ok) = annex(&["solo", "--interactive"], "stop\n");
    assert!(
        ok && out
            .trim_end()
            .ends_with("game over (stopped): 0 tiles, variant 0")
    );
}
