// The training page (/train): mounts the training UI into #app over HTTP, as this browser's
// player (../ui/player.js: the id the play page sends with every game it archives), with links to
// the source games' pages (#app's data-games: /game/<id>) and to the play page.

import { httpTransport } from "../play/api.js";
import { mountTrain } from "./app.js";

const root = document.getElementById("app");
const base = new URL(root.dataset.root || "/", window.location.href);

let storage = null;
try {
  storage = window.localStorage;
  storage.getItem("ferrochess.player");
} catch {
  storage = null; // disabled: the player's id lives as long as the page
}

const controller = mountTrain(root, {
  transport: httpTransport(root.dataset.root || "/"),
  storage,
  options: { keyboard: "document", gameUrl: new URL("game/", base).pathname, playUrl: base.pathname },
});

window.ferrochessTrain = controller;
