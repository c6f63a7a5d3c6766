// The explorer's controller (lichess's explorer/explorerCtrl): what the server's api/explorer says
// about the position shown: the opening's name, the book's moves with their weights and shares,
// and the tablebases' verdict on the position and on each move. One answer per position, kept;
// explorer_view.js draws it.

import { describeError } from "../ui/errors.js";
import { positionBody } from "./wire.js";

const CACHE_LIMIT = 500;

export class ExplorerCtrl {
  /**
   * @param {object} options
   * @param {object} options.transport request (api/explorer)
   * @param {() => void} options.onChange told when an answer arrives or fails
   */
  constructor({ transport, onChange }) {
    this.transport = transport;
    this.onChange = onChange || (() => {});
    this.enabled = true;
    this.cache = new Map(); // position key -> answer
    this.key = null;
    this.data = null;
    this.loading = false;
    this.error = null;
  }

  /** The position shown now (`{fen, moves, key}`): its answer, from the cache or the server. */
  async setTarget(target) {
    this.key = target.key;
    this.error = null;
    if (this.cache.has(target.key)) {
      this.data = this.cache.get(target.key);
      this.loading = false;
      this.onChange();
      return;
    }
    this.data = null;
    if (!this.enabled) {
      this.onChange();
      return;
    }
    this.loading = true;
    this.onChange();
    try {
      const answer = await this.transport.request("api/explorer", positionBody(target));
      if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value);
      this.cache.set(target.key, answer);
      if (this.key !== target.key) return;
      this.data = answer;
    } catch (error) {
      if (this.key !== target.key) return;
      this.error = describeError(error);
    }
    this.loading = false;
    this.onChange();
  }

  /** Shows or hides the explorer (hidden: no request is made). */
  toggle(target, on = !this.enabled) {
    this.enabled = on;
    if (on && target) this.setTarget(target);
    else this.onChange();
  }
}
