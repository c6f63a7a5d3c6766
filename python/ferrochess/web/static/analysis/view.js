// The analysis board's view: draws the controller's state (ctrl.js) into layout.js's elements and
// onto the board, and hands each click to the controller. The features draw through their own
// views (tree_view.js, ceval_view.js, explorer_view.js, pgn_view.js, node_view.js); this one
// draws the board, its arrows, the evaluation bar, the buttons and the messages. Nothing here
// decides anything about the position: the server's State says what is legal and how it stands.

import { drawEvalBar } from "../ui/eval_bar.js";
import { rootPly } from "../ui/moves.js";
import { renderCeval } from "./ceval_view.js";
import { explorerMoveOf, renderExplorer } from "./explorer_view.js";
import { NodeView } from "./node_view.js";
import { PgnView } from "./pgn_view.js";
import { TreeMenu } from "./tree_menu.js";
import { markPath, renderTree } from "./tree_view.js";
import { nodesAlong, parsePath, pathKey } from "./tree.js";

/** A PGN arrow's colour (the server's name, or [%cal]'s letter) as chessground's brush. */
const BRUSHES = Object.freeze({ green: "green", red: "red", blue: "blue", yellow: "yellow",
  G: "green", R: "red", B: "blue", Y: "yellow" });
/** The engine's arrows: line 1 in lichess's pale blue, the other lines grey. */
const BEST_BRUSH = "paleBlue";
const OTHER_BRUSH = "paleGrey";

export class AnalysisView {
  /** @param {HTMLElement} root @param {object} ui layout.js's parts @param {object} ctrl */
  constructor(root, ui, ctrl) {
    this.root = root;
    this.ui = ui;
    this.ctrl = ctrl;
    this.drawn = null; // [tree, version] last drawn by renderTree
    this.node = new NodeView(ui.node, ctrl);
    this.pgn = new PgnView(ui.pgn, ctrl);
    this.menu = new TreeMenu(ui.tree.menu, root, ctrl);
    this.#wire();
  }

