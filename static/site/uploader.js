/*
 * Uploads from the browser, as spec §4.10 describes them, each file on its own:
 *
 *   1. ask the site for the upload's signed form (POST data-start-url {filename}, session + CSRF);
 *   2. post the bytes straight to the object store with that form (fields in order, the file last):
 *      they never pass through Django; the <progress> follows the upload;
 *   3. ask the site to finalize (POST /account/uploads/<id>/finalize): the server checks with the store
 *      that the bytes arrived, so what the store answered the browser is never trusted. (The store
 *      redirects to the API's finalize URL; that hop is cross-origin and token-only, so the browser's
 *      request ends there with an opaque error, and step 3 is what counts.)
 *   4. follow processing → live (or failed, with the reason) through the page's status polling.
 *
 * Markup: [data-uploader] with data-start-url, [data-dropzone], input[type=file][data-file-input] and
 * ul[data-upload-list]. Several files may be dropped or chosen at once; they upload in parallel.
 * For "I made one" (data-mode=make) the finalize answer names the new make's page, which opens.
 */
(function () {
  "use strict";

  var FINALIZE_URL = "/account/uploads/{id}/finalize";
  var MISSING_RETRIES = 4;

  function formatSize(bytes) {
    if (bytes < 1024) return bytes + " B";
    var units = ["KB", "MB", "GB"];
    var value = bytes;
    for (var i = 0; i < units.length; i += 1) {
      value /= 1024;
      if (value < 1024 || i === units.length - 1) return value.toFixed(1) + " " + units[i];
    }
    return bytes + " B";
  }

  function Item(list, file) {
    this.file = file;
    this.el = document.createElement("li");
    this.el.className = "upload-item";
    this.el.setAttribute("data-state", "waiting");
    this.el.setAttribute("data-name", file.name);
    var name = document.createElement("span");
    name.className = "name";
    name.textContent = file.name;
    this.badge = document.createElement("span");
    this.badge.className = "badge badge-pending";
    this.badge.textContent = "Waiting";
    this.progress = document.createElement("progress");
    this.progress.max = 100;
    this.progress.value = 0;
    this.progress.setAttribute("aria-label", "Upload of " + file.name);
    this.detail = document.createElement("span");
    this.detail.className = "detail";
    this.detail.textContent = formatSize(file.size);
    this.el.append(name, this.badge, this.progress, this.detail);
    list.appendChild(this.el);
  }

  Item.prototype.state = function (state, label, detail) {
    this.el.setAttribute("data-state", state);
    var css = { uploading: "pending", finalizing: "pending", processing: "processing", live: "live", failed: "failed", stalled: "failed" };
    this.badge.className = "badge badge-" + (css[state] || "pending");
    this.badge.textContent = label;
    if (detail !== undefined) this.detail.textContent = detail;
  };

  function storePost(descriptor, file, item) {
    return new Promise(function (resolve) {
      var form = new FormData();
      Object.keys(descriptor.fields).forEach(function (key) {
        form.append(key, descriptor.fields[key]);
      });
      form.append("file", file, file.name);
      var xhr = new XMLHttpRequest();
      xhr.upload.addEventListener("progress", function (event) {
        if (event.lengthComputable) {
          item.progress.value = Math.min(99, Math.floor((event.loaded / event.total) * 100));
          item.detail.textContent = formatSize(event.loaded) + " of " + formatSize(event.total);
        }
      });
      xhr.addEventListener("loadend", function () {
        // 4xx/5xx with CORS headers: the store refused the form (size, expiry). Status 0 is what the
        // store's redirect to the API's finalize URL ends in (cross-origin, token-only), whether the
        // bytes arrived or not: finalize asks the store and decides.
        resolve({ ok: xhr.status < 400, status: xhr.status });
      });
      xhr.open("POST", descriptor.action);
      xhr.send(form);
    });
  }

  function finalize(uploadId, attempt) {
    var url = FINALIZE_URL.replace("{id}", String(uploadId));
    return window.Thingyard.post(url, {}).then(function (body) {
      if (!body.ok && body.type === "UPLOAD_MISSING") {
        if (attempt < MISSING_RETRIES) {
          return new Promise(function (resolve) { window.setTimeout(resolve, 600 * (attempt + 1)); }).then(function () {
            return finalize(uploadId, attempt + 1);
          });
        }
        body.error = "The file never reached the file store; try again.";
      }
      return body;
    });
  }

  function Uploader(root) {
    this.root = root;
    this.startUrl = root.getAttribute("data-start-url");
    this.mode = root.getAttribute("data-mode") || "thing";
    this.list = root.querySelector("[data-upload-list]");
    this.input = root.querySelector("[data-file-input]");
    this.zone = root.querySelector("[data-dropzone]");
    this.items = {};
    var self = this;
    if (this.input) {
      this.input.addEventListener("change", function () {
        self.add(self.input.files);
        self.input.value = "";
      });
    }
    if (this.zone) {
      ["dragenter", "dragover"].forEach(function (type) {
        self.zone.addEventListener(type, function (event) {
          event.preventDefault();
          self.zone.classList.add("is-over");
        });
      });
      ["dragleave", "drop"].forEach(function (type) {
        self.zone.addEventListener(type, function (event) {
          event.preventDefault();
          self.zone.classList.remove("is-over");
        });
      });
      this.zone.addEventListener("drop", function (event) {
        if (event.dataTransfer && event.dataTransfer.files) self.add(event.dataTransfer.files);
      });
    }
    document.addEventListener("thingyard:status", function (event) {
      self.onStatus(event.detail || {});
    });
  }

  Uploader.prototype.add = function (files) {
    var self = this;
    var work = Array.prototype.map.call(files, function (file) {
      return self.upload(file);
    });
    return Promise.all(work).then(function () {
      var status = self.root.closest("[data-status-url]") || document.querySelector("[data-status-url]");
      if (self.mode === "thing" && status && window.Thingyard) window.Thingyard.watchStatus(status);
    });
  };

  Uploader.prototype.upload = function (file) {
    var self = this;
    var item = new Item(this.list, file);
    item.state("uploading", "Starting");
    return window.Thingyard.post(this.startUrl, { filename: file.name }).then(function (descriptor) {
      if (!descriptor.ok) throw new Error(descriptor.error || "This file cannot be uploaded here.");
      item.state("uploading", "Uploading");
      return storePost(descriptor, file, item).then(function (sent) {
        if (!sent.ok) throw new Error("The file store refused the file (HTTP " + sent.status + ").");
        item.state("finalizing", "Checking", formatSize(file.size) + " sent");
        return finalize(descriptor.upload_id, 0);
      });
    }).then(function (done) {
      if (!done.ok) throw new Error(done.error || "The upload could not be finalized.");
      item.progress.value = 100;
      if (done.kind === "make" && done.next) {
        item.state("live", "Posted", "Opening your make…");
        window.location.assign(done.next);
        return;
      }
      if (done.kind === "avatar" || done.kind === "cover") {
        // A profile picture takes effect at once: the page shows it after a reload.
        item.state("live", "Saved", "Your new " + done.kind + " is set");
        window.setTimeout(function () { window.location.reload(); }, 800);
        return;
      }
      var key = done.kind === "image" ? "image:" + done.image_id : "file:" + done.file_id;
      item.el.setAttribute("data-record", key);
      self.items[key] = item;
      if (done.status === "live") item.state("live", "Live", formatSize(file.size) + " · ready");
      else item.state("processing", "Processing", formatSize(file.size) + " · processing…");
    }).catch(function (error) {
      item.state("failed", "Failed", error.message || "The upload failed.");
    });
  };

  Uploader.prototype.onStatus = function (body) {
    var states = body.states || {};
    var self = this;
    Object.keys(this.items).forEach(function (key) {
      var state = states[key];
      var item = self.items[key];
      if (!state || !item) return;
      if (state.status === "live") item.state("live", "Live", formatSize(item.file.size) + " · ready");
      else if (state.status === "failed") item.state("failed", "Failed", state.error || "Processing failed.");
      // Issue 23: not processed in time (its worker or broker is gone); the file list offers "Try again".
      else if (state.status === "stalled") item.state("stalled", "Not processed", state.error || "Processing has not finished.");
    });
  };

  document.querySelectorAll("[data-uploader]").forEach(function (root) {
    root.thingyardUploader = new Uploader(root);
  });

  // The edit page's images: drag one to another place; the new order is saved at once (the arrows do
  // the same one step at a time, without a script).
  var dragged = null;
  document.addEventListener("dragstart", function (event) {
    var item = event.target.closest && event.target.closest(".image-manager li[data-image-id]");
    if (!item) return;
    dragged = item;
    item.classList.add("is-dragging");
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", item.getAttribute("data-image-id"));
  });
  document.addEventListener("dragover", function (event) {
    if (!dragged) return;
    var item = event.target.closest && event.target.closest(".image-manager li[data-image-id]");
    if (!item || item === dragged || item.parentNode !== dragged.parentNode) return;
    event.preventDefault();
    var box = item.getBoundingClientRect();
    var after = event.clientX - box.left > box.width / 2;
    item.parentNode.insertBefore(dragged, after ? item.nextSibling : item);
  });
  document.addEventListener("dragend", function () {
    if (!dragged) return;
    var list = dragged.parentNode;
    dragged.classList.remove("is-dragging");
    dragged = null;
    var ids = Array.prototype.map.call(list.querySelectorAll("li[data-image-id]"), function (item) {
      return Number(item.getAttribute("data-image-id"));
    });
    window.Thingyard.post(list.getAttribute("data-order-url"), { ids: ids }).then(function (body) {
      window.Thingyard.announce(body.ok ? "The new order of the images is saved." : body.error || "Not saved.");
      var status = list.closest("[data-status-url]");
      if (status) window.Thingyard.watchStatus(status); // re-renders the list with its arrows
    });
  });
})();
