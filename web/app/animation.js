// The animation view: the session's animation played by lottie-web (its light build: SVG, no
// expressions), a frame slider, and the keyframe timeline (timeline.js) whose drags are the
// library's Lottie edits. Others' selected layers are marked in the timeline, their pointers drawn
// over the player in the animation's own coordinates.

import { timelineOf, forPlayer } from './lottie_model.js';
import { Timeline } from './timeline.js';
import { cursor, others, onDocument } from './presence.js';

let playerLoad = null;
// lottie-web is a classic script (it sets window.lottie): loaded once, when an animation is opened.
function loadPlayer() {
  if (!playerLoad) {
    playerLoad = new Promise((resolve, reject) => {
      if (window.lottie) { resolve(window.lottie); return; }
      const s = document.createElement('script');
      s.src = new URL('../vendor/lottie_light.min.js', import.meta.url).href;
      s.onload = () => (window.lottie ? resolve(window.lottie) : reject(new Error('the player did not load')));
      s.onerror = () => reject(new Error('the player (vendor/lottie_light.min.js) is not in this build'));
      document.head.append(s);
    });
  }
  return playerLoad;
}

export class AnimationView {
  // note(text): a line in the top bar, for an edit the library refused
  constructor(client, host, onError, note) {
    this.client = client;
    this.onError = onError;
    this.note = note;
    this.model = null;
    this.frame = null;
    this.playing = false;
    this.anim = null;
    this.lottie = null;
    this.lastPointer = 0;
    this.shown = 0; // players made: one per document change

    const bar = document.createElement('div');
    bar.className = 'toolbar';
    bar.innerHTML = `<button id="anim-play" title="Play or pause (Space)">Play</button>
      <input type="range" id="anim-slider" min="0" max="1" step="1" value="0" aria-label="frame">
      <span id="anim-frame" class="anim-frame">frame 0</span>
      <span class="sel-info" id="anim-sel"></span>`;
    this.playButton = bar.querySelector('#anim-play');
    this.slider = bar.querySelector('#anim-slider');
    this.frameLabel = bar.querySelector('#anim-frame');
    this.selInfo = bar.querySelector('#anim-sel');
    this.playButton.addEventListener('click', () => this.setPlaying(!this.playing));
    this.slider.addEventListener('input', () => this.seek(Number(this.slider.value)));

    const body = document.createElement('div');
    body.className = 'anim';
    this.stage = document.createElement('div');
    this.stage.className = 'anim-stage';
    this.player = document.createElement('div');
    this.player.className = 'anim-player';
    this.player.id = 'anim-player';
    this.overlay = document.createElement('div');
    this.overlay.className = 'overlay';
    this.stage.append(this.player, this.overlay);
    body.append(this.stage);
    host.replaceChildren(bar, body);
    this.timeline = new Timeline(body, {
      seek: f => this.seek(f),
      moveKey: (address, t, newT) => this.edit(() => this.client.lottieMoveKeyframe(address, t, newT)),
      shiftLayer: (address, dt) => this.edit(() => this.client.lottieShiftLayer(address, dt)),
      select: layer => this.select(layer),
    });
    this.stage.addEventListener('pointermove', this.moveHandler = e => this.pointer(e));
    this.stage.addEventListener('pointerleave', () => this.client.clearPointer());

    this.render();
    loadPlayer().then(lottie => { this.lottie = lottie; this.render(); },
                      err => { this.player.innerHTML = ''; this.player.append(message(err.message)); });
  }

  destroy() {
    this.anim?.destroy();
    this.anim = null;
  }

  edit(fn) {
    try { fn(); } catch (err) { this.note(err.message); }
  }

  render() {
    let data;
    try { data = JSON.parse(this.client.lottieText()); } catch (err) {
      this.onError('The animation cannot be read: ' + err.message);
      return;
    }
    const model = timelineOf(data);
    for (const l of model.layers) l.id = this.client.lottieFind(l.address);
    this.model = model;
    if (this.frame === null) this.frame = model.ip;
    this.frame = Math.min(Math.max(this.frame, model.ip), model.op);
    this.slider.min = String(model.ip);
    this.slider.max = String(model.op);
    this.player.style.aspectRatio = `${model.w > 0 ? model.w : 1} / ${model.h > 0 ? model.h : 1}`;
    this.timeline.update(model);
    this.showFrame(this.frame);
    if (this.lottie) this.play(forPlayer(data));
    this.drawPresence();
  }

  // A new player for the changed document, at the frame the old one was showing.
  play(data) {
    this.anim?.destroy();
    this.player.replaceChildren();
    this.anim = this.lottie.loadAnimation({
      container: this.player, renderer: 'svg', loop: true, autoplay: false, animationData: data,
      rendererSettings: { preserveAspectRatio: 'xMidYMid meet', progressiveLoad: false },
    });
    this.shown++;
    this.anim.addEventListener('enterFrame', () => {
      if (this.playing) this.showFrame(Math.round(this.model.ip + this.anim.currentFrame));
    });
    const at = this.frame - this.model.ip;
    if (this.playing) this.anim.goToAndPlay(at, true);
    else this.anim.goToAndStop(at, true);
  }

  showFrame(f) {
    this.frame = f;
    this.slider.value = String(f);
    this.frameLabel.textContent = `frame ${f}`;
    this.timeline.setFrame(f);
  }

  seek(f) {
    this.showFrame(f);
    if (!this.anim) return;
    if (this.playing) this.anim.goToAndPlay(f - this.model.ip, true);
    else this.anim.goToAndStop(f - this.model.ip, true);
  }

  setPlaying(on) {
    this.playing = on;
    this.playButton.textContent = on ? 'Pause' : 'Play';
    if (!this.anim) return;
    if (on) this.anim.goToAndPlay(this.frame - this.model.ip, true);
    else { this.anim.pause(); this.showFrame(Math.round(this.model.ip + this.anim.currentFrame)); }
  }

  select(layer) {
    this.client.setSelection(layer && layer.id ? [layer.id] : []);
    this.selInfo.textContent = layer ? layer.name : '';
  }

  // the animation's coordinates under the mouse (the player's SVG has the animation's viewBox)
  animPoint(e) {
    const svg = this.player.querySelector('svg'), m = svg && svg.getScreenCTM();
    if (!m) return null;
    return new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
  }

  pointer(e) {
    const now = performance.now();
    if (now - this.lastPointer < 40) return;
    const p = this.animPoint(e);
    if (!p) return;
    this.lastPointer = now;
    this.client.setPointer(p.x, p.y, '0');
  }

  drawPresence() {
    const people = others(this.client);
    this.timeline.drawPresence(people);
    const svg = this.player.querySelector('svg'), m = svg && svg.getScreenCTM();
    const origin = this.stage.getBoundingClientRect();
    const marks = [];
    for (const p of people) {
      if (!m || !p.pointer || !onDocument(p.pointer) || !Number.isFinite(p.pointer.x)) continue;
      const s = new DOMPoint(p.pointer.x, p.pointer.y).matrixTransform(m);
      const c = cursor(s.x - origin.left, s.y - origin.top, p.colour, p.name);
      c.dataset.site = String(p.site);
      marks.push(c);
    }
    this.overlay.replaceChildren(...marks);
  }

  key(e) {
    if (e.key === ' ') { e.preventDefault(); this.setPlaying(!this.playing); return true; }
    if (e.key === 'Escape') { this.timeline.select(null); return true; }
    return false;
  }
}

function message(text) {
  const p = document.createElement('p');
  p.className = 'error';
  p.textContent = text;
  return p;
}
