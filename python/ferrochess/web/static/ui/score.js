// A score in words and as winning chances, the same on every page: the play page's engine panel
// and evaluation bar, its review, the analysis board's tree, engine lines and bar (lichess keeps
// these in ui/ceval and ui/lib, used by analysis, round and puzzle alike). A score is the
// server's, White's view: {cp}, {mate}, {mate: 0, mated} for a side checkmated; where the tables
// judged the position, `tablebase` holds their verdict ("win", "cursed win", "draw",
// "blessed loss", "loss").

/** What a missing value reads as, everywhere: a score, a depth, a time. */
export const MISSING = "–";
/** lichess's slope of the winning-chances curve (lila pull 11148), per centipawn. */
const WIN_SCALE = 0.00368208;
/** Centipawns beyond this count as this much on the curve (lichess's cap). */
const CP_CAP = 1000;

/** "+0.35", "-1.20", "+0.00", "#3", "#-2"; "TB win" ... where the tables judged; a side
 * checkmated: "1-0" or "0-1"; none: MISSING ("–"). */
export function formatScore(score) {
  if (!score) return MISSING;
  if (score.mate === 0 && score.mated) return score.mated === "white" ? "0-1" : "1-0";
  if (score.mate !== undefined && score.mate !== null) return `#${score.mate}`;
  if (score.tablebase) return `TB ${score.tablebase}`;
  const cp = Number(score.cp) || 0;
  return `${cp >= 0 ? "+" : "-"}${(Math.abs(cp) / 100).toFixed(2)}`;
}

/** lichess's winning chances of White in -1..1: `2 / (1 + exp(-k * cp)) - 1` with the centipawns
 * capped at ±1000; a mate (or the tables' win or loss) is certain, ±1; 0 for none. The server's
 * ferrochess.analysis.winning_chances is the same curve, for the review's judgements. */
export function winningChances(score) {
  if (!score) return 0;
  if (score.mate === 0 && score.mated) return score.mated === "white" ? -1 : 1;
  if (score.mate !== undefined && score.mate !== null) return Math.sign(score.mate);
  if (score.tablebase === "win") return 1;
  if (score.tablebase === "loss") return -1;
  const cp = Math.max(-CP_CAP, Math.min(CP_CAP, Number(score.cp) || 0));
  return 2 / (1 + Math.exp(-WIN_SCALE * cp)) - 1;
}

/** White's share of an evaluation bar in percent (50 for none): +1 is about 59, +3 about 75. */
export function barShare(score) {
  return 50 + 50 * winningChances(score);
}

/** A result as lichess shows it: "½-½" for a draw ("1/2-1/2" stays the PGN's), "1-0", "0-1". */
export function resultShown(result) {
  return result === "1/2-1/2" ? "½-½" : result;
}
