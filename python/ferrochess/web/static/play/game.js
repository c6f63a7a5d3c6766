// The game as the client keeps it (start FEN, UCI moves, how it ended off the board, the clocks,
// its archive record) and its state machine, whose states and transitions are one table,
// game_states.js. The server is the only judge of legality and of how the game ends: every
// position drawn is a State the server sent; this module decides only whose turn it is to act.

import { describeError, isBusy, retryWords } from "../ui/errors.js";
import { newGameRecord, readGameRecord } from "./archive.js";
import { Clock } from "./clock.js";
import { FROM_ANY_STATE, TRANSITIONS } from "./game_states.js";
import { startOf } from "./variant.js";

export const START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const BUSY_RETRIES = 4;

export const other = (color) => (color === "white" ? "black" : "white");

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

export class PlayGame {
  /**
   * @param {object} options
   * @param {object} options.transport request/stream/cancel (api.js or the widget's)
   * @param {string} options.clientId this tab's or widget's id, sent for cancel
   * @param {(what: string) => void} options.onChange told "phase", "position", "engine",
   *   "message", "clock" after each change
   */
  constructor({ transport, clientId, onChange = () => {} }) {
    Object.assign(this, { transport, clientId, onChange });
    this.phase = "loading";
    this.epoch = 0; // bumped whenever the game changes: answers for an older game are dropped
    this.fen = START_FEN;
    this.chess960 = false; // a game of Chess960 from `fen` (api/chess960's start)
    this.moves = [];
    this.end = null;
    this.human = "white";
    this.level = null; // the server's default level (from /api/levels) until one is chosen
    this.book = true;
    this.timeControl = null; // {initial, increment} ms, or null
    this.clock = null;
    this.record = newGameRecord(); // the archive's id of the game, when it began and ended (archive.js)
    this.state = null; // the server's State of the game
    this.reply = null; // the engine's last Move reply (score, pv, depth... or a book move)
    this.message = null; // {text, kind: "info"|"error", action?: {label, run}}
    this.pending = null; // the human's move while the server checks it
  }

  // --- the machine --------------------------------------------------------------------------

  /** Takes `event` in the current state; returns the new state. */
  fire(event) {
    const next = (TRANSITIONS[this.phase] || {})[event] || FROM_ANY_STATE[event];
    if (!next) throw new Error(`game: the state "${this.phase}" takes no "${event}"`);
    this.phase = next;
    this.onChange("phase");
    return next;
  }

  can(event) {
    return Boolean((TRANSITIONS[this.phase] || {})[event] || FROM_ANY_STATE[event]);
  }

  get engineColor() {
    return other(this.human);
  }

  /** The game as a request body: `{fen, chess960?, moves, end?, client}`. */
  body(extra = {}) {
    const body = { ...startOf(this), moves: this.moves.slice(), client: this.clientId, ...extra };
    if (this.end && !("end" in extra)) body.end = this.end;
    return body;
  }

  // --- saving -------------------------------------------------------------------------------

  toJSON() {
    return {
      fen: this.fen,
      chess960: this.chess960,
      moves: this.moves.slice(),
      end: this.end,
      human: this.human,
      level: this.level,
      book: this.book,
      timeControl: this.timeControl,
      clock: this.clock ? this.clock.toJSON() : null,
      record: { ...this.record },
    };
  }

  /** Takes a saved game's fields (checked for shape only: the server judges the game). */
  restore(saved) {
    if (!saved || typeof saved !== "object") return false;
    if (typeof saved.fen !== "string" || !Array.isArray(saved.moves)
      || !saved.moves.every((move) => typeof move === "string")) return false;
    if (saved.human !== "white" && saved.human !== "black") return false;
    this.fen = saved.fen;
    this.chess960 = saved.chess960 === true;
    this.moves = saved.moves.slice();
    this.end = saved.end && typeof saved.end === "object" ? saved.end : null;
    this.human = saved.human;
    if (Number.isInteger(saved.level)) this.level = saved.level;
    this.book = saved.book !== false;
    const control = saved.timeControl;
    this.timeControl = control && Number.isFinite(control.initial) && Number.isFinite(control.increment)
      ? { initial: control.initial, increment: control.increment } : null;
    this.clock = this.timeControl ? Clock.fromJSON(saved.clock) || new Clock(this.timeControl) : null;
    this.record = readGameRecord(saved.record);
    return true;
  }

  // --- the flow of a game ---------------------------------------------------------------------

