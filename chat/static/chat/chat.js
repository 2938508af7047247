// Chat page: one WebSocket, drafts streamed in, replaced by the authoritative response.
// Every text from the server is inserted with textContent, never as HTML.
(function () {
  "use strict";
  const log = document.getElementById("log");
  const form = document.getElementById("composer");
  const input = document.getElementById("input");
  const cancelBtn = document.getElementById("cancel");
  const statusEl = document.getElementById("status");
  const bubbles = new Map(); // messageId -> assistant bubble
  const actions = new Map(); // suggestionId -> action card
  let ws = null;
  let retry = 0;
  let streamingId = null;
  let counter = 0;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function scroll() { log.scrollTop = log.scrollHeight; }

  function setStatus(state, text) { statusEl.dataset.state = state; statusEl.textContent = text; }

  function setStreaming(id) {
    streamingId = id;
    cancelBtn.hidden = !id;
  }

  function addUser(text) {
    log.appendChild(el("li", "msg user", text));
    scroll();
  }

  function assistantBubble(messageId) {
    let bubble = bubbles.get(messageId);
    if (!bubble) {
      bubble = el("li", "msg assistant");
      bubble.dataset.messageId = messageId;
      bubble.appendChild(el("div", "text", ""));
      log.appendChild(bubble);
      bubbles.set(messageId, bubble);
    }
    return bubble;
  }

  function renderCitations(bubble, citations) {
    if (!citations || !citations.length) return;
    const list = el("ul", "citations");
    for (const c of citations) {
      const item = el("li");
      item.appendChild(el("span", "file", c.line ? c.file + ":" + c.line : c.file));
      item.appendChild(el("span", "snippet", c.snippet));
      list.appendChild(item);
    }
    bubble.appendChild(list);
  }

  function renderFeedback(bubble, messageId) {
    const box = el("div", "feedback");
    for (const [rating, label] of [["up", "👍"], ["down", "👎"]]) {
      const button = el("button", "", label);
      button.type = "button";
      button.dataset.rating = rating;
      button.setAttribute("aria-label", rating === "up" ? "Bra svar" : "Dåligt svar");
      button.addEventListener("click", () => {
        const comment = rating === "down" ? (window.prompt("Vad var fel? (valfritt)") || "") : "";
        send({ type: "feedback", messageId: messageId, rating: rating, comment: comment });
        for (const b of box.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b === button));
      });
      box.appendChild(button);
    }
    bubble.appendChild(box);
  }

  function renderResponse(msg) {
    const bubble = assistantBubble(msg.messageId);
    bubble.classList.remove("streaming");
    bubble.querySelector(".text").textContent = msg.text;
    bubble.dataset.status = msg.status || (msg.grounded ? "done" : "withheld");
    if (msg.status === "withheld" || msg.blocked) {
      bubble.classList.add("withheld");
      if (msg.blocked) bubble.appendChild(el("div", "blocked", msg.blocked));
    }
    renderCitations(bubble, msg.citations);
    renderFeedback(bubble, msg.messageId);
    if (window.ChatHandoff) window.ChatHandoff.offer(bubble, bubble.dataset.status);
    scroll();
  }

  function renderSuggestion(msg) {
    const card = el("li", "action");
    card.dataset.suggestionId = msg.suggestionId;
    card.appendChild(el("div", "title", "Förslag: " + msg.action));
    const payload = msg.payload || {};
    if (payload.phone) card.appendChild(el("div", "payload", "Telefon: " + payload.phone));
    const buttons = el("div", "buttons");
    const confirm = el("button", "confirm", "Bekräfta");
    const reject = el("button", "reject", "Avvisa");
    confirm.type = reject.type = "button";
    confirm.addEventListener("click", () => send({ type: "confirm_action", suggestionId: msg.suggestionId }));
    reject.addEventListener("click", () => send({ type: "reject_action", suggestionId: msg.suggestionId }));
    buttons.append(confirm, reject);
    card.appendChild(buttons);
    card.appendChild(el("div", "result", ""));
    log.appendChild(card);
    actions.set(msg.suggestionId, card);
    scroll();
  }

  function renderActionResult(msg) {
    const card = actions.get(msg.suggestionId);
    if (!card) return;
    const result = msg.result || {};
    card.querySelector(".result").textContent = result.message || "";
    card.dataset.success = String(!!result.success);
    for (const b of card.querySelectorAll("button")) b.disabled = true;
  }

  const handlers = {
    stream(msg) {
      const bubble = assistantBubble(msg.messageId);
      bubble.classList.add("streaming");
      bubble.querySelector(".text").textContent += msg.delta;
      setStreaming(msg.messageId);
      scroll();
    },
    stream_end(msg) {
      const bubble = assistantBubble(msg.messageId);
      bubble.classList.remove("streaming");
      if (msg.reason === "cancelled") {
        bubble.classList.add("cancelled");
        bubble.dataset.status = "cancelled";
      }
      setStreaming(null);
    },
    response: renderResponse,
    action_suggestion: renderSuggestion,
    action_executed: renderActionResult,
    action_rejected: renderActionResult,
    feedback_received() {},
    error(msg) {
      log.appendChild(el("li", "error", msg.message || msg.code));
      scroll();
    },
  };

  function send(frame) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
  }

  if (window.ChatHandoff) window.ChatHandoff.attach(send);

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + location.host + "/ws/chat/");
    setStatus("connecting", "Ansluter…");
    ws.addEventListener("open", () => { retry = 0; setStatus("open", "Ansluten"); });
    ws.addEventListener("message", (event) => {
      let msg;
      try { msg = JSON.parse(event.data); } catch (e) { return; }
      const handle = handlers[msg.type];
      if (handle) handle(msg);
      else if (window.ChatHandoff) window.ChatHandoff.handle(msg);
    });
    ws.addEventListener("close", () => {
      setStreaming(null);
      setStatus("closed", "Återansluter…");
      const delay = Math.min(10000, 500 * 2 ** retry++);
      setTimeout(connect, delay);
    });
  }

  async function loadHistory() {
    try {
      const response = await fetch("/history/", { credentials: "same-origin" });
      if (!response.ok) return;
      const data = await response.json();
      for (const m of data.messages) {
        if (m.role === "user") addUser(m.text);
        else renderResponse(m);
      }
      for (const s of data.suggestions || []) renderSuggestion(s);
    } catch (e) { /* history is a convenience; the chat works without it */ }
  }

  function submit(text) {
    text = text.trim();
    if (!text) return;
    const id = "m" + Date.now() + "_" + (++counter);
    addUser(text);
    send({ type: "message", id: id, text: text });
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submit(input.value);
    input.value = "";
  });
  cancelBtn.addEventListener("click", () => send({ type: "cancel" }));
  for (const chip of document.querySelectorAll(".chip")) {
    chip.addEventListener("click", () => submit(chip.dataset.text));
  }

  loadHistory().finally(connect);
})();
