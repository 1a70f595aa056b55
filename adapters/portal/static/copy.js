// Copy-to-clipboard for the buttons marked data-copy="ID": copies the text
// of the element ID. The buttons stay hidden without JavaScript.
(function () {
  "use strict";
  var buttons = document.querySelectorAll("button[data-copy]");
  Array.prototype.forEach.call(buttons, function (b) {
    var target = document.getElementById(b.getAttribute("data-copy"));
    if (!target || !navigator.clipboard) {
      return;
    }
    b.hidden = false;
    b.addEventListener("click", function () {
      navigator.clipboard.writeText(target.textContent.trim()).then(function () {
        b.textContent = "Copied";
      }, function () {
        b.textContent = "Copy failed: select the text";
      });
    });
  });
})();
