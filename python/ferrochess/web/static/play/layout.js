// The play UI's DOM, built inside the root element (app.js fills it in and wires it up). Elements
// are found by the returned object, never by id: a notebook may show several boards at once, so
// the ids the labels need are prefixed with `uid`. Tests find the controls by `data-action` (a
// button's job) and `data-role` (a field's).

import { el } from "../ui/dom.js";
import { buildEvalBar } from "../ui/eval_bar.js";
import { TIME_CONTROLS } from "./clock.js";

export function buildLayout(root, uid) {
  const id = (name) => `${uid}-${name}`;
  const button = (action, text, attributes = {}) =>
    el("button", { type: "button", "data-action": action, ...attributes }, text);
  const player = (where) => {
    const name = el("span", { class: "player-name" });
    const detail = el("span", { class: "player-detail" });
    const thinking = el("span", { class: "thinking", role: "status", hidden: true },
      el("span", { class: "spinner", "aria-hidden": "true" }), " thinking…");
    const clock = el("span", { class: "clock", hidden: true, "aria-label": "Clock" });
    const material = el("span", { class: "material", "aria-label": "Material ahead" });
    const rootElement = el("div", { class: `player player-${where}` },
      el("span", { class: "player-who" }, name, detail), material, thinking, clock);
    return { root: rootElement, name, detail, material, thinking, clock };
  };

  const top = player("top");
  const bottom = player("bottom");
  const { evalBar, evalFill } = buildEvalBar();
  const boardElement = el("div", { class: "board", "aria-label": "Chess board" });
  const opening = el("p", { class: "opening", "aria-live": "polite" });

  const banner = el("div", { class: "game-over", role: "status", hidden: true });
  const message = el("p", { class: "message", role: "status", "aria-live": "polite", hidden: true });
  // Where the finished game stands in the server's games archive (only where there is one).
  const archive = el("p", { class: "archive-status", role: "status", "aria-live": "polite", hidden: true });
  const moves = el("ol", { class: "moves", "aria-label": "Moves" });
  const nav = {
    first: button("first", "«", { "aria-label": "First position", title: "First position (Home)" }),
    previous: button("previous", "‹", { "aria-label": "Previous move", title: "Previous move (←)" }),
    next: button("next", "›", { "aria-label": "Next move", title: "Next move (→)" }),
    last: button("last", "»", { "aria-label": "Live position", title: "Live position (End)" }),
  };
  const backToLive = button("live", "Back to the game", { class: "link-button", hidden: true });
  // The analysis board at the position shown (play_view.js shows it when there is a board to open).
  const analysePosition = button("analyse-position", "Analyse this position",
    { class: "link-button", hidden: true, title: "Open the analysis board at this position" });
  const buttons = {
    takeback: button("takeback", "Take back"),
    draw: button("draw", "Offer draw"),
    resign: button("resign", "Resign", { title: "Resign (asks to confirm)" }),
    cancelResign: button("cancel-resign", "Cancel", { hidden: true, title: "Do not resign (Escape)" }),
    flip: button("flip", "Flip board"),
    rematch: button("rematch", "Rematch", { class: "primary" }),
    newGameAfter: button("new-game-after", "New game"),
    review: button("review", "Review the game", { class: "primary" }),
    pgn: button("pgn", "Download PGN"),
    analyse: button("analyse", "Analyse", { hidden: true, title: "Open the game on the analysis board" }),
    newGame: button("new-game", "New game", { class: "primary" }),
  };
  const inGame = el("div", { class: "button-row in-game" }, buttons.takeback, buttons.draw, buttons.resign,
    buttons.cancelResign);
  const afterGame = el("div", { class: "button-row after-game", hidden: true },
    buttons.rematch, buttons.newGameAfter, buttons.review, buttons.analyse, buttons.pgn);

  const review = el("section", { class: "card", "data-panel": "review", hidden: true,
    "aria-label": "Review" });

  const engineToggle = el("input", { type: "checkbox", id: id("show-engine"), "data-role": "show-engine" });
  const summary = el("p", { class: "engine-summary" });
  const score = el("dd", { "data-stat": "score" }, "–");
  const depth = el("dd", { "data-stat": "depth" }, "–");
  const nodes = el("dd", { "data-stat": "nodes" }, "–");
  const timeStat = el("dd", { "data-stat": "time" }, "–");
  // A search's own numbers (a review's position has only its score).
  const searchStats = [
    el("div", {}, el("dt", {}, "Depth"), depth),
    el("div", {}, el("dt", {}, "Nodes"), nodes),
    el("div", {}, el("dt", {}, "Time"), timeStat)];
  const stats = el("dl", { class: "engine-stats" },
    el("div", {}, el("dt", {}, "Score"), score), ...searchStats);
  const pv = el("span", { class: "pv" });
  const line = el("p", { class: "engine-line" }, el("span", { class: "label" }, "Line"), " ", pv);
  const engineBody = el("div", { class: "engine-body" }, summary, stats, line);
  const hiddenNote = el("p", { class: "note engine-hidden" },
    "Hidden while you play below full strength; it shows after the game.");
  const engineCard = el("section", { class: "card engine", "aria-labelledby": id("engine-heading") },
    el("div", { class: "card-head" },
      el("h2", { id: id("engine-heading") }, "Engine"),
      el("label", { class: "switch", for: id("show-engine") }, engineToggle, " Show engine")),
    engineBody, hiddenNote);

  const color = el("select", { id: id("color"), "data-role": "color" },
    el("option", { value: "white" }, "White"),
    el("option", { value: "black" }, "Black"),
    el("option", { value: "random" }, "Random"));
  const level = el("select", { id: id("level"), "data-role": "level" });
  const time = el("select", { id: id("time"), "data-role": "time" },
    ...TIME_CONTROLS.map((control) => el("option", { value: control.id }, control.label)));
  const customMinutes = el("input", { type: "number", id: id("minutes"), "data-role": "custom-minutes",
    min: "0.25", max: "180", step: "0.25", value: "5" });
  const customIncrement = el("input", { type: "number", id: id("increment"), "data-role": "custom-increment",
    min: "0", max: "60", step: "1", value: "3" });
  const custom = el("div", { class: "field-row custom-time", hidden: true },
    el("label", { for: id("minutes") }, "Minutes"), customMinutes,
    el("label", { for: id("increment") }, "Increment (s)"), customIncrement);
  const timeNote = el("p", { class: "note time-note" });
  const book = el("input", { type: "checkbox", id: id("book"), "data-role": "book", checked: true });
  // Chess960: a position's number (0 to 959, checked by the server) or, left empty, a random one.
  const variant = el("select", { id: id("variant"), "data-role": "variant" },
    el("option", { value: "standard" }, "Standard"),
    el("option", { value: "chess960" }, "Chess960"));
  const chess960Position = el("input", { type: "text", id: id("chess960-position"), inputmode: "numeric",
    "data-role": "chess960-position", placeholder: "random", autocomplete: "off", spellcheck: "false" });
  const chess960Row = el("div", { class: "field-row chess960-row", hidden: true },
    el("label", { for: id("chess960-position") }, "Position (0–959)"), chess960Position);
  const setupError = el("p", { class: "setup-error", role: "alert", "aria-live": "assertive",
    "data-role": "setup-error" });
  const setup = el("section", { class: "card setup", "aria-labelledby": id("setup-heading") },
    el("h2", { id: id("setup-heading") }, "New game"),
    el("div", { class: "field-row" }, el("label", { for: id("color") }, "Play as"), color),
    el("div", { class: "field-row" }, el("label", { for: id("level") }, "Level"), level),
    el("div", { class: "field-row" }, el("label", { for: id("time") }, "Clock"), time),
    custom,
    el("div", { class: "field-row" }, el("label", { for: id("variant") }, "Variant"), variant),
    chess960Row,
    el("div", { class: "field-row" },
      el("label", { class: "checkbox", for: id("book") }, book, " Opening book"),
      buttons.newGame),
    setupError,
    timeNote);

  const fenOutput = el("input", { type: "text", id: id("fen"), class: "fen", readonly: true,
    spellcheck: "false", "data-role": "fen" });
  const copyFen = button("copy-fen", "Copy FEN");
  const fenInput = el("input", { type: "text", id: id("fen-input"), class: "fen", "data-role": "fen-input",
    placeholder: "Paste a FEN to set up a position", spellcheck: "false", autocomplete: "off" });
  const fenError = el("p", { class: "fen-error", role: "alert", "aria-live": "assertive" });
  const fenForm = el("form", { class: "field-row" },
    el("label", { for: id("fen-input"), class: "visually-hidden" }, "FEN to set up"), fenInput,
    el("button", { type: "submit", "data-action": "set-up" }, "Set up"));
  const position = el("section", { class: "card position", "aria-labelledby": id("position-heading") },
    el("h2", { id: id("position-heading") }, "Position"),
    el("div", { class: "field-row" },
      el("label", { for: id("fen"), class: "visually-hidden" }, "FEN of the position shown"), fenOutput, copyFen),
    fenForm, fenError,
    el("p", { class: "note" }, "From a set-up position you play the side to move."));

  const muteToggle = el("input", { type: "checkbox", id: id("sound"), "data-role": "sound" });
  const footer = el("div", { class: "footer-row" },
    el("label", { class: "switch", for: id("sound") }, muteToggle, " Sound"),
    buttons.flip);

  const takeOver = button("take-over", "Play here", { class: "primary" });
  const stale = el("div", { class: "stale", role: "alertdialog", hidden: true, "aria-label": "Game in another tab" },
    el("p", {}, "This game continues in another tab."), takeOver);

  const table = el("section", { class: "card table", "aria-label": "Game" },
    banner, archive,
    el("div", { class: "moves-head" }, el("h2", {}, "Moves"),
      el("div", { class: "nav" }, nav.first, nav.previous, nav.next, nav.last)),
    moves, el("div", { class: "moves-links" }, backToLive, analysePosition), inGame, afterGame, message);

  root.classList.add("fc-play");
  root.dataset.state = "loading";
  const boardArea = el("div", { class: "board-area" },
    top.root,
    el("div", { class: "board-row" }, evalBar, el("div", { class: "board-frame" }, boardElement)),
    bottom.root,
    opening);
  root.replaceChildren(
    boardArea,
    el("div", { class: "side" }, table, review, engineCard, setup, position, footer),
    stale,
  );
  if (!root.hasAttribute("tabindex")) root.tabIndex = 0;

  return {
    top, bottom, boardArea, board: boardElement, evalBar, evalFill, opening, banner, archive, message, moves, nav,
    backToLive, analysePosition, buttons, inGame, afterGame, review, engineToggle, muteToggle,
    engine: { body: engineBody, hiddenNote, summary, stats, searchStats, score, depth, nodes, time: timeStat,
      line, pv },
    color, level, time, custom, customMinutes, customIncrement, timeNote, book,
    variant, chess960Row, chess960Position, setupError,
    fenOutput, copyFen, fenInput, fenForm, fenError, stale, takeOver,
  };
}
