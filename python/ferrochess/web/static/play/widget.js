// The anywidget entry of the notebook widgets (ferrochess.notebook.play() and analyse()): the
// page's own modules, drawn once inside the widget's element, talking to the kernel over the
// widget's comm instead of HTTP. The trait `_entry` ({module, mount}) names the UI: the play page's
// play/app.js mountPlay, or the analysis board's analysis/app.js mountAnalysis. Works wherever
// anywidget does (JupyterLab, Notebook 7, VS Code): only anywidget's standard `render({ model, el })`
// is used.
//
// anywidget imports this file from a blob URL, where a relative import cannot resolve. So the
// kernel sends the module sources as the trait `_modules` ({"play/app.js": source, ...,
// "vendor/chessground/chessground.min.js": source}); `loadModules` turns them into blob URLs,
// leaves first, rewriting the relative specifiers of each `import ... from "./x.js"` to the blob
// URL of the module it names, then imports the entry's module and calls its mount function.
//
// The comm protocol (the kernel's side is WidgetBackend.handle in notebook.py):
//   to the kernel:   {id, path, body}                      a request or, for api/review and
//                                                          api/analyse, a stream
//   from the kernel: {id, ok: true, data}                  the answer
//                    {id, ok: false, error, field, status} a refusal (400, 409, 503, 500)
//                    {id, line}                            one line of a stream
//                    {id, done: true}                      the stream's end

const PLAY = { module: "play/app.js", mount: "mountPlay" };
const API = "play/api.js";
const STREAMS = new Set(["api/review", "api/analyse"]);
const BUSY = 503;
const RETRY_AFTER_SECONDS = 1;
const UNREACHABLE = "cannot reach the notebook's kernel";

// `from "./x.js"`, `import "./x.js"` and `import("./x.js")`, with either quote.
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.{1,2}\/[^"'\s]+\.js)\2/g;

/** The module name `specifier` refers to from module `name` ("play/app.js" + "./board.js" ->
 * "play/board.js"; "../vendor/chessground/chessground.min.js" -> "vendor/..."). */
export function resolve(name, specifier) {
  const parts = name.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") {
      if (parts.length === 0) throw new Error(`${specifier} leaves the modules' root in ${name}`);
      parts.pop();
    } else if (part !== ".") {
      parts.push(part);
    }
  }
  return parts.join("/");
}

/** Blob URLs for the `entries` and every module they import, made leaves first: a Map from module
 * name to URL. `sources` maps module names to their text. Throws on a missing module or an import
 * cycle. */
export function loadModules(sources, entries = [PLAY.module], makeUrl = blobUrl) {
  const urls = new Map();
  const visiting = new Set();
  const visit = (name, from) => {
    if (urls.has(name)) return urls.get(name);
    if (!Object.prototype.hasOwnProperty.call(sources, name)) {
      throw new Error(`module ${name} not found` + (from ? ` (imported by ${from})` : ""));
    }
    if (visiting.has(name)) throw new Error(`import cycle through ${name}`);
    visiting.add(name);
    const text = sources[name].replace(SPECIFIER, (_match, head, quote, specifier) =>
      `${head}${quote}${visit(resolve(name, specifier), name)}${quote}`);
    visiting.delete(name);
    const url = makeUrl(text, name);
    urls.set(name, url);
    return url;
  };
  for (const entry of entries) visit(entry, null);
  return urls;
}

function blobUrl(text, name) {
  const source = `${text}\n//# sourceURL=ferrochess/${name}\n`;
  return URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
}

/** One import of the modules per set of sources and entry, shared by every view of every widget:
 * `{app, api}`, the entry's module and play/api.js (for its ApiError). */
const loaded = new Map();

function importModules(sources, entry) {
  const names = Object.keys(sources).sort().map((name) => `${name}:${sources[name]}`);
  const key = [entry, ...names].join("\0");
  if (!loaded.has(key)) {
    const promise = Promise.resolve().then(async () => {
      const entries = [entry, API].filter((name) => name === entry || name in sources);
      const urls = loadModules(sources, entries);
      const app = await import(urls.get(entry));
      const api = urls.has(API) ? await import(urls.get(API)) : {};
      return { app, api };
    });
    promise.catch(() => loaded.delete(key));
    loaded.set(key, promise);
  }
  return loaded.get(key);
}

/** The HTTP transport's error (api.js's ApiError when given): `kind` "http" for a refusal with
 * the server's `status`, `message` and `field`; "network" when the kernel cannot be reached. */
function apiError(ErrorClass, { kind, status = 0, message, field = null }) {
  const retryAfter = status === BUSY ? RETRY_AFTER_SECONDS : null;
  if (ErrorClass) return new ErrorClass({ kind, status, message, field, retryAfter });
  const error = new Error(message);
  Object.assign(error, { name: "ApiError", kind, status, field, retryAfter });
  return error;
}

