// The drop page's own stylesheet and script (the pages' CSP allows neither inline).

export const DROP_CSS = `
blockquote { margin: 0 0 16px; padding: 8px 16px; background: #fff; border-left: 4px solid #3056d3; white-space: pre-wrap; }
.drop-zone { display: grid; gap: 8px; place-items: center; padding: 32px 16px; border: 2px dashed #9aa4c4; border-radius: 8px; cursor: pointer; text-align: center; }
.drop-zone.dragging { border-color: #3056d3; background: #eef2ff; }
progress { width: 100%; }
.success { color: #1b7f3b; }
`;

// Drag-and-drop onto the zone fills the file input; the form is then sent with XMLHttpRequest for
// its upload progress. Without script the same form posts and the server answers a result page.
export const DROP_JS = `
'use strict';
document.addEventListener('DOMContentLoaded', () => {
  const form = document.getElementById('drop-form');
  if (!form) return;
  const zone = document.getElementById('drop-zone');
  const input = document.getElementById('drop-file');
  const progress = document.getElementById('drop-progress');
  const status = document.getElementById('drop-status');
  const result = document.getElementById('drop-result');
  const show = (text, kind) => {
    status.textContent = text;
    status.className = 'status' + (kind ? ' ' + kind : '');
  };
  const chosen = () => input.files && input.files[0] ? 'Ready to send: ' + input.files[0].name : '';

  for (const type of ['dragenter', 'dragover']) zone.addEventListener(type, (event) => {
    event.preventDefault();
    zone.classList.add('dragging');
  });
  for (const type of ['dragleave', 'drop']) zone.addEventListener(type, () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    if (!event.dataTransfer || event.dataTransfer.files.length === 0) return;
    if (event.dataTransfer.files.length > 1) return show('Drop one file only.', 'error');
    input.files = event.dataTransfer.files;
    show(chosen());
  });
  input.addEventListener('change', () => show(chosen()));

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!input.files || input.files.length !== 1) return show('Choose a file first.', 'error');
    const xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.responseType = 'json';
    progress.hidden = false;
    progress.value = 0;
    form.querySelector('button').disabled = true;
    xhr.upload.addEventListener('progress', (e) => {
      if (!e.lengthComputable) return;
      progress.value = Math.round((e.loaded / e.total) * 100);
      show('Sending… ' + progress.value + '%');
    });
    xhr.addEventListener('load', () => {
      const body = xhr.response || {};
      if (xhr.status === 200 && body.success) {
        progress.value = 100;
        show('');
        form.hidden = true;
        result.hidden = false;
        result.className = 'success';
        result.textContent = 'File sent: ' + body.data.originalName + ' was delivered to ' + body.data.username + '. You can close this page.';
      } else {
        form.querySelector('button').disabled = false;
        show(body.error || 'Sending failed (' + xhr.status + ')', 'error');
      }
    });
    xhr.addEventListener('error', () => {
      form.querySelector('button').disabled = false;
      show('The connection failed; nothing was sent. Try again.', 'error');
    });
    xhr.send(new FormData(form));
  });
});
`;
