// The match view's numbers in words: Elo with its 95% interval as fishtest prints it, points with
// lichess's halves, percentages, the LLR, and the match's status. Scores, results and clocks are
// the UI kit's and the play page's (../ui/score.js, ../play/clock.js): not here.

import { MISSING } from "../ui/score.js";

const MINUS = "−";

/** A signed number to `digits` decimals with a typographic minus: "+55.6", "−8.6", "0.0". */
export function signed(value, digits = 1) {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return MISSING;
  const text = Math.abs(Number(value)).toFixed(digits);
  if (Number(text) === 0) return text;
  return `${Number(value) > 0 ? "+" : MINUS}${text}`;
}

/** An estimate `{value, low, high}` as fishtest prints it: "+55.6 ± 27.7" (the half-width of
 * the 95% interval); MISSING before there is one. */
export function formatElo(estimate) {
  if (!estimate || !Number.isFinite(Number(estimate.value))) return MISSING;
  const { low, high } = estimate;
  if (!Number.isFinite(Number(low)) || !Number.isFinite(Number(high))) return signed(estimate.value);
  return `${signed(estimate.value)} ± ${((high - low) / 2).toFixed(1)}`;
}

/** The 95% interval of an estimate: "[27.9, 83.3]"; "" without one. */
export function formatInterval(estimate) {
  if (!estimate || !Number.isFinite(Number(estimate.low)) || !Number.isFinite(Number(estimate.high))) {
    return "";
  }
  return `[${signed(estimate.low)}, ${signed(estimate.high)}]`;
}

/** A fraction as a percentage: "72.5 %"; MISSING for none. */
export function percent(fraction, digits = 1) {
  if (fraction === null || fraction === undefined || !Number.isFinite(Number(fraction))) return MISSING;
  return `${(100 * Number(fraction)).toFixed(digits)} %`;
}

/** Points as lichess's tables write them: "2", "1½", "½", "0". */
export function formatPoints(points) {
  const value = Number(points) || 0;
  const whole = Math.floor(value);
  const half = value - whole >= 0.5;
  if (!half) return String(whole);
  return whole ? `${whole}½` : "½";
}

/** An LLR to two decimals with a typographic minus: "2.94", "−1.07". */
export function formatLlr(llr) {
  if (llr === null || llr === undefined || !Number.isFinite(Number(llr))) return MISSING;
  const text = Math.abs(Number(llr)).toFixed(2);
  return Number(llr) < 0 && Number(text) !== 0 ? `${MINUS}${text}` : text;
}

/** The match's status in words, for its badge. */
export function statusWords(status, decision = null) {
  if (status === "finished" && decision) return `${decision} accepted`;
  return {
    waiting: "Waiting",
    running: "Playing",
    stopping: "Stopping…",
    finished: "Finished",
    stopped: "Stopped",
    error: "Failed",
  }[status] || "Waiting";
}

/** What an SPRT's decision says, as fishtest says it: "H1 accepted: passed"; without one,
 * "Running", or "No decision" once the match is `over`. */
export function decisionWords(decision, over = false) {
  if (decision === "H1") return "H1 accepted: passed";
  if (decision === "H0") return "H0 accepted: failed";
  return over ? "No decision" : "Running";
}
