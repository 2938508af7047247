// The widget's frame (templates/chat/widget.html), loaded before chat.js. It talks with the
// loader on the embedding page (widget.js) by postMessage: the loader hands over the
// conversation token (kept in this frame's memory only) and sizes the frame when the panel
// opens or closes. Only messages from the parent window, from this site or an allowed
// embedder (WIDGET_ALLOWED_ORIGINS), are read; what the frame posts carries no token.
(function () {
  "use strict";
  const CONFIG = JSON.parse(document.getElementById("chat-config").textContent);
  const SOURCE = "support-widget";
  const allowed = new Set([location.origin, ...(CONFIG.embedders || [])]);
  const launcher = document.getElementById("launcher");
  const panel = document.getElementById("panel");
  const closeButton = document.getElementById("close");
  let parentOrigin = null, token = null, isOpen = false;
  let opened, known;
  const whenOpened = new Promise((resolve) => { opened = resolve; });
  const whenKnown = new Promise((resolve) => { known = resolve; });

  function post(message) {
    if (window.parent === window) return;
    // Before the loader has spoken, "ready" (which says nothing) goes to any parent.
    window.parent.postMessage(Object.assign({ source: SOURCE }, message), parentOrigin || "*");
  }

  function setOpen(open) {
    if (open === isOpen) return;
    isOpen = open;
    panel.hidden = !open;
    launcher.hidden = open;
    launcher.setAttribute("aria-expanded", String(open));
    post({ type: "open", open: open });
    if (open) { opened(); document.getElementById("input").focus(); } else launcher.focus();
  }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent || !allowed.has(event.origin)) return;
    const data = event.data;
    if (!data || data.source !== SOURCE) return;
    parentOrigin = event.origin;
    if (data.type === "token" && /^[A-Za-z0-9_-]{43}$/.test(data.token || "")) {
      if (token && token !== data.token) { location.reload(); return; } // a new conversation
      token = data.token;
      known();
      if (data.open) setOpen(true);
    } else if (data.type === "set-open") {
      setOpen(!!data.open);
    } else if (data.type === "layout" && (data.layout === "phone" || data.layout === "panel")) {
      // The host page's width, as the loader sees it: this frame's own width says nothing.
      document.documentElement.dataset.layout = data.layout;
    }
  });

  launcher.addEventListener("click", () => setOpen(true));
  closeButton.addEventListener("click", () => setOpen(false));
  document.addEventListener("keydown", (event) => {
    // Escape stops a streaming answer first (chat.js); else it closes the panel.
    if (event.key === "Escape" && isOpen && document.getElementById("send").dataset.mode !== "stop") {
      setOpen(false);
    }
  });

  window.ChatWidgetFrame = {
    // Resolves once the panel was opened and the loader handed the token over.
    ready: () => Promise.all([whenOpened, whenKnown]),
    token: () => token,
    // The server refused the token (revoked or expired): the loader makes a new one.
    refused() { if (parentOrigin) post({ type: "refused" }); },
  };
  post({ type: "ready" });
})();
