// The analysis page (/analysis): mounts the analysis board into #app over HTTP, keeps the tree in
// localStorage, starts from ?fen= when the address names one, and cancels this tab's search when
// the page goes away (reload, close, navigation).

import { httpTransport } from "../play/api.js";
import { mountAnalysis, newClientId } from "./app.js";

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

const controller = mountAnalysis(root, {
  transport,
  storage,
  clientId,
  options: { keyboard: "document", fen: fen || undefined },
});

window.addEventListener("pagehide", () => controller.cancel());
window.ferrochessAnalysis = controller;