  /** A new game from `fen` (default the start; a Chess960 start with `chess960`), the human
   *  playing `human`. */
  start({ fen = START_FEN, chess960 = false, human = "white", level = this.level, book = this.book,
    timeControl = null }) {
    this.#abandon();
    this.fen = fen;
    this.chess960 = chess960 === true;
    this.moves = [];
    this.end = null;
    this.human = human;
    this.level = level;
    this.book = book;
    this.timeControl = timeControl;
    this.clock = timeControl ? new Clock(timeControl) : null;
    this.record = newGameRecord();
    this.reply = null;
    return this.load();
  }

  /** Asks the server for the game's position and carries on from it (the engine moves when it is
   *  its turn). Resolves when the position is drawn; the engine's reply comes after. */
  async load({ restoring = false } = {}) {
    const epoch = ++this.epoch;
    this.fire("load");
    let state;
    try {
      state = await this.transport.request("api/state", this.body());
    } catch (error) {
      if (epoch !== this.epoch) return;
      if (restoring && error.status === 400) {
        // A saved game the server no longer accepts: start afresh, say why.
        const why = error.message;
        await this.start({ human: this.human, level: this.level, book: this.book, timeControl: this.timeControl });
        this.say(`The saved game could not be restored (${why}); a new game started.`, "error");
        return;
      }
      this.#fail(`Could not load the game. ${describeError(error)}`, () => this.load());
      return;
    }
    if (epoch !== this.epoch) return;
    this.#take(state);
    this.say(null);
    this.#carryOn(epoch);
  }

  /** The human played `uci` (from the board). The server checks it and describes the position;
   *  then the engine replies. */
  async playHuman(uci) {
    if (this.phase !== "ready") return;
    const epoch = this.epoch;
    const before = this.state;
    this.pending = uci;
    this.fire("moved");
    this.#pressClock(this.human, this.moves.length + 1);
    this.onChange("clock");
    let state;
    try {
      state = await this.transport.request("api/state", this.body({ moves: [...this.moves, uci] }));
    } catch (error) {
      if (epoch !== this.epoch) return;
      this.pending = null;
      if (error.status === 400) {
        this.state = before;
        this.fire("refused");
        this.onChange("position");
        this.say(`That move was refused: ${error.message}`, "error");
        return;
      }
      this.#fail(`Your move was not sent. ${describeError(error)}`, () => this.load());
      return;
    }
    if (epoch !== this.epoch) return;
    this.pending = null;
    this.say(null);
    this.#take(state);
    if (state.status.over) {
      this.#stopClock();
      this.fire("ended");
      return;
    }
    this.askEngine(epoch);
  }

  /** The engine searches the position (in the state "thinking"); its reply is played. */
  async askEngine(epoch = this.epoch) {
    const body = this.body({ level: this.level, book: this.book });
    if (this.clock) body.clock = this.clock.snapshot();
    let reply = null;
    for (let attempt = 0; reply === null; attempt += 1) {
      try {
        reply = await this.transport.request("api/move", body);
      } catch (error) {
        if (epoch !== this.epoch) return; // the game changed (a cancelled search ends here too)
        // Busy (503) or over this address's rate (429): wait as the server says, then again.
        if (isBusy(error) && attempt < BUSY_RETRIES) {
          const wait = error.retryAfter ?? 1;
          this.say(retryWords(error, wait), "info");
          await sleep(wait);
          if (epoch !== this.epoch) return;
          continue;
        }
        this.#fail(`The engine could not move. ${describeError(error)}`, () => this.load());
        return;
      }
    }
    if (epoch !== this.epoch) return;
    this.say(null);
    this.#pressClock(this.engineColor, reply.state.moves.length);
    this.reply = reply;
    this.onChange("engine");
    this.#take(reply.state);
    if (reply.state.status.over) {
      this.#stopClock();
      this.fire("ended");
    } else {
      this.fire("replied");
    }
  }

  /** Ends the game off the board: `{by: "resign"|"flag", color}` or `{by: "agreement"}`; the
   *  server decides the result (a flag against a side whose opponent cannot mate is a draw). */
  async finish(end) {
    if (this.phase !== "ready" && this.phase !== "thinking") return;
    const epoch = ++this.epoch;
    if (this.phase === "thinking") this.transport.cancel(this.clientId);
    this.#stopClock();
    this.end = end;
    let state;
    try {
      state = await this.transport.request("api/state", this.body());
    } catch (error) {
      if (epoch !== this.epoch) return;
      this.end = null;
      this.#fail(describeError(error), () => this.load());
      return;
    }
    if (epoch !== this.epoch) return;
    this.#take(state);
    if (state.status.over) this.fire("ended");
  }

