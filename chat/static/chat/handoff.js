// Live handoff on the chat page: "talk to a person" after an answer we could not give,
// and the person's frames (handoff_queued, handoff_offline, agent_joined, agent_message,
// agent_typing, agent_left). chat.js calls ChatHandoff.attach(send) once, passes frame
// types it does not know to ChatHandoff.handle(frame), and ChatHandoff.offer(bubble, status)
// after a withheld or no-support answer. Server text goes in with textContent only.
(function () {
  "use strict";
  const STRINGS = {
    sv: {
      ask: "Prata med en person",
      queued: "Du står på plats {position} i kön. En medarbetare ansluter snart.",
      joined: "{name} har anslutit till chatten.",
      typing: "{name} skriver…",
      left: "{name} har lämnat chatten. Du pratar med den automatiska assistenten igen.",
      person: "Medarbetare",
    },
    en: {
      ask: "Talk to a person",
      queued: "You are number {position} in the queue. Someone will join shortly.",
      joined: "{name} joined the chat.",
      typing: "{name} is typing…",
      left: "{name} left the chat. You are talking to the automatic assistant again.",
      person: "Staff",
    },
  };
  const T = STRINGS[(document.documentElement.lang || "sv").slice(0, 2)] || STRINGS.sv;
  const fmt = (text, values) => text.replace(/\{(\w+)\}/g, (_, key) => values[key] ?? "");
  let send = () => false;
  let person = null; // the name of the person who owns the conversation
  let typingTimer = null;
  let lastTypingSent = 0;
  const TYPING_EVERY_MS = 2000;
  const TYPING_SHOWN_MS = 4000;

  const log = () => document.getElementById("log");
  const indicator = document.createElement("p");
  indicator.className = "handoff-typing";
  indicator.setAttribute("role", "status");
  indicator.hidden = true;

  function line(className, text, label) {
    const item = document.createElement("li");
    item.className = className;
    if (label) {
      const who = document.createElement("strong");
      who.textContent = label + ": ";
      item.appendChild(who);
    }
    item.appendChild(document.createTextNode(text));
    log().appendChild(item);
    item.scrollIntoView({ block: "end" });
    return item;
  }

  function request() {
    for (const b of document.querySelectorAll("button.handoff-ask")) b.disabled = true;
    send({ type: "handoff_request" });
  }

  function showTyping() {
    indicator.textContent = fmt(T.typing, { name: person || T.person });
    indicator.hidden = false;
    log().after(indicator);
    clearTimeout(typingTimer);
    typingTimer = setTimeout(() => { indicator.hidden = true; }, TYPING_SHOWN_MS);
  }

  const handlers = {
    handoff_queued(frame) { line("notice handoff", fmt(T.queued, frame)); },
    handoff_offline(frame) { line("notice handoff", frame.text); },
    agent_joined(frame) {
      person = frame.name;
      line("notice handoff", fmt(T.joined, frame));
    },
    agent_message(frame) {
      indicator.hidden = true;
      const item = line("msg agent", frame.text, person || T.person);
      item.dataset.messageId = frame.messageId;
    },
    agent_typing() { showTyping(); },
    agent_left(frame) {
      person = null;
      indicator.hidden = true;
      line("notice handoff", fmt(T.left, frame));
      for (const b of document.querySelectorAll("button.handoff-ask")) b.disabled = false;
    },
  };

  window.ChatHandoff = {
    attach(sendFrame) { send = sendFrame; },
    handle(frame) {
      const handle = handlers[frame.type];
      if (handle) handle(frame);
      return Boolean(handle);
    },
    offer(bubble, status) {
      if (status !== "withheld" && status !== "no_support") return;
      if (bubble.querySelector("button.handoff-ask")) return;
      const ask = document.createElement("button");
      ask.type = "button";
      ask.className = "handoff-ask";
      ask.textContent = T.ask;
      ask.addEventListener("click", request);
      bubble.appendChild(ask);
    },
    request: request,
  };
  // Pages with a list of next steps under a refusal (issue 15) show the handoff there too.
  window.chatNextSteps = (window.chatNextSteps || []).concat([{ key: "person", label: T.ask, run: request }]);

  document.addEventListener("input", (event) => {
    if (person === null || event.target.id !== "input") return;
    const now = Date.now();
    if (now - lastTypingSent < TYPING_EVERY_MS) return;
    lastTypingSent = now;
    send({ type: "typing" });
  });
})();
