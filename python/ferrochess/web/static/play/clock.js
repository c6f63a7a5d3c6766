// Two chess clocks with an increment: the running side, the time left, the flag, the time left
// after each move, and a form that survives a reload (the running side and the wall-clock time it
// started, so the time a page was closed is charged too). Times are milliseconds; `now` is
// Date.now() unless given.

/** The time controls offered, as lichess names them ("minutes+seconds"). */
export const TIME_CONTROLS = Object.freeze([
  { id: "none", label: "No clock" },
  { id: "3+2", label: "3+2 · Blitz", minutes: 3, increment: 2 },
  { id: "5+3", label: "5+3 · Blitz", minutes: 5, increment: 3 },
  { id: "10+5", label: "10+5 · Rapid", minutes: 10, increment: 5 },
  { id: "15+10", label: "15+10 · Rapid", minutes: 15, increment: 10 },
  { id: "custom", label: "Custom" },
]);

/** The clock settings of a choice: `{initial, increment}` in ms, or null for no clock. */
export function timeControl(id, custom = {}) {
  if (id === "none") return null;
  if (id === "custom") {
    const minutes = Number(custom.minutes);
    const increment = Number(custom.increment);
    if (!(minutes > 0) || !(increment >= 0)) return null;
    return { initial: Math.round(minutes * 60000), increment: Math.round(increment * 1000) };
  }
  const preset = TIME_CONTROLS.find((control) => control.id === id);
  if (!preset || preset.minutes === undefined) return null;
  return { initial: preset.minutes * 60000, increment: preset.increment * 1000 };
}

/** A time control as the server takes and keeps it, PGN's TimeControl in whole seconds:
 * "180+2"; null for no clock (or one under half a second, which PGN cannot write). The one shape
 * of api/pgn's and api/games's `time_control` (ferrochess/service/time_control.py). */
export function timeControlTag(control) {
  if (!control) return null;
  const initial = Math.round(control.initial / 1000);
  const increment = Math.round(control.increment / 1000);
  return initial > 0 || increment > 0 ? `${initial}+${increment}` : null;
}

/** Each move's clock as the server takes it (the `clocks` beside a `time_control`): the seconds
 * the mover had left, to a tenth, null where not known. */
export function clockSeconds(history) {
  return history.map((ms) => (Number.isFinite(ms) ? Math.round(ms / 100) / 10 : null));
}

/** A clock reading as a person reads one: "4:59", "0:09.4" under ten seconds, "1:02:03". */
export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  if (clamped < 10000) {
    const tenths = Math.floor(clamped / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const seconds = Math.floor(clamped / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const secs = String(seconds % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${secs}` : `${minutes}:${secs}`;
}

export class Clock {
  /** A new clock at `initial` ms a side, `increment` ms added after each move; nobody running. */
  constructor({ initial, increment = 0, white = initial, black = initial, running = null, since = null,
    history = [] }) {
    this.initial = initial;
    this.increment = increment;
    this.times = { white, black };
    this.running = running; // "white" | "black" | null
    this.since = since; // Date.now() when `running` started
    this.history = history.slice(); // ms left to the mover after each ply (null: not known)
  }

  static fromJSON(saved) {
    if (!saved || typeof saved !== "object") return null;
    const numbers = [saved.initial, saved.increment, saved.white, saved.black];
    if (!numbers.every((value) => Number.isFinite(value) && value >= 0)) return null;
    const running = saved.running === "white" || saved.running === "black" ? saved.running : null;
    const since = running && Number.isFinite(saved.since) ? saved.since : null;
    const history = Array.isArray(saved.history)
      ? saved.history.map((ms) => (Number.isFinite(ms) && ms >= 0 ? ms : null)) : [];
    return new Clock({ ...saved, running: since === null ? null : running, since, history });
  }

  toJSON() {
    return {
      initial: this.initial,
      increment: this.increment,
      white: this.times.white,
      black: this.times.black,
      running: this.running,
      since: this.since,
      history: this.history.slice(),
    };
  }

  /** `color`'s time left at `now`, the running side's still-running time charged. */
  remaining(color, now = Date.now()) {
    const base = this.times[color];
    return color === this.running && this.since !== null ? base - (now - this.since) : base;
  }

  /** Both sides' time left: `{white, black, increment}`, what the engine's request carries. */
  snapshot(now = Date.now()) {
    return {
      white: Math.max(0, Math.round(this.remaining("white", now))),
      black: Math.max(0, Math.round(this.remaining("black", now))),
      increment: this.increment,
    };
  }

  /** `color`'s clock starts (the other stops, charged). */
  start(color, now = Date.now()) {
    this.stop(now);
    this.running = color;
    this.since = now;
  }

  /** The running clock stops, its time charged. */
  stop(now = Date.now()) {
    if (this.running !== null && this.since !== null) {
      this.times[this.running] = this.remaining(this.running, now);
    }
    this.running = null;
    this.since = null;
  }

  /** `color` has moved: its time is charged, it gains the increment, and the other side's
   *  clock starts when `startOther`. */
  press(color, now = Date.now(), startOther = true) {
    if (this.running === color) this.stop(now);
    this.times[color] = Math.max(0, this.times[color]) + this.increment;
    if (startOther) this.start(color === "white" ? "black" : "white", now);
  }

  /** The `plies`-th move of the game was `color`'s, its clock pressed: the time it has left is
   * that move's (the PGN's [%clk]). Records of later plies (taken back, refused) are dropped. */
  record(plies, color, now = Date.now()) {
    this.history.length = Math.min(this.history.length, plies - 1);
    while (this.history.length < plies - 1) this.history.push(null);
    this.history.push(Math.max(0, Math.round(this.remaining(color, now))));
  }

  /** The side whose time has run out, or null. */
  flagged(now = Date.now()) {
    if (this.running !== null && this.remaining(this.running, now) <= 0) return this.running;
    for (const color of ["white", "black"]) if (this.times[color] <= 0) return color;
    return null;
  }
}
