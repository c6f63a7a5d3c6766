// The training page's controller (lichess's ui/puzzle ctrl): it owns the puzzle being solved, the
// player's rating and schedule as the server last told them, and one explicit state machine; the
// view (view.js) draws what it holds. The page (/train) and the notebook widget both mount it
// (app.js), each over its own transport.
//
// No chess rule lives here: every move, the solver's and the opponent's, goes to the server
// (api/state), which says whether it is legal, what it is called and whether it mates. The
// controller only compares the server's move with the puzzle's line: the solver's move is right
// when it is the line's, when it mates (as lichess counts a mate that is not the line's), or, as
// the first move, when the puzzle accepts it (`accept`: an opening drill's book moves). The
// first wrong move fails the puzzle; the attempt is posted once, when it is solved or failed.
// A Chess960 puzzle is asked about with `chess960: true` (../play/variant.js), so the server's
// moves castle as the king taking its own rook, the way chessground (its rookCastle) plays them.

import { describeError } from "../ui/errors.js";
import { createBoard } from "../play/board.js";
import { trainApi } from "./api.js";
import { TrainView } from "./view.js";

/** The states and every transition between them; `fire(event)` throws on an event the state
 * does not take. */
export const TRANSITIONS = Object.freeze({
  // Asking the server for the next puzzle due (and its line, judged).
  loading: { puzzle: "solving", empty: "empty", failed: "error" },
  // The solver to move on the board.
  solving: { moved: "checking" },
  // The solver's move is with the server.
  checking: { right: "replying", solved: "solved", wrong: "failed", refused: "solving", failed: "error" },
  // A right move: the opponent's reply comes after a short pause.
  replying: { replied: "solving", solved: "solved", failed: "error" },
  // The puzzle is over (the attempt is posted): "Next".
  solved: {},
  failed: {},
  // Nothing due: "Find puzzles in my games".
  empty: { mine: "mining" },
  // The server is looking for puzzles in the player's games.
  mining: { mined: "empty", failed: "error" },
  // The server could not be reached or refused: "Try again".
  error: {},
});
/** Events every state takes. */
export const FROM_ANY_STATE = Object.freeze({ load: "loading" });

/** How long the opponent takes to reply to a right move, in ms (lichess's pause). */
export const REPLY_DELAY_MS = 500;

export class TrainCtrl {
  /**
   * @param {object} options
   * @param {HTMLElement} options.root the UI's root; @param {object} options.ui its elements
   * @param {object} options.transport request(path, body) (../play/api.js's, the widget's)
   * @param {string} options.player the player's id
   * @param {(gameId: string) => string|null} [options.gameUrl] a source game's page, or none
   * @param {string|null} [options.playUrl] the play page ("Play a game" when nothing is due)
   * @param {number} [options.replyDelay] REPLY_DELAY_MS unless given
   */
  constructor({ root, ui, transport, player, gameUrl = null, playUrl = null, replyDelay = REPLY_DELAY_MS }) {
    Object.assign(this, { root, api: trainApi(transport, player), gameUrl, playUrl, replyDelay });
    this.state = "loading";
    this.epoch = 0; // counts the puzzles shown: an answer for an earlier one is dropped
    this.timer = null;
    this.destroyed = false;
    this.clear();
    this.rating = null; // {rating, deviation, ...} as the server last said
    this.counts = null; // {due, total}
    this.mined = null; // what the last search of the player's games found
    this.board = createBoard(ui.board, { onMove: (uci) => this.boardMove(uci) });
    this.view = new TrainView(root, ui, this);
  }

  /** Forgets the puzzle shown. */
  clear() {
    Object.assign(this, {
      puzzle: null, card: null, line: null, start: null, position: null, solver: "white",
      played: [], feedback: null, wrong: null, result: null, attempt: null, error: null, shownAt: null,
    });
  }

  fire(event) {
    const next = FROM_ANY_STATE[event] || TRANSITIONS[this.state][event];
    if (!next) throw new Error(`the training page cannot take "${event}" while ${this.state}`);
    this.state = next;
    this.view.render();
  }

  // --- a puzzle -------------------------------------------------------------------------------

  /** The next puzzle due, its line and its first position from the server. */
  async load() {
    const epoch = ++this.epoch;
    clearTimeout(this.timer);
    this.clear();
    this.fire("load");
    try {
      const answer = await this.api.next();
      if (epoch !== this.epoch) return;
      this.#heard(answer);
      if (!answer || !answer.puzzle) {
        this.fire("empty");
        return;
      }
      const puzzle = answer.puzzle;
      const [start, line] = await Promise.all([this.api.position(puzzle, []), this.api.position(puzzle, puzzle.moves)]);
      if (epoch !== this.epoch) return;
      Object.assign(this, { puzzle, card: answer.card || null, start, line, position: start, solver: start.turn,
        shownAt: Date.now(), mined: null });
      this.fire("puzzle");
      this.#draw(start);
    } catch (error) {
      if (epoch === this.epoch) this.#failed(error);
    }
  }

