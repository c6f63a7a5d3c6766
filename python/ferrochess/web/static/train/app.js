// The training UI, mounted into one element: the board (../play/board.js), the controller and its
// state machine (ctrl.js), the view (view.js) and the keys. The page (/train, page.js) and the
// notebook widget (ferrochess.notebook.train(), through ../play/widget.js) both call mountTrain,
// each with its own transport, so both show and do the same.
//
//   const controller = mountTrain(root, {
//     transport,            // request(path, body): ../play/api.js's httpTransport, the widget's
//     storage,              // Storage-like (localStorage) where the player's id is kept, or null
//     options: {
//       player,                         // the player's id (default: ../ui/player.js's, kept in
//                                       // `storage`)
//       keyboard: "document" | "root",  // where "n" (next) is heard (default "root")
//       gameUrl,                        // the page of a stored game ("/game/"), or none: the
//                                       // source game is named without a link
//       playUrl,                        // the play page ("Play a game" when nothing is due)
//       replyDelay,                     // ms before the opponent replies (ctrl.js's default)
//     },
//   });
//   controller.ready     // Promise: the piece images decoded and the first puzzle asked for
//   controller.ctrl      // the TrainCtrl (ctrl.js); controller.board (board.js)
//   controller.destroy()
//
// root.dataset.state is the controller's state: loading, solving, checking, replying, solved,
// failed, empty, mining, error; root.dataset.puzzle the id of the puzzle shown.

import { playerId } from "../ui/player.js";
import { TrainCtrl } from "./ctrl.js";
import { buildLayout } from "./view.js";

/** Listens on `target` for the keys of `ctrl`: "n" for the next puzzle; returns the unbinder. */
export function bindKeys(target, ctrl) {
  const onKey = (event) => {
    const element = event.target;
    if (element && /^(INPUT|SELECT|TEXTAREA)$/.test(element.tagName)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key !== "n" && event.key !== "N") return;
    event.preventDefault();
    ctrl.next();
  };
  target.addEventListener("keydown", onKey);
  return () => target.removeEventListener("keydown", onKey);
}

export function mountTrain(root, { transport, storage = null, options = {} } = {}) {
  const ui = buildLayout(root);
  const player = typeof options.player === "string" && options.player ? options.player : playerId(storage);
  const base = typeof options.gameUrl === "string" && options.gameUrl ? options.gameUrl : null;
  const ctrl = new TrainCtrl({
    root, ui, transport, player,
    gameUrl: base ? (id) => `${base}${encodeURIComponent(id)}` : null,
    playUrl: typeof options.playUrl === "string" && options.playUrl ? options.playUrl : null,
    replyDelay: Number.isFinite(options.replyDelay) ? options.replyDelay : undefined,
  });
  const keyTarget = options.keyboard === "document" ? root.ownerDocument : root;
  const unbindKeys = bindKeys(keyTarget, ctrl);
  ctrl.view.render();
  const loaded = ctrl.load();
  const ready = Promise.all([ctrl.board.ready, loaded]);
  ctrl.board.ready.catch((error) => {
    ctrl.error = `The board could not be drawn: ${error.message}`;
    ctrl.view.render();
  });

  return {
    root,
    ctrl,
    board: ctrl.board,
    ready,
    player,
    next: () => ctrl.next(),
    destroy() {
      unbindKeys();
      ctrl.destroy();
      root.replaceChildren();
    },
  };
}