/** The transport of docs/play.md over the widget's comm (api.js's httpTransport's twin);
 * `ErrorClass` is api.js's ApiError. `close()` fails what is in flight. */
export function commTransport(model, ErrorClass = null) {
  let next = 0;
  const pending = new Map();
  const prefix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

  const onMessage = (message) => {
    if (!message || typeof message !== "object" || !pending.has(message.id)) return;
    const call = pending.get(message.id);
    if ("line" in message) {
      if (call.onLine) call.onLine(message.line);
      return;
    }
    pending.delete(message.id);
    if (message.done) call.resolve(undefined);
    else if (message.ok) call.resolve(message.data);
    else {
      const status = message.status ?? 500;
      const text = message.error || "the kernel refused the request";
      call.reject(apiError(ErrorClass, { kind: "http", status, message: text, field: message.field }));
    }
  };
  model.on("msg:custom", onMessage);

  const send = (path, body, onLine, signal) =>
    new Promise((resolve, reject) => {
      if (signal && signal.aborted) {
        reject(new DOMException("the request was aborted", "AbortError"));
        return;
      }
      const id = `${prefix}-${++next}`;
      pending.set(id, { resolve, reject, onLine });
      if (signal) {
        signal.addEventListener("abort", () => {
          if (!pending.delete(id)) return;
          reject(new DOMException("the request was aborted", "AbortError"));
        }, { once: true });
      }
      try {
        model.send({ id, path: String(path).replace(/^\/+/, ""), body: body ?? {} });
      } catch {
        pending.delete(id);
        reject(apiError(ErrorClass, { kind: "network", message: UNREACHABLE }));
      }
    });

  return {
    request(path, body) {
      return send(path, body, null, null);
    },
    stream(path, body, onLine, { signal } = {}) {
      const name = String(path).replace(/^\/+/, "");
      if (!STREAMS.has(name)) return Promise.reject(new Error(`${path} is not a stream`));
      return send(name, body, onLine || (() => {}), signal);
    },
    cancel(client) {
      if (!client) return;
      send("api/cancel", { client }, null, null).catch(() => {});
    },
    close() {
      model.off("msg:custom", onMessage);
      for (const call of pending.values()) {
        call.reject(apiError(ErrorClass, { kind: "network", message: UNREACHABLE }));
      }
      pending.clear();
    },
  };
}

/** localStorage's getItem/setItem/removeItem over the synced trait `_storage`, so a game outlives
 * re-displaying the widget (the kernel keeps the model). */
export function traitStorage(model) {
  const read = () => model.get("_storage") || {};
  const write = (values) => {
    model.set("_storage", values);
    model.save_changes();
  };
  return {
    getItem(key) {
      const values = read();
      return Object.prototype.hasOwnProperty.call(values, key) ? values[key] : null;
    },
    setItem(key, value) {
      write({ ...read(), [key]: String(value) });
    },
    removeItem(key) {
      const values = { ...read() };
      delete values[key];
      write(values);
    },
  };
}

/** The options of the UI: the trait `options`; for the analysis board also the tree as the kernel
 * last heard it (trait `tree`, so showing the widget again shows the tree as it was left) and
 * `onTree`, which sends every change of the tree back to the kernel (the widget's `.game`). */
function entryOptions(model, entry) {
  const options = { ...(model.get("options") || {}) };
  if (entry.mount !== "mountAnalysis") return options;
  const tree = model.get("tree");
  if (tree && typeof tree === "object" && Object.keys(tree).length) options.tree = tree;
  options.onTree = (wire) => {
    model.set("tree", wire);
    model.save_changes();
  };
  return options;
}

async function render({ model, el }) {
  // The widget's element is the container the play UI sizes itself from (container-type in the
  // widget's CSS); the UI is mounted into a child of it.
  el.classList.add("ferrochess-widget");
  const root = document.createElement("div");
  el.replaceChildren(root);
  let transport = null;
  let mounted = null;
  try {
    const entry = model.get("_entry") || PLAY;
    const { app, api } = await importModules(model.get("_modules"), entry.module);
    transport = commTransport(model, api.ApiError || null);
    mounted = app[entry.mount](root, {
      transport,
      storage: traitStorage(model),
      clientId: model.get("_client_id"),
      options: entryOptions(model, entry),
    });
  } catch (error) {
    const message = document.createElement("pre");
    message.className = "ferrochess-widget-error";
    message.textContent = `The board could not start: ${error && error.stack ? error.stack : error}`;
    el.replaceChildren(message);
    console.error(error);
  }
  return () => {
    try {
      if (mounted && typeof mounted.destroy === "function") mounted.destroy();
      else if (typeof mounted === "function") mounted();
    } finally {
      if (transport) transport.close();
    }
  };
}

export default { render };
