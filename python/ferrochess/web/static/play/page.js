// The play page: mounts the play UI into #app over HTTP, keeps the game in localStorage, and
// cancels this tab's search when the page goes away (reload, close, navigation).

import { httpTransport } from "./api.js";
import { mountPlay, newClientId } from "./app.js";

const root = document.getElementById("app");
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
  options: { keyboard: "document" },
});

window.addEventListener("pagehide", () => controller.cancel());
window.ferrochessPlay = controller;
