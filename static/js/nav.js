// Phones: the header menu (a <details>, open in the HTML so it works without JavaScript) starts
// folded, so a page's own content starts on the first screen; the evaluation tab strip, which
// scrolls sideways there, shows the current tab; tables that scroll sideways take the focus.
(function () {
  function foldMenus() {
    document.querySelectorAll("details[data-fold-below]").forEach(function (menu) {
      var narrow = window.matchMedia("(max-width: " + menu.getAttribute("data-fold-below") + "px)");
      menu.open = !narrow.matches;
      narrow.addEventListener("change", function (event) { menu.open = !event.matches; });
    });
  }

  function showCurrentTab() {
    document.querySelectorAll(".tabs").forEach(function (strip) {
      var current = strip.querySelector("[aria-current=page]");
      if (!current || strip.scrollWidth <= strip.clientWidth) return;
      strip.scrollLeft = current.offsetLeft - (strip.clientWidth - current.offsetWidth) / 2;
    });
  }

  // A table or frame that scrolls sideways must be reachable with the keyboard (WCAG 2.1.1).
  function focusableFrames() {
    document.querySelectorAll(".scroll, table.grid").forEach(function (frame) {
      if (frame.hasAttribute("tabindex") || frame.scrollWidth <= frame.clientWidth) return;
      if (frame.parentElement.closest(".scroll")) return;
      frame.setAttribute("tabindex", "0");
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    foldMenus();
    showCurrentTab();
    focusableFrames();
  });
})();
