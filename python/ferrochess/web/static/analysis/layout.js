// The analysis board's DOM, built inside the root element: the board with its evaluation bar left,
// the panels right (the engine, the move tree, the move's comment and glyphs, the explorer, PGN).
// Elements are handed back in an object, never found by id (a notebook may show several boards);
// the ids labels need are prefixed with `uid`. Tests find controls by `data-action` (a button's
// job) and `data-role` (a field's). The classes of play.css (.fc-play) style what is shared.

import { el } from "../ui/dom.js";
import { buildEvalBar } from "../ui/eval_bar.js";

const button = (action, text, attributes = {}) =>
  el("button", { type: "button", "data-action": action, ...attributes }, text);

function boardArea() {
  const { evalBar, evalFill } = buildEvalBar({ "data-testid": "eval-bar" });
  const board = el("div", { class: "board", "aria-label": "Chess board" });
  const opening = el("p", { class: "opening", "aria-live": "polite" });
  const nav = {
    first: button("first", "«", { "aria-label": "First position", title: "First position (Home)" }),
    previous: button("previous", "‹", { "aria-label": "Previous move", title: "Previous move (←)" }),
    next: button("next", "›", { "aria-label": "Next move", title: "Next move (→)" }),
    last: button("last", "»", { "aria-label": "End of the line", title: "End of the line (End)" }),
  };
  const flip = button("flip", "Flip board", { title: "Flip the board (f)" });
  const controls = el("div", { class: "analysis-controls" },
    el("div", { class: "nav" }, nav.first, nav.previous, nav.next, nav.last), flip);
  const root = el("div", { class: "board-area" },
    el("div", { class: "board-row" }, evalBar, el("div", { class: "board-frame" }, board)),
    opening, controls);
  return { root, evalBar, evalFill, board, opening, nav, flip };
}

function cevalCard(id) {
  const toggle = el("input", { type: "checkbox", id: id("engine"), "data-role": "engine-toggle" });
  const multipv = el("select", { id: id("multipv"), "data-role": "multipv", "aria-label": "Engine lines" },
    ...[1, 2, 3, 4, 5].map((n) => el("option", { value: String(n) }, n === 1 ? "1 line" : `${n} lines`)));
  const score = el("strong", { class: "ceval-score", "data-testid": "ceval-score" });
  const info = el("span", { class: "ceval-info", "data-testid": "ceval-info" });
  const status = el("p", { class: "ceval-status", role: "status", "aria-live": "polite" });
  const lines = el("div", { class: "ceval-lines", "data-testid": "ceval-lines" });
  const review = el("p", { class: "review-line", "data-testid": "review-line", hidden: true });
  const root = el("section", { class: "card ceval", "aria-label": "Engine", "data-panel": "ceval" },
    el("div", { class: "card-head" },
      el("label", { class: "switch", for: id("engine"), title: "Engine on or off (x)" }, toggle, " Engine"),
      score, info,
      el("label", { class: "visually-hidden", for: id("multipv") }, "Lines"), multipv),
    lines, status, review);
  return { root, toggle, multipv, score, info, status, lines, review };
}

function treeCard() {
  const tools = {
    promote: button("promote", "Promote", { title: "Promote this variation one level" }),
    mainline: button("mainline", "Make main line", { title: "Make this line the main line" }),
    remove: button("delete", "Delete", { title: "Delete from this move on" }),
    collapse: button("collapse", "Collapse", { title: "Fold the variations after this move" }),
  };
  const tree = el("div", { class: "analysis-tree", "data-testid": "tree", role: "tree", "aria-label": "Moves" });
  const root = el("section", { class: "card moves-card", "aria-label": "Moves", "data-panel": "tree" },
    el("div", { class: "card-head" }, el("h2", {}, "Moves"),
      el("div", { class: "tree-tools" }, tools.promote, tools.mainline, tools.remove, tools.collapse)),
    tree);
  const menu = el("div", { class: "tree-menu", role: "menu", hidden: true, "data-testid": "tree-menu" });
  return { root, tools, tree, menu };
}

function nodeCard(id) {
  const judgement = el("p", { class: "node-judgement", "data-testid": "node-judgement", hidden: true });
  const comment = el("textarea", { id: id("comment"), class: "node-comment", "data-role": "comment", rows: 2,
    placeholder: "A comment on this move", spellcheck: "true" });
  const moveNags = el("div", { class: "nag-buttons", "data-role": "move-nags" });
  const positionNags = el("div", { class: "nag-buttons", "data-role": "position-nags" });
  const root = el("section", { class: "card node-card", "aria-label": "This move", "data-panel": "node" },
    judgement,
    el("label", { for: id("comment"), class: "visually-hidden" }, "Comment"), comment,
    moveNags, positionNags);
  return { root, judgement, comment, moveNags, positionNags };
}

