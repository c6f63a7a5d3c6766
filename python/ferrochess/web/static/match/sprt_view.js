// The SPRT's card: the LLR over the games played, drawn between its two bounds (H1's above, H0's
// below, as fishtest's graphs draw them), its value and bounds in numbers, the hypotheses'
// Elo, and the decision once made. The numbers are the kernel's (ferrochess.match.stats): none
// is computed here.

import { el, svgEl } from "../ui/dom.js";
import { decisionWords, formatLlr } from "./format.js";

const WIDTH = 320;
const HEIGHT = 128;
const LEFT = 38;
const RIGHT = 10;
const TOP = 10;
const BOTTOM = 20;
/** The space kept above and below the bounds, as a fraction of their distance. */
const PAD = 0.12;

/** The chart's scales for `sprt` ({lower, upper, history: [[games, llr]...]}): x of games, y of
 * an LLR, and the games at the right end. */
export function scales(sprt, played) {
  const history = sprt.history || [];
  const values = history.map(([, llr]) => llr);
  const low = Math.min(sprt.lower, ...values);
  const high = Math.max(sprt.upper, ...values);
  const pad = (high - low) * PAD;
  const top = high + pad;
  const bottom = low - pad;
  const games = Math.max(2, played || 0, ...history.map(([count]) => count));
  return {
    games,
    x: (count) => LEFT + ((WIDTH - LEFT - RIGHT) * count) / games,
    y: (llr) => TOP + ((HEIGHT - TOP - BOTTOM) * (top - llr)) / (top - bottom),
  };
}

/** The chart of `sprt`'s LLR after `played` games, as an SVG element. */
export function llrChart(sprt, played) {
  const { games, x, y } = scales(sprt, played);
  const bound = (value, kind, label) => [
    svgEl("line", { class: `llr-bound ${kind}`, x1: LEFT, x2: WIDTH - RIGHT, y1: y(value), y2: y(value) }),
    svgEl("text", { class: `llr-label ${kind}`, x: LEFT - 5, y: y(value) + 3.5, "text-anchor": "end" }, label),
  ];
  const points = [[0, 0], ...(sprt.history || [])];
  const path = points.map(([count, llr], index) => `${index ? "L" : "M"}${x(count).toFixed(1)},${y(llr).toFixed(1)}`);
  const [lastGames, lastLlr] = points[points.length - 1];
  return svgEl("svg", {
    class: "llr-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
    "aria-label": `LLR ${formatLlr(sprt.llr)} between ${formatLlr(sprt.lower)} and ${formatLlr(sprt.upper)}`,
  },
  svgEl("rect", {
    class: "llr-band", x: LEFT, width: WIDTH - LEFT - RIGHT, y: y(sprt.upper), height: y(sprt.lower) - y(sprt.upper),
  }),
  svgEl("line", { class: "llr-zero", x1: LEFT, x2: WIDTH - RIGHT, y1: y(0), y2: y(0) }),
  svgEl("text", { class: "llr-label", x: LEFT - 5, y: y(0) + 3.5, "text-anchor": "end" }, "0"),
  ...bound(sprt.upper, "upper", formatLlr(sprt.upper)),
  ...bound(sprt.lower, "lower", formatLlr(sprt.lower)),
  svgEl("text", { class: "llr-axis", x: LEFT, y: HEIGHT - 5 }, "0"),
  svgEl("text", { class: "llr-axis", x: WIDTH - RIGHT, y: HEIGHT - 5, "text-anchor": "end" }, `${games} games`),
  svgEl("path", { class: "llr-line", d: path.join(" ") }),
  svgEl("circle", { class: "llr-dot", cx: x(lastGames), cy: y(lastLlr), r: 3.2 }));
}

/** The SPRT card's contents for `sprt` (the kernel's state.sprt) after `played` games; `over`:
 * the match is over (without a decision, it ended undecided). */
export function sprtContents(sprt, played, over = false) {
  const decision = sprt.decision || null;
  const badge = el("span", { class: "sprt-decision", "data-decision": decision || "none", "data-testid": "sprt-decision" },
    decisionWords(decision, over));
  const value = el("p", { class: "sprt-value" },
    el("span", { class: "sprt-llr", "data-testid": "llr-value" }, `LLR ${formatLlr(sprt.llr ?? 0)}`),
    el("span", { class: "sprt-bounds" }, ` (${formatLlr(sprt.lower)}, ${formatLlr(sprt.upper)})`));
  const hypotheses = el("p", { class: "sprt-hypotheses" },
    `H0 Elo ${sprt.elo0} · H1 Elo ${sprt.elo1} · ${sprt.model} · α ${sprt.alpha} β ${sprt.beta}`);
  return [
    el("div", { class: "card-head" }, el("h2", {}, "SPRT"), badge),
    el("div", { class: "llr", "data-testid": "llr" }, llrChart(sprt, played)),
    value,
    hypotheses,
  ];
}
