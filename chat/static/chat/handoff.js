// Live handoff on the chat page: the person's frames (handoff_queued, handoff_offline,
// agent_joined, agent_message, agent_typing, agent_left) and the customer's typing.
// chat.js offers "Talk to a person" among the next steps under an answer we could not
// give (NEXT_STEPS.person), calls ChatHandoff.attach(sendFrame) once and passes the frame
// types it does not know to ChatHandoff.handle(frame). Strings come from the page's
// catalog (chat/texts.py PAGE); server text goes in with textContent only.
(function () {
  "use strict";
  const T = JSON.parse(document.getElementById("chat-strings").textContent);
  const fmt = (text, values) => text.replace(/\{(\w+)\}/g, (_, key) => values[key] ?? "");
  const TYPING_EVERY_MS = 2000;
  const TYPING_SHOWN_MS = 4000;
  let send = () => false;
  let person = null; // the name of the person who owns the conversation
  let typingTimer = null;
  let lastTypingSent = 0;

  const log = () => document.getElementById("log");
  const indicator = document.createElement("p");
  indicator.className = "handoff-typing";
  indicator.setAttribute("role", "status");
  indicator.hidden = true;

  function announce(text) {
    const announcer = document.getElementById("announcer");
    if (announcer) announcer.textContent = text;
  }

  function line(className, text, label, quiet) {
    const item = document.createElement("div");
    item.className = className;
    if (label) {
      const who = document.createElement("strong");
      who.textContent = label + ": ";
      item.appendChild(who);
    }
    item.appendChild(document.createTextNode(text));
    log().appendChild(item);
    item.scrollIntoView({ block: "end" });
    if (!quiet) announce(label ? label + ": " + text : text);
    return item;
  }

  function showTyping() {
    indicator.textContent = fmt(T.handoffTyping, { name: person || T.staffLabel });
    indicator.hidden = false;
    log().after(indicator);
    clearTimeout(typingTimer);
    typingTimer = setTimeout(() => { indicator.hidden = true; }, TYPING_SHOWN_MS);
  }

  const handlers = {
    handoff_queued(frame) { line("notice handoff", fmt(T.handoffQueued, frame)); },
    handoff_offline(frame) { line("notice handoff", frame.text); },
    handoff_delivered() {},
    agent_joined(frame) {
      person = frame.name;
      line("notice handoff", fmt(T.handoffJoined, frame));
    },
    agent_message(frame) {
      indicator.hidden = true;
      line("msg agent", frame.text, person || T.staffLabel).dataset.messageId = frame.messageId;
    },
    agent_typing() { showTyping(); },
    agent_left(frame) {
      person = null;
      indicator.hidden = true;
      line("notice handoff", fmt(T.handoffLeft, frame));
    },
  };

  window.ChatHandoff = {
    attach(sendFrame) { send = sendFrame; },
    // A person's message from the transcript (/history/), after a reload.
    replay(message) {
      line("msg agent", message.text, message.name || T.staffLabel, true).dataset.messageId = message.messageId;
    },
    handle(frame) {
      const handle = handlers[frame.type];
      if (handle) handle(frame);
      return Boolean(handle);
    },
  };

  document.addEventListener("input", (event) => {
    if (person === null || event.target.id !== "input") return;
    const now = Date.now();
    if (now - lastTypingSent < TYPING_EVERY_MS) return;
    lastTypingSent = now;
    send({ type: "typing" });
  });
})();
