// The training UI's DOM and its drawing (lichess's ui/puzzle view): the board left, the cards
// right: the puzzle (whose move, "Best move!", "Solved", "That's not the move" and the line, then
// "Next"), the player's rating with its change and the puzzles due, the puzzle's themes and its
// source game; when nothing is due, "Find puzzles in my games" and a link to play. It reads the
// controller (ctrl.js) and draws; the clicks go back to it. Tests find the controls by
// `data-action` and what is shown by `data-testid`; root.dataset.state is the controller's state.

import { el } from "../ui/dom.js";
import { lineText, moveNumber, rootPly } from "../ui/moves.js";

/** A rating whose deviation is above this is provisional (lichess's Glicko-2 threshold), unless
 * the server says so itself (`provisional`). */
export const PROVISIONAL_DEVIATION = 110;
const MINUTE_MS = 60_000;
const UNITS = [["day", 1440], ["hour", 60], ["minute", 1]];

const button = (action, text, attributes = {}) =>
  el("button", { type: "button", "data-action": action, ...attributes }, text);
const colorName = (color) => (color === "black" ? "Black" : "White");

/** The training UI's elements in `root`. */
export function buildLayout(root) {
  const board = el("div", { class: "board", "aria-label": "Chess board" });
  const turn = el("p", { class: "train-turn", "data-testid": "turn", "aria-live": "polite" });
  const boardArea = el("div", { class: "board-area" },
    el("div", { class: "board-row" }, el("div", { class: "board-frame" }, board)), turn);

  const feedback = el("p", { class: "train-feedback", "data-testid": "feedback", role: "status", "aria-live": "polite" });
  const solution = el("p", { class: "train-solution", "data-testid": "solution", hidden: true });
  const attempt = el("p", { class: "train-attempt", "data-testid": "attempt", role: "status", hidden: true });
  const retryAttempt = button("retry-attempt", "Try again", { hidden: true });
  const next = button("next", "Next", { class: "primary", title: "The next puzzle (n)", hidden: true });
  const puzzleCard = el("section", { class: "card train-puzzle", "aria-label": "Puzzle", "data-panel": "puzzle" },
    el("h2", {}, "Puzzle"), feedback, solution, attempt, el("div", { class: "button-row" }, retryAttempt, next));

  const rating = el("strong", { class: "train-rating", "data-testid": "rating" });
  const change = el("span", { class: "train-change", "data-testid": "rating-change" });
  const due = el("p", { class: "train-due", "data-testid": "due" });
  const schedule = el("p", { class: "train-schedule", "data-testid": "schedule", hidden: true });
  const ratingCard = el("section", { class: "card train-score", "aria-label": "Your rating", "data-panel": "rating" },
    el("h2", {}, "Your puzzle rating"), el("p", { class: "train-rating-row" }, rating, " ", change), due, schedule);

  const themes = el("ul", { class: "train-themes", "data-testid": "themes" });
  const source = el("p", { class: "train-source", "data-testid": "source" });
  const aboutCard = el("section", { class: "card train-about", "aria-label": "About this puzzle", "data-panel": "about", hidden: true },
    el("h2", {}, "About this puzzle"), themes, source);

  const emptyText = el("p", { class: "train-empty-text", "data-testid": "empty" });
  const mined = el("p", { class: "train-mined", "data-testid": "mined", role: "status", hidden: true });
  const busyText = el("span", { "data-testid": "busy" });
  const busy = el("p", { class: "train-busy", role: "status", hidden: true },
    el("span", { class: "spinner", "aria-hidden": "true" }), busyText);
  const mine = button("mine", "Find puzzles in my games", { class: "primary" });
  const play = el("a", { class: "train-play", "data-testid": "play-a-game", hidden: true }, "Play a game");
  const emptyCard = el("section", { class: "card train-empty", "aria-label": "Nothing due", "data-panel": "empty", hidden: true },
    el("h2", {}, "Nothing to solve"), emptyText, mined, busy, el("div", { class: "button-row" }, mine, play));

  const messageText = el("span");
  const retry = button("retry", "Try again");
  const message = el("p", { class: "message", "data-kind": "error", role: "alert", hidden: true }, messageText, retry);

  root.classList.add("fc-play", "fc-train");
  root.dataset.state = "loading";
  root.replaceChildren(boardArea,
    el("div", { class: "side" }, message, puzzleCard, emptyCard, ratingCard, aboutCard));
  if (!root.hasAttribute("tabindex")) root.tabIndex = 0;
  return { board, turn, feedback, solution, attempt, retryAttempt, next, puzzleCard, rating, change, due, schedule,
    ratingCard, themes, source, aboutCard, emptyText, mined, busy, busyText, mine, play, emptyCard, message, messageText, retry };
}

