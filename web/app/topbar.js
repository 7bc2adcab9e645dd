// The top bar: document name and kind, the connection's state, the people present, the undo note.

const STATE_TEXT = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', failed: 'offline' };

export class TopBar {
  constructor(root = document) {
    this.nameEl = root.getElementById('doc-name');
    this.stateEl = root.getElementById('conn-state');
    this.peopleEl = root.getElementById('people');
    this.noteEl = root.getElementById('undo-note');
    this.noteTimer = 0;
  }

  setDocument(name, kind) {
    const what = { svg: 'drawing', sfd: 'font', lottie: 'animation' }[kind] || '';
    this.nameEl.textContent = what ? `${name} · ${what}` : name;
    document.title = `${name} · Ensemble`;
  }

  setState(state) {
    this.stateEl.dataset.state = state;
    this.stateEl.textContent = STATE_TEXT[state] || state;
  }

  setPeople(people, mySite) {
    const frag = document.createDocumentFragment();
    for (const p of people) {
      const li = document.createElement('li');
      li.className = 'person' + (String(p.site) === String(mySite) ? ' me' : '');
      li.dataset.site = p.site;
      const dot = document.createElement('span');
      dot.className = 'dot';
      dot.style.background = p.colour;
      const name = document.createElement('span');
      name.className = 'person-name';
      name.textContent = p.name;
      li.append(dot, name);
      frag.append(li);
    }
    this.peopleEl.replaceChildren(frag);
  }

  // The note stays long enough to be read, and until the next one replaces it.
  note(text) {
    clearTimeout(this.noteTimer);
    this.noteEl.textContent = text;
    if (text) this.noteTimer = setTimeout(() => { this.noteEl.textContent = ''; }, 8000);
  }
}
