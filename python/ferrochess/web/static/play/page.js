// The play page: mounts the play UI into #app over HTTP, keeps the game in localStorage, and
// cancels this tab's search when the page goes away (reload, close, navigation). "Analyse" opens
// the analysis board, `analysis` beside the page's root. Where the server keeps a games archive
// (#app's `data-archive`, the list's URL), finished games are sent there (archive.js).

import { httpTransport } from "./api.js";
import { mountPlay, newClientId } from "./app.js";

const root = document.getElementById("app");
const base = new URL(root.dataset.root || "/", window.location.href);
const transport = httpTransport(root.dataset.root || "/");
const clientId = newClientId();

let storage = null;
try {
  storage = window.localStorage;
  storage.getItem("ferrochess.play.game");
} catch {
  storage = null; // disabled: the game will not survive a reload
}

const controller = mountPlay(root, {
  transport,
  storage,
  clientId,
  options: { keyboard: "document", analysisUrl: new URL("analysis", base).href,
    archive: root.dataset.archive || null },
});

window.addEventListener("pagehide", () => controller.cancel());
window.ferrochessPlay = controller;
