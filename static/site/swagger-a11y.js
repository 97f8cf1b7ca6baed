/*
 * Swagger UI (/docs/) as a keyboard and a screen reader meet it (issue 26). Swagger UI puts the deep link
 * of an operation's path inside the button that opens the operation: two controls nested in one (axe:
 * nested-interactive, which a negative tabindex does not settle). The link inside the button becomes
 * plain text: a click on it still opens the operation, and opening an operation still puts its deep link
 * in the address bar (deepLinking), so nothing is lost. Code samples that scroll take the keyboard's focus
 * so a keyboard can scroll them (axe: scrollable-region-focusable).
 */
(function () {
  const root = document.getElementById("swagger-ui");
  if (!root) return;

  function fix() {
    root.querySelectorAll(".opblock-summary-control a[href]").forEach((link) => link.removeAttribute("href"));
    root.querySelectorAll(".highlight-code > pre:not([tabindex])").forEach((code) => code.setAttribute("tabindex", "0"));
  }

  fix();
  new MutationObserver(fix).observe(root, { childList: true, subtree: true });
})();
