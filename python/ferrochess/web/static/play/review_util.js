// What the review's modules share: the words for a judged move, pure helpers on the server's
// Review (exported for tests through review.js) and the review's two element builders. Nothing
// here decides what is legal: every number comes from the server (analyse_game's result).

/** @typedef {({cp: number} | {mate: number, mated?: string}) & {tablebase?: string}} Score */
/** @typedef {{ply: number, color: "white"|"black", move: string, san: string,
 *   eval_before: Score, eval_after: Score, best_move: string|null, best_san: string|null,
 *   best_line: string[], win_before: number, win_after: number, accuracy: number,
 *   judgement: null|"inaccuracy"|"mistake"|"blunder", explanation: string|null}} ReviewedMove */

export const GLYPHS = Object.freeze({ inaccuracy: "?!", mistake: "?", blunder: "??" });
/** Each judgement's name, its plural and its singular in a sentence. */
export const JUDGEMENT_NAMES = Object.freeze({
  inaccuracy: ["Inaccuracy", "inaccuracies", "inaccuracy"],
  mistake: ["Mistake", "mistakes", "mistake"],
  blunder: ["Blunder", "blunders", "blunder"],
});
export const JUDGEMENT_ORDER = ["inaccuracy", "mistake", "blunder"];
const SVG_NS = "http://www.w3.org/2000/svg";

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

/** "12." for a White move, "12…" for a Black one: the label in front of a move's SAN. */
export function moveLabel(move, startNumber, firstColor) {
  const index = move.ply - 1 + (firstColor === "black" ? 1 : 0);
  const number = startNumber + Math.floor(index / 2);
  return move.color === "white" ? `${number}.` : `${number}…`;
}

/** An evaluation in words a chess player reads: "+0.35", "-1.20", "#3", "#-2"; where the tables
 * judged the position, their verdict from the score's `tablebase` ("TB win", "TB draw", "TB loss",
 * "TB cursed win", "TB blessed loss"), all from White's point of view. */
export function formatScore(score) {
  if (!score) return "";
  if ("mate" in score) {
    if (score.mate === 0) return score.mated === "white" ? "0-1" : "1-0";
    return `#${score.mate}`;
  }
  if (score.tablebase) return `TB ${score.tablebase}`;
  const pawns = score.cp / 100;
  return `${pawns > 0 ? "+" : ""}${pawns.toFixed(2)}`;
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

/** What went wrong, in words for a person: the server unreachable, busy, or its own message. */
export function describeError(error) {
  const status = error && (error.status ?? error.statusCode);
  const message = String((error && (error.message || error.error)) || error || "");
  if (status === 409) return "The search was cancelled; try again.";
  if (status === 503) return "Every engine is busy; try again in a moment.";
  if (status === 429) return "Too many engine requests from here; try again in a minute.";
  if (error && error.kind === "network") return "Cannot reach the server: is it still running?";
  const words = message || "something went wrong";
  return `${words[0].toUpperCase()}${words.slice(1)}${/[.!?]$/.test(words) ? "" : "."}`;
}

// --- building the panel's elements ----------------------------------------------------------------

/** An element with string attributes and children ("" and null children left out). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children.filter((child) => child !== "" && child != null));
  return node;
}

export function svgEl(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
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
