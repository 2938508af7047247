// Chat page: one WebSocket; answers stream in as sanitised markdown and are
// replaced by the authoritative `response`. Plain server text goes in with
// textContent; markdown goes through marked, then DOMPurify (vendor/README.md).
// Every string shown comes from the page's catalog (chat/texts.py PAGE).
// In the website widget's frame (window.ChatWidgetFrame, widget-frame.js) the socket is
// /ws/widget/, whose first frame presents the conversation token, and the history comes
// with the token in an Authorization header: no cookie is needed.
(function () {
  "use strict";
  const T = JSON.parse(document.getElementById("chat-strings").textContent);
  const CONFIG = JSON.parse(document.getElementById("chat-config").textContent);
  const $ = (id) => document.getElementById(id);
  const WIDGET = CONFIG.widget ? window.ChatWidgetFrame : null;
  let refused = false; // the widget's token was refused: a new one is on its way
  const log = $("log"), scroller = $("scroller"), empty = $("empty"), form = $("composer");
  const input = $("input"), sendBtn = $("send"), statusEl = $("status"), banner = $("banner");
  const bannerText = $("banner-text"), jump = $("jump"), announcer = $("announcer");
  const bubbles = new Map(); // messageId -> assistant bubble
  const users = new Map(); // messageId -> user bubble
  const cards = new Map(); // suggestionId -> action card
  const outbox = []; // {id, text}: typed while offline, sent on reconnect
  const awaiting = new Map(); // messageId -> text: sent, no frame back yet
  const superseded = new Set(); // answers interrupted by a newer message
  const stopRequested = new Set(); // answers the reader stopped
  const unresolved = new Set(); // answers cut off by the connection: the recorded turn tells
  const following = new Set(); // answers of another tab, followed here (stream_sync)
  const resuming = new Map(); // messageId -> checks left: in progress at load, no frame yet
  let ws = null, attempt = 0, reconnectTimer = null, streamingId = null, counter = 0;
  let stick = true; // follow new text while the reader is at the bottom
  let everOpen = false;

  function fmt(template, values) {
    return template.replace(/\{(\w+)\}/g, (m, key) => (key in values ? String(values[key]) : m));
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function button(label, className, onClick) {
    const b = el("button", className || "", label);
    b.type = "button";
    if (onClick) b.addEventListener("click", onClick);
    return b;
  }

  // -- markdown, sanitised -------------------------------------------------
  const LINK_OK = /^(?:https?:|mailto:|tel:)/i;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      const href = node.getAttribute("href") || "";
      if (!LINK_OK.test(href)) node.removeAttribute("href");
      else { node.setAttribute("target", "_blank"); node.setAttribute("rel", "noopener noreferrer"); }
    }
  });
  const PURIFY = {
    ALLOWED_TAGS: ["p", "br", "ul", "ol", "li", "strong", "em", "b", "i", "a", "code", "pre", "blockquote"],
    ALLOWED_ATTR: ["href", "start"],
    ALLOWED_URI_REGEXP: LINK_OK,
  };
  function renderMarkdown(target, text) {
    const html = marked.parse(text, { gfm: true, breaks: true, async: false });
    target.innerHTML = DOMPurify.sanitize(html, PURIFY);
  }

  // -- scrolling -----------------------------------------------------------
  function atBottom() { return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 48; }
  function toBottom() { scroller.scrollTop = scroller.scrollHeight; stick = true; jump.hidden = true; }
  function follow() {
    empty.hidden = log.children.length > 0;
    if (stick) toBottom(); else jump.hidden = false;
  }
  scroller.addEventListener("scroll", () => { stick = atBottom(); if (stick) jump.hidden = true; });
  jump.addEventListener("click", () => { toBottom(); input.focus(); });

  // Phones: keep the input above the on-screen keyboard (visualViewport where dvh is not enough).
  if (window.visualViewport) {
    const fit = () => {
      document.documentElement.style.setProperty("--app-height", window.visualViewport.height + "px");
      if (stick) toBottom();
    };
    window.visualViewport.addEventListener("resize", fit);
    fit();
  }

  // -- connection state ------------------------------------------------------
  function setStatus(state) {
    statusEl.dataset.state = state;
    statusEl.textContent = state === "open" ? T.connected : state === "connecting" && !everOpen ? T.connecting : T.offline;
    const down = state === "closed" || (state !== "open" && everOpen);
    banner.hidden = !down;
    if (down && !bannerText.dataset.custom) bannerText.textContent = T.offline;
  }

  function setStreaming(id) {
    streamingId = id;
    log.setAttribute("aria-busy", id ? "true" : "false");
    const stop = !!id;
    sendBtn.dataset.mode = stop ? "stop" : "send";
    sendBtn.type = stop ? "button" : "submit";
    sendBtn.textContent = stop ? T.stop : T.send;
  }

  function announce(text) {
    announcer.textContent = "";
    window.setTimeout(() => { announcer.textContent = text; }, 50);
  }

  // -- user messages and delivery -----------------------------------------------
  function addUser(text, id, language) {
    const bubble = el("div", "msg user");
    bubble.dataset.messageId = id;
    bubble.appendChild(el("span", "visually-hidden", T.you + ": "));
    bubble.appendChild(el("span", "body", text));
    if (language) bubble.lang = language;
    log.appendChild(bubble);
    users.set(id, bubble);
    return bubble;
  }

  function setDelivery(id, state) {
    const bubble = users.get(id);
    if (!bubble) return;
    bubble.dataset.delivery = state;
    let note = bubble.querySelector(".note");
    if (state === "sent") { if (note) note.remove(); return; }
    if (!note) { note = el("span", "note"); bubble.appendChild(note); }
    note.textContent = state === "queued" ? T.queued : T.unsent;
    if (state === "unsent") {
      note.appendChild(button(T.retry, "", () => { deliver({ id: id, text: bubble.querySelector(".body").textContent }); }));
    }
  }

  function deliver(item) {
    if (ws && ws.readyState === WebSocket.OPEN) {
      if (streamingId) superseded.add(streamingId);
      // The page's language: a question whose words do not say is answered in it.
      ws.send(JSON.stringify({ type: "message", id: item.id, text: item.text, language: CONFIG.language }));
      awaiting.set(item.id, item.text);
      setDelivery(item.id, "sent");
      return true;
    }
    if (!outbox.some((o) => o.id === item.id)) outbox.push(item);
    setDelivery(item.id, "queued");
    return false;
  }

  function submit(text) {
    text = text.trim();
    if (!text) return;
    const id = "m" + Date.now().toString(36) + "_" + (++counter);
    addUser(text, id);
    stick = true;
    follow();
    deliver({ id: id, text: text });
    input.focus();
  }

  function sendFrame(frame) {
    if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(frame)); return true; }
    return false;
  }

  // -- assistant answers -------------------------------------------------------
  function assistantBubble(messageId) {
    let bubble = bubbles.get(messageId);
    if (!bubble) {
      bubble = el("div", "msg assistant");
      bubble.dataset.messageId = messageId;
      bubble.appendChild(el("span", "visually-hidden", T.assistant + ": "));
      const text = el("div", "text");
      bubble.appendChild(text);
      bubble._raw = "";
      // After its question, even when frames of a later turn arrived first.
      const question = users.get(messageId);
      if (question && question.parentNode === log) question.after(bubble); else log.appendChild(bubble);
      bubbles.set(messageId, bubble);
    }
    return bubble;
  }

  // Streamed text is re-rendered at most once a frame; a final render cancels a pending one.
  let pendingRender = null;
  function scheduleRender(bubble) {
    if (pendingRender) return;
    pendingRender = window.requestAnimationFrame(() => {
      pendingRender = null;
      renderMarkdown(bubble.querySelector(".text"), bubble._raw);
      follow();
    });
  }
  function cancelRender() {
    if (pendingRender) { window.cancelAnimationFrame(pendingRender); pendingRender = null; }
  }

  function clearExtras(bubble) {
    for (const node of bubble.querySelectorAll(".explain, .sources, .tools, .feedback-form, .mark, .lost")) node.remove();
  }

  const EXPLAIN = {
    withheld: ["withheldTitle", "withheldBody"],
    no_support: ["noSupportTitle", "noSupportBody"],
    error: ["errorTitle", null],
  };

  // The next steps under an answer we could not give. The hook for a handoff to a
  // person: a step {key, label, run} in NEXT_STEPS (e.g. run: () => sendFrame({type:
  // "handoff_request"})), shown when its key is in CONFIG.nextSteps (default below).
  const NEXT_STEPS = {
    rephrase: { label: T.stepRephrase, run: () => input.focus() },
    callback: { label: T.stepCallback, run: () => submit(T.callbackRequest) },
    ticket: { label: T.stepTicket, run: () => submit(T.ticketRequest) },
    person: { label: T.stepPerson, run: () => sendFrame({ type: "handoff_request" }) },
  };
  function nextSteps() {
    const keys = CONFIG.nextSteps || ["rephrase", "person", "callback", "ticket"];
    return keys.filter((key) => NEXT_STEPS[key]).map((key) => Object.assign({ key: key }, NEXT_STEPS[key]));
  }

  function renderExplanation(bubble, status, text) {
    const [titleKey, bodyKey] = EXPLAIN[status];
    const box = el("div", "explain");
    box.appendChild(el("strong", "", T[titleKey]));
    box.appendChild(el("p", "", text));
    if (bodyKey) box.appendChild(el("p", "", T[bodyKey]));
    box.appendChild(el("p", "", T.nextSteps));
    const steps = el("div", "steps");
    for (const step of nextSteps()) {
      const b = button(step.label, "", step.run);
      b.dataset.step = step.key || "";
      steps.appendChild(b);
    }
    box.appendChild(steps);
    return box;
  }

  function renderSources(bubble, citations) {
    const seen = new Set();
    const items = [];
    for (const c of citations || []) {
      const key = c.file + ":" + c.line;
      if (seen.has(key)) continue;
      seen.add(key);
      items.push(c);
    }
    if (!items.length) return;
    const box = el("div", "sources");
    box.appendChild(el("span", "label", T.sources));
    items.forEach((c, i) => {
      const title = c.title || (c.file || "").split("/").pop().replace(/\.md$/, "");
      const details = el("details", "source");
      details.dataset.file = c.file || "";
      details.dataset.line = String(c.line || "");
      details.dataset.lines = String((c.snippet || "").split("\n").length);
      const summary = el("summary");
      summary.appendChild(el("span", "num", String(i + 1)));
      summary.appendChild(el("span", "visually-hidden", fmt(T.source, { n: i + 1, title: "" })));
      summary.appendChild(el("span", "title", title));
      details.appendChild(summary);
      // The cited lines as text; markdown list and heading marks left out.
      const quote = el("blockquote", "", (c.snippet || "").replace(/^\s*(?:[-*+]\s+|#+\s+)/gm, ""));
      quote.setAttribute("aria-label", fmt(T.lines, { title: title }));
      details.appendChild(quote);
      // An imported page's citation opens the page it came from (http and https only).
      if (/^https?:\/\//i.test(c.url || "")) {
        const link = el("a", "source-link", fmt(T.openSource, { title: title }));
        link.href = c.url;
        link.target = "_blank";
        link.rel = "noopener noreferrer";
        details.appendChild(link);
      }
      box.appendChild(details);
    });
    bubble.appendChild(box);
  }

  // -- each number linked to its KB line ------------------------------------------
  // The response's `numbers` (docs/protocol.md) say which KB line each number of the text
  // comes from. Each number of the rendered answer becomes a link: to the source page of an
  // imported document, else to the answer's source of that line (opened and highlighted).
  // The numbers are found in the rendered text in order, as whole numbers; the links are
  // DOM nodes around the text nodes' own text (no HTML is built from the answer).
  function linkNumbers(bubble, numbers) {
    const items = (Array.isArray(numbers) ? numbers : [])
      .filter((n) => n && typeof n.text === "string" && n.text.trim() && n.file)
      .sort((a, b) => (a.start || 0) - (b.start || 0));
    if (!items.length) return;
    const text = bubble.querySelector(".text");
    const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
    let start = walker.nextNode();
    for (const n of items) {
      // From after the last link on; a number not found (split by markup) stays plain text.
      if (!start) return;
      walker.currentNode = start;
      for (let node = start; node; node = walker.nextNode()) {
        const at = node.parentNode.closest("a") ? -1 : wholeNumberAt(node.data, n.text);
        if (at < 0) continue;
        const number = node.splitText(at);
        start = number.splitText(n.text.length);
        number.replaceWith(numberLink(bubble, n));
        break;
      }
    }
  }

  // Where `number` occurs in `data` as a whole number (not the "99" of "199").
  function wholeNumberAt(data, number) {
    const edge = /[\p{L}\p{N}]/u;
    for (let at = data.indexOf(number); at >= 0; at = data.indexOf(number, at + 1)) {
      const before = at > 0 ? data[at - 1] : "";
      const after = data[at + number.length] || "";
      const digitFirst = /^\p{N}/u.test(number), digitLast = /\p{N}$/u.test(number);
      if ((digitFirst ? !edge.test(before) : true) && (digitLast ? !/\p{N}/u.test(after) : true)) return at;
    }
    return -1;
  }

  function numberLink(bubble, n) {
    const title = n.title || (n.file || "").split("/").pop().replace(/\.md$/, "");
    const label = fmt(T.numberSource, { number: n.text, title: title, line: n.line });
    const link = el("a", "number-source", n.text);
    link.setAttribute("aria-label", label);
    link.title = label;
    link.dataset.file = n.file;
    link.dataset.line = String(n.line);
    if (/^https?:\/\//i.test(n.url || "")) {
      link.href = n.url; // an imported page: the page it came from
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      return link;
    }
    const source = sourceOfLine(bubble, n, title);
    link.href = "#" + source.id;
    link.setAttribute("aria-controls", source.id);
    link.addEventListener("click", (event) => {
      event.preventDefault();
      for (const other of bubble.querySelectorAll(".source.cited-line")) other.classList.remove("cited-line");
      source.open = true;
      source.classList.add("cited-line");
      const summary = source.querySelector("summary");
      summary.scrollIntoView({ block: "nearest" });
      summary.focus();
    });
    return link;
  }

  // The answer's source that quotes the number's line; one of its own when no citation does.
  let sourceIds = 0;
  function sourceOfLine(bubble, n, title) {
    const line = Number(n.line);
    for (const details of bubble.querySelectorAll(".sources .source")) {
      const first = Number(details.dataset.line), count = Number(details.dataset.lines) || 1;
      if (details.dataset.file === n.file && line >= first && line < first + count) {
        if (!details.id) details.id = "source-" + (++sourceIds);
        return details;
      }
    }
    let box = bubble.querySelector(".sources");
    if (!box) {
      box = el("div", "sources");
      box.appendChild(el("span", "label", T.sources));
      bubble.querySelector(".text").after(box);
    }
    const details = el("details", "source");
    details.id = "source-" + (++sourceIds);
    details.dataset.file = n.file;
    details.dataset.line = String(line);
    details.dataset.lines = "1";
    const summary = el("summary");
    summary.appendChild(el("span", "title", fmt(T.sourceLine, { title: title, line: line })));
    details.appendChild(summary);
    details.appendChild(el("p", "", fmt(T.sourceLine, { title: title, line: line })));
    box.appendChild(details);
    return details;
  }

  function renderTools(bubble, msg) {
    const tools = el("div", "tools");
    const copy = button(T.copy, "copy", async () => {
      const text = bubble.querySelector(".text").innerText;
      try { await navigator.clipboard.writeText(text); } catch (e) {
        const area = el("textarea"); area.value = text; document.body.appendChild(area);
        area.select(); document.execCommand("copy"); area.remove();
      }
      copy.textContent = T.copied;
      window.setTimeout(() => { copy.textContent = T.copy; }, 2000);
    });
    tools.appendChild(copy);
    const up = button("", "thumb", () => chooseRating("up"));
    const down = button("", "thumb down", () => chooseRating("down"));
    up.innerHTML = down.innerHTML = THUMB; // a fixed icon, no server text
    up.setAttribute("aria-label", T.helpful);
    down.setAttribute("aria-label", T.notHelpful);
    up.setAttribute("aria-pressed", "false");
    down.setAttribute("aria-pressed", "false");
    tools.append(up, down);
    const thanks = el("span", "thanks");
    thanks.setAttribute("role", "status");
    tools.appendChild(thanks);
    bubble.appendChild(tools);

    function pressed(rating) {
      up.setAttribute("aria-pressed", String(rating === "up"));
      down.setAttribute("aria-pressed", String(rating === "down"));
    }
    function done(rating) { pressed(rating); thanks.textContent = T.thanks; }
    function chooseRating(rating) {
      const open = bubble.querySelector(".feedback-form");
      if (open) open.remove();
      if (rating === "up") {
        sendFrame({ type: "feedback", messageId: msg.messageId, rating: "up" });
        done("up");
        return;
      }
      pressed("down");
      thanks.textContent = "";
      bubble.appendChild(feedbackForm(msg.messageId, done));
      bubble.querySelector(".feedback-form input").focus();
    }
    if (msg.feedback) done(msg.feedback.rating);
  }

  const THUMB = '<svg aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="18" height="18">' +
    '<path fill="currentColor" d="M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6' +
    'C6.2 8 6 8.5 6 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z"/></svg>';

  let formCounter = 0;
  function feedbackForm(messageId, done) {
    const box = el("form", "feedback-form");
    const n = ++formCounter;
    const set = el("fieldset");
    set.appendChild(el("legend", "", T.feedbackQuestion));
    for (const [value, key] of [["wrong", "reasonWrong"], ["not_helpful", "reasonNotHelpful"], ["no_answer", "reasonNoAnswer"], ["other", "reasonOther"]]) {
      const label = el("label");
      const radio = el("input");
      radio.type = "radio"; radio.name = "reason" + n; radio.value = value;
      label.append(radio, document.createTextNode(T[key]));
      set.appendChild(label);
    }
    box.appendChild(set);
    const commentId = "comment" + n;
    const label = el("label", "", T.comment);
    label.htmlFor = commentId;
    const comment = el("textarea");
    comment.id = commentId; comment.maxLength = 2000;
    box.append(label, comment);
    const submitBtn = el("button", "", T.submitFeedback);
    submitBtn.type = "submit";
    box.appendChild(submitBtn);
    box.addEventListener("submit", (event) => {
      event.preventDefault();
      const chosen = box.querySelector("input[type=radio]:checked");
      sendFrame({ type: "feedback", messageId: messageId, rating: "down", reason: chosen ? chosen.value : "", comment: comment.value });
      box.remove();
      done("down");
      input.focus();
    });
    return box;
  }

  function renderResponse(msg, fromHistory) {
    awaiting.delete(msg.messageId);
    cancelRender();
    const bubble = assistantBubble(msg.messageId);
    bubble.classList.remove("streaming", "withheld", "no_support", "error", "cancelled");
    clearExtras(bubble);
    const status = msg.status || (msg.grounded ? "done" : "withheld");
    bubble.dataset.status = status;
    if (msg.language) {
      bubble.lang = msg.language; // an English answer in a Swedish page, and the other way round
      const question = users.get(msg.messageId);
      if (question && !question.lang) question.lang = msg.language;
    }
    const text = bubble.querySelector(".text");
    if (status === "cancelled" || status === "interrupted") {
      renderMarkdown(text, msg.text || "");
      markStopped(bubble, msg.messageId, status, fromHistory);
      return;
    }
    if (EXPLAIN[status]) {
      // The partial text is replaced; no citation is shown under a refusal.
      bubble.classList.add(status);
      text.textContent = "";
      text.appendChild(renderExplanation(bubble, status, msg.text));
    } else {
      bubble._raw = msg.text;
      renderMarkdown(text, msg.text);
      if (status === "done") renderSources(bubble, msg.citations);
      if (status === "done") linkNumbers(bubble, msg.numbers);
    }
    if (status !== "action") renderTools(bubble, msg);
    if (!fromHistory) announce(T.answered + ": " + bubble.querySelector(".text").innerText);
    follow();
  }

  // -- a turn in flight across a reload and across tabs ------------------------------
  // An answer in progress at load is shown as being written: the server sends it on
  // (stream_sync with the text so far, then the rest). Were it never to come (its server
  // went away), the recorded turn is asked again and, still unfinished, it shows as
  // interrupted with a retry: never an empty bubble.
  const RESUME_CHECK_MS = 4000, RESUME_CHECKS = 3;
  function resumeBubble(m) {
    const bubble = assistantBubble(m.messageId);
    bubble.classList.add("streaming");
    bubble.dataset.status = "in_progress";
    bubble._raw = m.text || "";
    if (bubble._raw) renderMarkdown(bubble.querySelector(".text"), bubble._raw);
    else bubble.querySelector(".text").textContent = T.writing;
    resuming.set(m.messageId, RESUME_CHECKS);
  }

  function resumed(messageId) { resuming.delete(messageId); }

  function checkResuming() {
    if (!resuming.size) return;
    window.setTimeout(async () => {
      if (!resuming.size) return;
      const data = await fetchHistory();
      const answers = new Map();
      for (const m of (data && data.messages) || []) if (m.role === "assistant") answers.set(m.messageId, m);
      for (const [id, left] of Array.from(resuming.entries())) {
        const answer = answers.get(id);
        if (answer && answer.status !== "in_progress") { resuming.delete(id); reconcileAnswer(answer); continue; }
        if (left > 1) { resuming.set(id, left - 1); continue; }
        resuming.delete(id);
        const bubble = assistantBubble(id);
        bubble.classList.remove("streaming");
        if (!bubble._raw) bubble.querySelector(".text").textContent = "";
        markStopped(bubble, id, "interrupted", "reconnect", "answerInterrupted");
      }
      checkResuming();
    }, RESUME_CHECK_MS);
  }

  // The text of an answer so far: a reloaded page's turn (adopted: this page's Stop stops
  // it), or another tab's. It replaces what is shown only when it says more.
  function streamSync(msg) {
    resumed(msg.messageId);
    awaiting.delete(msg.messageId);
    if (msg.question && !users.has(msg.messageId)) addUser(msg.question, msg.messageId);
    const bubble = assistantBubble(msg.messageId);
    if (bubble.dataset.status && bubble.dataset.status !== "in_progress") return; // ended
    bubble.classList.add("streaming");
    if (msg.adopted) { following.delete(msg.messageId); setStreaming(msg.messageId); }
    else if (streamingId !== msg.messageId) following.add(msg.messageId);
    if (msg.text.length >= bubble._raw.length) bubble._raw = msg.text;
    if (bubble._raw) scheduleRender(bubble);
    else bubble.querySelector(".text").textContent = T.writing;
  }

  function markStopped(bubble, messageId, status, fromHistory, noteKey) {
    bubble.classList.add("cancelled");
    bubble.dataset.status = superseded.has(messageId) ? "interrupted" : status;
    clearExtras(bubble);
    if (superseded.has(messageId)) { bubble.appendChild(el("span", "mark", T.interrupted)); return; }
    if (status === "lost" || status === "interrupted" || fromHistory === "reconnect") {
      const note = el("span", "lost", T[noteKey || (status === "interrupted" ? "lostInterrupted" : "lostCancelled")]);
      const question = users.get(messageId);
      if (question) {
        note.appendChild(button(T.askAgain, "", () => submit(question.querySelector(".body").textContent)));
      }
      bubble.appendChild(note);
      return;
    }
    bubble.appendChild(el("span", "mark", T.stopped));
  }

  // -- action cards ------------------------------------------------------------
  const ACTION_TITLES = { schedule_callback: "actionCallback", send_sms: "actionSms", create_ticket: "actionTicket" };
  const STATE_LABELS = { pending: "statePending", running: "stateRunning", done: "stateDone", failed: "stateFailed", rejected: "stateRejected", expired: "stateExpired" };

  function describe(action, phone) {
    if (action === "schedule_callback") return phone ? fmt(T.describeCallback, { phone: phone }) : T.describeCallbackNoPhone;
    if (action === "send_sms") return phone ? fmt(T.describeSms, { phone: phone }) : T.describeSmsNoPhone;
    return T.describeTicket;
  }

  function renderSuggestion(msg) {
    let card = cards.get(msg.suggestionId);
    if (!card) {
      card = el("div", "card");
      card.dataset.suggestionId = msg.suggestionId;
      const heading = el("h2");
      heading.id = "card-" + msg.suggestionId;
      heading.appendChild(el("span", "name", T[ACTION_TITLES[msg.action]] || msg.action));
      heading.appendChild(el("span", "badge"));
      card.setAttribute("aria-labelledby", heading.id);
      card.appendChild(heading);
      card.appendChild(el("p", "describe"));
      card.appendChild(el("p", "hint", T.whatHappens));
      card.appendChild(el("p", "expiry"));
      card.appendChild(el("p", "result"));
      const phoneBox = el("div", "phone");
      const phoneId = "phone-" + msg.suggestionId;
      const label = el("label", "", T.phoneLabel);
      label.htmlFor = phoneId;
      const phoneInput = el("input");
      phoneInput.id = phoneId; phoneInput.type = "tel"; phoneInput.autocomplete = "tel"; phoneInput.maxLength = 40;
      const problem = el("span", "problem");
      problem.id = phoneId + "-problem";
      problem.setAttribute("role", "alert");
      phoneInput.setAttribute("aria-describedby", problem.id);
      phoneBox.append(label, phoneInput, problem);
      card.appendChild(phoneBox);
      // A ticket's card asks how we reach the customer.
      const contactBox = msg.action === "create_ticket" ? contactField(msg.suggestionId) : null;
      if (contactBox) card.appendChild(contactBox);
      const buttons = el("div", "buttons");
      const confirm = button(T.confirm, "confirm", () => {
        if (card.dataset.state !== "pending") return;
        const frame = { type: "confirm_action", suggestionId: msg.suggestionId };
        if (!phoneBox.hidden) frame.phone = phoneInput.value.trim();
        if (contactBox && !contactBox.hidden) frame.contact = contactBox.querySelector("input").value.trim();
        if (sendFrame(frame)) setCardState(card, { state: "running", message: "" });
      });
      const reject = button(T.reject, "reject", () => {
        if (card.dataset.state !== "pending") return;
        if (sendFrame({ type: "reject_action", suggestionId: msg.suggestionId })) setCardState(card, { state: "running", message: "" });
        input.focus();
      });
      buttons.append(confirm, reject);
      card.appendChild(buttons);
      card._action = msg.action;
      card._expiresAt = Date.parse(msg.expiresAt);
      const after = bubbles.get(msg.sourceMessageId);
      if (after && after.parentNode === log) after.after(card); else log.appendChild(card);
      cards.set(msg.suggestionId, card);
    }
    const state = msg.card || { state: "pending", phone: (msg.payload || {}).phone || "", needsPhone: false };
    if (typeof state.secondsLeft === "number") card._expiresAt = Date.now() + state.secondsLeft * 1000;
    card._phone = state.phone || (msg.payload || {}).phone || "";
    card._needsPhone = !!state.needsPhone;
    card._needsContact = !!state.needsContact;
    setCardState(card, state);
    follow();
  }

  function setCardState(card, info) {
    let state = info.state;
    if (state === "pending" && Date.now() >= card._expiresAt) state = "expired";
    card.dataset.state = state;
    if (info.phone) card._phone = info.phone;
    if (info.needsPhone !== undefined) card._needsPhone = !!info.needsPhone;
    if (info.needsContact !== undefined) card._needsContact = !!info.needsContact;
    card.querySelector(".badge").textContent = T[STATE_LABELS[state]];
    card.querySelector(".describe").textContent = describe(card._action, card._phone);
    const final = state !== "pending" && state !== "running";
    // A finished card says what happened once: its result, not also what would happen.
    card.querySelector(".describe").hidden = final;
    const contactBox = card.querySelector(".contact");
    if (contactBox) {
      contactBox.hidden = !(state === "pending" && card._needsContact);
      if (state !== "pending") contactBox.querySelector(".problem").textContent = "";
    }
    card.querySelector(".result").textContent = final ? (info.message || T[STATE_LABELS[state]]) : "";
    card.querySelector(".result").hidden = !final;
    card.querySelector(".hint").hidden = state !== "pending";
    const phoneBox = card.querySelector(".phone");
    phoneBox.hidden = !(state === "pending" && card._needsPhone);
    if (state !== "pending") card.querySelector(".phone .problem").textContent = "";
    for (const b of card.querySelectorAll(".buttons button")) b.disabled = state !== "pending";
    card.querySelector(".buttons").hidden = final;
    tick(card);
  }

  function tick(card) {
    const expiry = card.querySelector(".expiry");
    if (card.dataset.state !== "pending") { expiry.hidden = true; return; }
    const left = Math.ceil((card._expiresAt - Date.now()) / 1000);
    if (left <= 0) { setCardState(card, { state: "expired", message: "" }); return; }
    expiry.hidden = false;
    expiry.textContent = fmt(T.expiresIn, { seconds: left });
  }
  window.setInterval(() => { for (const card of cards.values()) if (card.dataset.state === "pending") tick(card); }, 1000);

  function renderActionResult(msg) {
    const card = cards.get(msg.suggestionId);
    if (!card) return;
    if (msg.card) setCardState(card, msg.card);
    else setCardState(card, { state: msg.result && msg.result.success ? "done" : "failed", message: "" });
    announce(card.querySelector(".name").textContent + ": " + card.querySelector(".result").textContent);
  }

  // A ticket's way to reach the customer: an e-mail address or a phone number.
  function contactField(suggestionId) {
    const box = el("div", "contact");
    const id = "contact-" + suggestionId;
    const label = el("label", "", T.contactLabel);
    label.htmlFor = id;
    const field = el("input");
    field.id = id; field.type = "text"; field.autocomplete = "email"; field.maxLength = 254;
    const problem = el("span", "problem");
    problem.id = id + "-problem";
    problem.setAttribute("role", "alert");
    field.setAttribute("aria-describedby", problem.id);
    box.append(label, field, problem);
    box.hidden = true;
    return box;
  }

  function contactProblem(msg) {
    const card = cards.get(msg.suggestionId);
    if (!card || !card.querySelector(".contact")) return false;
    card._needsContact = true;
    setCardState(card, { state: "pending", message: "" });
    card.querySelector(".contact .problem").textContent = msg.message;
    card.querySelector(".contact input").focus();
    return true;
  }

  function phoneProblem(msg) {
    const card = cards.get(msg.suggestionId);
    if (!card) return false;
    card._needsPhone = true;
    setCardState(card, { state: "pending", message: "" });
    card.querySelector(".phone .problem").textContent = msg.message;
    card.querySelector(".phone input").focus();
    return true;
  }

  // -- frames ------------------------------------------------------------------
  const ERROR_TEXT = { rate_limited: "errorRateLimited", too_large: "errorTooLarge" };
  const handlers = {
    stream(msg) {
      resumed(msg.messageId);
      awaiting.delete(msg.messageId);
      const bubble = assistantBubble(msg.messageId);
      bubble.classList.add("streaming");
      bubble._raw += msg.delta;
      if (streamingId !== msg.messageId) setStreaming(msg.messageId);
      scheduleRender(bubble);
    },
    stream_end(msg) {
      cancelRender();
      const bubble = assistantBubble(msg.messageId);
      bubble.classList.remove("streaming");
      renderMarkdown(bubble.querySelector(".text"), bubble._raw);
      resumed(msg.messageId);
      if (msg.reason === "interrupted") {
        markStopped(bubble, msg.messageId, "interrupted", "reconnect");
      } else if (msg.reason === "cancelled") {
        // Stopped here, by a newer message, or in the tab this page follows.
        const stoppedThere = following.has(msg.messageId);
        if (superseded.has(msg.messageId) || stopRequested.has(msg.messageId) || stoppedThere) {
          markStopped(bubble, msg.messageId, "cancelled", false);
        } else {
          unresolved.add(msg.messageId); // the server stopped it: learn why after reconnecting
        }
      }
      if (streamingId === msg.messageId) setStreaming(null);
      follow();
    },
    stream_sync: streamSync,
    response(msg) { resumed(msg.messageId); following.delete(msg.messageId); renderResponse(msg, false); },
    action_suggestion: renderSuggestion,
    action_executed: renderActionResult,
    action_rejected: renderActionResult,
    feedback_received() {},
    // Another tab of this conversation sent a message.
    user_message(msg) {
      if (users.has(msg.messageId)) return;
      addUser(msg.text, msg.messageId);
      follow();
    },
    resumed() { opened(ws); },
    token_refused() { refused = true; WIDGET.refused(); },
    error(msg) {
      if ((msg.code === "phone_required" || msg.code === "invalid_phone") && phoneProblem(msg)) return;
      if (msg.code === "invalid_contact" && contactProblem(msg)) return;
      if (msg.code === "server_shutdown") {
        bannerText.textContent = T.serverRestarting;
        bannerText.dataset.custom = "1";
        return;
      }
      if (msg.messageId && users.has(msg.messageId) && !bubbles.has(msg.messageId)) setDelivery(msg.messageId, "unsent");
      const text = T[ERROR_TEXT[msg.code]] || T.errorGeneric;
      log.appendChild(el("div", "notice", text));
      announce(text);
      follow();
    },
  };

  // -- connection ----------------------------------------------------------------
  function scheduleReconnect() {
    if (reconnectTimer) return;
    // Exponential backoff with full jitter, capped at 10 s.
    const cap = Math.min(10000, 400 * 2 ** attempt++);
    const delay = cap / 2 + Math.random() * cap / 2;
    reconnectTimer = window.setTimeout(() => { reconnectTimer = null; connect(); }, delay);
  }

  function reconnectNow() {
    if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) return;
    if (reconnectTimer) { window.clearTimeout(reconnectTimer); reconnectTimer = null; }
    connect();
  }
  $("reconnect").addEventListener("click", reconnectNow);
  window.addEventListener("online", reconnectNow);

  if (window.ChatHandoff) window.ChatHandoff.attach(sendFrame);

  // The socket is ready for messages: after its handshake, or the widget's resume.
  async function opened(socket) {
    attempt = 0;
    const wasOpen = everOpen;
    everOpen = true;
    delete bannerText.dataset.custom;
    if (wasOpen) await reconcile();
    if (ws !== socket || socket.readyState !== WebSocket.OPEN) return;
    setStatus("open");
    checkResuming();
    while (outbox.length) deliver(outbox.shift());
  }

  function connect() {
    if (refused) return;
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + (WIDGET ? "/ws/widget/" : "/ws/chat/"));
    ws = socket;
    setStatus("connecting");
    socket.addEventListener("open", () => {
      if (!WIDGET) { opened(socket); return; }
      socket.send(JSON.stringify({ type: "resume", token: WIDGET.token(), language: CONFIG.language }));
    });
    socket.addEventListener("message", (event) => {
      let msg;
      try { msg = JSON.parse(event.data); } catch (e) { return; }
      const handle = handlers[msg.type];
      if (handle) handle(msg);
      else if (window.ChatHandoff) {
        // A person's frames (handoff.js); a message the person got is no longer awaited.
        if (msg.type === "handoff_delivered") awaiting.delete(msg.messageId);
        window.ChatHandoff.handle(msg);
      }
    });
    socket.addEventListener("close", () => {
      if (ws !== socket) return;
      const inFlight = streamingId;
      if (inFlight) {
        const bubble = bubbles.get(inFlight);
        if (bubble) bubble.classList.remove("streaming");
        unresolved.add(inFlight);
        setStreaming(null);
      }
      setStatus("closed");
      scheduleReconnect();
    });
  }

  // After a reconnect: how did the turns in flight end? The recorded turn says. Cards
  // decided meanwhile (in another tab, or expired) get their state too.
  async function reconcile() {
    const data = await fetchHistory();
    if (!data) return;
    const answers = new Map();
    for (const m of data.messages) if (m.role === "assistant") answers.set(m.messageId, m);
    for (const [id, text] of Array.from(awaiting.entries())) {
      const answer = answers.get(id);
      if (!answer) {
        // The server never started it: send it again.
        awaiting.delete(id);
        outbox.push({ id: id, text: text });
        continue;
      }
      reconcileAnswer(answer);
    }
    for (const id of Array.from(unresolved)) {
      const answer = answers.get(id);
      if (answer) { unresolved.delete(id); reconcileAnswer(answer); }
    }
    for (const s of data.actions || []) renderSuggestion(s);
  }

  function reconcileAnswer(answer) {
    awaiting.delete(answer.messageId);
    const shown = bubbles.get(answer.messageId);
    // Ended here meanwhile (its frames came after the history was read): that stands.
    if (shown && shown.dataset.status && shown.dataset.status !== "in_progress") return;
    if (answer.status === "in_progress") {
      // Still being written: its frames come (the server resumes it), else the check says so.
      if (shown && shown.classList.contains("streaming")) resuming.set(answer.messageId, RESUME_CHECKS);
      else resumeBubble(answer);
      return;
    }
    if (answer.status === "cancelled" || answer.status === "interrupted") {
      const bubble = assistantBubble(answer.messageId);
      bubble.classList.remove("streaming");
      if (answer.text) { bubble._raw = answer.text; renderMarkdown(bubble.querySelector(".text"), answer.text); }
      markStopped(bubble, answer.messageId, answer.status, "reconnect");
      follow();
    } else {
      renderResponse(answer, false);
    }
  }

  async function fetchHistory() {
    try {
      const response = WIDGET
        ? await fetch(CONFIG.historyUrl, {
          headers: { Authorization: "Bearer " + WIDGET.token() }, credentials: "omit", cache: "no-store",
        })
        : await fetch("/history/", { credentials: "same-origin", cache: "no-store" });
      return response.ok ? await response.json() : null;
    } catch (e) { return null; }
  }

  async function loadHistory() {
    const data = await fetchHistory();
    if (!data) return;
    for (const m of data.messages) {
      if (m.role === "user") addUser(m.text, m.messageId, m.language);
      else if (m.role === "agent") { if (window.ChatHandoff) window.ChatHandoff.replay(m); }
      else if (m.status === "in_progress") resumeBubble(m);
      else renderResponse(m, true);
    }
    for (const s of data.actions || data.suggestions || []) renderSuggestion(s);
    empty.hidden = log.children.length > 0;
    toBottom();
  }

  // -- input ---------------------------------------------------------------------
  function grow() {
    input.style.height = "auto";
    input.style.height = Math.min(input.scrollHeight + 2, 160) + "px";
  }
  input.addEventListener("input", grow);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  function stop() {
    if (streamingId && sendFrame({ type: "cancel" })) stopRequested.add(streamingId);
    input.focus();
  }
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && streamingId) { event.preventDefault(); stop(); }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value;
    if (!text.trim()) { input.focus(); return; }
    input.value = "";
    grow();
    submit(text);
  });
  sendBtn.addEventListener("click", (event) => {
    if (sendBtn.dataset.mode === "stop") { event.preventDefault(); stop(); }
  });
  for (const chip of document.querySelectorAll(".chip")) {
    chip.addEventListener("click", () => submit(chip.dataset.text));
  }

  if (WIDGET) WIDGET.ready().then(() => loadHistory().finally(connect));
  else loadHistory().finally(connect);
})();
