// The server's games archive, seen from the play page (docs/play.md, "The games archive"): a
// finished game is submitted once to POST api/games under an id the page made when the game began
// (the game's `record.id`, kept with the saved game, so a reload or a retry sends the same id and the
// server stores one game), and its review, once computed, to POST api/games/<id>/review.
//
// Nothing is lost: every submission waits in an outbox in the browser (localStorage,
// `ferrochess.archive.outbox`) until the server answers 2xx, or refuses it for good (a 4xx: 409,
// 400, 404; the page says why). A network error, a 5xx (503 while the database cannot be reached)
// or a 429 leaves it there: it is sent again after the server's Retry-After or a growing wait, and
// again on the next page load. What was stored, or refused, is remembered by game id
// (`ferrochess.archive.stored`), so a game reloaded after it was stored is not sent again and the
// page can still link to it. The server is the judge of the game: nothing here reads its moves.
//
// Only the page mounts this (where #app says `data-archive`); the notebook widget has no archive.

import { playerId } from "../ui/player.js";
import { clockSeconds, timeControlTag } from "./clock.js";
import { playerNames } from "./handoff.js";
import { startOf } from "./variant.js";

export const OUTBOX_KEY = "ferrochess.archive.outbox";
export const STORED_KEY = "ferrochess.archive.stored";
/** The games remembered as stored (or refused): the most recent ones. */
const STORED_KEEP = 200;
/** The longest wait between two tries, in seconds. */
const MAX_WAIT_S = 300;
/** The statuses of a refusal that is final: sent again it would be refused again. */
const FINAL = new Set([400, 403, 404, 405, 409, 410, 413, 415, 422]);
const ID_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789";

export const WAITING_WORDS =
  "Not saved yet: the server's games archive cannot be reached; kept in this browser and tried again.";

/** A fresh game id (the archive's `client_id`): 20 letters and digits. */
export function newGameId() {
  const bytes = new Uint8Array(20);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => ID_LETTERS[byte % ID_LETTERS.length]).join("");
}

/** What the archive needs to know of a game beside its moves: its id, when it began and ended. */
export function newGameRecord(now = new Date()) {
  return { id: newGameId(), startedAt: now.toISOString(), finishedAt: null };
}

/** A saved game's record, checked for shape; a game saved without one gets a new id (no dates). */
export function readGameRecord(saved) {
  const isTime = (value) => typeof value === "string" && value.length <= 40;
  if (!saved || typeof saved !== "object" || typeof saved.id !== "string"
    || !/^[A-Za-z0-9_-]{1,64}$/.test(saved.id)) {
    return { id: newGameId(), startedAt: null, finishedAt: null };
  }
  return { id: saved.id, startedAt: isTime(saved.startedAt) ? saved.startedAt : null,
    finishedAt: isTime(saved.finishedAt) ? saved.finishedAt : null };
}

/** POST api/games's body for a finished game (game.js's PlayGame), or null for a game with no
 * move played (a position set up already over, a resignation before any move: nothing to keep).
 * The time control as its PGN tag ("180+2"), each move's clock in seconds (the PGN's [%clk]);
 * `player`, this browser's player id (ui/player.js), so the game counts as its player's. */
export function submission(game) {
  if (!game.moves.length || !game.record) return null;
  const [white, black] = playerNames(game);
  const body = {
    client_id: game.record.id, ...startOf(game), moves: game.moves.slice(), end: game.end || null,
    human: game.human, level: game.level, white, black, time_control: null, clocks: [],
    started_at: game.record.startedAt, finished_at: game.record.finishedAt,
    player: playerId(), // whose game it is: the training page finds its puzzles by it
  };
  const tag = timeControlTag(game.timeControl);
  if (tag) {
    body.time_control = tag;
    body.clocks = clockSeconds(game.clock ? game.clock.history.slice(0, game.moves.length) : []);
  }
  return body;
}

/** submission() of a game that has just ended (or was found ended on a reload), its end's time
 * stamped on its record the first time. */
export function finishedGame(game, now = new Date()) {
  if (game.record && !game.record.finishedAt) game.record.finishedAt = now.toISOString();
  return submission(game);
}

