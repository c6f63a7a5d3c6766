// The live engine's panel (lichess's ceval/view): the switch, the number of lines, the best
// score, depth and nodes/s, then one row per line (its score and its moves in SAN, numbered; a
// click on a move plays the line up to it), and why the search ended. With the engine off, a
// node that a review (or a PGN's [%eval]) evaluated shows that evaluation and its best line.

import { el } from "../ui/dom.js";
import { numberedLine } from "../ui/moves.js";
import { formatScore } from "../ui/score.js";
import { DONE_WORDS, formatCount, formatNps } from "./format.js";

/** SAN moves from ply `ply` with their numbers, as elements of class `cls` (data-index each). */
function numberedMoves(sans, ply, cls, extra = {}) {
  return numberedLine(sans, ply).map(({ label, san }, index) =>
    el("span", { class: cls, "data-index": index, ...extra }, label ? el("span", { class: "index" }, label) : null, san));
}

/** The ply of the position at `path` from the root's ply. */
const plyAt = (rootPly, path) => rootPly + path.length;

export function renderCeval(parts, ctrl, rootPly) {
  const { ceval } = ctrl;
  const key = ctrl.targetKey;
  const lines = ceval.linesFor(key);
  const ply = plyAt(rootPly, ctrl.path);
  parts.toggle.checked = ceval.enabled;
  parts.multipv.value = String(ceval.multipv);
  parts.root.dataset.engine = ceval.enabled ? (ceval.running ? "running" : "idle") : "off";
  parts.root.dataset.done = ceval.done || "";
  parts.score.textContent = ceval.enabled ? formatScore(lines.length ? lines[0].score : null) : "";
  const info = [];
  if (ceval.enabled && ceval.depth !== null && lines.length) info.push(`depth ${ceval.depth}`);
  if (ceval.enabled && ceval.nps) info.push(formatNps(ceval.nps));
  if (ceval.enabled && ceval.nodes) info.push(`${formatCount(ceval.nodes)} nodes`);
  if (ceval.enabled && ceval.source === "tablebase") info.push("tablebase");
  parts.info.textContent = info.join(" · ");

  const rows = ceval.enabled
    ? lines.map((line, index) => el("div", { class: "ceval-line", "data-testid": "ceval-line",
      "data-multipv": line.multipv ?? index + 1, "data-line": index, "data-depth": line.depth ?? "" },
    el("span", { class: "score" }, formatScore(line.score)),
    el("span", { class: "pv" }, ...numberedMoves(line.san || line.pv || [], ply, "pv-move", { "data-line": index }))))
    : [];
  parts.lines.replaceChildren(...rows);
  parts.lines.hidden = rows.length === 0;

  let status = "";
  if (!ceval.enabled) status = "Engine off: press x or the switch to analyse this position.";
  else if (ceval.error) status = ceval.error;
  else if (ceval.running && !lines.length) status = "Searching…";
  else if (ceval.done) status = DONE_WORDS[ceval.done] || `Stopped (${ceval.done}).`;
  parts.status.textContent = status;
  parts.status.dataset.kind = ceval.error ? "error" : "";

  renderReviewLine(parts.review, ctrl.node, ply, !ceval.enabled);
}

/** "Review: +0.40, best line 12. Nf3 Nc6 …" for a node with an evaluation (shown with the engine
 * off): a review's, or "Evaluation: +0.31 (depth 18)" for one from a PGN's [%eval] or kept from
 * the live engine. */
function renderReviewLine(box, node, ply, visible) {
  const show = visible && Boolean(node && node.eval);
  box.hidden = !show;
  if (!show) {
    box.replaceChildren();
    return;
  }
  const label = node.line && node.line.length ? "Review: " : "Evaluation: ";
  const parts = [el("span", { class: "label" }, label), el("strong", { class: "review-eval" }, formatScore(node.eval))];
  if (node.eval.depth) parts.push(el("span", { class: "review-depth" }, ` (depth ${node.eval.depth})`));
  if (node.line && node.line.length) {
    parts.push(", best line ", el("span", { class: "review-pv" }, ...numberedMoves(node.line, ply, "review-move")));
  }
  box.replaceChildren(...parts);
}
