// What the review's modules share: pure helpers on the server's Review (exported for tests through
// review.js), its button and its scrolling. Scores, move numbers, errors, elements and the words
// for a judged move are the UI kit's (../ui/). Nothing here decides what is legal:
// every number comes from the server (analyse_game's result).

import { el } from "../ui/dom.js";
import { moveNumber } from "../ui/moves.js";

/** @typedef {({cp: number} | {mate: number, mated?: string}) & {tablebase?: string}} Score */
/** @typedef {{ply: number, color: "white"|"black", move: string, san: string,
 *   eval_before: Score, eval_after: Score, best_move: string|null, best_san: string|null,
 *   best_line: string[], win_before: number, win_after: number, accuracy: number,
 *   judgement: null|"inaccuracy"|"mistake"|"blunder", explanation: string|null}} ReviewedMove */

export { GLYPHS, JUDGEMENT_NAMES, JUDGEMENT_ORDER } from "../ui/judgement.js";

/** White's winning percentage (0-100) after each ply, index 0 the start: from the mover's
 * `win_before`/`win_after` that the server computed (lichess's formula, not repeated here). */
export function whitePercents(moves) {
  if (!moves.length) return [];
  const white = (move, percent) => (move.color === "white" ? percent : 100 - percent);
  return [white(moves[0], moves[0].win_before), ...moves.map((m) => white(m, m.win_after))];
}

/** What the review says of the position after `ply` plies (clamped to the game): `{ply, score,
 * bestMove, bestSan, line}`, the score White's view (the start's is the first move's
 * eval_before, any other the eval_after of the move that led there), the best move and line those
 * of the move played from it (none after the last move); null without reviewed moves. */
export function reviewedPosition(review, ply) {
  const moves = review && Array.isArray(review.moves) ? review.moves : [];
  if (!moves.length) return null;
  const at = Math.max(0, Math.min(moves.length, Number.isInteger(ply) ? ply : moves.length));
  const next = moves[at]; // the move played from this position: its best_* are this position's
  return {
    ply: at,
    score: at === 0 ? moves[0].eval_before : moves[at - 1].eval_after,
    bestMove: next ? next.best_move : null,
    bestSan: next ? next.best_san : null,
    line: next && Array.isArray(next.best_line) ? next.best_line : [],
  };
}

/** The human's moves to learn from: mistakes and blunders, or the inaccuracies when there are
 * none of those (lichess's "learn from your mistakes"), in the order they were played. */
export function lessonsOf(moves, human) {
  const own = moves.filter((m) => m.color === human && m.judgement && hasBetter(m));
  const serious = own.filter((m) => m.judgement === "mistake" || m.judgement === "blunder");
  return serious.length ? serious : own.filter((m) => m.judgement === "inaccuracy");
}

/** Whether the review names a better move than the one played (a node-limited search can score
 * the engine's own best move as a small drop: there is nothing better to show or to find then). */
export function hasBetter(move) {
  return Boolean(move.best_move && move.best_san && move.best_move !== move.move);
}

/** The ply a reviewed move was played from (ui/moves.js's count), the game starting at move
 * `startNumber` with `firstColor` to move. */
export function plyOf(move, startNumber, firstColor) {
  return (startNumber - 1) * 2 + (firstColor === "black" ? 1 : 0) + move.ply - 1;
}

/** The label in front of a move's SAN: "12." for a White move, "12…" for a Black one. */
export function moveLabel(move, startNumber, firstColor) {
  return moveNumber(plyOf(move, startNumber, firstColor));
}

/** The squares of a UCI move for an arrow: {from, to}; null for none. */
export function squaresOf(uci) {
  if (typeof uci !== "string" || uci.length < 4) return null;
  return { from: uci.slice(0, 2), to: uci.slice(2, 4) };
}

/** The squares of a UCI move as board.js's last move: [from, to]; undefined for none. */
export function squaresList(uci) {
  const squares = squaresOf(uci);
  return squares ? [squares.from, squares.to] : undefined;
}

/** A button of class `cls` that runs `onClick`. */
export function button(text, cls, onClick) {
  const node = el("button", { type: "button", class: cls }, text);
  node.addEventListener("click", onClick);
  return node;
}

/** Scrolls `list` (only it, not the page) so that `item` and the comment under it show. */
export function scrollWithin(list, item) {
  const top = item.offsetTop; // the list is positioned (review.css): offsets are within it
  const bottom = top + item.offsetHeight * 2.5;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
}
