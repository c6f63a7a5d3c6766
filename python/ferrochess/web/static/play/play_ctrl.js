// The play UI's controller (lichess's ui/analyse ctrl.ts): it owns the state around the game and
// every module that acts on it: the board (board.js), the game and its machine (game.js), the
// review (review.js), the store (persist.js), the games archive's outbox (archive.js, where the
// page has an archive). It hears the game's changes and the user's actions, changes its state, and
// tells the view (play_view.js) and the settings form (settings.js) what to draw.
//
// Its state: the levels the server lists, the ply shown while stepping through the game (null: the
// live position), the user's show-engine choice for this game (null: the level's default), the
// board's orientation, the evaluation bar's score (kept across book moves), the plies the sounds
// were played for, the game another tab took (while this one is stale), and whether "Resign" is
// asking to be confirmed (lichess's way: a second click resigns; cancel, Escape or a few seconds
// without it do not). The review is kept
// with the game (saved and restored beside it); "Analyse" hands the game to the analysis board
// (handoff.js) where the host has one (`analysis.url`: the page's, none in the notebook). A
// finished game and its review go to the archive, kept by archive.js until they are stored.

import { describeError } from "../ui/errors.js";
import { ArchiveOutbox, finishedGame } from "./archive.js";
import { createBoard } from "./board.js";
import { PlayGame, START_FEN, other } from "./game.js";
import { openAnalysis, pgnRequest } from "./handoff.js";
import { GameStore } from "./persist.js";
import { PlayView } from "./play_view.js";
import { Review, reviewedPosition } from "./review.js";
import { SettingsForm } from "./settings.js";
import { soundOfSan } from "./sounds.js";

const TICK_MS = 100;
/** How long "Confirm resign?" waits for its second click before it goes back to "Resign". */
export const RESIGN_CONFIRM_MS = 5000;
/** The review's states (review.js) and the game's events that follow each, the first it takes. */
const FOLLOW_REVIEW = Object.freeze({ analysing: ["review"], reviewed: ["reviewed", "learned", "restored"],
  learning: ["learn"], idle: ["stopped"], cancelled: ["stopped"], error: ["stopped"] });

export class PlayCtrl {
  /**
   * @param {object} options
   * @param {HTMLElement} options.root the play UI's root; @param {object} options.ui its elements
   * @param {object} options.transport request/stream/cancel; @param {string} options.clientId
   * @param {object} options.sounds sounds.js's Sounds
   * @param {object} options.store persist.js's options: storage, key, syncTabs
   * @param {{url: string|null, navigate: (url: string) => void}} [options.analysis] the analysis
   *   board's URL (null: none, the buttons hidden) and how to go there
   * @param {string|null} [options.archive] the games archive's list (its URL), or null: none
   */
  constructor({ root, ui, transport, clientId, sounds, store, analysis = { url: null, navigate: null },
    archive = null }) {
    Object.assign(this, { transport, analysis, archiveUrl: archive, clientId, sounds });
    // The state (soundedPlies: null before the first position).
    Object.assign(this, { levels: [], viewPly: null, showEngine: null, orientation: "white", piecesReady: false,
      soundedPlies: null, lastScore: null, staleSaved: null, confirmingResign: false, destroyed: false });
    this.resignTimer = null;
    this.board = createBoard(ui.board, { onMove: (uci) => this.boardMove(uci) });
    this.game = new PlayGame({ transport, clientId, onChange: (what) => this.changed(what) });
    const game = this.game;
    this.review = new Review({
      container: ui.review, transport, board: this.board, clientId,
      getGame: () => ({ fen: game.fen, chess960: game.chess960, moves: game.moves.slice(), human: game.human,
        end: game.end }),
      onJump: (ply) => this.showPly(ply),
      onDone: () => this.showLive(),
      onLesson: (ply, fen) => this.showLesson(ply, fen),
      onState: (state) => this.reviewChanged(state),
      onAnalyse: analysis.url ? (ply) => this.analyse(ply) : null, // the panel's "Analyse on the board"
    });
    this.previousPhase = game.phase;
    this.view = new PlayView(root, ui, this);
    this.form = new SettingsForm(ui, this);
    this.store = new GameStore({ ...store, owner: clientId, onOtherTab: (saved) => this.#otherTab(saved) });
    this.archive = archive ? new ArchiveOutbox({ transport, storage: store.storage,
      onChange: (id) => id === this.game.record.id && this.view.renderArchive() }) : null;
    this.ticker = null;
  }

  // --- what the game tells us -------------------------------------------------------------------

  changed(what) {
    if (this.destroyed) return;
    if (what === "phase") this.#phaseChanged();
    if (what === "position") this.#positionChanged();
    if (what === "engine") this.#engineReplied();
    if (what === "message") this.view.renderMessage();
    if (what === "clock") this.view.renderClocks();
    this.save();
    this.view.renderControls();
  }

  #phaseChanged() {
    const phase = this.game.phase;
    const previous = this.previousPhase;
    if (phase === "over" && (previous === "ready" || previous === "thinking")) {
      this.sounds.play("end");
      this.showEngine = null; // on after the game
    }
    if (phase !== "ready" && phase !== "thinking") this.cancelResign();
    if (phase === "stale") this.view.renderStale();
    if (phase === "over" && this.archive) this.archive.submit(finishedGame(this.game));
    this.previousPhase = phase;
    this.view.renderState();
    this.view.renderBanner();
    this.view.renderArchive();
    this.view.renderEngineDisplay();
    if (phase !== "learning" && phase !== "reviewing" && phase !== "reviewed") this.view.renderBoard();
  }

  #positionChanged() {
    const state = this.game.state;
    if (!state) return;
    this.viewPly = null;
    if (this.soundedPlies !== null && state.moves.length === this.soundedPlies + 1) {
      this.sounds.play(soundOfSan(state.san[state.san.length - 1]));
    }
    this.soundedPlies = state.moves.length;
    this.view.renderBoard();
    this.view.renderMovesList();
    this.view.renderBanner();
    this.view.renderOpening(state);
    this.view.renderFen(state.fen);
  }

