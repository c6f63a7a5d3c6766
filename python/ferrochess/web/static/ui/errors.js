// What went wrong, in the same words on every page (the play page, its review and lessons, the
// analysis board, the notebook widgets): the transports' errors (api.js's ApiError, the widget's
// twin: {kind: "network"|"http", status, message}) or a stream's {error} line.

/** Why the server could not take a request now, by HTTP status: it says to wait, then retry. */
const BUSY = Object.freeze({
  503: "Every engine is busy",
  429: "Too many engine requests from here",
});

/** Whether `error` is a refusal to retry after a wait (503: every engine busy; 429: rate). */
export function isBusy(error) {
  return Boolean(error && BUSY[error.status]);
}

/** What went wrong, in a sentence for a person: the server unreachable, busy, the search
 * cancelled, or the server's own message (capitalised, with its full stop). */
export function describeError(error) {
  const status = error && (error.status ?? error.statusCode);
  if (error && (error.kind === "network" || status === 0)) {
    return "Cannot reach the server: is it still running?";
  }
  if (status === 409) return "The search was cancelled; try again.";
  if (BUSY[status]) return `${BUSY[status]}; try again in a moment.`;
  const words = String((error && (error.message || error.error)) || error || "") || "something went wrong";
  return `${words[0].toUpperCase()}${words.slice(1)}${/[.!?]$/.test(words) ? "" : "."}`;
}

/** A busy refusal waited out before the page asks again by itself: "Every engine is busy;
 * trying again in 2 s." */
export function retryWords(error, seconds) {
  const why = BUSY[error && error.status] || describeError(error).replace(/[.!?]$/, "");
  return `${why}; trying again in ${seconds} s.`;
}