/** Why a refusal came, in words for a person. */
function reasonOf(error) {
  if (!error || error.kind === "network" || !error.status) return "the server cannot be reached";
  return error.message || `the server answered ${error.status}`;
}

const isFinal = (error) => Boolean(error && error.kind === "http" && FINAL.has(error.status));

export class ArchiveOutbox {
  /**
   * @param {object} options
   * @param {{request: Function}} options.transport api.js's
   * @param {Storage|null} options.storage where the outbox is kept (null: this page's memory)
   * @param {(gameId: string) => void} [options.onChange] told when a game's status changed
   */
  constructor({ transport, storage, onChange = () => {} }) {
    this.transport = transport;
    this.storage = storage;
    this.onChange = onChange;
    this.memory = { [OUTBOX_KEY]: [], [STORED_KEY]: {} };
    this.volatile = !storage; // true once a write failed: memory holds the truth
    this.running = false;
    this.again = false;
    this.timer = null;
    this.destroyed = false;
    this.onOnline = () => this.flush();
    if (typeof window !== "undefined") window.addEventListener("online", this.onOnline);
    this.retryNow(); // what an earlier page left unsent goes now
  }

  /** Sends the finished game `body` (submission()'s) unless it is waiting or was stored. */
  submit(body) {
    if (!body || this.#stored()[body.client_id] || this.#entry(body.client_id)) {
      if (body) this.onChange(body.client_id);
      return;
    }
    this.#update((outbox) => outbox.push({ client_id: body.client_id, game: body, id: null, url: null,
      review: null, reviewed: false, attempts: 0, next: 0, error: null }));
    this.onChange(body.client_id);
    this.flush();
  }

  /** Sends `review` (api/review's) for the game `gameId`, once the game is stored; not when it
   * was sent already, or the game was refused or never submitted. */
  addReview(gameId, review) {
    if (!review || !Array.isArray(review.moves)) return;
    const entry = this.#entry(gameId);
    if (entry) {
      if (entry.review || entry.reviewed) return;
      this.#change(gameId, (found) => { found.review = review; });
    } else {
      const stored = this.#stored()[gameId];
      if (!stored || !stored.id || stored.reviewed || stored.reviewRefused) return;
      this.#update((outbox) => outbox.push({ client_id: gameId, game: null, id: stored.id, url: stored.url,
        review, reviewed: false, attempts: 0, next: 0, error: null }));
    }
    this.flush();
  }

  /** Where the game `gameId` stands: null (never submitted here), or `{state, url?, why?}` with
   * state "saving" (on its way), "waiting" (not stored yet, tried again), "saved" (stored: its
   * page is `url`; `why` says why its review was refused, if it was) or "refused" (`why`). */
  statusOf(gameId) {
    const entry = this.#entry(gameId);
    if (entry) {
      if (entry.id) return { state: "saved", url: entry.url, why: null };
      return entry.attempts > 0 ? { state: "waiting", why: entry.error } : { state: "saving" };
    }
    const stored = this.#stored()[gameId];
    if (!stored) return null;
    if (stored.refused) return { state: "refused", why: stored.refused };
    return { state: "saved", url: stored.url, why: stored.reviewRefused || null };
  }

  /** "Try again now": every game waiting is sent now, whatever wait it was given. */
  retryNow() {
    if (this.#outbox().some((entry) => entry.next > 0)) {
      this.#update((outbox) => outbox.forEach((entry) => { entry.next = 0; }));
    }
    return this.flush();
  }

  /** Sends what is due in the outbox, one request at a time; schedules the next try. */
  async flush() {
    if (this.destroyed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    clearTimeout(this.timer);
    this.timer = null;
    try {
      do {
        this.again = false;
        const due = this.#outbox().filter((entry) => entry.next <= Date.now());
        for (const { client_id: gameId } of due) {
          if (this.destroyed) return;
          await this.#send(gameId);
        }
      } while (this.again && !this.destroyed);
    } finally {
      this.running = false;
      this.#schedule();
    }
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.timer);
    if (typeof window !== "undefined") window.removeEventListener("online", this.onOnline);
  }

  // --- inside ---------------------------------------------------------------------------------

  /** One game's next step: the game (no id yet), then its review; stored once both are done. */
  async #send(gameId) {
    let entry = this.#entry(gameId);
    if (!entry) return;
    try {
      if (!entry.id) {
        const answer = await this.transport.request("api/games", entry.game);
        entry = this.#change(gameId, (found) => Object.assign(found, { id: answer.id, url: answer.url,
          attempts: 0, error: null }));
        this.onChange(gameId);
      }
      if (entry && entry.review && !entry.reviewed) {
        await this.transport.request(`api/games/${encodeURIComponent(entry.id)}/review`, { review: entry.review });
        entry = this.#change(gameId, (found) => { found.reviewed = true; });
      }
      if (entry) this.#done(entry, {});
    } catch (error) {
      const current = this.#entry(gameId);
      if (!current) return;
      if (isFinal(error)) {
        // The game itself refused, or its review (the game stays stored): said, not sent again.
        this.#done(current, current.id ? { reviewRefused: reasonOf(error) } : { refused: reasonOf(error) });
      } else {
        const attempts = current.attempts + 1;
        const wait = Number.isFinite(error && error.retryAfter) && error.retryAfter >= 0
          ? error.retryAfter : Math.min(MAX_WAIT_S, 2 ** attempts);
        this.#change(gameId, (found) => Object.assign(found, { attempts, next: Date.now() + wait * 1000,
          error: reasonOf(error) }));
      }
      this.onChange(gameId);
    }
  }

  /** The game leaves the outbox, remembered as stored (or refused) with `extra`. */
  #done(entry, extra) {
    const stored = this.#stored();
    const before = stored[entry.client_id] || {};
    stored[entry.client_id] = { ...before, id: entry.id || before.id || null, url: entry.url || before.url || null,
      reviewed: Boolean(entry.reviewed || before.reviewed), ...extra, at: Date.now() };
    const recent = Object.entries(stored).sort((a, b) => (b[1].at || 0) - (a[1].at || 0)).slice(0, STORED_KEEP);
    this.#keep(STORED_KEY, Object.fromEntries(recent));
    this.#update((outbox) => outbox.filter((found) => found.client_id !== entry.client_id));
    this.onChange(entry.client_id);
  }

  #schedule() {
    if (this.destroyed) return;
    const outbox = this.#outbox();
    if (!outbox.length) return;
    const next = Math.min(...outbox.map((entry) => entry.next));
    this.timer = setTimeout(() => this.flush(), Math.max(0, next - Date.now()));
  }

  #entry(gameId) {
    return this.#outbox().find((entry) => entry.client_id === gameId) || null;
  }

  /** Changes the outbox's entry for `gameId` (read afresh: another tab may have written); the
   * entry as changed, or null when it is gone. */
  #change(gameId, edit) {
    let changed = null;
    this.#update((outbox) => {
      changed = outbox.find((entry) => entry.client_id === gameId) || null;
      if (changed) edit(changed);
    });
    return changed;
  }

  /** `edit` changes the outbox in place, or returns the new one. */
  #update(edit) {
    const outbox = this.#outbox();
    const edited = edit(outbox);
    this.#keep(OUTBOX_KEY, Array.isArray(edited) ? edited : outbox);
  }

  #outbox() {
    const outbox = this.#read(OUTBOX_KEY);
    return Array.isArray(outbox) ? outbox.filter((entry) => entry && typeof entry.client_id === "string") : [];
  }

  #stored() {
    const stored = this.#read(STORED_KEY);
    return stored && typeof stored === "object" && !Array.isArray(stored) ? stored : {};
  }

  #read(key) {
    if (!this.volatile) {
      try {
        const text = this.storage.getItem(key);
        if (text) return JSON.parse(text);
      } catch {
        // unreadable: this page's memory of it
      }
    }
    return structuredClone(this.memory[key]);
  }

  /** Writes `value` under `key`; where the browser refuses (storage full or disabled), this
   * page's memory keeps the outbox from then on (tried again while the page is open). */
  #keep(key, value) {
    if (!this.volatile) {
      try {
        this.storage.setItem(key, JSON.stringify(value));
      } catch {
        const other = key === OUTBOX_KEY ? STORED_KEY : OUTBOX_KEY;
        this.memory[other] = this.#read(other);
        this.volatile = true;
      }
    }
    this.memory[key] = structuredClone(value);
  }
}
