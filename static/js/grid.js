// Keyboard editing for RACI grids: arrows move between cells; R on an A cell (or A on an R cell)
// makes AR, a letter the cell already has is removed (AR then R leaves A), C or I replaces the
// cell, Delete, Backspace or Space clear it (responsibility.checks.press is the same rule).
// Setting a value fires "change", which htmx saves.
(function () {
  var LETTERS = { r: "R", a: "A", c: "C", i: "I" };

  function press(value, letter) {
    if (letter === "C" || letter === "I") return value === letter ? "" : letter;
    var held = (value === "A" || value === "R" || value === "AR") ? value : "";
    var a = held.indexOf("A") >= 0, r = held.indexOf("R") >= 0;
    if (letter === "A") a = !a; else r = !r;
    return (a ? "A" : "") + (r ? "R" : "");
  }

  function cells(grid) {
    return Array.prototype.slice.call(grid.querySelectorAll("tbody tr.mrow"));
  }

  function move(input, dRow, dCol) {
    var grid = input.closest("table");
    var rows = cells(grid);
    var tr = input.closest("tr");
    var rowIndex = rows.indexOf(tr);
    var inRow = Array.prototype.slice.call(tr.querySelectorAll("input.raci"));
    var colIndex = inRow.indexOf(input);
    var target = rows[rowIndex + dRow];
    if (!target) return;
    var targetCells = target.querySelectorAll("input.raci");
    var next = targetCells[Math.max(0, Math.min(targetCells.length - 1, colIndex + dCol))];
    if (next) { next.focus(); next.select(); }
  }

  function set(input, value) {
    if (input.readOnly || input.value === value) return;
    input.value = value;
    input.className = input.className.replace(/raci-\S+/, "raci-" + (value || "none"));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  document.addEventListener("keydown", function (event) {
    var input = event.target;
    if (!input.classList || !input.classList.contains("raci")) return;
    var key = event.key;
    if (key === "ArrowUp") { move(input, -1, 0); }
    else if (key === "ArrowDown" || key === "Enter") { move(input, 1, 0); }
    else if (key === "ArrowLeft") { move(input, 0, -1); }
    else if (key === "ArrowRight") { move(input, 0, 1); }
    else if (LETTERS[key.toLowerCase()] && !event.ctrlKey && !event.metaKey && !event.altKey) {
      set(input, press(input.value, LETTERS[key.toLowerCase()]));
    } else if (key === "Delete" || key === "Backspace" || key === " ") { set(input, ""); }
    else if (key === "Tab") { return; }
    else if (key.length === 1) { /* ignore other characters */ }
    else { return; }
    event.preventDefault();
  });

  document.addEventListener("focusin", function (event) {
    if (event.target.classList && event.target.classList.contains("raci")) event.target.select();
  });
})();
