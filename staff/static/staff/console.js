// The staff console (/staff/): the inbox by state with search, the conversations this staff
// member owns, and the notification when a customer starts waiting. Frames: docs/protocol.md
// ("Staff console"). Server text goes in with textContent only.
(() => {
  "use strict";
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const url = `${scheme}://${location.host}/ws/staff/`;
  const $ = (id) => document.getElementById(id);
  const list = $("queue");
  const empty = $("queue-empty");
  const notice = $("notice");
  const connection = $("connection");
  const panes = new Map();
  const TITLE = document.title;
  const EMPTY = { waiting: "Nobody is waiting.", mine: "You own no conversation.", open: "No conversation is open.", resolved: "Nothing resolved yet." };
  let socket;
  let lastTyping = 0;
  let state = "waiting";
  let query = "";
  let searchTimer = null;
  let positions = new Map();
  let waitingSeen = null; // the waiting conversations of the last queue frame (null: none yet)
  let colleagues = [];
  let savedReplies = [];

  const short = (id) => id.slice(0, 8);
  const send = (frame) => socket && socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(frame));
  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const waited = (seconds) => (seconds < 60 ? `${seconds} s` : seconds < 3600 ? `${Math.floor(seconds / 60)} min` : `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`);

  function askInbox() { send({ type: "inbox", state, query }); }

  function button(text, label, onClick) {
    const node = el("button", "", text);
    node.type = "button";
    if (label) node.setAttribute("aria-label", label);
    node.addEventListener("click", onClick);
    return node;
  }

  function renderInbox(items) {
    list.replaceChildren();
    empty.textContent = EMPTY[state];
    empty.hidden = items.length > 0;
    for (const item of items) {
      const li = el("li", item.status);
      li.dataset.present = item.present ? "yes" : "no";
      li.dataset.conversationId = item.conversationId;
      const where = item.status === "waiting"
        ? (item.present ? `#${positions.get(item.conversationId) ?? "?"} waiting` : "left the queue")
        : item.status === "resolved" ? "resolved" : `with ${item.takenBy}`;
      const meta = el("p", "meta", `${where} · ${short(item.conversationId)} · ${item.language} · ${item.from} · waited ${waited(item.waitedSeconds)} · `);
      meta.append(item.present ? el("span", "there", "there") : el("span", "gone", "gone (closed the chat)"));
      li.append(meta, el("p", "question", `“${item.lastQuestion}”`));
      if (item.lastMessage && item.lastMessage !== item.lastQuestion) li.append(el("p", "meta", `Last: ${item.lastMessage}`));
      if (item.status === "waiting") {
        li.append(button("Take", `Take conversation ${short(item.conversationId)}`, () => send({ type: "take", conversationId: item.conversationId })));
      } else if (item.status === "resolved") {
        li.append(button("Reopen", `Reopen conversation ${short(item.conversationId)}`, () => send({ type: "reopen", conversationId: item.conversationId })));
      }
      list.append(li);
    }
  }

  function onQueue(items) {
    positions = new Map(items.filter((i) => i.position).map((i) => [i.conversationId, i.position]));
    const waiting = items.filter((i) => i.status === "waiting" && i.present).map((i) => i.conversationId);
    $("waiting-count").textContent = waiting.length ? `(${waiting.length})` : "";
    document.title = waiting.length ? `(${waiting.length}) ${TITLE}` : TITLE;
    const arrived = waitingSeen === null ? [] : waiting.filter((id) => !waitingSeen.has(id));
    waitingSeen = new Set(waiting);
    if (arrived.length) {
      $("arrivals").textContent = `A customer started waiting (${waiting.length} waiting).`;
      if ($("sound").checked) chime();
    }
    askInbox();
  }

  function chime() {
    try {
      const audio = new (window.AudioContext || window.webkitAudioContext)();
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = 880;
      gain.gain.value = 0.1;
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.25);
    } catch (error) { /* no audio here: the badge and the status still say it */ }
  }

  function line(pane, role, text, by) {
    const who = { user: "Customer", assistant: "Agent", staff: "You", event: "·", note: `Note${by ? ` (${by})` : ""}` }[role] || role;
    const p = el("p", role, `${who}: ${text}`);
    pane.log.append(p);
    pane.log.scrollTop = pane.log.scrollHeight;
  }

  function fillSelects(pane) {
    const chooser = pane.node.querySelector(".colleague");
    chooser.replaceChildren(...colleagues.map((c) => { const o = el("option", "", c.name); o.value = c.id; return o; }));
    pane.node.querySelector(".steps").hidden = false;
    pane.node.querySelector(".assign").disabled = colleagues.length === 0;
    const saved = pane.node.querySelector(".saved-replies");
    saved.replaceChildren(el("option", "", "Choose…"), ...savedReplies.map((r) => { const o = el("option", "", r.title); o.value = r.id; return o; }));
    saved.firstChild.value = "";
  }

  function openPane(conversationId, history) {
    let pane = panes.get(conversationId);
    if (!pane) {
      const node = $("conversation-template").content.firstElementChild.cloneNode(true);
      const title = `Conversation ${short(conversationId)}`;
      node.setAttribute("aria-label", title);
      node.querySelector("h2").textContent = title;
      pane = {
        node,
        log: node.querySelector(".log"),
        typing: node.querySelector(".typing"),
        input: node.querySelector(".reply textarea"),
        presence: node.querySelector(".presence"),
        flag: node.querySelector(".flag"),
        flagged: null,
      };
      pane.log.setAttribute("aria-label", `Messages of ${title}`);
      node.querySelector(".reply").addEventListener("submit", (event) => {
        event.preventDefault();
        const text = pane.input.value.trim();
        if (text) send({ type: "message", conversationId, text });
      });
      node.querySelector(".send-anyway").addEventListener("click", () => {
        if (pane.flagged) send({ type: "message", conversationId, text: pane.flagged, overFlag: true });
      });
      pane.input.addEventListener("input", () => {
        pane.flag.hidden = true;
        const now = Date.now();
        if (now - lastTyping > 2000) { lastTyping = now; send({ type: "typing", conversationId }); }
      });
      node.querySelector(".saved-replies").addEventListener("change", (event) => {
        const reply = savedReplies.find((r) => String(r.id) === event.target.value);
        if (reply) { pane.input.value = reply.text; pane.input.focus(); }
        event.target.value = "";
      });
      node.querySelector(".note-form").addEventListener("submit", (event) => {
        event.preventDefault();
        const box = node.querySelector(".note");
        const text = box.value.trim();
        if (text && send({ type: "note", conversationId, text })) box.value = "";
      });
      node.querySelector(".assign").addEventListener("click", () => {
        const to = Number(node.querySelector(".colleague").value);
        if (to) send({ type: "assign", conversationId, to });
      });
      node.querySelector(".resolve").addEventListener("click", () => send({ type: "resolve", conversationId }));
      node.querySelector(".hand-back").addEventListener("click", () => send({ type: "hand_back", conversationId }));
      panes.set(conversationId, pane);
      fillSelects(pane);
      $("conversations").append(node);
    }
    pane.log.replaceChildren();
    for (const row of history) line(pane, row.status === "note" ? "note" : row.role, row.text);
    return pane;
  }

  function showPresence(pane, present) {
    pane.presence.textContent = present ? "" : "The customer has gone: they closed the chat and will not see what you write until they come back.";
  }

  const inPane = (f, then) => { const pane = panes.get(f.conversationId); if (pane) then(pane); };
  const handlers = {
    queue: (f) => onQueue(f.items),
    inbox: (f) => { if (f.state === state && f.query === query) renderInbox(f.items); },
    workspace: (f) => { colleagues = f.colleagues; savedReplies = f.savedReplies; panes.forEach(fillSelects); },
    conversation: (f) => showPresence(openPane(f.conversationId, f.history), f.customerPresent !== false),
    customer_presence: (f) => inPane(f, (pane) => showPresence(pane, f.present)),
    take_failed: (f) => { notice.textContent = `${short(f.conversationId)} was taken by ${f.takenBy || "someone else"}.`; },
    sent: (f) => inPane(f, (pane) => { line(pane, "staff", f.text); pane.input.value = ""; pane.flag.hidden = true; pane.flagged = null; }),
    flagged: (f) => inPane(f, (pane) => {
      const numbers = f.unsupported.map((u) => u.text || u.value || "").filter(Boolean).join(", ");
      pane.flag.querySelector(".flag-text").textContent = `Not sent: the KB does not state ${numbers || "this number"} about its subject. Check it, or send it anyway.`;
      pane.flag.hidden = false;
      pane.flagged = f.text;
    }),
    note: (f) => inPane(f, (pane) => line(pane, "note", f.text, f.by)),
    customer_message: (f) => inPane(f, (pane) => { pane.typing.textContent = ""; line(pane, "user", f.text); }),
    customer_typing: (f) => inPane(f, (pane) => {
      pane.typing.textContent = "The customer is typing…";
      clearTimeout(pane.typingTimer);
      pane.typingTimer = setTimeout(() => { pane.typing.textContent = ""; }, 4000);
    }),
    closed: (f) => inPane(f, (pane) => { pane.node.remove(); panes.delete(f.conversationId); }),
    error: (f) => { notice.textContent = f.message; },
  };

  document.querySelectorAll(".states button").forEach((node) => node.addEventListener("click", () => {
    state = node.dataset.state;
    document.querySelectorAll(".states button").forEach((b) => b.setAttribute("aria-pressed", String(b === node)));
    askInbox();
  }));
  $("search-form").addEventListener("submit", (event) => { event.preventDefault(); query = $("search").value.trim(); askInbox(); });
  $("search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => { query = $("search").value.trim(); askInbox(); }, 250);
  });

  function connect() {
    socket = new WebSocket(url);
    socket.addEventListener("open", () => { connection.textContent = "live"; });
    socket.addEventListener("message", (event) => {
      const frame = JSON.parse(event.data);
      (handlers[frame.type] || (() => {}))(frame);
    });
    socket.addEventListener("close", () => {
      connection.textContent = "reconnecting…";
      setTimeout(connect, 2000);
    });
  }
  connect();
})();
