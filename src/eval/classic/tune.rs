//! Texel tuning: fits a chosen part of a [`ClassicWeights`] to positions labelled with their
//! games' results (or any expected score for White, such as a stronger engine's).
//!
//! The evaluation is linear in its weights, so each position is reduced once to what the chosen
//! weights multiply (its feature counts, [`Trace`], and its pieces) plus a fixed part (everything
//! the other weights add) and its phase. The tuner then fits the chosen weights by full-batch
//! gradient descent (Adam) on the mean squared error between the label and
//! `1 / (1 + 10^(-K * eval / 400))`, `K` fitted first with the starting weights, plus `regularize`
//! times the squared distance of each weight from its start (so a weight the positions say little
//! about stays where it was). Whole games are held out (a tenth by default, evenly spread) and their
//! error reported, so over-fitting shows: a game is a run of positions whose move numbers rise,
//! with one result, as files of games' positions list them.
//!
//! [`Tuner`] takes the positions one by one ([`Tuner::add`]) and runs ([`Tuner::run`]) with a
//! progress callback called after every epoch and a stop flag checked as often; a stopped run
//! returns the weights reached so far. The tools' `texel-tune` and the Python
//! `ferrochess.texel_tune` both drive it.

use shakmaty::{Chess, Color, Position as _, Role};

use super::phase;
use super::pst::MAX_PHASE;
use super::tapered::Tapered;
use super::terms::{Trace, add_terms};
use super::weights::{COUNT, ClassicWeights, MAX_WEIGHT, ROLE_NAMES, TERMS};
use crate::error::Error;
use crate::limits::StopFlag;

/// Tapered weights in the tuner's order: material (6), tables (6 x 64), terms ([`COUNT`]).
const TABLES_FIRST: usize = 6;
const TERMS_FIRST: usize = TABLES_FIRST + 6 * 64;
const SLOTS: usize = TERMS_FIRST + COUNT;
/// The tuner's numbers: each slot's middlegame and endgame value, then the tempo.
const TEMPO_PARAMETER: usize = 2 * SLOTS;
const PARAMETERS: usize = TEMPO_PARAMETER + 1;

/// Which weights a tuning run may change; the others stay as they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    slots: Vec<bool>,
    tempo: bool,
}

impl Default for Selection {
    /// The positional terms ([`Selection::terms`]).
    fn default() -> Selection {
        Selection::terms()
    }
}

impl Selection {
    /// Nothing.
    pub fn none() -> Selection {
        Selection {
            slots: vec![false; SLOTS],
            tempo: false,
        }
    }

    /// Every positional term's weights ([`TERMS`]).
    pub fn terms() -> Selection {
        let mut selection = Selection::none();
        selection.slots[TERMS_FIRST..].fill(true);
        selection
    }

    /// The weights `names` name, each one of: `"material"`, `"tables"`, `"terms"` (every
    /// positional term), `"tempo"`, `"<piece> material"` or `"<piece> table"` (`piece` one of
    /// pawn, knight, bishop, rook, queen, king) or a term's name from [`TERMS`]; case, `_` and
    /// `-` in place of spaces do not matter ("passed_pawn" names "passed pawn"). The error quotes
    /// an unknown name.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Selection, Error> {
        let mut selection = Selection::none();
        for name in names {
            let wanted = normalise(name.as_ref());
            if !selection.add(&wanted) {
                let terms: Vec<&str> = TERMS
                    .iter()
                    .filter(|term| term.len > 0)
                    .map(|term| term.name)
                    .collect();
                return Err(Error::argument(
                    "tune",
                    format!("'{}'", name.as_ref()),
                    format!(
                        "must be \"material\", \"tables\", \"terms\", \"tempo\", \"<piece> \
                         material\", \"<piece> table\" or a term: {}",
                        terms.join(", ")
                    ),
                ));
            }
        }
        Ok(selection)
    }

    /// Selects what `name` (normalised) names; false when it names nothing.
    fn add(&mut self, name: &str) -> bool {
        match name {
            "material" => self.slots[..TABLES_FIRST].fill(true),
            "tables" => self.slots[TABLES_FIRST..TERMS_FIRST].fill(true),
            "terms" => self.slots[TERMS_FIRST..].fill(true),
            "tempo" => self.tempo = true,
            _ => {
                for (role, piece) in ROLE_NAMES.iter().enumerate() {
                    if name == format!("{piece} material") {
                        self.slots[role] = true;
                        return true;
                    }
                    if name == format!("{piece} table") {
                        let first = TABLES_FIRST + 64 * role;
                        self.slots[first..first + 64].fill(true);
                        return true;
                    }
                }
                let Some(term) = TERMS
                    .iter()
                    .find(|term| term.len > 0 && normalise(term.name) == name)
                else {
                    return false;
                };
                let first = TERMS_FIRST + term.first;
                self.slots[first..first + term.len].fill(true);
            }
        }
        true
    }

    /// Whether nothing is selected.
    pub fn is_empty(&self) -> bool {
        !self.tempo && !self.slots.contains(&true)
    }

    /// The tuner's numbers this selection lets move.
    fn parameters(&self) -> Vec<usize> {
        let mut chosen: Vec<usize> = (0..SLOTS)
            .filter(|&slot| self.slots[slot])
            .flat_map(|slot| [2 * slot, 2 * slot + 1])
            .collect();
        if self.tempo {
            chosen.push(TEMPO_PARAMETER);
        }
        chosen
    }
}

