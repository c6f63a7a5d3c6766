// The analysis page (/analysis): mounts the analysis board into #app over HTTP, keeps the tree in
// localStorage, starts from ?fen= when the address names one, and cancels this tab's search when
// the page goes away (reload, close, navigation). A stored game's page (/game/<id>, #app's
// data-game) opens the archive's game with its review, names it in the header and the title (its
// players, result, date and time control), and keeps what is made on it under a key of its own,
// so the board's own analysis is left as it was.

import { httpTransport } from "../play/api.js";
import { mountAnalysis, newClientId } from "./app.js";
import { gameTitle } from "./format.js";

const root = document.getElementById("app");
const transport = httpTransport(root.dataset.root || "/");
const clientId = newClientId();

let storage = null;
try {
  storage = window.localStorage;
  storage.getItem("ferrochess.analysis.tree");
} catch {
  storage = null; // disabled: the tree will not survive a reload
}

const query = new URLSearchParams(window.location.search);
const fen = query.get("fen");
if (fen) {
  // The FEN starts one new tree; a reload then keeps the variations made since.
  query.delete("fen");
  const rest = query.toString();
  window.history.replaceState(null, "", window.location.pathname + (rest ? `?${rest}` : "") + window.location.hash);
}

const options = { keyboard: "document", fen: fen || undefined };
const gameId = root.dataset.game;
if (gameId) {
  options.storageKey = `ferrochess.analysis.game.${gameId}`;
  options.handoffKey = "ferrochess.analysis.no-handoff"; // a stored game is not replaced by one
  let kept = null;
  try {
    kept = storage ? storage.getItem(options.storageKey) : null;
  } catch {
    kept = null;
  }
  let record = null;
  try {
    record = await transport.request(`api/games/${encodeURIComponent(gameId)}`);
    if (!kept) options.tree = record.tree;
  } catch (error) {
    root.dataset.error = error.message;
  }
  nameGame(record);
}

const controller = mountAnalysis(root, { transport, storage, clientId, options });

/** The stored game named in the page's header and title, as lichess's game page names it, from
 * its headers (the archive's, else those of the tree this browser kept). */
function nameGame(record) {
  let headers = (record && record.tree && record.tree.headers) || {};
  if (!record) {
    try {
      headers = JSON.parse(storage.getItem(options.storageKey)).tree.headers || {};
    } catch {
      headers = {};
    }
  }
  const title = gameTitle(headers);
  if (!title) return;
  const tagline = document.querySelector('[data-testid="game-title"]');
  if (tagline) tagline.textContent = title;
  document.title = `${title} · ferrochess`;
}

window.addEventListener("pagehide", () => controller.cancel());
window.ferrochessAnalysis = controller;
