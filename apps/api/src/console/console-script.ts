/**
 * The console's own script, served as a file (no inline script is allowed). Every page works
 * without it; it adds what htmx does not: asking before a destructive form is sent, showing only
 * the fields of the chosen job kind, and copying a value to the clipboard.
 */
export const CONSOLE_SCRIPT = `
(function () {
  'use strict';

  // A form with data-confirm asks first. Without this script the server asks on a page of its own;
  // with it, the answer travels in the form's "confirmed" field.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var question = form.getAttribute && form.getAttribute('data-confirm');
    if (!question) return;
    if (!window.confirm(question)) {
      event.preventDefault();
      return;
    }
    var confirmed = form.querySelector('input[name="confirmed"]');
    if (confirmed) confirmed.value = 'yes';
  }, true);

  // Job forms: show the fields that apply to the selected kind.
  function showKindFields(form) {
    var select = form.querySelector('select[name="kind"]');
    if (!select) return;
    var blocks = form.querySelectorAll('[data-kinds]');
    for (var i = 0; i < blocks.length; i++) {
      blocks[i].hidden = blocks[i].getAttribute('data-kinds').split(' ').indexOf(select.value) === -1;
    }
  }
  function initKindForms(root) {
    var forms = root.querySelectorAll('form[data-job-form]');
    for (var i = 0; i < forms.length; i++) showKindFields(forms[i]);
  }
  document.addEventListener('change', function (event) {
    if (event.target.name === 'kind' && event.target.form && event.target.form.hasAttribute('data-job-form')) showKindFields(event.target.form);
  });

  // Copy buttons: data-copy names the input whose value is copied.
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button[data-copy]');
    if (!button) return;
    var input = document.getElementById(button.getAttribute('data-copy'));
    if (!input) return;
    if (!button.getAttribute('data-text')) button.setAttribute('data-text', button.textContent);
    var done = function () {
      button.textContent = 'Copied';
      setTimeout(function () { button.textContent = button.getAttribute('data-text'); }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, function () { input.select(); });
    } else {
      input.select();
      try { document.execCommand('copy'); done(); } catch (e) { /* the text stays selected for a manual copy */ }
    }
  });

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', function () { initKindForms(document); });
  else initKindForms(document);
})();
`;
