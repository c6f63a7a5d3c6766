// The HTTP transport: the play app's JSON API over fetch.
//
// A transport is what mountPlay talks through (the notebook widget has another, over its comm):
//   request(path, body)     -> Promise<object>; GET when body is undefined, else a JSON POST.
//                              Rejects with an ApiError {kind: "network"|"http", status, message,
//                              field, retryAfter}.
//   stream(path, body, onLine) -> Promise<void>; POSTs and calls onLine(object) for each NDJSON
//                              line of the answer; rejects like request.
//   cancel(clientId)        fire and forget: POST api/cancel {client} by navigator.sendBeacon, so
//                              it goes out even while the page is unloading.

export class ApiError extends Error {
  constructor({ kind, status = 0, message, field = null, retryAfter = null }) {
    super(message);
    this.name = "ApiError";
    this.kind = kind;
    this.status = status;
    this.field = field;
    this.retryAfter = retryAfter;
  }
}

const NETWORK_MESSAGE = "cannot reach the server";

/** The URL of `path` ("api/state" or "/api/state") under the app's root. */
function joinPath(root, path) {
  const relative = String(path).replace(/^\/+/, "");
  return root.endsWith("/") ? root + relative : `${root}/${relative}`;
}

async function send(url, body, signal) {
  try {
    return await fetch(url, {
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (error && error.name === "AbortError") throw error;
    throw new ApiError({ kind: "network", message: NETWORK_MESSAGE });
  }
}

async function refusal(response) {
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  const retryAfter = Number.parseFloat(response.headers.get("Retry-After"));
  return new ApiError({
    kind: "http",
    status: response.status,
    message: data && typeof data.error === "string" ? data.error : `${response.status} ${response.statusText}`,
    field: data && typeof data.field === "string" ? data.field : null,
    retryAfter: Number.isFinite(retryAfter) ? retryAfter : null,
  });
}

/** The transport of the page: `root` is the app's URL ("/" or "/play/"). */
export function httpTransport(root = "/") {
  return {
    async request(path, body) {
      const response = await send(joinPath(root, path), body);
      if (!response.ok) throw await refusal(response);
      try {
        return await response.json();
      } catch {
        throw new ApiError({ kind: "network", message: NETWORK_MESSAGE });
      }
    },

    async stream(path, body, onLine, { signal } = {}) {
      const response = await send(joinPath(root, path), body, signal);
      if (!response.ok) throw await refusal(response);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffered = "";
      const emit = (line) => {
        if (line.trim() !== "") onLine(JSON.parse(line));
      };
      for (;;) {
        let chunk;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (error && error.name === "AbortError") throw error;
          throw new ApiError({ kind: "network", message: NETWORK_MESSAGE });
        }
        if (chunk.done) break;
        buffered += decoder.decode(chunk.value, { stream: true });
        let newline;
        while ((newline = buffered.indexOf("\n")) >= 0) {
          emit(buffered.slice(0, newline));
          buffered = buffered.slice(newline + 1);
        }
      }
      emit(buffered + decoder.decode());
    },

    cancel(clientId) {
      if (!clientId) return;
      const url = joinPath(root, "api/cancel");
      const body = JSON.stringify({ client: clientId });
      try {
        if (navigator.sendBeacon(url, new Blob([body], { type: "application/json" }))) return;
      } catch {
        // fall through to a keepalive fetch
      }
      fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body, keepalive: true })
        .catch(() => {});
    },
  };
}
