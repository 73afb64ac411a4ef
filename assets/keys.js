// Keys that never die (pages/widgets/keys.py mounts this on every page).
//
// Streamlit binds a button's `shortcut=` to `document` and ignores a key whose target is an
// <input> of any type. Two ways a decision key then dies: a focused toggle or checkbox (an
// <input>), and a native <audio>/<video> control, whose keydown never reaches the page at all.
// Fix: this script presses the button that shows a key's shortcut itself, whatever has the
// focus (except a text field, which keeps its keys), and a media element that takes the focus
// by a click gives it back at once. A new question ignores decision keys for `cooldown_ms` and shows when it is ready.
// "P" plays (or pauses) every citation player of the page; the player keys (lead-in, loop, slow,
// frame step) go to assets/player.js. A key pressed while a popover (the guidelines) is open
// answers nothing.
//
// Stage 2 by keyboard: the first fact field takes the focus; Enter in a fact field goes to the
// next one, or adds a fact and focuses it; Escape leaves the field (for U and P); Ctrl+Enter
// confirms the facts with the text just typed.
// A Streamlit text field hands its text to the widget manager only when it loses the focus (or
// after a pause in typing); Streamlit's own Ctrl+Enter pressed Confirm first, so the confirm
// carried the text before the last keystrokes, and the text's own message, a moment later,
// reran the old question's fact list over the next question. Here Ctrl+Enter presses Confirm and
// then takes the focus off the field, in one go: the widget manager sends every update of a
// task as one message (under the first update's fragment, the decision's), so the confirm and
// the latest text reach the server together, whatever the timing of the keys.

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
// The player's evidence tools (assets/player.js): lead-in, loop, half speed, a frame back / on.
const PLAYER_TOOLS = {
  l: (keys) => keys.lead(),
  o: (keys) => keys.loop(),
  s: (keys) => keys.slow(),
  ",": (keys) => keys.step(-1),
  ".": (keys) => keys.step(1),
};
const PENDING_LIMIT_MS = 4000; // a key that changed nothing must not lock the keys for good
const NOT_TEXT = new Set(["checkbox", "radio", "range", "button", "submit", "reset", "color", "file", "image"]);

function isTextField(el) {
  if (!el || !el.tagName) return false;
  if (el.isContentEditable) return true;
  if (el.tagName === "TEXTAREA" || el.tagName === "SELECT") return true;
  if (el.tagName !== "INPUT") return false;
  return !NOT_TEXT.has(String(el.type || "text").toLowerCase());
}

const CONFIRM_HINT = "Ctrl + Enter"; // how Streamlit labels the `Ctrl+Enter` shortcut of a button

function shortcutButton(key) {
  if (!/^[a-z0-9]$/i.test(key) && key !== CONFIRM_HINT) return null;
  const hints = document.querySelectorAll(`[aria-label="Shortcut ${key.length === 1 ? key.toUpperCase() : key}"]`);
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

// The guidelines (or another popover) are open: keys belong to what is being read.
function popoverOpen() {
  return document.querySelector('[data-testid="stPopoverBody"]') !== null;
}

function factFields() {
  return [...document.querySelectorAll('.st-key-murgat_decision input[placeholder^="Fact "]')];
}

function buttonNamed(text) {
  return [...document.querySelectorAll(".st-key-murgat_decision button")].find(
    (b) => b.innerText.trim() === text && !b.disabled,
  );
}

// Focus what `find()` returns once it is there, and again if the page redraws it, until the page
// is idle with it focused; never taking the focus from something else the person chose (nor
// back from the body when they left the field themselves); gives up after PENDING_LIMIT_MS.
function focusWhenThere(find) {
  const until = performance.now() + PENDING_LIMIT_MS;
  let focused = null;
  const attempt = () => {
    const el = find();
    const active = document.activeElement;
    if (focused && focused.isConnected && active !== focused) return; // the person moved on
    if (el && active !== el && (!active || active === document.body)) {
      el.focus();
      focused = el;
    }
    const idle = document.querySelector('[data-test-script-state="notRunning"]') !== null;
    if ((el && document.activeElement === el && idle) || performance.now() > until) return;
    requestAnimationFrame(attempt);
  };
  attempt();
}

function touchScreen() {
  return window.matchMedia("(hover: none) and (pointer: coarse)").matches;
}

function confirmFacts(event) {
  const button = shortcutButton(CONFIRM_HINT);
  if (!button) return; // not stage 2: whatever else binds Ctrl+Enter has it
  event.preventDefault();
  event.stopImmediatePropagation();
  if (popoverOpen() || !ready()) return;
  if (STATE.guards) {
    STATE.pendingSince = performance.now();
    showReadiness();
  }
  button.click();
  const field = document.activeElement;
  if (isTextField(field)) field.blur(); // its text joins the confirm's message (see the top)
}

// Enter in a fact field: the next field, or (in the last, once it holds text) a new fact.
function nextFact(event, field) {
  const fields = factFields();
  const at = fields.indexOf(field);
  if (at < 0) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  if (at < fields.length - 1) {
    fields[at + 1].focus(); // the blur sends this field's text
    return;
  }
  const add = buttonNamed("Add a fact");
  if (!add || !field.value.trim()) return;
  add.click();
  field.blur(); // its text travels with the click
  focusWhenThere(() => factFields()[at + 1]);
}

function onKeyDown(event) {
  if (event.repeat) return;
  const plain = !event.ctrlKey && !event.metaKey && !event.altKey;
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.altKey) return confirmFacts(event);
  if (event.key === "Enter" && plain && !event.shiftKey) return nextFact(event, event.target);
  if (event.key === "Escape" && factFields().includes(event.target)) {
    event.target.blur(); // out of the fact (its text is sent): the decision keys work again
    return;
  }
  if (!plain) return;
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
  const tool = PLAYER_TOOLS[event.key.length === 1 ? event.key.toLowerCase() : ""];
  if (tool && players().length && window.__murgatPlayerKeys && !popoverOpen()) {
    event.preventDefault();
    event.stopImmediatePropagation();
    tool(window.__murgatPlayerKeys);
    return;
  }
  const button = shortcutButton(event.key);
  if (!button) return;
  if (popoverOpen() || !ready()) {
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
    // the keys of the decision's buttons (P and the player's tools press no button)
    STATE.legendKeys = legend
      .map(([key]) => key)
      .filter((key) => /^[A-Z0-9]$/i.test(key) && !PLAYER_TOOLS[key.toLowerCase()] && key.toUpperCase() !== "P");
    const now = performance.now();
    STATE.readyAt = question !== STATE.question ? now + cooldownMs : now;
    // A new stage-2 question: the first fact field takes the focus (not on a touch screen, where
    // a focused field opens the on-screen keyboard over the page).
    if (question !== STATE.question && question.endsWith("|facts") && !touchScreen()) {
      focusWhenThere(() => factFields()[0]);
    }
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
