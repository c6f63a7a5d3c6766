// The explorer's panel (lichess's explorer/explorerView): the opening's name, the book's moves in
// the order the server gives them (its book's own order) with their weights and shares, and, where
// the tablebases know the position, its verdict and each move's, with WDL and DTZ, worded as
// lichess words them from the mover's point of view. A click on a move plays it (the view hands
// the move to the controller; the SAN is the server's).

import { el } from "../ui/dom.js";

/** lichess's words for a tablebase verdict of a move, from the side that plays it. */
export const MOVE_VERDICTS = Object.freeze({
  win: "Winning",
  "cursed win": "Win prevented by 50-move rule",
  "maybe win": "Win or 50-move draw",
  draw: "Drawn",
  "maybe loss": "Loss or 50-move draw",
  "blessed loss": "Loss saved by 50-move rule",
  loss: "Losing",
});
/** The position's verdict, for the side to move. */
const POSITION_VERDICTS = Object.freeze({
  win: "wins",
  "cursed win": "wins, but the 50-move rule saves the other side",
  "maybe win": "wins or draws by the 50-move rule",
  draw: "draws",
  "maybe loss": "loses or draws by the 50-move rule",
  "blessed loss": "loses, but the 50-move rule saves it",
  loss: "loses",
});

const signed = (value) => (value === null || value === undefined ? "–" : value > 0 ? `+${value}` : String(value));
const capital = (word) => word.charAt(0).toUpperCase() + word.slice(1);

function bookTable(book) {
  const moves = (book && book.moves) || [];
  const name = book && book.name ? `Book: ${book.name}` : "Book";
  if (!moves.length) return el("p", { class: "explorer-empty", "data-testid": "explorer-book-empty" }, `${name}: no move here.`);
  const rows = moves.map((move) => el("tr", { class: "explorer-move", "data-testid": "explorer-move",
    "data-uci": move.uci, "data-san": move.san, tabindex: "0", title: `Play ${move.san}` },
  el("td", { class: "san" }, move.san),
  el("td", { class: "weight" }, String(move.weight)),
  el("td", { class: "share" },
    el("span", { class: "share-bar", style: `width: ${Math.max(0, Math.min(100, Number(move.share) || 0))}%` }),
    el("span", { class: "share-text" }, `${Number(move.share).toFixed(1)}%`))));
  return el("table", { class: "explorer-book", "data-testid": "explorer-book" },
    el("caption", {}, name),
    el("thead", {}, el("tr", {}, el("th", {}, "Move"), el("th", {}, "Weight"), el("th", {}, "Share"))),
    el("tbody", {}, ...rows));
}

function tablebaseSection(tablebase, turn) {
  const side = turn ? capital(turn) : "The side to move";
  const verdict = POSITION_VERDICTS[tablebase.verdict] || tablebase.verdict;
  const dtz = tablebase.dtz !== null && tablebase.dtz !== undefined ? ` (DTZ ${tablebase.dtz})` : "";
  const rows = (tablebase.moves || []).map((move) => el("tr", { class: `tablebase-move verdict-${String(move.verdict).replace(/\s+/g, "-")}`,
    "data-testid": "tablebase-move", "data-uci": move.uci, "data-san": move.san, "data-wdl": move.wdl,
    "data-dtz": move.dtz ?? "", "data-verdict": move.verdict, tabindex: "0", title: `Play ${move.san}` },
  el("td", { class: "san" }, move.san),
  el("td", { class: "verdict" }, move.ends ? capital(move.ends) : MOVE_VERDICTS[move.verdict] || move.verdict),
  el("td", { class: "wdl" }, `WDL ${signed(move.wdl)}`),
  el("td", { class: "dtz" }, move.dtz === null || move.dtz === undefined ? "" : `DTZ ${signed(move.dtz)}`)));
  return el("section", { class: "explorer-tablebase", "data-testid": "explorer-tablebase",
    "data-verdict": tablebase.verdict, "data-wdl": tablebase.wdl },
  el("h3", { class: "tablebase-verdict" },
    `Tablebase (${tablebase.pieces} pieces): ${side} ${verdict}${dtz}`),
  rows.length ? el("table", { class: "tablebase-moves" }, el("tbody", {}, ...rows)) : el("p", { class: "explorer-empty" }, "No legal move."));
}

/** Draws the explorer's state into `parts` (layout.js's explorer card); `turn` is the side to move
 * as the server said ("white"/"black"), or null while it is not known. */
export function renderExplorer(parts, explorer, turn) {
  parts.toggle.checked = explorer.enabled;
  parts.body.hidden = !explorer.enabled;
  if (!explorer.enabled) return;
  parts.body.dataset.key = explorer.data ? explorer.key : "";
  parts.body.dataset.loading = explorer.loading ? "yes" : "no";
  if (explorer.error) {
    parts.body.replaceChildren(el("p", { class: "explorer-error", role: "alert" }, explorer.error));
    return;
  }
  if (!explorer.data) {
    if (explorer.loading) parts.body.replaceChildren(el("p", { class: "explorer-empty" }, "Loading…"));
    return;
  }
  const { opening, book, tablebase } = explorer.data;
  const children = [];
  if (opening && opening.name) {
    children.push(el("p", { class: "explorer-opening", "data-testid": "explorer-opening" },
      opening.eco ? el("span", { class: "eco" }, opening.eco) : null, ` ${opening.name}`));
  }
  if (tablebase) children.push(tablebaseSection(tablebase, turn));
  children.push(bookTable(book));
  parts.body.replaceChildren(...children);
}

/** The move a click or Enter on the explorer chose: `{uci, san}`, or null. */
export function explorerMoveOf(target) {
  const row = target && target.closest && target.closest("tr[data-uci]");
  return row ? { uci: row.dataset.uci, san: row.dataset.san } : null;
}
