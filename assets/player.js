// The citation players of a page (pages/widgets/player.py), two side by side: each clip opens on
// the cited start frame, a scrub bar marks the cited span inside the padded clip, the time
// shown is the source's ("0:14.0 of 2:00"), and the sound view under an audio player carries a
// playhead that moves with playback. All text comes in `data` and is set as text, never as HTML.
//
// Evidence tools, for every player of the page at once (keys in assets/keys.js call
// `window.__murgatPlayerKeys`): playback starts a lead-in before the cited start (`lead_in_s`
// from the project, L cycles 0 / 1 / 2 s, never more than the clip's padding), O loops the cited
// span (with its lead-in), S plays at half speed, "," and "." step one frame back or on (paused).
const PREFS = (window.__murgatPlayerPrefs = window.__murgatPlayerPrefs || { leadIn: null, loop: false, slow: false });
const LEAD_INS = [0, 1, 2];
const LIVE = (window.__murgatLivePlayers = window.__murgatLivePlayers || new Set());

function applyAll() {
  LIVE.forEach((p) => p.murgatApply());
}

window.__murgatPlayerKeys = {
  lead() {
    const now = PREFS.leadIn ?? [...LIVE][0]?.murgatLeadDefault ?? 1;
    PREFS.leadIn = LEAD_INS[(LEAD_INS.indexOf(now) + 1) % LEAD_INS.length] ?? 0;
    applyAll();
  },
  loop() {
    PREFS.loop = !PREFS.loop;
    applyAll();
  },
  slow() {
    PREFS.slow = !PREFS.slow;
    applyAll();
  },
  step(direction) {
    LIVE.forEach((p) => p.murgatStep(direction));
  },
};

