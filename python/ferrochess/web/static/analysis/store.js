// Where the analysis board keeps its tree between visits: the host's storage (localStorage on the
// page, the widget's synced trait in a notebook) under one key, as JSON: the tree in its wire
// shape (wire.js: flat along each line), the path shown, the engine's switch and lines, the
// board's orientation. And the game the play page hands over (read once, then removed).

export const STORAGE_KEY = "ferrochess.analysis.tree";
export const HANDOFF_KEY = "ferrochess.analysis.handoff";

export class AnalysisStore {
  /** @param {object|null} storage getItem/setItem/removeItem, or null (nothing kept)
   *  @param {{storageKey?: string, handoffKey?: string}} options */
  constructor(storage, options = {}) {
    this.storage = storage;
    this.key = options.storageKey || STORAGE_KEY;
    this.handoffKey = options.handoffKey || HANDOFF_KEY;
    this.failed = false; // the last save did not fit (the storage is full)
  }

  #get(key) {
    if (!this.storage) return null;
    try {
      const text = this.storage.getItem(key);
      return text ? JSON.parse(text) : null;
    } catch {
      return null;
    }
  }

  /** What was saved, or null. */
  read() {
    const saved = this.#get(this.key);
    return saved && typeof saved === "object" ? saved : null;
  }

  save(value) {
    if (!this.storage) return;
    try {
      this.storage.setItem(this.key, JSON.stringify(value));
      this.failed = false;
    } catch {
      this.failed = true;
    }
  }

  /** The game the play page left for this board (`{fen, moves, headers?, review?, ply}`), removed
   * from the storage as it is read; null when there is none. */
  takeHandoff() {
    const handoff = this.#get(this.handoffKey);
    if (this.storage) {
      try {
        this.storage.removeItem(this.handoffKey);
      } catch {
        // a storage that cannot remove: the handoff is read again next time
      }
    }
    return handoff && typeof handoff === "object" && typeof handoff.fen === "string" ? handoff : null;
  }
}
