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
//       analysisUrl,                    // the analysis board's page ("Analyse" buttons); none
//                                      // (the notebook): the buttons are hidden
//       navigate,                       // how to go there (default window.location.assign)
//       archive,                        // the server's games list (its URL) where it keeps
//                                      // finished games (archive.js sends them there, through
//                                      // an outbox in `storage`); none (the notebook): nothing is
//                                      // sent and nothing about an archive shows
//     },
//   });
//   controller.ready     // Promise: the piece images decoded and the first position drawn
//   controller.game      // the PlayGame (game.js); controller.board (board.js)
//   controller.cancel()  // api/cancel for this client (the page calls it on pagehide)
//   controller.destroy()
//
// The state of the game is written on root.dataset.state: loading, ready, thinking, over,
// reviewing, reviewed, learning, error, stale ("loading" until the pieces are decoded).
//
// The rooms, as lichess's ui/analyse has them: play_ctrl.js owns the state (and the board, the
// game, the review and the store); play_view.js draws it and takes the clicks; settings.js is the
// new-game form; persist.js keeps the game and hears other tabs; keyboard.js the keys. The review
// is review.js (controller), review_view.js (panel), review_graph.js (graph), learn.js with
// learn_view.js ("learn from your mistakes").

import { buildLayout } from "./layout.js";
import { bindKeys } from "./keyboard.js";
import { PlayCtrl } from "./play_ctrl.js";
import { Sounds } from "./sounds.js";

let mounted = 0;

/** A fresh client id: 20 letters and digits. */
export function newClientId() {
  const bytes = new Uint8Array(20);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => "abcdefghijklmnopqrstuvwxyz0123456789"[byte % 36]).join("");
}

export function mountPlay(root, { transport, storage = null, clientId = newClientId(), options = {} } = {}) {
  const uid = `fc${++mounted}`;
  const ui = buildLayout(root, uid);
  const sounds = new Sounds(root, storage);
  // Other tabs of the page share localStorage; a widget's own storage has no other tab.
  const syncTabs = options.syncTabs ?? (storage !== null && storage === globalThis.localStorage);
  const store = { storage, key: options.storageKey || "ferrochess.play.game", syncTabs };
  const analysis = { url: typeof options.analysisUrl === "string" ? options.analysisUrl : null,
    navigate: options.navigate || ((url) => window.location.assign(url)) };
  const archive = typeof options.archive === "string" && options.archive ? options.archive : null;
  const ctrl = new PlayCtrl({ root, ui, transport, clientId, sounds, store, analysis, archive });
  const { game, board, review } = ctrl;
  const unbindKeys = bindKeys(options.keyboard === "document" ? document : root, ctrl);
  ctrl.startTicking();

  const loaded = ctrl.start(options);
  const ready = Promise.all([board.ready, loaded]).then(() => ctrl.ready());
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
    newGame: () => ctrl.newGame(),
    showPly: (ply) => ctrl.showPly(ply),
    showLive: () => ctrl.showLive(),
    cancel() {
      transport.cancel(clientId);
    },
    destroy() {
      unbindKeys();
      ctrl.destroy();
      root.replaceChildren();
    },
  };
}
