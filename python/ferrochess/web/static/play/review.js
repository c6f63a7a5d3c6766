// The review after a game, as lichess does it after a computer analysis: this controller owns the
// review's state; review_view.js draws the panel, review_graph.js the evaluation graph, learn.js
// (with learn_view.js) runs "learn from your mistakes". The server does all the chess:
// POST /api/review streams the analysis (analyse_game's result), /api/state describes each
// position to set up (legal destinations included), /api/judge grades a try. These modules only
// draw what they say: progress, an evaluation graph, each side's accuracy, the annotated move
// list, and the lessons. They never decide what is legal.
//
// The review's own states, one table (every change goes through `enter`):
//
//   idle ──open()──> analysing ──review──> reviewed ──"Learn"──> learning ──finish──> reviewed
//    │                 │  └──error──> error ─┐
//    │                 └──Cancel──> cancelled┴─"Try again"/open()──> analysing
//    └──restore()──> reviewed   (the review kept with the game, shown again after a reload)
//
// The panel's Cancel button stops the analysis and says so (`cancelled`); the page's cancel() (the
// game changed: new game, takeback, another tab) stops whatever runs and hides the panel (`idle`).
// Both free the server's engine: the review's stream is dropped and api/cancel is sent.
//
// The review is kept with the game (play_ctrl.js saves `kept()` beside it; `adopt` and `restore`
// bring it back after a reload without analysing again), keyed to the game's start and moves.

import { describeError } from "../ui/errors.js";
import { Learn } from "./learn.js";
import { ReviewGraph } from "./review_graph.js";
import { lessonsOf, squaresOf } from "./review_util.js";
import { ReviewPanel } from "./review_view.js";
import { startOf } from "./variant.js";

export { VERDICTS } from "./learn.js";
export {
  GLYPHS,
  hasBetter,
  lessonsOf,
  moveLabel,
  reviewedPosition,
  squaresOf,
  whitePercents,
} from "./review_util.js";

export const TRANSITIONS = Object.freeze({
  idle: ["analysing", "error", "reviewed"],
  analysing: ["reviewed", "cancelled", "error", "idle"],
  reviewed: ["learning", "analysing", "error", "idle"],
  learning: ["reviewed", "idle"],
  cancelled: ["analysing", "idle"],
  error: ["analysing", "idle"],
});

/** What identifies a reviewed game: its start and its moves. */
const keyOf = (game) => JSON.stringify([game.fen, game.moves]);

export class Review {
  /**
   * @param {object} options
   * @param {HTMLElement} options.container where the panel is drawn (its content is the panel's)
   * @param {{request: Function, stream: Function, cancel: Function}} options.transport
   * @param {object} options.board board.js: show, setMoveHandler, arrows, setOrientation
   * @param {string} [options.clientId] sent with the review, for /api/cancel
   * @param {() => {fen: string, moves: string[], human: string, end?: object}} options.getGame
   * @param {(ply: number) => void} options.onJump show the position after `ply` plies
   * @param {() => void} options.onDone back to the live position (after the lessons)
   * @param {(ply: number, fen: string) => void} [options.onLesson] the lessons show a position
   *   on the board: the one after `ply` plies of the game, or a try from it (its FEN)
   * @param {(state: string, previous: string) => void} [options.onState] told each change of
   *   state (the page's game machine follows: analysing = "review", reviewed = "reviewed" or
   *   "learned", learning = "learn", cancelled/error/idle = "stopped")
   * @param {((ply: number) => void)|null} [options.onAnalyse] opens the analysis board at the
   *   position after `ply` plies (the panel's "Analyse on the board"; none without it)
   */
  constructor({ container, transport, board, clientId, getGame, onJump, onDone, onLesson, onState,
    onAnalyse = null }) {
    this.container = container;
    this.transport = transport;
    this.board = board;
    this.clientId = clientId;
    this.getGame = getGame;
    this.onJump = onJump || (() => {});
    this.onDone = onDone || (() => {});
    this.onLesson = onLesson || (() => {});
    this.onState = onState || (() => {});
    this.onAnalyse = onAnalyse;
    this.state = "idle";
    this.abort = null; // aborts the running analysis's stream
    this.review = null; // analyse_game's result for `this.game`
    this.game = null; // the game reviewed: {fen, moves, human, end}
    this.key = null; // what identifies that game, so a second open() reuses the review
    this.selected = null; // the ply the panel highlights
    this.generation = 0; // bumped on every cancel/restart: stale answers are dropped
    this.startNumber = 1; // the number of the game's first move (the server's `fullmove`)
    this.learn = new Learn(this);
    this.graph = new ReviewGraph((ply) => this.jump(ply));
    this.view = new ReviewPanel(this, container, { graph: this.graph, lessons: this.learn.view,
      analyse: Boolean(onAnalyse) });
    this.enter("idle");
  }

