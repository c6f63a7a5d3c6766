// The match's numbers: the first player's score (wins, draws, losses, points, Elo and normalized
// Elo with their 95% intervals, LOS) with the pentanomial (game pairs by the first player's
// points, fishtest's Ptnml(0-2)) and, with more than two players, the crosstable. Each function
// returns a card's contents from the kernel's state (ferrochess/match/live.py computes every
// number).

import { el } from "../ui/dom.js";
import { formatElo, formatInterval, formatPoints, percent } from "./format.js";

/** The pentanomial's cells: the first player's points in a pair, as fishtest orders them. */
const PAIR_POINTS = ["0", "½", "1", "1½", "2"];
const PAIR_NAMES = ["LL", "LD", "WL+DD", "WD", "WW"];

const stat = (label, value, detail = "", testid = null) => el("div", { class: "match-stat" },
  el("dt", {}, label),
  el("dd", { "data-testid": testid }, value),
  el("dd", { class: "match-stat-detail" }, detail));

/** The score card: `score` is state.score. The first player's wins, draws and losses, points,
 * Elo, normalized Elo and LOS, then the pentanomial. */
export function scoreContents(score) {
  const cell = (kind, count, word) => el("div", { class: `wdl-cell ${kind}`, "data-testid": kind },
    el("strong", {}, String(count)), el("span", {}, word));
  const against = score.second ? ` vs ${score.second}` : " vs the field";
  return [
    el("div", { class: "card-head" }, el("h2", {}, "Score"),
      el("span", { class: "score-of", title: `${score.first}${against}` }, score.first)),
    el("div", { class: "wdl", "data-testid": "wdl" },
      cell("wins", score.wins, "wins"), cell("draws", score.draws, "draws"), cell("losses", score.losses, "losses")),
    el("p", { class: "match-points", "data-testid": "points" },
      `${Number(score.points).toFixed(score.points % 1 ? 1 : 0)} / ${score.games}`,
      el("span", { class: "match-percent" }, score.games ? ` · ${percent(score.score)}` : "")),
    el("dl", { class: "match-stats" },
      stat("Elo", formatElo(score.elo), formatInterval(score.elo), "elo"),
      stat("nElo", formatElo(score.nelo), formatInterval(score.nelo), "nelo"),
      stat("LOS", percent(score.los), "", "los")),
    pentanomial(score),
    el("p", { class: "note" }, score.pairs
      ? `95% intervals, from ${score.pairs} game pair${score.pairs === 1 ? "" : "s"}; the bars count the pairs `
        + `by ${score.first}'s points.`
      : "Elo comes once a game pair is finished."),
  ];
}

/** The pentanomial: five bars, one per pair result (the first player's points in the pair),
 * scaled to the most common, and fishtest's Ptnml(0-2) line. */
export function pentanomial(score) {
  const counts = score.pentanomial || [0, 0, 0, 0, 0];
  const most = Math.max(1, ...counts);
  const bars = counts.map((count, index) => el("div", { class: "penta-cell", title: `${PAIR_NAMES[index]}: ${count}` },
    el("span", { class: "penta-count" }, String(count)),
    el("div", { class: "penta-track" },
      el("div", { class: `penta-bar p${index}`, style: `height: ${(100 * count) / most}%` })),
    el("span", { class: "penta-label" }, PAIR_POINTS[index])));
  return el("div", { class: "penta-block", "data-testid": "pentanomial" },
    el("p", { class: "penta-text", "data-testid": "ptnml" }, `Ptnml(0-2): ${counts.join(", ")}`),
    el("div", { class: "penta", role: "img", "aria-label": `Game pairs by points: ${counts.join(", ")}` }, ...bars));
}

/** The crosstable card: `table` is state.crosstable (players in standings order). */
export function crosstableContents(table) {
  const names = table.players;
  const head = el("tr", {}, el("th", { class: "rank" }, "#"), el("th", { class: "who" }, "Player"),
    ...names.map((name, index) => el("th", { class: "cell", title: name }, String(index + 1))),
    el("th", { class: "total" }, "Points"));
  const rows = names.map((name, row) => el("tr", {},
    el("td", { class: "rank" }, String(row + 1)),
    el("td", { class: "who", title: name }, name),
    ...table.cells[row].map((cell, column) => {
      if (row === column) return el("td", { class: "cell self" });
      if (!cell) return el("td", { class: "cell none" }, "");
      const share = cell.games ? cell.points / cell.games : 0.5;
      const kind = !cell.games ? "" : share > 0.5 ? "ahead" : share < 0.5 ? "behind" : "even";
      const title = `${name} vs ${names[column]}: ${formatPoints(cell.points)} / ${cell.games}`;
      return el("td", { class: `cell ${kind}`, title }, cell.games ? formatPoints(cell.points) : "·");
    }),
    el("td", { class: "total" }, `${formatPoints(table.points[row])}`,
      el("span", { class: "total-games" }, ` / ${table.games[row]}`))));
  return [
    el("h2", {}, "Crosstable"),
    el("table", { class: "crosstable", "data-testid": "crosstable" }, el("thead", {}, head), el("tbody", {}, ...rows)),
  ];
}
