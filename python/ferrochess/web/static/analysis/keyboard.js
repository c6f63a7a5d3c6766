// The analysis board's keys, as lichess has them: ←/→ through the line, ↑/↓ between the lines of
// the nearest fork, Home/End to the start and to the end of the line, f flips the board, x turns
// the engine on or off, space plays the engine's best move. Heard on `target` (the root, or the
// document on the page), never while typing in a field.

/** The inputs that take no typing: the keys still move through the tree while one has focus. */
const NOT_TYPED = new Set(["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"]);

/** Whether keys pressed in `element` are its own (typing, choosing in a list). */
function typingIn(element) {
  if (!element || !element.tagName) return false;
  if (element.isContentEditable || element.tagName === "TEXTAREA" || element.tagName === "SELECT") return true;
  return element.tagName === "INPUT" && !NOT_TYPED.has(element.type);
}

/** Whether space in `element` presses it (a button, a switch, a row that plays a move). */
function pressable(element) {
  return Boolean(element && element.tagName && (/^(BUTTON|INPUT|A)$/.test(element.tagName) || element.hasAttribute("tabindex")));
}

/** Listens on `target` for `ctrl` (ctrl.js); returns the function that stops listening. */
export function bindKeys(target, ctrl) {
  const onKey = (event) => {
    const element = event.target;
    if (typingIn(element)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === " " && pressable(element) && element !== ctrl.root) return;
    const actions = {
      ArrowLeft: () => ctrl.previous(),
      ArrowRight: () => ctrl.next(),
      ArrowUp: () => ctrl.sibling(-1),
      ArrowDown: () => ctrl.sibling(1),
      Home: () => ctrl.first(),
      End: () => ctrl.last(),
      f: () => ctrl.flip(),
      x: () => ctrl.toggleEngine(),
      " ": () => ctrl.playBest(),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };
  target.addEventListener("keydown", onKey);
  return () => target.removeEventListener("keydown", onKey);
}
