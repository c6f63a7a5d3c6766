// The analysis board, mounted into one element: the board (../play/board.js), the move tree with
// its variations, comments and glyphs, the live engine, the explorer, PGN in and out. The page
// (page.js) and the notebook widget both call mountAnalysis, each with its own transport, so both
// show the same thing.
//
//   const controller = mountAnalysis(root, {
//     transport,            // request(path, body), stream(path, body, onLine, {signal}), cancel(id)
//     storage,              // Storage-like (localStorage) or null: the tree survives a reload, and
//                           // the play page's handoff (ferrochess.analysis.handoff) is read there
//     clientId,             // this tab's or widget's id ([A-Za-z0-9_-], <= 64): its one search
//     options: {
//       keyboard: "document" | "root",  // where the keys are heard (default "root")
//       fen,                            // start a new tree from this FEN (the page's ?fen=)
//       tree,                           // start from this tree, in its wire shape (the notebook)
//       onTree,                         // told the tree (wire shape) after every change of it
//       engine, lines,                  // the engine on or off, and its number of lines (1-5)
//       storageKey, handoffKey,         // defaults "ferrochess.analysis.tree", "...handoff"
//     },
//   });
//   controller.ready     // Promise: the piece images decoded and the first position drawn
//   controller.ctrl      // the AnalysisCtrl (ctrl.js); controller.board (board.js)
//   controller.cancel()  // api/cancel for this client (the page calls it on pagehide)
//   controller.tree()    // the tree in its wire shape; controller.setTree(wireTree, path = [])
//   controller.destroy()
//
// root.dataset.state is "loading" until the first position is drawn, then "ready";
// root.dataset.path is the path of the node shown ("" the root, "0.0.1"), root.dataset.shown the
// path whose position the board has drawn.
//
// The rooms, as lichess's ui/analyse has them: ctrl.js owns the state (tree.js is its data,
// store.js keeps it); view.js draws it with tree_view.js, tree_menu.js and node_view.js; each
// feature is a controller and a view: ceval.js + ceval_view.js (the live engine), explorer.js +
// explorer_view.js, pgn.js + pgn_view.js; keyboard.js the keys; wire.js the tree on the wire.

import { AnalysisCtrl } from "./ctrl.js";
import { bindKeys } from "./keyboard.js";
import { buildLayout } from "./layout.js";
import { fromWire } from "./wire.js";

let mounted = 0;

/** A fresh client id: 20 letters and digits. */
export function newClientId() {
  const bytes = new Uint8Array(20);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => "abcdefghijklmnopqrstuvwxyz0123456789"[byte % 36]).join("");
}

export function mountAnalysis(root, { transport, storage = null, clientId = newClientId(), options = {} } = {}) {
  const uid = `fca${++mounted}`;
  const ui = buildLayout(root, uid);
  const ctrl = new AnalysisCtrl({ root, ui, transport, clientId, storage, options });
  const keyTarget = options.keyboard === "document" ? root.ownerDocument : root;
  const unbindKeys = bindKeys(keyTarget, ctrl);
  const loaded = ctrl.start(options);
  const ready = Promise.all([ctrl.board.ready, loaded]).then(() => ctrl.ready());
  ctrl.board.ready.catch((error) => ctrl.say(`The board could not be drawn: ${error.message}`, "error"));

  return {
    root,
    ctrl,
    board: ctrl.board,
    ready,
    clientId,
    cancel() {
      transport.cancel(clientId);
    },
    tree: () => ctrl.wireTree(),
    setTree(wire, path = []) {
      ctrl.loadTree(fromWire(wire), { path });
    },
    destroy() {
      unbindKeys();
      ctrl.destroy();
      root.replaceChildren();
    },
  };
}
