// PGN in and out, drawn (pgn.js is its controller): the import dialog (a pasted text, a file, or
// a FEN), the list of the games of a file to pick one by its headers, the exported PGN as text
// with a download (a Blob) and a copy button, and what went wrong.

import { el } from "../ui/dom.js";

const HEADERS = ["White", "Black", "Result", "Event", "Date"];

/** The games listed, in words: "12 games", or "Showing the first 1,000 of the games" when the
 * server listed only the first ones of the text (its `truncated`). */
function listedWords(count, truncated) {
  const number = count.toLocaleString("en");
  return truncated ? `Showing the first ${number} of the games` : `${number} games`;
}

export class PgnView {
  /** @param {object} parts layout.js's pgn card @param {object} ctrl the analysis controller */
  constructor(parts, ctrl) {
    this.parts = parts;
    this.ctrl = ctrl;
    this.url = null; // the Blob URL of the last export
    this.downloaded = null; // the export already downloaded once
    this.#wire();
  }

  #wire() {
    const { parts } = this;
    const pgn = () => this.ctrl.pgn;
    const on = (node, type, fn) => node.addEventListener(type, fn);
    on(parts.buttons.import, "click", () => pgn().showImport());
    on(parts.buttons.export, "click", () => pgn().exportPgn());
    const action = (name) => parts.root.querySelector(`[data-action="${name}"]`);
    on(action("import-pgn"), "click", () => pgn().importText(parts.text.value));
    on(action("import-fen"), "click", () => pgn().importFen(parts.fen.value));
    on(action("close-import"), "click", () => pgn().showImport(false));
    on(action("close-export"), "click", () => pgn().closeExport());
    on(action("copy-pgn"), "click", () => this.#copy(parts.exported));
    on(action("copy-fen"), "click", () => this.#copy(parts.fenOutput));
    on(parts.file, "change", () => {
      const [file] = parts.file.files || [];
      if (file) pgn().importFile(file).then(() => { parts.file.value = ""; });
    });
    on(parts.games, "keydown", (event) => {
      const row = event.key === "Enter" && event.target.closest("[data-index]");
      if (row) pgn().pick(Number(row.dataset.index));
    });
    on(parts.fen, "keydown", (event) => {
      if (event.key === "Enter") pgn().importFen(parts.fen.value);
    });
    on(parts.games, "click", (event) => {
      if (event.target.closest('[data-action="show-games"]')) {
        pgn().showList(true);
        return;
      }
      const row = event.target.closest("[data-index]");
      if (row) pgn().pick(Number(row.dataset.index));
    });
  }

  #copy(field) {
    field.select();
    const text = field.value;
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).catch(() => {});
  }

  render() {
    const { parts } = this;
    const pgn = this.ctrl.pgn;
    parts.dialog.hidden = !pgn.open;
    parts.root.dataset.busy = pgn.busy ? "yes" : "no";
    for (const button of parts.root.querySelectorAll("button")) button.disabled = pgn.busy && button.dataset.action !== "close-import";
    parts.error.textContent = pgn.error || "";
    parts.warnings.replaceChildren(...(pgn.warnings || []).map((text) => el("li", {}, String(text))));
    this.#renderGames(pgn);
    this.#renderExport(pgn);
  }

  #renderGames(pgn) {
    const { games } = this.parts;
    games.hidden = !pgn.games;
    if (!pgn.games) {
      games.replaceChildren();
      return;
    }
    if (!pgn.listOpen) {
      games.replaceChildren(el("button", { type: "button", class: "link-button", "data-action": "show-games" },
        `Pick another game of the ${pgn.games.length}`));
      return;
    }
    const plies = pgn.games.some((game) => Number.isInteger(game.plies));
    const rows = pgn.games.map((game) => el("tr", { class: "pgn-game", "data-index": game.index,
      "data-testid": "pgn-game", tabindex: "0" },
    ...HEADERS.map((name) => el("td", { "data-header": name }, (game.headers || {})[name] || "?")),
    plies ? el("td", { class: "plies" }, String(game.plies ?? "")) : null));
    games.replaceChildren(
      el("p", {}, `${listedWords(pgn.games.length, pgn.truncated)}: pick one.`),
      el("div", { class: "pgn-games-scroll" }, el("table", {},
        el("thead", {}, el("tr", {}, ...HEADERS.map((name) => el("th", {}, name)), plies ? el("th", {}, "Plies") : null)),
        el("tbody", {}, ...rows))));
  }

  #renderExport(pgn) {
    const { parts } = this;
    parts.exportArea.hidden = !pgn.exportOpen || !pgn.exported;
    if (!pgn.exported) return;
    if (parts.exported.value !== pgn.exported.pgn) parts.exported.value = pgn.exported.pgn;
    if (this.downloaded !== pgn.exported) {
      if (this.url) URL.revokeObjectURL(this.url);
      this.url = URL.createObjectURL(new Blob([pgn.exported.pgn], { type: "application/x-chess-pgn" }));
      parts.download.href = this.url;
      parts.download.setAttribute("download", pgn.exported.filename || "analysis.pgn");
      this.downloaded = pgn.exported;
      parts.download.click(); // the download starts, as the button promised
    }
  }

  destroy() {
    if (this.url) URL.revokeObjectURL(this.url);
  }
}
