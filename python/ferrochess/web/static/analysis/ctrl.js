// The analysis board's controller (lichess's ui/analyse ctrl.ts): it owns the state and every
// feature's controller, and draws nothing (view.js and each feature's view do). Its state: the
// move tree (tree.js, nested) and the path of the node shown, the server's State of each position
// seen (its dests, check, SAN; api/position), the board's orientation and a message. Its features:
// the live engine (ceval.js), the explorer (explorer.js), PGN in and out (pgn.js).
//
// No chess rule: a move made on the board goes to api/position with the moves before it; the
// server's answer (or its 400) says whether it is legal and what its SAN is. Only then is it added
// to the tree. Positions are named by a key of the root FEN and the moves, so a position's State
// and explorer answer are asked once.

import { createBoard } from "../play/board.js";
import { describeError } from "../ui/errors.js";
import { CevalCtrl } from "./ceval.js";
import { ExplorerCtrl } from "./explorer.js";
import { PgnCtrl } from "./pgn.js";
import { AnalysisStore } from "./store.js";
import * as T from "./tree.js";
import { AnalysisView } from "./view.js";
import { fromWire, positionBody, toWire } from "./wire.js";

const STATE_CACHE_LIMIT = 2000;

/** The key of a position: the root FEN and the moves from it. */
export const positionKey = (fen, moves) => `${fen}|${moves.join(",")}`;

export class AnalysisCtrl {
  /**
   * @param {object} options
   * @param {HTMLElement} options.root the board's root; @param {object} options.ui layout.js's parts
   * @param {object} options.transport request/stream/cancel; @param {string} options.clientId
   * @param {object|null} options.storage localStorage-like or null
   * @param {object} options.options the host's options (storageKey, handoffKey, onTree)
   */
  constructor({ root, ui, transport, clientId, storage, options = {} }) {
    this.root = root;
    this.transport = transport;
    this.clientId = clientId;
    this.onTree = typeof options.onTree === "function" ? options.onTree : null;
    this.tree = T.emptyTree();
    this.path = [];
    this.targetKey = null; // the position the features were last told about
    this.state = null; // the server's State of the node shown (null while it is asked)
    this.shownKey = null; // the position the board shows
    this.states = new Map();
    this.orientation = "white";
    this.message = null; // {text, kind}
    this.version = 0; // bumped at every change of the tree (the view draws it again)
    this.piecesReady = false;
    this.destroyed = false;
    this.store = new AnalysisStore(storage, options);
    this.board = createBoard(ui.board, { onMove: (uci) => this.userMove(uci) });
    this.ceval = new CevalCtrl({ transport, clientId, onChange: () => this.#cevalChanged() });
    this.explorer = new ExplorerCtrl({ transport, onChange: () => this.view && this.view.renderExplorer() });
    this.pgn = new PgnCtrl({ transport, host: this, onChange: () => this.view && this.view.renderPgn() });
    this.view = new AnalysisView(root, ui, this);
  }

  // --- where we are -------------------------------------------------------------------------------

  get node() {
    return T.nodeAt(this.tree, this.path) || this.tree;
  }

  /** The node shown as the features want it: `{fen, moves, chess960, key}`. */
  target(path = this.path) {
    const moves = T.movesAlong(this.tree, path);
    return { fen: this.tree.fen, moves, chess960: this.tree.chess960 === true,
      key: positionKey(this.tree.fen, moves) };
  }

  /** Shows the node at `path` (the nearest one that exists): the board, the tree's highlight, and
   * the engine and the explorer there. */
  jump(path) {
    if (this.destroyed) return;
    this.path = T.validPath(this.tree, path);
    this.root.dataset.path = T.pathKey(this.path);
    const target = this.target();
    const moved = target.key !== this.targetKey;
    this.targetKey = target.key;
    if (moved) {
      this.message = null;
      this.ceval.setTarget(target);
      this.explorer.setTarget(target);
      this.#showPosition(target);
    }
    this.view.renderPath();
    this.save();
  }

  async #showPosition(target) {
    const cached = this.states.get(target.key);
    if (cached) {
      this.#shown(target.key, cached);
      return;
    }
    this.state = null;
    this.view.renderBoard();
    let state;
    try {
      state = await this.transport.request("api/position", positionBody(target));
    } catch (error) {
      if (this.targetKey === target.key) this.say(describeError(error), "error");
      return;
    }
    this.#remember(target.key, state);
    if (this.targetKey === target.key) this.#shown(target.key, state);
  }

  #remember(key, state) {
    if (this.states.size >= STATE_CACHE_LIMIT) this.states.delete(this.states.keys().next().value);
    this.states.set(key, state);
  }

