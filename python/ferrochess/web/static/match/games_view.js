// The finished games: a table (newest first: number, players, result, how it ended and the opening)
// whose row, clicked (or Enter on it), shows that game's final position beside the table, with a
// link that downloads its PGN (asked of the kernel when clicked). Before a game is chosen the
// last one to finish is shown.

import { el } from "../ui/dom.js";
import { describeError } from "../ui/errors.js";
import { resultShown } from "../ui/score.js";
import { GameTile } from "./boards_view.js";

const REVOKE_AFTER_MS = 60_000;

/** Offers `text` as a file named `name` to download. */
function download(text, name) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-chess-pgn" }));
  const link = el("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}

export class GamesView {
  /** Draws into `ui` (view.js's games card parts) from `ctrl`. */
  constructor(ui, ctrl) {
    Object.assign(this, { ui, ctrl });
    this.tile = null;
    this.rowsOf = null; // the games array the rows were made from
    ui.pgn.addEventListener("click", () => this.downloadShown());
    ui.body.addEventListener("click", (event) => this.choose(event));
    ui.body.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        this.choose(event);
      }
    });
  }

  choose(event) {
    const row = event.target.closest("tr[data-game]");
    if (row) this.ctrl.select(Number(row.dataset.game));
  }

  render() {
    const { ui, ctrl } = this;
    const games = ctrl.games;
    const shown = ctrl.shownGame();
    if (this.rowsOf !== games) {
      this.rowsOf = games;
      ui.body.replaceChildren(...games.slice().reverse().map((game) => el("tr", {
        "data-game": game.index, tabindex: 0, "data-result": game.result,
      },
      el("td", { class: "num" }, String(game.index + 1)),
      el("td", { class: "who", title: game.white }, game.white),
      el("td", { class: "who", title: game.black }, game.black),
      el("td", { class: "result" }, resultShown(game.result)),
      el("td", { class: "end", title: `${game.reason}\n${game.opening}` },
        el("span", { class: "reason" }, game.reason), el("span", { class: "game-opening" }, game.opening)))));
    }
    for (const row of ui.body.children) {
      const chosen = shown !== null && Number(row.dataset.game) === shown.index;
      row.classList.toggle("chosen", chosen);
      row.setAttribute("aria-selected", chosen ? "true" : "false");
    }
    const played = ctrl.state.played || 0;
    ui.count.textContent = games.length < played ? `the last ${games.length} of ${played}` : String(games.length || "");
    ui.empty.hidden = games.length > 0;
    ui.viewer.hidden = shown === null;
    ui.gamesBody.hidden = games.length === 0;
    if (shown === null) return;
    if (!this.tile) {
      this.tile = new GameTile({ kind: "final" });
      ui.viewerBoard.replaceChildren(this.tile.element);
    }
    this.tile.show(shown);
    ui.reason.textContent = `${resultShown(shown.result)} · ${shown.reason}`;
    ui.pgn.dataset.game = String(shown.index);
  }

  downloadShown() {
    const shown = this.ctrl.shownGame();
    if (!shown) return;
    const { ui } = this;
    ui.pgnStatus.textContent = "";
    this.ctrl.pgn(shown.index).then(
      (text) => download(text, `ferrochess-match-game-${shown.index + 1}.pgn`),
      (error) => {
        ui.pgnStatus.textContent = describeError(error);
      },
    );
  }

  destroy() {
    if (this.tile) this.tile.destroy();
  }
}
