// The sounds of a game, synthesised with Web Audio (no sound files): a move, a capture, a check and
// the end of the game; a mute switch that is remembered. The last sound played is written on
// `element.dataset.lastSound` (and a count on `dataset.sounds`) so a test can tell what was heard.

const MUTE_KEY = "ferrochess.play.muted";

/** Each sound as short tones: [frequency Hz, start s, duration s, gain, wave]. */
const SOUNDS = Object.freeze({
  move: [[520, 0, 0.07, 0.25, "triangle"]],
  capture: [
    [330, 0, 0.06, 0.3, "square"],
    [220, 0.05, 0.09, 0.25, "triangle"],
  ],
  check: [
    [880, 0, 0.08, 0.2, "sine"],
    [1175, 0.09, 0.12, 0.2, "sine"],
  ],
  end: [
    [523, 0, 0.14, 0.2, "sine"],
    [659, 0.14, 0.14, 0.2, "sine"],
    [784, 0.28, 0.3, 0.2, "sine"],
  ],
});

/** Which sound a move makes, from its SAN as the server wrote it: "#" or "+" a check, "x" a
 *  capture. (Reading the notation, not judging the move.) */
export function soundOfSan(san) {
  if (/[+#]$/.test(san)) return "check";
  if (san.includes("x")) return "capture";
  return "move";
}

export class Sounds {
  /** `element` carries the data attributes; `storage` (Storage-like or null) keeps the mute. */
  constructor(element, storage = null) {
    this.element = element;
    this.storage = storage;
    this.context = null;
    this.count = 0;
    let saved = null;
    try {
      saved = storage ? storage.getItem(MUTE_KEY) : null;
    } catch {
      saved = null;
    }
    this.muted = saved === "1";
    this.element.dataset.muted = String(this.muted);
  }

  setMuted(muted) {
    this.muted = Boolean(muted);
    this.element.dataset.muted = String(this.muted);
    try {
      if (this.storage) this.storage.setItem(MUTE_KEY, this.muted ? "1" : "0");
    } catch {
      // storage full or disabled: the switch holds for this page only
    }
  }

  /** Plays `name` ("move", "capture", "check", "end") unless muted. */
  play(name) {
    if (this.muted || !SOUNDS[name]) return false;
    this.count += 1;
    this.element.dataset.lastSound = name;
    this.element.dataset.sounds = String(this.count);
    const context = this.#context();
    if (!context) return true;
    const start = context.currentTime + 0.01;
    for (const [frequency, offset, duration, gain, wave] of SOUNDS[name]) {
      const oscillator = context.createOscillator();
      const envelope = context.createGain();
      oscillator.type = wave;
      oscillator.frequency.value = frequency;
      envelope.gain.setValueAtTime(0, start + offset);
      envelope.gain.linearRampToValueAtTime(gain, start + offset + 0.005);
      envelope.gain.exponentialRampToValueAtTime(0.0001, start + offset + duration);
      oscillator.connect(envelope).connect(context.destination);
      oscillator.start(start + offset);
      oscillator.stop(start + offset + duration + 0.02);
    }
    return true;
  }

  #context() {
    const AudioContext = globalThis.AudioContext || globalThis.webkitAudioContext;
    if (!AudioContext) return null;
    try {
      if (!this.context) this.context = new AudioContext();
      if (this.context.state === "suspended") this.context.resume().catch(() => {});
      return this.context;
    } catch {
      return null;
    }
  }
}
