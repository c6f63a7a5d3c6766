// The review's evaluation graph: White's winning chances after each ply (the server's numbers),
// a dot on each judged move, a cursor at the ply shown; a click asks to go to the ply under it.

import { svgEl } from "../ui/dom.js";
import { GLYPHS, whitePercents } from "./review_util.js";

const GRAPH_WIDTH = 1000;
const GRAPH_HEIGHT = 200;
const GRAPH_MARGIN = 10; // a won or lost position's dot stays inside the graph
let instances = 0; // unique ids for each graph's SVG clip paths

export class ReviewGraph {
  /** @param {(ply: number) => void} onJump told the ply clicked */
  constructor(onJump) {
    this.onJump = onJump;
    this.id = ++instances;
    this.plies = 0; // the plies drawn (0: nothing drawn)
    this.cursor = null;
    this.svg = svgEl("svg", { class: "review-graph", viewBox: `0 0 ${GRAPH_WIDTH} `
      + `${GRAPH_HEIGHT}`, preserveAspectRatio: "none", role: "img" });
    this.svg.addEventListener("click", (event) => this.#click(event));
  }

  /** Draws the graph of `moves` (the Review's), the cursor hidden. */
  draw(moves) {
    const svg = this.svg;
    svg.replaceChildren();
    const percents = whitePercents(moves);
    const plies = Math.max(percents.length - 1, 1);
    const x = (ply) => (ply / plies) * GRAPH_WIDTH;
    const y = (percent) =>
      GRAPH_MARGIN + ((100 - percent) / 100) * (GRAPH_HEIGHT - 2 * GRAPH_MARGIN);
    const mid = GRAPH_HEIGHT / 2;
    const line = percents.map((p, ply) => `${x(ply).toFixed(1)},${y(p).toFixed(1)}`).join(" L");
    const below = `M0,${GRAPH_HEIGHT} L${line} L${x(plies)},${GRAPH_HEIGHT} Z`;
    const above = `M0,0 L${line} L${x(plies)},0 Z`;
    const top = `review-top-${this.id}`;
    const bottom = `review-bottom-${this.id}`;
    svg.append(
      svgEl("defs", {},
        svgEl("clipPath", { id: top }, svgEl("rect", { x: 0, y: 0, width: GRAPH_WIDTH,
          height: mid })),
        svgEl("clipPath", { id: bottom }, svgEl("rect", { x: 0, y: mid, width: GRAPH_WIDTH,
          height: mid }))),
      svgEl("path", { d: below, class: "review-graph-white", "clip-path": `url(#${top})` }),
      svgEl("path", { d: above, class: "review-graph-black", "clip-path": `url(#${bottom})` }),
      svgEl("line", { x1: 0, y1: mid, x2: GRAPH_WIDTH, y2: mid, class: "review-graph-mid",
        "vector-effect": "non-scaling-stroke" }),
      svgEl("path", { d: `M${line}`, class: "review-graph-line",
        "vector-effect": "non-scaling-stroke" }),
    );
    const cursor = svgEl("line", { class: "review-graph-cursor", y1: 0, y2: GRAPH_HEIGHT,
      "vector-effect": "non-scaling-stroke", visibility: "hidden" });
    svg.append(cursor);
    this.cursor = cursor;
    for (const move of moves) {
      if (!move.judgement) continue;
      const dot = svgEl("path", {
        d: `M${x(move.ply)},${y(percents[move.ply])} l0.01,0`,
        class: "review-graph-dot", "data-ply": String(move.ply),
        "data-judgement": move.judgement, "vector-effect": "non-scaling-stroke",
      });
      dot.append(svgEl("title", {}, `${move.san}${GLYPHS[move.judgement]}`));
      svg.append(dot);
    }
    svg.setAttribute("aria-label", "White's winning chances, move by move; click to go there");
    this.plies = percents.length - 1;
  }

  /** The cursor at `ply` (null or undefined: hidden). */
  select(ply) {
    const cursor = this.cursor;
    if (!cursor) return;
    if (ply == null || !this.plies) {
      cursor.setAttribute("visibility", "hidden");
      return;
    }
    const at = (ply / this.plies) * GRAPH_WIDTH;
    cursor.setAttribute("x1", at);
    cursor.setAttribute("x2", at);
    cursor.setAttribute("visibility", "visible");
  }

  #click(event) {
    if (!this.plies) return;
    const box = this.svg.getBoundingClientRect();
    const fraction = (event.clientX - box.left) / Math.max(box.width, 1);
    const ply = Math.round(Math.min(Math.max(fraction, 0), 1) * this.plies);
    this.onJump(ply);
  }
}
