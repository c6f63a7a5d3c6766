// Who this browser's player is, the same on every page: a random id made once and kept in
// localStorage (`ferrochess.player`), sent with every game the play page archives and every
// training request (/train), so the server can find "my games" and keep "my" puzzles and rating
// without an account. Where localStorage is disabled the id lives as long as the page.

export const PLAYER_KEY = "ferrochess.player";
/** What the server accepts as a player id (the archive's client ids have the same shape). */
export const PLAYER_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789";
const LENGTH = 20;

let fallback = null; // the id of this page when the browser keeps nothing

/** A fresh player id: 20 letters and digits. */
export function newPlayerId() {
  const bytes = new Uint8Array(LENGTH);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => LETTERS[byte % LETTERS.length]).join("");
}

function defaultStorage() {
  try {
    return globalThis.localStorage || null;
  } catch {
    return null; // disabled (a sandboxed frame, strict privacy settings)
  }
}

/** This browser's player id, made and kept in `storage` (default localStorage) the first time;
 * one that is not of the accepted shape is replaced. Never throws. */
export function playerId(storage = defaultStorage()) {
  let kept = null;
  try {
    kept = storage ? storage.getItem(PLAYER_KEY) : null;
  } catch {
    kept = null;
  }
  if (typeof kept === "string" && PLAYER_PATTERN.test(kept)) return kept;
  const made = fallback || newPlayerId();
  try {
    if (storage) storage.setItem(PLAYER_KEY, made);
  } catch {
    fallback = made; // full or refused: this page keeps it
  }
  if (!storage) fallback = made;
  return made;
}
