// The states of a game and every transition between them, in one table (docs/play.md, "The
// states of a game"). PlayGame (game.js) changes state only through `fire(event)`, which throws on
// an event the current state does not take.

export const TRANSITIONS = Object.freeze({
  // Asking the server for the game's position (start, reload, takeback, new game, retry).
  loading: { human: "ready", engine: "thinking", ended: "over", failed: "error" },
  // The human to move.
  ready: { moved: "thinking", ended: "over", failed: "error" },
  // The human's move is being checked, then the engine searches (its clock runs).
  thinking: { replied: "ready", refused: "ready", ended: "over", failed: "error" },
  // The game is over: the banner, the review button; a review kept with the game shows again
  // after a reload without being computed again ("restored").
  over: { review: "reviewing", restored: "reviewed" },
  // The review is being computed (review.js), then shown; "learn from your mistakes".
  reviewing: { reviewed: "reviewed", stopped: "over" },
  reviewed: { learn: "learning", review: "reviewing", stopped: "over" },
  learning: { learned: "reviewed", stopped: "over" },
  // The server could not be reached or refused: a message with "Try again" (-> load).
  error: {},
  // Another tab took the game over: a button takes it back (-> load).
  stale: {},
});
/** Events every state takes. */
export const FROM_ANY_STATE = Object.freeze({ load: "loading", superseded: "stale" });
