// "Learn from your mistakes", drawn (learn.js's view): the lesson's prompt, the feedback on a try,
// its buttons, and the summary when the lessons are done. The panel (review_view.js) places
// `lessonBox` and `summaryBox`.

import { el } from "../ui/dom.js";
import { GLYPHS, JUDGEMENT_NAMES, button } from "./review_util.js";

const RESULT_WORDS = Object.freeze({ found: "found at once", "found-later": "found after a retry",
  shown: "solution shown", skipped: "skipped" });

export class LearnView {
  /** @param {object} ctrl learn.js's Learn: showSolution, next, leave */
  constructor(ctrl) {
    this.summaryText = el("p", { class: "review-learned-text" });
    this.summaryList = el("ul", { class: "review-learned-list" });
    this.summaryBox = el("div", { class: "review-learned" },
      el("h3", {}, "Learn from your mistakes: done"), this.summaryText, this.summaryList);
    this.summaryBox.hidden = true;

    this.lessonCount = el("span", { class: "review-lesson-count" });
    this.lessonPrompt = el("p", { class: "review-prompt" });
    this.feedbackBox = el("p", { class: "review-feedback", role: "status", "aria-live": "polite" });
    this.solution = button("Show the solution", "review-solution", () => ctrl.showSolution());
    this.nextButton = button("Skip", "review-next", () => ctrl.next());
    const stop = button("Back to the review", "review-stop", () => ctrl.leave());
    this.lessonBox = el("div", { class: "review-lesson" },
      el("h3", {}, "Learn from your mistakes ", this.lessonCount), this.lessonPrompt,
      this.feedbackBox, el("div", { class: "review-lesson-actions" }, this.solution,
        this.nextButton, stop));
  }

  hideSummary() {
    this.summaryBox.hidden = true;
  }

  /** Lesson `index` of `count`: the move played there (labelled `label`) and what to find. */
  showLesson(move, label, index, count) {
    const [name, , singular] = JUDGEMENT_NAMES[move.judgement];
    this.lessonCount.textContent = `${index + 1} of ${count}`;
    this.lessonPrompt.textContent = `You played ${label}${label.endsWith(".") ? " " : ""}`
      + `${move.san}${GLYPHS[move.judgement]} here, ${/^[aeiou]/i.test(singular) ? "an" : "a"} `
      + `${singular}. Find a better move for ${move.color === "white" ? "White" : "Black"}.`;
    this.lessonPrompt.dataset.judgement = move.judgement;
    this.lessonPrompt.title = name;
    this.feedback("", "");
    this.solution.hidden = false;
    this.nextButton.textContent = "Skip";
  }

  feedback(kind, text, detail = "") {
    const box = this.feedbackBox;
    box.dataset.kind = kind;
    box.replaceChildren(el("strong", {}, text), detail ? el("span", {}, ` ${detail}`) : "");
  }

  /** The lesson is solved or its solution shown: "Next", or "Finish" after the last one. */
  showNext(last, solved = false) {
    if (solved) this.solution.hidden = true;
    this.nextButton.textContent = last ? "Finish" : "Next";
  }

  /** The lessons' summary: `found` of `total` (`first` at the first try), one line a lesson. */
  showSummary(lessons, { found, first, total }) {
    const list = this.summaryList;
    list.replaceChildren();
    for (const { move, label, result } of lessons) {
      list.append(el("li", { "data-result": result },
        `${label}${label.endsWith(".") ? " " : ""}${move.san}${GLYPHS[move.judgement]}: `
        + `${RESULT_WORDS[result]} (best was ${move.best_san})`));
    }
    this.summaryText.textContent = `You found ${found} of ${total} better `
      + `${total === 1 ? "move" : "moves"}${first !== found ? ` (${first} at the first try)` : ""}.`;
    this.summaryBox.hidden = false;
  }
}
