// The play UI, mounted into one element: the board (board.js), the game and its state machine
// (game.js), the clocks, the panels, the sounds and the review. The page (page.js) and the notebook
// widget (widget.js) both call mountPlay, each with its own transport, so both show the same thing.
//
//   const controller = mountPlay(root, {
//     transport,            // request(path, body), stream(path, body, onLine), cancel(clientId)
//     storage,              // Storage-like (localStorage) or null: the game survives a reload and
//                           // other tabs are told when one takes it over
//     clientId,             // this tab's or widget's id ([A-Za-z0-9_-], <= 64), sent for cancel
//     options: {
//       keyboard: "document" | "root",  // where ←/→/Home/End are heard (default "root")
//       storageKey,                     // default "ferrochess.play.game"
//       levels,                         // the /api/levels answer, when the host has it already
//     },
//   });
//   controller.ready     // Promise: the piece images decoded and the first position drawn
//   controller.game      // the PlayGame (game.js); controller.board (board.js)
//   controller.cancel()  // api/cancel for this client (the page calls it on pagehide)
//   controller.destroy()
//
// The state of the game is written on root.dataset.state: loading, ready, thinking, over,
// reviewing, reviewed, learning, error, stale ("loading" until the pieces are decoded).

import { createBoard } from "./board.js";
import { TIME_CONTROLS, describeTimeControl, timeControl } from "./clock.js";
import { PlayGame, START_FEN, describeError, other } from "./game.js";
import {
  bannerWords,
  el,
  firstMoveNumber,
  levelLabel,
  renderClock,
  renderEngine,
  renderEvalBar,
  renderMoves,
} from "./panels.js";
import { Review } from "./review.js";
import { buildLayout } from "./layout.js";
import { Sounds, soundOfSan } from "./sounds.js";

const TICK_MS = 100;
let mounted = 0;

/** A fresh client id: 20 letters and digits. */
export function newClientId() {
  const bytes = new Uint8Array(20);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => "abcdefghijklmnopqrstuvwxyz0123456789"[byte % 36]).join("");
}

