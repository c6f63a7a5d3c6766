// The small boards, as lichess TV's mini games: a view-only chessground board with each player's
// name and clock above and below it (Black above, White below), and under it the game's number,
// round, opening and the mover's last evaluation. BoardsView keeps one per game in play, in game
// order, made when a game starts and dropped when it ends; the clock of the side to move runs
// down between two of the kernel's updates. GameTile also draws a finished game's final position
// (games_view.js), with each player's points instead of a clock.

import { Chessground } from "../vendor/chessground/chessground.min.js";
import { formatClock } from "../play/clock.js";
import { el } from "../ui/dom.js";
import { formatScore, MISSING } from "../ui/score.js";

const TICK_MS = 100;
/** Under this many seconds a running clock turns red, as on lichess. */
const LOW_SECONDS = 10;
const COLORS = ["white", "black"];
const POINTS = { "1-0": { white: "1", black: "0" }, "0-1": { white: "0", black: "1" },
  "1/2-1/2": { white: "½", black: "½" } };

/** chessground's [from, to] of a UCI move, or undefined. */
function squares(uci) {
  return typeof uci === "string" && uci.length >= 4 ? [uci.slice(0, 2), uci.slice(2, 4)] : undefined;
}

/** One game on a small board: `element` (to be placed by the caller before `show`), then
 * `show(game)` with a board of the kernel's state or a finished game's row. */
export class GameTile {
  constructor({ kind = "live" } = {}) {
    this.kind = kind;
    this.players = Object.fromEntries(COLORS.map((color) => {
      const name = el("span", { class: "mini-name" });
      const time = el("span", { class: "mini-time" });
      const row = el("div", { class: "mini-player", "data-color": color },
        el("i", { class: `mini-swatch ${color}`, "aria-hidden": "true" }), name, time);
      return [color, { row, name, time }];
    }));
    this.boardElement = el("div", { class: "mini-board" });
    this.title = el("span", { class: "mini-title" });
    this.score = el("span", { class: "mini-score", title: "The mover's last evaluation (White's view)" });
    this.opening = el("p", { class: "mini-opening" });
    this.element = el("article", { class: `mini-game ${kind}`, "data-testid": kind === "live" ? "live-game" : "final-game" },
      this.players.black.row,
      el("div", { class: "mini-frame" }, this.boardElement),
      this.players.white.row,
      el("p", { class: "mini-caption" }, this.title, this.score),
      this.opening);
    this.ground = null;
    this.shown = null;
  }

  /** Draws `game`: a board of the kernel's state (a game in play) or a finished game's row. */
  show(game) {
    if (!this.ground) {
      // Made once the element is in the page, so chessground measures a real box.
      this.ground = Chessground(this.boardElement, {
        viewOnly: true,
        coordinates: false,
        orientation: "white",
        animation: { enabled: true, duration: 150 },
        highlight: { lastMove: true, check: true },
        drawable: { enabled: false, visible: false },
      });
    }
    const number = (shown) => shown.game ?? shown.index;
    const sameGame = Boolean(this.shown) && number(this.shown) === number(game);
    if (!sameGame || this.shown.fen !== game.fen || this.shown.last_move !== game.last_move) {
      this.ground.set({
        fen: game.fen,
        lastMove: squares(game.last_move),
        turnColor: game.turn || "white",
        check: Boolean(game.check),
        animation: { enabled: sameGame }, // a move of the game shown glides; another game appears
      });
    }
    this.shown = game;
    this.element.dataset.game = String(number(game));
    this.players.white.name.textContent = game.white;
    this.players.black.name.textContent = game.black;
    this.players.white.name.title = game.white;
    this.players.black.name.title = game.black;
    if (this.kind === "live") {
      this.title.textContent = `Game ${game.game + 1} · Round ${game.round}`;
      this.score.textContent = game.score ? formatScore(game.score) : "";
      this.opening.textContent = game.opening || "";
      this.opening.title = game.opening || "";
    } else {
      const points = POINTS[game.result] || { white: MISSING, black: MISSING };
      for (const color of COLORS) {
        const time = this.players[color].time;
        time.textContent = points[color];
        time.className = `mini-time mini-points${points[color] === "1" ? " won" : ""}`;
      }
      this.title.textContent = `Game ${game.index + 1} · Round ${game.round}`;
      this.score.textContent = "";
      this.opening.textContent = game.opening || "";
    }
  }

  /** Shows the clocks of a live game as `clock(color)` (seconds or null) says them now. */
  tick(clock) {
    const game = this.shown;
    if (!game || this.kind !== "live") return;
    for (const color of COLORS) {
      const seconds = clock(color);
      const time = this.players[color].time;
      time.hidden = seconds === null;
      if (seconds === null) continue;
      const text = formatClock(seconds * 1000);
      if (time.textContent !== text) time.textContent = text;
      const running = game.turn === color;
      time.classList.toggle("running", running);
      time.classList.toggle("low", running && seconds < LOW_SECONDS);
    }
  }

  destroy() {
    if (this.ground) this.ground.destroy();
    this.element.remove();
  }
}

/** The games in play, one GameTile each, in `container` (in game order). */
export class BoardsView {
  constructor(container, ctrl) {
    Object.assign(this, { container, ctrl });
    this.tiles = new Map();
    this.timer = null;
  }

  render() {
    const boards = this.ctrl.boards;
    const playing = new Set(boards.map((board) => board.game));
    for (const [game, tile] of this.tiles) {
      if (!playing.has(game)) {
        tile.destroy();
        this.tiles.delete(game);
      }
    }
    boards.forEach((board, position) => {
      let tile = this.tiles.get(board.game);
      if (!tile) {
        tile = new GameTile({ kind: "live" });
        this.tiles.set(board.game, tile);
      }
      const here = this.container.children[position];
      if (here !== tile.element) this.container.insertBefore(tile.element, here || null);
      tile.show(board);
    });
    this.tick();
    const running = !this.ctrl.over && boards.some((board) => board.clocks && board.clocks[board.turn] !== null
      && board.clocks[board.turn] !== undefined);
    if (running && this.timer === null) this.timer = setInterval(() => this.tick(), TICK_MS);
    if (!running && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  tick() {
    for (const tile of this.tiles.values()) tile.tick((color) => this.ctrl.clock(tile.shown, color));
  }

  destroy() {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    for (const tile of this.tiles.values()) tile.destroy();
    this.tiles.clear();
  }
}