  #engineReplied() {
    const reply = this.game.reply;
    if (reply && reply.source !== "book" && reply.score) this.lastScore = reply.score;
    this.view.renderEngineDisplay();
  }

  /** The review's machine moved to `state`: the game's machine follows. */
  reviewChanged(state) {
    const game = this.game;
    if (state === "reviewed" && this.archive) this.archive.addReview(game.record.id, this.review.review);
    for (const event of FOLLOW_REVIEW[state] || []) {
      if (game.can(event) && !["load", "superseded"].includes(event) && game.phase !== "loading") {
        game.fire(event);
        return;
      }
    }
  }

  /** Whether the engine panel and the evaluation bar show. */
  engineVisible() {
    if (this.showEngine !== null) return this.showEngine;
    const over = !["loading", "ready", "thinking", "error", "stale"].includes(this.game.phase);
    // Full strength is the strongest level the server lists (no number copied from the core).
    return over || (this.levels.length > 0 && this.levels.every((level) => level.number <= this.game.level));
  }

  // --- stepping through the game -------------------------------------------------------------------

  boardMove(uci) {
    if (this.viewPly !== null || this.game.phase !== "ready") return;
    this.game.playHuman(uci);
  }

  /** Shows the position after `ply` plies (stepping through the game); the live one at the end. */
  showPly(ply) {
    const { game } = this;
    const state = game.state;
    if (!state || !state.positions) return;
    const last = state.positions.length - 1;
    const target = Math.max(0, Math.min(last, ply));
    if (target === last && ["ready", "thinking", "over"].includes(game.phase)) {
      this.showLive();
      return;
    }
    this.viewPly = target;
    this.view.renderPast(state.positions[target]);
    this.view.renderMovesList();
    this.view.renderControls();
    if (this.review && ["reviewing", "reviewed"].includes(game.phase)) this.review.select(target);
    this.view.renderEngineDisplay();
  }

  showLive() {
    this.viewPly = null;
    if (this.review && this.game.phase === "reviewed") this.review.select(null); // its highlight and arrow go
    this.board.arrows([]);
    if (this.game.state) this.view.renderFen(this.game.state.fen);
    this.view.renderBoard();
    this.view.renderMovesList();
    this.view.renderControls();
    this.view.renderEngineDisplay();
  }

  /** The finished review's word on the position shown (score, best move, line), else null. */
  reviewedPosition() {
    const { game, review } = this;
    if (game.phase !== "reviewed" || review.state !== "reviewed" || !review.review) return null;
    return reviewedPosition(review.review, this.viewPly ?? game.moves.length);
  }

  /** Whether "Analyse" can open the analysis board: there is one, and a game to take there. */
  canAnalyse() {
    return Boolean(this.analysis.url && this.game.state && this.game.state.positions);
  }

  /** The analysis board on the game at `ply` (default: the one shown), with its review if made. */
  analyse(ply = this.viewPly) {
    if (!this.canAnalyse()) return;
    const kept = this.review.kept();
    openAnalysis({ game: this.game, ply, review: kept && kept.review, storage: this.store.storage,
      ...this.analysis });
  }

  /** The lessons (learn.js) show the position after `ply` plies, or a try from it (`fen`): the
   * move list and the FEN box follow the board. */
  showLesson(ply, fen) {
    this.viewPly = ply;
    this.view.renderMovesList();
    this.view.renderFen(fen);
    this.view.renderControls();
  }

  step(delta) {
    const state = this.game.state;
    if (!state || !state.positions || this.game.phase === "learning") return;
    const current = this.viewPly === null ? state.positions.length - 1 : this.viewPly;
    this.showPly(current + delta);
  }

  stepTo(ply) {
    if (!this.game.state || this.game.phase === "learning") return;
    this.showPly(ply);
  }

  // --- the user's choices ------------------------------------------------------------------------

  /** The level applies from the engine's next move; the show-engine default follows it. */
  setLevel(level) {
    this.game.level = level;
    this.save();
    this.view.renderEngineDisplay();
    this.view.renderControls();
  }

  setBook(book) {
    this.game.book = book;
    this.save();
  }

  setShowEngine(show) {
    this.showEngine = show;
    this.save();
    this.view.renderEngineDisplay();
  }

  flip() {
    this.orientation = other(this.orientation);
    this.board.setOrientation(this.orientation);
    this.save();
    this.view.renderControls();
  }

  takeback() {
    this.review.cancel();
    this.board.cancelPremove();
    this.game.takeback();
  }

  /** The resign button: the first click asks "Confirm resign?", the second (within
   * RESIGN_CONFIRM_MS) resigns. */
  askResign() {
    if (this.confirmingResign) {
      this.resign();
      return;
    }
    if (!["ready", "thinking"].includes(this.game.phase)) return;
    this.confirmingResign = true;
    clearTimeout(this.resignTimer);
    this.resignTimer = setTimeout(() => this.cancelResign(), RESIGN_CONFIRM_MS);
    this.view.renderControls();
  }

  /** "Confirm resign?" goes back to "Resign" (cancel, Escape, the time out, the game's end). */
  cancelResign() {
    clearTimeout(this.resignTimer);
    this.resignTimer = null;
    if (!this.confirmingResign) return;
    this.confirmingResign = false;
    if (!this.destroyed) this.view.renderControls();
  }

  resign() {
    this.cancelResign();
    this.board.cancelPremove();
    this.game.resign();
  }

  /** A new game with the form's settings: from `fen` (a position set up) when given, else from
   *  the start the form chose (the standard one, or a Chess960 start the server sets up from its
   *  number or at random; a number it refuses leaves the game as it is and says why). */
  async newGame(fen = null, human = null) {
    const chosen = this.form.read();
    if (human) chosen.human = human;
    const { chess960, position, ...settings } = chosen;
    let start = { fen: fen || START_FEN, chess960: false };
    this.form.showError(null);
    if (fen === null && chess960) {
      try {
        const answer = await this.transport.request("api/chess960", { position });
        start = { fen: answer.fen, chess960: true };
      } catch (error) {
        this.form.showError(`No Chess960 game: ${describeError(error)}`);
        return;
      }
    }
    this.#beforeNewGame();
    this.orientation = settings.human;
    const started = this.game.start({ ...settings, ...start });
    this.form.show(this.game);
    return started;
  }

  rematch() {
    const { game } = this;
    this.#beforeNewGame();
    const human = other(game.human);
    this.orientation = human;
    const started = game.start({ fen: game.fen, chess960: game.chess960, human, level: game.level, book: game.book,
      timeControl: game.timeControl });
    this.form.show(game);
    return started;
  }

  #beforeNewGame() {
    this.review.cancel();
    this.viewPly = null;
    this.showEngine = null;
    this.lastScore = null;
    this.soundedPlies = null;
    this.board.arrows([]);
  }

  /** The server's State of a FEN typed in (rejects with its reason). */
  describe(fen) {
    return this.transport.request("api/state", { fen, moves: [] });
  }

  /** The game's PGN from the server (`{pgn, filename}`), or null when it refused (it says why);
   * with a clock, its time control and each move's clock. */
  async pgn() {
    try {
      return await this.transport.request("api/pgn", pgnRequest(this.game));
    } catch (error) {
      this.game.say(`No PGN. ${describeError(error)}`, "error");
      return null;
    }
  }

  // --- saving, and other tabs --------------------------------------------------------------------

  save() {
    if (this.game.phase === "stale" || this.destroyed) return;
    this.store.save({ game: this.game.toJSON(), orientation: this.orientation, showEngine: this.showEngine,
      review: this.review.kept() });
  }

  #otherTab(saved) {
    if (this.game.phase === "stale") return;
    this.staleSaved = saved;
    this.review.cancel();
    this.game.supersede();
  }

  /** "Play here": this tab takes the game back, as the other tab left it. */
  takeOver() {
    return this.#restoreFrom(this.store.read() || this.staleSaved);
  }

  async #restoreFrom(saved) {
    const { game } = this;
    if (saved && saved.game && game.restore(saved.game)) {
      this.orientation = saved.orientation === "black" ? "black" : saved.orientation === "white" ? "white" : game.human;
      this.showEngine = typeof saved.showEngine === "boolean" ? saved.showEngine : null;
      this.form.show(game);
      this.soundedPlies = null;
      this.review.adopt(saved.review); // kept through the saves while the game loads
      await game.load({ restoring: true });
      this.review.restore(game.phase === "over"); // shown again, not analysed again
      return;
    }
    return this.newGame();
  }

  // --- start and end -------------------------------------------------------------------------------

  /** The clocks tick, and a flag falls, from here on. */
  startTicking() {
    this.ticker = setInterval(() => this.#tick(), TICK_MS);
  }

  /** The levels (from `options` or the server), the host's presets, then the saved game or a new
   * one. */
  async start(options) {
    let answer = options.levels || null;
    if (!answer) {
      try {
        answer = await this.transport.request("api/levels");
      } catch (error) {
        this.game.say(`Could not load the levels. ${describeError(error)}`, "error",
          { label: "Try again", run: () => this.start(options) });
        if (this.game.can("failed")) this.game.fire("failed");
        return;
      }
    }
    this.levels = answer.levels;
    const first = Number.isInteger(options.level) && this.levels.some((level) => level.number === options.level)
      ? options.level : answer.default;
    this.form.setLevels(this.levels, first);
    this.game.level = first;
    this.form.preset(options);
    if (typeof options.book === "boolean") this.game.book = options.book;
    const saved = this.store.read();
    if (saved && saved.game) {
      await this.#restoreFrom(saved);
    } else {
      await this.newGame(typeof options.fen === "string" && options.fen ? options.fen : START_FEN);
    }
  }

  #tick() {
    const clock = this.game.clock;
    if (!clock || clock.running === null) return;
    this.view.renderClocks();
    const flagged = clock.flagged();
    if (flagged && (this.game.phase === "ready" || this.game.phase === "thinking")) {
      this.board.cancelPremove();
      this.game.flag(flagged);
    }
  }

  /** The pieces are decoded and the first position drawn. */
  ready() {
    this.piecesReady = true;
    this.view.renderState();
  }

  destroy() {
    if (["thinking", "reviewing"].includes(this.game.phase)) this.transport.cancel(this.clientId);
    this.destroyed = true;
    clearInterval(this.ticker);
    clearTimeout(this.resignTimer);
    this.store.close();
    if (this.archive) this.archive.destroy();
    this.review.cancel();
    this.game.epoch += 1;
    this.board.destroy();
  }
}
