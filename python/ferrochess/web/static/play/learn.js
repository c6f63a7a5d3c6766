// "Learn from your mistakes", as lichess does it after a computer analysis: the human's mistakes
// one by one, each set up on the board to find a better move. The server sets up each position
// (/api/state, its legal destinations included) and grades each try (/api/judge); this controller
// keeps the lessons' progress and borrows the board from the page while they run. Its part of the
// review's machine: reviewed -> learning -> reviewed, through the review's `enter`.

import { describeError } from "../ui/errors.js";
import { LearnView } from "./learn_view.js";
import { startOf } from "./variant.js";
import { lessonsOf, moveLabel, squaresList, squaresOf } from "./review_util.js";

/** Which verdicts of /api/judge solve a lesson, and the words for each (lichess's). */
export const VERDICTS = Object.freeze({
  best: { solved: true, words: "Good move!", detail: "is the engine's best move." },
  good: { solved: true, words: "Good move!", detail: "works too." },
  inaccuracy: { solved: false, words: "You can do better.", detail: "is playable, but there is "
    + "better. Try another move." },
  mistake: { solved: false, words: "That's not it.", detail: "gives too much away. Try "
    + "something else." },
  blunder: { solved: false, words: "That's not it.", detail: "gives too much away. Try "
    + "something else." },
});

export class Learn {
  /** @param {object} root review.js's Review: its state, game, review, board, transport and
   *  `generation` (bumped here too, so that an answer for an earlier lesson is dropped) */
  constructor(root) {
    this.root = root;
    this.lesson = null; // while learning: {list, index, results, position, prefix, busy, ...}
    this.view = new LearnView(this);
  }

  /** The review's "Learn from your mistakes": the first lesson on the board. */
  start() {
    const root = this.root;
    if (root.state !== "reviewed") return;
    const list = lessonsOf(root.review.moves, root.game.human);
    if (!list.length) return;
    this.lesson = { list, index: 0, results: [], position: null, prefix: [], busy: false,
      previousHandler: null, attempts: 0, shown: false };
    root.board.setOrientation(root.game.human);
    const previous = root.board.setMoveHandler((uci) => this.#try(uci));
    this.lesson.previousHandler = typeof previous === "function" ? previous : null;
    this.view.hideSummary();
    this.view.lessonBox.hidden = false;
    root.enter("learning");
    this.#setUpLesson();
  }

  /** Give the board back to the page: its move handler, no arrows. */
  stop() {
    const lesson = this.lesson;
    this.lesson = null;
    this.root.generation += 1;
    if (!lesson) return;
    this.root.board.setMoveHandler(lesson.previousHandler);
    this.root.board.arrows([]);
  }

  /** "Back to the review": the lessons end without a summary. */
  leave() {
    const root = this.root;
    if (root.state !== "learning") return;
    this.stop();
    this.view.hideSummary();
    root.enter("reviewed");
    root.select(null);
    root.onDone();
  }

  showSolution() {
    const lesson = this.lesson;
    if (!lesson) return;
    const move = lesson.list[lesson.index];
    lesson.shown = true;
    if (!lesson.results[lesson.index]) lesson.results[lesson.index] = "shown";
    const better = squaresOf(move.best_move);
    if (lesson.position) this.#showBoard(true);
    if (better) this.root.board.arrows([{ ...better, brush: "green" }]);
    this.view.feedback("solution", `The best move was ${move.best_san}.`,
      "Play it on the board, or go on.");
    this.view.showNext(this.#isLast());
  }

  /** "Skip", "Next" or "Finish". */
  next() {
    const lesson = this.lesson;
    if (!lesson) return;
    if (!lesson.results[lesson.index]) lesson.results[lesson.index] = "skipped";
    if (this.#isLast()) {
      this.#finish();
      return;
    }
    lesson.index += 1;
    this.#setUpLesson();
  }

  async #setUpLesson() {
    const { root, lesson } = this;
    const move = lesson.list[lesson.index];
    const generation = ++root.generation;
    lesson.prefix = root.game.moves.slice(0, move.ply - 1);
    lesson.position = null;
    lesson.attempts = 0;
    lesson.shown = false;
    this.view.showLesson(move, this.#label(move), lesson.index, lesson.list.length);
    try {
      const position = await root.transport.request("api/state",
        { ...startOf(root.game), moves: lesson.prefix });
      if (generation !== root.generation) return;
      lesson.position = position;
      this.#showBoard(true);
    } catch (error) {
      if (generation !== root.generation) return;
      this.view.feedback("error", describeError(error));
    }
  }

  #showBoard(movable, position = this.lesson.position) {
    const board = this.root.board;
    board.show({
      fen: position.fen, orientation: this.root.game.human, turn: position.turn,
      dests: movable ? position.dests : {}, legalMoves: movable ? position.legal_moves : [],
      lastMove: squaresList(position.last_move),
      check: position.check || false, movable, premovable: false,
    });
    board.arrows([]);
    this.root.onLesson(this.lesson.prefix.length, position.fen);
  }

  async #try(uci) {
    const { root, lesson } = this;
    if (root.state !== "learning" || !lesson || !lesson.position || lesson.busy) return;
    const generation = root.generation;
    const game = root.game;
    lesson.busy = true;
    lesson.attempts += 1;
    this.view.feedback("pending", "Checking your move…");
    try {
      const judged = await root.transport.request("api/judge",
        { ...startOf(game), moves: lesson.prefix, move: uci, client: root.clientId });
      if (generation !== root.generation) return;
      const verdict = VERDICTS[judged.verdict] || VERDICTS.mistake;
      if (verdict.solved) {
        if (!lesson.shown) lesson.results[lesson.index] = lesson.attempts === 1 ? "found" : "found-later";
        const after = await root.transport.request("api/state",
          { ...startOf(game), moves: [...lesson.prefix, uci] });
        if (generation !== root.generation) return;
        this.#showBoard(false, after);
        const detail = judged.verdict === "best" || !judged.best_san
          ? `${judged.san} ${verdict.detail}`
          : `${judged.san} ${verdict.detail} The engine's choice was ${judged.best_san}.`;
        this.view.feedback("good", verdict.words, detail);
        this.view.showNext(this.#isLast(), true);
      } else {
        this.#showBoard(true);
        const tried = squaresOf(uci);
        if (tried) root.board.arrows([{ ...tried, brush: "red" }]);
        this.view.feedback(judged.verdict === "inaccuracy" ? "better" : "wrong",
          verdict.words, `${judged.san} ${verdict.detail}`);
      }
    } catch (error) {
      if (generation !== root.generation) return;
      this.#showBoard(true);
      this.view.feedback("error", describeError(error));
    } finally {
      if (generation === root.generation) lesson.busy = false;
    }
  }

  #isLast() {
    return this.lesson.index >= this.lesson.list.length - 1;
  }

  #label(move) {
    return moveLabel(move, this.root.startNumber, this.root.review.moves[0].color);
  }

  #finish() {
    const lesson = this.lesson;
    const total = lesson.list.length;
    const found = lesson.results.filter((r) => r === "found" || r === "found-later").length;
    const first = lesson.results.filter((r) => r === "found").length;
    this.stop();
    const lessons = lesson.list.map((move, i) =>
      ({ move, label: this.#label(move), result: lesson.results[i] || "skipped" }));
    this.view.showSummary(lessons, { found, first, total });
    this.root.enter("reviewed");
    this.root.select(null);
    this.root.onDone();
  }
}
