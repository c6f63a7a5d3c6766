// The anywidget entry of ferrochess.notebook.match(): a live engine match, drawn by app.js's
// mountMatch inside the widget's element from the synced traits `state` and `games` (the kernel
// publishes them a few times a second at most; see ferrochess/notebook_match.py), its requests
// (Stop, a game's PGN) sent over the widget's comm. Only anywidget's standard
// `render({ model, el })` is used, so it works wherever anywidget does.
//
// anywidget imports this file from a blob URL, where a relative import cannot resolve. So the
// kernel sends the modules as the trait `_modules`, with the notebook widgets' loader,
// play/widget.js: imported here from a blob of its text, its loadModules turns the modules into
// blob URLs (leaves first) and its commTransport carries the requests, as for the other widgets.

const LOADER = "play/widget.js";
const ENTRY = "match/app.js";

/** One import of the modules per set of sources, shared by every view of every match widget:
 * `{app, loader}`, match/app.js and play/widget.js. */
const loaded = new Map();

function importModules(sources) {
  const key = Object.keys(sources).sort().map((name) => `${name}:${sources[name]}`).join("\0");
  if (!loaded.has(key)) {
    const promise = Promise.resolve().then(async () => {
      if (!Object.prototype.hasOwnProperty.call(sources, LOADER)) {
        throw new Error(`module ${LOADER} not found (the widget's loader)`);
      }
      const text = `${sources[LOADER]}\n//# sourceURL=ferrochess/${LOADER}\n`;
      const loader = await import(URL.createObjectURL(new Blob([text], { type: "text/javascript" })));
      const urls = loader.loadModules(sources, [ENTRY]);
      const app = await import(urls.get(ENTRY));
      return { app, loader };
    });
    promise.catch(() => loaded.delete(key));
    loaded.set(key, promise);
  }
  return loaded.get(key);
}

async function render({ model, el }) {
  el.classList.add("ferrochess-widget");
  const root = document.createElement("div");
  el.replaceChildren(root);
  let transport = null;
  let mounted = null;
  try {
    const { app, loader } = await importModules(model.get("_modules") || {});
    transport = loader.commTransport(model);
    mounted = app.mountMatch(root, { source: model, transport });
  } catch (error) {
    const message = document.createElement("pre");
    message.className = "ferrochess-widget-error";
    message.textContent = `The match could not be shown: ${error && error.stack ? error.stack : error}`;
    el.replaceChildren(message);
    console.error(error);
  }
  return () => {
    try {
      if (mounted) mounted.destroy();
    } finally {
      if (transport) transport.close();
    }
  };
}

export default { render };
