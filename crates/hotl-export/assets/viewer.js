"use strict";
// The share viewer's loader: fetches the sealed blob, opens it with the key from the
// fragment (which never leaves the browser), and inserts the body hotl rendered and escaped.
(async function () {
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
    // doc.html is the page body hotl rendered with every piece of session text escaped.
    var app = document.getElementById("app");
    app.innerHTML = doc.html;
    document.title = (doc.session && (doc.session.title || doc.session.name)) || "hotl session";
    window.hotlDocument = doc;
    window.hotlInit();
  } catch (e) {
    fail("cannot show this share: " + (e && e.message ? e.message : e));
  }
})();
