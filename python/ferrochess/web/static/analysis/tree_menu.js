// The move tree's context menu (a right click on a move, as on lichess): promote the variation,
// make it the main line, fold its fork's variations, delete from the move on. It acts on the move
// clicked, through the controller.

import { el } from "../ui/dom.js";
import { nodeAt, nodesAlong, onMainline } from "./tree.js";

export class TreeMenu {
  /** @param {HTMLElement} box the menu's element @param {HTMLElement} root @param {object} ctrl */
  constructor(box, root, ctrl) {
    this.box = box;
    this.root = root;
    this.ctrl = ctrl;
    this.path = null;
    this.onOutside = (event) => {
      if (!this.box.contains(event.target)) this.close();
    };
    this.onKey = (event) => {
      if (event.key === "Escape") this.close();
    };
    box.addEventListener("click", (event) => {
      const item = event.target.closest("[data-menu]");
      if (!item || this.path === null) return;
      const path = this.path;
      this.close();
      const actions = {
        promote: () => ctrl.promote(path, false),
        mainline: () => ctrl.promote(path, true),
        collapse: () => ctrl.toggleCollapse(path),
        delete: () => ctrl.deleteAt(path),
      };
      actions[item.dataset.menu]();
    });
  }

  open(path, x, y) {
    const { tree } = this.ctrl;
    if (!nodeAt(tree, path)) return;
    this.path = path;
    const item = (action, text, disabled = false) =>
      el("button", { type: "button", role: "menuitem", "data-menu": action, disabled }, text);
    const forks = nodesAlong(tree, path).filter((node) => node.children.length > 1);
    const fork = forks[forks.length - 1];
    this.box.replaceChildren(
      el("p", { class: "menu-title" }, nodeAt(tree, path).san),
      item("promote", "Promote variation", onMainline(path)),
      item("mainline", "Make main line", onMainline(path)),
      item("collapse", fork && fork.collapsed ? "Expand variations" : "Collapse variations", !fork),
      item("delete", "Delete from here"),
    );
    this.box.hidden = false;
    const bounds = this.root.getBoundingClientRect();
    this.box.style.left = `${Math.max(0, x - bounds.left)}px`;
    this.box.style.top = `${Math.max(0, y - bounds.top)}px`;
    const doc = this.root.ownerDocument;
    doc.addEventListener("mousedown", this.onOutside, true);
    doc.addEventListener("keydown", this.onKey, true);
  }

  close() {
    this.box.hidden = true;
    this.path = null;
    const doc = this.root.ownerDocument;
    doc.removeEventListener("mousedown", this.onOutside, true);
    doc.removeEventListener("keydown", this.onKey, true);
  }
}
