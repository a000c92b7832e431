// MemoryHub dashboard: the few behaviours htmx does not cover. Everything works without this file too,
// except the select-all box, the dialog opening as a modal and the notices appearing as toasts.
(function () {
  "use strict";

  // A notice with an Undo stays long enough to reach for it (and while the pointer or focus is on it); the
  // others go after a few seconds. Errors stay until dismissed.
  var NOTICE_MS = 6000;
  var UNDO_MS = 20000;

  function showMessage(text, level, undo) {
    var box = document.getElementById("messages");
    if (!box) return;
    var div = document.createElement("div");
    div.className = "message message-" + (level || "info");
    div.setAttribute("role", level === "error" ? "alert" : "status");
    var span = document.createElement("span");
    span.className = "message-text";
    span.textContent = text;
    div.appendChild(span);
    if (undo && undo.url) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "btn btn-sm message-undo";
      button.textContent = "Undo";
      button.addEventListener("click", function () { runUndo(undo, button); });
      div.appendChild(button);
    }
    var close = document.createElement("button");
    close.type = "button";
    close.className = "message-close";
    close.setAttribute("data-dismiss", "");
    close.setAttribute("aria-label", "Dismiss message");
    close.textContent = "×";
    div.appendChild(close);
    box.replaceChildren(div);
    if (level === "success") {
      var expire = function () {
        if (!div.isConnected) return;
        if (div.matches(":hover, :focus-within")) { setTimeout(expire, 1000); return; }
        div.remove();
      };
      setTimeout(expire, undo && undo.url ? UNDO_MS : NOTICE_MS);
    }
  }

  function runUndo(undo, button) {
    button.disabled = true;
    var target = undo.target && document.querySelector(undo.target);
    var options = { values: undo.values || {}, swap: target ? "outerHTML" : "none" };
    if (target) options.target = target;
    htmx.ajax("POST", undo.url, options).then(function () {
      // The answer replaced nothing on this page (a merge undone from the list): show the list as it is now.
      if (!target && document.getElementById("filters")) htmx.trigger("#filters", "submit");
    });
  }

  // The selection lives here, not in the checkboxes: a live search, a row an action swapped in or a page of results
  // re-rendered by the server comes back unticked, and the person's ticks must survive all three. Ticked memories the
  // current list no longer shows stay selected, as hidden inputs in the bulk form, and the bar says how many.
  var picked = new Set();

  function restoreSelection() {
    var form = document.getElementById("bulk-form");
    if (!form) return;
    form.querySelectorAll("input[data-kept]").forEach(function (input) { input.remove(); });
    var shown = new Set();
    form.querySelectorAll('input[type=checkbox][name="selected"]').forEach(function (box) {
      shown.add(box.value);
      box.checked = picked.has(box.value);
    });
    picked.forEach(function (id) {
      if (shown.has(id)) return;
      var kept = document.createElement("input");
      kept.type = "hidden";
      kept.name = "selected";
      kept.value = id;
      kept.setAttribute("data-kept", "");
      form.appendChild(kept);
    });
  }

  function updateSelectedCount() {
    var form = document.getElementById("bulk-form");
    if (!form) return;
    var boxes = form.querySelectorAll('input[type=checkbox][name="selected"]');
    boxes.forEach(function (box) { if (box.checked) picked.add(box.value); else picked.delete(box.value); });
    restoreSelection();
    var n = picked.size;
    var hidden = form.querySelectorAll("input[data-kept]").length;
    var label = form.querySelector("[data-selected-count]");
    if (label) label.textContent = n + " selected";
    var note = form.querySelector("[data-selected-hidden]");
    if (note) note.textContent = hidden ? "(" + hidden + " not in this list)" : "";
    var bar = form.querySelector(".bulk");
    if (bar) bar.classList.toggle("has-selection", n > 0);
    var all = form.querySelector("[data-select-all]");
    var ticked = form.querySelectorAll('input[type=checkbox][name="selected"]:checked').length;
    if (all) {
      all.checked = boxes.length > 0 && ticked === boxes.length;
      all.indeterminate = ticked > 0 && ticked < boxes.length;
    }
  }

  function clearSelection() {
    picked.clear();
    document.querySelectorAll('#bulk-form input[type=checkbox][name="selected"]').forEach(function (box) { box.checked = false; });
    updateSelectedCount();
  }

  // One row menu open at a time; a click elsewhere or Escape closes it (the top bar menu stays until toggled).
  function closeMenus(except) {
    document.querySelectorAll(".row-actions.is-open").forEach(function (menu) {
      if (menu === except) return;
      menu.classList.remove("is-open");
      var button = menu.querySelector("[data-menu-toggle]");
      if (button) button.setAttribute("aria-expanded", "false");
    });
  }

  function closeDialog(dialog) {
    if (!dialog) return;
    if (dialog.open) dialog.close();
    var slot = document.getElementById("dialog-slot");
    if (slot && slot.contains(dialog)) slot.replaceChildren();
  }

  document.addEventListener("DOMContentLoaded", function () {
    // "/" on a page without a search box leads here, to the memory list's.
    if (window.location.hash === "#search" && document.getElementById("id_q")) document.getElementById("id_q").focus();
    htmx.onLoad(function (root) {
      var dialogs = root.matches && root.matches("dialog[data-autoshow]") ? [root] : root.querySelectorAll ? root.querySelectorAll("dialog[data-autoshow]") : [];
      dialogs.forEach(function (dialog) {
        if (!dialog.open) dialog.showModal();
        var field = dialog.querySelector("textarea, input:not([type=hidden])");
        if (field) field.focus();
        dialog.addEventListener("close", function () { closeDialog(dialog); });
      });
      var editing = root.querySelector && root.querySelector(".is-editing textarea, .is-editing input[type=text]");
      if (editing && root.classList && root.classList.contains("is-editing")) editing.focus();
      restoreSelection();
      updateSelectedCount();
    });
  });

  document.addEventListener("click", function (event) {
    var target = event.target;
    var toggle = target.closest("[data-menu-toggle]");
    if (toggle) {
      var holder = toggle.closest(".row-actions, .topbar");
      closeMenus(holder);
      var open = holder.classList.toggle("is-open");
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
      return;
    }
    var fold = target.closest("[data-filters-toggle]");
    if (fold) {
      var filters = fold.closest("form");
      fold.setAttribute("aria-expanded", filters.classList.toggle("is-open") ? "true" : "false");
      return;
    }
    if (!target.closest(".row-actions.is-open")) closeMenus(null);
    if (target.closest("[data-clear-selection]")) {
      clearSelection();
    } else if (target.closest("[data-dismiss]")) {
      target.closest(".message").remove();
    } else if (target.closest("[data-close-dialog]")) {
      closeDialog(target.closest("dialog"));
    }
  });

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches("[data-select-all]")) {
      var form = target.closest("form");
      form.querySelectorAll('input[name="selected"]').forEach(function (box) { box.checked = target.checked; });
    }
    if (target.matches('[data-select-all], input[name="selected"]')) updateSelectedCount();
  });

  // Enter in an inline row form saves that row (the bulk form around the table must not catch it).
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter") return;
    var row = event.target.closest("[data-enter-submit]");
    if (!row) return;
    var isTextarea = event.target.tagName === "TEXTAREA";
    if (isTextarea && !(event.ctrlKey || event.metaKey)) return;
    if (event.target.tagName === "BUTTON" || event.target.tagName === "A") return;
    var button = row.querySelector("[data-default-action]");
    if (button) {
      event.preventDefault();
      button.click();
    }
  });

  // The search box searches as one types (and on Enter); its "change" on blur or on Enter must not reach the
  // filters form, which listens for changes of the other fields: it sent the search a second time, and the blur
  // that a first tick of a row causes re-ran the search and swapped the ticked row away.
  document.addEventListener("change", function (event) {
    if (event.target.id === "id_q") event.stopPropagation();
  }, true);

  // Keyboard shortcuts on every list page (the memory list, proposals, changes, the gate log, the decay page's
  // table): "/" search, j/k move, o or Enter open, x select, c confirm, e edit, t tags, a archive/restore or
  // accept, r reject, n/b/o answer a conflict, u undo or restore, n new memory, ? the list of shortcuts. They act
  // on the outlined item (a row or a card, each with a stable id), through the same buttons a click uses, and
  // never while typing in a field.
  var selectedId = null;
  var ITEMS = "tr.memory-row, [data-nav-item], [data-nav-list] > tr";

  function listRows() {
    return Array.prototype.slice.call(document.querySelectorAll(ITEMS)).filter(function (el) {
      return el.getClientRects().length > 0;
    });
  }

  function markSelected() {
    listRows().forEach(function (tr) {
      var on = tr.id === selectedId;
      tr.classList.toggle("is-selected", on);
      if (on) tr.setAttribute("aria-current", "true"); else tr.removeAttribute("aria-current");
    });
  }

  function moveSelection(step) {
    var rows = listRows();
    if (!rows.length) return;
    var index = rows.findIndex(function (tr) { return tr.id === selectedId; });
    index = index < 0 ? (step > 0 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, index + step));
    selectedId = rows[index].id;
    markSelected();
    rows[index].scrollIntoView({ block: "nearest" });
  }

  function selectedRow() {
    return selectedId ? document.getElementById(selectedId) : null;
  }

  // A key pressed while a row is being swapped waits for the swap: a button htmx has not processed yet would
  // submit the bulk form around the table instead (and replace the whole list with one row).
  function whenSettled(action) {
    if (document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added")) {
      setTimeout(function () { whenSettled(action); }, 30);
    } else {
      action();
    }
  }

  // The first of `names` the outlined item offers is clicked (a field is focused instead: a proposal's text).
  function act(names, fallback) {
    whenSettled(function () {
      var current = selectedRow();
      if (!current) return;
      for (var i = 0; i < names.length; i++) {
        var control = current.querySelector("[data-shortcut=" + names[i] + "]");
        if (control) { control.click(); return; }
      }
      var field = fallback && current.querySelector(fallback);
      if (field) field.focus();
    });
  }

  // The decision keys and the controls they press, in order of preference.
  var DECISIONS = {
    n: ["newer"], b: ["both"], o: ["older"], a: ["archive", "accept"], r: ["reject"], u: ["undo", "restore"],
  };

  function offered(item, names) {
    for (var i = 0; i < names.length; i++) {
      var control = item && item.querySelector("[data-shortcut=" + names[i] + "]");
      if (control) return control;
    }
    return null;
  }

  // Press the outlined item's control for a decision key, then outline the next item (a memory row's archive
  // toggles in place instead: a second a takes it back). False when the item does not offer it, so the key keeps
  // its other meaning (o opens, n is a new memory on the memory list).
  function decide(names) {
    var rows = listRows();
    var current = selectedRow();
    if (!current || rows.indexOf(current) < 0) {
      // Nothing outlined: outline the first item that offers it, and act only on the next press (what a key
      // decides is always what the person sees outlined).
      current = rows.find(function (row) { return offered(row, names); });
      if (!current) return false;
      selectedId = current.id;
      markSelected();
      current.scrollIntoView({ block: "nearest" });
      return true;
    } else if (!offered(current, names)) {
      return false;
    }
    var id = current.id;
    whenSettled(function () {
      var control = offered(document.getElementById(id), names);
      if (!control) return;
      control.click();
      if (selectedId === id && !control.closest("tr.memory-row")) moveSelection(1);
    });
    return true;
  }

  var SHORTCUTS = {
    j: function () { moveSelection(1); },
    k: function () { moveSelection(-1); },
    x: function () {
      var box = selectedRow() && selectedRow().querySelector('input[type=checkbox][name="selected"]');
      if (box) { box.checked = !box.checked; updateSelectedCount(); }
    },
    o: function () { act(["open"], null); },
    Enter: function () { act(["open"], null); },
    c: function () { act(["confirm"], null); },
    e: function () { act(["edit"], "textarea"); },
    t: function () { act(["retag"], null); },
    n: function () {
      var create = document.querySelector("[data-shortcut-new]");
      if (create) create.click();
    },
    m: function () {
      var merge = document.querySelector('#bulk-form .bulk button[value="merge"]');
      if (merge && picked.size) whenSettled(function () { merge.click(); });
    },
  };

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && event.target.id === "id_q") {
      event.preventDefault();  // leave the box as it is (Chrome would empty a search box and search for nothing)
      event.target.blur();
      return;
    }
    if (event.key === "Escape") closeMenus(null);
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var field = event.target.closest && event.target.closest("input, textarea, select, button, a, [contenteditable]");
    if (event.key === "Enter" && field) return;  // Enter on a link or button is that control's own
    field = event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
    if (field || document.querySelector("dialog[open]")) return;
    if (event.key === "/") {
      var search = document.getElementById("id_q") || document.querySelector("[data-search]");
      event.preventDefault();
      if (search) { search.focus(); search.select(); } else { window.location.assign("/#search"); }  // pages without one
      return;
    }
    if (event.key === "?") {
      var help = document.getElementById("shortcuts-dialog");
      if (help) { event.preventDefault(); help.showModal(); }
      return;
    }
    // A decision (a conflict's n, b or o; a, r; u) acts on the outlined item only, never on the first one of the
    // page; with nothing outlined, the first item that offers it is outlined first. Then the outline moves on.
    var decision = DECISIONS[event.key];
    if (decision && decide(decision)) { event.preventDefault(); return; }
    var action = SHORTCUTS[event.key];
    if (!action || (event.key === "Enter" && !selectedRow())) return;
    if (!listRows().length && event.key !== "n") return;
    event.preventDefault();
    action();
  });

  // A row an action swapped in keeps the selection outline.
  document.addEventListener("htmx:afterSettle", markSelected);

  // hx-confirm for one button of a form (a bulk archive asks first; the other bulk actions do not), with the count.
  document.addEventListener("htmx:confirm", function (event) {
    var trigger = event.detail.triggeringEvent;
    var submitter = trigger && trigger.submitter;
    if (!submitter || !submitter.hasAttribute("data-confirm")) return;
    event.preventDefault();
    if (window.confirm(submitter.getAttribute("data-confirm").replace("{n}", String(picked.size)))) event.detail.issueRequest(true);
  });

  // A bulk action or merge that went through: what was selected has been acted on.
  document.addEventListener("selection-done", clearSelection);

  document.addEventListener("notice", function (event) {
    var detail = event.detail || {};
    var value = detail.value || detail;
    if (value && value.text) showMessage(value.text, value.level || "success", value.undo);
  });

  // A filtered list's URL carries only what was chosen, so a bookmark reads "/?project=alpha", not every empty field.
  document.addEventListener("htmx:configRequest", function (event) {
    if (!event.detail.elt || event.detail.elt.id !== "filters" || !event.detail.formData) return;
    var data = event.detail.formData;
    Array.from(new Set(Array.from(data.keys()))).forEach(function (key) {
      if (data.getAll(key).every(function (value) { return value === ""; })) data.delete(key);
    });
    if (data.get("status") === "active") data.delete("status");
  });

  // Back and forward restore a snapshot of the page: put the filter fields back in line with its URL.
  document.addEventListener("htmx:historyRestore", function () {
    var form = document.getElementById("filters");
    if (!form) return;
    var params = new URLSearchParams(window.location.search);
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.name) return;
      var value = params.get(field.name) || "";
      if (field.tagName === "SELECT") {
        field.value = value || (field.name === "status" ? "active" : "");
      } else if (field.type !== "submit") {
        field.value = value;
      }
    });
  });

  // A refused request (a form shown again with its error) leaves no earlier "saved" notice standing beside it.
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr || xhr.status < 400 || xhr.getResponseHeader("HX-Retarget") === "#messages") return;
    document.querySelectorAll("#messages .message-success").forEach(function (old) { old.remove(); });
  });

  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && xhr.status >= 500) showMessage("The server could not do that (error " + xhr.status + "). Nothing was changed by this page.", "error");
  });
  document.addEventListener("htmx:sendError", function () {
    showMessage("The server did not answer. Check that MemoryHub is running, then try again.", "error");
  });
})();
