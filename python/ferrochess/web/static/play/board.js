// The board: lichess's chessground drawing a position the server described, and taking moves.
//
// No chess rule lives here. The legal destinations, the check and the promotion choices come from
// the server's State (`dests`, `legal_moves`, `check`); chessground draws them, moves pieces by
// click or drag, animates, keeps premoves and draws arrows. The page and the notebook widget both
// use this module (the widget rewrites the import specifiers below, so keep them exactly as written).
//
//   const board = createBoard(element, { onMove: (uci) => ... });
//   board.show({ fen, orientation, turn, dests, legalMoves, lastMove, check, movable, premovable });
//   board.setMoveHandler(fn); board.setOrientation("black");
//   board.arrows([{ from: "e2", to: "e4", brush: "green" }]);
//   board.playPremove(); board.cancelPremove(); await board.ready; board.destroy();
//
// The host page loads chessground.base.css, chessground.brown.css and chessground.cburnett.css
// (vendor/chessground/) and play.css.

import { Chessground } from "../vendor/chessground/chessground.min.js";

const COLORS = ["white", "black"];
const ROLES = ["king", "queen", "rook", "bishop", "knight", "pawn"];
/** The promotion chooser's pieces, in lichess's order, with their UCI letter. */
const PROMOTIONS = [
  ["queen", "q"],
  ["knight", "n"],
  ["rook", "r"],
  ["bishop", "b"],
];
const FILES = "abcdefgh";
const STYLE_WAIT_MS = 10000;

/** The server's dests (`{"e2": ["e3", "e4"]}`) as chessground's Map. */
function destsMap(dests) {
  return new Map(Object.entries(dests || {}).map(([from, targets]) => [from, [...targets]]));
}

/** A last move as chessground's [from, to]: from a UCI string, a [from, to] list or {from, to}. */
function squaresOf(move) {
  if (!move) return undefined;
  if (typeof move === "string") return move.length >= 4 ? [move.slice(0, 2), move.slice(2, 4)] : undefined;
  if (Array.isArray(move)) return move.length ? move.slice(0, 2) : undefined;
  if (move.from && move.to) return [move.from, move.to];
  return undefined;
}

/** The piece images of the loaded piece set: a hidden piece of each colour and role is styled by
 *  the stylesheet; its background image is decoded. Resolves when all 12 are decoded. */
function piecesDecoded(wrap) {
  const probe = document.createElement("div");
  probe.className = "cg-wrap";
  probe.setAttribute("aria-hidden", "true");
  probe.style.cssText = "position:absolute;width:8px;height:8px;left:-9999px;top:0;visibility:hidden";
  const pieces = [];
  for (const color of COLORS) {
    for (const role of ROLES) {
      const piece = document.createElement("piece");
      piece.className = `${role} ${color}`;
      probe.append(piece);
      pieces.push(piece);
    }
  }
  (wrap.parentElement || document.body).append(probe);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const urls = pieces.map((piece) => {
        const match = /url\((['"]?)(.*?)\1\)/.exec(getComputedStyle(piece).backgroundImage);
        return match ? match[2] : null;
      });
      if (urls.some((url) => url === null)) {
        if (Date.now() - started > STYLE_WAIT_MS) {
          probe.remove();
          reject(new Error("the piece images did not load (chessground.cburnett.css)"));
          return;
        }
        setTimeout(attempt, 50);
        return;
      }
      probe.remove();
      Promise.all(
        urls.map((url) => {
          const image = new Image();
          image.src = url;
          return image.decode();
        }),
      ).then(() => resolve(urls.length), reject);
    };
    attempt();
  });
}

/**
 * A chessground board in `element`. `onMove(uci)` is called with each move the user makes (a
 * 5-character UCI for a promotion, after the chooser). Returns the board's controller.
 */
