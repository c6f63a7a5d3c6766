//! Playing at a level: [`Player`] wraps [`Searcher::think`]. The search plays the position it is
//! given to the limits it is given; the player sets those limits from a [`Strength`] (its depth
//! and node caps) and picks the move among the lines the search found ([`Strength::choose`]).
//! The book and the tablebases answer as they do at full strength: only a search is weakened.

use crate::error::Error;
use crate::limits::StopFlag;
use crate::position::Position;
use crate::random::Random;
use crate::search::{Decision, SearchObserver, SearchRequest, Searcher};

use super::strength::Strength;

/// Plays at a strength, with its own randomness for the choices of the weakened levels (seeded:
/// the same seed, position and searcher settings give the same choices).
#[derive(Clone, Debug)]
pub struct Player {
    random: Random,
}

impl Player {
    /// A player whose choices follow `seed` (`None`: different every time).
    pub fn new(seed: Option<u64>) -> Player {
        Player {
            random: seed.map_or_else(Random::from_entropy, Random::seeded),
        }
    }

    /// What `searcher` makes of `position` for `request` ([`Searcher::think`]), played at
    /// `strength` (`None`: full strength). With a strength the search is capped by it and
    /// searches as many lines as it chooses among ([`Strength::candidates`]); the chosen line is
    /// put first and the decision keeps `request.multipv` lines.
    pub fn think(
        &mut self,
        searcher: &mut Searcher,
        position: &mut Position,
        request: &SearchRequest,
        strength: Option<&Strength>,
        stop: &StopFlag,
        observer: &mut dyn SearchObserver,
    ) -> Result<Decision, Error> {
        let Some(strength) = strength else {
            return searcher.think(position, request, stop, observer);
        };
        let weakened = SearchRequest {
            limits: strength.cap(&request.limits),
            candidates: request.candidates.max(strength.candidates),
            ..request.clone()
        };
        let mut decision = searcher.think(position, &weakened, stop, observer)?;
        if let Decision::Search(info) = &mut decision
            && !info.lines.is_empty()
        {
            let chosen = strength.choose(&info.lines, &mut self.random);
            let line = info.lines.remove(chosen);
            info.lines.insert(0, line);
            info.lines.truncate(request.multipv);
        }
        Ok(decision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::LEVELS;
    use crate::limits::SearchLimits;
    use crate::search::Silent;

    const MIDDLEGAME: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";

    fn think(player: &mut Player, strength: Option<&Strength>, multipv: usize) -> Decision {
        let mut searcher = Searcher::new(16).unwrap();
        let mut position = Position::from_fen(MIDDLEGAME).unwrap();
        let request = SearchRequest {
            limits: SearchLimits::depth(6),
            multipv,
            ..SearchRequest::default()
        };
        let stop = StopFlag::new();
        player
            .think(
                &mut searcher,
                &mut position,
                &request,
                strength,
                &stop,
                &mut Silent,
            )
            .unwrap()
    }

    #[test]
    fn a_level_caps_the_search_and_chooses_among_its_candidates() {
        let level_1 = LEVELS[0].strength;
        let mut player = Player::new(Some(3));
        let info = think(&mut player, Some(&level_1), 1).into_search().unwrap();
        assert_eq!(info.lines.len(), 1, "the request's one line");
        assert!(info.depth <= level_1.max_depth.unwrap(), "{}", info.depth);
        // Over many seeds the choice varies among the candidates, as level 1's should.
        let chosen: std::collections::HashSet<_> = (0..12)
            .map(|seed| {
                let mut player = Player::new(Some(seed));
                think(&mut player, Some(&level_1), 1).best_move()
            })
            .collect();
        assert!(chosen.len() > 1, "{chosen:?}");
        // The same seed chooses the same.
        let again = |seed| think(&mut Player::new(Some(seed)), Some(&level_1), 1).best_move();
        assert_eq!(again(5), again(5));
    }

    #[test]
    fn at_full_strength_the_player_is_the_search() {
        let mut player = Player::new(Some(1));
        let played = think(&mut player, None, 2).into_search().unwrap();
        let full = think(&mut player, Some(&Strength::FULL), 2)
            .into_search()
            .unwrap();
        let mut searcher = Searcher::new(16).unwrap();
        let mut position = Position::from_fen(MIDDLEGAME).unwrap();
        let request = SearchRequest {
            limits: SearchLimits::depth(6),
            multipv: 2,
            ..SearchRequest::default()
        };
        let direct = searcher
            .think(&mut position, &request, &StopFlag::new(), &mut Silent)
            .unwrap()
            .into_search()
            .unwrap();
        for info in [&played, &full] {
            assert_eq!(info.lines, direct.lines);
            assert_eq!(info.nodes, direct.nodes);
        }
    }
}