/// Lower case, with `_` and `-` read as spaces.
fn normalise(name: &str) -> String {
    name.trim().to_lowercase().replace(['_', '-'], " ")
}

/// How a tuning run goes.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneSettings {
    /// Adam's steps, each over all the training positions.
    pub epochs: usize,
    /// Adam's step size, in centipawns.
    pub learning_rate: f64,
    /// The pull of each weight towards its start: this times the squared distance is added to
    /// the error.
    pub regularize: f64,
    /// The weights that may change.
    pub selection: Selection,
    /// The share of the games held out for validation, 0 to below 1: whole games, evenly spread
    /// (see [`Tuner::add`] for what a game is).
    pub validation: f64,
    /// The sigmoid's scale; `None` fits it to the positions with the starting weights.
    pub k: Option<f64>,
}

impl Default for TuneSettings {
    /// 3000 epochs at 1 cp, no regularisation, the positional terms, 10% held out, `K` fitted.
    fn default() -> TuneSettings {
        TuneSettings {
            epochs: 3000,
            learning_rate: 1.0,
            regularize: 0.0,
            selection: Selection::terms(),
            validation: 0.1,
            k: None,
        }
    }
}

impl TuneSettings {
    /// The settings, or an error naming the first one out of range.
    fn check(&self) -> Result<(), Error> {
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(Error::argument(
                "learning_rate",
                self.learning_rate,
                "must be a positive number",
            ));
        }
        if !(self.regularize.is_finite() && self.regularize >= 0.0) {
            return Err(Error::argument(
                "regularize",
                self.regularize,
                "must be a number at least 0",
            ));
        }
        if !(0.0..1.0).contains(&self.validation) {
            return Err(Error::argument(
                "validation",
                self.validation,
                "must be at least 0 and below 1",
            ));
        }
        if let Some(k) = self.k
            && !(k.is_finite() && k > 0.0)
        {
            return Err(Error::argument("k", k, "must be a positive number"));
        }
        if self.selection.is_empty() {
            return Err(Error::argument("tune", "[]", "selects no weight to tune"));
        }
        Ok(())
    }
}

/// Where a run stands after an epoch.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Progress {
    /// Epochs done, 1 to `epochs`.
    pub epoch: usize,
    /// Epochs asked for.
    pub epochs: usize,
    /// The error on the training positions with the weights reached (unrounded).
    pub train_loss: f64,
    /// The same on the held-out positions (`None`: none held out).
    pub validation_loss: Option<f64>,
}

/// What a run gives.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneOutcome {
    /// The weights reached, rounded to centipawns (the start's when no epoch ran).
    pub weights: ClassicWeights,
    /// The sigmoid's scale used.
    pub k: f64,
    pub train_positions: usize,
    pub validation_positions: usize,
    /// The error on the training positions with the starting weights.
    pub loss_before: f64,
    /// The same with [`TuneOutcome::weights`].
    pub loss_after: f64,
    /// The error on the held-out positions with the starting weights (`None`: none held out).
    pub validation_before: Option<f64>,
    /// The same with [`TuneOutcome::weights`].
    pub validation_after: Option<f64>,
    /// Epochs done.
    pub epochs_run: usize,
    /// The run was stopped (stop flag or callback) before all its epochs ran.
    pub cancelled: bool,
}