function explorerCard(id) {
  const toggle = el("input", { type: "checkbox", id: id("explorer"), "data-role": "explorer-toggle", checked: true });
  const body = el("div", { class: "explorer-body", "data-testid": "explorer" });
  const root = el("section", { class: "card explorer", "aria-label": "Opening explorer", "data-panel": "explorer" },
    el("div", { class: "card-head" }, el("h2", {}, "Opening explorer"),
      el("label", { class: "switch", for: id("explorer") }, toggle, " Show")),
    body);
  return { root, toggle, body };
}

function pgnCard(id) {
  const buttons = {
    import: button("import", "Import PGN / FEN"),
    export: button("export", "Export PGN"),
  };
  const text = el("textarea", { id: id("pgn-text"), class: "pgn-text", "data-role": "pgn-text", rows: 6,
    placeholder: "Paste a PGN (one game or many)", spellcheck: "false" });
  const file = el("input", { type: "file", id: id("pgn-file"), accept: ".pgn,application/x-chess-pgn,text/plain",
    "data-role": "pgn-file" });
  const fen = el("input", { type: "text", id: id("fen-input"), class: "fen", "data-role": "fen-input",
    placeholder: "Paste a FEN", spellcheck: "false", autocomplete: "off" });
  const dialog = el("div", { class: "pgn-dialog", role: "dialog", "aria-label": "Import", hidden: true,
    "data-testid": "import-dialog" },
    el("label", { for: id("pgn-text") }, "PGN"), text,
    el("div", { class: "field-row" },
      button("import-pgn", "Import PGN", { class: "primary" }),
      el("label", { for: id("pgn-file"), class: "file-label" }, "or a file: "), file),
    el("div", { class: "field-row" },
      el("label", { for: id("fen-input") }, "FEN"), fen, button("import-fen", "New analysis from FEN")),
    button("close-import", "Close", { class: "link-button" }));
  const games = el("div", { class: "pgn-games", "data-testid": "pgn-games", hidden: true });
  const exported = el("textarea", { class: "pgn-export", "data-role": "pgn-export", rows: 8, readonly: true,
    spellcheck: "false", "aria-label": "Exported PGN" });
  const download = el("a", { class: "pgn-download", "data-action": "download", href: "#" }, "Download");
  const exportArea = el("div", { class: "pgn-export-area", hidden: true, "data-testid": "export-area" },
    exported,
    el("div", { class: "field-row" }, download, button("copy-pgn", "Copy"),
      button("close-export", "Close", { class: "link-button" })));
  const fenOutput = el("input", { type: "text", id: id("fen"), class: "fen", readonly: true, spellcheck: "false",
    "data-role": "fen" });
  const error = el("p", { class: "pgn-error", role: "alert" });
  const warnings = el("ul", { class: "pgn-warnings" });
  const root = el("section", { class: "card pgn-card", "aria-label": "PGN and FEN", "data-panel": "pgn" },
    el("div", { class: "field-row" },
      el("label", { for: id("fen"), class: "visually-hidden" }, "FEN of the position shown"), fenOutput,
      button("copy-fen", "Copy FEN")),
    el("div", { class: "button-row" }, buttons.import, buttons.export),
    dialog, games, exportArea, error, warnings);
  return { root, buttons, text, file, fen, dialog, games, exported, download, exportArea, fenOutput, error, warnings };
}

/** Builds the analysis board's DOM in `root`; returns its parts. */
export function buildLayout(root, uid) {
  const id = (name) => `${uid}-${name}`;
  const area = boardArea();
  const ceval = cevalCard(id);
  const tree = treeCard();
  const node = nodeCard(id);
  const explorer = explorerCard(id);
  const pgn = pgnCard(id);
  const message = el("p", { class: "message", role: "status", "aria-live": "polite", hidden: true });
  root.classList.add("fc-play", "fc-analysis");
  root.dataset.state = "loading";
  root.dataset.path = "";
  root.replaceChildren(
    area.root,
    el("div", { class: "side" }, ceval.root, tree.root, message, node.root, explorer.root, pgn.root),
    tree.menu,
  );
  if (!root.hasAttribute("tabindex")) root.tabIndex = 0;
  return { ...area, boardArea: area.root, ceval, tree, node, explorer, pgn, message };
}
