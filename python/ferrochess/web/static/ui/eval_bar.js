// The evaluation bar beside the board (the play page's and the analysis board's): White's share
// is White's winning chances (score.js), its title and `data-score` the score in words.

import { el } from "./dom.js";
import { barShare, formatScore } from "./score.js";

/** The bar and its fill, level: `{evalBar, evalFill}`. */
export function buildEvalBar(attributes = {}) {
  const evalFill = el("div", { class: "eval-fill", style: "height: 50%" });
  const evalBar = el("div", {
    class: "eval-bar", role: "meter", "aria-label": "Evaluation from White's view",
    "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": 50, ...attributes,
  }, evalFill);
  return { evalBar, evalFill };
}

/** The bar at `score` (White's view; null: level, "No evaluation yet"). */
export function drawEvalBar(bar, fill, score) {
  const share = barShare(score);
  fill.style.height = `${share}%`;
  bar.setAttribute("aria-valuenow", String(Math.round(share)));
  bar.title = score ? `Evaluation ${formatScore(score)}` : "No evaluation yet";
  bar.dataset.score = score ? formatScore(score) : "";
}
