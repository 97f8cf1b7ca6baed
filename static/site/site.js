/*
 * Thingyard site behaviour, on every page. No framework: each feature enhances plain HTML that already
 * works without JavaScript (forms post and redirect back), so a failed script never blocks anyone.
 *
 * - menus (<details class="menu">): close on outside click and Escape;
 * - dialogs: [data-dialog-open="id"] opens <dialog id>, [data-dialog-close] closes it;
 * - toggles (form[data-toggle]: like, watch, follow): posted with fetch, the button and its counts updated;
 * - notifications: "Mark read" (form[data-mark-read]) posted with fetch, the bell's count updated;
 * - limits: a character counter under each field with [data-max-length], stated before it is reached;
 * - share: navigator.share when the device has it, else the link is copied;
 * - "download all" (a[data-package]): shows "Preparing…" while the ZIP is built, then downloads it;
 * - live file states ([data-status-url]): polls while a file or image is still processing.
 *
 * Every write goes to the site's own pages with the session and the CSRF token (never the REST API).
 */
(function () {
  "use strict";

  var csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

  function post(url, data) {
    var body = data instanceof FormData ? data : null;
    var headers = { Accept: "application/json", "X-CSRFToken": csrf };
    if (!body) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(data || {});
    }
    return fetch(url, { method: "POST", headers: headers, body: body, credentials: "same-origin" }).then(readJson);
  }

  function getJson(url) {
    return fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" }).then(readJson);
  }

  function readJson(response) {
    return response.json().catch(function () { return {}; }).then(function (body) {
      body.status_code = response.status;
      body.ok = response.ok && body.ok !== false;
      return body;
    });
  }

  function announce(text) {
    var region = document.getElementById("live-region");
    if (!region) {
      region = document.createElement("div");
      region.id = "live-region";
      region.className = "visually-hidden";
      region.setAttribute("role", "status");
      region.setAttribute("aria-live", "polite");
      document.body.appendChild(region);
    }
    region.textContent = "";
    window.setTimeout(function () { region.textContent = text; }, 30);
  }

  // --- menus ------------------------------------------------------------------------------------------
  document.addEventListener("click", function (event) {
    document.querySelectorAll("details.menu[open]").forEach(function (menu) {
      if (!menu.contains(event.target)) menu.removeAttribute("open");
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    document.querySelectorAll("details.menu[open]").forEach(function (menu) {
      menu.removeAttribute("open");
      var summary = menu.querySelector("summary");
      if (summary) summary.focus();
    });
  });

  // --- dialogs ----------------------------------------------------------------------------------------
  document.addEventListener("click", function (event) {
    var opener = event.target.closest("[data-dialog-open]");
    if (opener) {
      var dialog = document.getElementById(opener.getAttribute("data-dialog-open"));
      if (dialog && typeof dialog.showModal === "function") {
        event.preventDefault();
        dialog.showModal();
      }
      return;
    }
    var closer = event.target.closest("[data-dialog-close]");
    if (closer) {
      var open = closer.closest("dialog");
      if (open) {
        event.preventDefault();
        open.close();
      }
    }
  });

  // --- toggles: like, watch ---------------------------------------------------------------------------
  document.addEventListener("submit", function (event) {
    var form = event.target.closest("form[data-toggle]");
    if (!form) return;
    event.preventDefault();
    var button = form.querySelector("button");
    var data = new FormData(form);
    button.disabled = true;
    post(form.getAttribute("action"), data).then(function (body) {
      button.disabled = false;
      if (!body.ok) {
        announce(body.error || "That did not work.");
        return;
      }
      var kind = form.getAttribute("data-toggle");
      var on = kind === "like" ? body.is_liked : kind === "follow" ? body.following : body.watching;
      button.setAttribute("aria-pressed", on ? "true" : "false");
      var action = form.querySelector('input[name="action"]');
      if (action) action.value = on ? "unlike" : "like";
      var label = button.querySelector(".label");
      if (label) label.textContent = on ? form.getAttribute("data-on") : form.getAttribute("data-off");
      var count = button.querySelector(".count");
      if (count && typeof body.like_count === "number") count.textContent = String(body.like_count);
      // Every other place on the page that shows the same counter (the stats line, a follower count).
      var total = typeof body.like_count === "number" ? body.like_count : body.count;
      var key = form.getAttribute("data-count-key");
      if (key && typeof total === "number") {
        document.querySelectorAll('[data-count="' + key + '"]').forEach(function (el) {
          el.textContent = String(total);
        });
      }
      announce(body.message || "");
    }, function () {
      button.disabled = false;
      form.submit();
    });
  });

  // --- share ------------------------------------------------------------------------------------------
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-share-url]");
    if (!button) return;
    var url = button.getAttribute("data-share-url");
    var title = button.getAttribute("data-share-title") || document.title;
    if (navigator.share) {
      navigator.share({ title: title, url: url }).catch(function () {});
      return;
    }
    var done = function () {
      var label = button.querySelector(".label") || button;
      var before = label.textContent;
      label.textContent = "Link copied";
      announce("Link copied to the clipboard.");
      window.setTimeout(function () { label.textContent = before; }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(done, function () { window.prompt("Copy this link:", url); });
    } else {
      window.prompt("Copy this link:", url);
    }
  });

  // --- download all -------------------------------------------------------------------------------------
  document.addEventListener("click", function (event) {
    var link = event.target.closest("a[data-package]");
    if (!link || link.getAttribute("aria-busy") === "true") return;
    event.preventDefault();
    var label = link.querySelector(".label") || link;
    var idle = label.textContent;
    link.setAttribute("aria-busy", "true");
    link.classList.add("is-preparing");
    label.textContent = "Preparing…";
    announce("Preparing the download of all files.");
    var started = Date.now();
    (function poll() {
      getJson(link.href).then(function (body) {
        if (body.status === "ready" && body.url) {
          label.textContent = idle;
          link.removeAttribute("aria-busy");
          link.classList.remove("is-preparing");
          link.setAttribute("data-ready-url", body.url);
          window.location.assign(body.url);
        } else if (body.status === "building" && Date.now() - started < 180000) {
          window.setTimeout(poll, 1500);
        } else {
          label.textContent = idle;
          link.removeAttribute("aria-busy");
          link.classList.remove("is-preparing");
          announce(body.error || "The download could not be prepared; try again.");
        }
      }, function () {
        window.setTimeout(poll, 3000);
      });
    })();
  });

  // --- live processing states ----------------------------------------------------------------------------
  function watchStatus(root) {
    if (root.__polling) return;
    root.__polling = true;
    var url = root.getAttribute("data-status-url");
    var delay = 1500;
    var sawProcessing = false;
    (function poll() {
      if (root.getAttribute("data-settled") === "true") {
        root.__polling = false;
        return;
      }
      getJson(url).then(function (body) {
        var files = root.querySelector("[data-files]");
        if (files && typeof body.files_html === "string") files.innerHTML = body.files_html;
        var images = root.querySelector("[data-images]");
        if (images && typeof body.images_html === "string") images.innerHTML = body.images_html;
        root.dispatchEvent(new CustomEvent("thingyard:status", { bubbles: true, detail: body }));
        if (body.settled) {
          root.setAttribute("data-settled", "true");
          root.__polling = false;
          if (sawProcessing) announce("Every file is processed.");
        } else {
          sawProcessing = true;
          window.setTimeout(poll, delay);
        }
      }, function () {
        window.setTimeout(poll, delay * 2);
      });
    })();
  }

  // The search boxes' autocomplete: tag and Thing names starting with what is typed, as the options of
  // the box's <datalist> (the browser shows them; a pick fills the box and the search runs as usual).
  document.querySelectorAll("input[data-suggest-url][list]").forEach(function (input) {
    var list = document.getElementById(input.getAttribute("list"));
    var timer = null;
    var asked = "";
    if (!list) return;
    input.addEventListener("input", function () {
      window.clearTimeout(timer);
      var term = input.value.trim();
      if (term.length < 2 || term === asked) return;
      timer = window.setTimeout(function () {
        asked = term;
        fetch(input.getAttribute("data-suggest-url") + "?q=" + encodeURIComponent(term), {
          headers: { Accept: "application/json" }, credentials: "same-origin"
        }).then(function (response) { return response.ok ? response.json() : { suggestions: [] }; })
          .then(function (body) {
            if (body.q !== input.value.trim()) return;
            list.replaceChildren();
            (body.suggestions || []).forEach(function (item) {
              var option = document.createElement("option");
              option.value = item.name;
              option.label = item.type === "tag" ? "Tag" : "Thing";
              list.appendChild(option);
            });
          }).catch(function () {});
      }, 150);
    });
  });

  window.Thingyard = {
    post: post,
    getJson: getJson,
    announce: announce,
    csrf: csrf,
    watchStatus: function (root) {
      root.setAttribute("data-settled", "false");
      watchStatus(root);
    },
  };

  document.querySelectorAll("[data-status-url][data-settled=false]").forEach(watchStatus);

  // --- notifications: mark read in place, the bell follows -----------------------------------------------
  function bellSet(unread) {
    document.querySelectorAll("[data-bell-count]").forEach(function (el) { el.textContent = String(unread); });
    document.querySelectorAll("[data-bell]").forEach(function (el) { el.classList.toggle("has-unread", unread > 0); });
  }
  document.addEventListener("submit", function (event) {
    var form = event.target.closest("form[data-mark-read]");
    if (!form) return;
    event.preventDefault();
    post(form.getAttribute("action"), new FormData(form)).then(function (body) {
      if (!body.ok) { announce(body.error || "That did not work."); return; }
      var item = form.closest(".notification");
      if (item) {
        item.classList.remove("unread");
        var badge = item.querySelector(".badge");
        if (badge) badge.remove();
      }
      form.remove();
      if (typeof body.unread === "number") bellSet(body.unread);
      announce(body.message || "");
    }, function () { form.submit(); });
  });

  // --- limits: a character counter under long fields ------------------------------------------------------
  // The limit is stated before it is reached, and going over it is shown, never cut: the server refuses an
  // over-long text with a clear error (the fields carry no `maxlength`, which would cut a paste silently).
  var numbers = window.Intl ? new Intl.NumberFormat() : { format: String };
  function counterFor(field) {
    var max = parseInt(field.getAttribute("data-max-length"), 10);
    var counter = document.getElementById(field.id + "-count");
    if (!counter) {
      counter = document.createElement("span");
      counter.id = field.id + "-count";
      counter.className = "char-count";
      field.insertAdjacentElement("afterend", counter);
      var described = (field.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      described.push(counter.id);
      field.setAttribute("aria-describedby", described.join(" "));
    }
    var wasOver = false;
    function update() {
      var length = field.value.length;
      var over = length > max;
      counter.textContent = over
        ? numbers.format(length - max) + " characters over the limit of " + numbers.format(max) + ": shorten it to save."
        : numbers.format(length) + " of " + numbers.format(max) + " characters";
      counter.classList.toggle("over", over);
      if (over !== wasOver) {
        if (over) announce(counter.textContent);
        field.setAttribute("aria-invalid", over ? "true" : "false");
        wasOver = over;
      }
    }
    field.addEventListener("input", update);
    update();
  }
  document.querySelectorAll("[data-max-length][id]").forEach(counterFor);
})();