/** A rating as the page shows it: rounded, with its deviation while provisional ("1500 ± 350"). */
export function formatRating(rating) {
  if (!rating || !Number.isFinite(Number(rating.rating))) return "–";
  const value = Math.round(Number(rating.rating));
  const deviation = Number(rating.deviation);
  const provisional = typeof rating.provisional === "boolean" ? rating.provisional
    : Number.isFinite(deviation) && deviation > PROVISIONAL_DEVIATION;
  return provisional && Number.isFinite(deviation) ? `${value} ± ${Math.round(deviation)}` : String(value);
}

/** A rating's change, signed: "+12", "−8", "±0" (the rounded difference). */
export function formatChange(before, after) {
  if (!before || !after) return "";
  const change = Math.round(Number(after.rating)) - Math.round(Number(before.rating));
  if (!Number.isFinite(change)) return "";
  return change > 0 ? `+${change}` : change < 0 ? `−${-change}` : "±0";
}

/** When a card is due again, in words: "now", "in 10 minutes", "in 3 days". */
export function describeDue(due, now = Date.now()) {
  const at = Date.parse(due);
  if (!Number.isFinite(at)) return null;
  const minutes = Math.round((at - now) / MINUTE_MS);
  if (minutes <= 0) return "now";
  for (const [unit, size] of UNITS) {
    if (minutes >= size) {
      const count = Math.round(minutes / size);
      return `in ${count} ${unit}${count === 1 ? "" : "s"}`;
    }
  }
  return "now";
}

/** A theme's name for a person: "hanging_piece" or "hangingPiece" -> "hanging piece",
 * "mateIn2" -> "mate in 2". */
export function themeName(theme) {
  return String(theme).replace(/_/g, " ").replace(/([a-z])([A-Z0-9])/g, "$1 $2").toLowerCase();
}

export class TrainView {
  constructor(root, ui, ctrl) {
    Object.assign(this, { root, ui, ctrl });
    ui.next.addEventListener("click", () => ctrl.next());
    ui.retry.addEventListener("click", () => ctrl.load());
    ui.retryAttempt.addEventListener("click", () => ctrl.retryAttempt());
    ui.mine.addEventListener("click", () => ctrl.mine());
  }

  render() {
    const { root, ui, ctrl } = this;
    const { state, puzzle } = ctrl;
    root.dataset.state = state;
    if (puzzle) root.dataset.puzzle = puzzle.id;
    else delete root.dataset.puzzle;
    const over = state === "solved" || state === "failed";
    const empty = state === "empty" || state === "mining";

    ui.message.hidden = state !== "error";
    ui.messageText.textContent = state === "error" ? `${ctrl.error} ` : "";
    ui.puzzleCard.hidden = empty || state === "error";
    ui.emptyCard.hidden = !empty;
    ui.aboutCard.hidden = !puzzle;
    ui.ratingCard.hidden = !ctrl.rating && !ctrl.counts;
    ui.turn.textContent = this.#turnWords();
    this.#feedback();
    ui.next.hidden = !over;
    this.#attempt();
    this.#rating();
    this.#about();
    this.#empty();
  }