/// One position reduced to what the tuned weights multiply.
struct Sample {
    /// What the weights that are not tuned add: (middlegame, endgame), White's point of view.
    fixed: (f64, f64),
    /// Added after blending: the tempo when it is not tuned, White's point of view.
    constant: f64,
    /// +1 White to move, -1 Black, 0 when the tempo is not tuned.
    tempo_sign: f64,
    /// Middlegame share, 0 to 1.
    middlegame_share: f64,
    /// Its features in [`Tuner::features`]: `first..end`.
    first: usize,
    end: usize,
    /// White's expected score, 0 to 1.
    result: f64,
    /// The game it comes from, counted from 0 (see [`Tuner::add`]).
    game: usize,
}

/// One feature of a sample: a tuned slot and its count (White's minus Black's).
#[derive(Copy, Clone, Debug)]
struct Feature {
    slot: u16,
    count: i16,
}

/// A tuning run: the starting weights, the settings, and the positions added so far.
pub struct Tuner {
    start: ClassicWeights,
    settings: TuneSettings,
    samples: Vec<Sample>,
    features: Vec<Feature>,
    /// The ply and the result of the last position added: a position that is not later in the
    /// game, or has another result, starts a new game.
    last: Option<(u32, f64)>,
    games: usize,
}

impl Tuner {
    /// A run from `start` with `settings`; the error names a setting out of range.
    pub fn new(start: &ClassicWeights, settings: TuneSettings) -> Result<Tuner, Error> {
        settings.check()?;
        Ok(Tuner {
            start: start.clone(),
            settings,
            samples: Vec::new(),
            features: Vec::new(),
            last: None,
            games: 0,
        })
    }

    /// How many positions were added.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether no position was added.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Adds `board`, labelled `result`: White's expected score, 0 to 1 (a game's result: 1, 0.5
    /// or 0); the error quotes a label out of range. Positions of one game are added in the
    /// order of the game: a position whose ply is not after the previous one's, or whose result
    /// differs, starts a new game (validation holds out whole games).
    pub fn add(&mut self, board: &Chess, result: f64) -> Result<(), Error> {
        if !(0.0..=1.0).contains(&result) {
            return Err(Error::argument(
                "result",
                result,
                "must be White's score, between 0 and 1",
            ));
        }
        let selection = &self.settings.selection;
        let mut counts = [0i32; SLOTS];
        for color in Color::ALL {
            let sign = if color == Color::White { 1 } else { -1 };
            let ours = board.board().by_color(color);
            for role in Role::ALL {
                for square in board.board().by_role(role) & ours {
                    let role = role as usize - 1;
                    // A Black piece reads its table on the square mirrored vertically.
                    let square = match color {
                        Color::White => square as usize,
                        Color::Black => square as usize ^ 56,
                    };
                    counts[role] += sign;
                    counts[TABLES_FIRST + 64 * role + square] += sign;
                }
            }
        }
        let mut trace = Trace::default();
        add_terms(board.board(), &mut trace);
        counts[TERMS_FIRST..].copy_from_slice(&trace.0);
        let first = self.features.len();
        let mut fixed = Tapered::default();
        for (slot, &count) in counts.iter().enumerate().filter(|(_, count)| **count != 0) {
            if selection.slots[slot] {
                self.features.push(Feature {
                    slot: slot as u16,
                    count: count.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
                });
            } else {
                fixed += slot_value(&self.start, slot) * count;
            }
        }
        let turn = match board.turn() {
            Color::White => 1.0,
            Color::Black => -1.0,
        };
        let tempo = f64::from(self.start.tempo()) * turn;
        let ply = 2 * (board.fullmoves().get() - 1) + u32::from(board.turn() == Color::Black);
        if let Some((last_ply, last_result)) = self.last
            && (ply <= last_ply || last_result != result)
        {
            self.games += 1;
        }
        self.last = Some((ply, result));
        self.samples.push(Sample {
            fixed: (f64::from(fixed.middlegame), f64::from(fixed.endgame)),
            constant: if selection.tempo { 0.0 } else { tempo },
            tempo_sign: if selection.tempo { turn } else { 0.0 },
            middlegame_share: f64::from(phase(board).min(MAX_PHASE)) / f64::from(MAX_PHASE),
            first,
            end: self.features.len(),
            result,
            game: self.games,
        });
        Ok(())
    }

