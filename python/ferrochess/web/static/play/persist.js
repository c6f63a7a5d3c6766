// Where the game is kept between page loads, and how other tabs learn that one took it over: one
// key of a Storage (the page's localStorage, or the widget's trait storage), holding
// `{owner, game, orientation, showEngine, review}`; `owner` is the client id of the tab that wrote
// it, `review` the game's review when one was made (review.js's kept(): `{fen, moves,
// startNumber, review}`, keyed to the game by its start and moves), else null.
// The `storage` event of another tab's write is the one news it hears (the page's only: a widget's
// own storage has no other tab).

export class GameStore {
  /**
   * @param {object} options
   * @param {Storage|null} options.storage Storage-like or null (nothing kept)
   * @param {string} options.key the storage key
   * @param {string} options.owner this tab's or widget's client id
   * @param {boolean} options.syncTabs listen to other tabs' writes
   * @param {(saved: object) => void} options.onOtherTab told when another tab wrote the game
   */
  constructor({ storage, key, owner, syncTabs, onOtherTab }) {
    this.storage = storage;
    this.key = key;
    this.owner = owner;
    this.syncTabs = syncTabs;
    this.onOtherTab = onOtherTab;
    this.onStorage = (event) => this.#heard(event);
    if (syncTabs) window.addEventListener("storage", this.onStorage);
  }

  /** Keeps `{game, orientation, showEngine, review}` under this tab's name; when the review does
   * not fit, the game without it; silent when nothing can be kept. */
  save({ game, orientation, showEngine, review = null }) {
    if (!this.storage) return;
    const kept = { owner: this.owner, game, orientation, showEngine, review };
    for (const value of review ? [kept, { ...kept, review: null }] : [kept]) {
      try {
        this.storage.setItem(this.key, JSON.stringify(value));
        return;
      } catch {
        // storage full or disabled: the game plays on, it will not survive a reload
      }
    }
  }

  /** What is kept (any tab's), or null. */
  read() {
    if (!this.storage) return null;
    try {
      return JSON.parse(this.storage.getItem(this.key) || "null");
    } catch {
      return null;
    }
  }

  close() {
    if (this.syncTabs) window.removeEventListener("storage", this.onStorage);
  }

  #heard(event) {
    if (event.key !== this.key || !event.newValue) return;
    let saved = null;
    try {
      saved = JSON.parse(event.newValue);
    } catch {
      return;
    }
    if (!saved || saved.owner === this.owner) return;
    this.onOtherTab(saved);
  }
}
