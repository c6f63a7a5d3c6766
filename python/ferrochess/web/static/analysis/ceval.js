// The live engine's controller (lichess's ceval/ctrl): a client of the server's api/analyse stream.
// It owns whether the engine is on, how many lines it shows (multipv 1-5), the position it
// searches and what the stream said about it: the lines (score, depth, SAN), nodes, nodes/s, and
// why the search ended. ceval_view.js draws it; the analysis controller gives it the position of
// each node and hears every change through `onChange`.
//
// One search at a time for this client: a new position (or a new number of lines) aborts the
// running stream and asks the server to cancel this client's search (api/cancel, answered once
// the search has ended), then starts the next one; turning the engine off does the same. The
// server stops a search too when its connection closes, or at its own time cap ("cap").

import { describeError, isBusy, retryWords } from "../ui/errors.js";
import { positionBody } from "./wire.js";

export const MAX_LINES = 5;
const BUSY_RETRIES = 3;
const DEFAULT_RETRY_SECONDS = 1;
/** A search starts this long after the position stops changing (keys held down step quickly). */
const START_DELAY_MS = 60;

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class CevalCtrl {
  /**
   * @param {object} options
   * @param {object} options.transport request/stream/cancel (api.js's httpTransport or the comm's)
   * @param {string} options.clientId this board's client id, sent with each search and cancel
   * @param {() => void} options.onChange told after every change of state
   */
  constructor({ transport, clientId, onChange }) {
    this.transport = transport;
    this.clientId = clientId;
    this.onChange = onChange || (() => {});
    this.enabled = false;
    this.multipv = 1;
    this.target = null; // {fen, moves, key}: the position to search
    this.generation = 0; // bumped at every restart or stop: older lines are dropped
    this.abort = null; // the running stream's AbortController
    this.cancelling = Promise.resolve(); // the last api/cancel, awaited before a new search
    this.destroyed = false;
    this.#clear();
  }

  #clear() {
    this.running = false;
    this.lines = [];
    this.key = null; // the key of the position the lines are about
    this.depth = null;
    this.nodes = null;
    this.nps = null;
    this.time = null;
    this.tick = null;
    this.source = null;
    this.done = null; // the reason the last search ended
    this.error = null;
  }

  /** The lines about the position `key` (none while they are about another). */
  linesFor(key) {
    return this.key === key ? this.lines : [];
  }

  /** The engine's best move at position `key`: `{uci, san}` of line 1, or null. */
  bestMove(key) {
    const [best] = this.linesFor(key);
    if (!best || !best.pv || !best.pv.length) return null;
    return { uci: best.pv[0], san: (best.san || [])[0] || best.pv[0] };
  }

  /** The position to search from now on (`{fen, moves, key}`); a running search restarts there. */
  setTarget(target) {
    this.target = target;
    if (this.enabled) this.#restart();
    else this.onChange();
  }

  /** Turns the engine on or off (`on` undefined: the other way). */
  toggle(on = !this.enabled) {
    if (on === this.enabled) return;
    this.enabled = on;
    if (on) this.#restart();
    else this.stop();
  }

  setMultipv(count) {
    const lines = Math.max(1, Math.min(MAX_LINES, Number.parseInt(count, 10) || 1));
    if (lines === this.multipv) return;
    this.multipv = lines;
    if (this.enabled) this.#restart();
    else this.onChange();
  }

  /** Stops the search (the server frees its engine); the last lines stay shown, marked stopped. */
  stop() {
    this.generation += 1;
    this.#endStream();
    this.running = false;
    this.onChange();
  }

  /** Aborts the running stream, if any, and asks the server to end this client's search. */
  #endStream() {
    if (!this.abort) return;
    this.abort.abort();
    this.abort = null;
    this.cancelling = this.transport
      .request("api/cancel", { client: this.clientId })
      .catch(() => {});
  }

  async #restart(retries = BUSY_RETRIES) {
    const generation = ++this.generation;
    this.#endStream();
    this.#clear();
    const target = this.target;
    if (!target || this.destroyed) {
      this.onChange();
      return;
    }
    this.running = true;
    this.key = target.key;
    this.onChange();
    await Promise.all([this.cancelling, delay(START_DELAY_MS)]);
    if (generation !== this.generation) return;
    const controller = new AbortController();
    this.abort = controller;
    const body = { client: this.clientId, ...positionBody(target), multipv: this.multipv };
    try {
      await this.transport.stream("api/analyse", body, (line) => this.#heard(generation, line),
        { signal: controller.signal });
    } catch (error) {
      if (generation !== this.generation || (error && error.name === "AbortError")) return;
      // Busy (503) or over this client's rate (429): wait as long as the server says, then again.
      if (isBusy(error) && retries > 0) {
        const seconds = error.retryAfter || DEFAULT_RETRY_SECONDS;
        this.error = retryWords(error, seconds);
        this.onChange();
        setTimeout(() => {
          if (generation === this.generation && this.enabled) this.#restart(retries - 1);
        }, seconds * 1000);
        return;
      }
      this.error = describeError(error);
    }
    if (generation !== this.generation) return;
    if (this.abort === controller) this.abort = null;
    this.running = false;
    this.onChange();
  }

  /** One line of the stream. */
  #heard(generation, line) {
    if (generation !== this.generation || !line || typeof line !== "object") return;
    if (Array.isArray(line.lines)) {
      this.lines = line.lines.slice(0, this.multipv);
      this.depth = line.depth ?? null;
      this.nodes = line.nodes ?? null;
      this.nps = line.nps ?? null;
      this.time = line.time ?? null;
      this.source = line.source || null;
      this.error = null;
    } else if (line.tick !== undefined) {
      this.tick = line.tick;
    } else if (line.done) {
      this.done = line.reason || "finished";
      this.running = false;
      if (line.time !== undefined) this.time = line.time;
      // The stream ends with this line: no cancel is needed for it any more.
      this.abort = null;
    } else if (line.error) {
      this.error = describeError({ message: line.error });
    } else {
      return;
    }
    this.onChange();
  }

  destroy() {
    this.destroyed = true;
    if (this.abort) {
      this.abort.abort();
      this.abort = null;
      this.transport.cancel(this.clientId);
    }
    this.generation += 1;
  }
}