    /// Fits the selected weights, calling `on_epoch` after every epoch (it returns false to stop)
    /// and stopping as soon as `stop` is set; the error says there are no training positions.
    pub fn run(
        self,
        stop: &StopFlag,
        on_epoch: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<TuneOutcome, Error> {
        let Tuner {
            start,
            settings,
            samples,
            features,
            ..
        } = self;
        let (train, validation) = split(samples, settings.validation);
        if train.is_empty() {
            return Err(Error::argument(
                "positions",
                train.len(),
                "no position to tune on",
            ));
        }
        let train = Set {
            samples: &train,
            features: &features,
        };
        let validation = Set {
            samples: &validation,
            features: &features,
        };
        let start_parameters = parameters_of(&start);
        let k = settings
            .k
            .unwrap_or_else(|| fit_k(&train, &start_parameters));
        let loss_before = train.loss(&start_parameters, k);
        let validation_before = validation.loss_if_any(&start_parameters, k);

        let chosen = settings.selection.parameters();
        let mut parameters = start_parameters.clone();
        let mut adam = Adam::new(settings.learning_rate);
        let mut epochs_run = 0;
        let mut cancelled = false;
        for epoch in 1..=settings.epochs {
            if stop.is_stopped() {
                cancelled = true;
                break;
            }
            let (loss, mut gradient) = train.gradient(&parameters, k);
            // The loss of the weights the previous epoch reached came with this gradient.
            if epoch > 1 {
                let progress = Progress {
                    epoch: epoch - 1,
                    epochs: settings.epochs,
                    train_loss: loss,
                    validation_loss: validation.loss_if_any(&parameters, k),
                };
                if !on_epoch(&progress) || stop.is_stopped() {
                    cancelled = true;
                    break;
                }
            }
            for &index in &chosen {
                gradient[index] +=
                    2.0 * settings.regularize * (parameters[index] - start_parameters[index]);
            }
            adam.step(&mut parameters, &gradient, &chosen);
            epochs_run = epoch;
        }
        if !cancelled && epochs_run > 0 {
            let progress = Progress {
                epoch: epochs_run,
                epochs: settings.epochs,
                train_loss: train.loss(&parameters, k),
                validation_loss: validation.loss_if_any(&parameters, k),
            };
            on_epoch(&progress);
        }
        let weights = weights_of(&start, &parameters);
        let rounded = parameters_of(&weights);
        Ok(TuneOutcome {
            k,
            train_positions: train.samples.len(),
            validation_positions: validation.samples.len(),
            loss_before,
            loss_after: train.loss(&rounded, k),
            validation_before,
            validation_after: validation.loss_if_any(&rounded, k),
            epochs_run,
            cancelled,
            weights,
        })
    }
}

/// The weight of tuner slot `slot` in `weights`.
fn slot_value(weights: &ClassicWeights, slot: usize) -> Tapered {
    if slot < TABLES_FIRST {
        weights.material()[slot]
    } else if slot < TERMS_FIRST {
        let table = slot - TABLES_FIRST;
        weights.tables()[table / 64][table % 64]
    } else {
        weights.terms()[slot - TERMS_FIRST]
    }
}

/// The tuner's numbers for `weights`.
fn parameters_of(weights: &ClassicWeights) -> Vec<f64> {
    let mut parameters = vec![0.0; PARAMETERS];
    for slot in 0..SLOTS {
        let value = slot_value(weights, slot);
        parameters[2 * slot] = f64::from(value.middlegame);
        parameters[2 * slot + 1] = f64::from(value.endgame);
    }
    parameters[TEMPO_PARAMETER] = f64::from(weights.tempo());
    parameters
}

/// `parameters` rounded to centipawns and kept within [`MAX_WEIGHT`], as weights.
fn weights_of(start: &ClassicWeights, parameters: &[f64]) -> ClassicWeights {
    let round = |value: f64| {
        value
            .round()
            .clamp(-f64::from(MAX_WEIGHT), f64::from(MAX_WEIGHT)) as i32
    };
    let tapered = |slot: usize| Tapered {
        middlegame: round(parameters[2 * slot]),
        endgame: round(parameters[2 * slot + 1]),
    };
    let material = std::array::from_fn(tapered);
    let tables = std::array::from_fn(|role| {
        std::array::from_fn(|square| tapered(TABLES_FIRST + 64 * role + square))
    });
    let terms = std::array::from_fn(|index| tapered(TERMS_FIRST + index));
    ClassicWeights::new(material, tables, terms, round(parameters[TEMPO_PARAMETER]))
        .unwrap_or_else(|_| start.clone())
}

/// Splits `samples` into training and validation: the share `validation` of the games, evenly
/// spread (game `g` is held out when `floor((g + 1) v) > floor(g v)`), so that no held-out
/// position has a position of its game in training.
fn split(samples: Vec<Sample>, validation: f64) -> (Vec<Sample>, Vec<Sample>) {
    let held_out = |game: usize| {
        let game = game as f64;
        ((game + 1.0) * validation).floor() > (game * validation).floor()
    };
    let (mut train, mut held) = (Vec::new(), Vec::new());
    for sample in samples {
        if held_out(sample.game) {
            held.push(sample);
        } else {
            train.push(sample);
        }
    }
    (train, held)
}

fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

/// Samples and the features they point into.
struct Set<'a> {
    samples: &'a [Sample],
    features: &'a [Feature],
}

