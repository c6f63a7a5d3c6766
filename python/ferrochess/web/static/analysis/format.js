// What the analysis board's views share: PGN's NAGs as glyphs, the review's judgements as NAGs,
// the engine's speed and why it stopped, in words. Scores, move numbers, errors, elements and the
// judgements' words are the UI kit's (../ui/). Pure functions of what the server said; no chess rule.

import { JUDGEMENT_NAMES } from "../ui/judgement.js";
import { resultShown } from "../ui/score.js";
import { describeTimeControl, parseTimeControlTag } from "../ui/time_control.js";

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
export const JUDGEMENT_WORDS = Object.freeze(
  Object.fromEntries(Object.entries(JUDGEMENT_NAMES).map(([judgement, [name]]) => [judgement, name])),
);

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

/** A PGN header's value, or "" for one unknown ("?", "????.??.??", "*", "-", missing). */
function known(value) {
  const text = String(value ?? "").trim();
  return /^[?.*-]*$/.test(text) ? "" : text;
}

/** A game named as lichess's game page names it: "You vs ferrochess level 3 · 1-0 · 2026.11.28 ·
 * 5+3" (the parts known only), from its PGN headers (a stored game's are its PGN download's:
 * White, Black, Result, Date, TimeControl "300+3"); "" when nothing is known. */
export function gameTitle(headers = {}) {
  const white = known(headers.White);
  const black = known(headers.Black);
  const result = known(headers.Result);
  const date = known(headers.Date);
  const control = parseTimeControlTag(headers.TimeControl);
  const parts = [
    white || black ? `${white || "?"} vs ${black || "?"}` : "",
    result ? resultShown(result) : "",
    date,
    control ? describeTimeControl(control) : "",
  ];
  return parts.filter(Boolean).join(" · ");
}
