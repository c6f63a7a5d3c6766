// The game handed on from the play page: as api/pgn's request (the PGN download), and to the
// analysis board ("Analyse", the contract's "Handoff from the play page"). It writes `{fen, moves, headers, review?, ply}` under one localStorage key and goes
// to the board's page, which reads the key, removes it and shows position `ply` of the game, with
// the review's evaluations and lines when one came along. Where nothing can be written (storage
// disabled or full), the board opens on the position alone (`?fen=`, the page's own query).
// The notebook widget has no such page: it is given no URL, and the buttons stay hidden.

import { clockSeconds, timeControlTag } from "./clock.js";
import { startOf } from "./variant.js";

export const HANDOFF_KEY = "ferrochess.analysis.handoff";

/** The players' names as the play page writes them in its PGN: `[white, black]`. */
export function playerNames(game) {
  const engine = `ferrochess level ${game.level}`;
  return game.human === "white" ? ["You", engine] : [engine, "You"];
}

/** api/pgn's request for `game`: the game, the players' names and, with a clock, its time control
 * and each move's clock. */
export function pgnRequest(game) {
  const [white, black] = playerNames(game);
  const body = { ...game.body(), white, black };
  const tag = timeControlTag(game.timeControl);
  if (tag && game.clock) {
    body.time_control = tag;
    body.clocks = clockSeconds(game.clock.history.slice(0, game.moves.length));
  }
  return body;
}

/** The game's PGN headers for the board: White, Black, Result (the server's, "*" while it goes
 * on) and, with a clock, TimeControl in seconds as the server's PGN writes it ("300+3"). */
export function gameHeaders(game) {
  const [white, black] = playerNames(game);
  const status = game.state && game.state.status;
  const headers = { White: white, Black: black, Result: status ? status.result : "*" };
  const tag = timeControlTag(game.timeControl);
  if (tag) headers.TimeControl = tag;
  return headers;
}

/** The handoff of `game` (game.js's PlayGame) at `ply`, with `review` (api/review's) if given. */
export function handoffOf(game, ply, review = null) {
  const handoff = { ...startOf(game), moves: game.moves.slice(), headers: gameHeaders(game) };
  if (review) handoff.review = review;
  handoff.ply = ply;
  return handoff;
}

/** Writes `handoff` in `storage` and goes to `url` through `navigate`; a review too large for the
 * storage is left behind (the board can analyse again), and with no storage at all the board gets
 * the position's `fen` in its URL. Returns whether the whole handoff was written. */
export function handOff({ storage, url, navigate, handoff, fen }) {
  const attempts = handoff.review ? [handoff, { ...handoff, review: undefined }] : [handoff];
  const written = attempts.findIndex((attempt) => {
    try {
      storage.setItem(HANDOFF_KEY, JSON.stringify(attempt));
      return true;
    } catch {
      return false; // storage disabled (null), full or refused: try with less, then without it
    }
  });
  navigate(written >= 0 ? url : `${url}${url.includes("?") ? "&" : "?"}fen=${encodeURIComponent(fen)}`);
  return written === 0;
}

/** Opens the analysis board at `url` on `game` (a PlayGame with its State) at the position after
 * `ply` plies (the last when null, clamped to the game), with `review` when one was made. */
export function openAnalysis({ game, ply, review, storage, url, navigate }) {
  const last = game.state.positions.length - 1;
  const at = Math.max(0, Math.min(last, ply ?? last));
  return handOff({ storage, url, navigate, handoff: handoffOf(game, at, review),
    fen: game.state.positions[at].fen });
}
