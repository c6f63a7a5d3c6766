// The match view's controller: what the kernel last published (the traits `state` and `games` of
// ferrochess/notebook_match.py, read from `source`, anywidget's model: get, on, off) and what the
// person did (the finished game chosen, Stop). The views (view.js and its parts) draw it; the
// clicks come back here. The kernel is the only judge of the match: this module only reads.
//
// States (state.status, the kernel's): waiting -> running -> stopping -> finished | stopped, or
// error from any of them. Between two updates the clock of the side to move runs down from what
// the kernel said, by the time since (the kernel's `elapsed` plus the time since it arrived).

import { describeError } from "../ui/errors.js";

/** The statuses of a match that is over. */
export const ENDED = Object.freeze(new Set(["finished", "stopped", "error"]));

export class MatchCtrl {
  /** `source`: the model whose traits `state` and `games` are read (and heard change);
   * `transport`: request(path, body) to the kernel (the widgets' comm transport), or null;
   * `now`: milliseconds, monotonic. */
  constructor({ source, transport = null, now = () => performance.now() }) {
    Object.assign(this, { source, transport, now });
    this.state = {};
    this.games = [];
    this.receivedAt = now();
    this.selected = null; // the finished game chosen in the list (its index), or null
    this.stopAsked = false;
    this.problem = null; // a request that failed, in words
    this.pgns = new Map(); // game index -> Promise of its PGN text
    this.onChange = () => {};
    this.listeners = [];
  }

  /** Reads the traits and listens for their changes. */
  connect() {
    this.read();
    for (const name of ["change:state", "change:games"]) {
      const listener = () => {
        this.read();
        this.onChange();
      };
      this.source.on(name, listener);
      this.listeners.push([name, listener]);
    }
  }

  disconnect() {
    for (const [name, listener] of this.listeners) this.source.off(name, listener);
    this.listeners = [];
  }

  read() {
    this.state = this.source.get("state") || {};
    this.games = this.source.get("games") || [];
    this.receivedAt = this.now();
    if (this.over) this.stopAsked = false;
  }

  get status() {
    return this.state.status || "waiting";
  }

  get over() {
    return ENDED.has(this.status);
  }

  /** Whether the Stop button can be pressed. */
  get stoppable() {
    return !this.over && !this.stopAsked && this.status !== "stopping";
  }

  get boards() {
    return Array.isArray(this.state.boards) ? this.state.boards : [];
  }

  /** The seconds left on `color`'s clock of `board` now, or null without a clock: the side to
   * move's runs down while the match runs. */
  clock(board, color) {
    const seconds = board && board.clocks ? board.clocks[color] : null;
    if (seconds === null || seconds === undefined) return null;
    if (color !== board.turn || this.over) return seconds;
    const since = (Number(board.elapsed) || 0) + (this.now() - this.receivedAt) / 1000;
    return Math.max(0, seconds - since);
  }

  /** The finished game shown: the one chosen, else the last one to finish; null before any. */
  shownGame() {
    if (this.selected !== null) {
      const chosen = this.games.find((game) => game.index === this.selected);
      if (chosen) return chosen;
    }
    return this.games.length ? this.games[this.games.length - 1] : null;
  }

  select(index) {
    this.selected = index;
    this.onChange();
  }

  /** Asks the kernel to stop the match (its partial result stays). */
  stop() {
    if (!this.stoppable || !this.transport) return Promise.resolve();
    this.stopAsked = true;
    this.problem = null;
    this.onChange();
    return this.transport.request("match/stop", {}).catch((error) => {
      this.stopAsked = false;
      this.problem = describeError(error);
      this.onChange();
    });
  }

  /** The PGN of finished game `index` (asked of the kernel once). */
  pgn(index) {
    if (!this.pgns.has(index)) {
      if (!this.transport) return Promise.reject(new Error("no kernel to ask for the PGN"));
      const asked = this.transport.request("match/pgn", { game: index }).then((data) => data.pgn);
      asked.catch(() => this.pgns.delete(index));
      this.pgns.set(index, asked);
    }
    return this.pgns.get(index);
  }
}
