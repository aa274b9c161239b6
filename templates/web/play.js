// A seat's page: the arrow keys step between the board's playable points (links that
// work without this script), Enter follows one. Nothing else depends on JavaScript.
(function () {
  var points = Array.prototype.slice.call(document.querySelectorAll("svg a.point"));
  if (!points.length) return;
  function centre(link) {
    var c = link.querySelector("circle");
    return {x: parseFloat(c.getAttribute("cx")), y: parseFloat(c.getAttribute("cy"))};
  }
  points.forEach(function (link) { link.setAttribute("tabindex", "0"); });
  var steps = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
  document.addEventListener("keydown", function (event) {
    var step = steps[event.key];
    if (!step || event.altKey || event.ctrlKey || event.metaKey) return;
    if (/^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(event.target.tagName)) return;
    var from = points.indexOf(document.activeElement);
    if (from < 0) { event.preventDefault(); points[0].focus(); return; }
    var here = centre(points[from]), best = null, bestCost = Infinity;
    points.forEach(function (link, index) {
      if (index === from) return;
      var p = centre(link), dx = p.x - here.x, dy = p.y - here.y;
      var along = dx * step[0] + dy * step[1];
      if (along <= 1) return;  // not in that direction
      var cost = along + 3 * Math.abs(dx * step[1] + dy * step[0]);
      if (cost < bestCost) { bestCost = cost; best = link; }
    });
    if (best) { event.preventDefault(); best.focus(); }
  });
})();