  #wire() {
    const { ui, ctrl } = this;
    const on = (node, type, fn) => node.addEventListener(type, fn);
    on(ui.nav.first, "click", () => ctrl.first());
    on(ui.nav.previous, "click", () => ctrl.previous());
    on(ui.nav.next, "click", () => ctrl.next());
    on(ui.nav.last, "click", () => ctrl.last());
    on(ui.flip, "click", () => ctrl.flip());
    on(ui.ceval.toggle, "change", () => ctrl.toggleEngine(ui.ceval.toggle.checked));
    on(ui.ceval.multipv, "change", () => ctrl.setLines(ui.ceval.multipv.value));
    on(ui.ceval.lines, "click", (event) => {
      const move = event.target.closest(".pv-move");
      if (move) ctrl.playLine(Number(move.dataset.line), Number(move.dataset.index));
    });
    on(ui.explorer.toggle, "change", () => ctrl.explorer.toggle(ctrl.target(), ui.explorer.toggle.checked));
    const playExplorer = (event) => {
      const move = explorerMoveOf(event.target);
      if (move) ctrl.playMoves([move]);
    };
    on(ui.explorer.body, "click", playExplorer);
    on(ui.explorer.body, "keydown", (event) => {
      if (event.key === "Enter") playExplorer(event);
    });
    const tree = ui.tree.tree;
    on(tree, "click", (event) => {
      const expand = event.target.closest("[data-expand]");
      if (expand) {
        ctrl.expand(parsePath(expand.dataset.expand));
        return;
      }
      const move = event.target.closest(".move[data-path]");
      if (move) ctrl.jump(parsePath(move.dataset.path));
    });
    on(tree, "contextmenu", (event) => {
      const move = event.target.closest(".move[data-path]");
      if (!move) return;
      event.preventDefault();
      this.menu.open(parsePath(move.dataset.path), event.clientX, event.clientY);
    });
    const tools = ui.tree.tools;
    on(tools.promote, "click", () => ctrl.promote(ctrl.path, false));
    on(tools.mainline, "click", () => ctrl.promote(ctrl.path, true));
    on(tools.remove, "click", () => ctrl.deleteAt(ctrl.path));
    on(tools.collapse, "click", () => ctrl.toggleCollapse(ctrl.path));
  }

  renderAll() {
    this.renderPath();
    this.renderBoard();
    this.renderExplorer();
    this.renderPgn();
    this.renderMessage();
  }

  /** root.dataset.state: "loading" until the pieces are decoded and a position is drawn; and
   * root.dataset.shown: the path whose position the board shows ("-" while it is asked). */
  renderState() {
    const { ctrl } = this;
    this.root.dataset.state = ctrl.piecesReady && ctrl.shownKey !== null ? "ready" : "loading";
    this.root.dataset.shown = ctrl.state && ctrl.shownKey === ctrl.targetKey ? pathKey(ctrl.path) : "-";
  }

  /** The tree (drawn again when it changed), the move shown in it, and what depends on the node. */
  renderPath() {
    this.renderTree();
    markPath(this.ui.tree.tree, this.ctrl.path);
    this.node.render();
    this.renderTools();
    this.renderCeval();
    this.renderState();
  }

  renderTree() {
    const { ctrl } = this;
    if (this.drawn && this.drawn[0] === ctrl.tree && this.drawn[1] === ctrl.version) return;
    renderTree(this.ui.tree.tree, ctrl.tree);
    this.drawn = [ctrl.tree, ctrl.version];
    markPath(this.ui.tree.tree, ctrl.path);
  }

  renderTools() {
    const { ui, ctrl } = this;
    const { path, tree } = ctrl;
    const { nav, tree: { tools } } = ui;
    const atEnd = !ctrl.node.children.length;
    nav.first.disabled = !path.length;
    nav.previous.disabled = !path.length;
    nav.next.disabled = atEnd;
    nav.last.disabled = atEnd;
    const mainline = path.every((index) => index === 0);
    tools.promote.disabled = mainline;
    tools.mainline.disabled = mainline;
    tools.remove.disabled = !path.length;
    const forks = nodesAlong(tree, path).filter((node) => node.children.length > 1);
    tools.collapse.disabled = forks.length === 0;
    const fork = forks[forks.length - 1];
    tools.collapse.textContent = fork && fork.collapsed ? "Expand" : "Collapse";
  }

  /** The position the server described, movable by the side to move unless the game is over. */
  renderBoard() {
    const { ctrl, ui } = this;
    const { state, board } = ctrl;
    if (!state) {
      ui.boardArea.dataset.loading = "yes";
      return;
    }
    ui.boardArea.dataset.loading = "no";
    const over = Boolean(state.status && state.status.over);
    board.show({
      fen: state.fen, orientation: ctrl.orientation, turn: state.turn, dests: state.dests,
      legalMoves: state.legal_moves, lastMove: state.last_move, check: state.check,
      movable: over ? null : true, premovable: false,
    });
    ui.opening.textContent = state.opening ? `${state.opening.eco} · ${state.opening.name}` : "";
    ui.pgn.fenOutput.value = state.fen;
    this.renderArrows();
    this.renderEvalBar();
    this.renderState();
  }

  /** The PGN's arrows and circles of the node, and the engine's best move of each line. */
  renderArrows() {
    const { ctrl } = this;
    const shapes = [];
    if (ctrl.shownKey !== ctrl.targetKey) {
      ctrl.board.arrows([]);
      return;
    }
    for (const arrow of ctrl.node.arrows || []) {
      shapes.push({ from: arrow.from, to: arrow.to === arrow.from ? undefined : arrow.to, brush: BRUSHES[arrow.color] || "green" });
    }
    if (ctrl.ceval.enabled) {
      ctrl.ceval.linesFor(ctrl.targetKey).forEach((line, index) => {
        const uci = line.pv && line.pv[0];
        if (uci) shapes.push({ from: uci.slice(0, 2), to: uci.slice(2, 4), brush: index === 0 ? BEST_BRUSH : OTHER_BRUSH });
      });
    }
    ctrl.board.arrows(shapes);
    this.root.dataset.arrows = String(shapes.length);
  }

  /** The bar follows the engine's line 1 while it runs here, else the node's evaluation (from a
   * review or the PGN's [%eval]); 50% when there is neither. */
  renderEvalBar() {
    const { ctrl, ui } = this;
    const [best] = ctrl.ceval.enabled ? ctrl.ceval.linesFor(ctrl.targetKey) : [];
    const score = best ? best.score : ctrl.node.eval || null;
    drawEvalBar(ui.evalBar, ui.evalFill, score);
  }

  renderCeval() {
    renderCeval(this.ui.ceval, this.ctrl, rootPly(this.ctrl.tree.fen));
    this.renderArrows();
    this.renderEvalBar();
  }

  renderExplorer() {
    const { ctrl } = this;
    const turn = ctrl.state && ctrl.shownKey === ctrl.targetKey ? ctrl.state.turn : null;
    renderExplorer(this.ui.explorer, ctrl.explorer, turn);
  }

  renderPgn() {
    this.pgn.render();
  }

  /** The board scrolled into view (after an import made far below it). */
  revealBoard() {
    const area = this.ui.boardArea;
    if (typeof area.scrollIntoView === "function") area.scrollIntoView({ block: "nearest" });
  }

  renderMessage() {
    const box = this.ui.message;
    const message = this.ctrl.message;
    box.hidden = !message;
    box.textContent = message ? message.text : "";
    box.dataset.kind = message ? message.kind : "";
  }

  destroy() {
    this.menu.close();
    this.pgn.destroy();
  }
}
