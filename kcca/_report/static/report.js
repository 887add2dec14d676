// kcca report: the query browser. Plain JavaScript, no libraries, no network.
// Reads the JSON of the element #report-data and renders one page of queries at a time for
// the chosen system; every text is inserted with textContent (never as HTML).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var PAGE = 25;
  var systemSel = document.getElementById("system");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function rankClass(r) { return r <= 1 ? "rank top1" : (r <= 10 ? "rank top10" : "rank low"); }

  // Badges of a pair (image i, caption j): gold, crowd votes, expert scores.
  function marks(parent, i, j) {
    if (i === j) { parent.appendChild(el("span", "mark gold", "gold")); }
    var jd = data.judgments[i + "," + j];
    if (!jd) { return; }
    if (jd.c) {
      var m = el("span", jd.c[2] ? "mark rel" : "mark notrel",
                 (jd.c[2] ? "\u2713 " : "\u2717 ") + jd.c[0] + "/" + (jd.c[0] + jd.c[1]));
      m.title = "crowd: " + jd.c[0] + " yes, " + jd.c[1] + " no (" +
        (jd.c[2] ? "relevant" : "not relevant") + " under " + data.relevanceRule + ")";
      parent.appendChild(m);
    }
    if (jd.e) {
      var sum = 0;
      for (var n = 0; n < jd.e.length; n++) { sum += jd.e[n]; }
      var e = el("span", "mark expert", "E " + (sum / jd.e.length).toFixed(2));
      e.title = "expert scores (1-4): " + jd.e.join(", ");
      parent.appendChild(e);
    }
  }

  function thumb(i, cls) {
    if (!data.thumbs[i]) {  // made without the data: the image's name stands in
      return el("div", (cls || "thumb") + " nothumb", data.images[i]);
    }
    var img = el("img", cls || "thumb");
    img.src = data.thumbs[i];
    img.alt = data.images[i];
    img.title = data.images[i];
    return img;
  }

  // A query's table row: its cell (the nodes `head`, its gold rank, then the nodes `tail`) and
  // the ranked list (class `listClass`) of block.top[q], one li per item ("gold": the query's
  // own), filled by `fill(li, item, pos)`.
  function queryRow(q, block, head, tail, listClass, fill) {
    var tr = el("tr", "query");
    tr.dataset.q = q;
    var left = el("td", "q");
    head.forEach(function (node) { left.appendChild(node); });
    var r = block.rank[q];
    left.appendChild(el("span", rankClass(r), "gold rank " + r + " / " + data.n));
    tail.forEach(function (node) { left.appendChild(node); });
    var right = el("td");
    var ol = el("ol", listClass);
    block.top[q].forEach(function (item, pos) {
      var li = el("li", item === q ? "gold" : "");
      fill(li, item, pos);
      ol.appendChild(li);
    });
    right.appendChild(ol);
    tr.appendChild(left);
    tr.appendChild(right);
    return tr;
  }

  function annotationRow(q, block) {
    var head = [
      thumb(q),
      el("div", "qid", data.images[q]),
      el("div", "goldtext", "gold: " + data.captions[q]),
    ];
    return queryRow(q, block, head, [], "cands", function (li, j) {
      li.appendChild(el("span", "text", data.captions[j]));
      marks(li, q, j);
    });
  }

  function searchRow(q, block) {
    var head = [el("div", "goldtext", data.captions[q]), el("div", "qid", data.captionIds[q])];
    var tail = [thumb(q, "thumb goldthumb")];
    return queryRow(q, block, head, tail, "strip", function (li, i, pos) {
      li.appendChild(thumb(i));
      li.appendChild(el("span", "pos", "#" + (pos + 1) + " "));
      marks(li, i, q);
    });
  }

  function View(task) {
    var root = document.getElementById(task);
    this.task = task;
    this.filter = root.querySelector("input.filter");
    this.sort = root.querySelector("select.sort");
    this.tbody = root.querySelector("table.queries tbody");
    this.count = root.querySelector(".count");
    this.more = root.querySelector("button.more");
    this.shown = PAGE;
    var self = this;
    this.filter.addEventListener("input", function () { self.shown = PAGE; self.render(); });
    this.sort.addEventListener("change", function () { self.shown = PAGE; self.render(); });
    this.more.addEventListener("click", function () { self.shown += PAGE; self.render(); });
  }

  View.prototype.haystack = function (q) {
    var id = this.task === "annotation" ? data.images[q] : data.captionIds[q];
    return (id + " " + data.captions[q]).toLowerCase();
  };

  View.prototype.render = function () {
    var system = data.systems[Number(systemSel.value)];
    var block = system[this.task];
    this.tbody.replaceChildren();
    if (!block) {
      this.count.textContent = system.name + " has no " + this.task + " rankings";
      this.more.hidden = true;
      return;
    }
    var words = this.filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    var order = [];
    for (var q = 0; q < data.n; q++) {
      var hay = this.haystack(q);
      if (words.every(function (w) { return hay.indexOf(w) >= 0; })) { order.push(q); }
    }
    if (this.sort.value === "best") {
      order.sort(function (a, b) { return block.rank[a] - block.rank[b] || a - b; });
    } else if (this.sort.value === "worst") {
      order.sort(function (a, b) { return block.rank[b] - block.rank[a] || a - b; });
    }
    var shown = order.slice(0, this.shown);
    var makeRow = this.task === "annotation" ? annotationRow : searchRow;
    var frag = document.createDocumentFragment();
    shown.forEach(function (q) { frag.appendChild(makeRow(q, block)); });
    this.tbody.appendChild(frag);
    this.count.textContent = "showing " + shown.length + " of " + order.length +
      " matching queries (" + data.n + " in all), ranked by " + system.name;
    this.more.hidden = shown.length >= order.length;
  };

  var views = [new View("annotation"), new View("search")];
  function renderAll() { views.forEach(function (v) { v.render(); }); }
  systemSel.addEventListener("change", function () {
    views.forEach(function (v) { v.shown = PAGE; });
    renderAll();
  });
  renderAll();
  document.body.dataset.ready = "1";
}());
