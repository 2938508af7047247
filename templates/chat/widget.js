// The support widget's loader (docs/widget.md): <script src="https://<host>/widget.js" async>.
// It adds one iframe (the chat, served by the product: the host page's CSS cannot reach
// inside it and the chat cannot reach the host page) and one global, window.SupportWidget.
// The conversation token lives in this site's localStorage and goes to the frame by
// postMessage (to the product's origin only), never in a URL.
(function () {
  "use strict";
  if (window.SupportWidget) return; // included twice
  var CONFIG = {{ config|safe }};
  var KEY = "support-widget:token", OPEN = "support-widget:open", SOURCE = "support-widget";
  var script = document.currentScript;
  if (CONFIG.allowed.indexOf(location.origin) < 0) {
    console.error("Support widget: " + location.origin + " may not embed the chat of " + CONFIG.origin +
      "; its operator lists the sites that may in WIDGET_ALLOWED_ORIGINS.");
    return;
  }
  var lang = ((script && script.getAttribute("data-lang")) || document.documentElement.lang || "").slice(0, 2).toLowerCase();
  if (!CONFIG.titles[lang]) lang = CONFIG.defaultLanguage;

  // -- the token: 32 random bytes, URL-safe base64, one per browser and site ------------
  var memory = null; // when this site's storage is blocked
  function read() { try { return window.localStorage.getItem(KEY); } catch (e) { return memory; } }
  function write(value) { memory = value; try { window.localStorage.setItem(KEY, value); } catch (e) { /* memory only */ } }
  function valid(value) { return typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value); }
  function fresh() {
    var bytes = new Uint8Array(32);
    window.crypto.getRandomValues(bytes);
    var text = "";
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return window.btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  // Tabs opening at the same moment agree on one token (Web Locks; without them, last writer).
  function locked(fn) {
    return navigator.locks ? navigator.locks.request(KEY, function () { return fn(); }) : Promise.resolve().then(fn);
  }
  function token(refused) {
    return locked(function () {
      var value = read();
      if (!valid(value) || value === refused) { value = fresh(); write(value); }
      return value;
    });
  }

  // -- the frame -----------------------------------------------------------------------
  var frame = document.createElement("iframe");
  frame.src = CONFIG.frame + "?lang=" + encodeURIComponent(lang);
  frame.title = CONFIG.titles[lang];
  frame.setAttribute("allow", "clipboard-write");
  var given = null, open = false;
  try { open = window.sessionStorage.getItem(OPEN) === "1"; } catch (e) { open = false; }

  function style(props) {
    for (var name in props) frame.style.setProperty(name, props[name], "important");
  }
  var RESET = {
    position: "fixed", display: "block", visibility: "visible", opacity: "1", border: "0", margin: "0",
    padding: "0", background: "transparent", "color-scheme": "normal", "z-index": "2147483000",
    transform: "none", filter: "none", "clip-path": "none", "pointer-events": "auto", transition: "none",
    animation: "none", "box-shadow": "none", "border-radius": "0", "max-width": "none", "max-height": "none",
    "min-width": "0", "min-height": "0", top: "auto", left: "auto", right: "16px", bottom: "16px", float: "none",
    // Everything else that can move, hide, shrink or cover the launcher from the host's CSS.
    translate: "none", scale: "none", rotate: "none", zoom: "1", clip: "auto", mask: "none",
    "-webkit-mask": "none", "mask-border": "none", "offset-path": "none", perspective: "none",
    "backdrop-filter": "none", "mix-blend-mode": "normal", isolation: "auto", contain: "none",
    "content-visibility": "visible", "box-sizing": "content-box", overflow: "visible",
    "aspect-ratio": "auto", "transform-style": "flat", "will-change": "auto", outline: "none",
    "writing-mode": "horizontal-tb", direction: "ltr",
  };
  // The host page's width decides the layout (the frame's own media queries only see the
  // frame): a panel with corners and a shadow on a desktop, the full screen on a phone.
  var phone = window.matchMedia("(max-width: 600px)");
  function place() {
    style(RESET);
    if (!open) style({ width: "72px", height: "72px" });
    else if (phone.matches) style({ top: "0", left: "0", right: "0", bottom: "0", width: "100%", height: "100%" });
    else {
      style({ width: "min(400px, calc(100vw - 32px))", height: "min(640px, calc(100vh - 32px))" });
      style({ "border-radius": "12px", "box-shadow": "0 6px 28px rgb(0 0 0 / 28%), 0 0 0 1px rgb(0 0 0 / 12%)" });
    }
    send({ type: "layout", layout: phone.matches ? "phone" : "panel" });
  }
  if (phone.addEventListener) phone.addEventListener("change", place);
  place();

  function send(message) {
    message.source = SOURCE;
    if (frame.contentWindow) frame.contentWindow.postMessage(message, CONFIG.origin);
  }
  function hand(value) {
    given = value;
    send({ type: "layout", layout: phone.matches ? "phone" : "panel" });
    send({ type: "token", token: value, open: open });
  }

  window.addEventListener("message", function (event) {
    if (event.source !== frame.contentWindow || event.origin !== CONFIG.origin) return;
    var data = event.data;
    if (!data || data.source !== SOURCE) return;
    if (data.type === "ready") token(null).then(hand);
    else if (data.type === "refused") token(given).then(hand); // revoked or expired: a new one
    else if (data.type === "open") {
      open = !!data.open;
      try { window.sessionStorage.setItem(OPEN, open ? "1" : "0"); } catch (e) { /* not kept */ }
      place();
    }
  });
  // Another tab made a new token (the old one was refused): this tab follows it.
  window.addEventListener("storage", function (event) {
    if (event.key === KEY && valid(event.newValue) && event.newValue !== given) hand(event.newValue);
  });

  // On <html>, not <body>: a transform or filter on the body would move a fixed frame.
  document.documentElement.appendChild(frame);
  window.SupportWidget = Object.freeze({
    open: function () { send({ type: "set-open", open: true }); },
    close: function () { send({ type: "set-open", open: false }); },
  });
})();
