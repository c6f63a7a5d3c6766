// Where the game is kept between page loads, and how other tabs learn that one took it over: one
// key of a Storage (the page's localStorage, or the widget's trait storage), holding
// `{owner, game, orientation, showEngine}`; `owner` is the client id of the tab that wrote it.
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

  /** Keeps `{game, orientation, showEngine}` under this tab's name; silent when it cannot. */
  save({ game, orientation, showEngine }) {
    if (!this.storage) return;
    try {
      this.storage.setItem(this.key, JSON.stringify({
        owner: this.owner,
        game,
        orientation,
        showEngine,
      }));
    } catch {
      // storage full or disabled: the game plays on, it will not survive a reload
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
