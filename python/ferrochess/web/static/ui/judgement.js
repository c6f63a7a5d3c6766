// A judged move (the server's review: an inaccuracy, a mistake or a blunder) in the same words and
// marks on every page: the play page's review and lessons, and the analysis board's tree.

/** Each judgement's glyph, as lichess marks the move. */
export const GLYPHS = Object.freeze({ inaccuracy: "?!", mistake: "?", blunder: "??" });
/** Each judgement's name, its plural and its singular in a sentence. */
export const JUDGEMENT_NAMES = Object.freeze({
  inaccuracy: ["Inaccuracy", "inaccuracies", "inaccuracy"],
  mistake: ["Mistake", "mistakes", "mistake"],
  blunder: ["Blunder", "blunders", "blunder"],
});
/** The judgements from the mildest. */
export const JUDGEMENT_ORDER = Object.freeze(["inaccuracy", "mistake", "blunder"]);
