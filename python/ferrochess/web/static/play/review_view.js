// The review's panel (review.js's view): the analysis's progress, a message when it stopped, and
// the review itself: the graph (review_graph.js), each side's accuracy and judgements, the
// annotated move list; the lessons' part is learn_view.js's. It draws what the controller says and
// hands each click to it.

import { el } from "../ui/dom.js";
import { moveNumber } from "../ui/moves.js";
import { formatScore } from "../ui/score.js";
import {
  GLYPHS,
  JUDGEMENT_NAMES,
  JUDGEMENT_ORDER,
  button,
  hasBetter,
  plyOf,
  scrollWithin,
} from "./review_util.js";

export class ReviewPanel {
  /**
   * @param {object} ctrl review.js's Review: open, cancelAnalysis, jump, jumpToBetter, learn,
   *   analyse
   * @param {HTMLElement} container where the panel is drawn (its content is this module's)
   * @param {object} parts the graph (review_graph.js) and the lessons' view (learn_view.js);
   *   `analyse`: whether an analysis board can be opened ("Analyse on the board")
   */
  constructor(ctrl, container, { graph, lessons, analyse = false }) {
    this.ctrl = ctrl;
    this.container = container;
    this.progressText = el("p", { class: "review-status", role: "status" });
    this.progressBar = el("progress", { class: "review-bar", max: "1", value: "0" });
    const cancel = button("Cancel", "review-cancel", () => ctrl.cancelAnalysis());
    this.progress = el("div", { class: "review-progress" }, this.progressText, this.progressBar,
      cancel);

    this.messageText = el("p", { class: "review-message-text", role: "alert" });
    this.retry = button("Try again", "review-retry", () => ctrl.open());
    this.message = el("div", { class: "review-message" }, this.messageText, this.retry);

    this.summary = el("div", { class: "review-summary" });
    this.learn = button("Learn from your mistakes", "review-learn", () => ctrl.learn.start());
    this.noLessons = el("p", { class: "review-clean" },
      "No mistakes of yours to learn from: well played.");
    this.analyse = button("Analyse on the board", "review-analyse", () => ctrl.analyse());
    this.analyse.dataset.action = "analyse-review";
    this.analyse.title = "Open the analysis board at the position shown, with this review";
    this.analyse.hidden = !analyse;
    this.moves = el("div", { class: "review-moves" });
    this.result = el("div", { class: "review-result" }, graph.svg, this.summary,
      lessons.summaryBox, el("div", { class: "review-actions" }, this.learn, this.noLessons, this.analyse),
      this.moves);
    this.learning = el("div", { class: "review-learning" }, lessons.lessonBox);

    container.classList.add("fc-review");
    container.replaceChildren(
      el("h2", { class: "review-title" }, "Computer analysis"),
      this.progress, this.message, this.result, this.learning);
  }

  /** Shows the part of the panel for the review's `state` (the panel hidden when idle). */
  showState(state) {
    this.container.dataset.reviewState = state;
    this.container.hidden = state === "idle";
    this.progress.hidden = state !== "analysing";
    this.message.hidden = state !== "cancelled" && state !== "error";
    this.result.hidden = state !== "reviewed";
    this.learning.hidden = state !== "learning";
  }

  /** `done` of `total` positions analysed (the server counts the start and every move's
   * position): said as the move being analysed of the game's `moves`, the bar as the share done. */
  showProgress(done, total, moves) {
    const shown = Math.min(Math.max(done + 1, 1), moves);
    this.progressText.textContent = `Analysing move ${shown} of ${moves}`;
    this.progressBar.max = Math.max(total, 1);
    this.progressBar.value = Math.min(done, total);
  }

  showMessage(text, retry) {
    this.messageText.textContent = text;
    this.retry.hidden = !retry;
  }

  /** Each side's accuracy and judgements, the human's side marked, and the move list. */
  drawReview(review, { human, startNumber, lessons }) {
    this.#drawSummary(review, human);
    this.#drawMoves(review.moves, startNumber);
    this.learn.hidden = !lessons;
    this.noLessons.hidden = Boolean(lessons);
  }

  /** Highlights the move after which `ply` plies were played (null: none) and scrolls to it. */
  select(ply) {
    const list = this.moves;
    for (const item of list.querySelectorAll(".review-move")) {
      const current = Number(item.dataset.ply) === ply;
      item.classList.toggle("current", current);
      if (current) scrollWithin(list, item);
    }
  }

  #drawSummary(review, human) {
    const table = this.summary;
    table.replaceChildren();
    for (const color of ["white", "black"]) {
      const side = el("div", { class: "review-side", "data-color": color });
      const name = color === "white" ? "White" : "Black";
      const you = color === human ? " (you)" : "";
      side.append(el("h3", {}, `${name}${you}`));
      const accuracy = review.accuracy && review.accuracy[color];
      side.append(
        el("p", { class: "review-accuracy" },
          el("strong", {}, accuracy == null ? "–" : `${Math.round(accuracy)}%`), " accuracy"),
      );
      const counts = (review.judgements && review.judgements[color]) || {};
      const list = el("ul", { class: "review-counts" });
      for (const judgement of JUDGEMENT_ORDER) {
        const count = counts[judgement] || 0;
        const [, plural, singular] = JUDGEMENT_NAMES[judgement];
        list.append(
          el("li", { "data-judgement": judgement, "data-count": String(count) },
            el("span", { class: "review-glyph" }, GLYPHS[judgement]),
            ` ${count} ${count === 1 ? singular : plural}`),
        );
      }
      side.append(list);
      table.append(side);
    }
  }

  #drawMoves(moves, start) {
    const list = this.moves;
    list.replaceChildren();
    const firstColor = moves.length ? moves[0].color : "white";
    let column = 0; // 0: a new row starts (number next), 1: White's cell filled, 2: row complete
    const number = (move) => { // a row's number: its White move's ("12."), as the play page's list
      const ply = plyOf(move, start, firstColor);
      return el("span", { class: "review-number" }, moveNumber(move.color === "white" ? ply : ply - 1));
    };
    const gap = () => el("span", { class: "review-gap" }, "…");
    for (const move of moves) {
      if (move.color === "white" || column === 0) {
        if (column === 1) list.append(gap()); // a White move after a comment: Black's cell empty
        list.append(number(move));
        if (move.color === "black") list.append(gap());
      }
      const glyph = move.judgement ? GLYPHS[move.judgement] : "";
      const played = el(
        "button",
        {
          type: "button", class: "review-move", "data-ply": String(move.ply),
          "data-judgement": move.judgement || "", title: formatScore(move.eval_after),
        },
        move.san,
        glyph ? el("span", { class: "review-glyph" }, glyph) : "",
      );
      played.addEventListener("click", () => this.ctrl.jump(move.ply));
      list.append(played);
      column = move.color === "white" ? 1 : 0;
      if (move.judgement && hasBetter(move)) {
        if (column === 1) list.append(gap());
        const [name] = JUDGEMENT_NAMES[move.judgement];
        const better = el(
          "button",
          { type: "button", class: "review-best", "data-ply": String(move.ply),
            "data-best-move": move.best_move },
          `Best was ${move.best_san}`,
        );
        better.addEventListener("click", () => this.ctrl.jumpToBetter(move));
        // The server's sentence on what the refutation does ("allows mate in 1"), when it has one.
        const why = move.explanation
          ? el("span", { class: "review-explanation" }, ` ${move.san} ${move.explanation}.`)
          : "";
        list.append(el("p", { class: "review-comment", "data-judgement": move.judgement },
          `${name}. `, better, ".", why));
        column = 0;
      }
    }
  }
}
