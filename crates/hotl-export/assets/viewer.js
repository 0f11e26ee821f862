"use strict";
// The share viewer's loader: fetches the sealed blob, opens it with the key from the
// fragment (which never leaves the browser), and inserts the body hotl rendered and escaped.
(async function () {
  var KEEP = ("a abbr article aside b blockquote br button caption code col colgroup dd del details " +
    "div dl dt em figcaption figure footer h1 h2 h3 h4 h5 h6 header hr i img input ins kbd label li " +
    "main mark nav ol option p pre q s section select small span strong sub summary sup table tbody " +
    "td tfoot th thead time tr u ul").split(" ");
  // Dropped with all they hold: what runs, loads, navigates, submits or restyles.
  var DROP = ("script style iframe frame frameset object embed applet form meta base link template " +
    "noscript svg math audio video source track portal title head param textarea").split(" ");
  var ATTRS = ("class id title alt role lang value placeholder open checked disabled colspan " +
    "rowspan start align for").split(" ");
  var INPUTS = ["checkbox", "radio", "text", "search", "button"];
  function safeHref(value) {
    value = value.trim();
    if (value.charAt(0) === "#") { return true; }
    try {
      var scheme = new URL(value, location.href).protocol;
      return scheme === "https:" || scheme === "http:" || scheme === "mailto:";
    } catch (e) {
      return false;
    }
  }
  function keepAttr(tag, name, value) {
    if (ATTRS.indexOf(name) >= 0 || /^data-[a-z0-9-]+$/.test(name) || /^aria-[a-z]+$/.test(name)) {
      return true;
    }
    if (name === "type") { return tag !== "input" || INPUTS.indexOf(value.toLowerCase()) >= 0; }
    if (name === "href") { return tag === "a" && safeHref(value); }
    if (name === "src") { return tag === "img" && /^(data:image\/[a-z0-9.+-]+;base64,|blob:)/i.test(value.trim()); }
    return false;
  }
  function clean(node) {
    var child = node.firstChild;
    while (child) {
      var next = child.nextSibling;
      if (child.nodeType === 1) {
        var tag = child.tagName.toLowerCase();
        if (KEEP.indexOf(tag) >= 0) {
          for (var i = child.attributes.length - 1; i >= 0; i--) {
            var attr = child.attributes[i];
            if (!keepAttr(tag, attr.name.toLowerCase(), attr.value)) {
              child.removeAttribute(attr.name);
            }
          }
          if (tag === "input" && !child.hasAttribute("type")) { child.setAttribute("type", "text"); }
          clean(child);
        } else if (DROP.indexOf(tag) >= 0) {
          node.removeChild(child);
        } else {
          // An element hotl does not write: its text stays, the element goes.
          clean(child);
          while (child.firstChild) { node.insertBefore(child.firstChild, child); }
          node.removeChild(child);
        }
      } else if (child.nodeType !== 3) {
        node.removeChild(child);
      }
      child = next;
    }
  }
  var status = document.getElementById("status");
  function fail(text) {
    status.textContent = text;
    status.className = "fail";
  }
  var frag = location.hash.slice(1);
  var k = /(?:^|&)k=([^&]+)/.exec(frag);
  var key = k ? k[1] : frag.split("&")[0];
  if (!key) { fail("cannot decrypt: the link has no key (the part after #)"); return; }
  try {
    var id = document.querySelector("meta[name=hotl-share-id]").content;
    var gistApi = document.querySelector("meta[name=hotl-gist-api]");
    var sealed;
    if (/^[0-9a-f]{20,64}$/.test(id) && gistApi) {
      var gist = await (await fetch(gistApi.content + "/" + id, { credentials: "omit", referrerPolicy: "no-referrer" })).json();
      var file = gist.files && gist.files["session.hotlshare.txt"];
      if (!file) { fail("cannot load: the gist holds no hotl share"); return; }
      sealed = Uint8Array.from(atob(file.content.trim()), function (c) { return c.charCodeAt(0); });
    } else {
      var res = await fetch(location.pathname.replace(/\/$/, "") + "/raw", { credentials: "omit", referrerPolicy: "no-referrer", cache: "no-store" });
      if (!res.ok) { fail("cannot load: the server answered " + res.status); return; }
      sealed = new Uint8Array(await res.arrayBuffer());
    }
    var b64 = key.replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) { b64 += "="; }
    var raw = Uint8Array.from(atob(b64), function (c) { return c.charCodeAt(0); });
    var plain;
    try {
      var cryptoKey = await crypto.subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["decrypt"]);
      plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: sealed.slice(0, 12) }, cryptoKey, sealed.slice(12));
    } catch (e) {
      fail("cannot decrypt: the key in the link does not open this share");
      return;
    }
    var text = await new Response(new Blob([plain]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
    var doc = JSON.parse(text);
    if (doc.format !== "hotl-export/1" || typeof doc.html !== "string") {
      fail("cannot show: this is not a hotl share");
      return;
    }
    // doc.html is the page body hotl rendered with every piece of session text escaped, but a
    // share is whatever its uploader sealed: it is parsed inert (nothing in it runs, loads or
    // navigates), and only the elements and attributes hotl's pages use are kept.
    var parsed = new DOMParser().parseFromString(doc.html, "text/html");
    clean(parsed.body);
    var app = document.getElementById("app");
    while (parsed.body.firstChild) {
      app.appendChild(document.adoptNode(parsed.body.firstChild));
    }
    document.title = (doc.session && (doc.session.title || doc.session.name)) || "hotl session";
    window.hotlDocument = doc;
    window.hotlInit();
  } catch (e) {
    fail("cannot show this share: " + (e && e.message ? e.message : e));
  }
})();