  resign() {
    return this.finish({ by: "resign", color: this.human });
  }

  flag(color) {
    return this.finish({ by: "flag", color });
  }

  /** Offers the engine a draw; it accepts when its evaluation says the position is level or
   *  worse for it. Resolves to true (accepted), false (declined) or null (no answer). */
  async offerDraw() {
    if (this.phase !== "ready") return null;
    const epoch = this.epoch;
    this.say("You offered a draw…", "info");
    let answer;
    try {
      answer = await this.transport.request(
        "api/draw",
        this.body({ level: this.level, color: this.human }),
      );
    } catch (error) {
      if (epoch !== this.epoch) return null;
      this.say(`The draw offer got no answer. ${describeError(error)}`, "error");
      return null;
    }
    if (epoch !== this.epoch || this.phase !== "ready") return null;
    if (answer.accepted) {
      this.#stopClock();
      this.end = { by: "agreement" };
      this.#take(answer.state);
      this.say("ferrochess accepted the draw.", "info");
      this.fire("ended");
      return true;
    }
    // The server says why ("ferrochess declines: it is too early for a draw (before move 30)").
    const why = typeof answer.reason === "string" ? `${answer.reason}.` : null;
    this.say(why || "ferrochess declined the draw.", "info");
    return false;
  }

  /** The plies a takeback removes: back to before the human's last move; 0 when none. */
  takebackCount() {
    if (this.phase !== "ready" && this.phase !== "thinking") return 0;
    if (this.pending) return 1; // the move being checked: only it goes
    if (!this.state || !this.state.positions) return 0;
    const moves = Math.min(this.moves.length, this.state.positions.length - 1);
    let count = 0;
    for (let index = moves - 1; index >= 0; index -= 1) {
      count += 1;
      if (this.#moverOf(index) === this.human) return count;
    }
    return 0;
  }

  /** Takes back the human's last move (and the engine's reply to it); a search still running
   *  on the server is cancelled. */
  takeback() {
    const count = this.takebackCount();
    if (count === 0) return null;
    const pending = this.pending; // the move being checked: this.moves does not hold it yet
    this.#abandon();
    if (!pending) this.moves = this.moves.slice(0, this.moves.length - count);
    this.reply = null;
    if (this.clock) {
      // The clocks keep their times; the human's runs again (when it ran before).
      const running = this.clock.running;
      this.clock.stop();
      if (running) this.clock.start(this.human);
    }
    return this.load();
  }

  /** Another tab took the game: stop everything here. */
  supersede() {
    this.#abandon();
    if (this.clock) this.clock.stop();
    this.fire("superseded");
  }

  say(text, kind = "info", action = null) {
    this.message = text ? { text, kind, action } : null;
    this.onChange("message");
  }

  // --- inside ---------------------------------------------------------------------------------

  /** The colour that played the move at `index`: the server's positions say whose turn it was. */
  #moverOf(index) {
    return this.state.positions[index].turn;
  }

  /** Drops what runs for the current game: answers still on their way, the server's search. */
  #abandon() {
    this.epoch += 1;
    this.pending = null;
    if (this.phase === "thinking" || this.phase === "reviewing") this.transport.cancel(this.clientId);
  }

  #take(state) {
    this.state = state;
    this.moves = state.moves.slice();
    this.end = state.end || this.end || null;
    this.onChange("position");
  }

  #carryOn(epoch) {
    const state = this.state;
    if (state.status.over) {
      this.#stopClock();
      this.fire("ended");
    } else if (state.turn === this.human) {
      this.#runClock(state.turn);
      this.fire("human");
    } else {
      this.#runClock(state.turn);
      this.fire("engine");
      this.askEngine(epoch);
    }
  }

  /** After a move by `color`, the `plies`-th of the game: the clocks run from the moment each
   *  side has moved once (as on lichess); the mover is charged and gets the increment. */
  #pressClock(color, plies) {
    if (!this.clock) return;
    if (this.clock.running === color) this.clock.press(color);
    else if (plies >= 2) this.clock.start(other(color));
    this.clock.record(plies, color);
    this.onChange("clock");
  }

  #runClock(turn) {
    if (!this.clock || this.clock.running === turn) return;
    if (this.moves.length >= 2) this.clock.start(turn);
    this.onChange("clock");
  }

  #stopClock() {
    if (this.clock) this.clock.stop();
    this.onChange("clock");
  }

  #fail(text, retry) {
    this.#stopClock();
    this.say(text, "error", { label: "Try again", run: retry });
    this.fire("failed");
  }
}