  #turnWords() {
    const { state, solver } = this.ctrl;
    if (state === "loading") return "Loading the next puzzle…";
    if (state === "solving" || state === "checking") return `Your turn: find the best move for ${colorName(solver)}.`;
    if (state === "replying") return `${colorName(solver === "white" ? "black" : "white")} replies…`;
    return "";
  }

  #feedback() {
    const { ui, ctrl } = this;
    const words = { best: "Best move! Keep going…", solved: "Solved", wrong: "That's not the move" };
    ui.feedback.textContent = ctrl.feedback ? words[ctrl.feedback] : ctrl.puzzle ? "Find the best move." : "";
    ui.feedback.dataset.feedback = ctrl.feedback || "";
    const shown = ctrl.line && (ctrl.state === "failed" || ctrl.state === "solved");
    ui.solution.hidden = !shown;
    if (!shown) return;
    const line = lineText(ctrl.line.san, rootPly(ctrl.puzzle.fen));
    const wrong = ctrl.wrong ? `You played ${ctrl.wrong.san}. ` : "";
    ui.solution.textContent = `${wrong}The line: ${line}`;
  }

  #attempt() {
    const { ui, ctrl } = this;
    const attempt = ctrl.attempt;
    ui.attempt.hidden = !attempt || attempt.state === "sent";
    ui.retryAttempt.hidden = !attempt || attempt.state !== "error";
    ui.attempt.dataset.attempt = attempt ? attempt.state : "";
    if (attempt && attempt.state === "sending") ui.attempt.textContent = "Saving your result…";
    if (attempt && attempt.state === "error") ui.attempt.textContent = `Your result was not saved: ${attempt.error}`;
  }

  #rating() {
    const { ui, ctrl } = this;
    ui.rating.textContent = formatRating(ctrl.rating);
    ui.rating.dataset.rating = ctrl.rating ? String(Math.round(Number(ctrl.rating.rating))) : "";
    const result = ctrl.result;
    ui.change.textContent = !result ? "" : result.rated ? formatChange(result.before, result.after)
      : "(unrated: tried before)";
    ui.change.dataset.sign = result && result.rated ? ui.change.textContent.slice(0, 1) : "";
    const counts = ctrl.counts;
    ui.due.textContent = !counts ? ""
      : counts.total === 0 ? "No puzzles yet"
      : `${counts.due} puzzle${counts.due === 1 ? "" : "s"} due of ${counts.total}`;
    ui.due.dataset.due = counts ? String(counts.due) : "";
    const due = result && result.card ? describeDue(result.card.due) : null;
    ui.schedule.hidden = !due;
    ui.schedule.textContent = due ? `This puzzle comes back ${due}.` : "";
    ui.schedule.dataset.due = result && result.card ? String(result.card.due) : "";
  }

  #about() {
    const { ui, ctrl } = this;
    const puzzle = ctrl.puzzle;
    if (!puzzle) return;
    ui.themes.replaceChildren(...(puzzle.themes || []).map((theme) =>
      el("li", { class: "train-theme", "data-theme": theme }, themeName(theme))));
    const source = puzzle.source;
    if (!source) {
      ui.source.replaceChildren();
      return;
    }
    // PGN's placeholders ("?", "????.??.??") say nothing: a game without names is "the game".
    const known = (value) => (value && !/^[?.\s]*$/.test(value) ? value : null);
    const [white, black] = [known(source.white), known(source.black)];
    const names = white || black ? `${white || "?"} – ${black || "?"}` : "the game";
    const when = [known(source.date), Number.isInteger(source.ply) ? `move ${moveNumber(source.ply)}` : null]
      .filter(Boolean).join(", ");
    const url = source.game_id && this.ctrl.gameUrl ? this.ctrl.gameUrl(source.game_id) : null;
    ui.source.replaceChildren("From ",
      url ? el("a", { href: url, "data-testid": "source-game" }, names) : el("span", {}, names),
      when ? ` (${when})` : "");
  }

  #empty() {
    const { ui, ctrl } = this;
    const mining = ctrl.state === "mining";
    const counts = ctrl.counts;
    ui.emptyText.textContent = counts && counts.total
      ? "No puzzle is due now: come back later, or look for new ones in your latest games."
      : "No puzzle is due. Puzzles are made from the mistakes in the games you play here.";
    ui.mine.disabled = mining;
    ui.mine.setAttribute("aria-busy", mining ? "true" : "false");
    ui.busy.hidden = !mining;
    ui.busyText.textContent = mining ? ` ${busyWords(ctrl.mined)}` : "";
    ui.mined.hidden = !ctrl.mined || mining;
    ui.mined.textContent = ctrl.mined && !mining ? minedWords(ctrl.mined) : "";
    ui.play.hidden = !ctrl.playUrl;
    if (ctrl.playUrl) ui.play.href = ctrl.playUrl;
  }
}

const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** The search of the player's games while it runs (`mined`: {games, cards, left} so far). */
function busyWords(mined) {
  if (!mined || !mined.games) return "Looking for puzzles in your games…";
  return `Looking for puzzles in your games: ${plural(mined.games, "game")} searched, `
    + `${mined.left} left, ${plural(mined.cards, "puzzle")} found…`;
}

/** What the search of the player's games found, in words. */
function minedWords(mined) {
  if (!mined.games) return "No new games to look through: play a game here, then look again.";
  if (!mined.cards) return `No puzzles in ${plural(mined.games, "new game")}: play a few more and look again.`;
  return `Found ${plural(mined.cards, "new puzzle")} in ${plural(mined.games, "game")}.`;
}
