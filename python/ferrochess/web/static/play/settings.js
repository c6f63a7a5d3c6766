// The "New game" card: colour, level, clock, variant (standard or Chess960, from a position's
// number or a random one) and opening book. It reads the choices for the next
// game, shows a game's own settings (after a reload or a take-over), and hands each change that
// applies at once (the level, the book) to the controller (play_ctrl.js).

import { el } from "../ui/dom.js";
import { describeTimeControl } from "../ui/time_control.js";
import { TIME_CONTROLS, timeControl } from "./clock.js";
import { levelLabel } from "./panels.js";

export class SettingsForm {
  /** @param {object} ui layout.js's elements; @param {object} ctrl play_ctrl.js's PlayCtrl */
  constructor(ui, ctrl) {
    this.ui = ui;
    this.ctrl = ctrl;
    ui.time.addEventListener("change", () => {
      ui.custom.hidden = ui.time.value !== "custom";
    });
    ui.variant.addEventListener("change", () => {
      ui.chess960Row.hidden = ui.variant.value !== "chess960";
      this.showError(null);
    });
    ui.level.addEventListener("change", () => ctrl.setLevel(Number(ui.level.value)));
    ui.book.addEventListener("change", () => ctrl.setBook(ui.book.checked));
  }

  /** The server's levels as the level's options, `first` chosen. */
  setLevels(levels, first) {
    const ui = this.ui;
    ui.level.replaceChildren(...levels.map((level) => el("option", {
      value: level.number,
      "data-calibration": level.calibration,
      title: `depth ${level.max_depth ?? "unlimited"}, ${level.max_nodes ?? "unlimited"} nodes`,
    }, levelLabel(level))));
    ui.level.value = String(first);
  }

  /** The host's preset colour and book (the widget's options), where given. */
  preset({ color, book }) {
    if (color === "white" || color === "black" || color === "random") this.ui.color.value = color;
    if (typeof book === "boolean") this.ui.book.checked = book;
  }

  /** Says why no game started (a Chess960 position the server refused), or nothing (null). */
  showError(text) {
    this.ui.setupError.textContent = text || "";
  }

  /** The next game's settings: `{human, level, book, timeControl, chess960, position}` (a random
   *  colour drawn; `position`: the Chess960 start's number as typed, or "random" when empty). */
  read() {
    const ui = this.ui;
    const choice = ui.color.value;
    const human = choice === "random" ? (Math.random() < 0.5 ? "white" : "black") : choice;
    const control = timeControl(ui.time.value, { minutes: ui.customMinutes.value, increment: ui.customIncrement.value });
    const typed = ui.chess960Position.value.trim();
    return { human, level: Number(ui.level.value) || this.ctrl.game.level, book: ui.book.checked, timeControl: control,
      chess960: ui.variant.value === "chess960", position: typed || "random" };
  }

  /** Shows `game`'s settings in the form (its level where the server lists it). */
  show(game) {
    const ui = this.ui;
    if (this.ctrl.levels.some((level) => level.number === game.level)) ui.level.value = String(game.level);
    ui.book.checked = game.book;
    ui.variant.value = game.chess960 ? "chess960" : "standard";
    ui.chess960Row.hidden = !game.chess960;
    const control = game.timeControl;
    const preset = TIME_CONTROLS.find((entry) => {
      const value = timeControl(entry.id);
      return value && control && value.initial === control.initial && value.increment === control.increment;
    });
    ui.time.value = control ? (preset ? preset.id : "custom") : "none";
    if (control && !preset) {
      ui.customMinutes.value = String(control.initial / 60000);
      ui.customIncrement.value = String(control.increment / 1000);
    }
    ui.custom.hidden = ui.time.value !== "custom";
    ui.timeNote.textContent = `This game: ${describeTimeControl(control)}`;
  }
}
