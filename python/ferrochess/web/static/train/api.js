// The training requests (web/train.py's API), over a transport: the page's HTTP one
// (../play/api.js) or the notebook widget's comm (../play/widget.js). Every call names the player
// (../ui/player.js's id on the page, the widget's own in a notebook).
//
//   const api = trainApi(transport, player);
//   await api.next()                     -> {puzzle, card, rating, counts}, or null: none due
//   await api.attempt(id, solved, secs)  -> {card, rating, puzzle_rating, rated, counts} after it
//   await api.mine()                     -> {games, cards, left}: some of the player's games
//                                           searched for puzzles (asked again while left > 0)
//   await api.position(puzzle, moves)    -> the State (api/state) after `moves` from the puzzle's
//                                           position: the server judges every move
//
// A refusal rejects as the transport's ApiError does (../ui/errors.js words it).

import { startOf } from "../play/variant.js";

export const NEXT_PATH = "api/train/next";
export const ATTEMPT_PATH = "api/train/attempt";
export const MINE_PATH = "api/train/mine";
const STATE_PATH = "api/state";

export function trainApi(transport, player) {
  return {
    player,
    next() {
      return transport.request(`${NEXT_PATH}?player=${encodeURIComponent(player)}`);
    },
    attempt(puzzleId, solved, seconds = null) {
      const body = { player, puzzle: puzzleId, solved: Boolean(solved) };
      if (Number.isFinite(seconds) && seconds >= 0) body.seconds = seconds;
      return transport.request(ATTEMPT_PATH, body);
    },
    mine() {
      return transport.request(MINE_PATH, { player });
    },
    position(puzzle, moves) {
      return transport.request(STATE_PATH, { ...startOf({ fen: puzzle.fen, chess960: puzzle.chess960 === true }),
        moves: moves.slice() });
    },
  };
}