  #shown(key, state) {
    this.state = state;
    this.shownKey = key;
    this.view.renderBoard();
    this.view.renderExplorer();
  }

  // --- moving -------------------------------------------------------------------------------------

  /** A move made on the board at the node shown: the server checks it and names it; it becomes
   * that node's child (or goes to the child already there), or the board goes back. */
  async userMove(uci) {
    const tree = this.tree;
    const path = this.path;
    const moves = [...T.movesAlong(tree, path), uci];
    const key = positionKey(tree.fen, moves);
    let state = this.states.get(key);
    if (!state) {
      try {
        state = await this.transport.request("api/position",
          positionBody({ fen: tree.fen, moves, chess960: tree.chess960 === true }));
      } catch (error) {
        if (tree !== this.tree) return;
        const illegal = error && error.status === 400 && /^moves/.test(error.field || "");
        const words = illegal ? `${uci} is not a legal move here.` : describeError(error);
        this.say(words, "error");
        this.view.renderBoard(); // the piece goes back
        return;
      }
      this.#remember(key, state);
    }
    if (tree !== this.tree) return;
    const san = state.san[state.san.length - 1];
    const { path: child, added } = T.addChild(tree, path, { uci, san });
    if (added) this.treeChanged();
    this.jump(child);
  }

  /** Plays `moves` ([{uci, san}], named by the server: an engine line, the explorer) from the node
   * shown, adding what the tree does not hold yet. */
  playMoves(moves) {
    if (!moves.length) return;
    const before = T.countNodes(this.tree);
    const path = T.addLine(this.tree, this.path, moves);
    if (T.countNodes(this.tree) !== before) this.treeChanged();
    this.jump(path);
  }

  /** The engine's line `lineIndex` played up to its move `moveIndex` (lichess's click on a line). */
  playLine(lineIndex, moveIndex) {
    const line = this.ceval.linesFor(this.targetKey)[lineIndex];
    if (!line) return;
    const moves = line.pv.slice(0, moveIndex + 1).map((uci, index) => ({ uci, san: (line.san || [])[index] || uci }));
    this.playMoves(moves);
  }

  /** The engine's best move here (space), when it has one. */
  playBest() {
    const best = this.ceval.bestMove(this.targetKey);
    if (best) this.playMoves([best]);
  }

  // --- stepping -----------------------------------------------------------------------------------

  next() {
    const path = T.nextPath(this.tree, this.path);
    if (path) this.jump(path);
  }

  previous() {
    const path = T.previousPath(this.path);
    if (path) this.jump(path);
  }

  first() {
    this.jump([]);
  }

  last() {
    this.jump(T.lineEnd(this.tree, this.path));
  }

  /** Up (-1) or down (+1) between the lines of the nearest fork. */
  sibling(delta) {
    const path = T.siblingPath(this.tree, this.path, delta);
    if (path) this.jump(path);
  }

  // --- editing the tree ---------------------------------------------------------------------------

  /** After a change of the tree's shape: the node shown keeps being shown where it went. */
  #reshaped(shown) {
    const path = T.pathOf(this.tree, shown);
    this.treeChanged();
    this.jump(path || []);
  }

  promote(path = this.path, toMainline = false) {
    if (!path.length || (T.onMainline(path) && !toMainline)) return;
    const shown = this.node;
    T.promote(this.tree, path, toMainline);
    this.#reshaped(shown);
  }

  deleteAt(path = this.path) {
    if (!path.length) return;
    const shown = this.node;
    const parent = T.deleteAt(this.tree, path);
    const still = T.pathOf(this.tree, shown);
    this.treeChanged();
    this.jump(still || parent);
  }

  /** Folds or unfolds the variations of the fork at or above `path` (the deepest one). */
  toggleCollapse(path = this.path) {
    const nodes = T.nodesAlong(this.tree, path);
    let depth = nodes.length - 1;
    while (depth >= 0 && nodes[depth].children.length < 2) depth -= 1;
    if (depth < 0) return;
    const forkPath = path.slice(0, depth);
    const fork = nodes[depth];
    T.setCollapsed(this.tree, forkPath, !fork.collapsed);
    // The node shown cannot hide in a folded variation: it goes up to the fork.
    const hidden = fork.collapsed && path.length > depth && path[depth] !== 0;
    this.treeChanged();
    if (hidden) this.jump(forkPath);
    else this.view.renderPath();
  }

  /** Unfolds the fork at `path`. */
  expand(path) {
    T.setCollapsed(this.tree, path, false);
    this.treeChanged();
    this.view.renderPath();
  }

  setComment(text) {
    T.setComment(this.tree, this.path, text);
    this.treeChanged({ redraw: "tree" });
  }

  toggleNag(nag) {
    T.toggleNag(this.tree, this.path, nag);
    this.treeChanged();
    this.view.renderPath();
  }

  /** The tree changed: save it and tell the host (the notebook keeps it as its `tree`). */
  treeChanged({ redraw = null } = {}) {
    this.version += 1;
    this.save();
    if (redraw === "tree") this.view.renderTree();
    if (this.onTree) this.onTree(this.wireTree());
  }

  /** The tree in its wire shape (wire.js), as the server and the notebook take it. */
  wireTree() {
    return T.withoutMarks(toWire(this.tree));
  }

  /** A new tree (imported, or a new position), showing `path`; `reveal`: the board is scrolled
   * into view (an import: its dialog is far below the board on a phone and a desktop alike). */
  loadTree(tree, { path = [], reveal = false } = {}) {
    this.tree = tree;
    this.targetKey = null;
    this.treeChanged();
    this.jump(path);
    if (reveal) this.view.revealBoard();
  }

  // --- the rest -----------------------------------------------------------------------------------

  flip() {
    this.orientation = this.orientation === "white" ? "black" : "white";
    this.board.setOrientation(this.orientation);
    this.save();
  }

  toggleEngine(on) {
    this.ceval.toggle(on);
    this.save();
  }

  setLines(count) {
    this.ceval.setMultipv(count);
    this.save();
  }

  say(text, kind = "info") {
    this.message = text ? { text, kind } : null;
    this.view.renderMessage();
  }

  #cevalChanged() {
    if (!this.view) return;
    this.#keepEval();
    this.view.renderCeval();
  }

  /** The live engine's score of the node shown, kept on the node (its PGN [%eval] on export) when
   *  it is deeper than the engine's score the node holds; a review's (no depth) is left alone. */
  #keepEval() {
    const [best] = this.ceval.key === this.targetKey ? this.ceval.linesFor(this.targetKey) : [];
    if (!best || !best.score || !best.depth || best.score.tablebase) return;
    const held = this.node.eval;
    if (held && (!held.depth || held.depth >= best.depth)) return;
    const score = best.score.mate !== undefined ? { mate: best.score.mate } : { cp: best.score.cp };
    this.node.eval = { ...score, depth: best.depth };
    this.treeChanged();
  }

  save() {
    if (this.destroyed) return;
    this.store.save({
      tree: toWire(this.tree),
      path: T.pathKey(this.path),
      engine: this.ceval.enabled,
      lines: this.ceval.multipv,
      orientation: this.orientation,
      explorer: this.explorer.enabled,
    });
  }

  /** The tree to start from: a game handed over by the play page, a FEN the host named, a tree
   * the host gave (the notebook), the one saved, or the start position; then shows it. */
  async start(options = {}) {
    const saved = this.store.read();
    let tree = null;
    let path = [];
    const handoff = this.store.takeHandoff();
    if (handoff) {
      const body = positionBody({ fen: handoff.fen, moves: handoff.moves || [], chess960: handoff.chess960 === true });
      if (handoff.headers) body.headers = handoff.headers;
      if (handoff.review) body.review = handoff.review;
      try {
        const answer = await this.transport.request("api/import", body);
        tree = fromWire(answer.tree);
        const plies = Math.max(0, Math.min(Number(handoff.ply) || 0, T.lineEnd(tree, []).length));
        path = new Array(plies).fill(0);
        if (handoff.orientation === "black" || handoff.orientation === "white") this.orientation = handoff.orientation;
      } catch (error) {
        this.say(`The game could not be opened: ${describeError(error)}`, "error");
      }
    }
    if (!tree && typeof options.fen === "string" && options.fen.trim()) {
      try {
        const answer = await this.transport.request("api/import", { fen: options.fen.trim(), moves: [] });
        tree = fromWire(answer.tree);
      } catch (error) {
        this.say(`That FEN cannot be set up: ${describeError(error)}`, "error");
      }
    }
    if (!tree && options.tree && typeof options.tree === "object") tree = fromWire(options.tree);
    if (!tree && saved && saved.tree) {
      try {
        tree = fromWire(saved.tree);
        path = T.parsePath(saved.path);
      } catch {
        tree = null;
      }
    }
    if (saved) {
      if (!handoff && (saved.orientation === "white" || saved.orientation === "black")) this.orientation = saved.orientation;
      if (typeof saved.explorer === "boolean") this.explorer.enabled = saved.explorer;
      if (saved.lines) this.ceval.multipv = Math.max(1, Math.min(5, Number(saved.lines) || 1));
      if (saved.engine === true) this.ceval.enabled = true;
    }
    if (typeof options.engine === "boolean") this.ceval.enabled = options.engine;
    if (options.lines) this.ceval.multipv = Math.max(1, Math.min(5, Number(options.lines) || 1));
    this.board.setOrientation(this.orientation);
    this.loadTree(tree && T.isTree(tree) ? tree : T.emptyTree(), { path });
    this.view.renderAll();
  }

  /** The pieces are decoded and the first position drawn. */
  ready() {
    this.piecesReady = true;
    this.view.renderState();
  }

  destroy() {
    this.destroyed = true;
    this.ceval.destroy();
    this.view.destroy();
    this.board.destroy();
  }
}