export function mountPlay(root, { transport, storage = null, clientId = newClientId(), options = {} } = {}) {
  const uid = `fc${++mounted}`;
  const storageKey = options.storageKey || "ferrochess.play.game";
  const ui = buildLayout(root, uid);
  const sounds = new Sounds(root, storage);
  let levels = [];
  let viewPly = null; // the ply shown while stepping through the game; null: the live position
  let showEngine = null; // the user's choice for this game; null: the default for the level
  let orientation = "white";
  let piecesReady = false;
  let soundedPlies = null; // the plies the sounds have been played for (null before the first)
  let lastScore = null; // the evaluation bar's score: kept across book moves
  let staleSaved = null;
  let destroyed = false;

  const board = createBoard(ui.board, { onMove: (uci) => boardMove(uci) });
  const game = new PlayGame({ transport, clientId, onChange: changed });
  const review = new Review({
    container: ui.review,
    transport,
    board,
    clientId,
    getGame: () => ({ fen: game.fen, moves: game.moves.slice(), human: game.human, end: game.end }),
    onJump: (ply) => showPly(ply),
    onDone: () => showLive(),
    onState: (state) => reviewChanged(state),
  });

  // --- what the game tells us -------------------------------------------------------------------

  function changed(what) {
    if (destroyed) return;
    if (what === "phase") phaseChanged();
    if (what === "position") positionChanged();
    if (what === "engine") engineReplied();
    if (what === "message") renderMessage();
    if (what === "clock") renderClocks();
    save();
    renderControls();
  }

  let previousPhase = game.phase;
  function phaseChanged() {
    const phase = game.phase;
    if (phase === "over" && (previousPhase === "ready" || previousPhase === "thinking")) {
      sounds.play("end");
      showEngine = null; // on after the game
    }
    if (phase === "stale") renderStale();
    previousPhase = phase;
    renderState();
    renderBanner();
    renderEngineDisplay();
    if (phase !== "learning" && phase !== "reviewing" && phase !== "reviewed") renderBoard();
  }

  function positionChanged() {
    const state = game.state;
    if (!state) return;
    viewPly = null;
    if (soundedPlies !== null && state.moves.length === soundedPlies + 1) {
      sounds.play(soundOfSan(state.san[state.san.length - 1]));
    }
    soundedPlies = state.moves.length;
    renderBoard();
    renderMovesList();
    renderBanner();
    ui.opening.textContent = state.opening ? `${state.opening.eco} · ${state.opening.name}` : "";
    ui.fenOutput.value = state.fen;
  }

  function engineReplied() {
    const reply = game.reply;
    if (reply && reply.source !== "book" && reply.score) lastScore = reply.score;
    renderEngineDisplay();
  }

  function reviewChanged(state) {
    const map = {
      analysing: ["review"],
      reviewed: ["reviewed", "learned"],
      learning: ["learn"],
      idle: ["stopped"],
      cancelled: ["stopped"],
      error: ["stopped"],
    };
    for (const event of map[state] || []) {
      if (game.can(event) && !["load", "superseded"].includes(event) && game.phase !== "loading") {
        game.fire(event);
        return;
      }
    }
  }

  // --- the board ---------------------------------------------------------------------------------

  function boardMove(uci) {
    if (viewPly !== null || game.phase !== "ready") return;
    game.playHuman(uci);
  }

  function renderBoard() {
    const state = game.state;
    if (!state) return;
    const phase = game.phase;
    if (phase === "learning") return; // review.js has the board
    if (viewPly !== null) {
      showPly(viewPly);
      return;
    }
    // While the human's move is being checked, the board already shows it: leave it.
    if (phase === "thinking" && state.turn === game.human) return;
    const live = phase === "ready" || phase === "thinking";
    board.show({
      fen: state.fen,
      orientation,
      turn: state.turn,
      dests: state.dests,
      legalMoves: state.legal_moves,
      lastMove: state.last_move,
      check: state.check,
      movable: live ? game.human : null,
      premovable: live,
    });
    if (phase === "ready" && board.hasPremove()) board.playPremove();
  }

  /** Shows the position after `ply` plies (stepping through the game); the live one at the end. */
  function showPly(ply) {
    const state = game.state;
    if (!state || !state.positions) return;
    const last = state.positions.length - 1;
    const target = Math.max(0, Math.min(last, ply));
    if (target === last && ["ready", "thinking", "over"].includes(game.phase)) {
      showLive();
      return;
    }
    viewPly = target;
    const position = state.positions[target];
    board.cancelPremove();
    board.show({
      fen: position.fen,
      orientation,
      turn: position.turn,
      dests: null,
      legalMoves: [],
      lastMove: position.last_move,
      check: position.check,
      movable: null,
      premovable: false,
    });
    ui.fenOutput.value = position.fen;
    renderMovesList();
    renderControls();
    if (review && ["reviewing", "reviewed"].includes(game.phase)) review.select(target);
  }

  function showLive() {
    viewPly = null;
    if (review && game.phase === "reviewed") review.select(null); // its highlight and arrow go
    board.arrows([]);
    if (game.state) ui.fenOutput.value = game.state.fen;
    renderBoard();
    renderMovesList();
    renderControls();
  }

  function step(delta) {
    const state = game.state;
    if (!state || !state.positions || game.phase === "learning") return;
    const current = viewPly === null ? state.positions.length - 1 : viewPly;
    showPly(current + delta);
  }

  function stepTo(ply) {
    if (!game.state || game.phase === "learning") return;
    showPly(ply);
  }

  // --- drawing the panels ----------------------------------------------------------------------

  function renderState() {
    root.dataset.state = piecesReady ? game.phase : "loading";
  }

  function renderMovesList() {
    renderMoves(ui.moves, game.state, {
      activePly: viewPly === null ? (game.state ? game.state.moves.length : null) : viewPly,
      onSelect: (ply) => stepTo(ply),
    });
  }

  function engineVisible() {
    if (showEngine !== null) return showEngine;
    const over = !["loading", "ready", "thinking", "error", "stale"].includes(game.phase);
    // Full strength is the strongest level the server lists (no number copied from the core).
    return over || (levels.length > 0 && levels.every((level) => level.number <= game.level));
  }

  function renderEngineDisplay() {
    const visible = engineVisible();
    ui.engineToggle.checked = visible;
    const state = game.state;
    const reply = game.reply;
    const plyBefore = reply ? reply.state.moves.length - 1 : 0;
    renderEngine(ui.engine, reply, {
      visible,
      plyBefore,
      firstNumber: state ? firstMoveNumber(state) : 1,
      blackFirst: Boolean(state && state.positions[0].turn === "black"),
    });
    renderEvalBar(ui.evalBar, ui.evalFill, lastScore, visible);
  }

  function renderBanner() {
    const state = game.state;
    const over = state && state.status.over && !["loading", "ready", "thinking"].includes(game.phase);
    ui.banner.hidden = !over;
    ui.afterGame.hidden = !over;
    if (!over) return;
    const engineMoved = state.positions.slice(1).some((position) => position.turn === game.human);
    const words = bannerWords(state.status, {
      human: game.human,
      engineMoved,
      movesPlayed: state.moves.length,
    });
    ui.banner.replaceChildren(
      el("strong", { class: "result" }, words.headline),
      el("span", { class: "reason" }, words.detail),
      words.who ? el("span", { class: "who" }, words.who) : null,
    );
    ui.banner.dataset.termination = state.status.termination || "";
  }

  function renderMessage() {
    const message = game.message;
    ui.message.replaceChildren();
    ui.message.hidden = !message;
    if (!message) return;
    ui.message.dataset.kind = message.kind;
    ui.message.append(el("span", {}, message.text));
    if (message.action) {
      const button = el("button", { type: "button", "data-action": "retry" }, message.action.label);
      button.addEventListener("click", () => message.action.run());
      ui.message.append(" ", button);
    }
  }

  function renderPlayers() {
    const level = levels.find((entry) => entry.number === game.level);
    const engineName = `ferrochess · level ${game.level}`;
    const top = orientation === game.human ? "engine" : "human";
    const fill = (player, who) => {
      const color = who === "human" ? game.human : game.engineColor;
      player.root.dataset.player = who;
      player.root.dataset.color = color;
      player.name.textContent = who === "human" ? "You" : engineName;
      player.detail.textContent = who === "engine" && level ? levelLabel(level).replace(/^\d+ · /, "") : "";
    };
    fill(ui.top, top);
    fill(ui.bottom, top === "engine" ? "human" : "engine");
    renderClocks();
  }

  function renderClocks() {
    const clock = game.clock;
    const now = Date.now();
    for (const player of [ui.top, ui.bottom]) {
      const color = player.root.dataset.color;
      if (!color) continue;
      renderClock(player.clock, clock ? clock.remaining(color, now) : 0, {
        running: Boolean(clock && clock.running === color),
        shown: Boolean(clock),
      });
      player.thinking.hidden = !(game.phase === "thinking" && player.root.dataset.player === "engine"
        && game.state && game.state.turn !== game.human);
    }
  }

  function renderControls() {
    const phase = game.phase;
    const live = phase === "ready" || phase === "thinking";
    ui.buttons.takeback.disabled = game.takebackCount() === 0;
    ui.buttons.draw.disabled = phase !== "ready";
    ui.buttons.resign.disabled = !live;
    ui.inGame.hidden = !live;
    ui.backToLive.hidden = viewPly === null || game.phase === "learning";
    ui.buttons.review.hidden = !["over", "reviewed"].includes(phase) || !game.state || !game.state.moves.length;
    renderPlayers();
  }

  function renderStale() {
    ui.stale.hidden = game.phase !== "stale";
  }

  // --- saving, and other tabs ------------------------------------------------------------------

  function save() {
    if (!storage || game.phase === "stale" || destroyed) return;
    try {
      storage.setItem(storageKey, JSON.stringify({
        owner: clientId,
        game: game.toJSON(),
        orientation,
        showEngine,
      }));
    } catch {
      // storage full or disabled: the game plays on, it will not survive a reload
    }
  }

  function readSaved() {
    if (!storage) return null;
    try {
      return JSON.parse(storage.getItem(storageKey) || "null");
    } catch {
      return null;
    }
  }

  function onStorage(event) {
    if (event.key !== storageKey || !event.newValue || game.phase === "stale") return;
    let saved = null;
    try {
      saved = JSON.parse(event.newValue);
    } catch {
      return;
    }
    if (!saved || saved.owner === clientId) return;
    staleSaved = saved;
    review.cancel();
    game.supersede();
  }

  /** "Play here": this tab takes the game back, as the other tab left it. */
  function takeOver() {
    const saved = readSaved() || staleSaved;
    ui.stale.hidden = true;
    restoreFrom(saved);
  }

  function restoreFrom(saved) {
    if (saved && saved.game && game.restore(saved.game)) {
      orientation = saved.orientation === "black" ? "black" : saved.orientation === "white" ? "white" : game.human;
      showEngine = typeof saved.showEngine === "boolean" ? saved.showEngine : null;
      applySettings();
      soundedPlies = null;
      return game.load({ restoring: true });
    }
    return newGame();
  }

  // --- the controls ----------------------------------------------------------------------------

  function settings() {
    const choice = ui.color.value;
    const human = choice === "random" ? (Math.random() < 0.5 ? "white" : "black") : choice;
    const control = timeControl(ui.time.value, { minutes: ui.customMinutes.value, increment: ui.customIncrement.value });
    return { human, level: Number(ui.level.value) || game.level, book: ui.book.checked, timeControl: control };
  }

  /** Shows a game's settings in the form (after a reload or a take-over). */
  function applySettings() {
    if (levels.some((level) => level.number === game.level)) ui.level.value = String(game.level);
    ui.book.checked = game.book;
    const control = game.timeControl;
    const preset = TIME_CONTROLS.find((entry) => {
      const value = timeControl(entry.id);
      return value && control && value.initial === control.initial && value.increment === control.increment;
    });
    ui.time.value = control ? (preset ? preset.id : "custom") : "none";
    if (control && !preset) {
      ui.customMinutes.value = String(control.initial / 60000);
      ui.customIncrement.value = String(control.increment / 1000);
    }
    ui.custom.hidden = ui.time.value !== "custom";
    ui.timeNote.textContent = `This game: ${describeTimeControl(control)}`;
  }

  function beforeNewGame() {
    review.cancel();
    viewPly = null;
    showEngine = null;
    lastScore = null;
    soundedPlies = null;
    board.arrows([]);
  }

  function newGame(fen = START_FEN, human = null) {
    beforeNewGame();
    const chosen = settings();
    if (human) chosen.human = human;
    orientation = chosen.human;
    const started = game.start({ fen, ...chosen });
    applySettings();
    return started;
  }

  function rematch() {
    beforeNewGame();
    const human = other(game.human);
    orientation = human;
    const started = game.start({
      fen: game.fen,
      human,
      level: game.level,
      book: game.book,
      timeControl: game.timeControl,
    });
    applySettings();
    return started;
  }

  async function setUpFen(event) {
    event.preventDefault();
    const fen = ui.fenInput.value.trim();
    ui.fenError.textContent = "";
    if (!fen) return;
    let state;
    try {
      state = await transport.request("api/state", { fen, moves: [] });
    } catch (error) {
      ui.fenError.textContent = describeError(error);
      return;
    }
    ui.fenInput.value = "";
    // From a set-up position the human plays the side to move.
    await newGame(state.fen, state.turn);
  }

  async function downloadPgn() {
    const names = game.human === "white" ? ["You", `ferrochess level ${game.level}`] : [`ferrochess level ${game.level}`, "You"];
    let answer;
    try {
      answer = await transport.request("api/pgn", { ...game.body(), white: names[0], black: names[1] });
    } catch (error) {
      game.say(`No PGN: ${describeError(error)}`, "error");
      return;
    }
    const url = URL.createObjectURL(new Blob([answer.pgn], { type: "application/x-chess-pgn" }));
    const link = el("a", { href: url, download: answer.filename });
    root.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  async function copyFen() {
    try {
      await navigator.clipboard.writeText(ui.fenOutput.value);
      ui.copyFen.textContent = "Copied";
    } catch {
      ui.fenOutput.select();
      ui.copyFen.textContent = "Select and copy";
    }
    setTimeout(() => {
      ui.copyFen.textContent = "Copy FEN";
    }, 1500);
  }

  function flip() {
    orientation = other(orientation);
    board.setOrientation(orientation);
    save();
    renderControls();
  }

  function onKey(event) {
    const target = event.target;
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const actions = {
      ArrowLeft: () => step(-1),
      ArrowRight: () => step(1),
      Home: () => stepTo(0),
      End: () => showLive(),
    };
    const action = actions[event.key];
    if (!action || !game.state) return;
    event.preventDefault();
    action();
  }

  const wire = (button, run) => button.addEventListener("click", run);
  wire(ui.buttons.newGame, () => newGame());
  wire(ui.buttons.rematch, () => rematch());
  wire(ui.buttons.newGameAfter, () => newGame());
  wire(ui.buttons.takeback, () => {
    review.cancel();
    board.cancelPremove();
    game.takeback();
  });
  wire(ui.buttons.resign, () => {
    board.cancelPremove();
    game.resign();
  });
  wire(ui.buttons.draw, () => game.offerDraw());
  wire(ui.buttons.flip, flip);
  wire(ui.buttons.review, () => review.open());
  wire(ui.buttons.pgn, downloadPgn);
  wire(ui.copyFen, copyFen);
  wire(ui.backToLive, showLive);
  wire(ui.takeOver, takeOver);
  wire(ui.nav.first, () => stepTo(0));
  wire(ui.nav.previous, () => step(-1));
  wire(ui.nav.next, () => step(1));
  wire(ui.nav.last, showLive);
  ui.fenForm.addEventListener("submit", setUpFen);
  ui.time.addEventListener("change", () => {
    ui.custom.hidden = ui.time.value !== "custom";
  });
  ui.level.addEventListener("change", () => {
    // The level applies from the engine's next move; the show-engine default follows it.
    game.level = Number(ui.level.value);
    save();
    renderEngineDisplay();
    renderControls();
  });
  ui.book.addEventListener("change", () => {
    game.book = ui.book.checked;
    save();
  });
  ui.engineToggle.addEventListener("change", () => {
    showEngine = ui.engineToggle.checked;
    save();
    renderEngineDisplay();
  });
  ui.muteToggle.checked = !sounds.muted;
  ui.muteToggle.addEventListener("change", () => sounds.setMuted(!ui.muteToggle.checked));
  const keyTarget = options.keyboard === "document" ? document : root;
  keyTarget.addEventListener("keydown", onKey);
  // Other tabs of the page share localStorage; a widget's own storage has no other tab.
  const syncTabs = options.syncTabs ?? (storage !== null && storage === globalThis.localStorage);
  if (syncTabs) window.addEventListener("storage", onStorage);

  // The clocks tick, and a flag falls, here.
  const ticker = setInterval(() => {
    const clock = game.clock;
    if (!clock || clock.running === null) return;
    renderClocks();
    const flagged = clock.flagged();
    if (flagged && (game.phase === "ready" || game.phase === "thinking")) {
      board.cancelPremove();
      game.flag(flagged);
    }
  }, TICK_MS);

  // --- start -----------------------------------------------------------------------------------

  async function start() {
    let answer = options.levels || null;
    if (!answer) {
      try {
        answer = await transport.request("api/levels");
      } catch (error) {
        game.say(`Could not load the levels. ${describeError(error)}`, "error", { label: "Try again", run: () => start() });
        if (game.can("failed")) game.fire("failed");
        return;
      }
    }
    levels = answer.levels;
    ui.level.replaceChildren(...levels.map((level) => el("option", {
      value: level.number,
      "data-calibration": level.calibration,
      title: `depth ${level.max_depth ?? "unlimited"}, ${level.max_nodes ?? "unlimited"} nodes`,
    }, levelLabel(level))));
    const first = Number.isInteger(options.level) && levels.some((level) => level.number === options.level)
      ? options.level : answer.default;
    ui.level.value = String(first);
    game.level = first;
    if (options.color === "white" || options.color === "black" || options.color === "random") {
      ui.color.value = options.color;
    }
    if (typeof options.book === "boolean") {
      ui.book.checked = options.book;
      game.book = options.book;
    }
    const saved = readSaved();
    if (saved && saved.game) {
      await restoreFrom(saved);
    } else {
      await newGame(typeof options.fen === "string" && options.fen ? options.fen : START_FEN);
    }
  }

  const loaded = start();
  const ready = Promise.all([board.ready, loaded]).then(() => {
    piecesReady = true;
    renderState();
  });
  board.ready.catch((error) => {
    game.say(`The board could not be drawn: ${error.message}`, "error");
  });

  return {
    root,
    game,
    board,
    review,
    ready,
    clientId,
    newGame: () => newGame(),
    showPly,
    showLive,
    cancel() {
      transport.cancel(clientId);
    },
    destroy() {
      if (["thinking", "reviewing"].includes(game.phase)) transport.cancel(clientId);
      destroyed = true;
      clearInterval(ticker);
      keyTarget.removeEventListener("keydown", onKey);
      if (syncTabs) window.removeEventListener("storage", onStorage);
      review.cancel();
      game.epoch += 1;
      board.destroy();
      root.replaceChildren();
    },
  };
}
