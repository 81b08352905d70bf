// Let htmx show refusals the server explains in the part that was sent: invalid input (400), a
// stale edit (409, 412) and a form sent without its version (428) all answer with that part
// (common.views.PageAction), retargeted by HX-Retarget.
document.addEventListener("htmx:beforeSwap", function (event) {
  var status = event.detail.xhr.status;
  if (status === 400 || status === 409 || status === 412 || status === 428) {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});

// Values the browser itself refuses (a URL field holding "not a url", a score of 7) are never
// sent; say so next to the row instead of leaving an earlier "Saved" in place.
function showBrowserErrors(form) {
  var box = form.querySelector("[data-client-errors]");
  if (!box) {
    box = document.createElement("div");
    box.className = "errors small";
    box.setAttribute("role", "alert");
    box.setAttribute("data-client-errors", "");
    (form.querySelector(".rowstate") || form).appendChild(box);
  }
  box.textContent = "";
  form.querySelectorAll(":invalid").forEach(function (field) {
    if (field.tagName === "FIELDSET" || field.tagName === "FORM") return;
    var label = field.labels && field.labels.length ? field.labels[0].textContent.trim() : "";
    var line = document.createElement("div");
    line.textContent = (label ? label.split("\n")[0].trim() + ": " : "") + field.validationMessage;
    box.appendChild(line);
    field.setAttribute("aria-invalid", "true");
  });
  form.querySelectorAll(".saved").forEach(function (saved) { saved.remove(); });
}

document.addEventListener("htmx:validation:halted", function (event) {
  var form = event.target.closest("form") || event.target;
  if (form.tagName === "FORM") showBrowserErrors(form);
});

// A request that went through clears the browser's messages of the row it came from.
document.addEventListener("htmx:beforeRequest", function (event) {
  var form = event.target.closest && event.target.closest("form");
  if (!form) return;
  form.querySelectorAll("[data-client-errors]").forEach(function (box) { box.remove(); });
  form.querySelectorAll("[aria-invalid]").forEach(function (field) {
    field.removeAttribute("aria-invalid");
  });
});

// The report preview follows the sections and language ticked in the request form. Built here,
// not by submitting the form with GET, so the CSRF token never ends up in a URL. Without
// JavaScript the link previews every section.
document.addEventListener("click", function (event) {
  var link = event.target.closest("a[data-report-preview]");
  if (!link) return;
  var form = link.closest("form");
  var params = new URLSearchParams();
  form.querySelectorAll("input[name=sections]:checked").forEach(function (box) {
    params.append("sections", box.value);
  });
  params.append("choose_sections", "1");
  params.append("language", form.querySelector("select[name=language]").value);
  link.href = link.pathname + "?" + params.toString();
});

// Behaviour that used to sit in inline handlers (a Content-Security-Policy forbids those):
// data-submit-on-change submits its form, data-toggle-class toggles a class on the element named
// by data-toggle-target, data-confirm asks before the click goes on.
document.addEventListener("change", function (event) {
  var el = event.target;
  if (el.hasAttribute("data-submit-on-change")) {
    el.form.submit();
  }
  if (el.hasAttribute("data-toggle-class")) {
    var target = document.getElementById(el.getAttribute("data-toggle-target"));
    if (target) target.classList.toggle(el.getAttribute("data-toggle-class"), el.checked);
  }
});

// A file field (common.forms.FileInput) names the chosen file beside its button, in the page's
// language when none is chosen.
document.addEventListener("change", function (event) {
  var input = event.target;
  if (!input.classList || !input.classList.contains("file-input")) return;
  var pick = input.closest(".file-pick");
  var shown = pick && pick.querySelector(".file-name");
  if (!shown) return;
  var names = Array.prototype.map.call(input.files || [], function (f) { return f.name; });
  shown.textContent = names.length ? names.join(", ") : shown.getAttribute("data-none");
});

// An evidence file chosen in a scorecard cell goes through the page's one upload form (which
// holds the CSRF token), to the address the cell's input names, so the cells carry no form each.
document.addEventListener("change", function (event) {
  var input = event.target;
  if (!input.hasAttribute || !input.hasAttribute("data-upload")) return;
  var form = document.getElementById("evidence-upload");
  if (!form) return;
  form.action = input.getAttribute("data-upload");
  input.name = "file";
  form.appendChild(input);
  form.submit();
});

document.addEventListener("click", function (event) {
  var el = event.target.closest("[data-confirm]");
  if (el && !window.confirm(el.getAttribute("data-confirm"))) {
    event.preventDefault();
  }
});

// A form that starts background work (requesting a report) shows at once that it was sent: its
// submit button is disabled, marked busy and relabelled (data-busy-label) until the next page
// arrives, and a second press does not send it again. Without JavaScript the form posts as is.
document.addEventListener("submit", function (event) {
  var form = event.target;
  if (!form.hasAttribute || !form.hasAttribute("data-busy-on-submit") || event.defaultPrevented) {
    return;
  }
  if (form.getAttribute("aria-busy") === "true") {
    event.preventDefault();
    return;
  }
  form.setAttribute("aria-busy", "true");
  var button = event.submitter || form.querySelector("[type=submit]");
  if (!button) return;
  // After this turn: a button disabled before the form data is built would drop its value.
  window.setTimeout(function () {
    button.disabled = true;
    button.classList.add("busy");
    if (button.hasAttribute("data-busy-label")) {
      button.setAttribute("data-idle-label", button.textContent);
      button.textContent = button.getAttribute("data-busy-label");
    }
  }, 0);
});

// Coming back with the browser's Back button shows the page as it was left: ready again.
window.addEventListener("pageshow", function (event) {
  if (!event.persisted) return;
  document.querySelectorAll("form[data-busy-on-submit][aria-busy]").forEach(function (form) {
    form.removeAttribute("aria-busy");
    form.querySelectorAll("[type=submit].busy").forEach(function (button) {
      button.disabled = false;
      button.classList.remove("busy");
      if (button.hasAttribute("data-idle-label")) {
        button.textContent = button.getAttribute("data-idle-label");
      }
    });
  });
});