  /** Start the analysis of the game as getGame() gives it (or show the review already made). */
  open() {
    if (this.state === "analysing") return;
    if (this.state === "learning") this.learn.stop();
    const game = this.getGame();
    const key = keyOf(game);
    this.game = game;
    if (this.review && key === this.key) {
      this.#showReview();
      return;
    }
    this.review = null;
    this.key = key;
    if (!game.moves || !game.moves.length) {
      this.enter("error");
      this.view.showMessage("There are no moves to review yet.", false);
      return;
    }
    this.#analyse(game);
  }

  /** The game changed: stop whatever runs (the analysis, whose engine the server frees, or the
   * lessons), forget the review and hide the panel. */
  cancel() {
    if (this.state === "analysing") this.#abortAnalysis();
    if (this.state === "learning") this.learn.stop();
    this.generation += 1;
    this.review = null;
    this.key = null;
    this.enter("idle");
  }

  /** What to keep with the game: `{fen, moves, startNumber, review}` while the review made is
   * the current game's, else null. */
  kept() {
    if (!this.review || !this.game || keyOf(this.getGame()) !== this.key) return null;
    const { fen, moves } = this.game;
    return { ...startOf({ fen, chess960: this.game.chess960 }), moves: moves.slice(), startNumber: this.startNumber,
      review: this.review };
  }

  /** Takes a review kept with the game (`kept()`'s, from storage; checked for shape only) before
   * the game is loaded, so that saving the game meanwhile keeps it; `restore` shows it. */
  adopt(kept) {
    if (this.state !== "idle" || !kept || typeof kept !== "object" || typeof kept.fen !== "string"
      || !Array.isArray(kept.moves) || !kept.review || !Array.isArray(kept.review.moves)
      || kept.review.moves.length !== kept.moves.length) return;
    this.game = { fen: kept.fen, chess960: kept.chess960 === true, moves: kept.moves.slice() };
    this.key = keyOf(this.game);
    this.review = kept.review;
    this.startNumber = Number.isInteger(kept.startNumber) ? kept.startNumber : 1;
  }

  /** The game is loaded: the adopted review shows (reviewed, no analysis) when the game is
   * `over` and the one it reviewed; otherwise it is forgotten. Whether it shows. */
  restore(over) {
    if (this.state !== "idle" || !this.review) return false;
    const game = this.getGame();
    if (!over || keyOf(game) !== this.key) {
      this.review = null;
      this.key = null;
      return false;
    }
    this.game = game;
    this.learn.view.hideSummary();
    this.#showReview();
    return true;
  }

  /** "Analyse on the board": the analysis board at the position selected (the last: none). */
  analyse() {
    if (this.state !== "reviewed" || !this.onAnalyse) return;
    this.onAnalyse(this.selected ?? this.game.moves.length);
  }

  /** The panel's Cancel button: stop the analysis and say so. */
  cancelAnalysis() {
    if (this.state !== "analysing") return;
    this.#abortAnalysis();
    this.enter("cancelled");
    this.view.showMessage("The review was cancelled.", true);
  }

  /** The board shows the position after `ply` plies (null: the live position): highlight that
   * move in the list and the graph and, once reviewed, draw the engine's best move there as a
   * blue arrow. The page calls this whenever it steps through the game (keys, its move list). */
  select(ply) {
    this.selected = ply;
    this.view.select(ply);
    this.graph.select(ply);
    if (this.state !== "reviewed" || !this.review) return;
    const next = ply == null ? null : this.review.moves[ply]; // its best_move is this position's
    const arrow = next && squaresOf(next.best_move);
    this.board.arrows(arrow ? [{ ...arrow, brush: "blue" }] : []);
  }

