// Time controls as lichess names them, the same on every page (the play page's settings, a stored
// game's header on the analysis board): "minutes+seconds", from `{initial, increment}` in ms or
// from the tag the server keeps ("300+3", PGN's TimeControl).

/** Lichess's names of the starting times that are not a whole number of minutes, by seconds. */
const FRACTIONS = Object.freeze({ 15: "¼", 30: "½", 45: "¾", 90: "1.5" });

/** A time control as lichess names it, "minutes+seconds": "3+2"; "¼+0", "½+0", "¾+0" for 15,
 * 30 and 45 s; other minutes to two decimals at most ("1.25+0"). */
export function describeTimeControl(control) {
  if (!control) return "No clock";
  const seconds = control.initial / 1000;
  const minutes = FRACTIONS[seconds] || String(Number((seconds / 60).toFixed(2)));
  return `${minutes}+${control.increment / 1000}`;
}

/** The time control of a tag as play/clock.js's timeControlTag writes it ("300+3"), or null
 * for none ("-", "", or what is not that shape). */
export function parseTimeControlTag(tag) {
  const match = /^(\d+)\+(\d+)$/.exec(String(tag ?? "").trim());
  return match ? { initial: Number(match[1]) * 1000, increment: Number(match[2]) * 1000 } : null;
}
