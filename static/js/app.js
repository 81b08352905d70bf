// Let htmx show validation errors and edit conflicts: those responses carry the form to swap in.
document.addEventListener("htmx:beforeSwap", function (event) {
  var status = event.detail.xhr.status;
  if (status === 400 || status === 409 || status === 412) {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});
