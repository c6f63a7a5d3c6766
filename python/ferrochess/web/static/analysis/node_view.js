// The panel of the move shown: the review's verdict with its refutation in words ("Blunder. Best
// was Nf3. g4 allows mate in 1."), the comment after the move (editable; the root's is the one
// before the first move) and the NAG glyphs to set or clear, as lichess's glyph editor offers them.

import { el } from "../ui/dom.js";
import { JUDGEMENT_WORDS, MOVE_NAGS, POSITION_NAGS, nagGlyph } from "./format.js";

function nagButton(nag) {
  const { glyph, name, kind } = nagGlyph(nag);
  return el("button", { type: "button", class: `nag nag-${kind}`, "data-nag": nag, title: name,
    "aria-label": name, "aria-pressed": "false" }, glyph);
}

export class NodeView {
  /** @param {object} parts layout.js's node card @param {object} ctrl the analysis controller */
  constructor(parts, ctrl) {
    this.parts = parts;
    this.ctrl = ctrl;
    parts.moveNags.replaceChildren(...MOVE_NAGS.map(nagButton));
    parts.positionNags.replaceChildren(...POSITION_NAGS.map(nagButton));
    parts.comment.addEventListener("input", () => ctrl.setComment(parts.comment.value));
    for (const box of [parts.moveNags, parts.positionNags]) {
      box.addEventListener("click", (event) => {
        const button = event.target.closest("[data-nag]");
        if (button) ctrl.toggleNag(Number(button.dataset.nag));
      });
    }
  }

  render() {
    const { parts, ctrl } = this;
    const node = ctrl.node;
    const atRoot = ctrl.path.length === 0;
    parts.root.dataset.path = ctrl.path.join(".");
    this.#renderJudgement(atRoot ? null : node);
    // The comment being typed is not overwritten by its own echo.
    const focused = parts.comment.ownerDocument.activeElement === parts.comment;
    if (!focused || parts.comment.dataset.path !== parts.root.dataset.path) parts.comment.value = node.comment || "";
    parts.comment.dataset.path = parts.root.dataset.path;
    parts.comment.placeholder = atRoot ? "A comment before the first move" : `A comment after ${node.san}`;
    const nags = atRoot ? [] : node.nags || [];
    for (const button of parts.root.querySelectorAll("[data-nag]")) {
      button.disabled = atRoot;
      button.setAttribute("aria-pressed", nags.includes(Number(button.dataset.nag)) ? "true" : "false");
    }
  }

  #renderJudgement(node) {
    const box = this.parts.judgement;
    const words = node && node.judgement ? JUDGEMENT_WORDS[node.judgement] : null;
    const sentence = node && node.explanation ? `${node.san} ${node.explanation}.` : "";
    box.hidden = !words && !sentence;
    box.dataset.judgement = (node && node.judgement) || "";
    if (box.hidden) {
      box.replaceChildren();
      return;
    }
    const best = node.best_san ? ` Best was ${node.best_san}.` : "";
    const parts = [];
    if (words) parts.push(el("strong", { class: `judged-${node.judgement}` }, `${words}.`));
    if (best) parts.push(best);
    if (sentence) parts.push(el("span", { class: "node-explanation", "data-testid": "node-explanation" }, ` ${sentence}`));
    box.replaceChildren(...parts);
  }
}
