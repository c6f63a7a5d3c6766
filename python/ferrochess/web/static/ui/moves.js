// Move numbers as lichess writes them, the same on every page: "12." before White's move, "12…"
// before Black's (the Unicode ellipsis). A ply counts the half-moves from move 1 with White to
// move, so the ply of a position says both its number and whose move it is.

/** The ply of a FEN's position, read from its move-number and side-to-move fields. */
export function rootPly(fen) {
  const fields = String(fen || "").trim().split(/\s+/);
  const number = Math.max(1, Number.parseInt(fields[5], 10) || 1);
  return (number - 1) * 2 + (fields[1] === "b" ? 1 : 0);
}

/** Whether the move played from ply `ply` is White's. */
export const whiteMoves = (ply) => ply % 2 === 0;

/** The label before the move played from ply `ply`: "12." for White's, "12…" for Black's. A
 * move list's row (White's cell, then Black's) is labelled with its White ply's. */
export function moveNumber(ply) {
  return `${Math.floor(ply / 2) + 1}${whiteMoves(ply) ? "." : "…"}`;
}

/** A line of SAN moves played from ply `ply`, as `[{ply, label, san}]`: the first move and each
 * of White's labelled (moveNumber), Black's inside the line not (label ""). */
export function numberedLine(sans, ply) {
  return sans.map((san, index) => {
    const at = ply + index;
    return { ply: at, label: index === 0 || whiteMoves(at) ? moveNumber(at) : "", san };
  });
}

/** The same line as text: "12… Nf6 13. Bg5 e6". */
export function lineText(sans, ply) {
  return numberedLine(sans, ply).map(({ label, san }) => (label ? `${label} ${san}` : san)).join(" ");
}
