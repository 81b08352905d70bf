// Let htmx show validation errors and edit conflicts: those responses carry the form to swap in.
document.addEventListener("htmx:beforeSwap", function (event) {
  var status = event.detail.xhr.status;
  if (status === 400 || status === 409 || status === 412) {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
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
