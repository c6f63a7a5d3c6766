// The play UI's keys: ←/→ step through the game, Home goes to its start, End back to the live
// position, Escape takes back a "Confirm resign?". Heard on `target` (the root, or the document
// on the page), never while typing.

/** Listens on `target` for `ctrl` (play_ctrl.js); returns the function that stops listening. */
export function bindKeys(target, ctrl) {
  const onKey = (event) => {
    const element = event.target;
    if (element && /^(INPUT|SELECT|TEXTAREA)$/.test(element.tagName)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const actions = {
      ArrowLeft: () => ctrl.step(-1),
      ArrowRight: () => ctrl.step(1),
      Home: () => ctrl.stepTo(0),
      End: () => ctrl.showLive(),
      Escape: ctrl.confirmingResign ? () => ctrl.cancelResign() : null,
    };
    const action = actions[event.key];
    if (!action || !ctrl.game.state) return;
    event.preventDefault();
    action();
  };
  target.addEventListener("keydown", onKey);
  return () => target.removeEventListener("keydown", onKey);
}