impl Set<'_> {
    /// The evaluation of `sample` with `parameters`, White's point of view.
    #[inline]
    fn evaluate(&self, sample: &Sample, parameters: &[f64]) -> f64 {
        let (mut middlegame, mut endgame) = sample.fixed;
        for feature in &self.features[sample.first..sample.end] {
            let slot = usize::from(feature.slot);
            let count = f64::from(feature.count);
            middlegame += parameters[2 * slot] * count;
            endgame += parameters[2 * slot + 1] * count;
        }
        middlegame * sample.middlegame_share
            + endgame * (1.0 - sample.middlegame_share)
            + sample.constant
            + sample.tempo_sign * parameters[TEMPO_PARAMETER]
    }

    /// The mean squared error of the predictions.
    fn loss(&self, parameters: &[f64], k: f64) -> f64 {
        let total: f64 = self
            .samples
            .iter()
            .map(|s| (s.result - sigmoid(k, self.evaluate(s, parameters))).powi(2))
            .sum();
        total / self.samples.len() as f64
    }

    /// [`Set::loss`], or `None` for an empty set.
    fn loss_if_any(&self, parameters: &[f64], k: f64) -> Option<f64> {
        (!self.samples.is_empty()).then(|| self.loss(parameters, k))
    }

    /// The loss and its gradient with respect to every parameter.
    fn gradient(&self, parameters: &[f64], k: f64) -> (f64, Vec<f64>) {
        let mut gradient = vec![0.0; PARAMETERS];
        let mut total = 0.0;
        let scale = 2.0 / self.samples.len() as f64;
        let ln10 = std::f64::consts::LN_10;
        for s in self.samples {
            let p = sigmoid(k, self.evaluate(s, parameters));
            total += (s.result - p).powi(2);
            // d(error)/d(eval) for one sample.
            let slope = scale * (p - s.result) * p * (1.0 - p) * k * ln10 / 400.0;
            let share = s.middlegame_share;
            for feature in &self.features[s.first..s.end] {
                let slot = usize::from(feature.slot);
                let count = f64::from(feature.count);
                gradient[2 * slot] += slope * count * share;
                gradient[2 * slot + 1] += slope * count * (1.0 - share);
            }
            gradient[TEMPO_PARAMETER] += slope * s.tempo_sign;
        }
        (total / self.samples.len() as f64, gradient)
    }
}

