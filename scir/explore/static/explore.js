// The explorer's filters (scir explore; docs/explorer.md): select the index's result rows by
// track, model, architecture, presentation and outcome, and search them by task id; the cells
// table follows the first four. The choice is kept in the address's #fragment, so the back
// button from a task page returns to the same selection. No framework, no network.
(function () {
  "use strict";

  var AXES = ["track", "model", "arch", "presentation"];
  var FAILED = "!ok";

  function byId(id) { return document.getElementById(id); }

  function current(form) {
    var state = {};
    AXES.concat(["status", "task"]).forEach(function (name) {
      var field = form.elements.namedItem(name);
      state[name] = field ? field.value.trim() : "";
    });
    return state;
  }

  function statusMatches(wanted, status) {
    if (!wanted) { return true; }
    if (wanted === FAILED) { return status !== "ok"; }
    return status === wanted;
  }

  function axesMatch(row, state) {
    return AXES.every(function (axis) {
      return !state[axis] || row.getAttribute("data-" + axis) === state[axis];
    });
  }

  function apply(form) {
    var state = current(form);
    var needle = state.task.toLowerCase();
    var shown = 0;
    var results = byId("results");
    if (results) {
      Array.prototype.forEach.call(results.tBodies[0].rows, function (row) {
        var task = (row.getAttribute("data-task") || "").toLowerCase();
        var keep = axesMatch(row, state) &&
          statusMatches(state.status, row.getAttribute("data-status")) &&
          (!needle || task.indexOf(needle) !== -1);
        row.hidden = !keep;
        if (keep) { shown += 1; }
      });
    }
    var cells = byId("cells");
    if (cells) {
      Array.prototype.forEach.call(cells.tBodies[0].rows, function (row) {
        row.hidden = !axesMatch(row, state);
      });
    }
    var count = byId("shown-count");
    if (count) { count.textContent = String(shown); }
    var params = new URLSearchParams();
    Object.keys(state).forEach(function (k) { if (state[k]) { params.set(k, state[k]); } });
    var hash = params.toString();
    if (window.location.hash.slice(1) !== hash) {
      window.history.replaceState(null, "", hash ? "#" + hash : window.location.pathname);
    }
  }

  function restore(form) {
    var params = new URLSearchParams(window.location.hash.slice(1));
    params.forEach(function (value, name) {
      var field = form.elements.namedItem(name);
      if (!field) { return; }
      if (field.tagName === "SELECT") {
        var known = Array.prototype.some.call(field.options, function (o) {
          return o.value === value;
        });
        if (!known) { return; }
      }
      field.value = value;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = byId("filters");
    if (!form) { return; }
    restore(form);
    form.addEventListener("input", function () { apply(form); });
    form.addEventListener("change", function () { apply(form); });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("reset", function () {
      window.setTimeout(function () { apply(form); }, 0);
    });
    apply(form);
  });
}());