  /** The solver's move on the board (UCI), judged by the server. */
  async boardMove(uci) {
    if (this.state !== "solving") return;
    const epoch = this.epoch;
    const index = this.played.length;
    this.fire("moved");
    let after;
    try {
      after = await this.api.position(this.puzzle, [...this.played, uci]);
    } catch (error) {
      if (epoch !== this.epoch) return;
      if (error && error.status === 400) {
        this.fire("refused"); // not a legal move after all: the position as it was
        this.#draw(this.position);
      } else {
        this.#failed(error);
      }
      return;
    }
    if (epoch !== this.epoch) return;
    const move = after.moves[after.moves.length - 1];
    const expected = this.puzzle.moves[index];
    const mates = Boolean(after.status && after.status.over && after.status.winner === this.solver);
    const accepted = index === 0 && (this.puzzle.accept || []).includes(move); // an opening's book moves
    if (move !== expected && !mates && !accepted) {
      this.wrong = { move, san: after.san[after.san.length - 1], index };
      this.feedback = "wrong";
      this.fire("wrong");
      this.#draw(this.position, { arrow: expected });
      this.#finish(false);
      return;
    }
    this.played.push(move);
    this.position = after;
    const over = Boolean(after.status && after.status.over);
    if (over || move !== expected || this.played.length >= this.puzzle.moves.length) {
      this.feedback = "solved";
      this.fire("solved");
      this.#draw(after);
      this.#finish(true);
      return;
    }
    this.feedback = "best";
    this.fire("right");
    this.#draw(after);
    this.timer = setTimeout(() => this.#reply(epoch), this.replyDelay);
  }

  /** The opponent's reply: the line's next move. */
  async #reply(epoch) {
    if (epoch !== this.epoch || this.state !== "replying") return;
    const reply = this.puzzle.moves[this.played.length];
    try {
      const after = await this.api.position(this.puzzle, [...this.played, reply]);
      if (epoch !== this.epoch) return;
      this.played.push(reply);
      this.position = after;
      if (this.played.length >= this.puzzle.moves.length) {
        this.feedback = "solved";
        this.fire("solved");
        this.#draw(after);
        this.#finish(true);
        return;
      }
      this.fire("replied");
      this.#draw(after);
    } catch (error) {
      if (epoch === this.epoch) this.#failed(error);
    }
  }

  /** Posts the attempt (once a puzzle: the first try decides); sent again by "Try again". */
  async #finish(solved) {
    if (this.attempt && this.attempt.state !== "error") return;
    const epoch = this.epoch;
    const before = this.result ? this.result.before : this.rating;
    const seconds = this.shownAt === null ? null : Math.round((Date.now() - this.shownAt) / 100) / 10;
    this.attempt = { state: "sending", solved, error: null };
    this.view.render();
    try {
      const answer = await this.api.attempt(this.puzzle.id, solved, seconds);
      if (epoch !== this.epoch) return;
      this.result = { solved, before, after: answer.rating || null, card: answer.card || null,
        rated: answer.rated !== false, puzzleRating: answer.puzzle_rating || null };
      if (answer.card) this.card = answer.card;
      this.#heard(answer);
      this.attempt = { state: "sent", solved, error: null };
    } catch (error) {
      if (epoch !== this.epoch) return;
      this.attempt = { state: "error", solved, error: describeError(error) };
    }
    this.view.render();
  }

  retryAttempt() {
    if (this.attempt && this.attempt.state === "error") this.#finish(this.attempt.solved);
  }

  /** "Next": the next puzzle due, once this one is over. */
  next() {
    if (this.state === "solved" || this.state === "failed" || this.state === "error") this.load();
  }

  /** "Find puzzles in my games": the server searches the player's archived games a few at a
   * time (asked again while some are left; `mined` counts what was done so far), then the next
   * puzzle due. */
  async mine() {
    if (this.state !== "empty") return;
    const epoch = ++this.epoch;
    this.mined = { games: 0, cards: 0, left: null };
    this.fire("mine");
    try {
      for (;;) {
        const answer = await this.api.mine();
        if (epoch !== this.epoch) return;
        const { games = 0, cards = 0, left = 0 } = answer || {};
        this.mined = { games: this.mined.games + games, cards: this.mined.cards + cards, left };
        this.view.render();
        if (!(left > 0 && games > 0)) break;
      }
    } catch (error) {
      if (epoch === this.epoch) this.#failed(error);
      return;
    }
    this.fire("mined");
    this.load();
  }

  // --- inside ---------------------------------------------------------------------------------

  /** The rating and counts an answer carries, kept. */
  #heard(answer) {
    if (!answer || typeof answer !== "object") return;
    if (answer.rating) this.rating = answer.rating;
    if (answer.counts) this.counts = answer.counts;
  }

  #failed(error) {
    clearTimeout(this.timer);
    this.error = describeError(error);
    this.fire("failed");
  }

  /** The board at `state` (api/state's), the solver's side down, movable only while solving;
   * `arrow` marks a move (the line's, after a wrong one). */
  #draw(state, { arrow = null } = {}) {
    if (this.destroyed) return;
    this.board.show({
      fen: state.fen, orientation: this.solver, turn: state.turn, dests: state.dests,
      legalMoves: state.legal_moves, lastMove: state.last_move, check: state.check,
      movable: this.state === "solving" ? this.solver : null, premovable: false,
    });
    this.board.arrows(arrow ? [{ from: arrow.slice(0, 2), to: arrow.slice(2, 4), brush: "green" }] : []);
  }

  /** Draws again once the state changed (the board becomes movable when solving). */
  redraw() {
    if (this.position) this.#draw(this.position);
  }

  destroy() {
    this.destroyed = true;
    this.epoch += 1;
    clearTimeout(this.timer);
    this.board.destroy();
  }
}