function clock(seconds, tenths) {
  const s = Math.max(0, seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  const sec = tenths ? rest.toFixed(1).padStart(4, "0") : String(Math.floor(rest)).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

function element(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

function decodeBytes(b64) {
  const raw = atob(b64);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function hexColour(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function palette(stops) {
  const colours = stops.map(hexColour);
  const out = [];
  for (let v = 0; v < 256; v++) {
    const x = (v / 255) * (colours.length - 1);
    const i = Math.min(colours.length - 2, Math.floor(x));
    const f = x - i;
    out.push(colours[i].map((c, k) => Math.round(c + (colours[i + 1][k] - c) * f)));
  }
  return out;
}

// Waveform (top third) and mel spectrogram (below, low bands at the bottom) of the clip's span,
// the cited span shaded, and the playhead.
function drawSound(canvas, sound, cited, position) {
  const width = canvas.clientWidth || 400;
  const height = canvas.clientHeight || 120;
  const ratio = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const waveH = Math.round(height * 0.35);
  if (!sound.image) {
    const { cols, rows, b64, colours } = sound.spectrogram;
    const values = decodeBytes(b64);
    const lut = palette(colours);
    const image = new ImageData(cols, rows);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const [red, green, blue] = lut[values[r * cols + c]];
        const at = ((rows - 1 - r) * cols + c) * 4;
        image.data.set([red, green, blue, 255], at);
      }
    }
    const off = document.createElement("canvas");
    off.width = cols;
    off.height = rows;
    off.getContext("2d").putImageData(image, 0, 0);
    sound.image = off;
  }
  ctx.imageSmoothingEnabled = true;
  ctx.drawImage(sound.image, 0, waveH, width, height - waveH);
  const { mins, maxs } = sound;
  ctx.fillStyle = "rgba(70, 70, 70, 0.9)";
  const mid = waveH / 2;
  for (let i = 0; i < maxs.length; i++) {
    const x = (i / maxs.length) * width;
    const top = mid - maxs[i] * mid;
    const bottom = mid - mins[i] * mid;
    ctx.fillRect(x, top, Math.max(1, width / maxs.length), Math.max(1, bottom - top));
  }
  const x0 = cited[0] * width;
  const x1 = Math.max(x0 + 2, cited[1] * width);
  ctx.fillStyle = "rgba(255, 215, 0, 0.30)";
  ctx.fillRect(x0, 0, x1 - x0, height);
  ctx.fillStyle = "#d62728";
  ctx.fillRect(Math.round(position * width) - 1, 0, 2, height);
}

export default function ({ data, parentElement }) {
  parentElement.replaceChildren();
  const grid = element("div", "murgat-players");
  grid.dataset.count = String(data.players.length);
  parentElement.append(grid);
  const cleanups = data.players.map((d) => player(d, grid, data.autoplay));
  return () => cleanups.forEach((cleanup) => cleanup());
}

// Where the cited span lies in the clip, as fractions of the clip's length.
function spanOf(d) {
  const length = Math.max(0.001, d.clip_end_s - d.clip_start_s);
  const offset = Math.max(0, d.cited_start_s - d.clip_start_s);
  const end = Math.min(1, Math.max(0, d.cited_end_s - d.clip_start_s) / length);
  return { length, offset, fraction: [offset / length, end] };
}

function mediaElement(d) {
  const media = document.createElement(d.kind === "video" ? "video" : "audio");
  // Fetched a moment after the page has settled (or at once when played), so that loading the
  // clips never delays the decision's page; until then a video shows its poster, the cited frame.
  media.preload = "none";
  media.src = d.url;
  if (d.kind === "video") {
    media.muted = true;
    media.playsInline = true;
    if (d.poster) media.poster = d.poster;
    media.className = "murgat-player-video";
  }
  return media;
}

// The player's parts: its label and source time, the media, a play button and a scrub bar with
// the cited span marked, and (audio, with sound) the sound view.
function playerParts(d, span) {
  const box = element("div", `murgat-player murgat-kind-${d.kind}`);
  box.dataset.citation = d.label;
  const head = element("div", "murgat-player-head");
  const time = element("span", "murgat-player-time");
  const modes = element("span", "murgat-player-modes");
  head.append(element("span", "murgat-player-label", d.label), modes, time);
  const media = mediaElement(d);
  const play = element("button", "murgat-player-play", "▶");
  play.type = "button";
  play.setAttribute("aria-label", `Play ${d.label}`);
  const scrub = element("div", "murgat-player-scrub");
  scrub.setAttribute("role", "slider");
  scrub.tabIndex = 0;
  scrub.setAttribute("aria-label", `Position in ${d.label}`);
  const cited = element("div", "murgat-player-cited");
  cited.style.left = `${span.fraction[0] * 100}%`;
  cited.style.width = `${Math.max(0.8, (span.fraction[1] - span.fraction[0]) * 100)}%`;
  cited.title = "the cited span";
  const playhead = element("div", "murgat-player-playhead");
  scrub.append(cited, playhead);
  const bar = element("div", "murgat-player-bar");
  bar.append(play, scrub);
  box.append(head, media, bar);
  let canvas = null;
  if (d.sound) {
    canvas = element("canvas", "murgat-player-sound");
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", `Waveform and spectrogram of ${d.label}, the cited part shaded`);
    box.append(canvas);
  }
  return { box, time, modes, media, play, scrub, playhead, canvas };
}

function seekable(scrub, media, duration, show) {
  const seekTo = (clientX) => {
    const rect = scrub.getBoundingClientRect();
    media.currentTime = Math.min(1, Math.max(0, (clientX - rect.left) / rect.width)) * duration();
    show();
  };
  scrub.addEventListener("pointerdown", (event) => {
    scrub.setPointerCapture(event.pointerId);
    seekTo(event.clientX);
    const move = (e) => seekTo(e.clientX);
    const up = () => {
      scrub.removeEventListener("pointermove", move);
      scrub.removeEventListener("pointerup", up);
    };
    scrub.addEventListener("pointermove", move);
    scrub.addEventListener("pointerup", up);
  });
  scrub.addEventListener("keydown", (event) => {
    const step = { ArrowLeft: -0.1, ArrowRight: 0.1, Home: -1e9, End: 1e9 }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    media.currentTime = Math.min(duration(), Math.max(0, media.currentTime + step));
  });
}

function player(d, parentElement, autoplay) {
  const span = spanOf(d);
  const { box, time, modes, media, play, scrub, playhead, canvas } = playerParts(d, span);
  parentElement.append(box);
  const duration = () => (isFinite(media.duration) && media.duration > 0 ? media.duration : span.length);
  const fraction = () => Math.min(1, media.currentTime / duration());
  const show = () => {
    time.textContent = `${clock(d.clip_start_s + media.currentTime, true)} of ${clock(d.media_duration_s, false)}`;
    playhead.style.left = `${fraction() * 100}%`;
    scrub.setAttribute("aria-valuetext", time.textContent);
    play.textContent = media.paused ? "▶" : "❚❚";
    play.setAttribute("aria-label", `${media.paused ? "Play" : "Pause"} ${d.label}`);
    if (canvas) drawSound(canvas, d.sound, span.fraction, fraction());
  };
  // Where playback starts: the lead-in before the cited start (within the clip's padding).
  const leadIn = () => Math.min(span.offset, Math.max(0, PREFS.leadIn ?? d.lead_in_s ?? 0));
  const startAt = () => span.offset - leadIn();
  // The loop's end: the cited end (a point: half a second after it), within the clip.
  const loopEnd = () => Math.min(duration(), Math.max(d.cited_end_s - d.clip_start_s, span.offset + 0.5));
  let atRest = true; // on the cited start as opened (or after an end): play starts with the lead-in
  let frame = 0;
  const tick = () => {
    if (PREFS.loop && !media.paused && media.currentTime >= loopEnd()) media.currentTime = startAt();
    show();
    frame = media.paused ? 0 : requestAnimationFrame(tick);
  };
  const toCited = () => {
    media.currentTime = Math.min(span.offset, duration());
    atRest = true;
  };
  media.addEventListener("loadedmetadata", () => {
    toCited();
    show();
  });
  media.addEventListener("play", () => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(tick);
  });
  for (const name of ["pause", "seeked", "ended"]) media.addEventListener(name, show);
  box.murgatPlay = () => {
    if (atRest || media.ended || media.currentTime >= duration() - 0.05) media.currentTime = startAt();
    atRest = false;
    media.playbackRate = PREFS.slow ? 0.5 : 1;
    return media.play().catch(() => undefined);
  };
  box.murgatLeadDefault = d.lead_in_s ?? 0;
  box.murgatApply = () => {
    media.playbackRate = PREFS.slow ? 0.5 : 1;
    const on = [`lead-in ${leadIn().toFixed(leadIn() % 1 ? 1 : 0)} s`];
    if (PREFS.loop) on.push("loop");
    if (PREFS.slow) on.push("0.5×");
    modes.textContent = on.join(" · ");
  };
  box.murgatStep = (direction) => {
    media.pause();
    atRest = false;
    media.currentTime = Math.min(duration(), Math.max(0, media.currentTime + direction / (d.fps || 25)));
  };
  box.murgatApply();
  LIVE.add(box);
  media.addEventListener("ended", () => {
    if (PREFS.loop) box.murgatPlay();
  });
  box.murgatPause = () => media.pause();
  box.murgatPlaying = () => !media.paused && !media.ended;
  play.addEventListener("click", () => (media.paused ? box.murgatPlay() : media.pause()));
  scrub.addEventListener("pointerdown", () => (atRest = false));
  seekable(scrub, media, duration, show);
  const resize = canvas ? new ResizeObserver(show) : null;
  if (resize) resize.observe(canvas);
  time.textContent = `${clock(d.cited_start_s, true)} of ${clock(d.media_duration_s, false)}`;
  playhead.style.left = `${span.fraction[0] * 100}%`;
  if (canvas) drawSound(canvas, d.sound, span.fraction, span.fraction[0]);
  if (autoplay) box.murgatPlay();
  const fetchLater = setTimeout(() => {
    if (media.paused && media.readyState === 0) {
      media.preload = "auto";
      media.load();
    }
  }, 400);
  return () => {
    LIVE.delete(box);
    clearTimeout(fetchLater);
    cancelAnimationFrame(frame);
    if (resize) resize.disconnect();
    media.pause();
    media.removeAttribute("src");
    media.load();
  };
}
