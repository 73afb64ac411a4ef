// Keys that never die (pages/widgets/keys.py mounts this on every page).
//
// Streamlit binds a button's `shortcut=` to `document` and ignores a key whose target is an
// <input> of any type. Two ways a decision key then dies: a focused toggle or checkbox (an
// <input>), and a native <audio>/<video> control, whose keydown never reaches the page at all.
// Fix: this script presses the button that shows a key's shortcut itself, whatever has the
// focus (except a text field, which keeps its keys), and a media element that takes the focus
// by a click gives it back at once. A new question ignores decision keys for `cooldown_ms` and shows when it is ready.
// "P" plays (or pauses) every citation player of the page.

const STATE = (window.__murgatKeys = window.__murgatKeys || {
  installed: false,
  guards: 0, // mounted legends that guard a question (the annotate page)
  question: null,
  readyAt: 0,
  pendingSince: 0,
  cooldownMs: 0,
  timer: null,
  legends: new Set(),
  legendKeys: [],
});
const PENDING_LIMIT_MS = 4000; // a key that changed nothing must not lock the keys for good
const NOT_TEXT = new Set(["checkbox", "radio", "range", "button", "submit", "reset", "color", "file", "image"]);

function isTextField(el) {
  if (!el || !el.tagName) return false;
  if (el.isContentEditable) return true;
  if (el.tagName === "TEXTAREA" || el.tagName === "SELECT") return true;
  if (el.tagName !== "INPUT") return false;
  return !NOT_TEXT.has(String(el.type || "text").toLowerCase());
}

function shortcutButton(key) {
  if (!/^[a-z0-9]$/i.test(key)) return null;
  const hints = document.querySelectorAll(`[aria-label="Shortcut ${key.toUpperCase()}"]`);
  for (const hint of hints) {
    const button = hint.closest("button");
    if (button && !button.disabled) return button;
  }
  return null;
}

// Every decision key of the legend has its button on the page (Streamlit loads a button's code
// lazily: right after a page opens, a key can arrive before its button exists).
function buttonsThere() {
  return STATE.legendKeys.every((key) => shortcutButton(key));
}

function ready() {
  if (!STATE.guards) return true;
  if (!buttonsThere()) return false;
  if (STATE.pendingSince && performance.now() - STATE.pendingSince < PENDING_LIMIT_MS) return false;
  return performance.now() >= STATE.readyAt;
}

function showReadiness() {
  const isReady = ready();
  document.body.dataset.murgatReady = isReady ? "1" : "0";
  for (const legend of STATE.legends) {
    const mark = legend.querySelector(".murgat-ready");
    if (mark) mark.textContent = isReady ? "● ready" : "○ wait";
  }
  clearTimeout(STATE.timer);
  if (!isReady && !STATE.pendingSince) {
    STATE.timer = setTimeout(showReadiness, Math.max(50, STATE.readyAt - performance.now() + 5));
  }
}

export function players() {
  return [...document.querySelectorAll(".murgat-player")].filter((p) => p.murgatPlay);
}

function playOrPauseAll() {
  const all = players();
  const playing = all.filter((p) => p.murgatPlaying());
  if (playing.length) playing.forEach((p) => p.murgatPause());
  else all.forEach((p) => p.murgatPlay());
}

function onKeyDown(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  // The element as the page sees it: a native media control's inner parts count as its
  // <audio> or <video>.
  const target = event.target;
  if (isTextField(target)) return;
  if (event.key === "p" || event.key === "P") {
    if (players().length) {
      event.preventDefault();
      event.stopImmediatePropagation();
      playOrPauseAll();
    }
    return;
  }
  const button = shortcutButton(event.key);
  if (!button) return;
  if (!ready()) {
    event.preventDefault(); // too soon after a new question: ignored, and the legend says so
    event.stopImmediatePropagation();
    return;
  }
  if (STATE.guards) {
    STATE.pendingSince = performance.now(); // until the page has answered this key
    showReadiness();
  }
  // Press the button here, whatever has the focus: Streamlit's own listener ignores a key on an
  // <input>, a media control may take it before the focus is given back, and a key that arrives
  // while a button's listener is being set up would be lost.
  event.preventDefault();
  event.stopImmediatePropagation();
  if (target && ["INPUT", "AUDIO", "VIDEO"].includes(target.tagName)) target.blur();
  button.click();
}

let tabbedAt = -Infinity;
function onFocusIn(event) {
  const target = event.target;
  if (!target || !target.matches || !target.matches("audio, video")) return;
  // A click inside native controls reaches the page as a focus change only (no pointer event);
  // a keyboard user who tabbed into the controls keeps them.
  if (performance.now() - tabbedAt > 500) setTimeout(() => target.blur(), 0);
}

function install() {
  if (STATE.installed) return;
  STATE.installed = true;
  window.addEventListener("keydown", onKeyDown, true);
  window.addEventListener("keydown", (e) => e.key === "Tab" && (tabbedAt = performance.now()), true);
  document.addEventListener("focusin", onFocusIn, true);
}

// The decision's own words above the keys: where the person is, the question, what it is about.
function showHeader(parent, header) {
  const where = document.createElement("div");
  where.className = "murgat-where";
  const stage = document.createElement("b");
  stage.textContent = header.stage;
  where.append(stage, ` · ${header.where}`);
  const wording = document.createElement("div");
  wording.className = "murgat-wording";
  wording.textContent = header.wording;
  const subject = document.createElement("div");
  subject.className = header.subject_class;
  subject.textContent = header.subject;
  parent.append(where, wording, subject);
  if (header.note) {
    const note = document.createElement("div");
    note.className = "murgat-note";
    note.textContent = header.note;
    parent.append(note);
  }
}

function showLegend(parent, legend, withPlayAll) {
  const strip = document.createElement("div");
  strip.className = "murgat-legend";
  strip.setAttribute("aria-label", "Keyboard keys");
  for (const [key, what] of legend) {
    const item = document.createElement("span");
    const kbd = document.createElement("kbd");
    kbd.textContent = key;
    item.append(kbd, " " + what);
    strip.append(item);
  }
  if (withPlayAll) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "murgat-play-all";
    button.textContent = "Play all together";
    button.addEventListener("click", playOrPauseAll);
    strip.append(button);
  }
  const mark = document.createElement("span");
  mark.className = "murgat-ready";
  mark.setAttribute("role", "status");
  strip.append(mark);
  parent.append(strip);
  STATE.legends.add(strip);
  return strip;
}

export default function ({ data, parentElement }) {
  install();
  const { question = null, cooldown_ms: cooldownMs = 0, legend = [], play_all: playAll = false } = data || {};
  const header = (data || {}).header || null;
  const guards = question !== null;
  if (guards) {
    STATE.guards += 1;
    STATE.legendKeys = legend.map(([key]) => key).filter((key) => /^[A-OQ-Z0-9]$/i.test(key));
    const now = performance.now();
    STATE.readyAt = question !== STATE.question ? now + cooldownMs : now;
    STATE.question = question;
    STATE.pendingSince = 0;
  }
  parentElement.replaceChildren();
  if (header) showHeader(parentElement, header);
  const strip = legend.length ? showLegend(parentElement, legend, playAll) : null;
  showReadiness();
  return () => {
    if (strip) STATE.legends.delete(strip);
    if (guards) STATE.guards -= 1;
  };
}