/// The `K` that minimises the error with `parameters` (a scan refined three times).
fn fit_k(set: &Set<'_>, parameters: &[f64]) -> f64 {
    let (mut low, mut high, mut best) = (0.1, 3.0, 1.0);
    for _ in 0..4 {
        let step = (high - low) / 20.0;
        best = (0..=20)
            .map(|i| low + step * f64::from(i))
            .map(|k| (k, set.loss(parameters, k)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map_or(best, |(k, _)| k);
        (low, high) = ((best - step).max(0.01), best + step);
    }
    best
}

/// Adam's state: the moment estimates of every parameter.
struct Adam {
    rate: f64,
    first: Vec<f64>,
    second: Vec<f64>,
    steps: i32,
}

impl Adam {
    const BETA1: f64 = 0.9;
    const BETA2: f64 = 0.999;

    fn new(rate: f64) -> Adam {
        Adam {
            rate,
            first: vec![0.0; PARAMETERS],
            second: vec![0.0; PARAMETERS],
            steps: 0,
        }
    }

    /// One step down `gradient` for the parameters `chosen`.
    fn step(&mut self, parameters: &mut [f64], gradient: &[f64], chosen: &[usize]) {
        self.steps = self.steps.saturating_add(1);
        let correction1 = 1.0 - Self::BETA1.powi(self.steps);
        let correction2 = 1.0 - Self::BETA2.powi(self.steps);
        for &index in chosen {
            let g = gradient[index];
            let m = &mut self.first[index];
            let v = &mut self.second[index];
            *m = Self::BETA1 * *m + (1.0 - Self::BETA1) * g;
            *v = Self::BETA2 * *v + (1.0 - Self::BETA2) * g * g;
            parameters[index] -=
                self.rate * (*m / correction1) / ((*v / correction2).sqrt() + 1e-12);
        }
    }
}

/// One line of a positions file: `FEN | score | result` (the self-play data's format; the score
/// is ignored) or `FEN;RESULT` (the Texel positions' format). The result is White's: `1`, `0.5`,
/// `0` (or any score between), or `1-0`, `1/2-1/2`, `0-1`. Blank lines and lines starting with
/// `#` give `None`; the error quotes a line with no result or a result out of range.
pub fn parse_line(line: &str) -> Result<Option<(&str, f64)>, Error> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let (fen, result) = if let Some((fen, rest)) = line.split_once('|') {
        (fen, rest.rsplit('|').next().unwrap_or(rest))
    } else if let Some((fen, result)) = line.rsplit_once(';') {
        (fen, result)
    } else {
        return Err(Error::argument(
            "position",
            format!("'{line}'"),
            "has no result: 'FEN | score | result' or 'FEN;RESULT' expected",
        ));
    };
    let result = parse_result(result.trim()).ok_or_else(|| {
        Error::argument(
            "position",
            format!("'{line}'"),
            "its result must be 1, 0.5 or 0 (or between), 1-0, 1/2-1/2 or 0-1",
        )
    })?;
    Ok(Some((fen.trim(), result)))
}

/// White's score written as a number from 0 to 1 or as a game result.
fn parse_result(text: &str) -> Option<f64> {
    match text {
        "1-0" => Some(1.0),
        "1/2-1/2" => Some(0.5),
        "0-1" => Some(0.0),
        _ => text
            .parse::<f64>()
            .ok()
            .filter(|value| (0.0..=1.0).contains(value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::classic::{DEFAULT_WEIGHTS, evaluate_with, weights};
    use crate::position::parse_fen;

    /// Positions where a lone extra piece of `role` decides the game for its side, and equal
    /// ones drawn: a synthetic set whose labels any sensible weights agree with.
    fn synthetic(tuner: &mut Tuner) {
        let fens = [
            ("4k3/8/8/8/8/8/3N4/4K3 w - - 0 1", 0.8),
            ("4k3/3n4/8/8/8/8/8/4K3 w - - 0 1", 0.2),
            ("4k3/8/8/8/8/8/3B4/4K3 b - - 0 1", 0.8),
            ("4k3/3b4/8/8/8/8/8/4K3 b - - 0 1", 0.2),
            ("4k3/8/8/8/8/8/3R4/4K3 w - - 0 1", 0.95),
            ("4k3/3r4/8/8/8/8/8/4K3 b - - 0 1", 0.05),
            ("4k3/3p4/8/8/8/8/3P4/4K3 w - - 0 1", 0.5),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 0.5),
        ];
        for _ in 0..20 {
            for (fen, result) in fens {
                tuner.add(&parse_fen(fen).unwrap(), result).unwrap();
            }
        }
    }

    #[test]
    fn names_select_weights() {
        let selection = Selection::from_names(&[
            "Passed_Pawn",
            "knight table",
            "tempo",
            "rook-semi-open file",
        ])
        .unwrap();
        let chosen = selection.parameters();
        let passed = TERMS_FIRST + weights::PASSED_PAWN;
        assert!(chosen.contains(&(2 * passed)) && chosen.contains(&(2 * (passed + 7) + 1)));
        assert!(chosen.contains(&(2 * (TABLES_FIRST + 64))));
        assert!(
            !chosen.contains(&(2 * TABLES_FIRST)),
            "the pawn table is not chosen"
        );
        assert!(chosen.contains(&TEMPO_PARAMETER));
        assert!(chosen.contains(&(2 * (TERMS_FIRST + weights::ROOK_SEMI_OPEN_FILE))));
        assert_eq!(
            Selection::from_names(&["terms"]).unwrap(),
            Selection::terms()
        );
        let error = Selection::from_names(&["knights"]).unwrap_err();
        assert!(error.to_string().contains("'knights'"), "{error}");
        assert!(Selection::from_names::<&str>(&[]).unwrap().is_empty());
    }

    #[test]
    fn features_and_fixed_part_give_the_engine_s_evaluation() {
        // With everything tuned, the sample is all features; with nothing but the tempo tuned,
        // all fixed: both must evaluate as the engine does, up to its integer blend.
        for names in [vec!["material", "tables", "terms", "tempo"], vec!["tempo"]] {
            let settings = TuneSettings {
                selection: Selection::from_names(&names).unwrap(),
                ..TuneSettings::default()
            };
            let mut tuner = Tuner::new(&DEFAULT_WEIGHTS, settings).unwrap();
            let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3";
            let board = parse_fen(fen).unwrap();
            tuner.add(&board, 0.5).unwrap();
            let set = Set {
                samples: &tuner.samples,
                features: &tuner.features,
            };
            let white = set.evaluate(&tuner.samples[0], &parameters_of(&DEFAULT_WEIGHTS));
            let engine = -evaluate_with(&board, &DEFAULT_WEIGHTS).value();
            assert!(
                (white - f64::from(engine)).abs() <= 1.0,
                "{names:?}: {white} vs {engine}"
            );
        }
    }

    #[test]
    fn tuning_lowers_the_error_and_reports_every_epoch() {
        let mut start = DEFAULT_WEIGHTS.clone();
        // Start from minor pieces worth nothing, so the positions have something to teach.
        let mut material = *start.material();
        material[1] = Tapered::default();
        material[2] = Tapered::default();
        start =
            ClassicWeights::new(material, *start.tables(), *start.terms(), start.tempo()).unwrap();
        let settings = TuneSettings {
            epochs: 200,
            learning_rate: 5.0,
            selection: Selection::from_names(&["material"]).unwrap(),
            validation: 0.1,
            k: Some(1.0),
            ..TuneSettings::default()
        };
        let mut tuner = Tuner::new(&start, settings).unwrap();
        synthetic(&mut tuner);
        assert_eq!(tuner.len(), 160);
        let mut seen = Vec::new();
        let outcome = tuner
            .run(&StopFlag::new(), &mut |progress| {
                seen.push(*progress);
                true
            })
            .unwrap();
        assert_eq!(outcome.epochs_run, 200);
        assert!(!outcome.cancelled);
        assert_eq!(seen.len(), 200);
        assert_eq!(
            seen.iter().map(|p| p.epoch).collect::<Vec<_>>(),
            (1..=200).collect::<Vec<_>>()
        );
        assert!(seen.iter().all(|p| p.validation_loss.is_some()));
        assert_eq!(outcome.train_positions + outcome.validation_positions, 160);
        assert!(outcome.validation_positions > 0);
        assert!(
            outcome.loss_after < outcome.loss_before / 2.0,
            "{} -> {}",
            outcome.loss_before,
            outcome.loss_after
        );
        let knight = outcome.weights.material()[1];
        assert!(knight.middlegame > 50 && knight.endgame > 50, "{knight:?}");
        // What was not selected did not move.
        assert_eq!(outcome.weights.tables(), start.tables());
        assert_eq!(outcome.weights.terms(), start.terms());
        assert_eq!(outcome.weights.tempo(), start.tempo());
    }

    #[test]
    fn a_stopped_run_returns_the_weights_so_far() {
        let settings = TuneSettings {
            epochs: 1000,
            k: Some(1.0),
            ..TuneSettings::default()
        };
        let mut tuner = Tuner::new(&DEFAULT_WEIGHTS, settings).unwrap();
        synthetic(&mut tuner);
        let stop = StopFlag::new();
        let outcome = tuner
            .run(&stop, &mut |progress| {
                if progress.epoch == 5 {
                    stop.stop();
                }
                true
            })
            .unwrap();
        assert!(outcome.cancelled);
        assert_eq!(outcome.epochs_run, 5);
        let stopped = StopFlag::new();
        stopped.stop();
        let mut tuner = Tuner::new(&DEFAULT_WEIGHTS, TuneSettings::default()).unwrap();
        synthetic(&mut tuner);
        let outcome = tuner.run(&stopped, &mut |_| true).unwrap();
        assert!(outcome.cancelled);
        assert_eq!(outcome.epochs_run, 0);
        assert_eq!(outcome.weights, DEFAULT_WEIGHTS);
        assert_eq!(outcome.loss_after, outcome.loss_before);
    }

    #[test]
    fn bad_settings_and_labels_are_refused() {
        let bad = |settings: TuneSettings| Tuner::new(&DEFAULT_WEIGHTS, settings).err();
        let error = bad(TuneSettings {
            validation: 1.0,
            ..TuneSettings::default()
        });
        assert!(error.unwrap().to_string().contains("validation"));
        assert!(
            bad(TuneSettings {
                learning_rate: 0.0,
                ..TuneSettings::default()
            })
            .is_some()
        );
        assert!(
            bad(TuneSettings {
                selection: Selection::none(),
                ..TuneSettings::default()
            })
            .is_some()
        );
        let mut tuner = Tuner::new(&DEFAULT_WEIGHTS, TuneSettings::default()).unwrap();
        let board = parse_fen(crate::position::START_FEN).unwrap();
        assert!(tuner.add(&board, 1.5).is_err());
        let outcome = tuner.run(&StopFlag::new(), &mut |_| true);
        assert!(outcome.unwrap_err().to_string().contains("no position"));
    }

    #[test]
    fn split_holds_out_whole_games_evenly_spread() {
        let sample = |game: usize| Sample {
            fixed: (0.0, 0.0),
            constant: 0.0,
            tempo_sign: 0.0,
            middlegame_share: 0.0,
            first: 0,
            end: 0,
            result: 0.5,
            game,
        };
        // 1,000 games of 7 positions: a tenth of the games held out, none split.
        let samples = (0..7_000).map(|index| sample(index / 7)).collect();
        let (train, held) = split(samples, 0.1);
        assert_eq!((train.len(), held.len()), (6_300, 700));
        let held_games: std::collections::HashSet<usize> = held.iter().map(|s| s.game).collect();
        assert_eq!(held_games.len(), 100);
        assert!(train.iter().all(|s| !held_games.contains(&s.game)));
        // Spread evenly: every tenth game.
        assert!(
            held_games.iter().all(|game| game % 10 == 9),
            "{held_games:?}"
        );
        let (train, held) = split((0..100).map(sample).collect(), 0.0);
        assert_eq!((train.len(), held.len()), (100, 0));
    }

    #[test]
    fn a_game_is_a_run_of_rising_plies_with_one_result() {
        let mut tuner = Tuner::new(&ClassicWeights::default(), TuneSettings::default()).unwrap();
        let fens = [
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                1.0,
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
                1.0,
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
                1.0,
            ),
            // the same ply count again: a new game
            (
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
                1.0,
            ),
            // later, but another result: a new game
            (
                "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                0.0,
            ),
        ];
        for (fen, result) in fens {
            tuner
                .add(&crate::position::parse_fen(fen).unwrap(), result)
                .unwrap();
        }
        let games: Vec<usize> = tuner.samples.iter().map(|s| s.game).collect();
        assert_eq!(games, [0, 0, 0, 1, 2]);
    }

    #[test]
    fn lines_of_both_formats_parse() {
        let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(
            parse_line(&format!("{fen} | -60 | 0.0")).unwrap(),
            Some((fen, 0.0))
        );
        assert_eq!(parse_line(&format!("{fen};0.5")).unwrap(), Some((fen, 0.5)));
        assert_eq!(
            parse_line(&format!("{fen}; 1-0\n")).unwrap(),
            Some((fen, 1.0))
        );
        assert_eq!(parse_line("  ").unwrap(), None);
        assert_eq!(parse_line("# comment").unwrap(), None);
        assert!(
            parse_line(fen)
                .unwrap_err()
                .to_string()
                .contains("no result")
        );
        assert!(parse_line(&format!("{fen};2")).is_err());
    }
}
