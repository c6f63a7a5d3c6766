// What the analysis board's views share: scores in words, the evaluation bar's mapping, PGN's
// NAGs as glyphs, move numbers. Pure functions of what the server said; no chess rule.

import { formatScore as playFormatScore } from "../play/panels.js";

/** "+0.31", "-1.20", "#3", "#-2" (White's view); "TB win" where the tables judged; "" for none. */
export function formatScore(score) {
  if (!score) return "";
  return playFormatScore(score);
}

/** lichess's winning chances of White in -1..1 from a score (White's view): its logistic curve of
 * the centipawns (capped at ±1000), ±1 for a mate. */
export function winningChances(score) {
  if (!score) return 0;
  if (score.mate !== undefined && score.mate !== null) return score.mate > 0 ? 1 : score.mate < 0 ? -1 : 0;
  if (score.tablebase === "win") return 1;
  if (score.tablebase === "loss") return -1;
  const cp = Math.max(-1000, Math.min(1000, Number(score.cp) || 0));
  return 2 / (1 + Math.exp(-0.00368208 * cp)) - 1;
}

/** White's share of the evaluation bar in percent (50 when there is no score). */
export function barShare(score) {
  return 50 + 50 * winningChances(score);
}

/** PGN's NAGs as lichess draws them: glyph, name, and the class that colours it. */
export const NAGS = Object.freeze({
  1: ["!", "Good move", "good"],
  2: ["?", "Mistake", "mistake"],
  3: ["!!", "Brilliant move", "brilliant"],
  4: ["??", "Blunder", "blunder"],
  5: ["!?", "Interesting move", "interesting"],
  6: ["?!", "Dubious move", "inaccuracy"],
  7: ["□", "Only move", "only"],
  10: ["=", "Equal position", "position"],
  13: ["∞", "Unclear position", "position"],
  14: ["+/=", "White is slightly better", "position"],
  15: ["=/+", "Black is slightly better", "position"],
  16: ["±", "White is better", "position"],
  17: ["∓", "Black is better", "position"],
  18: ["+−", "White is winning", "position"],
  19: ["−+", "Black is winning", "position"],
  22: ["⨀", "Zugzwang", "position"],
  32: ["⟳", "Development", "position"],
  36: ["→", "Initiative", "position"],
  40: ["↑", "Attack", "position"],
  132: ["⇆", "Counterplay", "position"],
  138: ["⊕", "Time trouble", "position"],
  146: ["N", "Novelty", "position"],
});

/** The NAGs the editor offers, in lichess's order. */
export const MOVE_NAGS = [1, 2, 3, 4, 5, 6, 7];
export const POSITION_NAGS = [10, 13, 14, 15, 16, 17, 18, 19, 22, 146];

/** A review's judgement as its glyph's NAG (lichess's colours for ?!, ?, ??). */
export const JUDGEMENT_NAGS = Object.freeze({ inaccuracy: 6, mistake: 2, blunder: 4 });
export const JUDGEMENT_WORDS = Object.freeze({ inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" });

/** The glyph of NAG `nag`: `{glyph, name, kind}` ("$23" and its number for one without a glyph). */
export function nagGlyph(nag) {
  const known = NAGS[nag];
  if (known) return { glyph: known[0], name: known[1], kind: known[2] };
  return { glyph: `$${nag}`, name: `NAG ${nag}`, kind: "position" };
}

/** The NAGs shown after a node's move: its own, and its review judgement's when it has none of
 * that kind. */
export function shownNags(node) {
  const nags = (node.nags || []).slice();
  const judged = node.judgement && JUDGEMENT_NAGS[node.judgement];
  if (judged && !nags.some((nag) => nag >= 1 && nag <= 7)) nags.unshift(judged);
  return nags;
}

/** The ply of the root position (plies since move 1 with White to move), read from the FEN's
 * side-to-move and move-number fields. */
export function rootPly(fen) {
  const fields = String(fen || "").trim().split(/\s+/);
  const number = Math.max(1, Number.parseInt(fields[5], 10) || 1);
  return (number - 1) * 2 + (fields[1] === "b" ? 1 : 0);
}

/** The label before a move played from ply `ply` (the position before it): "12." for White, "12…"
 * for Black; `always` false leaves Black's out ("") as inside a line that runs on. */
export function moveNumber(ply, always = true) {
  const number = Math.floor(ply / 2) + 1;
  if (ply % 2 === 0) return `${number}.`;
  return always ? `${number}…` : "";
}

/** Whether the move played from ply `ply` is White's. */
export const whiteMoves = (ply) => ply % 2 === 0;

/** "1.2 kn/s", "850 n/s", "2.4 Mn/s". */
export function formatNps(nps) {
  if (!nps && nps !== 0) return "";
  if (nps >= 1e6) return `${(nps / 1e6).toFixed(1)} Mn/s`;
  if (nps >= 1e3) return `${Math.round(nps / 1e3)} kn/s`;
  return `${Math.round(nps)} n/s`;
}

/** "1,234,567" nodes. */
export const formatCount = (count) => Number(count || 0).toLocaleString("en-US");

/** Why a search ended, in words. */
export const DONE_WORDS = Object.freeze({
  stopped: "Stopped.",
  cap: "Stopped at the server's time limit.",
  finished: "Search finished.",
  over: "The game is over in this position.",
});

/** What went wrong, in words for a person (the server's message, or why it could not answer). */
export function describeError(error) {
  const status = error && error.status;
  if (status === 503) return "Every engine is busy; try again in a moment.";
  if (status === 429) return "Too many engine requests from here for now; trying again shortly.";
  if (error && error.kind === "network") return "Cannot reach the server: is it still running?";
  const words = String((error && error.message) || error || "something went wrong");
  return `${words[0].toUpperCase()}${words.slice(1)}${/[.!?]$/.test(words) ? "" : "."}`;
}
