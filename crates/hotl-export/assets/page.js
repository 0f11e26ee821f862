"use strict";
// The page's behaviour: themes, keys, delegated-session overlays, search, deep links and the
// log download. It only expands, searches and navigates what is already on the page.
(function () {
  var root = document.documentElement;
  var stack = [];
  var index = null;

  function $(sel, el) { return (el || document).querySelector(sel); }
  function all(sel, el) { return Array.prototype.slice.call((el || document).querySelectorAll(sel)); }

  function setTheme(t) { root.setAttribute("data-theme", t); }

  function childSection(key) { return document.getElementById(key); }
  function childHome() { return $("#children"); }

  function renderCrumbs() {
    var crumbs = $("#overlay .crumbs");
    crumbs.textContent = "";
    var main = document.createElement("button");
    main.type = "button";
    main.textContent = "main";
    main.addEventListener("click", function () { popTo(0); });
    crumbs.appendChild(main);
    stack.forEach(function (key, i) {
      var sep = document.createElement("span");
      sep.textContent = "›";
      crumbs.appendChild(sep);
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = childSection(key).getAttribute("data-label") || key;
      b.addEventListener("click", function () { popTo(i + 1); });
      crumbs.appendChild(b);
    });
    var close = document.createElement("button");
    close.type = "button";
    close.className = "close";
    close.setAttribute("aria-label", "close");
    close.textContent = "×";
    close.addEventListener("click", function () { popTo(0); });
    crumbs.appendChild(close);
  }

  function showTop() {
    var view = $("#overlay .view");
    while (view.firstChild) { childHome().appendChild(view.firstChild); }
    if (!stack.length) {
      $("#overlay").classList.remove("open");
      return;
    }
    view.appendChild(childSection(stack[stack.length - 1]));
    view.scrollTop = 0;
    $("#overlay").classList.add("open");
    renderCrumbs();
  }

  function openChild(key) {
    if (!childSection(key)) { return; }
    if (stack[stack.length - 1] !== key) { stack.push(key); }
    showTop();
  }
  function popTo(depth) { stack = stack.slice(0, depth); showTop(); }
  function pop() { stack.pop(); showTop(); }

  // The chain of child sections holding an element, outermost first.
  function childChain(el) {
    var chain = [];
    var section = el.closest("section.child");
    while (section) {
      chain.unshift(section.id);
      var parentKey = section.getAttribute("data-parent");
      section = parentKey ? childSection(parentKey) : null;
    }
    return chain;
  }

  function reveal(el) {
    if (!el) { return; }
    var chain = childChain(el);
    if (chain.length) { stack = chain; showTop(); } else if (stack.length) { popTo(0); }
    for (var d = el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) {
      d.open = true;
    }
    all("details.more[data-rest]", el).forEach(function (m) { m.open = true; fillRest(m); });
    all(".target").forEach(function (t) { t.classList.remove("target"); });
    var target = el.closest(".item") || el;
    target.classList.add("target");
    el.scrollIntoView({ block: "center" });
  }

  function followHash() {
    var h = decodeURIComponent((location.hash || "").slice(1));
    var at = /(?:^|&)at=([^&]+)/.exec(h);
    var id = at ? at[1] : h;
    if (/^(c-[0-9A-Za-z]+-)?t\d+$|^(c-[0-9A-Za-z]+-)?turn-\d+$/.test(id)) {
      reveal(document.getElementById(id));
    }
  }

  function where(el) {
    var section = el.closest("section.child");
    var label = section ? (section.getAttribute("data-label") || section.id) : "main";
    var anchor = el.id ? el : el.querySelector("[id]");
    if (!anchor) {
      for (var p = el; p && !anchor; p = p.previousElementSibling) { if (p.id) { anchor = p; } }
    }
    var stamp = anchor && /t\d+$/.exec(anchor.id);
    if (el.closest(".archived")) { label += " · archived"; }
    return label + (stamp ? " · " + stamp[0] : "");
  }

  // The page's document (embedded gzipped JSON, or the share's decrypted one), opened once.
  var opened = null;
  function documentOf() {
    if (window.hotlDocument) { return Promise.resolve(window.hotlDocument); }
    if (!opened) {
      opened = (async function () {
        var data = $("#hotl-data");
        if (!data) { return {}; }
        var bytes = Uint8Array.from(atob(data.textContent.trim()), function (c) { return c.charCodeAt(0); });
        var text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
        return JSON.parse(text);
      })();
    }
    return opened;
  }

  // A long output's rest lives in the document until it is opened.
  async function fillRest(details) {
    if (details.getAttribute("data-filled")) { return; }
    details.setAttribute("data-filled", "1");
    var doc = await documentOf();
    var pre = document.createElement("pre");
    pre.className = details.getAttribute("data-class") || "out";
    pre.textContent = (doc.rest || [])[Number(details.getAttribute("data-rest"))] || "";
    details.appendChild(pre);
  }

  // An item's own words, each text node apart (textContent glues a heading to the line after
  // it): a fold's or compaction's card is its note, its archived items are items of their own.
  function ownText(el) {
    var parts = [];
    var walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      var up = node.parentNode;
      while (up && up !== el && !(up.classList && up.classList.contains("item"))) { up = up.parentNode; }
      if (up === el) { parts.push(node.nodeValue); }
    }
    return parts.join(" ").replace(/\s+/g, " ").trim();
  }

  async function buildIndex() {
    var doc = await documentOf();
    var rests = doc.rest || [];
    index = all("#app .item").map(function (el) {
      var text = ownText(el);
      // Rests not opened yet are searched from the document.
      all("details.more[data-rest]:not([data-filled])", el).forEach(function (d) {
        text += " " + (rests[Number(d.getAttribute("data-rest"))] || "").replace(/\s+/g, " ");
      });
      return { el: el, text: text, lower: text.toLowerCase() };
    }).filter(function (e) { return e.text.length > 0; });
  }

  async function search(q) {
    var box = $("#results");
    box.textContent = "";
    var tokens = q.toLowerCase().split(/\s+/).filter(Boolean);
    if (!tokens.length) { box.classList.remove("open"); return 0; }
    if (!index) { await buildIndex(); }
    var hits = index.filter(function (e) {
      return tokens.every(function (t) { return e.lower.indexOf(t) >= 0; });
    });
    var status = document.createElement("div");
    status.className = "where";
    status.textContent = hits.length + " match" + (hits.length === 1 ? "" : "es");
    box.appendChild(status);
    hits.slice(0, 200).forEach(function (hit) {
      var b = document.createElement("button");
      b.type = "button";
      var w = document.createElement("span");
      w.className = "where";
      w.textContent = where(hit.el);
      b.appendChild(w);
      var i = hit.lower.indexOf(tokens[0]);
      b.appendChild(document.createTextNode(hit.text.slice(Math.max(0, i - 40), i + 80)));
      b.addEventListener("click", function () { reveal(hit.el); });
      box.appendChild(b);
    });
    box.classList.add("open");
    return hits.length;
  }
  window.hotlSearch = search;
  window.hotlOpenChild = openChild;
  window.hotlPop = pop;

  function toggleAll(sel) {
    var items = all(sel);
    var open = items.some(function (d) { return !d.open; });
    items.forEach(function (d) { d.open = open; });
  }

  async function downloadLog() {
    var doc = await documentOf();
    if (!doc.log) {
      window.alert(doc.log_left_out || "this page holds no log");
      return;
    }
    var url = URL.createObjectURL(new Blob([doc.log], { type: "application/x-ndjson" }));
    var a = document.createElement("a");
    a.href = url;
    a.download = (doc.session && doc.session.id ? doc.session.id : "session") + ".jsonl";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }
  window.hotlLog = downloadLog;

  function init() {
    var theme = $("#theme");
    if (theme) {
      theme.value = root.getAttribute("data-theme") || "auto";
      theme.addEventListener("change", function () { setTheme(theme.value); });
    }
    // Opening a clipped output's rest (a click, "O", a search hit) fills it in.
    document.addEventListener("toggle", function (e) {
      var d = e.target;
      if (d.open && d.matches && d.matches("details.more[data-rest]")) { fillRest(d); }
    }, true);
    document.addEventListener("click", function (e) {
      var chip = e.target.closest && e.target.closest(".chip");
      if (chip) { openChild(chip.getAttribute("data-child")); }
      if (e.target.classList && e.target.classList.contains("backdrop")) { pop(); }
    });
    var q = $("#q");
    var timer = null;
    if (q) {
      q.addEventListener("input", function () {
        clearTimeout(timer);
        timer = setTimeout(function () { search(q.value); }, 120);
      });
    }
    var dl = $("#download");
    if (dl) { dl.addEventListener("click", downloadLog); }
    var tt = $("#toggle-thinking");
    if (tt) { tt.addEventListener("click", function () { toggleAll(".thinking"); }); }
    var to = $("#toggle-tools");
    if (to) { to.addEventListener("click", function () { toggleAll(".tool, .archived"); }); }
    document.addEventListener("keydown", function (e) {
      var typing = e.target && /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName);
      if (e.key === "Escape") {
        if (stack.length) { pop(); } else if (q && q.value) { q.value = ""; search(""); }
        return;
      }
      if (typing || e.ctrlKey || e.metaKey || e.altKey) {
        if ((e.ctrlKey || e.metaKey) && e.key === "k" && q) { e.preventDefault(); q.focus(); }
        return;
      }
      if (e.key === "t" || e.key === "T") { toggleAll(".thinking"); }
      else if (e.key === "o" || e.key === "O") { toggleAll(".tool, .archived"); }
      else if (e.key === "/" && q) { e.preventDefault(); q.focus(); }
    });
    window.addEventListener("hashchange", followHash);
    followHash();
    root.setAttribute("data-rendered-ms", String(Math.round(performance.now())));
  }
  window.hotlInit = init;
  if (!document.getElementById("hotl-loader")) { init(); }
})();
