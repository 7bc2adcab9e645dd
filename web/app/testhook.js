// window.ensembleTest: what the browser tests and the benchmark read and drive. Harmless in use:
// it only reads state, and cutFor is the client's own test hook.

export function installTestHook(client, bar, orchestra, view) {
  Object.assign(window.ensembleTest, {
    client,
    state: () => client.state,
    kind: () => client.kind(),
    docHash: () => client.docHash(),
    seq: () => client.seq(),
    pending: () => client.pending(),
    site: () => String(client.site()),
    presenceNames: () => Array.from(document.querySelectorAll('#people .person-name'), e => e.textContent),
    undoNote: () => document.getElementById('undo-note').textContent,
    cutFor: ms => client.cutFor(ms),
    tones: () => orchestra.played,
    lastTone: () => orchestra.last,
    view,
  });
}
