// grader review's one script, served by the review server itself (no inline script, so a strict
// Content-Security-Policy `script-src 'self'` holds). Every form works without it; it adds:
//   j / k     the next / previous TA-graded group      n   the next group without points
//   1 ... 9   apply or remove rubric item N on the current group, saved at once
//   c         the current group's comment
// and a banner when the batch changed under the page (the server counts its reloads).
(function () {
  "use strict";
  var groups = function () { return Array.prototype.slice.call(document.querySelectorAll(".group.ta")); };
  var current = null;

  function choose(g, scroll) {
    if (!g) { return; }
    if (current) { current.classList.remove("current"); }
    current = g;
    g.classList.add("current");
    if (history.replaceState) { history.replaceState(null, "", "#" + g.id); }
    if (scroll) { g.scrollIntoView({block: "start"}); }
  }

  function move(step, onlyTodo) {
    var all = groups();
    if (!all.length) { return; }
    var at = all.indexOf(current);
    for (var i = 1; i <= all.length; i++) {
      var g = all[(at + step * i + all.length * i) % all.length];
      if (!onlyTodo || g.classList.contains("todo")) { choose(g, true); return; }
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var all = groups();
    var hashed = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    choose(hashed && hashed.classList.contains("ta") ? hashed : all[0], false);
    all.forEach(function (g) { g.addEventListener("click", function () { choose(g, false); }); });
  });

  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.ctrlKey || e.metaKey || e.altKey || (t && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) { return; }
    if (e.key === "j") { move(1, false); } else if (e.key === "k") { move(-1, false); }
    else if (e.key === "n") { move(1, true); }
    else if (e.key === "c" && current) {
      var box = current.querySelector("form[id^='mark-'] textarea");
      if (box) { box.focus(); }
    } else if (/^[1-9]$/.test(e.key) && current) {
      var item = current.querySelector("form[id^='mark-'] input[data-key='" + e.key + "']");
      if (!item) { return; }
      item.checked = !item.checked;
      item.form.submit();
    } else { return; }
    e.preventDefault();
  });

  var seen = document.body ? document.body.getAttribute("data-generation") : null;
  function poll() {
    fetch("/generation", {cache: "no-store"}).then(function (r) { return r.text(); }).then(function (g) {
      if (seen === null) { seen = document.body.getAttribute("data-generation"); }
      if (g.trim() !== seen && !document.getElementById("changed")) {
        var p = document.createElement("p");
        p.id = "changed";
        p.className = "notice";
        p.textContent = "The batch changed since this page was loaded (new submissions or a regrouping). " +
          "Your marks are saved; reload to see the groups now. ";
        var a = document.createElement("a");
        a.href = location.pathname;
        a.textContent = "reload";
        p.appendChild(a);
        document.querySelector("main").prepend(p);
      }
    }).catch(function () {});
  }
  setInterval(poll, 5000);
}());
