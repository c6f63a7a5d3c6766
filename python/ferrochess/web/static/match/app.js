// The live match view, mounted into one element: the controller (ctrl.js) over a source of the
// kernel's state, and the view (view.js). The notebook widget (ferrochess.notebook.match(),
// through widget.js) mounts it over the widget's model; a page could mount it over any object
// with the same three methods.
//
//   const mounted = mountMatch(root, {
//     source,      // get(name) -> the traits "state" and "games"; on/off("change:state", fn)
//     transport,   // request(path, body): "match/stop", "match/pgn" (widget.js's comm)
//   });
//   mounted.ctrl   // the MatchCtrl; mounted.view the MatchView
//   mounted.destroy()
//
// root.dataset.status is the match's status: waiting, running, stopping, finished, stopped,
// error; root.dataset.over "true" once it is over.

import { MatchCtrl } from "./ctrl.js";
import { MatchView } from "./view.js";

export function mountMatch(root, { source, transport = null } = {}) {
  const ctrl = new MatchCtrl({ source, transport });
  const view = new MatchView(root, ctrl);
  ctrl.onChange = () => view.render();
  ctrl.connect();
  view.render();
  return {
    root,
    ctrl,
    view,
    destroy() {
      ctrl.disconnect();
      view.destroy();
      root.replaceChildren();
    },
  };
}
