// PGN in and out (the controller; pgn_view.js draws the dialog): a pasted or uploaded PGN, or a
// FEN, goes to the server's api/import, which reads it with python-chess; a file of several games
// is listed by its headers to pick one. The tree goes out through api/export, written by
// python-chess with its variations, comments, NAGs and evaluations, as a download and as text.
// The analysis controller (`host`) takes the tree read: host.loadTree(nestedTree, {reveal: true}),
// the board brought into view.

import { describeError } from "../ui/errors.js";
import { withoutMarks } from "./tree.js";
import { fromWire, toWire } from "./wire.js";

export class PgnCtrl {
  /**
   * @param {object} options
   * @param {object} options.transport request (api/import, api/export)
   * @param {object} options.host the analysis controller: tree, loadTree(tree, {path})
   * @param {() => void} options.onChange told after every change of state
   */
  constructor({ transport, host, onChange }) {
    this.transport = transport;
    this.host = host;
    this.onChange = onChange || (() => {});
    this.open = false; // the import dialog
    this.busy = false;
    this.error = null;
    this.warnings = [];
    this.games = null; // the games of the last text, when it held several: [{index, headers, plies}]
    this.truncated = false;
    this.text = null; // that text, sent again with the index picked
    this.listOpen = false; // the list of those games shows (closed once one is picked)
    this.exported = null; // {pgn, filename} of the last export
    this.exportOpen = false;
  }

  showImport(open = !this.open) {
    this.open = open;
    if (open) this.exportOpen = false;
    this.error = null;
    this.onChange();
  }

  /** `path`'s answer to `body` (api/import by default), or null with the error said. */
  async #ask(body, path = "api/import") {
    this.busy = true;
    this.error = null;
    this.onChange();
    try {
      return await this.transport.request(path, body);
    } catch (error) {
      this.error = describeError(error);
      return null;
    } finally {
      this.busy = false;
      this.onChange();
    }
  }

  /** Reads a PGN text: one game is loaded at once, several are listed to pick from. */
  async importText(text) {
    if (!String(text || "").trim()) {
      this.error = "Paste a PGN or choose a file first.";
      this.onChange();
      return false;
    }
    const answer = await this.#ask({ pgn: String(text) });
    if (!answer) return false;
    this.warnings = answer.warnings || [];
    this.truncated = Boolean(answer.truncated);
    if (answer.tree) {
      this.games = null;
      this.text = null;
      this.#load(answer.tree);
      return true;
    }
    const games = answer.games || [];
    if (!games.length) {
      this.error = "No game found in that text.";
      this.onChange();
      return false;
    }
    this.games = games;
    this.text = String(text);
    this.listOpen = true;
    this.onChange();
    return true;
  }

  /** Loads game `index` of the text listed. */
  async pick(index) {
    if (this.text === null) return false;
    const answer = await this.#ask({ pgn: this.text, index });
    if (!answer || !answer.tree) return false;
    this.warnings = answer.warnings || [];
    this.listOpen = false;
    this.picked = index;
    this.#load(answer.tree);
    return true;
  }

  /** Shows (or hides) the list of the games of the last text again. */
  showList(open = !this.listOpen) {
    this.listOpen = Boolean(this.games) && open;
    this.onChange();
  }

  /** Reads a .pgn file chosen by the user (FileReader), then imports its text. */
  importFile(file) {
    if (!file) return Promise.resolve(false);
    return new Promise((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(this.importText(String(reader.result || "")));
      reader.onerror = () => {
        this.error = `Could not read ${file.name}.`;
        this.onChange();
        resolve(false);
      };
      reader.readAsText(file);
    });
  }

  /** A new analysis from a FEN (the server checks it). */
  async importFen(fen) {
    const text = String(fen || "").trim();
    if (!text) {
      this.error = "Type or paste a FEN first.";
      this.onChange();
      return false;
    }
    const answer = await this.#ask({ fen: text, moves: [] });
    if (!answer || !answer.tree) return false;
    this.games = null;
    this.#load(answer.tree);
    return true;
  }

  #load(wire) {
    this.open = false;
    this.host.loadTree(fromWire(wire), { path: [], reveal: true });
    this.onChange();
  }

  /** The tree as python-chess writes it: `{pgn, filename}`, kept to show and download. */
  async exportPgn() {
    const exported = await this.#ask({ tree: withoutMarks(toWire(this.host.tree)) }, "api/export");
    if (!exported) return null;
    this.exported = exported;
    this.exportOpen = true;
    this.open = false;
    this.onChange();
    return exported;
  }

  closeExport() {
    this.exportOpen = false;
    this.onChange();
  }
}