export function createBoard(element, { onMove = null } = {}) {
  let handler = onMove;
  let shown = null; // the last position show() drew, to restore after a cancelled promotion
  let legal = []; // the legal moves of the shown position (UCI)
  let chooser = null;

  const wrap = document.createElement("div");
  wrap.className = "board-wrap";
  element.append(wrap);

  const ground = Chessground(wrap, {
    coordinates: true,
    viewOnly: false,
    animation: { enabled: true, duration: 200 },
    highlight: { lastMove: true, check: true },
    movable: { free: false, color: undefined, showDests: true, events: { after: userMoved } },
    premovable: { enabled: true, showDests: true, events: {} },
    draggable: { enabled: true, showGhost: true },
    drawable: { enabled: true, visible: true },
  });

  // chessground measures the board once and again on a resize or a scroll; the page's layout can
  // move the board without either (a panel growing beside it), so measure at every press.
  const measure = () => ground.state.dom.bounds.clear();
  for (const type of ["mousedown", "touchstart"]) {
    wrap.addEventListener(type, measure, { capture: true, passive: true });
  }

  function userMoved(orig, dest, metadata) {
    const base = orig + dest;
    const promotions = legal.filter((uci) => uci.length === 5 && uci.startsWith(base));
    if (promotions.length === 0) {
      if (handler) handler(base);
      return;
    }
    if (metadata && metadata.premove) {
      // A premove promotes to a queen, as on lichess; the chooser would interrupt the reply.
      const queen = promotions.find((uci) => uci.endsWith("q")) || promotions[0];
      if (handler) handler(queen);
      return;
    }
    openChooser(orig, dest, promotions);
  }

  function openChooser(orig, dest, promotions) {
    closeChooser();
    const color = shown && shown.turn ? shown.turn : ground.state.pieces.get(dest)?.color || "white";
    const orientation = ground.state.orientation;
    const file = FILES.indexOf(dest[0]);
    const left = orientation === "white" ? file : 7 - file;
    // From the promotion square towards the middle of the board, as lichess stacks them.
    const fromTop = dest[1] === (orientation === "white" ? "8" : "1");
    chooser = document.createElement("div");
    chooser.className = "promotion-choice";
    chooser.setAttribute("role", "dialog");
    chooser.setAttribute("aria-label", "Promote the pawn to");
    const offered = PROMOTIONS.filter(([, letter]) => promotions.includes(base() + letter));
    offered.forEach(([role, letter], index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "promotion-square";
      button.dataset.promotion = letter;
      button.setAttribute("aria-label", role);
      button.title = role[0].toUpperCase() + role.slice(1);
      const top = fromTop ? index : 7 - index;
      button.style.left = `${left * 12.5}%`;
      button.style.top = `${top * 12.5}%`;
      const piece = document.createElement("piece");
      piece.className = `${role} ${color}`;
      button.append(piece);
      button.addEventListener("click", (event) => {
        event.stopPropagation();
        closeChooser();
        if (handler) handler(base() + letter);
      });
      chooser.append(button);
    });
    chooser.addEventListener("click", (event) => {
      if (event.target === chooser) cancelChooser();
    });
    wrap.append(chooser);
    document.addEventListener("keydown", escapeChooser, true);
    const first = chooser.querySelector("button");
    if (first) first.focus();

    function base() {
      return orig + dest;
    }
  }

  function escapeChooser(event) {
    if (event.key === "Escape" && chooser) {
      event.preventDefault();
      event.stopPropagation();
      cancelChooser();
    }
  }

  function closeChooser() {
    if (!chooser) return;
    chooser.remove();
    chooser = null;
    document.removeEventListener("keydown", escapeChooser, true);
  }

  /** Escape or a click beside the pieces: the pawn goes back, the same side to move. */
  function cancelChooser() {
    closeChooser();
    if (shown) show(shown, { animate: false });
  }

  function show(position, { animate = true } = {}) {
    closeChooser();
    shown = { ...position };
    legal = position.legalMoves || position.legal_moves || [];
    // movable: a colour, or true for the side to move, or false/null for nobody.
    const movable = position.movable === true ? position.turn : position.movable || null;
    const lastMove = squaresOf(position.lastMove || position.last_move || null);
    const config = {
      fen: position.fen,
      turnColor: position.turn,
      check: Boolean(position.check),
      lastMove,
      movable: {
        color: movable || undefined,
        // Dests only for the side to move; the other side may only premove.
        dests: movable && movable === position.turn ? destsMap(position.dests) : new Map(),
      },
      premovable: { enabled: Boolean(position.premovable) },
      animation: { enabled: animate },
    };
    if (position.orientation) config.orientation = position.orientation;
    ground.set(config);
    if (!animate) ground.set({ animation: { enabled: true } });
    if (!position.premovable) ground.cancelPremove();
    wrap.dataset.orientation = ground.state.orientation;
    wrap.dataset.turn = position.turn || "";
    wrap.dataset.movable = movable || "";
  }

  const board = {
    element: wrap,
    ground,
    show,
    /** Replaces the move handler; returns the previous one. */
    setMoveHandler(fn) {
      const previous = handler;
      handler = fn;
      return previous;
    },
    setOrientation(color) {
      if (ground.state.orientation !== color) ground.set({ orientation: color });
      wrap.dataset.orientation = color;
      if (chooser) cancelChooser();
    },
    orientation() {
      return ground.state.orientation;
    },
    arrows(list) {
      ground.setAutoShapes(
        (list || []).map((arrow) => ({
          orig: arrow.from,
          dest: arrow.to,
          brush: arrow.brush || "green",
        })),
      );
    },
    /** Plays the premove set during the engine's turn, if the new dests allow it: the move
     *  handler is then called with it. True when one was played. */
    playPremove() {
      return ground.playPremove();
    },
    cancelPremove() {
      ground.cancelPremove();
    },
    /** Whether a premove is waiting. */
    hasPremove() {
      return Boolean(ground.state.premovable.current);
    },
    ready: piecesDecoded(wrap),
    destroy() {
      closeChooser();
      ground.destroy();
      wrap.remove();
    },
  };
  board.ready.then(
    () => {
      wrap.dataset.pieces = "ready";
    },
    () => {
      wrap.dataset.pieces = "failed";
    },
  );
  return board;
}