  /** The position after `ply` (a move or the graph clicked), with the engine's best move there
   * as a blue arrow. */
  jump(ply) {
    if (this.state !== "reviewed") return;
    this.onJump(ply);
    this.select(ply);
  }

  /** The position before a judged move, with the better move as a green arrow. */
  jumpToBetter(move) {
    if (this.state !== "reviewed") return;
    this.onJump(move.ply - 1);
    this.select(move.ply - 1);
    const better = squaresOf(move.best_move);
    const played = squaresOf(move.move);
    const arrows = [];
    if (played) arrows.push({ ...played, brush: "red" });
    if (better) arrows.push({ ...better, brush: "green" });
    this.board.arrows(arrows);
  }

  /** The one way the review's state changes (TRANSITIONS); the panel shows the state's part. */
  enter(state) {
    if (state !== this.state && !TRANSITIONS[this.state].includes(state)) {
      throw new Error(`review: no transition from ${this.state} to ${state}`);
    }
    const previous = this.state;
    this.state = state;
    this.view.showState(state);
    if (state !== previous) this.onState(state, previous);
  }

  // --- the analysis -----------------------------------------------------------------------------

  async #analyse(game) {
    const generation = ++this.generation;
    this.learn.view.hideSummary(); // the lessons' summary of an earlier review
    this.enter("analysing");
    this.#progress(0, game.moves.length + 1);
    const body = { ...startOf(game), moves: game.moves, client: this.clientId };
    if (game.end) body.end = game.end;
    let outcome = null;
    const numbered = this.#numberMoves(game, generation);
    const abort = typeof AbortController === "function" ? new AbortController() : null;
    this.abort = abort;
    try {
      await this.transport.stream("api/review", body, (line) => {
        if (generation !== this.generation || outcome) return;
        if ("progress" in line) this.#progress(line.progress, line.total);
        else if ("review" in line) outcome = { review: line.review };
        else if (line.cancelled) outcome = { cancelled: true };
        else if ("error" in line) outcome = { error: line.error };
      }, abort ? { signal: abort.signal } : undefined);
    } catch (error) {
      outcome = outcome || { failed: describeError(error), status: error && error.status };
    }
    if (generation !== this.generation) return; // cancelled or restarted meanwhile
    if (outcome && outcome.review) {
      await numbered;
      if (generation !== this.generation) return;
      this.review = outcome.review;
      this.#showReview();
    } else if (outcome && (outcome.cancelled || outcome.status === 409)) {
      this.enter("cancelled");
      this.view.showMessage("The review was cancelled.", true);
    } else {
      this.enter("error");
      let words = "The server stopped answering before the review was finished.";
      if (outcome && outcome.failed) words = `${outcome.failed} The review did not finish.`;
      else if (outcome) words = `The review failed on the server: ${outcome.error}`;
      this.view.showMessage(words, true);
    }
  }

  /** The start position's move number, from the server (no FEN is read here). */
  async #numberMoves(game, generation) {
    try {
      const start = await this.transport.request("api/state", { ...startOf(game), moves: [] });
      if (generation === this.generation && Number.isInteger(start.fullmove)) {
        this.startNumber = start.fullmove;
      }
    } catch {
      // the numbers start at 1: the review itself says what failed, if anything did
    }
  }

  #abortAnalysis() {
    this.generation += 1;
    if (this.abort) this.abort.abort(); // stop reading; the server also stops a dropped review
    this.abort = null;
    try {
      const sent = this.transport.cancel(this.clientId);
      if (sent && typeof sent.catch === "function") sent.catch(() => {});
    } catch {
      // the server is gone: nothing runs there to stop
    }
  }

  #progress(done, total) {
    this.view.showProgress(done, total, this.game.moves.length);
  }

  #showReview() {
    this.enter("reviewed");
    const review = this.review;
    this.graph.draw(review.moves);
    const lessons = lessonsOf(review.moves, this.game.human);
    this.view.drawReview(review, { human: this.game.human, startNumber: this.startNumber,
      lessons: lessons.length });
    this.select(null);
  }
}
