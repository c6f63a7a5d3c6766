// The play UI's view: draws the controller's state (play_ctrl.js) into layout.js's elements and
// onto the board (the board itself is board.js's), and hands each click to the controller. The
// drawing functions are panels.js's; nothing here decides anything about the game.

import { el } from "../ui/dom.js";
import { describeError } from "../ui/errors.js";
import { WAITING_WORDS } from "./archive.js";
import {
  bannerWords,
  levelLabel,
  renderClock,
  renderEngine,
  renderEvalBar,
  renderMaterial,
  renderMoves,
  renderReviewed,
  startPly,
} from "./panels.js";

export class PlayView {
  /** @param {HTMLElement} root @param {object} ui layout.js's elements @param {object} ctrl */
  constructor(root, ui, ctrl) {
    this.root = root;
    this.ui = ui;
    this.ctrl = ctrl;
    this.#wire();
  }

  renderState() {
    this.root.dataset.state = this.ctrl.piecesReady ? this.ctrl.game.phase : "loading";
  }

  /** The game's position, movable when it is live (the ply shown instead, if one is). */
  renderBoard() {
    const { game, board } = this.ctrl;
    const state = game.state;
    if (!state) return;
    const phase = game.phase;
    if (phase === "learning") return; // review.js has the board
    if (this.ctrl.viewPly !== null) {
      this.ctrl.showPly(this.ctrl.viewPly);
      return;
    }
    // While the human's move is being checked, the board already shows it: leave it.
    if (phase === "thinking" && state.turn === game.human) return;
    const live = phase === "ready" || phase === "thinking";
    board.show({
      fen: state.fen,
      orientation: this.ctrl.orientation,
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

  /** A position of the game's past (a State's `positions` entry), not movable. */
  renderPast(position) {
    const board = this.ctrl.board;
    board.cancelPremove();
    board.show({
      fen: position.fen,
      orientation: this.ctrl.orientation,
      turn: position.turn,
      dests: null,
      legalMoves: [],
      lastMove: position.last_move,
      check: position.check,
      movable: null,
      premovable: false,
    });
    this.ui.fenOutput.value = position.fen;
  }

  renderFen(fen) {
    this.ui.fenOutput.value = fen;
  }

  renderOpening(state) {
    this.ui.opening.textContent = state.opening ? `${state.opening.eco} · ${state.opening.name}` : "";
  }

  renderMovesList() {
    const { game, viewPly } = this.ctrl;
    renderMoves(this.ui.moves, game.state, {
      activePly: viewPly === null ? (game.state ? game.state.moves.length : null) : viewPly,
      onSelect: (ply) => this.ctrl.stepTo(ply),
    });
  }

  /** The engine panel and the evaluation bar: once the game is reviewed, the review's word on
   * the position shown; otherwise the engine's last reply. */
  renderEngineDisplay() {
    const ui = this.ui;
    const visible = this.ctrl.engineVisible();
    ui.engineToggle.checked = visible;
    const { game } = this.ctrl;
    const state = game.state;
    const numbering = { visible, start: state ? startPly(state) : 0 };
    const seen = this.ctrl.reviewedPosition();
    if (seen) {
      renderReviewed(ui.engine, seen, numbering);
      renderEvalBar(ui.evalBar, ui.evalFill, seen.score, visible);
      return;
    }
    const reply = game.reply;
    renderEngine(ui.engine, reply, { ...numbering, plyBefore: reply ? reply.state.moves.length - 1 : 0 });
    renderEvalBar(ui.evalBar, ui.evalFill, this.ctrl.lastScore, visible);
  }

  renderBanner() {
    const { ui } = this;
    const { game } = this.ctrl;
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
    const parts = [el("strong", { class: "result" }, words.headline), el("span", { class: "reason" }, words.detail)];
    if (words.who) parts.push(el("span", { class: "who" }, words.who));
    ui.banner.replaceChildren(...parts);
    ui.banner.dataset.termination = state.status.termination || "";
  }

  /** Where the finished game stands in the server's games archive (archive.js's statusOf): on
   * its way, waiting to be sent again, saved (with links to its page and to the list), refused. */
  renderArchive() {
    const box = this.ui.archive;
    const { game, archive, archiveUrl } = this.ctrl;
    const over = ["over", "reviewing", "reviewed", "learning"].includes(game.phase);
    const status = archive && over ? archive.statusOf(game.record.id) : null;
    box.hidden = !status;
    box.replaceChildren();
    if (!status) return;
    box.dataset.archiveState = status.state;
    box.title = status.state === "waiting" && status.why ? `Last try: ${status.why}` : "";
    if (status.state === "saving") box.append("Saving the game to the games archive…");
    else if (status.state === "waiting") {
      const now = el("button", { type: "button", "data-action": "archive-retry" }, "Try again now");
      now.addEventListener("click", () => archive.retryNow());
      box.append(WAITING_WORDS, " ", now);
    }
    else if (status.state === "refused") box.append(`Not saved to the games archive: ${status.why}.`);
    if (status.state !== "saved") return;
    box.append("Saved to the games archive: ",
      el("a", { href: status.url, "data-testid": "archive-game" }, "the game's page"), " · ",
      el("a", { href: archiveUrl, "data-testid": "archive-list" }, "all games"));
    if (status.why) box.append(el("span", { class: "archive-review" }, ` Its review was not kept: ${status.why}.`));
  }

  renderMessage() {
    const box = this.ui.message;
    const message = this.ctrl.game.message;
    box.replaceChildren();
    box.hidden = !message;
    if (!message) return;
    box.dataset.kind = message.kind;
    box.append(el("span", {}, message.text));
    if (message.action) {
      const button = el("button", { type: "button", "data-action": "retry" }, message.action.label);
      button.addEventListener("click", () => message.action.run());
      box.append(" ", button);
    }
  }

  renderPlayers() {
    const { ui } = this;
    const { game, levels, orientation, viewPly } = this.ctrl;
    const level = levels.find((entry) => entry.number === game.level);
    const engineName = `ferrochess · level ${game.level}`;
    const top = orientation === game.human ? "engine" : "human";
    const state = game.state;
    const shown = state && viewPly !== null && state.positions[viewPly] ? state.positions[viewPly] : state;
    const fill = (player, who) => {
      const color = who === "human" ? game.human : game.engineColor;
      player.root.dataset.player = who;
      player.root.dataset.color = color;
      player.name.textContent = who === "human" ? "You" : engineName;
      const variant = game.chess960 ? "Chess960" : "";
      const strength = who === "engine" && level ? levelLabel(level).replace(/^\d+ · /, "") : "";
      // The engine's line names the variant too, as lichess's game header does.
      player.detail.textContent = who === "engine" ? [strength, variant].filter(Boolean).join(" · ") : "";
      renderMaterial(player.material, shown && shown.material ? shown.material[color] : null);
    };
    fill(ui.top, top);
    fill(ui.bottom, top === "engine" ? "human" : "engine");
    this.renderClocks();
  }

  renderClocks() {
    const { game } = this.ctrl;
    const clock = game.clock;
    const now = Date.now();
    for (const player of [this.ui.top, this.ui.bottom]) {
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

  renderControls() {
    const { ui } = this;
    const { game, viewPly } = this.ctrl;
    const phase = game.phase;
    const live = phase === "ready" || phase === "thinking";
    ui.buttons.takeback.disabled = game.takebackCount() === 0;
    ui.buttons.draw.disabled = phase !== "ready";
    ui.buttons.resign.disabled = !live;
    const confirming = live && this.ctrl.confirmingResign;
    ui.buttons.resign.textContent = confirming ? "Confirm resign?" : "Resign";
    ui.buttons.resign.classList.toggle("confirming", confirming);
    if (confirming) ui.buttons.resign.dataset.confirm = "yes";
    else delete ui.buttons.resign.dataset.confirm;
    ui.buttons.cancelResign.hidden = !confirming;
    ui.inGame.hidden = !live;
    ui.backToLive.hidden = viewPly === null || game.phase === "learning";
    // The analysis board, where there is one: the game after it ended (as on lichess).
    const analysable = this.ctrl.canAnalyse() && ["over", "reviewing", "reviewed"].includes(phase);
    ui.buttons.analyse.hidden = !analysable;
    ui.analysePosition.hidden = !analysable || viewPly === null;
    // Once the review is shown (reviewed, learning) its panel is there: the button goes.
    ui.buttons.review.hidden = phase !== "over" || !game.state || !game.state.moves.length;
    this.renderPlayers();
  }

  renderStale() {
    this.ui.stale.hidden = this.ctrl.game.phase !== "stale";
  }

  // --- what the user does ------------------------------------------------------------------------

  #wire() {
    const { ui, ctrl } = this;
    const wire = (button, run) => button.addEventListener("click", run);
    const anew = (start) => () => {
      start();
      this.#revealBoard();
    };
    wire(ui.buttons.newGame, anew(() => ctrl.newGame()));
    wire(ui.buttons.rematch, anew(() => ctrl.rematch()));
    wire(ui.buttons.newGameAfter, anew(() => ctrl.newGame()));
    wire(ui.buttons.takeback, () => ctrl.takeback());
    wire(ui.buttons.resign, () => ctrl.askResign());
    wire(ui.buttons.cancelResign, () => ctrl.cancelResign());
    wire(ui.buttons.draw, () => ctrl.game.offerDraw());
    wire(ui.buttons.flip, () => ctrl.flip());
    wire(ui.buttons.review, () => ctrl.review.open());
    wire(ui.buttons.pgn, () => this.#downloadPgn());
    wire(ui.buttons.analyse, () => ctrl.analyse(null));
    wire(ui.analysePosition, () => ctrl.analyse());
    wire(ui.copyFen, () => this.#copyFen());
    wire(ui.backToLive, () => ctrl.showLive());
    wire(ui.takeOver, () => {
      ui.stale.hidden = true;
      ctrl.takeOver();
    });
    wire(ui.nav.first, () => ctrl.stepTo(0));
    wire(ui.nav.previous, () => ctrl.step(-1));
    wire(ui.nav.next, () => ctrl.step(1));
    wire(ui.nav.last, () => ctrl.showLive());
    ui.fenForm.addEventListener("submit", (event) => this.#setUpFen(event));
    ui.engineToggle.addEventListener("change", () => ctrl.setShowEngine(ui.engineToggle.checked));
    ui.muteToggle.checked = !ctrl.sounds.muted;
    ui.muteToggle.addEventListener("change", () => ctrl.sounds.setMuted(!ui.muteToggle.checked));
  }

  /** The FEN typed in the Position card: a new game from it, or the server's reason why not. */
  async #setUpFen(event) {
    const { ui } = this;
    event.preventDefault();
    const fen = ui.fenInput.value.trim();
    ui.fenError.textContent = "";
    if (!fen) return;
    let state;
    try {
      state = await this.ctrl.describe(fen);
    } catch (error) {
      ui.fenError.textContent = describeError(error);
      return;
    }
    ui.fenInput.value = "";
    // From a set-up position the human plays the side to move.
    const started = this.ctrl.newGame(state.fen, state.turn);
    this.#revealBoard();
    await started;
  }

  /** A new game starts on the board: scrolled into view when the control clicked was far from it
   * (on a phone the forms are under the board). */
  #revealBoard() {
    const area = this.ui.boardArea;
    if (typeof area.scrollIntoView === "function") area.scrollIntoView({ block: "nearest" });
  }

  async #downloadPgn() {
    const answer = await this.ctrl.pgn();
    if (!answer) return;
    const url = URL.createObjectURL(new Blob([answer.pgn], { type: "application/x-chess-pgn" }));
    const link = el("a", { href: url, download: answer.filename });
    this.root.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  async #copyFen() {
    const { ui } = this;
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
}
