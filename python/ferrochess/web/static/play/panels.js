// The panels around the board: the move list (click a move to see it), the engine panel and the
// evaluation bar, the game-over banner, the players' clocks. Each function draws what the server
// said; none judges a position.

import { el } from "../ui/dom.js";
import { drawEvalBar } from "../ui/eval_bar.js";
import { lineText, moveNumber, rootPly, whiteMoves } from "../ui/moves.js";
import { MISSING, formatScore, resultShown } from "../ui/score.js";
import { formatClock } from "./clock.js";

const LOW_TIME_MS = 20000;

export const capitalised = (word) => word.charAt(0).toUpperCase() + word.slice(1);

export function formatTime(ms) {
  if (ms === undefined || ms === null) return MISSING;
  if (ms < 1) return "<1 ms";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** A level as the page names it: "4 · Improver (~1557, not yet re-measured)". */
export function levelLabel(level) {
  const elo = level.calibration === "stale" ? `~${level.elo}, not yet re-measured` : `~${level.elo}`;
  return `${level.number} · ${level.name} (${elo})`;
}

/** The ply of the State's start position (ui/moves.js: its move number and side to move). */
export function startPly(state) {
  return rootPly(state.start_fen || state.positions[0].fen);
}

/** The move list: numbered rows, one button per move (`data-ply` = plies played after it). */
export function renderMoves(list, state, { activePly = null, onSelect } = {}) {
  list.replaceChildren();
  if (!state || !state.san.length) {
    list.append(el("li", { class: "moves-empty" }, "No moves yet"));
    return;
  }
  const start = startPly(state);
  let row = null;
  const moveButton = (san, ply) => {
    const button = el("button", {
      type: "button",
      class: `move${ply === activePly ? " active" : ""}`,
      "data-ply": ply,
      "aria-current": ply === activePly ? "step" : null,
    }, san);
    button.addEventListener("click", () => onSelect && onSelect(ply));
    return button;
  };
  state.san.forEach((san, index) => {
    const at = start + index; // the ply the move was played from
    const white = whiteMoves(at);
    if (white || row === null) {
      row = el("li", { class: "move-row" }, el("span", { class: "move-number" }, moveNumber(white ? at : at - 1)));
      list.append(row);
      if (!white) row.append(el("span", { class: "move-empty" }, "…"));
    }
    row.append(moveButton(san, index + 1));
  });
  const active = list.querySelector(".move.active") || list.querySelector(".move-row:last-child");
  if (active && typeof active.scrollIntoView === "function") active.scrollIntoView({ block: "nearest" });
}

/** What the engine panel says about a reply; `visible` false hides it (a hint otherwise). */
export function renderEngine(parts, reply, { visible, plyBefore, start }) {
  parts.body.hidden = !visible;
  parts.hiddenNote.hidden = visible;
  parts.body.dataset.source = reply ? reply.source || "" : "";
  for (const stat of parts.searchStats) stat.hidden = false;
  if (!reply) {
    parts.summary.textContent = "No engine move to show yet.";
    parts.stats.hidden = true;
    parts.line.hidden = true;
    return;
  }
  if (reply.source === "book") {
    const weight = reply.book_weight !== undefined && reply.book_weight !== null ? ` (weight ${reply.book_weight})` : "";
    parts.summary.textContent = `${reply.san}: Book move${weight}`;
    parts.stats.hidden = true;
    parts.line.hidden = true;
    return;
  }
  const source = reply.source === "tablebase" ? `tablebase (${reply.tablebase || "known"} for the engine)` : "search";
  parts.summary.textContent = `${reply.san}: from the ${source}`;
  parts.stats.hidden = false;
  parts.score.textContent = formatScore(reply.score);
  parts.depth.textContent = reply.depth !== undefined ? String(reply.depth) : MISSING;
  parts.nodes.textContent = reply.nodes !== undefined ? Number(reply.nodes).toLocaleString("en-US") : MISSING;
  parts.time.textContent = formatTime(reply.time_ms);
  const pv = reply.pv || [];
  parts.line.hidden = pv.length === 0;
  parts.pv.textContent = lineText(pv, start + plyBefore);
}

/** The engine panel on a position of a reviewed game (`seen`: review_util.js's
 * reviewedPosition): the review's score there, its best move and line (the review searched to a
 * node limit: no depth, nodes or time to show). */
export function renderReviewed(parts, seen, { visible, start }) {
  parts.body.hidden = !visible;
  parts.hiddenNote.hidden = visible;
  parts.body.dataset.source = "review";
  parts.summary.textContent = seen.bestSan
    ? `${seen.bestSan}: the review's best move here`
    : "The game's last position: the review has no move after it.";
  parts.stats.hidden = false;
  for (const stat of parts.searchStats) stat.hidden = true;
  parts.score.textContent = formatScore(seen.score);
  parts.line.hidden = seen.line.length === 0;
  parts.pv.textContent = lineText(seen.line, start + seen.ply);
}

/** The evaluation bar at `score` (White's view); unchanged when `score` is undefined. */
export function renderEvalBar(bar, fill, score, visible) {
  bar.classList.toggle("concealed", !visible);
  if (score === undefined) return;
  drawEvalBar(bar, fill, score);
}

/**
 * The game-over banner's words: `{headline, detail}`. It says who won; it says ferrochess won
 * only when ferrochess played a move of the game (a position set up already over was not its
 * win).
 */
export function bannerWords(status, { human, engineMoved, movesPlayed }) {
  const headline = resultShown(status.result);
  const { winner, termination, reason } = status;
  let detail;
  if (termination === "resign" || termination === "flag") {
    detail = winner ? `${reason}: ${capitalised(winner)} wins` : `Draw: ${reason}`;
  } else if (termination === "agreement") {
    detail = "Draw by agreement";
  } else if (winner) {
    detail = `${capitalised(winner)} wins by ${reason}`;
  } else {
    detail = `Draw by ${reason}`;
  }
  let who = "";
  if (winner === human) who = "You win";
  else if (winner && engineMoved) who = "ferrochess wins";
  else if (winner) who = "You lose";
  if (movesPlayed === 0 && termination !== "resign" && termination !== "flag" && termination !== "agreement") {
    detail += " (the position was set up already over)";
    if (winner && winner !== human) who = "";
  }
  return { headline, detail, who };
}

/** The pieces' figurines, drawn beside a player (with the text variant selector: no emoji). */
const FIGURINES = Object.freeze({ queen: "♛\uFE0E", rook: "♜\uFE0E", bishop: "♝\uFE0E", knight: "♞\uFE0E",
  pawn: "♟\uFE0E" });

/** Beside a player, lichess's material difference as the server counted it (a State's
 * `material` for that colour): the pieces it is up, and "+N" when it is ahead. */
export function renderMaterial(box, side) {
  box.replaceChildren();
  if (!side) return;
  side.pieces.forEach((piece, index) => {
    const again = index > 0 && side.pieces[index - 1] === piece; // drawn overlapping, as lichess does
    box.append(el("span", { class: `material-piece${again ? " again" : ""}`, "data-piece": piece, title: piece },
      FIGURINES[piece] || ""));
  });
  if (side.points > 0) box.append(el("span", { class: "material-score" }, `+${side.points}`));
}

/** A clock's face: the time, running or not, low time. */
export function renderClock(face, ms, { running, shown }) {
  face.hidden = !shown;
  if (!shown) return;
  face.textContent = formatClock(ms);
  face.classList.toggle("running", running);
  face.classList.toggle("low", ms < LOW_TIME_MS);
  face.classList.toggle("flagged", ms <= 0);
}
